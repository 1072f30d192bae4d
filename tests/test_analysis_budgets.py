"""Issue 33 §1-2: exact analysis's budgets are one set of options, shared by ``prob`` and
``advise`` (rulekit.cli.budget_opts) and applied in one place (rulekit.analysis.budget,
situations.walk); ``advise`` takes ``--tolerance`` as ``prob`` does, for a push-your-luck
loop that may go on for ever (a turn of Pig)."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import run_cli

from rulekit.cli.advise_cmd import advise_cmd
from rulekit.cli.main import main

# A turn of Pig (Neller & Presser, "Optimal Play of Pig", 2004): roll a d6 until a 1 (the
# turn scores 0) or the player holds (the turn scores the total rolled). The total has no
# bound, so its situations never come back: solved to a tolerance.
PIG_TURN = """rulebook "Pig"
dice d6 = 1..6 [1.0]
procedure pig_turn -> int [1.0] "One turn of Pig"
    let total = 0
    while true:
        let r = roll d6
        if r = 1:
            return 0
        total += r
        choose go from [false, true] default true [1.1] "Roll again?"
        if not go:
            return total
"""

BUDGETS = ["--method", "--max-paths", "--max-situations", "--tolerance", "--max-seconds"]


def _pig_turn_by_recursion() -> Fraction:
    """The best expected score of a turn, by backward recursion over the total (an
    independent computation): V(t) = max(t, sum(V(t + r) for r in 2..6) / 6) for a total t
    after a roll; past 200 holding is certainly best (rolling gains (20 - t) / 6 < 0)."""
    top = 200
    worth = {t: Fraction(t) for t in range(top, top + 7)}
    for t in range(top - 1, 1, -1):
        roll = sum((worth[t + r] for r in range(2, 7)), Fraction(0)) / 6
        worth[t] = max(Fraction(t), roll)
    return sum((worth[r] for r in range(2, 7)), Fraction(0)) / 6


def test_prob_and_advise_share_one_set_of_budget_options() -> None:
    prob = main.commands["prob"]
    shared = {o.name: o for o in advise_cmd.params if "--" + str(o.name) in BUDGETS}
    for param in prob.params:
        if param.opts[0] in BUDGETS:
            twin = [o for o in advise_cmd.params if o.opts == param.opts]
            assert twin, param.opts
            assert (twin[0].type, twin[0].default, twin[0].help) == (
                param.type,
                param.default,
                param.help,
            )
    assert {f"--{n}".replace("_", "-") for n in shared} <= set(BUDGETS)
    assert len([p for p in prob.params if p.opts[0] in BUDGETS]) == len(BUDGETS)


@pytest.mark.parametrize("command", ["prob", "advise"])
def test_a_budget_below_its_least_is_a_usage_error_on_both(
    make_rulebook: Callable[..., Path], command: str
) -> None:
    book = make_rulebook(PIG_TURN)
    goal = ["--maximize", "result"] if command == "advise" else ["--decide", "go=false"]
    for option in ("--max-paths", "--max-situations"):
        result = run_cli(command, book, "pig_turn", *goal, option, "0")
        assert result.exit_code == 2, (option, result.stderr)
        assert "Traceback" not in result.stdout + result.stderr


def test_advise_solves_a_turn_of_pig_to_a_tolerance(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(PIG_TURN)
    args = ("advise", book, "pig_turn", "--maximize", "result", "--tolerance", "1e-9", "--json")
    result = run_cli(*args)
    assert result.exit_code == 0, result.stderr
    advice = json.loads(result.stdout)
    best = Fraction(advice["best"]["exact"])
    assert abs(best - _pig_turn_by_recursion()) < Fraction(1, 10**8)
    assert abs(float(best) - 8.14) < 0.005  # Neller & Presser: hold at 20, 8.14 a turn
    assert 0 < advice["unresolved"] < 1e-6  # what the tolerance left unexplored
    # hold at 20 (at 20 both are worth 20: the tie goes to the default, rolling); the
    # total is what holding ("no") is worth
    for decision in advice["decisions"]:
        hold, roll = (Fraction(o["value"]["exact"]) for o in decision["options"])
        assert decision["best"] == ("no" if hold > 20 else "yes"), decision
        assert (hold == roll) == (hold == 20)
    text = run_cli(*args[:-1])
    assert "left unexplored, worth 0 (reached 1.2e-08 at most)" in text.stdout


def test_advise_gives_up_after_max_seconds(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(PIG_TURN)
    result = run_cli("advise", book, "pig_turn", "--maximize", "result", "--max-seconds", "0.5")
    assert result.exit_code == 1
    assert "--max-seconds: error: procedure pig_turn [1.0]" in result.stderr
    assert "--tolerance 1e-9" in result.stderr and "Traceback" not in result.stderr
