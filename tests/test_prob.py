"""`rulekit prob`: exact distributions over every path of dice, checked against numbers
worked out by hand from the rules and against brute force over all faces."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from conftest import EXAMPLES, RULEBOOKS, cli_json, run_cli

from rulekit.analysis.outcomes import _multisets
from rulekit.analysis.prob import ask, exact, sampled
from rulekit.book.checker import Checked, load

SW = str(RULEBOOKS / "silent_war")
SUB = str(RULEBOOKS / "steel_wolves_like")
SPEARFISH = str(EXAMPLES / "silent_war" / "spearfish_14_15.toml")


def p_of(data: dict, value: object) -> Fraction:
    for o in data["outcomes"]:
        if o["value"] == value:
            assert math.isclose(o["float"], float(Fraction(o["p"])))
            return Fraction(o["p"])
    return Fraction(0)


# ---- numbers from the rules --------------------------------------------------------------


@pytest.mark.parametrize(
    ("crew", "lost"),
    [
        # [A5] "Roll 2d6 ... 2-5 Sub Lost to Mine": 2d6 <= 5 in 1 + 2 + 3 + 4 = 10 of 36 ways
        ("Trained", Fraction(10, 36)),
        # "Veteran Crew +1": 2d6 <= 4 in 1 + 2 + 3 = 6 ways
        ("Veteran", Fraction(6, 36)),
        # "Elite Crew +2": 2d6 <= 3 in 1 + 2 = 3 ways
        ("Elite", Fraction(3, 36)),
    ],
)
def test_minefield_a5(crew: str, lost: Fraction) -> None:
    data = cli_json("prob", SUB, "minefield", "--at", f"crew={crew}")
    assert p_of(data, "Sub Lost to Mine") == lost
    assert p_of(data, "Safe Passage") == 1 - lost
    assert data["exact"] and data["paths"] == 11  # the totals of two d6 (2-12)
    paths = cli_json("prob", SUB, "minefield", "--at", f"crew={crew}", "--method", "paths")
    assert paths["paths"] == 21 and paths["outcomes"] == data["outcomes"]  # the multisets
    assert data["mean"] is None  # text results have no mean


@pytest.mark.parametrize("target", [0, 1])
def test_spearfish_hits_each_target_two_times_in_ten(target: int) -> None:
    # [14.16] c) "The player must roll equal to or less than 1 (3 - 2 = 1) to hit this
    # target. (20% chance of hit)" - for Merchant Ships #1 and #3 alike.
    data = cli_json(
        "prob", SW, "attack_round", "--given", SPEARFISH, "--of", f"nth(result, {target}) != miss"
    )
    assert p_of(data, True) == Fraction(2, 10)
    assert p_of(data, False) == Fraction(8, 10)


def test_gato_spread_keeps_the_highest_of_three() -> None:
    # Three Mk 27s (no dud check) at range 0, skill 0: highest of 3 d10 (1-10)
    # + spread bonus (3 - 1) + Mk 27 (+2). A result of 11 or more needs the highest die
    # to be 7 or more: 1 - (6/10)^3 = 784/1000.
    args = ("--at", "fired=3", "--at", "year=1943", "--at", "skill=0", "--at", "target_range=0")
    data = cli_json(
        "prob", str(RULEBOOKS / "gato_leader"), "torpedo_spread", *args,
        "--at", "torpedo=mk27", "--of", "result >= 11",
    )  # fmt: skip
    assert p_of(data, True) == Fraction(784, 1000)
    whole = cli_json(
        "prob", str(RULEBOOKS / "gato_leader"), "torpedo_spread", *args, "--at", "torpedo=mk27"
    )
    # P(highest = k) = (k^3 - (k-1)^3) / 1000, shifted by +4
    for k in range(1, 11):
        assert p_of(whole, k + 4) == Fraction(k**3 - (k - 1) ** 3, 1000)
    mean_highest = Fraction(sum(k * (k**3 - (k - 1) ** 3) for k in range(1, 11)), 1000)
    assert Fraction(whole["mean"]["p"]) == mean_highest + 4


# ---- pure dice against brute force -------------------------------------------------------

DICE_BOOK = """rulebook "dice"
dice d6 = 1..6
dice d10 = 0..9
dice d66 = tens_units(d6, d6)
dice d100 = percentile(d10, d10)

procedure e -> int
    return {expr}
"""

D6, D10 = range(1, 7), range(0, 10)


def brute(dice: list[range], f: Callable[..., int]) -> Counter[int]:
    return Counter(f(*faces) for faces in product(*dice))


@pytest.mark.parametrize(
    ("expr", "dice", "f"),
    [
        ("roll 2d6", [D6, D6], lambda a, b: a + b),
        ("roll 3d6 - 2", [D6] * 3, lambda a, b, c: a + b + c - 2),
        ("roll highest of 3 d6", [D6] * 3, max),
        ("roll lowest of 2 d10", [D10] * 2, min),
        ("roll d66", [D6, D6], lambda t, u: 10 * t + u),
        ("roll d10 + (roll d10) * 2", [D10, D10], lambda a, b: a + 2 * b),
        ("roll highest of 4 d6 - (roll lowest of 2 d6)", [D6] * 6,
         lambda a, b, c, d, e, f: max(a, b, c, d) - min(e, f)),
    ],
)  # fmt: skip
def test_dice_expressions_agree_with_brute_force(
    make_rulebook: Callable[..., Path], expr: str, dice: list[range], f: Callable[..., int]
) -> None:
    book = load(str(make_rulebook(DICE_BOOK.format(expr=expr))))
    dist = exact(book, ask(book, "e"))
    counts = brute(dice, f)
    total = sum(counts.values())
    assert {o.value: o.p for o in dist.outcomes} == {
        v: Fraction(c, total) for v, c in counts.items()
    }
    assert dist.mean == Fraction(sum(v * c for v, c in counts.items()), total)


def test_percentile_die(make_rulebook: Callable[..., Path]) -> None:
    book = load(str(make_rulebook(DICE_BOOK.format(expr="roll d100"))))
    dist = exact(book, ask(book, "e"))
    assert [o.value for o in dist.outcomes] == list(range(1, 101))
    assert {o.p for o in dist.outcomes} == {Fraction(1, 100)}


def test_a_roll_only_when_an_earlier_roll_says_so(make_rulebook: Callable[..., Path]) -> None:
    # d6: on 5-6 roll 2d6 more, else 0. Only those branches are explored: 4 paths of no
    # further dice, 2 x 21 multisets.
    text = DICE_BOOK.format(expr="0").replace(
        "    return 0", "    let a = roll d6\n    return if a >= 5 then (roll 2d6) + a else 0"
    )
    book = load(str(make_rulebook(text)))
    dist = exact(book, ask(book, "e"), method="paths")
    assert dist.paths == 4 + 2 * 21
    # by situations: the let is worked out as six values, six situations; each return
    # once more: 4 without dice, 2 x the 11 totals of 2d6 (thrown as totals: only the
    # sum is read)
    merged = exact(book, ask(book, "e"))
    assert merged.outcomes == dist.outcomes
    assert (merged.situations, merged.paths) == (7, 6 + 4 + 2 * 11)
    out: dict[int, Fraction] = {}
    for a in D6:
        if a < 5:
            out[0] = out.get(0, Fraction(0)) + Fraction(1, 6)
            continue
        for b, c in product(D6, D6):
            out[a + b + c] = out.get(a + b + c, Fraction(0)) + Fraction(1, 6 * 36)
    assert {o.value: o.p for o in dist.outcomes} == out
    assert sum(o.p for o in dist.outcomes) == 1


def test_multisets_count_every_ordering() -> None:
    for count in (1, 2, 3, 5):
        outcomes = _multisets(tuple(range(1, 7)), count)
        assert sum(w for _, w in outcomes) == 6**count
        assert len(outcomes) == math.comb(6 + count - 1, count)


# ---- decisions, derived values, budget, errors -------------------------------------------

CHOICE_BOOK = """rulebook "choice"
dice d6 = 1..6
state hits: int = 0

procedure shoot -> int
    choose n from [1, 2, 3] default 1 "dice to roll"
    let r = roll n d6
    if r >= 6:
        hits += 1
    return r
"""


def test_decisions_come_from_the_policy(make_rulebook: Callable[..., Path]) -> None:
    root = str(make_rulebook(CHOICE_BOOK))
    by_default = cli_json("prob", root, "shoot")
    assert Fraction(by_default["mean"]["p"]) == Fraction(7, 2)
    two = cli_json("prob", root, "shoot", "--decide", "n=2")
    assert Fraction(two["mean"]["p"]) == 7
    # --of reads the state after the procedure: P(2d6 >= 6) = 26/36
    hits = cli_json("prob", root, "shoot", "--decide", "n=2", "--of", "hits")
    assert p_of(hits, 1) == Fraction(26, 36)


def test_too_many_paths_is_an_error_that_suggests_sampling(
    make_rulebook: Callable[..., Path],
) -> None:
    root = str(make_rulebook(CHOICE_BOOK))
    result = run_cli("prob", root, "shoot", "--decide", "n=3", "--max-paths", "10")
    assert result.exit_code == 1
    assert "has more than 10 paths of dice" in result.stderr
    assert "--samples" in result.stderr and "Traceback" not in result.stderr


def test_of_expression_errors_point_at_the_expression() -> None:
    result = run_cli("prob", SUB, "minefield", "--at", "crew=Green", "--of", "reslt = 2")
    assert result.exit_code == 1
    assert result.stderr.startswith("--of:1:1: error: unknown name 'reslt'")
    assert "    reslt = 2\n    ^~~~~" in result.stderr
    assert "did you mean 'result'?" in result.stderr
    result = run_cli("prob", SUB, "minefield", "--of", "result =")
    assert result.exit_code == 1 and "the expression ends too early" in result.stderr


def test_prob_text_output() -> None:
    result = run_cli("prob", SUB, "minefield", "--at", "crew=Veteran")
    assert result.exit_code == 0, result.stderr
    assert "table minefield [A5] (exact, 11 path(s) of dice)" in result.stdout
    assert "│ Sub Lost to Mine │ 1/6 │ 16.67 │" in result.stdout


# ---- Monte Carlo cross-check ---------------------------------------------------------------


def test_sampling_lands_within_four_standard_errors() -> None:
    book: Checked = load(SUB)
    question = ask(book, "aircraft_encounter", at=["crew=Green"])
    truth = exact(book, question)
    n = 20_000  # within 4 standard errors of this n (100,000 took 8 s of the suite)
    estimate = sampled(book, question, n, seed=2024)
    assert estimate.samples == n and not estimate.exact
    seen = {str(o.value): o.p for o in estimate.outcomes}
    for o in truth.outcomes:
        p = float(o.p)
        se = math.sqrt(p * (1 - p) / n)
        assert abs(float(seen.get(str(o.value), 0)) - p) <= 4 * se, o.value


def test_a_table_by_its_chart_code_gives_its_own_roll() -> None:
    # `rulekit prob rulebooks/steel_wolves_like A1`: [A1] "Roll 2d6", Green crew -1:
    # 2d6 - 1 <= 1 (a 2): 1/36; 2d6 - 1 in 2-4 (3, 4 or 5): 2 + 3 + 4 = 9/36.
    data = cli_json("prob", SUB, "A1", "--at", "crew=Green")
    assert data["what"] == "table aircraft_encounter [A1]"
    assert p_of(data, "2* Attacks on [E3] Escort/Air Attack Chart + 1 Crew Injury") == Fraction(
        1, 36
    )
    assert p_of(data, "1 Attack on [E3] Escort/Air Attack Chart + 1 Crew Injury") == Fraction(9, 36)
    assert p_of(data, "Successful Crash Dive (no air attack)") == Fraction(26, 36)
