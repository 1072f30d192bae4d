"""Procedure results remembered while one decision's default is worked out (rulekit.engine.memo):
a remembered call gives what running it gives, in as many steps, noting the same provisional
values; arguments are compared by value (pieces by identity, held), never by ``id()``; the
memo lives for one default, so a piece changed between two defaults is read anew."""

from __future__ import annotations

import gc
import weakref
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_remembered import _run as _play

from rulekit.book.checker import Checked, load
from rulekit.engine import codegen_runtime, decisions
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.memo import CallMemo, keepable, key_of
from rulekit.engine.trace import DecisionEvent
from rulekit.engine.values import Entity, EnumValue, RecordValue
from rulekit.errors import RuleRuntimeError

BOOK = """rulebook "Memo"
enum area = North South
kind boat
    name: text
    speed: int
state fleet: list of boat = [] [1.0]
state guess: int = 4 [1.9] "a guess" provisional "not printed"
table hops [1.0]: to: area -> int
    North | ~"not printed" 3
    South | 5
procedure score(b: boat, a: area) -> int [1.1] "a boat's worth in an area"
    let total = 0
    for each k in range(1, 3):
        total += b.speed + hops(a) + guess
    return total
procedure best(boats: list of boat, a: area) -> boat [1.2] "the best boat"
    let top = max(score(b, a) for b in boats)
    return first([b for b in boats if score(b, a) = top])
procedure length(xs: list of int, b: boat) -> int [1.3] "how many, counted"
    let c = 0
    for each x in xs:
        c += 1
    return c
procedure tail(xs: list of int, b: boat) -> int [1.4] "the last item, found by a loop"
    let found = 0
    for each x in xs:
        found = x
    return found
procedure main -> int [2.0]
    let gar = boat(name: "Gar", speed: 3)
    fleet = [gar, boat(name: "Tang", speed: 4), boat(name: "Pike", speed: 2)]
    choose first_pick from fleet default best(fleet, North) [2.1] "first"
    first_pick.speed = 0
    choose second_pick from fleet default best(fleet, North) [2.2] "second"
    let k = 10
    let p = second_pick
    choose n from [1, 2, 3] default sum(length([j, j], p) for j in range(1, 39)) - 77 [2.3] "n"
    let o = [k * 100, k * 100]
    choose same from o default (if tail([k * 100, k * 100], p) = 0 then 0 else tail(o, p)) [2.4] "s"
    return second_pick.speed * 100 + n
"""


@pytest.fixture
def checked(make_rulebook: Callable[..., Path]) -> Checked:
    return load(str(make_rulebook(BOOK)))


class _Forgetful(CallMemo):
    """A memo that remembers nothing: every call runs in full."""

    __slots__ = ()

    def __init__(self) -> None:
        self.calls: dict[Any, Any] = _NoStore()


class _NoStore(dict[Any, Any]):
    def __setitem__(self, key: Any, value: Any) -> None:
        pass


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Counts the runs of each procedure called off the record."""
    counted: Counter[str] = Counter()
    execute = codegen_runtime._execute

    def counting(i: Interpreter, proc: Any, args: dict[str, Any]) -> Any:
        counted[proc.name] += 1
        return execute(i, proc, args)

    monkeypatch.setattr(codegen_runtime, "_execute", counting)
    yield counted


def _summary(interp: Interpreter) -> tuple[Any, ...]:
    decided = [
        (e.name, e.choice, e.index) for e in interp.trace.events if isinstance(e, DecisionEvent)
    ]
    return interp.steps, tuple(interp.trace.provisional_used), decided


def test_which_defaults_remember(checked: Checked) -> None:
    from rulekit.engine.program import program_for
    from rulekit.engine.reach import calls_a_procedure, pure

    prog = program_for(checked)
    book = checked.book
    main = book.procedures["main"]
    defaults = {s.name: s.default for s in main.body if getattr(s, "default", None) is not None}
    assert all(pure(book, prog.tables, d) for d in defaults.values())
    assert all(calls_a_procedure(book, prog.tables, d) for d in defaults.values())


def test_a_remembered_call_gives_what_running_it_gives(
    checked: Checked, runs: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    remembered = Interpreter(checked)
    # the Gar and Tang are worth 2 * (3 + 3 + 4) = 20 and 22 in the North: the Tang first;
    # then, its speed 0, the Gar; the count is 38 * 2 - 77 = -1, not an option: the first
    assert remembered.call("main", {}) == 3 * 100 + 1
    with_memo = dict(runs)
    runs.clear()
    monkeypatch.setattr(decisions, "CallMemo", _Forgetful)
    in_full = Interpreter(checked)
    assert in_full.call("main", {}) == 3 * 100 + 1
    assert _summary(remembered) == _summary(in_full)
    # each default of best scores each of the three boats twice: the second time is
    # remembered, within that default
    assert with_memo["score"] == 2 * 3
    assert runs["score"] == 2 * 2 * 3


def test_a_piece_changed_between_two_defaults_is_read_anew(checked: Checked) -> None:
    # the Tang, the first pick, is set to speed 0 before the second default: the Gar (3)
    result = Interpreter(checked)
    result.mute(True)
    assert result.call("main", {}) == 3 * 100 + 1
    traced = Interpreter(checked)
    assert traced.call("main", {}) == 3 * 100 + 1
    picks = [e.choice for e in traced.trace.events if isinstance(e, DecisionEvent)]
    assert picks[:2] == ["Tang", "Gar"]


def test_an_id_used_again_is_no_hit(checked: Checked, monkeypatch: pytest.MonkeyPatch) -> None:
    """``length([j, j])`` for j from 1 to 39: each list is made, given and freed before the
    next is made, so Python hands the next list the same id(). Keyed by id(), the 38 later
    calls would be given the first one's result; keyed by value, each list runs (each
    counts 2 either way, so the check is that they were not served from another list)."""
    given: list[tuple[int, tuple[Any, ...]]] = []
    memoized = codegen_runtime._memoized

    def watching(i: Interpreter, proc: Any, args: dict[str, Any]) -> Any:
        if proc.name == "length":
            given.append((id(args["xs"]), list(args["xs"])))
            keys_before = len(i.memo.calls) if i.memo is not None else 0
            result = memoized(i, proc, args)
            assert i.memo is not None and len(i.memo.calls) == keys_before + 1  # no hit
            return result
        return memoized(i, proc, args)

    monkeypatch.setattr(codegen_runtime, "_memoized", watching)
    interp = _play(checked, muted=True)
    assert len(given) == 39
    ids = Counter(i for i, _ in given)
    assert max(ids.values()) > 1  # the case is made: an id given again, for another list
    assert len({tuple(xs) for _, xs in given}) == 39
    assert interp.call("main", {}) == 3 * 100 + 1


def test_an_id_used_again_is_no_hit_in_the_memo_itself() -> None:
    memo = CallMemo()
    first = _pair(7000)  # made at run time: a new tuple
    memo.calls[(key_of(first),)] = ("first", 1, (), 1)
    was = id(first)
    del first  # freed: its memory is free for the next tuple of its size
    for k in range(100):  # tuples of the same size: one soon takes the freed id
        other = _pair(7001 + k)
        if id(other) == was:
            break
    else:
        pytest.skip("Python did not give the id again")
    assert (key_of(other),) not in memo.calls


def _pair(a: int) -> tuple[int, int]:
    return (a, 2)


def test_a_piece_in_a_key_is_held_while_the_memo_lives() -> None:
    memo = CallMemo()
    piece = Entity("boat", {"speed": 3}, "Gar")
    alive = weakref.ref(piece)
    memo.calls[(key_of(piece),)] = (3, 1, (), 1)
    del piece
    gc.collect()
    assert alive() is not None  # held by the key: its id cannot be another object's
    assert (key_of(alive()),) in memo.calls
    other = Entity("boat", {"speed": 3}, "Gar")  # equal attributes, another piece
    assert (key_of(other),) not in memo.calls
    del memo
    gc.collect()
    assert alive() is None


def test_keys_tell_apart_what_a_procedure_can() -> None:
    keys = [
        key_of(1),
        key_of(True),
        key_of("1"),
        key_of(None),
        key_of((1,)),
        key_of(EnumValue("area", "North", 0, "NORTH")),
        key_of(EnumValue("area", "North", 0, "")),
        key_of(RecordValue("ship", (("t", 1),))),
        key_of(RecordValue("ship", (("t", True),))),
    ]
    assert len(set(keys)) == len(keys)
    assert key_of((1, "a")) == key_of((1, "a"))


def test_a_result_holding_an_arguments_object_is_not_kept() -> None:
    big = (1000 * 7, 2000 * 7)
    assert not keepable(big[1], {"xs": big})  # a later call's own object is not this one
    assert keepable(7000 * 1 + 1, {"xs": big})  # a result made anew
    assert keepable(big[0] // 1000, {"xs": big})  # a small int is one object whatever made it
    piece = Entity("boat", {}, "Gar")
    assert keepable(piece, {"boats": (piece,)})  # a piece is found, never made
    assert not keepable({"a": 1}, {})  # not a value of the language


def test_the_default_is_found_among_equal_options_as_a_run_finds_it(
    checked: Checked, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tail([1000, 1000], p)`` made anew, then ``tail(o, p)`` with equal arguments: a
    run returns the second option itself (found by identity: the second of two equal
    options), a result remembered from the first list would be found as the first."""
    traced = Interpreter(checked)
    traced.call("main", {})
    [same] = [e for e in traced.trace.events if isinstance(e, DecisionEvent) and e.name == "same"]
    assert same.index == 1
    monkeypatch.setattr(decisions, "CallMemo", _Forgetful)
    in_full = Interpreter(checked)
    in_full.call("main", {})
    assert _summary(traced) == _summary(in_full)


def test_steps_notes_and_budget_as_a_run_in_full(
    checked: Checked, monkeypatch: pytest.MonkeyPatch
) -> None:
    remembered = [_play(checked, muted) for muted in (False, True)]
    monkeypatch.setattr(decisions, "CallMemo", _Forgetful)
    in_full = [_play(checked, muted) for muted in (False, True)]
    for a, b in zip(remembered, in_full, strict=True):
        assert a.steps == b.steps
        assert a.trace.provisional_used == b.trace.provisional_used
    assert "const guess" not in in_full[0].trace.provisional_used  # a state variable
    assert in_full[0].trace.provisional_used  # the provisional cell and the guess are noted
    assert remembered[0].steps == remembered[1].steps
    full = in_full[0].steps
    monkeypatch.undo()
    for budget in (full - 1, full - 40, full // 2, 60):
        errors = []
        for forgetful in (False, True):
            if forgetful:
                monkeypatch.setattr(decisions, "CallMemo", _Forgetful)
            with pytest.raises(RuleRuntimeError) as caught:
                _play(checked, muted=True, max_steps=budget)
            errors.append(str(caught.value))
            monkeypatch.undo()
        assert errors[0] == errors[1]
        assert "step" in errors[0]


IMPURE = """rulebook "Impure"
dice d6 = 1..6
kind boat
    speed: int
state count: int = 0
const lucky: int = roll 1d6
procedure rolls -> int [1.1]
    return roll 1d6
procedure counts -> int [1.2]
    count += 1
    return count
procedure slows(b: boat) -> int [1.3]
    b.speed = 0
    return 1
procedure makes -> int [1.4]
    let b = boat(speed: 2)
    return b.speed
procedure reads_lucky -> int [1.5]
    return lucky
procedure asks -> int [1.6]
    choose x from [1, 2] default 1 [1.6] "x"
    return x
procedure computes(b: boat) -> int [1.7]
    note "speed {b.speed}"
    return b.speed + 1
procedure main [2.0]
    let b = boat(speed: 3)
    choose a from [1, 2] default rolls() [2.1] "a"
    choose c from [1, 2] default counts() [2.2] "c"
    choose d from [1, 2] default slows(b) [2.3] "d"
    choose e from [1, 2] default makes() [2.4] "e"
    choose f from [1, 2] default reads_lucky() [2.5] "f"
    choose g from [1, 2] default asks() [2.6] "g"
    choose h from [1, 2] default computes(b) [2.7] "h"
    choose k from [1, 2] default 1 [2.8] "k"
"""


def test_only_a_default_that_only_computes_remembers(
    make_rulebook: Callable[..., Path],
) -> None:
    from rulekit.engine.program import program_for
    from rulekit.engine.reach import calls_a_procedure, pure

    checked = load(str(make_rulebook(IMPURE)))
    book, tables = checked.book, program_for(checked).tables
    main = book.procedures["main"]
    found = {
        s.name: pure(book, tables, s.default) and calls_a_procedure(book, tables, s.default)
        for s in main.body
        if getattr(s, "default", None) is not None
    }
    # dice, a state variable or a piece changed, a piece made, a constant that rolls, a
    # decision: none; a note is fine (a default's events are dropped); a literal calls nothing
    assert found == {
        "a": False,
        "c": False,
        "d": False,
        "e": False,
        "f": False,
        "g": False,
        "h": True,
        "k": False,
    }
