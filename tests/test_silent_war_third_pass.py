"""Silent War 2.1, third pass (issue 30 §1): rules a careful player checks, where the engine
deviated from the text.

Each test was written from the rules text (../shared/seeds/000_0b28bf2899953500.txt) before the
rulebook code of its rule was read, and failed before the fix. The numbers asserted are the
text's; where a chart the rule uses is not printed (the Endurance Table, the map), the test
reads the chart through the public API and asserts the rule's mechanism, not the value.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from conftest import RULEBOOKS
from test_silent_war_rules import Game, unit

import rulekit
from rulekit.book.checker import Checked
from rulekit.engine.dice import SeededDice


def sub_named(game: Game, name: str) -> Any:
    return next(s for s in game.state["subs"] if s.attrs["name"] == name)


def where(sub: Any) -> tuple[str, str, str, str]:
    """Where a boat stands: OpArea, section, Base, box."""
    a = sub.attrs
    return (str(a["area"]), str(a["section"]), str(a["base"]), str(a["box"]))


# ---- [15.22] Involuntary RTB: the boat waits in the "Done" section until next turn -----------


def patrolling(game: Game, name: str = "Spearfish", area: str = "Marshalls") -> Any:
    """A Patrol side boat in the Operating section of an OpArea, as after Prep for
    Operations [11.0] ("Move all submarines from "Done" section of OpArea to "Operating"
    section")."""
    sub = game.sub_at_sea(name, area)
    game.call("prep_phase")
    assert str(sub.attrs["side"]) == "patrol" and str(sub.attrs["section"]) == "operating"
    return sub


def failing_endurance_die(sub: Any) -> int:
    """A natural d10 that fails the Endurance check [14.7] ("If the result is > the number
    indicated"): the Endurance Table is not printed, so its number is read from the chart."""
    number = silent_war_book().lookup(
        "endurance_table", at={"endurance_rating": str(sub.attrs["endurance"]), "torpedo": -2}
    )
    assert int(number.value) < 9, "no natural die fails this Endurance number"
    return 9


@cache
def silent_war_book() -> Any:
    """The public API's Book on the same rulebook, for chart look-ups."""
    return rulekit.load(str(RULEBOOKS / "silent_war"))


def test_endurance_rtb_waits_in_done_until_next_turn_15_22(silent_war: Checked) -> None:
    """[14.7] "If the result is > the number indicated, the submarine involuntarily RTBs
    [15.22]. Place an involuntary RTB marker on it and move it to the "Done" section of the
    OpArea." [15.22] "An involuntary RTB from a Combat result, a Transit Event, or the
    Endurance Table forces the submarine to enter RTB immediately. It remains on, or is flipped
    to its Transit side, receives an involuntary RTB marker, and is moved to the "Done" section
    of the appropriate OpArea." [4.0] 15.0: "Submarines that are in the Ready for Sea Box of a
    base, or are outbound to a patrol area, or are on their Transit side (including those with
    an RTB marker) in an Operating section of an OpArea can move". A boat in the Done section
    does not move in this turn's Transit Movement Phase; after the next Prep for Operations
    Phase [11.0] it is in the Operating section and makes its RTB move [15.23]."""
    game = Game(silent_war, [9])
    game.set(torpedo=-2)
    sub = patrolling(game)
    failing_endurance_die(sub)
    game.call("endurance_check", sub=sub)
    assert str(sub.attrs["rtb"]) == "involuntary"
    assert str(sub.attrs["side"]) == "transit"
    before = where(sub)
    assert before == ("Marshalls", "done", "None", "None")
    game.call("unit_transit_movement", sub=sub)  # this turn's Transit Movement Phase [15.0]
    assert where(sub) == before, "an involuntary RTB waits in the Done section this turn"
    assert [e for e in game.events("roll") if e.rule.startswith("19.1")] == []
    # the next turn: Prep for Operations [11.0], then the RTB transit move [15.23]
    game.call("prep_phase")
    assert str(sub.attrs["section"]) == "operating"
    game.call("unit_transit_movement", sub=sub)
    assert where(sub) != before, "the next turn it makes its RTB move"


def test_combat_rtb_waits_in_done_until_next_turn_15_22(silent_war: Checked) -> None:
    """[15.22] "An involuntary RTB from a Combat result ... is moved to the "Done" section of
    the appropriate OpArea." The Counterattack result "Damaged + RTB" [14.2] is such a
    result: the boat does not make its Transit move in the same turn [4.0] 15.0."""
    game = Game(silent_war, [])
    sub = patrolling(game)
    result = game.v("counterattack_result", "Damaged + RTB")
    game.call("apply_counterattack", sub=sub, result=result)
    assert str(sub.attrs["rtb"]) == "involuntary" and sub.attrs["damage"] == 1
    before = where(sub)
    assert before[:2] == ("Marshalls", "done")
    game.call("unit_transit_movement", sub=sub)
    assert where(sub) == before, "a combat RTB waits in the Done section this turn"


def test_voluntary_rtb_still_moves_the_same_turn_15_21(silent_war: Checked) -> None:
    """[15.21] "Flip the submarine to its Transit side, place a voluntary RTB marker on it and
    perform its Transit move." The voluntary RTB is not held back: the contrast to [15.22]."""
    game = Game(silent_war, [])
    sub = patrolling(game)
    game.call("voluntary_rtb", sub=sub)
    before = where(sub)
    game.call("unit_transit_movement", sub=sub)
    assert where(sub) != before


# ---- [14.17] Note: a face-down target that proves unhittable: automatic miss, counterattack ----


def calls(game: Game, procedure: str) -> list[Any]:
    return [e for e in game.events("call") if e.procedure == procedure]


def face_down_target_round(silent_war: Checked, dice: list[int], target_revealed: bool) -> Game:
    """Spearfish (attack 6, tactical set to 1) in column B, torpedo +2, one TDC marker of 0.
    On the display: "Big", defense 9 and ASW 1, in column B, and a face-down 2-1 "Decoy" in
    column A, turned up by the one reveal [14.13] (ASW 0). The TDC goes on Big and all 6
    attack points too [14.15]. Attack 6 + 2 = 8; Big's value 9 + 1 (its own ASW, once it is
    face up) + 0 = 10: 8 - 10 < 0, Big cannot be hit [14.16 C]."""
    game = Game(silent_war, dice, column=["B"], to_reveal=["Decoy"], target=["Big"], give=[6])
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=1)
    b, a = game.v("column", "B"), game.v("column", "A")
    big = game.call(
        "unit",
        name="Big",
        type="CA",
        tonnage=10,
        defense=9,
        asw=1,
        column=b,
        revealed=target_revealed,
    )
    decoy = game.call("unit", name="Decoy", tonnage=2, defense=1, asw=0, column=a)
    game.set(display=(big, decoy), combatants=(sub,), tdc_pool=(0,), torpedo=2)
    assert sub.attrs["attack"] == 6
    game.call("combat_round", sub=sub)
    return game


def test_face_down_target_that_cannot_be_hit_is_a_miss_and_a_counterattack_14_17(
    silent_war: Checked,
) -> None:
    """[14.17] Note: "Unrevealed units with TDC markers are considered to have a defense of
    '1' until revealed. If attacked, and it is determined that the target cannot be hit, the
    attack goes through with an automatic miss, followed by a counterattack." Big is face
    down when the points are allocated; turned up [14.15] it cannot be hit: no to-hit die is
    thrown for it, and the Counterattack Round [14.2] follows, though this is the first
    attack round and no attack could succeed (the Note, not [14.17 A])."""
    game = face_down_target_round(silent_war, [0, 0], target_revealed=False)
    assert len(calls(game, "attack")) == 1
    assert [e for e in game.events("roll") if e.rule.startswith("14.16")] == []
    assert len(calls(game, "counterattack")) == 1, "the automatic miss is followed by one"
    assert game.events("total", name="japanese_value")


def test_a_revealed_target_that_cannot_be_hit_brings_no_counterattack_14_17_a(
    silent_war: Checked,
) -> None:
    """[14.17] "A. If no successful attack can be made in the first attack round, there is no
    Counterattack [14.2]." Big face up before the points are allocated: the player knew."""
    game = face_down_target_round(silent_war, [0, 0], target_revealed=True)
    assert calls(game, "counterattack") == []


# ---- [15.26] out of range: "is damaged", through the damage rules [18.12]/[18.13] -------------


def out_of_range(game: Game, damage: int) -> Any:
    """Spearfish at sea on patrol with `damage` Damage markers, its range one less than the
    distance to the nearest active Base (the map is not printed: the distance is read from
    the rulebook's map)."""
    sub = game.sub_at_sea("Spearfish", "Marshalls")
    far = game.call("range_from_bases", a=game.v("area", "Marshalls"))
    assert far >= 2
    sub.attrs["range"] = far - 1
    sub.attrs["damage"] = damage
    assert game.call("in_range", sub=sub, a=sub.attrs["area"]) is False
    return sub


def test_out_of_range_with_two_damage_markers_is_sunk_15_26_18_13(silent_war: Checked) -> None:
    """[15.26] "A submarine that is discovered to be out of range of a base is damaged and
    must RTB to the nearest base at a speed one less than its printed speed". [18.13] "Should
    a submarine receive a third Damage marker, it is sunk. Advance the Submarines Sunk marker
    by one (1)." A boat with two Damage markers found out of range does not survive."""
    game = Game(silent_war, [])
    sub = out_of_range(game, damage=2)
    lost = game.state["subs_lost"]
    game.call("beyond_range", sub=sub)
    assert str(sub.attrs["status"]) == "sunk"
    assert game.state["subs_lost"] == lost + 1


def test_out_of_range_second_marker_rolls_against_defense_15_26_18_12(
    silent_war: Checked,
) -> None:
    """[18.12] "Should a submarine receive a second Damage marker, a die is rolled: If the die
    result is > the Defense rating of the submarine, it is sunk. ... If the sub is not sunk,
    place a second Damage marker on the sub." Spearfish's Defense is 3 ([14.2] example: "3
    submarine defense points"): a 9 sinks it, a 3 does not."""
    game = Game(silent_war, [9])
    sub = out_of_range(game, damage=1)
    assert sub.attrs["defense"] == 3
    game.call("beyond_range", sub=sub)
    assert str(sub.attrs["status"]) == "sunk"
    game = Game(silent_war, [3])
    sub = out_of_range(game, damage=1)
    game.call("beyond_range", sub=sub)
    assert str(sub.attrs["status"]) == "active" and sub.attrs["damage"] == 2
    assert str(sub.attrs["rtb"]) == "involuntary" and sub.attrs["beyond_range"] is True
    assert game.dice_left() == 0


def test_out_of_range_undamaged_boat_gets_one_marker_15_26(silent_war: Checked) -> None:
    """[15.26] "is damaged": an undamaged boat receives one Damage marker [18.1], no die."""
    game = Game(silent_war, [])
    sub = out_of_range(game, damage=0)
    game.call("beyond_range", sub=sub)
    assert str(sub.attrs["status"]) == "active" and sub.attrs["damage"] == 1


# ---- [19.21 #2] Premature Detonation: its counterattack, +1 ASW, even with no ASW revealed -----


def detonation_round(
    silent_war: Checked, dice: list[int], maru_asw: int, maru_defense: int = 2
) -> Game:
    """Spearfish (attack 6, defense 3, tactical set to 1, no Super Skipper) in column B turns
    up a Combat Event chit in [14.13]; the only other piece is a revealed 2-x Maru, whose
    ASW is `maru_asw`; the torpedo is at +2, two TDC markers of 0 in the pool."""
    game = Game(silent_war, dice, column=["B"], target=["Maru"])
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=1)
    game.set(
        display=(
            unit(game, name="Chit", revealed=False, event=True, tonnage=0),
            unit(game, name="Maru", tonnage=4, defense=maru_defense, asw=maru_asw),
        ),
        combatants=(sub,),
        tdc_pool=(0, 0),
        torpedo=2,
    )
    game.call("combat_round", sub=sub)
    return game


def test_premature_detonation_counterattack_with_no_asw_revealed_19_21_2(
    silent_war: Checked,
) -> None:
    """[19.21] 2, Torpedo Malfunction, "5 — Premature Detonation: ... Roll a d10 die. If the
    die roll is zero (0), the submarine is sunk, if the roll is = or > the submarine's printed
    defense value the submarine is damaged, otherwise no effect. ... If not sunk, conduct the
    Counterattack round, adding one (1) to the ASW value (the detonation aids in localizing
    the submarine)." [19.2] "The results of the Event supercede the rules in all cases": the
    [14.2] Note ("If all revealed units only have a zero (0) ASW value, there is no
    Counterattack") does not cancel it. Dice: the event 2, the malfunction 5, the detonation
    1 (not 0, below Defense 3: no effect), the TDC draw, the attack on the Maru (halved: 3
    points, (3 + 2) - (2 + 0 + 0) = 3; 9 misses), the counterattack."""
    game = detonation_round(silent_war, [2, 5, 1, 1, 9, 0], maru_asw=0)
    sub = game.state["combatants"][0]
    assert str(sub.attrs["status"]) == "active" and sub.attrs["damage"] == 0
    assert len(calls(game, "attack")) == 1
    assert len(calls(game, "counterattack")) == 1
    (japanese,) = game.events("total", name="japanese_value")
    assert any(t.rule == "19.21 #2" and t.value == 1 for t in japanese.terms)
    assert game.dice_left() == 0


def test_premature_detonation_adds_one_to_the_asw_value_19_21_2(silent_war: Checked) -> None:
    """The same with the Maru's ASW 1: the Japanese value has the revealed ASW 1 and the
    event's +1 [19.21 #2], one more than the same counterattack without the event."""
    game = detonation_round(silent_war, [2, 5, 1, 1, 9, 0], maru_asw=1)
    (japanese,) = game.events("total", name="japanese_value")
    plain = Game(silent_war, [0])
    sub = plain.sub_at_sea("Spearfish", "East China Sea")
    plain.set(display=(unit(plain, name="Maru", tonnage=4, defense=2, asw=1),), combatants=(sub,))
    plain.call("counterattack", sub=sub)
    (without,) = plain.events("total", name="japanese_value")
    assert japanese.total == without.total + 1


def test_premature_detonation_counterattack_when_no_attack_could_hit_19_21_2(
    silent_war: Checked,
) -> None:
    """[19.21 #2] Premature Detonation: "If not sunk, conduct the Counterattack round": the
    event supersedes [14.17 A] ("If no successful attack can be made in the first attack
    round, there is no Counterattack") [19.2]. The Maru's defense 6 is out of reach of the
    halved attack ((3 + 2) - (6 + 1 + 0) < 0): no to-hit die, the counterattack follows.
    Dice: the event 2, the malfunction 5, the detonation 1, the TDC draw, the counterattack."""
    game = detonation_round(silent_war, [2, 5, 1, 1, 0], maru_asw=1, maru_defense=6)
    assert [e for e in game.events("roll") if e.rule == "14.16 C"] == []
    assert len(calls(game, "counterattack")) == 1
    assert game.dice_left() == 0


# ---- worked examples: [12.1] the SMZ example, [17.1] "November, 1942 for example" ------------


def red_start(area: str, war_period: str) -> int:
    """Where the red boxes start on an OpArea's Area Activity Chart line (the charts are not
    printed in the rules: read from the rulebook's chart through the public API)."""
    row = silent_war_book().lookup("area_activity", at={"area": area, "war_period": war_period})
    boxes = [str(b) for b in row.value]
    return boxes.index("red")


def test_smz_example_reads_the_solomons_chart_twice_12_1(silent_war: Checked) -> None:
    """[12.1] Example: "A Special Mission Event has occurred for a Guadalcanal Patrol. A
    submarine on patrol in the Coral Sea may Patrol Move to the Solomons (roll for transit
    event), and then enter the Guadalcanal Special Mission Zone for no additional cost, also
    rolling for a Transit Event using the Solomons Area Activity Chart." [19.1] "For Patrol
    Movement, use the OpArea the submarine has moved into"; "If the die roll is = or > the
    number at which red results start, the player has encountered a Transit Event. The player
    now rolls again twice on the Transit Event Table". [20.3] +2 entering an SMZ.

    The dice are chosen where the two charts part: a natural roll that reaches the Solomons'
    red boxes but not the Coral Sea's. Both checks must find a Transit Event (two more rolls
    each, 0 and 0), read on the Solomons chart; on the Coral Sea's neither would."""
    wp = "WP2"
    solomons, coral = red_start("Solomons", wp), red_start("Coral Sea", wp)
    assert solomons < coral, "the charts do not tell the two OpAreas apart in this War Period"
    first = solomons  # patrol movement: no drm for a Patrol side boat [19.1]
    second = solomons - 2  # +2 entering a Special Mission Zone [20.3]
    game = Game(silent_war, [first, 0, 0, second, 0, 0], move_to=["Solomons"], zone=["Guadalcanal"])
    game.set(war_period=wp, active_smzs=[game.v("smz", "Guadalcanal")])
    sub = game.sub_at_sea("Spearfish", "Coral Sea", section=game.v("section", "operating"))
    game.call("unit_patrol_movement", sub=sub)  # the Patrol Movement Phase of the sequence
    assert str(sub.attrs["area"]) == "Solomons" and str(sub.attrs["smz"]) == "Guadalcanal"
    checks = [e for e in game.events("roll") if e.rule == "19.1"]
    assert [c.total for c in checks] == [first, 0, 0, second + 2, 0, 0]
    assert len(game.events("lookup", table="transit_event_table")) == 2
    assert game.dice_left() == 0


def test_smz_example_no_event_below_the_solomons_red_boxes_12_1(silent_war: Checked) -> None:
    """The same move, each check one short of the Solomons' red boxes: no Transit Event, no
    further roll (whatever the Coral Sea's chart says)."""
    wp = "WP2"
    solomons = red_start("Solomons", wp)
    game = Game(
        silent_war, [solomons - 1, solomons - 3], move_to=["Solomons"], zone=["Guadalcanal"]
    )
    game.set(war_period=wp, active_smzs=[game.v("smz", "Guadalcanal")])
    sub = game.sub_at_sea("Spearfish", "Coral Sea", section=game.v("section", "operating"))
    game.call("unit_patrol_movement", sub=sub)
    assert str(sub.attrs["smz"]) == "Guadalcanal"
    assert game.events("lookup", table="transit_event_table") == []
    assert game.dice_left() == 0


def end_turn(game: Game) -> None:
    """The End Turn Segment [4.0 IV]: Conclude Turn [16.0], then War Progress [17.0]."""
    game.call("conclude_turn_phase")
    game.call("war_progress_phase")


def test_war_period_advances_automatically_after_november_1942_17_1(silent_war: Checked) -> None:
    """[17.1] "If the War Period has not advanced by the time all numbers for transition have
    been attempted (November, 1942 for example), the War Period advances automatically."
    [17.0] "At the end of the fourth week of months marked with numbers in their boxes ... the
    player must determine if the War Period advances." War Period 1, the fourth week of
    November 1942 ends, the roll (a natural 0, no box is 0 or less) fails: War Period 2."""
    game = Game(silent_war, [0])
    game.set(year=1942, month="Nov", week=4, war_period="WP1", ships_sunk=60, tonnage_sunk=250)
    wp2 = game.v("war_period", "WP2")
    assert game.call("transition_number", to=wp2) is not None  # November 1942 has a box
    end_turn(game)
    assert (str(game.state["month"]), game.state["year"]) == ("Dec", 1942)
    assert str(game.state["war_period"]) == "WP2"


def test_no_automatic_advance_before_the_last_box_17_1(silent_war: Checked) -> None:
    """The fourth week of October 1942 (a box before November's) ends with a failed roll:
    another attempt may be made next month [17.0 C]; the War Period stays 1."""
    game = Game(silent_war, [0])
    game.set(year=1942, month="Oct", week=4, war_period="WP1", ships_sunk=60, tonnage_sunk=250)
    end_turn(game)
    assert (str(game.state["month"]), game.state["year"]) == ("Nov", 1942)
    assert str(game.state["war_period"]) == "WP1"


def test_automatic_advance_even_below_the_minimum_totals_17_1(silent_war: Checked) -> None:
    """[17.0 A] "If Ships & Tonnage Sunk totals are not = or > the minimum values listed, the
    War Period automatically fails to advance" at that attempt; [17.1] once all numbers have
    been attempted (November 1942), it advances automatically all the same."""
    game = Game(silent_war, [])
    game.set(year=1942, month="Nov", week=4, war_period="WP1", ships_sunk=0, tonnage_sunk=0)
    end_turn(game)
    assert str(game.state["war_period"]) == "WP2"


# ---- [25.3] Super Skippers: the player picks among the boats next in line; none is lost -------

JANUARY_1944 = ["Redfin", "Angler", "Flasher", "Robalo", "Tang", "Jack", "Tambor"]


def freed_skipper(game: Game, boat: str, skipper: str) -> Any:
    """A boat at Brisbane with a +2 Super Skipper, withdrawn from active service [25.3]."""
    sub = game.call("start_at_base", name=boat, at=game.v("base", "Brisbane"))
    sub.attrs.update(skipper=2, skipper_name=skipper)
    sub.attrs["status"] = game.v("sub_status", "withdrawn")
    return sub


def january_1944(game: Game) -> dict[str, tuple[int, Any]]:
    """The January 1944 reinforcements arrive [8.0]; each new boat's Super Skipper."""
    game.set(year=1944, month="Jan", week=1)
    game.call("reinforcement_phase")
    return {
        s.attrs["name"]: (s.attrs["skipper"], s.attrs["skipper_name"])
        for s in game.state["subs"]
        if s.attrs["name"] in JANUARY_1944
    }


def test_the_player_chooses_among_the_boats_next_in_line_25_3(silent_war: Checked) -> None:
    """[25.3] "If the result is 5-9, he may be assigned at the +1 level to any submarine
    currently in a Repair Box, or any submarine next in line to be received as a
    reinforcement". Example: "In December 1943, S-42 with +2 Whitaker is withdrawn from
    active service. The player rolls a die and gets an 8. The player may reassign +1 Whitaker
    to any sub that is in a Repair Box, or to Redfin, Angler, Flasher, Robalo, Tang, Jack, or
    Tambor which will be received in January of 1944." The player picks Tang: Tang, not the
    first boat to arrive, has +1 Whitaker. (Tambor, a 1940 boat, is received back from an
    overhaul: it is put in the U.S. West Coast Box [8.0].)"""
    game = Game(silent_war, [8], new_boat="Tang")
    game.set(year=1943, month="Dec")
    tambor = game.call("start_at_base", name="Tambor", at=game.v("base", "Pearl Harbor"))
    tambor.attrs["box"] = game.v("base_box", "U.S. West Coast")
    s42 = freed_skipper(game, "S-42", "Whitaker")
    game.call("reassign_skipper", sub=s42)
    (asked,) = game.events("decision", name="new_boat")
    assert set(JANUARY_1944) <= {str(o) for o in asked.options}
    skippers = january_1944(game)
    assert skippers["Tang"] == (1, "Whitaker")
    assert skippers["Redfin"] == (0, None)


def test_a_second_freed_skipper_waits_as_well_25_3(silent_war: Checked) -> None:
    """Two Super Skippers freed in December 1943 ([25.3]: each rolls, 8 and 9), both for the
    boats next in line: Whitaker to Redfin, Morton to Angler. Neither overwrites the other:
    in January 1944 both boats have their +1 skipper."""
    game = Game(silent_war, [8, 9], new_boat=["Redfin", "Angler"])
    game.set(year=1943, month="Dec")
    for boat, skipper in (("S-42", "Whitaker"), ("S-44", "Morton")):
        game.call("reassign_skipper", sub=freed_skipper(game, boat, skipper))
    skippers = january_1944(game)
    assert skippers["Redfin"] == (1, "Whitaker")
    assert skippers["Angler"] == (1, "Morton")


def test_freed_skippers_by_default_none_is_lost_25_3(silent_war: Checked) -> None:
    """The same two skippers with the rulebook's default answers: each joins a different
    January 1944 boat; none is overwritten or lost."""
    game = Game(silent_war, [8, 9])
    game.set(year=1943, month="Dec")
    for boat, skipper in (("S-42", "Whitaker"), ("S-44", "Morton")):
        game.call("reassign_skipper", sub=freed_skipper(game, boat, skipper))
    skippers = january_1944(game)
    assigned = sorted(str(name) for level, name in skippers.values() if level == 1)
    assert assigned == ["Morton", "Whitaker"]


# ---- [3.11] / [2.3 B2] named pieces chosen and distributed at random ---------------------------

CARRIERS = {"Akagi", "Kaga", "Hiryu", "Shokaku"}  # [2.3 B2], without the dated Shinano, Taiho


def sorted_war_mix(silent_war: Checked, seed: int, war_period: str = "WP1") -> Game:
    """The War Mix sorted for a War Period [3.11] on seeded dice."""
    game = Game(silent_war, [])
    game.interp.dice = SeededDice(seed)
    game.set(war_period=war_period, year=1942, month="Jan")
    game.call("sort_war_mix")
    return game


def pieces(game: Game) -> list[Any]:
    return list(game.call("war_mix_pieces"))


def test_named_carriers_are_chosen_at_random_3_11_2_3_b2(silent_war: Checked) -> None:
    """[3.11] "Choose the columns for the War Period noted in the scenario and sort the
    Japanese pieces into each cup as per the Table. If a ship category (such as M 6t or more)
    has different types of pieces, choose and distribute them randomly into the cups."
    [2.3 B2] "Some specific named Japanese ships are provided. These are carriers Akagi, Kaga,
    Hiryu, Shokaku, Shinano, and Taiho". The CV category has four pieces before the dated
    ones enter: which of them is in the War Mix is chosen at random, so over seeds each of
    Akagi, Kaga, Hiryu and Shokaku appears."""
    seen: set[str] = set()
    for seed in range(40):
        game = sorted_war_mix(silent_war, seed)
        seen |= {u.attrs["name"] for u in pieces(game) if u.attrs["name"] in CARRIERS}
    assert seen == CARRIERS


def test_named_pieces_are_distributed_at_random_into_the_cups_3_11(silent_war: Checked) -> None:
    """[3.11] "choose and distribute them randomly into the cups": a named piece of a category
    the Table spreads over several cups (Izumo, Asahi, Akashi are "M 6t or more" pieces,
    [2.3 B2]) is not always in the same cup."""
    cups: dict[str, set[str]] = {}
    for seed in range(40):
        game = sorted_war_mix(silent_war, seed)
        for u in pieces(game):
            if u.attrs["name"] in ("Izumo", "Asahi", "Akashi"):
                cups.setdefault(u.attrs["name"], set()).add(str(u.attrs["cup"]))
    assert cups and all(len(c) > 1 for c in cups.values()), cups


def test_a_sunk_carrier_is_replaced_by_another_named_carrier_2_3_b2(silent_war: Checked) -> None:
    """[2.3 B2] "If sunk, these ships are permanently removed from play." Its category is
    still on the War Mix Table: at the next sort [3.15] another carrier piece fills it (only
    hospital ships and auxiliaries are replaced by unnamed pieces). Over seeds, with Akagi
    sunk, Kaga, Hiryu and Shokaku all appear, Akagi never."""
    seen: set[str] = set()
    for seed in range(30):
        game = sorted_war_mix(silent_war, seed)
        akagi = next(
            (u for u in pieces(game) if u.attrs["name"] == "Akagi"),
            None,
        )
        if akagi is None:
            game.interp.dice = SeededDice(1000 + seed)
            game.call("sort_war_mix")
            akagi = next((u for u in pieces(game) if u.attrs["name"] == "Akagi"), None)
        if akagi is None:
            continue
        game.call("remove_from_cup", piece=akagi)
        game.call("piece_removed", u=akagi)
        game.set(war_period="WP2")
        game.call("sort_war_mix")
        names = {u.attrs["name"] for u in pieces(game)}
        assert "Akagi" not in names
        seen |= names & CARRIERS
    assert seen == CARRIERS - {"Akagi"}
