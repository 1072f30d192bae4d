"""Results of plain procedures remembered off the record (rulekit.engine.reach.remembered_depth):
the same arguments give the same result in as many steps, noting the same provisional values,
and a remembered call that would pass the step budget runs again to fail as it would."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.book.checker import Checked, load
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.program import program_for
from rulekit.errors import RuleRuntimeError

BOOK = """rulebook "Remembered"
enum area = North South
state total: int = 0
state seen: area or none = none
state guess: int = 4 [1.9] "a guess" provisional "not printed"
table hops [1.0]: to: area -> int
    North | ~"not printed" 3
    South | 5
procedure far(a: area) -> int [1.1]
    let d = hops(a)
    return d * 10 + 1
procedure near(a: area) -> int [1.2]
    return far(a) - 1
procedure reads_state(a: area) -> int [1.3]
    return total + far(a)
procedure gives_member(a: area) -> area [1.4]
    return a
procedure reads_guess(a: area) -> int [1.5]
    return guess + far(a)
procedure twice -> int [2.1]
    total = 5
    let x = reads_state(South)
    total = 7
    let y = reads_state(South)
    return x * 100 + y
procedure main -> int [2.0]
    total = 0
    for each k in range(1, 20):
        total += near(North) + far(South)
    return total
"""


@pytest.fixture
def book(make_rulebook: Callable[..., Path]) -> Path:
    return make_rulebook(BOOK)


def _run(checked: Checked, muted: bool, max_steps: int | None = None) -> Interpreter:
    interp = Interpreter(checked)
    interp.mute(muted)
    if max_steps is not None:
        interp.set_budget(max_steps)
    interp.call("main", {})
    return interp


def test_which_procedures_are_remembered(book: Path) -> None:
    checked = load(str(book))
    comp = program_for(checked)
    depth = {name: comp.procedure(name).depth for name in checked.book.procedures}
    # far calls nothing; near and reads_state call far (one call deeper); a member given
    # could come back worded otherwise; main and twice change the state
    assert depth == {
        "far": 0,
        "near": 1,
        "reads_state": 1,
        "gives_member": None,
        "reads_guess": None,  # a provisional value is noted only while the game has not set it
        "twice": None,
        "main": None,
    }
    assert comp.procedure("reads_state").reads == ("total",)


def test_a_remembered_result_is_by_the_state_it_reads(book: Path) -> None:
    checked = load(str(book))
    for _ in range(2):  # the second time, both calls are remembered
        interp = Interpreter(checked)
        interp.mute(True)
        # total 5, then 7: 5 + far(South) = 56 and 7 + 51 = 58, not the 56 remembered
        assert interp.call("twice", {}) == 56 * 100 + 58


def test_a_remembered_game_equals_one_run_in_full(book: Path) -> None:
    # range(1, 20) is 20 rounds of near(North) + far(South) = 20 * (30 + 51) = 1,620
    checked = load(str(book))
    reference = _run(checked, muted=False)  # traced, nothing is remembered
    assert reference.state.values["total"] == 20 * (30 + 51)
    for _ in range(2):  # the second time, every call is remembered from the first game
        again = _run(checked, muted=True)
        assert again.state.values == reference.state.values
        assert again.steps == reference.steps
        # the provisional North cell is noted as a run in full notes it
        assert again.trace.provisional_used == reference.trace.provisional_used
        assert again.trace.provisional_used == ["table hops (North) [1.0]"]
    known = program_for(checked).procedure("far").known  # the results were kept
    assert sorted(v[0] for v in known.values()) == [31, 51]
    # traced, nothing is remembered: the calls are in the trace
    assert reference.trace.events


def test_a_remembered_call_past_the_budget_fails_as_a_run_would(book: Path) -> None:
    checked = load(str(book))
    full = _run(checked, muted=False)  # traced: nothing remembered
    _run(checked, muted=True)  # remember far and near
    for budget in (full.steps - 1, full.steps // 2, 7):
        errors = []
        for muted in (False, True):
            with pytest.raises(RuleRuntimeError) as caught:
                _run(checked, muted=muted, max_steps=budget)
            errors.append(str(caught.value))
        assert errors[0] == errors[1]
        assert "step" in errors[0]


def test_initial_state_is_worked_out_once_when_nothing_could_tell(
    make_rulebook: Callable[..., Path],
) -> None:
    # Exact analysis makes an interpreter per path: the initial values are kept per rulebook
    # when working them out throws no die, writes no event, makes no piece and gives only
    # values nothing can change in place. A state variable changed in one game starts at its
    # initial value in the next, and the steps are charged as if worked out.
    from rulekit.engine import interpreter as module

    checked = load(
        str(
            make_rulebook(
                'rulebook "Init"\n'
                'const base: int = 2 [1.1] provisional "not printed"\n'
                "state count: int = base + 3\n"
                "state names: list of int = [1, 2]\n"
                "procedure bump -> int [1.0]\n"
                "    count += 1\n"
                "    names = names + [count]\n"
                "    return count\n"
            )
        )
    )
    module._INITIAL.clear()
    first = Interpreter(checked)
    worked_out = first.steps
    assert program_for(checked) in module._INITIAL
    assert first.call("bump", {}) == 6
    assert first.state.values["names"] == (1, 2, 6)
    second = Interpreter(checked)
    assert (second.state.values["count"], second.state.values["names"]) == (5, (1, 2))
    assert second.steps == worked_out
    assert first.trace.provisional_used == second.trace.provisional_used == ["const base [1.1]"]


def test_initial_values_that_throw_dice_are_thrown_every_game(
    make_rulebook: Callable[..., Path],
) -> None:
    from rulekit.engine import interpreter as module
    from rulekit.engine.dice import ForcedDice

    checked = load(
        str(make_rulebook('rulebook "Dice"\ndice d6 = 1..6\nstate start: int = roll d6\n'))
    )
    assert Interpreter(checked, ForcedDice([2])).state.values["start"].total == 2
    assert Interpreter(checked, ForcedDice([5])).state.values["start"].total == 5
    assert program_for(checked) not in module._INITIAL
