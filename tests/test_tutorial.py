"""docs/TUTORIAL.md runs: its snippets are the files of examples/tutorial/ (together, all of
them). Each ``$ rulekit ...`` command and its whole output are checked with every other
example of the docs (tests/test_docs_examples.py)."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, run_cli

TUTORIAL = (ROOT / "docs" / "TUTORIAL.md").read_text(encoding="utf-8")
GAME = ROOT / "examples" / "tutorial"
SNIPPETS = re.findall(r"```(?:rk|toml)\n# in (\S+)\n(.*?)\n```", TUTORIAL, flags=re.S)


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


def test_the_tutorial_game_is_in_the_canonical_layout() -> None:
    result = run_cli("fmt", "--check", GAME)
    assert result.exit_code == 0, result.output
