"""Shared fixtures: checked rulebooks, a CLI runner, and a small-rulebook factory."""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner, Result

from rulekit.book.checker import Checked, load
from rulekit.cli.main import main

# Parsed files are cached on disk (language.cache); the tests keep theirs apart from the user's.
if "RULEKIT_CACHE" not in os.environ:
    os.environ["RULEKIT_CACHE"] = tempfile.mkdtemp(prefix="rulekit-test-cache-")
    atexit.register(shutil.rmtree, os.environ["RULEKIT_CACHE"], ignore_errors=True)
    # and the key its entries are signed with, kept beside it (language.cache.key_path)
    atexit.register(Path(os.environ["RULEKIT_CACHE"] + ".key").unlink, missing_ok=True)

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = ROOT / "rulebooks"
EXAMPLES = ROOT / "examples"


@cache
def _checked(name: str) -> Checked:
    return load(str(RULEBOOKS / name))


@pytest.fixture
def silent_war() -> Checked:
    return _checked("silent_war")


@pytest.fixture
def steel_wolves() -> Checked:
    return _checked("steel_wolves_like")


@pytest.fixture
def gato() -> Checked:
    return _checked("gato_leader")


@pytest.fixture
def sub() -> Checked:
    return _checked("attack_sub")


@pytest.fixture
def eots() -> Checked:
    return _checked("eots_submarine_warfare")


def run_cli(*args: str) -> Result:
    """Run the command line in-process; stdout and stderr are kept apart."""
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def cli_json(*args: str) -> Any:
    result = run_cli(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def make_rulebook(tmp_path: Path) -> Callable[..., Path]:
    """Write a throwaway rulebook: make_rulebook(main_text, other_file=text, ...)."""

    def make(text: str, **files: str) -> Path:
        root = tmp_path / "book"
        root.mkdir(exist_ok=True)
        (root / "rulebook.rk").write_text(text, encoding="utf-8")
        for name, body in files.items():
            path = root / name.replace("__", "/")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
        return root

    return make


def bench_module(name: str, file: str | None = None) -> ModuleType:
    """A script of bench/ imported as a module (once): its references and measurements."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / (file or f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
