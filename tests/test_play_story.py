"""The story a player reads in ``rulekit play`` (rulekit.play.verdicts): rolls told as
verdicts, book-keeping grouped, the rules' words; routine questions set to ``always``."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from rulekit.engine.trace import (
    CallEvent,
    CheckEvent,
    LookupEvent,
    NoteEvent,
    ReturnEvent,
    RollEvent,
    SetEvent,
    Term,
)
from rulekit.play.verdicts import Answered, Words, brief

pexpect = pytest.importorskip("pexpect")

from test_play import PROMPT, enter_until  # noqa: E402
from test_play_board import spawn100  # noqa: E402

WORDS = Words(
    tables={"endurance_table": "Endurance Table"},
    states={"ultra_areas": "OpAreas with an ULTRA marker this turn"},
    attrs={"section": "OpArea section", "box": "its box on the Base display"},
)


def _roll(depth: int, natural: int, mods: list[Term], rule: str) -> RollEvent:
    total = natural + sum(t.value for t in mods)
    return RollEvent(depth, "d10", [natural], natural, mods, total, rule, "x.rk:1:1")


def test_a_roll_is_told_as_a_verdict_with_the_number_it_needed() -> None:
    """[14.7] "Endurance Check": the number the roll is tested against is the table's (the
    look-up just before), what it decided the change right after it."""
    events = [
        CallEvent(1, "endurance_check", "14.7", "Endurance Check", {"sub": "Spearfish"}),
        LookupEvent(2, "endurance_table", "14.7", {"rating": "B"}, ["B"], 6, False, "x"),
        _roll(2, 8, [Term(-1, "no enemy contacts", "14.7")], "14.7"),
        CheckEvent(2, "roll d10 + endurance_drm(sub) > needed", True, "14.7"),
        SetEvent(2, "Spearfish.section", "operating", "done", "14.7"),
        ReturnEvent(1, "endurance_check", None),
    ]
    lines = brief(events, WORDS, top=1)
    assert lines == [
        "Endurance Check [14.7]: Spearfish",
        "  Endurance Check [14.7]: rolled 7 (8 -1 no enemy contacts); more than needed"
        " (Endurance Table: 6)? yes: Spearfish: OpArea section -> done",
    ]


def test_a_roll_read_on_a_table_says_the_tables_title_and_row() -> None:
    events = [
        CallEvent(1, "ultra_roll", "7.1", "Roll on the ULTRA Table", {}),
        _roll(2, 9, [], "7.1"),
        LookupEvent(2, "ultra", "7.1", {"roll": 9}, ["WP1", "9"], ["North Pacific"], False, "x"),
        SetEvent(2, "ultra_areas", 0, 1, "7.13", added=["North Pacific"], removed=[]),
        ReturnEvent(1, "ultra_roll", None),
    ]
    lines = brief(events, WORDS, top=1)
    said = "  Roll on the ULTRA Table [7.1]: rolled 9: ultra says North Pacific"
    assert lines[1].startswith(said)
    # the change the roll made is told in the declaration's words, not as ultra_areas
    assert "OpAreas with an ULTRA marker this turn: +North Pacific" in lines[1]
    assert "ultra_areas" not in "\n".join(lines)


def test_book_keeping_is_grouped_and_a_note_tells_its_calls_changes() -> None:
    events = [
        CallEvent(1, "prep", "11.0", "Prep for Operations Phase", {}),
        SetEvent(2, "Skipjack.section", "done", "operating", "11.0"),
        SetEvent(2, "Swordfish.section", "done", "operating", "11.0"),
        ReturnEvent(1, "prep", None),
        CallEvent(1, "reveal", "14.13", "Turn a unit face up", {}),
        SetEvent(2, "Asahi Maru.revealed", False, True, "14.13"),
        NoteEvent(2, "revealed Asahi Maru in column A", "14.13"),
        ReturnEvent(1, "reveal", None),
    ]
    lines = brief(events, WORDS, top=1)
    assert lines == [
        "Prep for Operations Phase [11.0]",
        "  Skipjack: OpArea section -> operating; Swordfish: OpArea section -> operating",
        "Turn a unit face up [14.13]",
        "  revealed Asahi Maru in column A [14.13]",
    ]


def test_answers_set_to_always_are_not_told_and_auto_ones_are_grouped() -> None:
    events: list[Any] = [
        CallEvent(1, "combat", "14.0", "Combat Phase", {}),
        Answered(2, "Which unit to reveal", "face-down unit in column A", "always"),
        Answered(2, "Place a TDC marker on", "Asahi Maru", "auto"),
        Answered(2, "Place a TDC marker on", "Kiku Maru", "auto"),
        NoteEvent(2, "the TDC markers are revealed", "14.15"),
        NoteEvent(2, "TDC 1 on Asahi Maru", "14.15"),
        ReturnEvent(1, "combat", None),
    ]
    lines = brief(events, WORDS, top=1)
    assert lines == [
        "Combat Phase [14.0]",
        "  Place a TDC marker on: Asahi Maru, Kiku Maru (x2, auto)",
        "  the TDC markers are revealed; TDC 1 on Asahi Maru [14.15]",
    ]


def _turn(text: str, turn: int) -> list[str]:
    """The lines of ``turn`` from its story's first line to its summary line."""
    lines = text.replace("\r", "").split("\n")
    start = next(k for k, x in enumerate(lines) if x.startswith(f"=== Turn {turn} of"))
    end = next(k for k in range(start, len(lines)) if lines[k].startswith(f"turn {turn}:"))
    return lines[start : end + 1]


ROUTINE = ["bypass", "guns", "to_reveal", "target", "give", "reattack", "reposition"]
ROUTINE += ["posture_choice", "new_posture", "column", "move_to", "go", "cautious"]


def test_a_whole_silent_war_turn_tells_its_story_in_about_150_lines(tmp_path: Path) -> None:
    """A player who set the routine questions to always reads a whole turn (seed 3, turn 2:
    nine submarines, three combats) in under 150 lines of story, the turn's start (status
    and board) aside; ``log all`` still has every event."""
    child = spawn100(tmp_path, "rulebooks/silent_war", "--seed", "3")
    child.expect(r"\? Deploy Tautog")
    child.expect(PROMPT)
    for name in ROUTINE:
        child.sendline(f"always {name}")
        child.expect(f"always: '{name}' takes the rulebook's default")
    text = ""
    while child.expect([r"=== Turn 3 of", PROMPT], timeout=120) == 1:
        text += child.before + child.after
        child.sendline("")
    text += child.before
    lines = _turn(text, 2)
    story = lines[next(k for k, x in enumerate(lines) if x.startswith("-- Strategic")) :]
    assert 60 < len(story) <= 150, "\n".join(story)
    said = "\n".join(story)
    # rolls as verdicts, in the rules' words; no raw trace lines
    assert re.search(r"Endurance Check \[14\.7\]: rolled -?\d+.*\? (yes|no)", said)
    assert not re.search(r"^\s*(set |roll d10 \[)", said, re.M)
    assert not re.search(r"\b[a-z]+_[a-z_]+ ->", said)  # no procedure's name and result
    child.expect(PROMPT)
    child.sendline("log all")
    child.expect(PROMPT)
    everything = child.before
    assert re.search(r"roll d10 \[14\.7\]: natural \d", everything)
    assert "set " in everything
    child.sendintr()
    child.expect(pexpect.EOF)


def test_always_is_saved_with_the_game_and_ask_undoes_it(tmp_path: Path) -> None:
    child = spawn100(tmp_path, "rulebooks/silent_war", "--seed", "3")
    enter_until(child, r"\? Cautious Transit for Tautog \(move a single OpArea\)\? \[15\.25\]")
    child.expect(PROMPT)
    child.sendline("always")  # this question, answered by its default now and from now on
    child.expect(r"always: 'cautious' takes the rulebook's default from now on")
    # the next submarine's Cautious Transit question is not asked
    child.expect(r"\? ([^\r\n]+)\[")
    assert "Cautious Transit" not in child.match.group(1)
    child.expect(PROMPT)
    child.sendintr()
    child.expect("interrupted: the game is saved in")
    child.expect(pexpect.EOF)
    saved = tomllib.loads((tmp_path / "play" / "autosave.toml").read_text())
    assert saved["always"] == ["cautious"]
    again = spawn100(tmp_path, "--resume")
    again.expect(PROMPT)
    again.sendline("ask")
    again.expect(r"always: cautious \(ask cautious: asked again\)")
    again.expect(PROMPT)
    again.sendline("ask cautious")
    again.expect(r"ask: 'cautious' is asked again")
    again.expect(PROMPT)
    again.sendline("always nonsense")
    again.expect(r"there is no question 'nonsense'")
    enter = 0
    while again.expect([r"\? Cautious Transit for (\w+)", PROMPT]) == 1:
        again.sendline("")
        enter += 1
        assert enter < 50
    again.expect(PROMPT)
    again.sendintr()
    again.expect("interrupted: the game is saved in")
    again.expect(pexpect.EOF)
    assert "always" not in tomllib.loads((tmp_path / "play" / "autosave.toml").read_text())
