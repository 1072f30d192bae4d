"""The sub-commander patrol's [A2] AA Attack vs. Aircraft, written by hand for the benchmark.

The table and its modifiers as rulebooks/steel_wolves_like/encounters.rk gives them (which
tests check against the printed chart): 2d6 plus the modifiers, 3 or less Shot Down, 4-5
Damaged, 6 or more Miss. tests/test_bench.py checks that it gives the rulebook's result in
every situation and for every roll.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from rulekit.book.checker import Checked
from rulekit.engine.dice import SeededDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import DefaultPolicy

BOATS = ("Gato", "Balao", "Tench", "Gar", "Porpoise", "Tambor", "Salmon", "Narwhal", "Argonaut")
CREWS = ("Green", "Trained", "Veteran", "Elite")


def reference_aa(state: dict[str, Any], roll_2d6: Callable[[], int]) -> str:
    """[A2]: the modifiers, then the table."""
    boat, crew = state["boat"], state["crew"]
    drm = 0
    if boat == "Gato" and state["only_one_50_cal"]:
        drm += 1
    if boat in ("Porpoise", "Tambor", "Salmon"):
        drm += 1
    if crew in ("Veteran", "Elite"):
        drm -= 1
    if boat in ("Gato", "Balao", "Tench", "Gar") and state["both_aa_guns_ok"]:
        drm -= 1
    if state["crew_illness"]:
        drm += 1
    total = roll_2d6() + drm
    if total <= 3:
        return "Shot Down"
    if total <= 5:
        return "Damaged"
    return "Miss"


def aa_situations(n: int) -> list[dict[str, Any]]:
    rng = random.Random(2)
    return [
        {
            "boat": rng.choice(BOATS),
            "crew": rng.choice(CREWS),
            "only_one_50_cal": rng.random() < 0.3,
            "both_aa_guns_ok": rng.random() < 0.7,
            "crew_illness": rng.random() < 0.2,
        }
        for _ in range(n)
    ]


def set_state(interp: Interpreter, state: dict[str, Any]) -> None:
    vocab = interp.c.vocab
    values = interp.state.values
    values["boat"] = vocab.enum_value("boat_class", state["boat"])
    values["crew"] = vocab.enum_value("crew_level", state["crew"])
    for flag in ("only_one_50_cal", "both_aa_guns_ok", "crew_illness"):
        values[flag] = state[flag]


def bench_aa(book: Checked, n: int, traced: bool = True) -> tuple[float, float]:
    """Seconds per [A2] look-up (its roll, modifiers and row) and per hand-written call."""
    cases = aa_situations(n)
    interp = Interpreter(book, SeededDice(5), DefaultPolicy())
    interp.mute(not traced)
    start = time.perf_counter()
    for state in cases:
        set_state(interp, state)
        interp.lookup("aa_attack", {})
        interp.trace.events.clear()
    rulekit = (time.perf_counter() - start) / n
    rng = random.Random(5)

    def roll() -> int:
        return rng.randrange(1, 7) + rng.randrange(1, 7)

    start = time.perf_counter()
    for state in cases:
        reference_aa(state, roll)
    reference = (time.perf_counter() - start) / n
    return rulekit, reference
