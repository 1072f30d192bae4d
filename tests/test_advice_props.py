"""``rulekit advise`` by situations against advice path by path, on procedures generated at
random (the generator of tests/test_situations_props.py: rolls, a table, a modifier list,
decisions, state, branches and bounded loops). The path-by-path expectimax enumerates every
path of dice and decisions from the start and merges nothing: the best and the defaults'
worths must be equal wherever it finishes, and equal to an expectimax in plain Python over the
procedure's twin (no part of the engine). And loops whose situations come back (a Markov
decision process) against value iteration written here."""

from __future__ import annotations

import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st
from test_situations_props import SETTINGS, procedures_and_twins, worth

from rulekit.analysis.advice import advise
from rulekit.analysis.advice_situations import advise_by_situations
from rulekit.analysis.outcomes import TooManyPaths
from rulekit.analysis.prob import ask
from rulekit.book.checker import Checked, check
from rulekit.book.loader import load_rulebook


def _load(text: str) -> Checked:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "rulebook.rk").write_text(text, encoding="utf-8")
        return check(load_rulebook(tmp))


@SETTINGS
@given(procedures_and_twins(), st.booleans())
def test_advice_by_situations_matches_every_path(pair: tuple[str, str], minimize: bool) -> None:
    text, twin = pair
    checked = _load(text)
    question = ask(checked, "p", of="result")
    goal = f"{'minimize' if minimize else 'maximize'} result"
    try:
        paths = advise(checked, question, goal, minimize, max_paths=5_000)
    except TooManyPaths:
        assume(False)
        return
    merged = advise_by_situations(checked, ask(checked, "p", of="result"), goal, minimize)
    assert (merged.best, merged.by_default) == (paths.best, paths.by_default), text
    # and against plain Python over the same dice and options, which uses no part of the
    # engine: expectimax over the twin's tree of events, and the defaults' worth
    best = min if minimize else max
    assert merged.best == worth(twin, [], lambda ws, _: best(ws)), (text, twin)
    assert merged.by_default == worth(twin, [], lambda ws, default: ws[default]), (text, twin)


@st.composite
def gambles(draw: Any) -> tuple[int, int, int, int]:
    """A push-your-luck loop: a d6 of ``bust`` or less loses all, ``stay`` or less gains
    nothing (the same situation again), else it gains ``step``, up to ``goal``."""
    bust = draw(st.integers(1, 2))
    stay = draw(st.integers(bust, 4))
    step = draw(st.integers(1, 3))
    goal = draw(st.integers(step, 8))
    return bust, stay, step, goal


def _value_iteration(bust: int, stay: int, step: int, goal: int) -> Fraction:
    """The best worth from 0 by backward induction over the gain (each gain's loop on
    itself solved in closed form: pushing from g is worth p_gain x w(g + step) / (1 -
    p_stay), stopping g)."""
    worth: dict[int, Fraction] = {}
    for g in sorted(range(0, goal + step), reverse=True):
        if g >= goal:
            worth[g] = Fraction(g)
            continue
        p_stay = Fraction(stay - bust, 6)
        p_gain = Fraction(6 - stay, 6)
        push = p_gain * worth[g + step] / (1 - p_stay)
        worth[g] = max(Fraction(g), push)
    return worth[0]


@SETTINGS
@given(gambles())
def test_a_loop_with_a_decision_is_worth_what_value_iteration_finds(
    game: tuple[int, int, int, int],
) -> None:
    bust, stay, step, goal = game
    checked = _load(
        f"""rulebook "Gamble"
dice d6 = 1..6
procedure p -> int [1.0]
    let gain = 0
    while gain < {goal}:
        choose go from [false, true] default true [1.1] "push?"
        if not go:
            return gain
        let r = roll d6
        if r <= {bust}:
            return 0
        if r > {stay}:
            gain += {step}
    return gain
"""
    )
    advice = advise_by_situations(checked, ask(checked, "p", of="result"), "maximize result")
    assert advice.best == _value_iteration(bust, stay, step, goal)
