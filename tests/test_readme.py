"""The README and docs/ say what is true (the ``$ rulekit`` examples and their whole output
are checked by tests/test_docs_examples.py):

- every other ``rulekit`` command line shown is checked against the command's own
  ``--help``: the command exists and takes each option given (running them all, simulations
  included, would take minutes);
- rulebook excerpts are lines of the rulebooks, and the README's first rulebook is the whole
  of ``examples/first_fight/rulebook.rk``;
- the ``rulekit play`` transcript in docs/play.md is one stretch of what play prints.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block."""
    return [(m[1], m[2]) for m in re.finditer(r"^```(\w*)\n(.*?)\n```", text, flags=re.S | re.M)]


def _plain_commands() -> list[str]:
    lines = []
    for doc in DOCS:
        for _, block in _blocks(doc.read_text(encoding="utf-8")):
            if any(line.startswith("$ ") for line in block.splitlines()):
                continue  # examples: run whole by test_docs_examples
            joined = block.replace("\\\n", " ")
            for line in joined.splitlines():
                line = line.split("  #")[0].strip()
                if line.startswith("rulekit "):
                    lines.extend(part.strip() for part in line.split("&&"))
    return lines


def test_there_are_plain_commands() -> None:
    assert len(_plain_commands()) > 20


@pytest.mark.parametrize("command", _plain_commands())
def test_docs_command_exists_with_its_options(command: str) -> None:
    words = shlex.split(command.rstrip("\\"))
    help_text = run_cli(words[1], "--help")
    assert help_text.exit_code == 0, f"`rulekit {words[1]}` is not a command"
    for word in words[2:]:
        if word.startswith("--"):
            assert word.split("=")[0] in help_text.output, f"{command}: no option {word}"


def test_the_readme_keeps_the_two_setup_commands_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    setup = [b for lang, b in _blocks(README) if lang == "sh"][:2]
    assert setup[0].startswith("python3 -m venv .venv && .venv/bin/pip install -e . &&")
    assert setup[1] == (
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && "
        ".venv/bin/python -m pytest -n 2"
    )
    assert setup[1] in ci


def test_the_readme_first_rulebook_is_the_example_file() -> None:
    (snippet,) = [b for lang, b in _blocks(README) if lang == "rk"]
    path = ROOT / "examples" / "first_fight" / "rulebook.rk"
    assert snippet + "\n" == path.read_text(encoding="utf-8")
    assert len(snippet.splitlines()) <= 14


def _excerpts() -> list[str]:
    """Code blocks without a language that show a table or a modifier list."""
    return [
        b
        for doc in DOCS
        # the language reference and the tutorial show their own examples (test_tutorial.py)
        if doc.name not in ("LANGUAGE.md", "TUTORIAL.md")
        for lang, b in _blocks(doc.read_text(encoding="utf-8"))
        if lang == "" and b.startswith(("table ", "modifiers "))
    ]


@pytest.mark.parametrize("excerpt", _excerpts(), ids=lambda x: x.split()[1])
def test_docs_rulebook_excerpts_are_the_files(excerpt: str) -> None:
    def words(line: str) -> str:
        return " ".join(line.replace("|", " | ").split())

    text = {
        words(line)
        for p in (ROOT / "rulebooks").rglob("*.rk")
        for line in p.read_text(encoding="utf-8").splitlines()
    }
    for line in excerpt.splitlines():
        shown = line.split("  #")[0].rstrip()
        if shown.endswith("..."):  # a line shown only in part
            start = words(shown[:-3])
            assert any(t.startswith(start) for t in text), line
        else:
            assert words(shown) in text, f"excerpt line not in any rulebook: {line!r}"


def test_the_played_turn_in_the_docs_is_one_stretch_of_what_play_prints(tmp_path: Path) -> None:
    # the transcript under "From a real game (seed 3, every answer Enter, the default)"
    play = (ROOT / "docs" / "play.md").read_text(encoding="utf-8")
    start = play.index("From a real game (seed 3")
    body = play.index("```\n", start) + 4
    block = play[body : play.index("\n```", body)]
    shown = [line.replace(" ⏎", " ").rstrip() for line in block.splitlines()]
    assert len(shown) > 40 and shown[0].startswith("Search & Contact and Combat [13.0]")
    # the board is drawn to the terminal's width: 100 columns, as the transcript was taken
    env = {**os.environ, "RULEKIT_PLAY_DIR": str(tmp_path), "COLUMNS": "100"}
    result = subprocess.run(
        [sys.executable, "-m", "rulekit", "play", "rulebooks/silent_war", "--seed", "3"],
        input="\n" * 400,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
        check=False,
    )
    # without a terminal, the answer is not echoed: what follows a prompt is on its line
    printed = "\n".join(line.replace("] > ", "] > \n") for line in result.stdout.splitlines())
    lines = [line.rstrip() for line in printed.splitlines()]
    starts = [k for k in range(len(lines)) if lines[k : k + len(shown)] == shown]
    assert starts, "docs/play.md's transcript is not one stretch of what play prints"


def test_the_play_screen_in_the_docs_is_what_a_terminal_shows() -> None:
    """docs/play.md's captured screen (for the README's play section) is the last 40 rows
    of 100 columns that `rulekit play rulebooks/silent_war --seed 3` shows, Enter at every
    prompt, at the first question with a chance to hit above zero (tools/docs_examples.py
    captures it: `python tools/docs_examples.py --update docs/play.md`)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import docs_examples
    finally:
        sys.path.remove(str(ROOT / "tools"))
    lines = docs_examples.played_lines()
    blocks = []
    for doc in (ROOT / "docs" / "play.md", ROOT / "README.md"):  # the README shows it too
        play = doc.read_text(encoding="utf-8")
        start = play.index(docs_examples.PLAY_SCREEN_MARK)
        body = play.index("```\n", start) + 4
        blocks.append(play[body : play.index("\n```", body)])
    block = blocks[0]
    assert blocks[1] == block
    assert block == docs_examples.play_screen(lines)
    rows = sum(max(1, -(-len(line) // 100)) for line in block.splitlines())
    assert 35 <= rows <= 40
    assert re.search(r"#\d+ \d+ \(default\): to hit: needs \d+ \(difference\) or less on d10: "
                     r"[1-9]\d*%\n\[\d+\] > $", block)  # fmt: skip
