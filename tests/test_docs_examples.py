"""The docs' commands work as printed: every ``$ rulekit ...`` example in README.md and
docs/ prints exactly what is shown under it (the whole output; only speeds and durations are
normalised, see tools/docs_examples.py), writes nothing into the tracked tree, and every
example in a command's ``--help`` runs. ``mkdocs build --strict`` builds the site when
mkdocs is installed (the ``docs`` extra)."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli

_spec = importlib.util.spec_from_file_location("docs_examples", ROOT / "tools" / "docs_examples.py")
assert _spec is not None and _spec.loader is not None
docs = importlib.util.module_from_spec(_spec)
sys.modules["docs_examples"] = docs
_spec.loader.exec_module(docs)

EXAMPLES = docs.all_examples()


def test_there_are_examples_in_the_readme_and_the_docs() -> None:
    files = {e.path.name for e in EXAMPLES}
    assert "README.md" in files and len(files) >= 4, files


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.where} {e.command[8:50]}")
def test_example_prints_exactly_what_is_shown(example: docs.Example) -> None:
    code, printed = docs.run(example)
    assert code in (0, 3), f"{example.where}: `{example.command}` exits {code}:\n" + "\n".join(
        printed
    )
    changes = docs.diff(example, printed)
    assert not changes, "\n".join(changes) + "\n(python tools/docs_examples.py --update)"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.where} {e.command[8:50]}")
def test_example_writes_nothing_into_the_tree(example: docs.Example) -> None:
    assert not docs.writes_into_tree(example.command), example.where


def test_the_normalised_parts_are_only_timings() -> None:
    assert docs.normalise(["200 played (38.23 games/s), 2357 s, 12 situation(s)"]) == [
        "200 played (N games/s), N s, 12 situation(s)"
    ]
    # simulate's progress lines (off a terminal, every few seconds) depend on the machine's
    # speed: left out, and nothing else is
    shown = ["simulate: 12/200 games, 3.10 games/s, about 1 min left", "200 games, seeds 1..200"]
    assert docs.normalise(shown) == ["200 games, seeds 1..200"]
    assert docs.normalise(["simulate: a study"]) == ["simulate: a study"]


def _help_examples() -> list[str]:
    """The ``rulekit ...`` lines under "Examples:" in every command's --help."""
    from rulekit.cli.main import main

    found = []
    for name in sorted(main.commands):
        text = run_cli(name, "--help").output.replace("\\\n", " ")
        for line in text.splitlines():
            line = " ".join(line.split())
            if line.startswith("rulekit ") and not re.search(r"\b[A-Z]{4,}\b", line):
                found.append(line)
    return found


def test_commands_with_examples_in_their_help() -> None:
    assert len(_help_examples()) >= 8


@pytest.mark.parametrize("command", _help_examples())
def test_help_example_runs(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    words = shlex.split(command)
    result = run_cli(*words[1:])
    assert result.exit_code in (0, 3), f"`{command}` exits {result.exit_code}:\n{result.output}"


@pytest.mark.skipif(
    shutil.which("mkdocs") is None and importlib.util.find_spec("mkdocs") is None,
    reason="mkdocs is not installed (pip install -e '.[docs]')",
)
def test_the_docs_site_builds_strict(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "index.html").is_file()


def _pictures() -> object:
    spec = importlib.util.spec_from_file_location(
        "docs_pictures", ROOT / "tools" / "docs_pictures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_prob_plot_and_its_alt_text_are_made_again_the_same(tmp_path: Path) -> None:
    # the PNGs (a 200-game simulation, a Chromium screenshot) are compared by
    # `python tools/docs_pictures.py --check`; the SVG and its words here
    pictures: Any = _pictures()
    analysis = (ROOT / "docs" / "analysis.md").read_text(encoding="utf-8")
    assert pictures.prob_alt_text() in analysis
    drawn = tmp_path / "prob-counterattack.svg"
    pytest.importorskip("matplotlib", reason="--plot needs matplotlib: pip install -e '.[plot]'")
    result = run_cli(*pictures.PROB, "--plot", str(drawn))
    assert result.exit_code == 0, result.output
    assert drawn.read_bytes() == (ROOT / "docs" / "prob-counterattack.svg").read_bytes()
