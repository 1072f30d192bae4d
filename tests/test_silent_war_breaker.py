"""Silent War 2.1: an outside tester's edge cases for the fixes of [15.22], [14.17] Note,
[15.26], [19.21 #2] and the worked examples [12.1] and [17.1].

Every expectation is read from the rules text (../shared/seeds/000_0b28bf2899953500.txt); the
words each test rests on are quoted in its docstring. Tests marked xfail(strict) document a
deviation of the rulebook from the text (the reason names the rule and the .rk lines).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_silent_war_combat_fidelity import EVENT, calls, col, notes
from test_silent_war_rules import Game, unit

from rulekit.book.checker import Checked
from rulekit.engine.values import Entity


def where(sub: Entity) -> tuple[str, str, str, str]:
    """(area, section, side, rtb marker) of a submarine at sea."""
    a = sub.attrs
    return (str(a["area"]), str(a["section"]), str(a["side"]), str(a["rtb"]))


def moved(sub: Entity, area: str) -> bool:
    """The boat left `area` (for another OpArea or a Base's box)."""
    return str(sub.attrs["area"]) != area or sub.attrs["base"] is not None


def operating(game: Game, name: str, area: str, **attrs: Any) -> Entity:
    """A boat in the Operating section, as after the Prep for Operations Phase [11.0]."""
    return game.sub_at_sea(name, area, section=game.v("section", "operating"), **attrs)


# ---- [15.22] an involuntary RTB waits in the Done section until the next turn -----------------


def test_endurance_failure_waits_then_moves_next_turn_15_22(silent_war: Checked) -> None:
    """[14.7] "If the result is > the number indicated, the submarine involuntarily RTBs
    [15.22]. Place an involuntary RTB marker on it and move it to the "Done" section";
    [15.22] "is moved to the "Done" section of the appropriate OpArea"; [11.0] next turn
    "All submarines at sea are moved from the "Done" section ... to the "Operating" section",
    and [15.0] a boat "on their Transit side (including those with an RTB marker) in an
    Operating section of an OpArea can move". A 9 +1 (Damaged) fails any Endurance number."""
    game = Game(silent_war, [9] + [0] * 8)
    sub = operating(game, "Spearfish", "East China Sea", damage=1)
    game.call("endurance_check", sub=sub)
    assert where(sub) == ("East China Sea", "done", "transit", "involuntary")
    game.call("transit_movement", sub=sub)  # the same turn: it waits
    assert where(sub) == ("East China Sea", "done", "transit", "involuntary")
    game.call("prep_phase")
    game.call("transit_movement", sub=sub)  # the next turn: it goes
    assert moved(sub, "East China Sea")


def test_counterattack_rtb_waits_this_turn_15_22(silent_war: Checked) -> None:
    """[15.22] "An involuntary RTB from a Combat result ... forces the submarine to enter RTB
    immediately. It remains on, or is flipped to its Transit side, receives an involuntary RTB
    marker, and is moved to the "Done" section of the appropriate OpArea." """
    game = Game(silent_war, [0] * 8)
    sub = operating(game, "Spearfish", "East China Sea")
    game.call(
        "apply_counterattack", sub=sub, result=game.v("counterattack_result", "Damaged + RTB")
    )
    assert where(sub) == ("East China Sea", "done", "transit", "involuntary")
    game.call("transit_movement", sub=sub)
    assert where(sub) == ("East China Sea", "done", "transit", "involuntary")
    assert sub.attrs["damage"] == 1


def test_transit_event_rtb_after_patrol_move_waits_12_0_15_22(silent_war: Checked) -> None:
    """[12.0] "A roll is made for a Transit Event (see [19.1]). If an RTB result is obtained,
    place an involuntary RTB marker [15.22] on it ... and place it in the "Done" section";
    [15.22] "An involuntary RTB from ... a Transit Event" waits for the next turn."""
    game = Game(silent_war, [0] * 8)
    sub = operating(game, "Spearfish", "East China Sea")
    game.call(
        "apply_transit_event",
        sub=sub,
        result=game.v("transit_result", "RTB"),
        governing=game.v("area", "East China Sea"),
    )
    assert where(sub) == ("East China Sea", "done", "transit", "involuntary")
    game.call("transit_movement", sub=sub)
    assert where(sub) == ("East China Sea", "done", "transit", "involuntary")


def test_mechanical_troubles_rtb_waits_this_turn_19_21_4(silent_war: Checked) -> None:
    """[19.21 #4] "If an odd result, place a Damage marker and an RTB marker on the submarine
    and it involuntarily RTBs [15.22]." -- a Combat result, so it waits in "Done" [15.22].
    Dice: the event 4, the odd 1."""
    game = Game(silent_war, [4, 1] + [0] * 8, column=["B"])
    sub = operating(game, "Spearfish", "East China Sea", tactical=1)
    game.set(
        display=(
            unit(game, name="Chit", revealed=False, **EVENT),
            unit(game, name="Maru", tonnage=4, defense=2, asw=1),
        ),
        combatants=(sub,),
        tdc_pool=(0, 0),
    )
    game.call("combat_round", sub=sub)
    assert sub.attrs["damage"] == 1
    assert where(sub) == ("East China Sea", "done", "transit", "involuntary")
    game.call("transit_movement", sub=sub)
    assert where(sub) == ("East China Sea", "done", "transit", "involuntary")


def test_voluntary_rtb_moves_the_same_turn_15_21(silent_war: Checked) -> None:
    """[15.21] "Flip the submarine to its Transit side, place a voluntary RTB marker on it and
    perform its Transit move." -- this turn, unlike [15.22]."""
    game = Game(silent_war, [0] * 8)
    sub = operating(game, "Spearfish", "East China Sea")
    game.call("voluntary_rtb", sub=sub)
    assert str(sub.attrs["rtb"]) == "voluntary"
    game.call("transit_movement", sub=sub)
    assert moved(sub, "East China Sea")


def test_smz_boat_in_done_after_combat_still_rtbs_this_turn_20_5(silent_war: Checked) -> None:
    """[15.21] "Submarines in an SMZ also voluntarily RTB, even if they performed Search &
    Contact and Combat this turn." [20.5] "These submarines must conduct voluntary RTB
    movement [15.21] in the Transit Movement Phase of the current turn." A boat in the
    Guadalcanal zone, its combat over (in the "Done" section), moves home this turn."""
    game = Game(silent_war, [0] * 8)
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = game.sub_at_sea("Spearfish", "Solomons", smz=game.v("smz", "Guadalcanal"))
    assert str(sub.attrs["section"]) == "done"
    game.call("unit_transit_movement", sub=sub)
    assert calls(game, "voluntary_rtb")
    assert sub.attrs["smz"] is None and moved(sub, "Solomons")


def test_wolfpack_member_failing_endurance_waits_15_22_24_41(silent_war: Checked) -> None:
    """[24.14] "If the Wolfpack falls below three members due to ... a member failing its
    Endurance check, the pack is disbanded immediately"; the member "involuntarily RTBs
    [15.22]" [14.7] and so waits in "Done" this turn, even moved as (a former) pack unit."""
    game = Game(silent_war, [9] + [0] * 12)
    boats = [
        operating(game, n, "East China Sea", wolfpack=1) for n in ("Tautog", "Thresher", "Gudgeon")
    ]
    tautog = boats[0]
    tautog.attrs["damage"] = 1
    game.call("endurance_check", sub=tautog)
    game.call("left_the_pack", mates=tuple(boats))
    assert str(tautog.attrs["rtb"]) == "involuntary"
    game.call("unit_transit_movement", sub=tautog)
    assert where(tautog) == ("East China Sea", "done", "transit", "involuntary")


def test_withdrawn_boat_already_in_rtb_moves_this_turn_15_22(silent_war: Checked) -> None:
    """[15.22] "A submarine forced to RTB because it is being withdrawn that is at another
    base or that already has an RTB marker may perform its Transit move this turn." """
    game = Game(silent_war, [0] * 8)
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    boat = operating(game, "Gudgeon", "Marshalls", side=game.v("side", "transit"))
    boat.attrs["rtb"] = game.v("rtb_marker", "voluntary")
    game.call("withdraw_for_overhaul", name="Gudgeon")
    game.call("transit_movement", sub=boat)
    assert moved(boat, "Marshalls")


# ---- [14.17] Note: a face-down target that proves unhittable ---------------------------------


def face_down_game(
    silent_war: Checked, dice: list[int], big: dict[str, Any], **set_: Any
) -> tuple[Game, Entity]:
    """Spearfish (attack 6, tactical 1) reveals a decoy [14.13], puts its one TDC marker and
    all 6 points on a face-down piece "Big" in its column [14.14]-[14.15]; Big is turned up
    only then. Torpedo 0."""
    game = Game(silent_war, dice, column=["B"], to_reveal=["Decoy"], target=["Big"], give=[6])
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=1)
    b = col(game, "B")
    game.set(
        display=(
            unit(game, name="Big", column=b, revealed=False, **big),
            unit(game, name="Decoy", column=col(game, "A"), revealed=False, tonnage=2, asw=1),
        ),
        combatants=(sub,),
        tdc_pool=(0,),
        torpedo=0,
        **set_,
    )
    game.call("combat_round", sub=sub)
    return game, sub


def test_face_down_target_unhittable_is_a_miss_then_counterattack_14_17(
    silent_war: Checked,
) -> None:
    """[14.17] Note: "Unrevealed units with TDC markers are considered to have a defense of
    '1' until revealed. If attacked, and it is determined that the target cannot be hit, the
    attack goes through with an automatic miss, followed by a counterattack." -- in the
    first round too, where [14.17 A] alone would give no counterattack. Big turns out a 9
    defense: 6 - (9 + 1 + 0) < 0. No to-hit die; the counterattack die 0."""
    game, _ = face_down_game(silent_war, [0], {"tonnage": 4, "defense": 9, "asw": 0})
    assert len(calls(game, "attack")) == 1
    assert [e for e in game.events("roll") if e.rule == "14.16 C"] == []
    assert len(calls(game, "counterattack")) == 1
    assert game.dice_left() == 0


def test_face_down_target_made_unhittable_by_a_storm_14_17(silent_war: Checked) -> None:
    """[14.16 A4] "If in a Tropical Storm, subtract one (1) from the submarine's attack
    value"; the Note of [14.17]: "the attack goes through with an automatic miss, followed by
    a counterattack". 6 - 1 (storm) = 5 against Big's 5 + 1 (Decoy's ASW) = 6: cannot hit
    (clear weather it could: 6 - 6 = 0)."""
    game = Game(silent_war)
    storm = game.interp.call(
        "storm",
        {
            "area": game.v("area", "East China Sea"),
            "level": game.v("storm_level", "Tropical Storm"),
        },
    )
    game, _ = face_down_game(
        silent_war, [0], {"tonnage": 4, "defense": 5, "asw": 0}, storms=(storm,)
    )
    assert [e for e in game.events("roll") if e.rule == "14.16 C"] == []
    assert len(calls(game, "counterattack")) == 1


def test_face_down_target_hittable_is_rolled_normally_14_16(silent_war: Checked) -> None:
    """[14.16 C] "If the result is zero (0) or more, roll a die": Big is a 2 defense,
    6 - (2 + 1) = 3: rolled (9, a miss), then the counterattack (0) [14.2]."""
    game, _ = face_down_game(silent_war, [9, 0], {"tonnage": 4, "defense": 2, "asw": 0})
    assert len([e for e in game.events("roll") if e.rule == "14.16 C"]) == 1
    assert len(calls(game, "counterattack")) == 1
    assert game.dice_left() == 0


# ---- [15.26] out of range: damage through [18.12]/[18.13] -------------------------------------


def out_of_range(silent_war: Checked, dice: list[int], damage: int) -> tuple[Game, Entity]:
    game = Game(silent_war, dice)
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    sub = game.sub_at_sea("Spearfish", "Java Sea", damage=damage)  # Defense 3
    game.call("beyond_range", sub=sub)
    return game, sub


def test_out_of_range_undamaged_takes_one_marker_15_26(silent_war: Checked) -> None:
    """[15.26] "A submarine that is discovered to be out of range of a base is damaged and
    must RTB to the nearest base"."""
    game, sub = out_of_range(silent_war, [], 0)
    assert sub.attrs["damage"] == 1 and str(sub.attrs["rtb"]) == "involuntary"
    assert game.dice_left() == 0


@pytest.mark.parametrize(("die", "sunk"), [(3, False), (4, True)])
def test_out_of_range_second_marker_rolls_against_defense_15_26_18_12(
    silent_war: Checked, die: int, sunk: bool
) -> None:
    """[18.12] "Should a submarine receive a second Damage marker, a die is rolled: If the die
    result is > the Defense rating of the submarine, it is sunk. Advance the Submarines Sunk
    marker by one (1). If the sub is not sunk, place a second Damage marker"."""
    game, sub = out_of_range(silent_war, [die], 1)
    assert (str(sub.attrs["status"]) == "sunk") is sunk
    assert game.state["subs_lost"] == (1 if sunk else 0)
    if not sunk:
        assert sub.attrs["damage"] == 2 and str(sub.attrs["rtb"]) == "involuntary"


def test_out_of_range_third_marker_sinks_15_26_18_13(silent_war: Checked) -> None:
    """[18.13] "Should a submarine receive a third Damage marker, it is sunk. Advance the
    Submarines Sunk marker by one (1)." No die."""
    game, sub = out_of_range(silent_war, [], 2)
    assert str(sub.attrs["status"]) == "sunk" and game.state["subs_lost"] == 1
    assert game.dice_left() == 0
    assert sub.attrs["rtb"] is None  # a lost boat goes home no more


@pytest.mark.parametrize("speed", [2, 1])
def test_out_of_range_moves_one_less_never_below_one_15_26(silent_war: Checked, speed: int) -> None:
    """[15.26] "must RTB to the nearest base at a speed one less than its printed speed
    (never less than one)": one OpArea nearer Pearl Harbor per turn at printed speed 2, and
    at printed speed 1 too."""
    game = Game(silent_war, [0] * 12)
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    sub = game.sub_at_sea("Spearfish", "Java Sea", speed=speed)
    game.call("beyond_range", sub=sub)
    before = game.call("range_from_bases", a=sub.attrs["area"])
    game.call("prep_phase")
    game.call("transit_movement", sub=sub)
    after = game.call("range_from_bases", a=sub.attrs["area"])
    assert before - after == 1


# ---- [19.21 #2] Premature Detonation ------------------------------------------------------------


def premature(
    silent_war: Checked, dice: list[int], asw: int = 0, defense: int = 2, **attrs: Any
) -> tuple[Game, Entity]:
    """Spearfish (6-3-4, tactical 1) reveals the Combat Event chit [14.13]: event 2, malfunction
    5 (Premature Detonation), then its d10; a revealed 2-0 Maru (the given ASW) is the
    target; torpedo +2."""
    game = Game(silent_war, dice, column=["B"])
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=1, **attrs)
    game.set(
        display=(
            unit(game, name="Chit", revealed=False, **EVENT),
            unit(game, name="Maru", tonnage=4, defense=defense, asw=asw),
        ),
        combatants=(sub,),
        tdc_pool=(0, 0),
        torpedo=2,
    )
    game.call("combat_round", sub=sub)
    return game, sub


def japanese_terms(game: Game) -> list[tuple[int, str]]:
    (total,) = game.events("total", name="japanese_value")
    return [(t.value, t.rule) for t in total.terms]


def test_premature_counterattack_against_zero_asw_19_21_2(silent_war: Checked) -> None:
    """[19.21 #2] "If not sunk, conduct the Counterattack round, adding one (1) to the ASW
    value"; [19.2] "The results of the Event supercede the rules in all cases" -- over [14.2]
    "If all revealed units only have a zero (0) ASW value, there is no Counterattack".
    Dice: 2, 5, the detonation 1 (no effect), the TDC draw, the attack 9 (miss), counter 0."""
    game, _ = premature(silent_war, [2, 5, 1, 1, 9, 0], asw=0)
    assert len(calls(game, "counterattack")) == 1
    assert (1, "19.21 #2") in japanese_terms(game)
    assert game.dice_left() == 0


def test_premature_adds_one_to_a_nonzero_asw_19_21_2(silent_war: Checked) -> None:
    """[19.21 #2] "adding one (1) to the ASW value": the Japanese total is one more than the
    same counterattack without the event (a plain counterattack on the same display)."""
    game, _ = premature(silent_war, [2, 5, 1, 1, 9, 0], asw=1)
    with_event = game.events("total", name="japanese_value")[0].total
    plain = Game(silent_war, [0])
    boat = plain.sub_at_sea("Spearfish", "East China Sea")
    plain.set(display=(unit(plain, tonnage=4, defense=2, asw=1),))
    plain.call("counterattack", sub=boat)
    assert with_event == plain.events("total", name="japanese_value")[0].total + 1


def test_premature_zero_sinks_no_counterattack_19_21_2(silent_war: Checked) -> None:
    """[19.21 #2] "If the die roll is zero (0), the submarine is sunk" -- "If not sunk,
    conduct the Counterattack round": no counterattack for a lost boat."""
    game, sub = premature(silent_war, [2, 5, 0, 1, 9, 0])
    assert str(sub.attrs["status"]) == "sunk" and game.state["subs_lost"] == 1
    assert calls(game, "counterattack") == []


def test_premature_damage_then_counterattack_with_damage_drm_19_21_2(
    silent_war: Checked,
) -> None:
    """[19.21 #2] "if the roll is = or > the submarine's printed defense value the submarine
    is damaged" (3 >= 3), then the counterattack with "+1 drm for each damage marker"
    [14.2 C1] and the +1 ASW."""
    game, sub = premature(silent_war, [2, 5, 3, 1, 9, 0])
    assert sub.attrs["damage"] == 1 and str(sub.attrs["status"]) == "active"
    assert len(calls(game, "counterattack")) == 1
    (roll,) = [e for e in game.events("roll") if e.rule == "14.2 C"]
    assert [(t.value, t.rule) for t in roll.modifiers] == [(1, "14.2 C1")]


def test_premature_damage_on_two_markers_sinks_18_13(silent_war: Checked) -> None:
    """[18.13] "Should a submarine receive a third Damage marker, it is sunk"; then no
    counterattack ("If not sunk, conduct the Counterattack round")."""
    game, sub = premature(silent_war, [2, 5, 3, 1, 9, 0], damage=2)
    assert str(sub.attrs["status"]) == "sunk"
    assert calls(game, "counterattack") == []


def test_premature_damage_on_one_marker_rolls_18_12(silent_war: Checked) -> None:
    """[18.12] a second marker: "If the die result is > the Defense rating of the submarine,
    it is sunk" (9 > 3): no counterattack."""
    game, sub = premature(silent_war, [2, 5, 3, 9, 1, 9, 0], damage=1)
    assert str(sub.attrs["status"]) == "sunk" and game.state["subs_lost"] == 1
    assert calls(game, "counterattack") == []


def test_premature_super_skipper_drm_saves_a_natural_zero_19_21_2(silent_war: Checked) -> None:
    """[19.21 #2] "If the die roll is zero (0), the submarine is sunk ... If the submarine has
    a Super Skipper, +1 drm to the die roll": a 0 +1 is 1, neither 0 nor >= 3: no effect."""
    game, sub = premature(silent_war, [2, 5, 0, 1, 9, 0], skipper=1)
    assert str(sub.attrs["status"]) == "active" and sub.attrs["damage"] == 0
    assert len(calls(game, "counterattack")) == 1


def test_premature_counterattack_even_when_no_attack_could_hit_19_21_2(
    silent_war: Checked,
) -> None:
    """[14.17 A] "If no successful attack can be made in the first attack round, there is no
    Counterattack" -- but [19.21 #2] "If not sunk, conduct the Counterattack round" and [19.2]
    "The results of the Event supercede the rules in all cases". The Maru's defense 9: the
    halved 3 + 2 = 5 cannot reach 9 + 0. No to-hit die; the counterattack die 0."""
    game, _ = premature(silent_war, [2, 5, 1, 1, 0], asw=0, defense=9)
    assert [e for e in game.events("roll") if e.rule == "14.16 C"] == []
    assert len(calls(game, "counterattack")) == 1
    assert game.dice_left() == 0


def test_premature_asw_bonus_is_for_the_current_round_only_19_2(silent_war: Checked) -> None:
    """[19.2] "The Event is applicable to a single attack round": a Re-Attack's counterattack
    has no +1 of the detonation. Dice for the re-attack round: TDC draw 1, attack 9, the
    counterattack 0."""
    game, sub = premature(silent_war, [2, 5, 1, 1, 9, 0, 1, 9, 0], asw=1)
    game.call("remove_tdcs")  # [14.4] "The TDC markers from the first round are removed"
    game.call("combat_round", sub=sub, reattack=True)
    totals = game.events("total", name="japanese_value")
    assert len(totals) == 2
    assert totals[1].total == totals[0].total - 1
    assert "19.21 #2" not in [t.rule for t in totals[1].terms]
    assert game.dice_left() == 0


# ---- [12.1] the SMZ example ----------------------------------------------------------------


def test_smz_example_rtb_on_the_first_check_stops_the_entry_12_0_12_1(
    silent_war: Checked,
) -> None:
    """[12.0] "If an RTB result is obtained, place an involuntary RTB marker [15.22] on it ...
    and place it in the "Done" section. If not, the submarine may conduct Search & Contact";
    the example's second check happens only for a boat that goes on into the zone. A Transit
    Event on the Coral Sea to Solomons move (9; row 9, column 7: RTB): no zone entry."""
    game = Game(silent_war, [9, 9, 7, 0, 0, 0], move_to=["Solomons"], zone=["Guadalcanal"])
    game.set(war_period="WP2", active_smzs=[game.v("smz", "Guadalcanal")])
    sub = game.sub_at_sea("Spearfish", "Coral Sea", section=game.v("section", "operating"))
    game.call("patrol_movement", sub=sub)
    tables = [e.result for e in game.events("lookup") if e.table == "transit_event_table"]
    assert [str(t) for t in tables] == ["RTB"]
    assert sub.attrs["smz"] is None
    assert where(sub) == ("Solomons", "done", "transit", "involuntary")
    assert len(calls(game, "transit_event_check")) == 1


def test_smz_example_zone_check_reads_the_solomons_chart_12_1(silent_war: Checked) -> None:
    """[12.1] "enter the Guadalcanal Special Mission Zone for no additional cost, also
    rolling for a Transit Event using the Solomons Area Activity Chart"; [20.3] "with a +2
    drm, using the Area Activity Chart of the OpArea from which the submarine entered the
    SMZ" -- a boat already in the Solomons enters with the one check, governed there."""
    game = Game(silent_war, [0], move_to=["Solomons"], zone=["Guadalcanal"])  # stay
    game.set(war_period="WP2", active_smzs=[game.v("smz", "Guadalcanal")])
    sub = game.sub_at_sea("Spearfish", "Solomons", section=game.v("section", "operating"))
    game.call("patrol_movement", sub=sub)
    assert str(sub.attrs["smz"]) == "Guadalcanal"
    governing = [str(e.result) for e in game.events("return", procedure="governing_area")]
    assert governing == ["Solomons"]
    (check,) = [e for e in game.events("roll") if e.rule == "19.1"]
    assert [(t.value, t.rule) for t in check.modifiers if t.rule == "20.3"] == [(2, "20.3")]


# ---- [17.1] Automatic Advance -------------------------------------------------------------------


def war_progress(game: Game) -> None:
    """The End Turn Segment [4.0 IV]: Conclude Turn [16.0] advances the date [16.3], then
    the War Progress Phase [17.0] looks at the month whose week has just ended."""
    game.call("conclude_turn_phase")
    game.call("war_progress_phase")


@pytest.mark.parametrize(("ships", "dice"), [(10, [0]), (0, [])])
def test_november_1942_advances_automatically_17_1(
    silent_war: Checked, ships: int, dice: list[int]
) -> None:
    """[17.1] "If the War Period has not advanced by the time all numbers for transition have
    been attempted (November, 1942 for example), the War Period advances automatically."
    The end of the fourth week of November 1942 in War Period 1: the roll fails (a 0), or
    there is none, the sunk totals being below the minimum ([17.0 A] "the War Period
    automatically fails to advance") -- the last attempt is made and failed either way."""
    game = Game(silent_war, dice)
    game.set(year=1942, month="Nov", week=4, war_period="WP1", ships_sunk=ships, tonnage_sunk=0)
    war_progress(game)
    assert str(game.state["war_period"]) == "WP2"
    assert len([e for e in game.events("roll") if e.rule == "17.0 B"]) == len(dice)


def test_automatic_advance_resorts_the_war_mix_17_0_d(silent_war: Checked) -> None:
    """[17.0 D] "If the War Period advances, re-sort the "War Mix" [3.1] as per the "War Mix"
    table for that War Period." -- the automatic advance of [17.1] too."""
    game = Game(silent_war, [])
    game.set(year=1942, month="Nov", week=4, war_period="WP1", ships_sunk=0, tonnage_sunk=0)
    war_progress(game)
    assert calls(game, "sort_war_mix")


def test_no_automatic_advance_before_the_fourth_week_17_0(silent_war: Checked) -> None:
    """[17.0] "At the end of the fourth week of months marked with numbers" -- the third
    week of November 1942 ends: nothing happens yet."""
    game = Game(silent_war, [])
    game.set(year=1942, month="Nov", week=3, war_period="WP1")
    war_progress(game)
    assert str(game.state["war_period"]) == "WP1"


def test_war_period_4_does_not_advance_further_17_1(silent_war: Checked) -> None:
    """[17.0] the War Period Track has four periods: "W1 ... W4 — Leyte Gulf to Tokyo Bay".
    War Period 4 at the end of January 1945 (the last box, "Jun 44 thru Jan 45" [28.5])
    stays War Period 4."""
    game = Game(silent_war, [0, 0])
    game.set(year=1945, month="Jan", week=4, war_period="WP4", ships_sunk=900, tonnage_sunk=4000)
    war_progress(game)
    assert str(game.state["war_period"]) == "WP4"


def test_automatic_advance_is_one_period_only_17_1(silent_war: Checked) -> None:
    """[17.1] "the War Period advances automatically" -- one step: War Period 1 becomes 2,
    never 3, at the end of November 1942."""
    game = Game(silent_war, [])
    game.set(year=1942, month="Nov", week=4, war_period="WP1")
    war_progress(game)
    assert str(game.state["war_period"]) == "WP2"
    assert "all transition numbers have been attempted: automatic advance" in notes(game)


# ---- second pass: damage from other sources, more RTB timing, two face-down targets ----------


def storm_over(game: Game, area: str) -> Any:
    return game.interp.call(
        "storm", {"area": game.v("area", area), "level": game.v("storm_level", "Tropical Storm")}
    )


def test_storm_damage_as_third_marker_sinks_7_21_18_13(silent_war: Checked) -> None:
    """[7.21] "if it is in or has transited through or from a Tropical Storm OpArea ... roll
    a d10. On a result of 0, the submarine receives a Damaged marker"; [18.13] "Should a
    submarine receive a third Damage marker, it is sunk." """
    game = Game(silent_war, [0])
    sub = game.sub_at_sea("Spearfish", "East China Sea", damage=2)
    game.set(storms=(storm_over(game, "East China Sea"),))
    game.call("storm_damage_check", sub=sub, passed=[game.v("area", "East China Sea")])
    assert str(sub.attrs["status"]) == "sunk" and game.state["subs_lost"] == 1
    assert game.dice_left() == 0


def test_endurance_rtb_in_a_storm_is_checked_for_storm_damage_14_7(silent_war: Checked) -> None:
    """[14.7] "the submarine involuntarily RTBs [15.22] ... Finally, check for possible storm
    damage as per [7.21]": a failed check (9 +1 Damaged), then the storm roll 0 -- a second
    marker, [18.12] rolled (3, not > Defense 3): two markers, home next turn."""
    game = Game(silent_war, [9, 0, 3])
    sub = operating(game, "Spearfish", "East China Sea", damage=1)
    game.set(storms=(storm_over(game, "East China Sea"),))
    game.call("endurance_check", sub=sub)
    assert sub.attrs["damage"] == 2 and str(sub.attrs["status"]) == "active"
    assert where(sub) == ("East China Sea", "done", "transit", "involuntary")
    assert game.dice_left() == 0


def test_transit_event_rtb_damaged_on_two_markers_sinks_24_41_18_13(silent_war: Checked) -> None:
    """Transit Event "RTB/Damaged" on a boat with two Damage markers: [18.1] "Submarines may
    be "damaged" by Transit Events"; [18.13] a third marker "it is sunk"; a lost boat takes
    no RTB marker."""
    game = Game(silent_war, [])
    sub = operating(game, "Spearfish", "East China Sea", damage=2)
    game.call(
        "apply_transit_event",
        sub=sub,
        result=game.v("transit_result", "RTB/Damaged"),
        governing=game.v("area", "East China Sea"),
    )
    assert str(sub.attrs["status"]) == "sunk" and game.state["subs_lost"] == 1
    assert sub.attrs["rtb"] is None


def test_outbound_boat_forced_home_goes_home_next_turn_15_2(silent_war: Checked) -> None:
    """[15.2] "Submarines marked with an RTB marker can never return to patrol status without
    returning to a Base first"; [19.11] an involuntary RTB result places the boat "in the
    Done section (as per [15.22])". An outbound boat (Transit side, bound for the East China
    Sea) forced home in the Marshalls waits, then next turn moves towards Pearl Harbor, not
    on to its patrol area."""
    game = Game(silent_war, [0] * 12)
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    sub = operating(game, "Tautog", "Marshalls", side=game.v("side", "transit"))
    sub.attrs["destination"] = game.v("area", "East China Sea")
    marshalls = game.v("area", "Marshalls")
    game.call(
        "apply_transit_event", sub=sub, result=game.v("transit_result", "RTB"), governing=marshalls
    )
    game.call("transit_movement", sub=sub)
    assert where(sub) == ("Marshalls", "done", "transit", "involuntary")
    before = game.call("range_from_bases", a=marshalls)
    game.call("prep_phase")
    game.call("transit_movement", sub=sub)
    assert sub.attrs["base"] is not None or (
        game.call("range_from_bases", a=sub.attrs["area"]) < before
    )


def test_involuntary_rtb_in_an_smz_waits_15_22(silent_war: Checked) -> None:
    """[15.22] "An involuntary RTB from a Combat result ... forces the submarine to enter RTB
    immediately. It ... receives an involuntary RTB marker, and is moved to the "Done"
    section of the appropriate OpArea." A boat in the Guadalcanal zone sent home by a
    counterattack waits like any other; [20.5]'s "voluntary RTB movement ... of the current
    turn" is for the boats that were not forced home."""
    game = Game(silent_war, [0] * 8)
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = operating(game, "Spearfish", "Solomons", smz=game.v("smz", "Guadalcanal"))
    game.call(
        "apply_counterattack", sub=sub, result=game.v("counterattack_result", "Damaged + RTB")
    )
    assert str(sub.attrs["rtb"]) == "involuntary"
    game.call("unit_transit_movement", sub=sub)
    assert str(sub.attrs["rtb"]) == "involuntary"
    assert sub.attrs["base"] is None and str(sub.attrs["area"]) == "Solomons"


def test_two_unhittable_face_down_targets_one_counterattack_14_17(silent_war: Checked) -> None:
    """[14.17] Note "the attack goes through with an automatic miss, followed by a
    counterattack" -- the Counterattack Round [14.2] is one per attack round, however many
    face-down targets proved unhittable. Tactical 2: two TDC markers, 3 points each on two
    face-down 9-defense pieces."""
    game = Game(
        silent_war, [1, 0], column=["B"], to_reveal=["Decoy"], target=["Big", "Bigger"], give=[3, 3]
    )
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=2)
    b = col(game, "B")
    game.set(
        display=(
            unit(game, name="Big", column=b, revealed=False, tonnage=4, defense=9, asw=0),
            unit(game, name="Bigger", column=b, revealed=False, tonnage=4, defense=9, asw=0),
            unit(game, name="Decoy", column=col(game, "A"), revealed=False, tonnage=2, asw=1),
            unit(game, name="Decoy 2", column=col(game, "D"), revealed=False, tonnage=2),
        ),
        combatants=(sub,),
        tdc_pool=(0, 0),
        torpedo=0,
    )
    game.call("combat_round", sub=sub)
    assert len(calls(game, "attack")) == 2
    assert len(calls(game, "counterattack")) == 1


def test_rtb_on_the_zone_entry_check_leaves_the_boat_in_the_oparea_19_11(
    silent_war: Checked,
) -> None:
    """[19.11] "If a submarine receives an involuntary RTB result ..., the submarine is placed
    in the Done section (as per [15.22]) of the OpArea used to determine the Transit Event
    check" -- for the zone entry of the [12.1] example, the Solomons ([20.3] "using the Area
    Activity Chart of the OpArea from which the submarine entered the SMZ"). It waits there
    this turn [15.22]. The entry check 9 (+2 [20.3]); row 9, column 7: RTB."""
    game = Game(silent_war, [9, 9, 7] + [0] * 8, move_to=["Solomons"], zone=["Guadalcanal"])
    game.set(war_period="WP2", active_smzs=[game.v("smz", "Guadalcanal")])
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = operating(game, "Spearfish", "Solomons")
    game.call("patrol_movement", sub=sub)
    tables = [e.result for e in game.events("lookup") if e.table == "transit_event_table"]
    assert [str(t) for t in tables] == ["RTB"]
    assert sub.attrs["smz"] is None
    assert where(sub) == ("Solomons", "done", "transit", "involuntary")
    game.call("unit_transit_movement", sub=sub)
    assert where(sub) == ("Solomons", "done", "transit", "involuntary")


def test_voluntary_rtb_by_bypass_moves_this_turn_without_endurance_15_21(
    silent_war: Checked,
) -> None:
    """[13.1] "A submarine bypassing Search & Contact may also voluntarily RTB (see [15.21])";
    [15.21] "place a voluntary RTB marker on it and perform its Transit move"; [4.0] 14.7
    Endurance Check "(all submarines on their Patrol side except Submarines with an RTB
    marker)": no Endurance roll, and it moves home this turn."""
    game = Game(silent_war, [0] * 8, bypass=[True], go_home=[True])
    sub = operating(game, "Spearfish", "East China Sea")
    game.call("search_and_combat", sub=sub)
    assert [e for e in game.events("roll") if e.rule.startswith("14.7")] == []
    assert str(sub.attrs["rtb"]) == "voluntary"
    game.call("unit_transit_movement", sub=sub)
    assert moved(sub, "East China Sea")


def test_patrol_move_rtb_skips_search_and_waits_12_0(silent_war: Checked) -> None:
    """[12.0] "If an RTB result is obtained, place an involuntary RTB marker [15.22] on it ...
    and place it in the "Done" section. If not, the submarine may conduct Search & Contact":
    forced home on its Coral Sea to Solomons move (9; row 9, column 7: RTB), it neither
    searches nor checks Endurance ([4.0] 14.7 "except Submarines with an RTB marker"), and
    its RTB move waits for the next turn [15.22]."""
    game = Game(silent_war, [9, 9, 7] + [0] * 8, move_to=["Solomons"], zone=[None])
    game.set(war_period="WP2")
    sub = operating(game, "Spearfish", "Coral Sea")
    game.call("patrol_movement", sub=sub)
    rolled = len(game.events("roll"))
    game.call("search_and_combat", sub=sub)
    assert len(game.events("roll")) == rolled  # no Search & Contact, no Endurance roll
    game.call("unit_transit_movement", sub=sub)
    assert where(sub) == ("Solomons", "done", "transit", "involuntary")


def pack_into_bismarck(silent_war: Checked, dice: list[int]) -> tuple[Game, list[Entity]]:
    """A Wolfpack of three, Transit side in the Coral Sea, bound for the Bismarck Sea (one
    OpArea, its destination) in War Period 3: the pack moves as one [24.2]."""
    game = Game(silent_war, dice)
    game.set(
        war_period="WP3",
        active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")),
    )
    boats = [
        operating(game, n, "Coral Sea", wolfpack=1, side=game.v("side", "transit"), speed=2)
        for n in ("Tautog", "Thresher", "Gudgeon")
    ]
    for b in boats:
        b.attrs["destination"] = game.v("area", "Bismarck Sea")
    game.call("unit_transit_movement", sub=boats[0])
    return game, boats


def test_a_pack_leader_forced_home_does_not_change_the_mates_move_24_4(
    silent_war: Checked,
) -> None:
    """[24.4] "Each member must roll separately for Transit Events as normal"; [24.41] "A
    member of a Wolfpack sustaining an RTB/Damaged result must drop out of the Wolfpack and
    involuntarily RTB [15.22]"; [15.25] Cautious Transit is a choice "to move a single OpArea
    instead of at a higher speed" -- a move that ends at its destination is not one. The
    leader's check 9 (-1 Transit side, -1 Wolfpack: 7, red from 7 in the Bismarck Sea), row 9,
    column 7: RTB; the mates' checks 0 and 0. They end as in the same move where the leader
    has no event (its check a 0)."""
    game, boats = pack_into_bismarck(silent_war, [9, 9, 7, 0, 0])
    _, same = pack_into_bismarck(silent_war, [0, 0, 0])
    assert str(boats[0].attrs["rtb"]) == "involuntary"
    checks = [e for e in game.events("roll") if e.rule == "19.1"]
    assert all("15.25" not in [t.rule for t in c.modifiers] for c in checks)
    for mate, twin in zip(boats[1:], same[1:], strict=True):
        assert where(mate) == where(twin)
        assert mate.attrs["destination"] == twin.attrs["destination"]
