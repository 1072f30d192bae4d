"""Mutated rulebooks and command lines (bench/fuzz.py's, a few dozen here): every one ends
with exit code 0-3, no uncaught exception, in bounded time. bench/fuzz.py runs 100,000."""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
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


def test_mutated_saves_and_traces_end_cleanly(tmp_path: Path) -> None:
    """Saves resumed and traces replayed after mutations of their fields (CI's sample)."""
    game = FUZZ.game_files(tmp_path)
    rng = random.Random(37)
    kinds = set()
    for _ in range(30):
        args, failure, took = FUZZ.one_file(tmp_path, game, rng)
        assert failure is None, f"{args}\n{failure}"
        assert took < 10.0, args
        kinds.add(args[0])
    assert kinds == {"run", "replay"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # found by the file mutations: a dice state number out of range, a value dropped
        (lambda t: t.replace("\n    2,\n", "\n    -1,\n", 1), "dice_state is not a state"),
        (lambda t: t.replace("score = 0\n", "", 1), "it has no value for 'score'"),
    ],
)
def test_a_damaged_save_found_by_the_fuzzer_is_an_error(
    tmp_path: Path, change: Callable[[str], str], message: str
) -> None:
    from conftest import run_cli

    book, save, _ = FUZZ.game_files(tmp_path)
    damaged = change(save)
    assert damaged != save
    path = tmp_path / "damaged.toml"
    path.write_text(damaged, encoding="utf-8")
    result = run_cli("run", book, "--resume", path, "--turns", "1")
    assert result.exit_code == 1, result.output
    assert message in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        # found by the file mutations: header fields of the wrong kind or size
        ("options", 10**80, "its options are not a list of option names"),
        ("options", [[[]]], "its options are not a list of option names"),
        ("scenario", "a" * 5000, "damaged.jsonl: error: no scenario 'aaaa"),
        ("resumed_from", 10**400, "the trace continues the game saved in '1000"),
    ],
)
def test_a_damaged_trace_header_found_by_the_fuzzer_is_an_error(
    tmp_path: Path, field: str, value: object, message: str
) -> None:
    import json

    from conftest import run_cli

    book, _, trace = FUZZ.game_files(tmp_path)
    lines = trace.splitlines()
    lines[0] = json.dumps(json.loads(lines[0]) | {field: value})
    path = tmp_path / "damaged.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_cli("replay", path, "--rulebook", book)
    assert result.exit_code == 1, result.output
    assert message in result.stderr and "Traceback" not in result.output
