"""`run --explain`: the story of a turn with book-keeping folded; `--explain all`: every event."""

from __future__ import annotations

import re

from conftest import RULEBOOKS, run_cli

from rulekit.engine.trace import (
    CallEvent,
    CheckEvent,
    LookupEvent,
    NoteEvent,
    ReturnEvent,
    RollEvent,
    SetEvent,
)
from rulekit.play.story import fold

SW = RULEBOOKS / "silent_war"


def _call(depth: int, name: str) -> CallEvent:
    return CallEvent(depth, name, "1.0", None, {})


def test_a_call_that_only_computes_is_left_out() -> None:
    distance = [
        _call(2, "distance"),
        LookupEvent(3, "areas", "2.1", {}, ["x"], "x", False, ""),
        NoteEvent(3, "distance(routes, a, b) = 3"),
        ReturnEvent(2, "distance", 3),
    ]
    roll = RollEvent(2, "d10", [7], 7, [], 7, "5.0", "")
    events = [_call(1, "phase"), *distance, roll, ReturnEvent(1, "phase", None)]
    assert fold(events) == [events[0], roll, events[-1]]


def test_a_note_of_the_rules_is_kept() -> None:
    note = NoteEvent(3, "No encounter. Proceed to next Travel Box.", "E1")
    events = [_call(1, "p"), _call(2, "encounter"), note, ReturnEvent(2, "encounter", None)]
    events.append(ReturnEvent(1, "p", None))
    assert fold(events) == events


def test_a_phase_that_does_nothing_is_one_line() -> None:
    events = [
        _call(1, "repair_phase"),
        CheckEvent(2, "damaged", False, "10.0"),
        ReturnEvent(1, "repair_phase", None),
        NoteEvent(1, "segment II"),
    ]
    folded = fold(events)
    assert len(folded) == 2 and isinstance(folded[0], ReturnEvent)
    assert folded[0].procedure == "repair_phase [1.0]" and folded[1] == events[-1]


def test_what_changes_the_game_is_never_folded() -> None:
    change = SetEvent(3, "sub.area", None, "Marshalls", "15.1")
    events = [_call(1, "p"), _call(2, "move"), change, ReturnEvent(2, "move", None)]
    events.append(ReturnEvent(1, "p", None))
    assert fold(events) == events


def _lines(*args: str) -> list[str]:
    result = run_cli("run", SW, "--seed", "11", "--turns", "1", *args)
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_explain_folds_book_keeping_and_keeps_every_roll_decision_and_change() -> None:
    every, story = _lines("--explain", "all"), _lines("--explain")
    assert len(story) < len(every) / 3  # most of a turn is range and distance look-ups
    matters = re.compile(r"^\s*(roll |decide |set |draw from )")
    assert [s.strip() for s in every if matters.match(s)] == [
        s.strip() for s in story if matters.match(s)
    ]
    assert any("base_distance" in line for line in every)
    assert not any("base_distance" in line for line in story)
    # the repair phase rolls nothing and repairs nothing on the first turn: one line
    assert '  < repair_phase [10.0] "Submarine Repair Phase" -> none' in story
