"""Issue 33 §2: two players. A decision belongs to a side (``choose ... by SIDE``);
``advise`` maximises the goal for the side of the first decision and, zero-sum, lets every
other side make it as small as it can (minimax; by situations, a loop of two sides is
solved by Hoffman and Karp's policy iteration)."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import run_cli

# [1.0] Pig (Neller & Presser, "Optimal Play of Pig", 2004) for two, to a goal of 10: a 1
# ends the turn with nothing; else the player may roll again or hold, adding the turn's
# total to their score. The result is 1 when the first player wins.
PIG = """rulebook "Pig for two"
dice d6 = 1..6 [1.0]
procedure pig(goal: int = 10) -> int [1.0] "Pig for two players"
    let first = 0
    let second = 0
    let player = 1
    while true:
        let total = 0
        let rolling = true
        while rolling:
            let r = roll d6
            if r = 1:
                total = 0
                rolling = false
            else:
                total += r
                if (if player = 1 then first else second) + total >= goal:
                    return if player = 1 then 1 else 0
                choose go from [false, true] default DEFAULT by player [1.1] "Roll again?"
                rolling = go
        if player = 1:
            first += total
            player = 2
        else:
            second += total
            player = 1

procedure pick -> int [2.0] "Each side picks a bonus; the higher total wins"
    choose a from [1, 2, 3] default 1 by "first" [2.1] "First: your bonus"
    choose b from [1, 2, 3] default 1 by "second" [2.2] "Second: your bonus"
    return if roll d6 + a > roll d6 + b then 1 else 0
"""


def _pig_by_value_iteration(goal: int) -> float:
    """The first player's chance with both playing to win, by value iteration over
    (own score, other's score, turn total) of the player to move (an independent
    computation: Neller & Presser's equations; holding at a total of 0 is never better)."""
    chance = {(i, j, k): 0.5 for i in range(goal) for j in range(goal) for k in range(goal - i)}

    def p(i: int, j: int, k: int) -> float:
        return 1.0 if i + k >= goal else chance[i, j, k]

    for _ in range(10_000):
        delta = 0.0
        for (i, j, k), old in chance.items():
            roll = (1 - p(j, i, 0)) / 6 + sum(p(i, j, k + r) for r in range(2, 7)) / 6
            new = max(roll, 1 - p(j, i + k, 0)) if k > 0 else roll
            delta = max(delta, abs(new - old))
            chance[i, j, k] = new
        if delta < 1e-15:
            break
    return chance[0, 0, 0]


@pytest.mark.parametrize("default", ["true", "false"])
def test_two_player_pig_to_10_is_won_by_the_first_player_709_times_in_1000(
    make_rulebook: Callable[..., Path], default: str
) -> None:
    """Whatever the rulebook's defaults (always roll, or always hold), the best play of
    both sides gives the first player 0.709 (before sides: 1, the second player's
    decisions taken to help the first)."""
    book = make_rulebook(PIG.replace("DEFAULT", default))
    result = run_cli("advise", book, "pig", "--maximize", "result", "--json")
    assert result.exit_code == 0, result.stderr
    advice = json.loads(result.stdout)
    best = Fraction(advice["best"]["exact"])
    assert abs(float(best) - _pig_by_value_iteration(10)) < 1e-12
    assert round(float(best), 3) == 0.709  # published
    # the second player's decisions are listed as theirs: each takes the least
    assert any(d["gain"] is not None for d in advice["decisions"])


@pytest.mark.parametrize("method", ["situations", "paths"])
def test_each_side_takes_its_own_best(make_rulebook: Callable[..., Path], method: str) -> None:
    book = make_rulebook(PIG.replace("DEFAULT", "true"))
    args = ("advise", book, "pick", "--maximize", "result", "--method", method, "--json")
    result = run_cli(*args)
    assert result.exit_code == 0, result.stderr
    advice = json.loads(result.stdout)
    # the first takes 3; the second answers with 3 too: d6 + 3 > d6 + 3 in 15 of 36
    assert Fraction(advice["best"]["exact"]) == Fraction(15, 36)
    first, *seconds = advice["decisions"]
    assert (first["name"], first["best"]) == ("a", "3")
    assert seconds and all((d["name"], d["best"]) == ("b", "3") for d in seconds)
    # what each of the second's options leaves the first (with a = 3): 26, 21, 15 in 36
    values = [Fraction(o["value"]["exact"]) for o in seconds[0]["options"]]
    assert values == [Fraction(26, 36), Fraction(21, 36), Fraction(15, 36)]


def test_the_side_reaches_the_policy(make_rulebook: Callable[..., Path]) -> None:
    from rulekit.book.checker import load
    from rulekit.engine.dice import SeededDice
    from rulekit.engine.interpreter import Interpreter
    from rulekit.engine.policy import DecisionRequest, DefaultPolicy

    checked = load(str(make_rulebook(PIG.replace("DEFAULT", "true"))))
    seen: list[object] = []

    class Watching(DefaultPolicy):
        def decide(self, request: DecisionRequest) -> tuple[object, str]:
            seen.append(request.side)
            return super().decide(request)

    Interpreter(checked, SeededDice(1), Watching()).call("pick", {})
    assert seen == ["first", "second"]


def test_the_advised_policy_lets_each_side_play_for_itself(
    make_rulebook: Callable[..., Path],
) -> None:
    """``--policy advised:result`` (play, simulate): the goal is the first deciding side's;
    the other side's decisions make it small, in the look-ahead and when it decides."""
    from rulekit.analysis.advised import AdvisedPolicy
    from rulekit.book.checker import load
    from rulekit.engine.dice import SeededDice
    from rulekit.engine.interpreter import Interpreter

    checked = load(str(make_rulebook(PIG.replace("DEFAULT", "true"))))
    policy = AdvisedPolicy(checked, "result")
    interp = Interpreter(checked, SeededDice(1), policy)
    policy.attach(interp)
    interp.call("pick", {})
    events = {e.name: e for e in interp.trace.events if getattr(e, "name", "") in ("a", "b")}
    # the first: 3 is worth 15/36 with the second answering 3 (not 26/36, answering 1);
    # its default, 1, 6/36
    assert (events["a"].choice, events["a"].by) == (3, "advised: worth 0.4167, the default 0.1667")
    # the second takes what leaves the first the least: 3 (15/36; its default 1: 26/36)
    assert (events["b"].choice, events["b"].by) == (
        3,
        "advised: worth 0.4167, the default 0.7222",
    )
