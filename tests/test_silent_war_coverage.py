"""docs/silent_war_coverage.md is kept honest (issue 11 §1): every row has a status, every
row that is not faithful says why, every faithful row names a test that exists, every
numbered rule of the text has a row, and the Summary counts the rows."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "silent_war_coverage.md"
STATUSES = ("faithful", "unverified", "deviation", "not applicable")

# The numbered rules of the Silent War 2.1 text ([1.0]-[29.0]) as its headings print them in
# ../shared/seeds/000_0b28bf2899953500.txt (transcribed; sub-rules included).
RULE_NUMBERS = """
1.0 1.1 2.0 2.1 2.2 2.3 2.4 2.5 3.0 3.1 3.11 3.12 3.13 3.14 3.15 3.2 4.0 5.0 5.1 5.2 6.0
7.0 7.1 7.11 7.12 7.13 7.14 7.2 7.21 7.22 8.0 9.0 10.0 10.1 10.2 10.21 10.3 11.0 12.0 12.1
12.2 13.0 13.1 13.2 13.3 14.0 14.1 14.11 14.12 14.13 14.14 14.15 14.16 14.17 14.2 14.3 14.4
14.41 14.42 14.5 14.6 14.7 14.8 15.0 15.1 15.11 15.2 15.21 15.22 15.23 15.24 15.25 15.26
16.0 16.1 16.2 16.3 17.0 17.1 18.0 18.1 18.11 18.12 18.13 18.14 18.2 19.0 19.1 19.11 19.2
19.21 20.0 20.1 20.2 20.3 20.4 20.5 21.0 21.1 21.11 21.2 21.21 21.22 21.23 21.24 21.3 22.0
22.1 22.2 22.4 23.0 23.1 24.0 24.1 24.11 24.12 24.13 24.14 24.2 24.3 24.31 24.32 24.4 24.41
24.5 24.51 24.52 24.53 24.54 24.55 24.6 24.7 25.0 25.1 25.2 25.3 26.0 27.0 28.0 28.1 28.11
28.12 28.13 28.14 28.2 28.21 28.3 28.4 28.41 28.5 29.0
"""
RULES = RULE_NUMBERS.split()


def rows() -> list[list[str]]:
    found = []
    for line in DOC.read_text().splitlines():
        if line.startswith("| [") or line.startswith("| IJN"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            assert len(cells) == 5, line
            found.append(cells)
    return found


def named_tests(cell: str) -> list[tuple[str, str]]:
    """(file, function) for every test a row names: `tests/f.py::name`, then `::other` for
    more of the same file; parametrized ids (`[default-x]`) are left off."""
    found = []
    current = ""
    for match in re.finditer(r"(tests/[\w/]+\.py)?::(\w+)", cell):
        current = match.group(1) or current
        assert current, f"a test without its file: {cell}"
        found.append((current, match.group(2)))
    return found


def test_every_row_has_a_status_and_a_reason() -> None:
    for rule, _, status, why, _ in rows():
        assert status.startswith(STATUSES), f"{rule}: status {status!r}"
        if not status.startswith("faithful") or "(" in status:
            assert why not in ("", "—"), f"{rule} ({status}) says no why"


def test_every_faithful_row_names_a_test_that_exists() -> None:
    sources: dict[str, str] = {}
    for rule, _, status, _, test in rows():
        tests = named_tests(test)
        if status.startswith("faithful"):
            assert tests, f"{rule} is faithful but names no test"
        for path, name in tests:
            if path not in sources:
                sources[path] = (ROOT / path).read_text()
            assert re.search(rf"^def {name}\(", sources[path], re.M), f"{rule}: {path}::{name}"


def test_every_numbered_rule_has_a_row() -> None:
    covered = {n for cells in rows() for n in re.findall(r"\[(\d+\.\d+)", cells[0])}
    assert [n for n in RULES if n not in covered] == []


def test_the_summary_counts_the_rows() -> None:
    counts: Counter[str] = Counter()
    provisional = 0
    for _, _, status, _, _ in rows():
        counts[next(s for s in STATUSES if status.startswith(s))] += 1
        provisional += status.startswith("faithful") and "provisional data" in status
    text = DOC.read_text()
    summary = (
        f"| faithful | {counts['faithful']} (of which {provisional} with provisional data) |",
        f"| unverified | {counts['unverified']} |",
        f"| deviation | {counts['deviation']} |",
        f"| not applicable | {counts['not applicable']} |",
        f"| **total** | **{len(rows())}** |",
    )
    for line in summary:
        assert line in text, line
