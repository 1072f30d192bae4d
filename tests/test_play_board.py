"""The board in ``rulekit play`` (``view board``): drawn from the rulebook, within 100 columns,
without colour, hiding what is face down. pexpect sessions in real 100x40 terminals."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from rulekit.play.screen import board_lines

pexpect = pytest.importorskip("pexpect")

from test_play import PROMPT, RULEKIT, enter_until, stop_at_next_prompt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def spawn100(tmp_path: Path, *args: str) -> Any:
    """``rulekit play`` in a terminal of 100 columns and 40 rows."""
    env = dict(os.environ, RULEKIT_PLAY_DIR=str(tmp_path / "play"), COLUMNS="100", LINES="40")
    return pexpect.spawn(
        RULEKIT,
        ["play", *args],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 100),
    )


def test_board_lines_are_tables_within_the_width_without_colour() -> None:
    sections = [
        ["Places", "Here | Alpha, Beta | ULTRA", "There | - | "],
        ["Cups", "A 3 | B 4"],
        ["Long", "x" * 300],
    ]
    lines = board_lines(sections, width=100)
    assert all(len(line) <= 100 for line in lines)
    assert not any("\x1b" in line for line in lines)  # no colour codes: readable as text
    text = "\n".join(lines)
    assert lines[0] == "Places"
    assert re.search(r"│ Here\s+│ Alpha, Beta │ ULTRA │", text)
    # an empty last cell draws an empty cell, not a misplaced one
    assert re.search(r"│ There\s+│ -\s+│\s+│", text)
    assert re.search(r"│ A 3 │ B 4 │", text)
    assert "x" * 90 in text.replace("│", "").replace(" ", "").replace("\n", "")  # folded, kept


BOOK = """rulebook "Board" edition "1"
dice d6 = 1..6

state where: text = "Harbour" [1.0]

BOARD

procedure attack [1.0] "Attack"
    if roll d6 >= 4:
        where = "Sea"
"""


def test_board_view_is_checked(make_rulebook: Any) -> None:
    from rulekit.book.checker import load
    from rulekit.errors import RulekitError

    head = "view board = b [1.0]\nprocedure b"
    good = head + ' -> list of list of text [1.0]\n    return [["Map", "boat | {where}"]]'
    load(str(make_rulebook(BOOK.replace("BOARD", good))))
    for bad, message in [
        (
            head + '(x: int) -> list of list of text [1.0]\n    return [["{x}"]]',
            "view board: b must take no arguments",
        ),
        (
            head + ' -> text [1.0]\n    return "{where}"',
            "view board: b must return list of list of text",
        ),
        (
            'view bord = b [1.0]\nprocedure b -> text [1.0]\n    return "x"',
            "neither 'status', 'board'",
        ),
    ]:
        with pytest.raises(RulekitError) as caught:
            load(str(make_rulebook(BOOK.replace("BOARD", bad))))
        assert message in str(caught.value), (bad, str(caught.value))


def test_silent_war_board_at_the_turn_start_names_each_boats_oparea(tmp_path: Path) -> None:
    child = spawn100(tmp_path, "rulebooks/silent_war", "--seed", "3")
    child.expect("=== Turn 1 of 15")
    # the status view says where each boat at sea is ...
    child.expect(r"Swordfish: at sea in ([^,\r\n]+), damage")
    area = child.match.group(1)
    child.expect(r"\? Deploy Tautog")
    screen = child.before
    # ... and the board draws it in that OpArea's row, with its Base and cups
    assert "OpAreas [2.1]" in screen
    assert re.search(rf"│ {re.escape(area)}\s+│ Swordfish \(", screen), screen
    assert re.search(r"│ Pearl Harbor \(repair 0/\d+\)\s+│ [A-Za-z ]+\s+│", screen)
    assert re.search(r"│ A \d+ │ B \d+ │ C \d+ │ D \d+ │", screen)
    drawn = [line for line in screen.splitlines() if line[:1] in "┌│└"]
    assert drawn and all(len(line) <= 100 for line in drawn)
    child.expect(PROMPT)
    child.sendline("board")  # the command draws it again, on demand
    child.expect(r"War Mix cups \[3\.1\]")
    stop_at_next_prompt(child)


def test_board_in_combat_shows_face_down_units_by_column_only(tmp_path: Path) -> None:
    """[14.13] "Japanese units are placed face down": on the board's Combat Display, a
    face-down unit shows its column, never its name or type; the cups show counts only."""
    child = spawn100(tmp_path, "rulebooks/silent_war", "--seed", "3")
    enter_until(child, r"\? Which unit to reveal( \([^\r\n]*\))? \[14\.13\]")
    child.expect(PROMPT)
    child.sendline("board")
    child.expect(r"Combat Display \[14\.11\]: submarines ([^\r\n]+)")
    child.expect(PROMPT)
    screen = child.before
    assert re.search(r"│ column [A-D]\s+│ face-down unit in column [A-D]", screen), screen
    # every unit a War Mix cup can hold, by its printed name (war_mix.rk, [28.3])
    names = ["M 1-3t", "M 4-5t", "M 6t or more", "Asahi Maru", "Kiku Maru", "Diligent Escort"]
    names += ["AO", "AP", "DE", "DD", "CL", "CA", "CV", "BB", "Aircraft"]
    leaks = [n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", screen)]
    assert leaks == []
    child.sendintr()
    child.expect("interrupted: the game is saved in")
    child.expect(pexpect.EOF)


def test_steel_wolves_board_shows_the_travel_boxes(tmp_path: Path) -> None:
    child = spawn100(tmp_path, "rulebooks/steel_wolves_like", "--seed", "3")
    child.expect("=== Turn 2 of 9")
    child.expect(r"travel box (\d+) of (\d+)")
    box, boxes = int(child.match.group(1)), int(child.match.group(2))
    child.expect(r"Travel boxes \[E1\]: the boat is travel box")
    child.expect(r"└")
    drawn = child.before
    rows = re.findall(r"│ (\d+) +│ (Transit|Patrol Area|Mission Travel Box) ", drawn)
    assert [int(r[0]) for r in rows] == list(range(1, boxes + 1))
    assert re.search(rf"│ {box} +│[^\r\n]*<- the boat", drawn)
    child.sendintr()
    child.expect(pexpect.EOF)


LEAKABLE = ["M 1-3t", "M 4-5t", "M 6t or more", "Asahi Maru", "Kiku Maru", "Diligent Escort"]


def test_a_question_of_where_a_boat_goes_shows_the_map(tmp_path: Path) -> None:
    """`view choose target = place_board`: the patrol area question comes with the map's
    part of the board (OpAreas, Special Mission Zones), not the whole board again."""
    child = spawn100(tmp_path, "rulebooks/silent_war", "--seed", "3")
    child.expect(r"\? Deploy Tautog")
    child.expect(PROMPT)
    child.sendline("")
    child.expect(r"\? Patrol area \(or another Base\) for Tautog to head for \[15\.1\]")
    shown = child.before
    assert "OpAreas [2.1]: submarines (section, side), markers" in shown
    assert re.search(r"│ [A-Z][\w. ]+\s+│ Swordfish \(", shown), shown
    assert "Special Mission Zones [20.0]" in shown
    assert "War Mix cups" not in shown and "Bases [9.0]" not in shown
    stop_at_next_prompt(child)


def test_a_placement_in_combat_shows_the_combat_display_face_down(tmp_path: Path) -> None:
    child = spawn100(tmp_path, "rulebooks/silent_war", "--seed", "3")
    enter_until(child, r"\? Submarine Placement for (\w+) \[14\.11\]")
    shown = child.before  # since the last answer
    assert re.search(r"Combat Display \[14\.11\]: submarines \[?\w+", shown), shown
    assert re.search(r"│ column [A-D]\s+│ face-down unit in column [A-D]", shown), shown
    assert [n for n in LEAKABLE if n in shown] == []
    stop_at_next_prompt(child)


def test_a_questions_view_is_checked(make_rulebook: Any) -> None:
    from rulekit.book.checker import load
    from rulekit.errors import RulekitError

    base = BOOK.replace("BOARD", "").replace(
        "    if roll d6 >= 4:\n",
        '    choose go from [1, 2] default 1 [1.0] "Go?"\n    if roll d6 >= 4:\n',
    )
    good = (
        "view choose go = b [1.0]\nprocedure b -> list of list of text [1.0]\n"
        '    return [["Map", "boat | {where}"]]\n'
    )
    load(str(make_rulebook(base + good)))
    for bad, message in [
        (good.replace("choose go", "choose gone"), "there is no choose named 'gone'"),
        (
            "view choose go = b [1.0]\nprocedure b(x: int) -> bool [1.0]\n    return roll d6 > x\n",
            "must take the option as a parameter named 'go'",
        ),
        (good.replace("choose go", "go"), "a question's view is 'view choose go = ...'"),
    ]:
        with pytest.raises(RulekitError) as caught:
            load(str(make_rulebook(base + bad)))
        said = str(caught.value) + " ".join(d.hint or "" for d in caught.value.diagnostics)
        assert message in said, (bad, said)


def test_gato_leader_board_the_map_then_the_tactical_display_of_the_battle(
    tmp_path: Path,
) -> None:
    """Gato Leader's board (rulebooks/gato_leader/board.rk): the Campaign Map's Areas with
    their Submarines at the turn start; in a battle, the Tactical Display by its Areas, with
    only the battle's Submarines in them and Ship counters Unknown until revealed."""
    child = spawn100(tmp_path, "rulebooks/gato_leader", "--seed", "3")
    child.expect(r"Campaign Map \[§Campaign Map Areas\]: Submarines, counters")
    child.expect(r"│ Brisbane\s+│ USS Salmon, USS Stingray\s+│")
    match = enter_until(child, r"\? set-up Area \((USS \w+)\) \[§Tactical Set-Up\]")
    boat = match.group(1)
    shown = child.before
    assert "Tactical Display [§Tactical Display]: Alerted" in shown, shown
    rows = re.findall(r"│ (Convoy Area|Short Range|Medium Range|Long Range|Convoy Wake)\s+│", shown)
    assert rows == ["Convoy Area", "Short Range", "Medium Range", "Long Range", "Convoy Wake"]
    assert "Unknown Merchant (range" in shown or "Unknown Naval (range" in shown
    child.expect(PROMPT)
    child.sendline("")  # set up in the default Area: the board shows it there, the others not
    enter_until(child, r"\? Areas moved")
    shown = child.before
    assert re.search(rf"│ Convoy Wake\s+│ {boat} \(Surfaced\)", shown), shown
    others = {"USS Salmon", "USS Stingray", "USS Tautog", "USS Gudgeon"} - {boat}
    table = "\n".join(line for line in shown.splitlines() if line.startswith("│"))
    assert not [o for o in others if o in table]  # not in the battle's Area: no zone
    stop_at_next_prompt(child)
