"""Every ``$ rulekit ...`` example in README.md and docs/, run, and its output compared whole.

An example is a line ``$ rulekit ...`` inside a fenced code block (any language); the lines
under it, up to the next ``$`` line or the end of the block, are what it prints: stdout and
stderr as a terminal shows them, the whole output. Only what truly varies from run to run
is normalised before the comparison (``NORMALISE``: speeds and durations; ``PROGRESS``:
progress lines left out).

    python tools/docs_examples.py            # check; exit 1 and a diff where one differs
    python tools/docs_examples.py --update   # run every example again and write what it
                                             # prints into the docs, printing the diff
                                             # (and docs/play.md's `rulekit play` transcript)

(The lead runs ``--update`` after merging a change to the rulebooks' results, reads the diff,
and commits it; the suite's ``tests/test_docs_examples.py`` runs the check.)
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(\s*)(```+|~~~+)")
# what varies from run to run: replaced by a placeholder on both sides before comparing
NORMALISE = [
    (re.compile(r"\d+(\.\d+)? games/s"), "N games/s"),
    (re.compile(r"\b\d+(\.\d+)? s\b(?!ituation)"), "N s"),
]
# commands' options that write files: they must write outside the tree (or to ignored paths)
WRITES = ("--plot", "--csv", "--out", "--save", "--trace", "-o", "--output")


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass
class Example:
    path: Path
    line: int  # 0-based index of the `$ ` line in the file
    command: str
    shown: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line + 1}"


def examples(path: Path) -> Iterator[Example]:
    """The ``$ rulekit`` examples of one file, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    fence: str | None = None
    current: Example | None = None
    for k, line in enumerate(lines):
        match = FENCE.match(line)
        if match and (fence is None or match[2].startswith(fence)):
            if fence is None:
                fence = match[2]
            else:
                fence = None
                if current is not None:
                    yield current
                current = None
            continue
        if fence is None:
            continue
        if line.startswith("$ "):
            if current is not None:
                yield current
            current = Example(path, k, line[2:]) if line.startswith("$ rulekit ") else None
        elif current is not None:
            current.shown.append(line)


def all_examples() -> list[Example]:
    return [e for p in documents() for e in examples(p)]


# a long command's progress lines, printed every few seconds when not on a terminal: how many
# appear depends on the machine's speed, so they are no part of what an example shows
PROGRESS = re.compile(r"^simulate: [\d,]+/[\d,]+ games, ")


def normalise(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        if PROGRESS.match(line):
            continue
        for pattern, placeholder in NORMALISE:
            line = pattern.sub(placeholder, line)
        out.append(line.rstrip())
    return out


def run(example: Example) -> tuple[int, list[str]]:
    """Run the example in-process from the clone's root; (exit code, lines printed)."""
    from click.testing import CliRunner

    from rulekit.cli.main import main

    os.environ.setdefault("RULEKIT_PLAY_DIR", tempfile.mkdtemp(prefix="rulekit-docs-play-"))
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(main, shlex.split(example.command)[1:], catch_exceptions=False)
    finally:
        os.chdir(cwd)
    text = result.output
    lines = [line.rstrip() for line in text.splitlines()]
    return result.exit_code, lines


def writes_into_tree(command: str) -> list[str]:
    """Paths in the clone (and not ignored by git) the command's options would write."""
    words = shlex.split(command)
    bad = []
    for k, word in enumerate(words):
        value = None
        for flag in WRITES:
            if word == flag and k + 1 < len(words):
                value = words[k + 1]
            elif word.startswith(flag + "="):
                value = word.split("=", 1)[1]
        if value is None:
            continue
        target = (ROOT / value).resolve()
        if target.is_relative_to(ROOT) and not _ignored(target):
            bad.append(value)
    return bad


def _ignored(path: Path) -> bool:
    import subprocess

    done = subprocess.run(
        ["git", "check-ignore", "-q", str(path)], cwd=ROOT, capture_output=True, check=False
    )
    return done.returncode == 0


def diff(example: Example, printed: list[str]) -> list[str]:
    return list(
        difflib.unified_diff(
            normalise(example.shown),
            normalise(printed),
            f"{example.where} (shown)",
            f"`{example.command}` (printed)",
            lineterm="",
        )
    )


def update(path: Path, found: dict[int, list[str]]) -> None:
    """Write each example's printed output under its ``$`` line (keyed by line index)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    by_line = {e.line: e for e in examples(path)}
    out: list[str] = []
    k = 0
    while k < len(lines):
        out.append(lines[k])
        if k in by_line and k in found:
            out.extend(found[k])
            k += 1 + len(by_line[k].shown)
            continue
        k += 1
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


PLAY_MARK = "From a real game (seed 3, every answer Enter, the default)"


PLAY_SCREEN_MARK = "A screen of a real game (seed 3, every answer Enter)"


def played_lines() -> list[str]:
    """What ``rulekit play rulebooks/silent_war --seed 3`` prints with Enter at every prompt
    (not on a terminal: an answer is not echoed, what follows a prompt is on its line)."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "rulekit", "play", "rulebooks/silent_war", "--seed", "3"],
        input="\n" * 400,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={
            **os.environ,
            "RULEKIT_PLAY_DIR": tempfile.mkdtemp(prefix="rulekit-docs-play-"),
            "COLUMNS": "100",  # the board is drawn to the terminal's width
        },
        timeout=600,
        check=False,
    )
    return done.stdout.splitlines()


def play_screen(lines: list[str] | None = None, rows: int = 40, width: int = 100) -> str:
    """The screen docs/play.md shows (for the README's play section): the last ``rows`` rows
    a terminal of ``width`` columns shows when Silent War seed 3 (Enter at every prompt)
    first asks a question with a chance to hit above zero. An answer, not echoed here, ends
    its prompt's row, as on the terminal."""
    lines = played_lines() if lines is None else lines
    shown: list[str] = []
    for line in lines:
        prompt, sep, rest = line.partition("] > ")
        shown.extend([prompt + "] > ", rest.rstrip()] if sep and rest.strip() else [line.rstrip()])
    odds = re.compile(r"to hit: needs .*: [1-9][\d.]*%$")
    at = next(k for k, line in enumerate(shown) if odds.search(line))
    end = next(k for k in range(at, len(shown)) if shown[k].endswith("] > "))
    screen: list[str] = []
    used = 0
    for line in reversed(shown[: end + 1]):
        used += max(1, -(-len(line) // width))  # a longer line wraps
        if used > rows:
            break
        screen.insert(0, line)
    return "\n".join(screen)


def play_transcript(lines: list[str] | None = None) -> str:
    """The docs/play.md transcript: ``rulekit play`` on Silent War, seed 3, Enter at every
    prompt, from the search of the first combat to the first attack's verdict, each answer shown as
    the player sees it (``[default] > ⏎``)."""
    lines = played_lines() if lines is None else lines
    first = next(k for k, line in enumerate(lines) if "Resolving the Attack [14.16]" in line)
    start = max(k for k in range(first) if "Search & Contact and Combat" in lines[k])
    end = first
    out: list[str] = []
    for line in lines[start : end + 1]:
        # without a terminal the answer is not echoed: what follows a prompt is on its line
        prompt, sep, rest = line.partition("] > ")
        out.extend([prompt + "] > ⏎", rest] if sep and rest.strip() else [line.rstrip()])
        if sep and not rest.strip():
            out[-1] = prompt + "] > ⏎"
    while not out[0].startswith("Search & Contact and Combat"):
        del out[0]  # the answer before it, on the phase's line
    return "\n".join(out)


def _write_block(path: Path, mark: str, new: str) -> bool:
    """Replace the code block after ``mark`` in ``path`` (if the mark is there) with ``new``;
    whether it changed."""
    text = path.read_text(encoding="utf-8")
    if mark not in text:
        return False
    start = text.index(mark)
    body = text.index("```\n", start) + 4
    end = text.index("\n```", body)
    if text[body:end] == new:
        return False
    name = path.relative_to(ROOT)
    print("\n".join(difflib.unified_diff(text[body:end].splitlines(), new.splitlines(),
                                         f"{name} (shown)", "rulekit play (printed)",
                                         lineterm="")))  # fmt: skip
    path.write_text(text[:body] + new + text[end:], encoding="utf-8")
    return True


def update_play(path: Path) -> bool:
    """Write the play screen and transcript into docs/play.md, and the same screen into the
    README's play section; whether they changed."""
    lines = played_lines()
    screen = play_screen(lines)
    changed = _write_block(path, PLAY_SCREEN_MARK, screen)
    changed = _write_block(path, PLAY_MARK, play_transcript(lines)) or changed
    return _write_block(ROOT / "README.md", PLAY_SCREEN_MARK, screen) or changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite the shown outputs")
    parser.add_argument("files", nargs="*", help="only these files (default: all)")
    args = parser.parse_args(argv)
    os.environ.setdefault("RULEKIT_CACHE", tempfile.mkdtemp(prefix="rulekit-docs-cache-"))
    sys.path.insert(0, str(ROOT))
    paths = [Path(f).resolve() for f in args.files] or documents()
    failed = 0
    for path in paths:
        found: dict[int, list[str]] = {}
        for example in examples(path):
            code, printed = run(example)
            changes = diff(example, printed)
            if changes or code not in (0, 3):
                failed += 1
                print(f"{example.where}: exit {code}" if code not in (0, 3) else example.where)
                print("\n".join(changes))
            # keep the shown text where only a normalised part (a timing) differs
            found[example.line] = printed if changes else example.shown
        if args.update and found:
            update(path, found)
    play = ROOT / "docs" / "play.md"
    if args.update and play in paths and update_play(play):
        print("docs/play.md: the play transcript rewritten")
    if args.update:
        print(f"{failed} example(s) rewritten" if failed else "every example is up to date")
        return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
