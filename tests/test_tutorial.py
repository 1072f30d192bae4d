"""docs/TUTORIAL.md runs: its snippets are the files of examples/tutorial/ (together, all of
them), and each ``$ rulekit ...`` command prints the lines shown under it (``...`` stands for
lines left out)."""

from __future__ import annotations

import os
import re
import shlex

import pytest
from conftest import ROOT, run_cli

TUTORIAL = (ROOT / "docs" / "TUTORIAL.md").read_text(encoding="utf-8")
GAME = ROOT / "examples" / "tutorial"
SNIPPETS = re.findall(r"```(?:rk|toml)\n# in (\S+)\n(.*?)\n```", TUTORIAL, flags=re.S)
COMMANDS = re.findall(r"```sh\n(.*?)\n```", TUTORIAL, flags=re.S)


def _examples() -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for block in COMMANDS:
        for line in block.splitlines():
            if line.startswith("$ "):
                out.append((line[2:], []))
            else:
                out[-1][1].append(line)
    return out


@pytest.mark.parametrize(("path", "snippet"), SNIPPETS, ids=lambda x: str(x)[:40])
def test_snippet_is_a_piece_of_its_file(path: str, snippet: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert path.startswith("examples/tutorial/")
    assert snippet + "\n" in text, f"this snippet is not a run of lines of {path}:\n{snippet}"


def test_the_snippets_cover_every_file() -> None:
    files = sorted(p for p in GAME.rglob("*") if p.is_file())
    assert [p.relative_to(ROOT).as_posix() for p in files] == sorted({p for p, _ in SNIPPETS})
    for file in files:
        shown = "\n".join(s for p, s in SNIPPETS if ROOT / p == file).splitlines()
        missing = [
            line
            for line in file.read_text(encoding="utf-8").splitlines()
            if line.strip() and line not in shown
        ]
        assert not missing, f"{file.name}: lines the tutorial never shows: {missing}"


@pytest.mark.parametrize(("command", "shown"), _examples(), ids=lambda x: str(x)[:60])
def test_command_prints_what_the_tutorial_shows(command: str, shown: list[str]) -> None:
    os.chdir(ROOT)
    words = shlex.split(command)
    assert words[0] == "rulekit"
    result = run_cli(*words[1:])
    # diff exits 3 when the rulebooks differ, as diff(1) does with 1
    assert result.exit_code == (3 if words[1] == "diff" else 0), result.output
    printed = [line.rstrip() for line in result.output.splitlines()]
    position = 0
    for line in shown:
        if line.strip() == "...":
            continue
        # in order: the tutorial shows the output as it comes
        assert line.rstrip() in printed[position:], (
            f"TUTORIAL shows {line!r}; `{command}` printed:\n" + "\n".join(printed)
        )
        position = printed.index(line.rstrip(), position) + 1


def test_the_tutorial_game_is_in_the_canonical_layout() -> None:
    result = run_cli("fmt", "--check", GAME)
    assert result.exit_code == 0, result.output
