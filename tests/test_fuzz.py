"""Mutated rulebooks and command lines (bench/fuzz.py's, a few dozen here): every one ends
with exit code 0-3, no uncaught exception, in bounded time. bench/fuzz.py runs 100,000."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_fuzz", ROOT / "bench" / "fuzz.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_fuzz"] = module
    spec.loader.exec_module(module)
    return module


FUZZ = _fuzz()


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_mutated_inputs_end_cleanly(tmp_path: Path, seed: int) -> None:
    folder = tmp_path / "book"
    (folder / "scenarios").mkdir(parents=True, exist_ok=True)
    (folder / "scenarios" / "s.toml").write_text(FUZZ.SCENARIO, encoding="utf-8")
    args, failure, took = FUZZ.one(folder, random.Random(seed))
    assert failure is None, f"{args}\n{failure}"
    assert took < 10.0, args


def test_the_seed_rulebooks_are_valid(tmp_path: Path) -> None:
    """Mutations start from working rulebooks, so they reach the checker and interpreter."""
    from conftest import run_cli

    for text in FUZZ.SEEDS:
        (tmp_path / "rulebook.rk").write_text(text, encoding="utf-8")
        result = run_cli("check", tmp_path)
        assert result.exit_code == 0, result.stderr
        assert run_cli("resolve", tmp_path, "p", "--seed", "1").exit_code == 0


def test_the_fuzz_script_counts_failures() -> None:
    count, failures, _ = FUZZ.run(20, 5)
    assert count == 20 and failures == []
