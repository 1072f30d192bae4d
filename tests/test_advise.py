"""`rulekit advise` (issue 14 §2): expectimax over a procedure's dice and decisions.

Each expected value asserted is worked out by hand in the comment beside it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import EXAMPLES, RULEBOOKS, run_cli

BOOK = """rulebook "Advice"
dice d6 = 1..6
procedure shot -> int [1.0] "Aim, then roll over it"
    choose aim from [1, 2, 3] default 1 [1.1] "Aim"
    let r = roll d6
    return if r.natural > aim then aim else 0
procedure gamble -> int [2.0] "Keep or roll again"
    let r = roll d6
    choose again from [false, true] default false [2.1] "Roll again?"
    if again:
        return roll d6
    return r.natural
procedure named -> text [3.0]
    return "a text"
"""


@pytest.fixture
def book(make_rulebook: Callable[..., Path]) -> Path:
    return make_rulebook(BOOK)


def _advise(*args: str) -> dict[str, object]:
    shown = run_cli("advise", *args, "--json")
    assert shown.exit_code == 0, shown.output
    data: dict[str, object] = json.loads(shown.stdout)
    return data


def _exact(value: object) -> Fraction:
    assert isinstance(value, dict)
    return Fraction(value["exact"])


def test_a_decision_before_the_dice(book: Path) -> None:
    data = _advise(str(book), "shot", "--maximize", "result")
    # aim a scores a when the d6 beats it: a * (6 - a) / 6 -> 5/6, 8/6, 9/6
    (aim,) = data["decisions"]  # type: ignore[misc]
    values = {o["option"]: _exact(o["value"]) for o in aim["options"]}
    assert values == {"1": Fraction(5, 6), "2": Fraction(4, 3), "3": Fraction(3, 2)}
    assert aim["best"] == "3" and aim["default"] == "1"
    assert _exact(aim["gain"]) == Fraction(2, 3)
    assert _exact(data["best"]) == Fraction(3, 2)
    assert _exact(data["by_default"]) == Fraction(5, 6)


def test_a_decision_after_the_dice(book: Path) -> None:
    data = _advise(str(book), "gamble", "--maximize", "result")
    # roll again (worth 3.5) on 1-3, keep 4-6: (3 * 3.5 + 4 + 5 + 6) / 6 = 17/4
    assert _exact(data["best"]) == Fraction(17, 4)
    assert _exact(data["by_default"]) == Fraction(7, 2)  # never again: a plain d6
    best = {d["after"][0]: d["best"] for d in data["decisions"]}  # type: ignore[union-attr]
    assert best == {"1": "yes", "2": "yes", "3": "yes", "4": "no", "5": "no", "6": "no"}
    # minimizing: keep 1-3, roll again on 4-6: (1 + 2 + 3 + 3 * 3.5) / 6 = 11/4
    low = _advise(str(book), "gamble", "--minimize", "result")
    assert _exact(low["best"]) == Fraction(11, 4)


def test_a_decision_answered_is_not_advised(book: Path) -> None:
    data = _advise(str(book), "gamble", "--maximize", "result", "--decide", "again=true")
    assert data["decisions"] == [] and _exact(data["best"]) == Fraction(7, 2)


def test_the_tutorial_range(book: Path) -> None:
    # [T2] sunk on 10+; in haze: range 1 +1 -1 = 0 (6/36), range 2 -1 -1 (1/36), range 3 -3
    data = _advise(
        str(EXAMPLES / "tutorial"),
        "fire_phase",
        "--at",
        "weather=Haze",
        "--maximize",
        "if result = sunk then 1 else 0",
    )
    (rng,) = data["decisions"]  # type: ignore[misc]
    values = [_exact(o["value"]) for o in rng["options"]]
    assert values == [Fraction(1, 6), Fraction(1, 36), Fraction(0)]
    text = run_cli(
        "advise",
        EXAMPLES / "tutorial",
        "fire_phase",
        "--at",
        "weather=Haze",
        "--maximize",
        "if result = sunk then 1 else 0",
    ).stdout
    assert "    1                    0.1667 (1/6)  <- best, default" in text


def test_bad_requests(book: Path) -> None:
    assert run_cli("advise", book, "gamble").exit_code == 2  # no goal
    both = run_cli("advise", book, "gamble", "--maximize", "result", "--minimize", "result")
    assert both.exit_code == 2
    words = run_cli("advise", book, "named", "--maximize", "result")
    assert words.exit_code == 1 and "not a number" in words.stderr
    many = run_cli("advise", book, "gamble", "--maximize", "result", "--max-paths", "5")
    assert many.exit_code == 1
    assert "more than 5 paths of dice and decisions" in many.stderr
    assert "--decide" in many.stderr
    typo = run_cli("advise", book, "gamble", "--maximize", "reslt")
    assert typo.exit_code == 1 and "unknown name 'reslt'" in typo.stderr


def test_a_sub_commander_attack_the_range_of_the_last_torpedo() -> None:
    """README example: one torpedo at a 5,000-ton freighter that 2 damage points sink.
    By the printed charts: [S1] a hit on 2d6 <= 8 at Close (26/36), <= 7 at Medium (21/36),
    <= 6 at Long (15/36), no modifier (Trained crew, Captain, submerged); [S2] 12/41-7/42,
    Mk 14: a dud on 1-4 (2/6 run true); [S3] Torpedo column: d6 1 -> 4, 2 -> 3, 3 -> 2
    points (1/2 sinks). Worth = 5,000 x P(hit) x 1/3 x 1/2."""
    result = run_cli(
        "advise",
        str(RULEBOOKS / "steel_wolves_like"),
        "attack_round",
        "--given",
        str(EXAMPLES / "steel_wolves_like" / "freighter_attack.toml"),
        "--maximize",
        "tonnage_sunk",
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    ranges = data["decisions"][0]
    assert ranges["name"] == "fire_range"
    worth = {o["option"]: Fraction(o["value"]["exact"]) for o in ranges["options"]}
    tons, run_true, sinks = 5000, Fraction(2, 6), Fraction(1, 2)
    assert worth == {
        "Close": tons * Fraction(26, 36) * run_true * sinks,  # 16,250/27
        "Medium": tons * Fraction(21, 36) * run_true * sinks,  # 4,375/9
        "Long": tons * Fraction(15, 36) * run_true * sinks,  # 3,125/9
    }
    assert (ranges["best"], ranges["default"]) == ("Close", "Medium")


def test_a_keep_highest_roll_is_one_outcome_per_value_kept(tmp_path: Path) -> None:
    """Six d10 keep-highest: 10 outcomes, not 5,005 multisets; the best of 6 dice >= 8 is
    1 - (7/10)^6 (the chance that not all six are 7 or less)."""
    book = tmp_path / "keep.rk"
    book.write_text(
        'rulebook "Keep" edition "1"\ndice d10 = 1..10\n'
        "procedure spread -> int [1.0]\n"
        '    choose n from [1, 6] default 1 [1.1] "dice"\n'
        "    return roll highest of n d10\n",
        encoding="utf-8",
    )
    goal = ["--maximize", "if result >= 8 then 1 else 0", "--json"]
    for method in ("paths", "situations"):
        result = run_cli("advise", str(book), "spread", *goal, "--method", method)
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        if method == "paths":
            assert data["paths"] == 10 + 10  # n = 1: ten faces; n = 6: ten values kept
        worth = [Fraction(o["value"]["exact"]) for o in data["decisions"][0]["options"]]
        assert worth == [Fraction(3, 10), 1 - Fraction(7, 10) ** 6]
