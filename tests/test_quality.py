"""The project's own gates: the README's commands, CI, ruff and mypy."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.*?)\n```", text, flags=re.S)[:2]


def test_readme_starts_with_the_two_commands() -> None:
    run, tests = readme_commands()
    assert "pip install -e ." in run and "rulekit" in run and "rulebooks/silent_war" in run
    assert "pip install -e '.[test]'" in tests and "pytest" in tests


def test_ci_runs_exactly_the_readme_test_command() -> None:
    _, tests = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert tests in ci.splitlines()


def _tool(name: str) -> list[str]:
    if shutil.which(name) is None and not (ROOT / ".venv" / "bin" / name).exists():
        pytest.skip(f"{name} is not installed")
    return [sys.executable, "-m", name]


def test_ruff_is_clean() -> None:
    for args in (["check", "rulekit", "tests"], ["format", "--check", "rulekit", "tests"]):
        result = subprocess.run(_tool("ruff") + args, cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    result = subprocess.run(_tool("mypy"), cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("book", sorted(p.name for p in (ROOT / "rulebooks").iterdir()))
def test_bundled_rulebooks_are_formatted(book: str) -> None:
    from rulekit.fmt import format_rulebook

    assert format_rulebook(ROOT / "rulebooks" / book, write=False) == []
