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
        # a phase of one line, followed by another, on one line
        "Prep for Operations Phase [11.0]: Skipjack: OpArea section -> operating; Swordfish:"
        " OpArea section -> operating",
        "Turn a unit face up [14.13]",
        "  revealed Asahi Maru in column A [14.13]",
    ]


def test_what_is_put_back_or_drawn_is_not_told_twice() -> None:
    """Book-keeping that leaves a thing as it was before the turn changed it (attack points
    back to 0, a round's flag back to its declared start), a pool's loss told by its draw, a
    note saying again what a roll decided: left out. Two rolls of one rule share a line."""
    words = Words(states={"flag": "Only one Event per round"}, initial={"flag": False})
    events = [
        CallEvent(1, "combat", "14.0", "Combat Phase", {}),
        CallEvent(2, "search", "13.0", "Search & Contact Phase", {}),
        _roll(3, 8, [], "13.0"),
        LookupEvent(3, "activity", "13.0", {"roll": 8}, ["8"], "High", False, "x"),
        NoteEvent(3, "Area Activity: High", "13.0"),
        ReturnEvent(2, "search", None),
        NoteEvent(2, "drew face-down piece from cup A", "13.1 C"),
        SetEvent(2, "cup_a", 5, 4, "13.1 C", added=[], removed=["face-down piece"]),
        CallEvent(2, "allocate", "14.15", "Allocate attack points", {}),
        SetEvent(3, "Maru.points", 0, 6, "14.15"),
        ReturnEvent(2, "allocate", None),
        CallEvent(2, "attack", "14.16", "Resolving the Attack", {}),
        _roll(3, 1, [], "14.16"),
        CheckEvent(3, "roll d10 > difference", False, "14.16"),
        _roll(3, 3, [], "14.16"),
        LookupEvent(3, "results", "14.16", {"roll": 3}, ["3"], "Damaged", False, "x"),
        ReturnEvent(2, "attack", "damaged"),
        CallEvent(2, "reset", "14.1", "Effects that last one attack round", {}),
        SetEvent(3, "Maru.points", 6, 0, "14.1"),
        SetEvent(3, "flag", True, False, "14.1"),
        SetEvent(3, "Sub.damage", 0, 1, "14.2"),
        ReturnEvent(2, "reset", None),
        ReturnEvent(1, "combat", None),
    ]
    lines = brief(events, words, top=1)
    said = "\n".join(lines)
    assert "Area Activity" not in said  # the roll's line says it: "level High"
    assert "cup_a" not in said and "cup a" not in said  # the draw says it
    assert "points -> 0" not in said and "Only one Event" not in said  # put back
    assert "Maru: points -> 6" in said  # ... but the allocation itself is told
    assert "Sub: damage -> 1" in said
    joined = "Resolving the Attack [14.16]: rolled 1; more than difference? no; then rolled 3:"
    assert joined in said


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


def test_the_heaviest_turn_measured_tells_its_story_in_150_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The heaviest Silent War turn of seeds 1-6 with the routine questions set to always
    (measured: seed 1, turn 4, nine submarines, eight combats; 209 lines before the story
    grouped what goes together) is told in at most 150 lines, every roll of the turn's
    trace in it, and its summary in the game's words."""
    from rulekit.book.checker import load
    from rulekit.engine.trace import RollEvent as Roll
    from rulekit.play.interactive import PlaySession, start_save

    monkeypatch.setenv("RULEKIT_PLAY_DIR", str(tmp_path / "play"))
    checked = load("rulebooks/silent_war")
    save = start_save(checked, "rulebooks/silent_war", None, 1)
    save.always = list(ROUTINE)
    written: list[str] = []
    rolls: list[int] = []

    def read(_: str) -> str:
        if any(line.startswith("=== Turn 5 of") for line in written[-60:]):
            raise EOFError
        return ""

    session = PlaySession(checked, save, read, lambda x: written.extend(str(x).split("\n")))
    real = session._turn_end

    def turn_end(turn: int, events: list[Any]) -> None:
        rolls.append(sum(isinstance(e, Roll) for e in events))
        real(turn, events)

    monkeypatch.setattr(session, "_turn_end", turn_end)
    assert session.run() == 130
    lines = _turn("\n".join(written), 4)
    story = lines[next(k for k, x in enumerate(lines) if x.startswith("-- Strategic")) :]
    said = "\n".join(story)
    assert 100 < len(story) <= 150, said
    assert said.count("rolled ") == rolls[3]  # every roll told, none twice
    assert "? Base Sargo returns to [15.23]" in said  # every question asked is there
    assert "M 1-3t: sunk -> yes" in said  # and every result
    assert "Pollack: Damage markers -> 1" in said
    summary = story[-1]
    assert summary.startswith("turn 4: War Period marker: WP1; Month marker: Jan;"), summary
    assert "Ships Sunk: 1" in summary and "ships_sunk" not in summary
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", said), said
