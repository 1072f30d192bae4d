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
    from rulekit.language.fmt import format_rulebook

    assert format_rulebook(ROOT / "rulebooks" / book, write=False) == []


def _runtime_imports() -> dict[str, set[str]]:
    """Each module of the package -> the package modules it imports when it is run.

    Imports under ``if TYPE_CHECKING:`` are annotations only and are left out: they never
    execute, so they cannot make an import circle.
    """
    import ast

    package = ROOT / "rulekit"
    modules = {
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
        for p in package.rglob("*.py")
    }
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for stmt in node.body
            for inner in ast.walk(stmt)
        }
        here = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        deps: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in typing_only or not isinstance(node, ast.ImportFrom):
                continue
            base = here.split(".")[: len(here.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base)
            for alias in node.names:
                full = f"{target}.{alias.name}"
                deps.add(full if full in modules else target)
        graph[name] = {d for d in deps if d in modules and d != name}
    return graph


def test_the_package_has_no_import_circles() -> None:
    graph = _runtime_imports()
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            pytest.fail("import circle: " + " -> ".join([*path[path.index(name) :], name]))
        if name in done:
            return
        for dep in sorted(graph[name]):
            visit(dep, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_modules_are_short_and_stages_say_what_they_are() -> None:
    package = ROOT / "rulekit"
    for path in package.rglob("*.py"):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= 800, f"{path.relative_to(ROOT)} has {lines} lines"
    for stage in ("language", "book", "engine", "play", "analysis", "cli"):
        init = (package / stage / "__init__.py").read_text(encoding="utf-8")
        assert init.startswith('"""') and len(init) > 150, f"{stage}/ has no docstring"
