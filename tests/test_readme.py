"""The README's commands work as printed.

Every ``$ rulekit ...`` example is run, and every line of output the README shows under it
must be a line the command prints (``...`` stands for lines left out, or ends a line shown
only in part). Every other ``rulekit`` command line is checked against the command's own
``--help``: the command exists and takes each option the README gives it (running them all,
simulations included, would take minutes). Rulebook excerpts must be lines of the files.
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

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```sh\n(.*?)\n```", README, flags=re.S)


def _examples() -> list[tuple[str, list[str]]]:
    """(command, the output lines shown under it) for each ``$ rulekit`` line."""
    out: list[tuple[str, list[str]]] = []
    for block in BLOCKS:
        current: tuple[str, list[str]] | None = None
        for line in block.splitlines():
            if line.startswith("$ "):
                current = (line[2:], [])
                out.append(current)
            elif current is not None:
                current[1].append(line)
    return [(cmd, shown) for cmd, shown in out if cmd.startswith("rulekit ")]


def _plain_commands() -> list[str]:
    lines = []
    for block in BLOCKS[2:]:  # the first two are the install commands
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("rulekit "):
                lines.extend(part.strip() for part in line.split("&&"))
    return lines


@pytest.mark.parametrize(("command", "shown"), _examples(), ids=lambda x: str(x)[:60])
def test_readme_example_prints_what_the_readme_shows(command: str, shown: list[str]) -> None:
    os.chdir(ROOT)
    result = run_cli(*shlex.split(command)[1:])
    assert result.exit_code in (0, 3), result.output
    printed = [line.rstrip() for line in result.output.splitlines()]
    for line in shown:
        if line.strip() in ("", "...") or line.strip().startswith("..."):
            continue
        if line.endswith("..."):  # the start of a line, the rest left out
            assert any(p.startswith(line[:-3].rstrip()) for p in printed), line
            continue
        assert line.rstrip() in printed, f"README shows {line!r}; `{command}` printed:\n" + (
            "\n".join(printed)
        )


@pytest.mark.parametrize("command", _plain_commands())
def test_readme_command_exists_with_its_options(command: str) -> None:
    words = shlex.split(command.rstrip("\\"))
    help_text = run_cli(words[1], "--help")
    assert help_text.exit_code == 0, f"`rulekit {words[1]}` is not a command"
    for word in words[2:]:
        if word.startswith("--"):
            assert word.split("=")[0] in help_text.output, f"{command}: no option {word}"


def _excerpts() -> list[str]:
    """Code blocks without a language that show a table or a modifier list."""
    blocks: list[str] = []
    fence: str | None = None
    current: list[str] = []
    for line in README.splitlines():
        if line.startswith("```"):
            if fence is None:
                fence, current = line[3:], []
            else:
                if fence == "":
                    blocks.append("\n".join(current))
                fence = None
        elif fence is not None:
            current.append(line)
    return [b for b in blocks if b.startswith(("table ", "modifiers "))]


@pytest.mark.parametrize("excerpt", _excerpts(), ids=lambda x: x.split()[1])
def test_readme_rulebook_excerpts_are_the_files(excerpt: str) -> None:
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
            assert words(shown) in text, f"README excerpt line not in any rulebook: {line!r}"


def test_the_readme_played_turn_is_what_play_prints(tmp_path: Path) -> None:
    # the excerpt under "From a real game (seed 3, every answer Enter, the default)"
    start = README.index("From a real game (seed 3")
    block = README[README.index("```\n", start) + 4 : README.index("\n```", start)]
    shown = [line.replace(" ⏎", " ") for line in block.splitlines()]
    env = {**os.environ, "RULEKIT_PLAY_DIR": str(tmp_path)}
    answers = "\n" * 400
    result = subprocess.run(
        [sys.executable, "-m", "rulekit", "play", "rulebooks/silent_war", "--seed", "3"],
        input=answers,
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
    at = 0
    for line in shown:
        if line.strip() in ("", "..."):
            continue
        found = next((k for k in range(at, len(lines)) if lines[k] == line.rstrip()), None)
        assert found is not None, f"README shows {line!r}, not printed (in order) by play"
        at = found + 1
