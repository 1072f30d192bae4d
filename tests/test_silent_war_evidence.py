"""Silent War 2.1, third pass: evidence for docs/silent_war_coverage.md, read by someone who
did not write the rules' code (issue 30 §4).

Each test is written from the rules text (../shared/seeds/000_0b28bf2899953500.txt), quoted
above it, for a place where two rules meet: an event against a general rule ([19.2] "The
results of the Event supercede the rules in all cases"), a result against a later phase (the
Endurance Check, the Re-Attack), weather against damage. The dice are forced; every number
asserted follows from the quoted text and the situation the test writes (ratings the rules do
not print are set in the test). A test marked xfail(strict=True) is a deviation found in this
pass: it fails today and flips (fails the suite as XPASS) once the rulebook is fixed.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_silent_war_rules import Game, unit

from rulekit.book.checker import Checked
from rulekit.engine.values import Entity


def calls(game: Game, procedure: str) -> list[Any]:
    return [e for e in game.events("call") if e.procedure == procedure]


def rolls(game: Game, rule: str) -> list[Any]:
    return [e for e in game.events("roll") if e.rule == rule]


def col(game: Game, name: str) -> Any:
    return game.v("column", name)


def event_chit_game(silent_war: Checked, dice: list[int], *others: Entity, **answers: Any) -> Game:
    """Spearfish (Tactical set to 1) in column B of the East China Sea, War Period 2, with a
    face-down Combat Event chit in its column: the one unit it reveals [14.13] is the chit."""
    game = Game(silent_war, dice, column=["B"], **answers)
    game.sub_at_sea("Spearfish", "East China Sea", tactical=1)
    game.set(war_period="WP2", torpedo=0, tdc_pool=(0,))
    chit = unit(game, name="Chit", revealed=False, event=True, tonnage=0)
    game.set(display=(chit, *others))
    return game


def spearfish(game: Game) -> Entity:
    return next(s for s in game.state["subs"] if s.attrs["name"] == "Spearfish")


# ---- [19.21 #4] Mechanical Troubles against [14.7] the Endurance Check -----------------------


def test_even_mechanical_troubles_ends_combat_and_skips_the_endurance_roll_19_21_4(
    silent_war: Checked,
) -> None:
    # "There is no Combat Phase for the submarine this turn. Roll a die: ... If an even
    # result, the chief engineer fixes the problem and the submarine may resume normal
    # operations next turn. Place the submarine in the "Done" section of the OpArea. It does
    # not have to roll on the Endurance Table for this turn."
    # dice: the event (4), the odd/even roll (4, even); nothing else may be rolled.
    game = event_chit_game(silent_war, [4, 4])
    sub = spearfish(game)
    game.call("combat_phase", sub=sub)
    game.call("endurance_check", sub=sub)  # as search_and_combat calls it after combat [14.7]
    assert game.dice_left() == 0
    assert rolls(game, "14.7") == []
    assert not calls(game, "counterattack") and not calls(game, "attack_round")
    assert str(sub.attrs["section"]) == "done"
    assert sub.attrs["rtb"] is None and sub.attrs["damage"] == 0


def test_odd_mechanical_troubles_damages_and_sends_home_without_an_endurance_roll_19_21_4(
    silent_war: Checked,
) -> None:
    # "If an odd result, place a Damage marker and an RTB marker on the submarine and it
    # involuntarily RTBs [15.22]." [4.0] 14.7: "Endurance Check (all submarines on their
    # Patrol side except Submarines with an RTB marker)". [15.22] "It remains on, or is flipped
    # to its Transit side ... and is moved to the "Done" section".
    game = event_chit_game(silent_war, [4, 7])
    sub = spearfish(game)
    game.call("combat_phase", sub=sub)
    game.call("endurance_check", sub=sub)
    assert game.dice_left() == 0 and rolls(game, "14.7") == []
    assert sub.attrs["damage"] == 1
    assert str(sub.attrs["rtb"]) == "involuntary"
    assert str(sub.attrs["side"]) == "transit" and str(sub.attrs["section"]) == "done"


# ---- [19.21 #2] Hot Run against [14.17 A] ----------------------------------------------------


def test_a_hot_run_is_counterattacked_even_when_no_attack_could_hit_19_21_2_14_17(
    silent_war: Checked,
) -> None:
    # [14.17 A] "If no successful attack can be made in the first attack round, there is no
    # Counterattack" -- but [19.21 #2] Hot Run: "The torpedo is NOT fired, and the current
    # attack round is cancelled. Proceed to the Counterattack round." and [19.2] "The results
    # of the Event supercede the rules in all cases." The only target cannot be hit (defense
    # 9); a revealed escort with ASW 1 is there to counterattack.
    # dice: the event (2, Torpedo Malfunction), the malfunction (3, Hot Run), the counterattack.
    game = Game(silent_war, [2, 3, 0], column=["B"], reattack=[False])
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=1)
    game.set(war_period="WP2", torpedo=0, tdc_pool=(0,))
    chit = unit(game, name="Chit", revealed=False, event=True, tonnage=0)
    wall = unit(game, name="Wall", tonnage=4, defense=9, asw=0)
    escort = unit(game, name="Escort", type="DD", tonnage=2, defense=9, asw=1)
    game.set(display=(chit, wall, escort))
    game.call("combat_phase", sub=sub)
    assert (
        "the torpedo is not fired: the attack round is cancelled; proceed to the Counterattack"
        in [e.text for e in game.events("note")]
    )
    assert len(calls(game, "counterattack")) == 1
    assert game.dice_left() == 0


# ---- [14.2] a result of the counterattack against [14.4] the Re-Attack -----------------------


def test_a_boat_sent_home_by_the_counterattack_is_offered_no_reattack_14_4(
    silent_war: Checked,
) -> None:
    # [14.4] "If the submarine has not been sunk, withdrawn, or forced to RTB (Return to
    # Base), it can choose to engage the convoy or task force a second time." The player
    # would re-attack (a "yes" is ready) but is not asked. The counterattack is made heavy
    # on purpose: ASW 4 + 3 red boxes + general ASW 1 (the [14.2] example's East China Sea,
    # War Period 2) against a Defense set to 0; its result is checked first, as a premise.
    # dice: the to-hit roll (9: a miss, the attack could hit on 1 or less), the counterattack.
    game = Game(silent_war, [9, 8], column=["B"], reattack=[True, True])
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=1, defense=0)
    game.set(war_period="WP2", torpedo=0, tdc_pool=(0,))
    maru = unit(game, name="Maru", tonnage=4, defense=1, asw=0)
    escort = unit(game, name="Escort", type="CL", tonnage=1, defense=9, asw=4)
    game.set(display=(maru, escort))
    game.call("combat_phase", sub=sub)
    counter = calls(game, "counterattack")
    assert len(counter) == 1
    assert str(sub.attrs["rtb"]) == "involuntary"  # the premise: "Damaged + RTB"
    assert game.events("decision", name="reattack") == []
    assert len(calls(game, "combat_round")) == 1
    assert game.dice_left() == 0


# ---- [7.21] storm damage against [18.12] a second Damage marker ------------------------------


@pytest.mark.parametrize(("die", "sunk"), [(9, True), (3, False)])
def test_storm_damage_to_a_damaged_boat_is_a_second_marker_18_12_7_21(
    silent_war: Checked, die: int, sunk: bool
) -> None:
    # [7.21] Tropical Storm: "roll a d10. On a result of 0, the submarine receives a Damaged
    # marker." [18.12] "Should a submarine receive a second Damage marker, a die is rolled: If
    # the die result is > the Defense rating of the submarine, it is sunk. ... If the sub is
    # not sunk, place a second Damage marker on the sub." Defense 3: 9 sinks, 3 does not.
    game = Game(silent_war, [0, die])
    ecs = game.v("area", "East China Sea")
    sub = game.sub_at_sea("Spearfish", "East China Sea", damage=1, defense=3)
    marker = game.interp.call(
        "storm", {"area": ecs, "level": game.v("storm_level", "Tropical Storm")}
    )
    game.set(storms=[marker], subs_lost=0)
    game.call("storm_damage_check", sub=sub, passed=[ecs])
    assert game.dice_left() == 0
    if sunk:
        assert str(sub.attrs["status"]) == "sunk" and game.state["subs_lost"] == 1
    else:
        assert sub.attrs["damage"] == 2 and game.state["subs_lost"] == 0


# ---- [13.1] bypass and voluntary RTB against [14.7] ------------------------------------------


def test_a_boat_that_bypasses_and_goes_home_rolls_no_endurance_check_13_1_15_21(
    silent_war: Checked,
) -> None:
    # [13.1] "A submarine bypassing Search & Contact may also voluntarily RTB (see [15.21])."
    # [15.21] "Flip the submarine to its Transit side, place a voluntary RTB marker on it".
    # [4.0] "14.7 Endurance Check (all submarines on their Patrol side except Submarines with
    # an RTB marker)"; [14.7] "-2 drm if the submarine bypassed ... but did not voluntarily
    # RTB" -- the -2 is for the one that stays.
    game = Game(silent_war, [], bypass=[True], go_home=[True])
    sub = game.sub_at_sea("Spearfish", "East China Sea", spotted=True)
    sub.attrs["section"] = game.v("section", "operating")
    game.call("search_and_combat", sub=sub)
    assert game.events("roll") == []
    assert str(sub.attrs["rtb"]) == "voluntary" and str(sub.attrs["side"]) == "transit"
    assert sub.attrs["spotted"] is False  # "remove any Spotted marker from the submarine"


def test_a_boat_that_bypasses_and_stays_rolls_endurance_at_minus_two_13_1_14_7(
    silent_war: Checked,
) -> None:
    # [13.1] "proceed directly to the Endurance Check [14.7] with a -2 drm to the Endurance
    # roll". Endurance A, torpedo -2: the (provisional) table says 8; a 9 - 2 = 7 stays.
    game = Game(silent_war, [9], bypass=[True], go_home=[False])
    sub = game.sub_at_sea("Spearfish", "East China Sea", endurance=game.v("endurance_rating", "A"))
    sub.attrs["section"] = game.v("section", "operating")
    game.set(torpedo=-2)
    game.call("search_and_combat", sub=sub)
    (roll,) = rolls(game, "14.7")
    assert roll.natural == 9 and roll.total == 7
    assert sub.attrs["rtb"] is None and str(sub.attrs["section"]) == "done"


# ---- [19.21 #3] Patrol Bomber: "Proceed to the Endurance check" ------------------------------


def test_a_patrol_bomber_ends_the_combat_and_the_endurance_check_follows_19_21_3(
    silent_war: Checked,
) -> None:
    # "The submarine is spotted and attacked by a Japanese Patrol Bomber. If able, attempt a
    # Crash Dive [28.2]. If unsuccessful, roll a die immediately on the "Event Aircraft" line
    # of the Counterattack Table and apply the results. Proceed to the Endurance check."
    # Shallow-water boat: no crash dive [2.1] is forced by setting the rating to none possible
    # (crash_dive 0 and a die of 9 fails it). dice: event 3, crash dive 9, Event Aircraft 0,
    # then the Endurance roll (0) -- and no attack, no re-attack question.
    game = event_chit_game(silent_war, [3, 9, 0, 0], reattack=[True])
    sub = spearfish(game)
    sub.attrs["crash_dive"] = 0
    game.call("combat_phase", sub=sub)
    game.call("endurance_check", sub=sub)
    assert not calls(game, "attack_round")
    assert game.events("decision", name="reattack") == []
    assert len(rolls(game, "14.7")) == 1
    assert game.dice_left() == 0


# ---- [20.5] a Special Mission Zone against [14.7] and [15.0] ---------------------------------


def test_a_boat_in_a_zone_skips_the_endurance_check_and_goes_home_this_turn_20_5(
    silent_war: Checked,
) -> None:
    # [20.5] "Submarines in an SMZ skip the Endurance check [14.7] unless otherwise noted.
    # These submarines must conduct voluntary RTB movement [15.21] in the Transit Movement
    # Phase of the current turn." Spearfish searched from the Guadalcanal zone (entered from
    # the Solomons) this turn: no Endurance roll, then it leaves on a voluntary RTB.
    game = Game(silent_war, [0] * 8)
    game.set(war_period="WP2", active_bases=(game.v("base", "Brisbane"),))
    sub = game.sub_at_sea("Spearfish", "Solomons", smz=game.v("smz", "Guadalcanal"))
    sub.attrs["section"] = game.v("section", "operating")
    game.call("endurance_check", sub=sub)
    assert rolls(game, "14.7") == [] and str(sub.attrs["section"]) == "done"
    game.call("transit_movement", sub=sub)
    assert len(calls(game, "voluntary_rtb")) == 1 and sub.attrs["smz"] is None
    # Brisbane is two OpAreas away (Solomons, Coral Sea, Brisbane), Spearfish's speed 2: home
    assert str(sub.attrs["base"]) == "Brisbane" and str(sub.attrs["box"]) == "Broom"


# ---- [24.55] the Wolfpack Re-Attack roll -----------------------------------------------------


def test_each_pack_member_rolls_for_the_reattack_and_a_failed_one_withdraws_24_55(
    silent_war: Checked,
) -> None:
    # [24.55] "Each member of the Wolfpack must successfully roll for Re-Attack. Failure of
    # this roll results in the submarine withdrawing [14.3] from the current combat phase, but
    # the submarine is still a member of the Wolfpack. ... If the die roll is < or = to the
    # tactical rating of the submarine plus any Super Skipper value, it may participate in a
    # Re-Attack. Damaged submarines have +2 drm to this die roll." Tactical 3 both; Tang
    # rolls 3 (= 3: re-attacks), Wahoo, damaged, rolls 2 (+2 = 4 > 3: withdraws). The target
    # cannot be hit and no escort has ASW, so no other die is thrown.
    game = Game(silent_war, [3, 2], reattack=[True, True])
    game.set(year=1944, month="Jan", tdc_pool=(0,))
    tang = game.sub_at_sea("Tang", "East China Sea", wolfpack=1, tactical=3)
    wahoo = game.sub_at_sea("Wahoo", "East China Sea", wolfpack=1, tactical=3, damage=1)
    game.set(display=(unit(game, tonnage=4, defense=9, asw=0),))
    game.call("pack_combat", attackers=(tang, wahoo))
    assert [r.total for r in rolls(game, "24.55")] == [3, 4]
    rounds = [(e.args["sub"], e.args["reattack"]) for e in calls(game, "combat_round")]
    assert rounds == [("Tang", False), ("Wahoo", False), ("Tang", True)]
    assert wahoo.attrs["wolfpack"] == 1  # "still a member of the Wolfpack"
    assert game.dice_left() == 0


# ---- [14.13]/[14.14] revealing and TDC markers: how many, and where --------------------------


@pytest.mark.parametrize(
    ("posture", "revealed"), [("cautious", 1), ("standard", 2), ("aggressive", 3)]
)
def test_the_units_revealed_are_tactical_by_posture_from_own_or_adjacent_columns_14_13(
    silent_war: Checked, posture: str, revealed: int
) -> None:
    # [14.13] "The player reveals a number of Japanese units on the Combat Display equal to the
    # Tactical Rating of the submarine (possibly modified by attack posture) ... The ships the
    # player chooses to reveal must be from either the column the submarine is in or from an
    # adjacent one." [14.12] Cautious "Reveal one fewer", Aggressive "Reveal one more".
    # Tactical 2, in column B; four face-down ships in A-C and one in D, never eligible.
    game = Game(silent_war, [])
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=2)
    sub.attrs["posture"] = game.v("posture", posture)
    near = [
        unit(game, name=f"{c} ship", tonnage=2, revealed=False, column=col(game, c))
        for c in ("A", "B", "B", "C")
    ]
    far = unit(game, name="D ship", tonnage=9, revealed=False, column=col(game, "D"))
    game.set(display=(*near, far), combatants=(sub,))
    game.call("reveal_units", sub=sub)
    assert sum(u.attrs["revealed"] for u in near) == revealed
    assert far.attrs["revealed"] is False
    (offer, *_) = game.events("decision", name="to_reveal")
    assert "D ship" not in [str(o) for o in offer.options]


def test_tdc_markers_are_tactical_many_one_per_target_own_or_adjacent_column_14_14(
    silent_war: Checked,
) -> None:
    # [14.14] "The player utilizes the Tactical Rating of the submarine to determine the number
    # of TDC pieces that are randomly selected from the pool of face down TDC markers. The
    # player places TDC markers (without examining them), one per target, on any of the
    # revealed OR face down Japanese ships in the same column containing the submarine or in
    # an adjacent column." Tactical 2; ships in B (revealed), C (face down) and D: two markers,
    # on B and C, none on D. dice: the two draws from the pool of three markers (the first).
    game = Game(silent_war, [1, 1])
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=2)
    b = unit(game, name="B ship", tonnage=2)
    c = unit(game, name="C ship", tonnage=2, revealed=False, column=col(game, "C"))
    d = unit(game, name="D ship", tonnage=9, column=col(game, "D"))
    game.set(display=(b, c, d), combatants=(sub,), tdc_pool=(-3, 0, 3))
    game.call("place_tdcs", sub=sub)
    assert b.attrs["tdc"] is not None and c.attrs["tdc"] is not None
    assert d.attrs["tdc"] is None
    assert len(game.state["tdc_pool"]) == 1
    assert c.attrs["revealed"] is False  # placed "without examining" the face-down ship


def test_a_second_combat_event_in_a_round_goes_back_to_the_cup_14_13(silent_war: Checked) -> None:
    # [14.13] "If a Combat Event marker is revealed, the event is immediately resolved ... If
    # any additional Combat Event markers are revealed during an attack round, they are
    # returned to the cup." [19.2] "Only one Event can occur per attack round." Tactical 2,
    # two chits: the first is rolled for (6, Tonnage Doubled); the second is not.
    game = Game(silent_war, [6])
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=2)
    one = unit(game, name="Chit 1", revealed=False, event=True, tonnage=0)
    two = unit(game, name="Chit 2", revealed=False, event=True, tonnage=0)
    game.set(display=(one, two), combatants=(sub,))
    game.call("reveal_units", sub=sub)
    assert len(rolls(game, "19.2")) == 1 and game.dice_left() == 0
    assert two not in game.state["display"]
    assert "a second Combat Event this round is returned to the cup" in [
        e.text for e in game.events("note")
    ]


# ---- [19.21 #1] Surface Gunnery Combat instead of the torpedo attack -------------------------


def test_surface_gunnery_spots_the_boat_uses_the_26_35_line_without_the_torpedo_19_21_1(
    silent_war: Checked,
) -> None:
    # [19.21 #1] "Conduct the Combat Phase normally but instead of the attack round perform the
    # following steps: A. Place a Spotted marker on the submarine. B. Choose any revealed
    # Japanese merchant/transport piece in the submarine's column and attack it using a die
    # roll on the 26-35 line of the Attack Results Table ... The value of the Mk-XIV torpedo is
    # NOT applied to the result. ... When finished, proceed to the Counterattack Round."
    # The torpedo is at +2; a revealed 4t Maru with ASW 1 in the column; no IJN unit.
    # dice: the event (1), the gunnery roll (3: No Effect on the provisional line; with the
    # torpedo's +2 it would be a 5, Damaged), the counterattack (0).
    from test_silent_war_combat_fidelity import event_in_reveal

    game = event_in_reveal(silent_war, [1, 3, 0])
    sub = game.state["combatants"][0]
    assert sub.attrs["spotted"] is True
    (gun,) = game.events("lookup", table="attack_results")
    assert gun.keys["tonnage"] == 30  # a line of 26-35
    (roll,) = rolls(game, "19.21 #1 B")
    assert roll.total == 3  # no torpedo value
    maru = next(u for u in game.state["display"] if u.attrs["name"] == "Maru")
    assert maru.attrs["damaged"] is False
    assert not calls(game, "place_tdcs") and not calls(game, "attack")
    assert len(calls(game, "counterattack")) == 1
    assert game.dice_left() == 0


# ---- [13.1 A] what a white box leads to, and [14.7] ------------------------------------------


@pytest.mark.parametrize(
    ("dice", "contact", "endurance"),
    [([1, 7], "loner", -1), ([1, 3], "none", -1), ([0, 0], "submarine", 0)],
)
def test_a_white_box_on_a_row_with_red_rolls_again_for_a_loner_or_a_submarine_13_1_a(
    silent_war: Checked, dice: list[int], contact: str, endurance: int
) -> None:
    # [13.1 A] "If the box is white, and the row has at least one red box, the player rolls a
    # second die. If the second roll results in a red box, a loner has been contacted." "If the
    # unmodified initial roll is a zero and the second roll is also a zero, the submarine has
    # encountered an enemy submarine." "If there is no contact, proceed directly to the
    # Endurance Check [14.7] with a -1 drm"; [14.7] "-1 drm if the submarine encountered no
    # enemy contacts or a loner [28.1]". The East China Sea in War Period 2 (the [14.2]
    # example's three red boxes; the row is provisional): boxes 0-1 white, 7-9 red.
    game = Game(silent_war, dice)
    game.set(war_period="WP2")
    sub = game.sub_at_sea("Spearfish", "East China Sea")
    sub.attrs["section"] = game.v("section", "operating")
    row = [
        str(b)
        for b in game.call(
            "area_activity", area=sub.attrs["area"], war_period=game.v("war_period", "WP2")
        )
    ]
    assert row[0] == row[1] == "white" and row[3] != "red" and row[7] == "red"  # the premise
    game.call("search_and_contact", sub=sub)
    assert sub.attrs["contact"] == contact
    assert game.dice_left() == 0
    assert game.call("endurance_drm", sub=sub) == endurance


# ---- [12.0] a Transit Event RTB on a Patrol Move ---------------------------------------------


def test_an_rtb_on_a_patrol_move_checks_the_storm_and_ends_in_done_without_search_12_0(
    silent_war: Checked,
) -> None:
    # [12.0] "A roll is made for a Transit Event (see [19.1]). If an RTB result is obtained,
    # place an involuntary RTB marker [15.22] on it, check for possible storm damage as per
    # [7.21], and place it in the "Done" section. If not, the submarine may conduct Search &
    # Contact [13.0]." Sea of Japan -> Empire Pacific (+2 for leaving the Sea of Japan); the
    # check 9 reaches red; a Tropical Storm is in the Empire Pacific: [7.21] "Transit Events
    # [19.1] only occur in the OpArea on a d10 roll of 0-3" (0: it occurs); the table's row 9,
    # column 7: RTB (provisional); the storm damage roll, 0, damages the boat. No search after.
    game = Game(silent_war, [9, 0, 9, 7, 0], move_to=["Empire Pacific"])
    empire = game.v("area", "Empire Pacific")
    marker = game.interp.call(
        "storm", {"area": empire, "level": game.v("storm_level", "Tropical Storm")}
    )
    game.set(storms=[marker])
    sub = game.sub_at_sea("Spearfish", "Sea of Japan")
    sub.attrs["section"] = game.v("section", "operating")
    game.call("patrol_movement", sub=sub)
    assert str(sub.attrs["rtb"]) == "involuntary" and str(sub.attrs["section"]) == "done"
    assert [r.natural for r in rolls(game, "7.21")] == [0, 0] and sub.attrs["damage"] == 1
    game.call("search_and_combat", sub=sub)
    assert rolls(game, "13.1 A") == [] and game.dice_left() == 0


# ---- [28.14] a loner that is a Combat Event --------------------------------------------------


@pytest.mark.parametrize(("event", "applied"), [(9, False), (7, False), (3, True)])
def test_a_loners_combat_event_applies_only_on_3_or_4_28_14(
    silent_war: Checked, event: int, applied: bool
) -> None:
    # [28.14] "If the revealed unit is a Combat Event, roll a d10 as per [19.2], but only apply
    # the event if the result is 3 or 4, treating 0, 1, 2, 5, 6, 7, 8, and 9 as 'no-event.'"
    # War Period 1: the loner comes from cup A, here one chit. dice: the placement roll (0),
    # the event roll; for 3 (Patrol Bomber) the crash dive (9 fails with a rating set to 0)
    # and the Event Aircraft line (0: No Effect).
    dice = [0, event] + ([9, 0] if applied else [])
    game = Game(silent_war, dice, reattack=[False])
    sub = game.sub_at_sea("Spearfish", "East China Sea", contact="loner", crash_dive=0)
    chit = unit(game, name="Chit", revealed=False, event=True, tonnage=0)
    game.set(cup_a=(chit,))
    game.call("loner_combat", sub=sub)
    assert game.dice_left() == 0
    assert bool(calls(game, "apply_combat_event")) is applied
    assert bool(calls(game, "patrol_bomber")) is applied
    assert not calls(game, "counterattack")  # 7 would be a Counterattack — Combat: no-event


# ---- [28.2] a successful Crash Dive against a Diligent Escort --------------------------------


@pytest.mark.parametrize(("dive", "spotted", "damage"), [(0, True, 0), (9, False, 1)])
def test_a_crash_dive_turns_a_diligent_escorts_result_into_spotted_28_2(
    silent_war: Checked, dive: int, spotted: bool, damage: int
) -> None:
    # [28.2] "If the result is = or < the Crash Dive Rating, the crash dive is successful. Roll
    # on the Diligent Escort Table (if applicable), but change any result except 'No Effect'
    # to 'Spotted.'" "If the submarine fails the roll, the occurrence (escort or event) is
    # resolved normally". Crash Dive rating 3; the Diligent Escort line, 9: Damaged
    # (provisional). A 0 dives (Spotted instead); a 9 does not (Damaged).
    game = Game(silent_war, [dive, 9], withdraw_now=[False])
    sub = game.sub_at_sea("Spearfish", "East China Sea", crash_dive=3)
    escort = unit(game, name="DE", diligent=True, type="DD", defense=7, asw=3)
    game.set(display=(escort,), combatants=(sub,))
    game.call("diligent_escort_revealed", sub=sub, u=escort)
    assert game.dice_left() == 0
    assert (sub.attrs["spotted"], sub.attrs["damage"]) == (spotted, damage)


# ---- [13.3] TF ONLY --------------------------------------------------------------------------


def test_tf_only_draws_rising_sun_backs_into_column_d_or_goes_to_endurance_13_3(
    silent_war: Checked,
) -> None:
    # [13.3] "If directed by any game activity to use TF ONLY, only pull ships for column D and
    # only place vessels with the Rising Sun flag on their backs. ... If the Engagement Table
    # result would not place any ships in Column D, proceed directly to the Endurance Check
    # [14.7] with a -1 drm to the Endurance roll." War Period 1 (the War Mix as set up).
    wp1, low, high = ("WP1", "Low", "High")
    game = Game(silent_war)
    game.call("start_game")
    game.set(tf_only=True)
    sub = game.sub_at_sea("Tautog", "Marshalls")
    lines = {
        level: game.call(
            "engagement",
            war_period=game.v("war_period", wp1),
            contact=game.v("contact", contact),
            level=game.v("activity_level", level),
        )
        for contact, level in (("C1", low), ("TF", high))
    }
    no_d, some_d = lines[low], lines[high]
    assert str(dict(no_d.fields)["D"]) == "•" and str(dict(some_d.fields)["D"]) != "•"
    game.call("draw_contacts", sub=sub, counts=no_d)
    assert game.state["display"] == () and sub.attrs["contact"] == "none"
    assert game.call("endurance_drm", sub=sub) == -1
    sub.attrs["contact"] = "TF"
    game.call("draw_contacts", sub=sub, counts=some_d)
    shown = game.state["display"]
    assert shown and {str(u.attrs["column"]) for u in shown} == {"D"}
    assert {str(u.attrs["flag"]) for u in shown} == {"Rising Sun"}
    assert not any(u.attrs["revealed"] for u in shown)  # "face down" [13.1 C]


# ---- [28.4]/[28.41] Targeting an Escort: when it may not be used ----------------------------


@pytest.mark.parametrize(
    ("case", "offered"),
    [
        ("first round", True),
        ("A spotted", False),
        ("B diligent escort", False),
        ("C aircraft", False),
        ("D counterattack event", False),
        ("re-attack", False),
    ],
)
def test_targeting_an_escort_only_in_the_first_round_and_not_under_a_to_d_28_41(
    silent_war: Checked, case: str, offered: bool
) -> None:
    # [28.4] "A submarine can target one (1) DD or DE escort and that escort's ASW value is not
    # counted as part of the defense of that unit." "Note: This rule applies only to the first
    # attack round (but not the re-attack)." [28.41] "This option cannot be utilized if any of
    # the following conditions exist: A. The submarine is SPOTTED. B. A Diligent Escort has
    # been revealed. C. An aircraft has been revealed. D. Any one of the following Combat
    # Events occurred: 1. Counterattack ... 2. Counterattack — Combat". A lone boat, a revealed
    # DD with ASW 1 carrying its points.
    game = Game(silent_war)
    sub = game.sub_at_sea("Spearfish", "East China Sea", spotted=case == "A spotted")
    if case == "re-attack":
        sub.attrs["reattacks"] = 1
    escort = unit(game, name="DD", type="DD", tonnage=2, defense=7, asw=1, points=6, tdc=0)
    others = []
    if case == "B diligent escort":
        others.append(unit(game, name="DE", type="DD", diligent=True, asw=3, column=col(game, "D")))
    if case == "C aircraft":
        others.append(unit(game, name="Plane", aircraft=True, asw=1, column=col(game, "D")))
    game.set(display=(escort, *others), combatants=(sub,))
    if case == "D counterattack event":
        game.set(counterattack_first=True)
    game.call("target_an_escort", sub=sub)
    assert bool(game.events("decision", name="escort")) is offered


# ---- [16.3] the date; [25.2] a skipper lost with his boat ------------------------------------


def test_the_week_month_and_year_markers_advance_16_3(silent_war: Checked) -> None:
    # [16.3] "Advance the Week marker, and the Month/Year markers as needed." [2.4] "Each game
    # turn is one week"; [17.0] the War Progress Phase comes after "the fourth week".
    game = Game(silent_war)
    for (year, month, week), after in (
        ((1942, "Mar", 2), (1942, "Mar", 3)),
        ((1942, "Mar", 4), (1942, "Apr", 1)),
        ((1942, "Dec", 4), (1943, "Jan", 1)),
    ):
        game.set(year=year, month=month, week=week)
        game.call("advance_date")
        state = game.state
        assert (state["year"], str(state["month"]), state["week"]) == after


def test_a_super_skipper_is_lost_with_his_submarine_25_2(silent_war: Checked) -> None:
    # [25.2] "The Super Skipper normally remains with one submarine and is lost if the
    # submarine is lost." [25.3] reassignment is only for a boat withdrawn, a Constructive
    # Total Loss or decommissioned: no roll, no waiting skipper.
    game = Game(silent_war, [])
    sub = game.sub_at_sea("Wahoo", "Sea of Japan", skipper=2, skipper_name="Morton")
    game.call("sub_sunk", sub=sub)
    assert (sub.attrs["skipper"], sub.attrs["skipper_name"]) == (0, None)
    assert list(game.state["skippers_waiting"]) == [] and game.events("roll") == []
    assert "Morton" not in [str(n) for n in game.state["skipper_pool"]]


# ---- [17.0 C-D] after a failed attempt, and after an advance ---------------------------------


def test_a_failed_attempt_waits_for_next_month_and_an_advance_re_sorts_the_war_mix_17_0_c_d(
    silent_war: Checked,
) -> None:
    # [17.0] "C. If the War Period fails to advance, another attempt may not be made until the
    # beginning of the following month. D. If the War Period advances, re-sort the 'War Mix'
    # [3.1] as per the 'War Mix' table for that War Period." War Period 1 -> 2 in 1942: the end
    # of June fails (0), the weeks of July bring no roll until its fourth ends (9: advances).
    from test_silent_war_campaign_fidelity import end_turn

    game = Game(silent_war, [0, 9])
    game.set_up()
    game.interp.trace.events.clear()  # the set-up sorted the War Mix once
    game.set(year=1942, month="Jun", week=4, war_period="WP1", ships_sunk=80, tonnage_sunk=1000)
    end_turn(game)
    assert str(game.state["war_period"]) == "WP1" and len(rolls(game, "17.0 B")) == 1
    for _ in range(3):  # July, weeks 1-3 end
        end_turn(game)
    assert len(rolls(game, "17.0 B")) == 1 and not calls(game, "sort_war_mix")
    end_turn(game)  # the fourth week of July
    assert len(rolls(game, "17.0 B")) == 2
    assert str(game.state["war_period"]) == "WP2"
    assert len(calls(game, "sort_war_mix")) == 1  # re-sorted, now for War Period 2


# ---- [2.3 C1]/[3.11] TDC markers and No TDC Solution chits -----------------------------------


def test_tdc_markers_run_from_minus_3_to_plus_3_and_no_tdc_chits_are_in_the_cups_2_3_c1(
    silent_war: Checked,
) -> None:
    # [2.3 C1] "TDC markers have target modification values between -3 and +3 printed on
    # them." [3.11] "'No TDC Solution' chits ... are NOT placed in the pool of TDC markers, they
    # are placed in cups (A, B, C, & D) per the War Mix Table." (How many of each: provisional.)
    game = Game(silent_war)
    game.set_up()
    pool = list(game.state["tdc_pool"])
    assert pool and set(pool) <= set(range(-3, 4)) and {-3, 3} <= set(pool)
    chits = [u for u in game.call("war_mix_pieces") if u.attrs["no_tdc"]]
    assert chits  # in the cups, and a chit is a piece, not a value of the pool
    assert all(isinstance(v, int) for v in pool)


# ---- deviations found in this pass -----------------------------------------------------------


def test_points_taken_off_an_event_may_go_to_a_face_down_piece_with_a_tdc_marker_14_15(
    silent_war: Checked,
) -> None:
    # [14.15] "If a Japanese aircraft or Combat Event marker is revealed, remove the TDC
    # marker from it. Attack points allocated to an aircraft or Combat Event marker may be
    # reallocated to any other unit with a TDC marker on it." All six points went on the
    # chit; the only other unit with a TDC marker is a face-down Maru. Its d10 (6) is Tonnage
    # Doubled, which does not stop the attack.
    game = Game(silent_war, [6], give=[6])
    sub = game.sub_at_sea("Spearfish", "East China Sea")
    chit = unit(game, name="Chit", revealed=False, tdc=-1, event=True, tonnage=0)
    maru = unit(game, name="Maru", revealed=False, tdc=0, tonnage=4, defense=2, asw=0)
    game.set(display=(chit, maru), combatants=(sub,), tdc_pool=())
    game.call("allocate", sub=sub)
    assert chit.attrs["points"] == 0
    assert maru.attrs["points"] == sub.attrs["attack"]


# ---- [17.1] the worked example: "November, 1942 for example" ---------------------------------


def test_the_war_period_advances_automatically_after_the_last_box_november_1942_17_1(
    silent_war: Checked,
) -> None:
    # [17.1] "If the War Period has not advanced by the time all numbers for transition have
    # been attempted (November, 1942 for example), the War Period advances automatically."
    # War Period 1, the fourth week of November 1942 ends; the attempt (a 0) fails, and
    # November is the last month with a number for War Period 2: the War Period advances.
    from test_silent_war_campaign_fidelity import end_turn

    game = Game(silent_war, [0])
    game.set(year=1942, month="Nov", week=4, war_period="WP1", ships_sunk=80, tonnage_sunk=1000)
    end_turn(game)
    assert (str(game.state["month"]), game.state["year"]) == ("Dec", 1942)
    assert str(game.state["war_period"]) == "WP2"
    # and not a month earlier: October's failed attempt leaves War Period 1
    game = Game(silent_war, [0])
    game.set(year=1942, month="Oct", week=4, war_period="WP1", ships_sunk=80, tonnage_sunk=1000)
    end_turn(game)
    assert str(game.state["war_period"]) == "WP1"


def test_a_spotted_pack_in_a_tropical_storm_rolls_once_for_the_whole_pack_7_2_c_24_6(
    silent_war: Checked,
) -> None:
    # [7.2 C] "For any OpArea containing a Tropical Storm, roll a d10 for each Spotted
    # submarine. On a roll of 0-7, remove the Spotted Marker. (See also [24.6])." [24.6] "Any
    # SPOTTED result obtained by a member of a Wolfpack results in all members of that Wolfpack
    # being spotted. In the Conclude Turn Phase, one die roll is made for the entire pack. If
    # the result is removal of the spotted marker, markers are removed from all submarines in
    # the pack. Otherwise, the entire pack remains spotted." One roll, an 8: all stay spotted.
    game = Game(silent_war, [8, 0, 0])
    marianas = game.v("area", "Marianas")
    boats = [
        game.sub_at_sea(n, "Marianas", wolfpack=1, spotted=True) for n in ("Tang", "Wahoo", "Drum")
    ]
    marker = game.interp.call(
        "storm", {"area": marianas, "level": game.v("storm_level", "Tropical Storm")}
    )
    game.set(storms=[marker])
    game.call("immediate_weather_effects")
    assert len(rolls(game, "7.2 C")) == 1
    assert [b.attrs["spotted"] for b in boats] == [True, True, True]


def test_a_boat_ready_for_sea_may_transfer_to_another_base_15_1(silent_war: Checked) -> None:
    # [15.1] "Deployment Transit Movement / From a Base to an OpArea, OpArea to OpArea or Base
    # to Base / During the Operations Segment a submarine starting in the Ready for Sea Box of
    # a Base may (player's choice) move any number of OpAreas up to its speed." [15.0]
    # "Transit Movement is the only way a submarine may move to and from a Base." [24.2]
    # ("Wolfpacks cannot transfer from Base to Base") names the transfer as a move a single
    # boat makes. A boat ready at Pearl Harbor, Brisbane active: Brisbane is a destination.
    game = Game(silent_war, [0] * 6)
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = game.call(
        "start_at_base",
        name="Tautog",
        at=game.v("base", "Pearl Harbor"),
        box=game.v("base_box", "Ready for Sea"),
    )
    game.call("deploy", sub=sub)
    (offer,) = game.events("decision", name="target")
    assert "Brisbane" in [str(o) for o in offer.options]


@pytest.mark.parametrize("case", ["mechanical troubles", "special mission zone"])
def test_a_boat_placed_in_done_in_a_storm_rolls_for_storm_damage_without_endurance_7_21(
    silent_war: Checked, case: str
) -> None:
    # [7.21] Tropical Storm: "When a submarine is about to enter a Base or Tender, or be placed
    # in the 'Done' section of an OpArea, if it is in or has transited through or from a
    # Tropical Storm OpArea (but not a Typhoon OpArea), roll a d10. On a result of 0, the
    # submarine receives a Damaged marker." The effects are "in the OpArea and any connected
    # SMZs". [19.21 #4] even: "Place the submarine in the 'Done' section of the OpArea. It does
    # not have to roll on the Endurance Table"; [20.5] "Submarines in an SMZ skip the Endurance
    # check". Neither skips the storm: its roll, 0, damages the boat.
    if case == "mechanical troubles":
        game = event_chit_game(silent_war, [4, 4, 0])
        sub = spearfish(game)
        area = "East China Sea"
        game.call("combat_phase", sub=sub)
    else:
        game = Game(silent_war, [0])
        game.set(war_period="WP2")
        sub = game.sub_at_sea("Spearfish", "Solomons", smz=game.v("smz", "Guadalcanal"))
        sub.attrs["section"] = game.v("section", "operating")
        area = "Solomons"
    marker = game.interp.call(
        "storm", {"area": game.v("area", area), "level": game.v("storm_level", "Tropical Storm")}
    )
    game.set(storms=[marker])
    game.call("endurance_check", sub=sub)
    assert str(sub.attrs["section"]) == "done"
    assert [r.natural for r in rolls(game, "7.21")] == [0]
    assert sub.attrs["damage"] == 1


def test_a_boat_sent_home_by_a_combat_result_in_a_storm_rolls_for_storm_damage_7_21_15_22(
    silent_war: Checked,
) -> None:
    # [15.22] a boat forced to RTB "remains on, or is flipped to its Transit side, receives an
    # involuntary RTB marker, and is moved to the 'Done' section of the appropriate OpArea."
    # [7.21] "When a submarine is about to ... be placed in the 'Done' section of an OpArea, if
    # it is in ... a Tropical Storm OpArea ..., roll a d10. On a result of 0, the submarine
    # receives a Damaged marker." [4.0] 14.7: the Endurance Check is for "all submarines on
    # their Patrol side except Submarines with an RTB marker". Spearfish, in the East China Sea
    # under a Tropical Storm, is sent home by its combat (an RTB result); no Endurance roll, one
    # storm roll, a 0.
    game = Game(silent_war, [0])
    sub = game.sub_at_sea("Spearfish", "East China Sea")
    sub.attrs["section"] = game.v("section", "operating")
    marker = game.interp.call(
        "storm",
        {
            "area": game.v("area", "East China Sea"),
            "level": game.v("storm_level", "Tropical Storm"),
        },
    )
    game.set(storms=[marker])
    game.call("involuntary_rtb", sub=sub)  # the combat's RTB result
    game.call("endurance_check", sub=sub)  # as search_and_combat calls it after combat [14.7]
    assert rolls(game, "14.7") == []
    assert [r.natural for r in rolls(game, "7.21")] == [0]
    assert sub.attrs["damage"] == 1 and str(sub.attrs["section"]) == "done"


def test_a_pack_member_set_aside_in_a_storm_rolls_for_storm_damage_7_21_24_32(
    silent_war: Checked,
) -> None:
    # [24.32] a member "unable to intercept ... is set aside (but is still in the Wolfpack)
    # ... all surviving Wolfpack submarines (including those that did not intercept) are placed
    # in the 'Done' section of the OpArea ... submarines that did not attack do not have to do
    # an endurance check [14.7]." [7.21] "When a submarine is about to ... be placed in the
    # 'Done' section of an OpArea, if it is in ... a Tropical Storm OpArea ..., roll a d10."
    # A Barrier pack of three in the East China Sea, a Tropical Storm there; the search die is
    # 9 (+2 Barrier, -2 storm: box 9); the rest are the seeded dice.
    game = Game(silent_war, [9], barrier=True)
    game.set_up()
    game.set(year=1944, month="Jan")
    marker = game.interp.call(
        "storm",
        {
            "area": game.v("area", "East China Sea"),
            "level": game.v("storm_level", "Tropical Storm"),
        },
    )
    game.set(storms=[marker])
    members = [game.sub_at_sea(n, "East China Sea", wolfpack=1) for n in ("Tang", "Wahoo", "Drum")]
    for s in members:
        s.attrs["section"] = game.v("section", "operating")
    game.call("pack_search_and_combat", pack=1)
    (combat,) = calls(game, "pack_combat")
    aside = [s for s in members if s.attrs["name"] not in combat.args["attackers"]]
    assert aside  # this draw sets a member aside
    stormed = [e.args["sub"] for e in calls(game, "storm_damage_check")]
    for s in aside:
        assert str(s.attrs["section"]) == "done"
        assert s.attrs["name"] not in [e.args["sub"] for e in calls(game, "endurance_check")]
        assert s.attrs["name"] in stormed


def test_a_pack_member_may_leave_its_wolfpack_24_0(silent_war: Checked) -> None:
    # [24.0] "Submarines may leave a Wolfpack at any time, but once a submarine has left a
    # Wolfpack, it may not re-join it at sea later." A pack of three patrolling the East China
    # Sea through a whole Operations Segment (Patrol Movement, Search & Contact and Combat,
    # Transit Movement; the default player, seeded dice): somewhere the player is asked
    # whether a member leaves (a decision under [24.0]).
    game = Game(silent_war)
    game.set(year=1944, month="Jan")
    boats = [game.sub_at_sea(n, "East China Sea", wolfpack=1) for n in ("Tang", "Wahoo", "Drum")]
    for b in boats:
        b.attrs["section"] = game.v("section", "operating")
    for phase in ("unit_patrol_movement", "search_and_combat", "unit_transit_movement"):
        for b in boats:
            game.call(phase, sub=b)
    assert [d for d in game.events("decision") if str(d.rule).startswith("24.0")]


def test_a_member_that_leaves_a_pack_of_three_ends_the_pack_24_0_24_14(
    silent_war: Checked,
) -> None:
    # [24.0] "Submarines may leave a Wolfpack at any time" ... "The minimum number of
    # submarines a Wolfpack may have is three (3)." [24.14] "A Wolfpack which falls below three
    # submarines ceases to exist". Wahoo leaves its pack of three at the Patrol Movement: no
    # pack is left, and each boat makes its own Patrol Move (each asked where to go).
    game = Game(silent_war, [], leave=[False, True])
    game.set(year=1944, month="Jan")
    boats = [game.sub_at_sea(n, "East China Sea", wolfpack=1) for n in ("Tang", "Wahoo", "Drum")]
    for b in boats:
        b.attrs["section"] = game.v("section", "operating")
    for b in boats:
        game.call("unit_patrol_movement", sub=b)
    assert [b.attrs["wolfpack"] for b in boats] == [0, 0, 0]
    assert len(game.events("decision", name="move_to")) == 3


def test_every_pack_member_leaving_the_sea_of_japan_rolls_at_plus_two_19_1_24_4(
    silent_war: Checked,
) -> None:
    # [24.4] "Each submarine of a Wolfpack must undergo Transit Events. Each member must roll
    # separately for Transit Events as normal; however, each Wolfpack member subtracts one
    # (-1) from the Transit Event die roll." [19.1] "+2 drm if ... entering/leaving the Sea of
    # Japan". A pack of three patrol-moves from the Sea of Japan to the Empire Pacific: three
    # checks, each with the +2 and the -1.
    game = Game(silent_war, [0, 0, 0], move_to=["Empire Pacific"])
    game.set(year=1944, month="Jan")
    boats = [game.sub_at_sea(n, "Sea of Japan", wolfpack=1) for n in ("Tang", "Wahoo", "Drum")]
    for b in boats:
        b.attrs["section"] = game.v("section", "operating")
    game.call("unit_patrol_movement", sub=boats[0])
    assert all(str(b.attrs["area"]) == "Empire Pacific" for b in boats)
    checks = rolls(game, "19.1")
    assert len(checks) == 3
    for check in checks:
        terms = [(t.value, t.rule) for t in check.modifiers]
        assert (2, "19.1") in terms and (-1, "24.4") in terms


def test_a_pack_left_with_two_when_a_member_is_withdrawn_is_disbanded_24_14_8_0(
    silent_war: Checked,
) -> None:
    # [24.14] "A Wolfpack which falls below three submarines ceases to exist ... COMMENTARY ...
    # a pair of submarines operating together ... is not sufficient to qualify as a wolfpack
    # for rules purposes." [8.0] Withdrawals "must involuntarily RTB [15.22] if at sea";
    # [24.41] a member forced home drops out. Wahoo, of a pack of three, is withdrawn; the pack
    # bypasses its search; after the turn's movement Tang and Drum are no Wolfpack.
    game = Game(silent_war, [0] * 20, bypass=[True], go_home=[False])
    game.set(year=1944, month="Jan")
    boats = [game.sub_at_sea(n, "East China Sea", wolfpack=1) for n in ("Tang", "Wahoo", "Drum")]
    for b in boats:
        b.attrs["section"] = game.v("section", "operating")
    game.call("withdraw_for_overhaul", name="Wahoo")
    for phase in ("search_and_combat", "unit_transit_movement"):
        for b in boats:
            game.call(phase, sub=b)
    assert str(boats[1].attrs["rtb"]) == "involuntary" or boats[1].attrs["base"] is not None
    assert [boats[0].attrs["wolfpack"], boats[2].attrs["wolfpack"]] == [0, 0]


def test_a_pack_at_its_base_left_with_two_by_a_withdrawal_is_disbanded_24_14_8_0(
    silent_war: Checked,
) -> None:
    # [8.0] a withdrawn submarine at Pearl Harbor is "moved immediately to the 'U.S. West
    # Coast' Box"; [24.14] "A Wolfpack which falls below three submarines ceases to exist".
    # A pack of three formed in Pearl Harbor's Ready for Sea Box loses Wahoo to overhaul: the
    # two left are no Wolfpack, and deploy each for itself.
    game = Game(silent_war)
    game.set(year=1944, month="Jan")
    pearl = game.v("base", "Pearl Harbor")
    boats = [game.call("start_at_base", name=n, at=pearl) for n in ("Tang", "Wahoo", "Drum")]
    game.call("form_wolfpack", members=boats, pack=1)
    assert [b.attrs["wolfpack"] for b in boats] == [1, 1, 1]
    game.call("withdraw_for_overhaul", name="Wahoo")
    assert str(boats[1].attrs["box"]) == "U.S. West Coast"
    assert [b.attrs["wolfpack"] for b in boats] == [0, 0, 0]


def test_a_pack_that_moves_into_a_typhoon_is_disbanded_24_14_7_21(silent_war: Checked) -> None:
    # [24.14] "A wolfpack is also disbanded when in an OpArea with a Typhoon [7.21]." [7.21]
    # Typhoon: "The following effects are in place in the OpArea ... any formed Wolfpacks in
    # the OpArea are disbanded." ("Transit Events cannot occur in the OpArea": no die.) A pack
    # of three patrol-moves from the Marianas into the Carolines, where a Typhoon-1 is.
    game = Game(silent_war, [], move_to=["Carolines"])
    game.set(year=1944, month="Jan")
    carolines = game.v("area", "Carolines")
    marker = game.interp.call(
        "storm", {"area": carolines, "level": game.v("storm_level", "Typhoon-1")}
    )
    game.set(storms=[marker])
    boats = [game.sub_at_sea(n, "Marianas", wolfpack=1) for n in ("Tang", "Wahoo", "Drum")]
    for b in boats:
        b.attrs["section"] = game.v("section", "operating")
    game.call("unit_patrol_movement", sub=boats[0])
    assert all(b.attrs["area"] == carolines for b in boats)
    assert [b.attrs["wolfpack"] for b in boats] == [0, 0, 0]


def test_a_pack_whose_transit_ends_in_a_typhoon_is_disbanded_24_14_7_21(
    silent_war: Checked,
) -> None:
    # [24.14] "A wolfpack is also disbanded when in an OpArea with a Typhoon [7.21]." A pack of
    # three on its Transit side in the Marianas, bound for the Carolines, where a Typhoon-1 is,
    # makes its Transit Move there (the player's choice: the default player would head for a
    # calm OpArea instead, storm_sense.rk). No Transit Event in a Typhoon OpArea; each boat's
    # storm check [7.21] (undamaged: damaged on 0-1) rolls a 9.
    game = Game(silent_war, [9, 9, 9], heading="Carolines")
    game.set(year=1944, month="Jan")
    carolines = game.v("area", "Carolines")
    marker = game.interp.call(
        "storm", {"area": carolines, "level": game.v("storm_level", "Typhoon-1")}
    )
    game.set(storms=[marker])
    boats = [
        game.sub_at_sea(n, "Marianas", wolfpack=1, side=game.v("side", "transit"))
        for n in ("Tang", "Wahoo", "Drum")
    ]
    for b in boats:
        b.attrs["destination"] = carolines
    game.call("unit_transit_movement", sub=boats[0])
    assert all(b.attrs["area"] == carolines for b in boats)
    assert [r.natural for r in rolls(game, "7.21")] == [9, 9, 9]
    assert [b.attrs["wolfpack"] for b in boats] == [0, 0, 0]


def test_the_two_allied_super_skippers_are_not_drawn_by_us_boats_2_3_c2(
    silent_war: Checked,
) -> None:
    # [25.0] "SILENT WAR provides twenty-four named skippers, two of which are Allied
    # skippers". [2.3 C2] "British and Dutch skippers are used in certain scenarios and with the
    # optional Allied submarine rules (see [25.0])." [14.5] a U.S. boat's new skipper "is
    # randomly drawn": from the 22 U.S. markers in a U.S. campaign.
    game = Game(silent_war)
    game.set_up()
    assert len(game.state["skipper_pool"]) == 24 - 2
