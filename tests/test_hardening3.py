"""Hardening, round 3 (issue 37): the fuzzer's uncaught exceptions, each a clear error at its
place; every method of ``prob`` within --max-seconds; sampling bounded."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from conftest import ROOT, run_cli

from rulekit.errors import MAX_EXPRESSION_DEPTH, suggest

Make = Callable[..., Path]
HEADER = 'rulebook "Test"\ndice d6 = 1..6\n'
BATTLE = ROOT / "examples" / "battle" / "rulebook.rk"


def fails(result: Result, code: int = 1) -> str:
    text = result.stdout + result.stderr
    assert result.exit_code == code, text
    assert "Traceback" not in text
    return result.stderr


# ---- scenarios: [[start]] entries of the wrong kind -------------------------------------------

BOOK = HEADER + "state x: int = 0\nprocedure setup(a: int = 1) [1.0]\n    x = a\n"


@pytest.mark.parametrize(
    ("entry", "where", "message"),
    [
        ('procedure = ["setup"]', ":5:1:", "procedure: give the procedure's name, as text"),
        ("procedure = { a = 1 }", ":5:1:", "procedure: give the procedure's name, as text"),
        ("procedure = 3", ":5:1:", "procedure: give the procedure's name, as text"),
        ("procedure = true", ":5:1:", "procedure: give the procedure's name, as text"),
        ('procedure = "setup"\nargs = 3', ":6:1:", "args: give the arguments as a table"),
        ('procedure = "setup"\nargs = [1, 2]', ":6:1:", "args: give the arguments as a table"),
    ],
)
def test_a_start_entry_of_the_wrong_kind_is_an_error(
    make_rulebook: Make, entry: str, where: str, message: str
) -> None:
    scenario = f'[scenario]\ntitle = "s"\nturns = 1\n[[start]]\n{entry}\n'
    book = make_rulebook(BOOK, scenarios__s=scenario)
    (book / "scenarios" / "s").rename(book / "scenarios" / "s.toml")
    err = fails(run_cli("check", book))
    assert f"s.toml{where} error: {message}" in err


def test_suggest_gives_no_hint_for_a_number_or_a_boolean() -> None:
    assert suggest(3, ["a", "b"]) is None  # type: ignore[arg-type]
    assert suggest(True, ["True", "true"]) is None  # type: ignore[arg-type]
    assert suggest("Setup", ["setup"]) == "setup"


# ---- includes, tables ------------------------------------------------------------------------


def test_an_include_whose_name_is_too_long_is_an_error(make_rulebook: Make) -> None:
    book = make_rulebook(HEADER + 'include "' + "a" * 300 + '.rk"\n')
    err = fails(run_cli("check", book))
    assert "rulebook.rk:3:1: error: cannot read included file: File name too long" in err


RECORD = HEADER + "record pair = a: int, b: int\ntable t [1.0]: roll d6 -> pair\n    1-3 | 5 | 6\n"


def test_an_empty_column_of_a_record_row_is_an_error(make_rulebook: Make) -> None:
    err = fails(run_cli("check", make_rulebook(RECORD + "    4-6 |  | 7\n")))
    assert "rulebook.rk:6:14: error: a column of this row is empty" in err
    assert "hint: write — for none" in err


def test_a_record_row_with_too_many_columns_is_an_error(make_rulebook: Make) -> None:
    err = fails(run_cli("check", make_rulebook(RECORD + "    4-6 | 7 | 8 | 9\n")))
    assert "rulebook.rk:6:11: error: a pair has 2 fields (a, b) but 3 values are given" in err


# ---- deep nesting: bounded before any Python is generated ------------------------------------


@pytest.mark.parametrize(
    ("left", "right", "levels"),
    [
        ("(x + ", ")", 1),  # 70 of these made generated code Python refuses to compile
        ("(x * ", ")", 1),
        ("-(x + ", ")", 2),
        ("max(x, x + ", ")", 2),
        ("(if x > 1 then x else x + ", ")", 2),
        ("count([x, ", "]) + 0", 3),
    ],
)
def test_deeply_nested_expressions_are_an_error_not_a_crash(
    make_rulebook: Make, left: str, right: str, levels: int
) -> None:
    def book(k: int) -> Path:
        body = "    let x = 2\n    return " + left * k + "x" + right * k + "\n"
        return make_rulebook(HEADER + "procedure p [1.0]\n" + body)

    deepest = (MAX_EXPRESSION_DEPTH - 1) // levels  # k of these, and the innermost x
    assert run_cli("resolve", book(deepest), "p", "--seed", "1").exit_code == 0
    err = fails(run_cli("resolve", book(deepest + 1), "p", "--seed", "1"))
    assert f"error: expressions nest deeper than {MAX_EXPRESSION_DEPTH}" in err
    assert "rulebook.rk:5:" in err


def test_a_deep_of_expression_is_an_error(make_rulebook: Make) -> None:
    book = make_rulebook(HEADER + "procedure p -> int [1.0]\n    return roll d6\n")
    of = "(result + " * 70 + "1" + ")" * 70
    err = fails(run_cli("prob", book, "p", "--of", of))
    assert "--of:1:" in err and f"expressions nest deeper than {MAX_EXPRESSION_DEPTH}" in err


# ---- prob: every method within --max-seconds; sampling bounded -------------------------------


def test_max_seconds_holds_path_by_path() -> None:
    # issue 37: still running after 40 s
    start = time.monotonic()
    args = ("prob", BATTLE, "press_on", "--method", "paths", "--max-seconds", "1")
    err = fails(run_cli(*args))
    assert time.monotonic() - start < 10
    assert "--max-seconds: error: procedure press_on [4.0] took more than 1 s (" in err
    assert "paths)" in err and "--samples" in err


def test_max_seconds_holds_for_samples() -> None:
    start = time.monotonic()
    args = ("prob", BATTLE, "press_on", "--samples", "50000000", "--max-seconds", "1")
    err = fails(run_cli(*args))
    assert time.monotonic() - start < 10
    assert "took more than 1 s (" in err and "samples)" in err
    assert "take fewer --samples" in err


def test_samples_have_an_upper_bound() -> None:
    start = time.monotonic()
    err = fails(run_cli("prob", BATTLE, "press_on", "--samples", str(10**20)))
    assert time.monotonic() - start < 5
    assert "--samples: error: --samples must be between 1 and 100,000,000" in err


def test_sampling_reports_its_progress() -> None:
    from rulekit.api import load

    seen: list[int] = []
    dist = load(str(BATTLE)).prob("press_on", samples=2500, progress=seen.append)
    assert seen == [0, 1000, 2000] and dist.samples == 2500
