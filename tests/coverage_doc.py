"""Reading docs/silent_war_coverage.md beside the rules text and the rulebook (issue 30 §4).

Used by tests/test_silent_war_coverage.py to check the document's claims, and as a command
to refresh the `.rk` line numbers it cites after the rulebook changed, and the Summary's
counts after rows were re-marked:

    .venv/bin/python tests/coverage_doc.py --relines
    .venv/bin/python tests/coverage_doc.py --recount

The document cites code as ``file.rk:first-last `name` ``: the lines of the top-level
definition `name` (procedure, table, modifiers, state, enum, record, const, ...) in that file,
from its header line to its last non-blank line. It quotes the rules text in the "text"
column between double quotes; each quote, pieces separated by " ... ", must be found word for
word in the text (whitespace, typographic quotes and markdown emphasis aside).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "silent_war_coverage.md"
BOOK = ROOT / "rulebooks" / "silent_war"
SEED = ROOT.parent.parent / "shared" / "seeds" / "000_0b28bf2899953500.txt"
if not SEED.exists():  # a checkout beside ../shared (the repo's own layout)
    SEED = ROOT.parent / "shared" / "seeds" / "000_0b28bf2899953500.txt"

COLUMNS = ("rule", "text", "where", "status", "why", "evidence", "pass")
KEYWORDS = (
    "procedure|modifiers|table|state|enum|record|const|sequence|option|kind|marker|track|view|dice"
)
DEFINITION = re.compile(rf"^(?:{KEYWORDS})\s+(\w+)")
CITE = re.compile(r"(\w+\.rk):(\d+)-(\d+) `(\w+)`")


def rows() -> list[list[str]]:
    """The rule rows of the document, each its seven cells."""
    found = []
    for line in DOC.read_text().splitlines():
        if line.startswith("| [") or line.startswith("| IJN"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            assert len(cells) == len(COLUMNS), line
            found.append(cells)
    return found


@cache
def definitions(file: str) -> dict[str, tuple[int, int]]:
    """Top-level definitions of a rulebook file: name -> (first line, last line), 1-based."""
    lines = (BOOK / file).read_text().splitlines()
    starts = [(i, m.group(1)) for i, line in enumerate(lines) if (m := DEFINITION.match(line))]
    found: dict[str, tuple[int, int]] = {}
    for i, name in starts:
        end = i
        for j in range(i + 1, len(lines)):
            line = lines[j]
            if line and not line[0].isspace():
                break  # the next top-level line (a definition or the comment above one)
            if line.strip():
                end = j
        found.setdefault(name, (i + 1, end + 1))
    return found


def normalize(text: str) -> str:
    text = text.replace("“", '"').replace("”", '"').replace("‘", "'").replace("’", "'")
    # a quote in a table cell cannot hold a double quote: both kinds compare alike
    text = text.replace('"', "'").replace("**", "").replace("*", "")
    return re.sub(r"\s+", " ", text).strip()


@cache
def seed_text() -> str:
    return normalize(SEED.read_text())


def quotes(cell: str) -> list[str]:
    """The quoted pieces of a text cell: each "..." part, split at ' ... ' ellipses."""
    pieces = []
    for quote in re.findall(r'"([^"]+)"', cell.replace('\\"', "'")):
        pieces += [p.strip() for p in quote.split("...") if p.strip()]
    return pieces


def relined(cell: str) -> str:
    """The where cell with every `file.rk:a-b `name`` citation's lines recomputed."""

    def fix(m: re.Match[str]) -> str:
        file, name = m.group(1), m.group(4)
        if name not in definitions(file):
            # renamed or moved: left for a reader to fix (the test names it)
            print(f"not in {file}: {name}", file=sys.stderr)
            return m.group(0)
        first, last = definitions(file)[name]
        return f"{file}:{first}-{last} `{name}`"

    return CITE.sub(fix, cell)


def relines() -> int:
    text = DOC.read_text()
    lines = []
    for line in text.splitlines():
        if line.startswith("| [") or line.startswith("| IJN"):
            cells = line.strip().strip("|").split("|")
            cells[2] = " " + relined(cells[2].strip()) + " "
            line = "|" + "|".join(cells) + "|"
        lines.append(line)
    new = "\n".join(lines) + "\n"
    DOC.write_text(new)
    return 0 if new == text else 1


STATUSES = ("faithful", "unverified", "deviation", "not applicable")
PASSES = ("new test", "read", "carried")


def recount() -> None:
    """Write the Summary's counts from the rows (after rows were re-marked)."""
    found = rows()
    status = Counter(next(s for s in STATUSES if r[3].startswith(s)) for r in found)
    provisional = sum(r[3].startswith("faithful") and "provisional data" in r[3] for r in found)
    verified = Counter(r[6] for r in found)
    text = DOC.read_text()
    text = re.sub(
        r"\| faithful \| \d+ \(of which \d+ with provisional data\) \|",
        f"| faithful | {status['faithful']} (of which {provisional} with provisional data) |",
        text,
    )
    for key, counts in [(k, status) for k in STATUSES[1:]] + [(k, verified) for k in PASSES]:
        text = re.sub(rf"\| {key} \| \d+ \|", f"| {key} | {counts[key]} |", text)
    text = re.sub(r"\| \*\*total\*\* \| \*\*\d+\*\* \|", f"| **total** | **{len(found)}** |", text)
    DOC.write_text(text)


if __name__ == "__main__":
    if sys.argv[1:] == ["--relines"]:
        changed = relines()
        print("line numbers refreshed" if changed else "line numbers already current")
    elif sys.argv[1:] == ["--recount"]:
        recount()
        print("Summary recounted")
    else:
        print("usage: coverage_doc.py --relines | --recount", file=sys.stderr)
        sys.exit(2)
