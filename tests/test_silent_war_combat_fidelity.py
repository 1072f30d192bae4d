"""Silent War 2.1 combat-side rules read against the text: [13]-[14], [18]-[20], [23]-[24], [28].

Each test forces the dice, writes the situation the rule describes, and asserts what the
text says (../shared/seeds/000_0b28bf2899953500.txt). Ratings the rules do not print (the
counters, the provisional charts) are set explicitly in the test so the numbers asserted
follow from the text and the situation alone.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_silent_war_rules import Game, unit

from rulekit.book.checker import Checked
from rulekit.engine.values import Entity
from rulekit.play.runner import new_game


def calls(game: Game, procedure: str) -> list[Any]:
    return [e for e in game.events("call") if e.procedure == procedure]


def decisions(game: Game, name: str) -> list[Any]:
    return game.events("decision", name=name)


def notes(game: Game) -> list[str]:
    return [e.text for e in game.events("note")]


def col(game: Game, name: str) -> Any:
    return game.v("column", name)


# ---- [14.41] a second Re-Attack needs a Super Skipper ---------------------------------------


def reattack_game(
    silent_war: Checked, dice: list[int], skipper: int, reattack: list[bool] | None = None
) -> Game:
    """A combat against a target that cannot be hit and escorts with no ASW: no die is
    thrown but the [14.41] one, so the rounds played show the rule alone."""
    game = Game(silent_war, dice, reattack=[True, True] if reattack is None else reattack)
    sub = game.sub_at_sea("Skipjack", "East China Sea", skipper=skipper)
    game.set(display=(unit(game, tonnage=4, defense=9, asw=0, column=col(game, "A")),))
    game.call("combat_phase", sub=sub)
    return game


def test_no_second_reattack_without_a_super_skipper_even_on_a_zero_14_41(
    silent_war: Checked,
) -> None:
    # "A second Re-Attack may only occur if the player has a Super Skipper on the submarine
    # and rolls = or < the Super Skipper's rating." Without one, a 0 does not count.
    game = reattack_game(silent_war, [0], skipper=0)
    assert len(calls(game, "combat_round")) == 2  # the first round and one Re-Attack
    assert game.dice_left() == 1 and not game.events("roll")


@pytest.mark.parametrize(("die", "rounds"), [(1, 3), (2, 2)])
def test_second_reattack_with_a_plus_one_super_skipper_14_41(
    silent_war: Checked, die: int, rounds: int
) -> None:
    game = reattack_game(silent_war, [die], skipper=1)
    assert len(calls(game, "combat_round")) == rounds
    assert game.dice_left() == 0


def test_combat_ends_once_a_second_reattack_is_concluded_14_42(silent_war: Checked) -> None:
    # [14.42] "Once a second Re-Attack is concluded, combat ends." The player would go on
    # (a third "yes" is ready) but is not asked again.
    game = reattack_game(silent_war, [1], skipper=1, reattack=[True, True, True])
    assert len(calls(game, "combat_round")) == 3
    assert [d.choice for d in decisions(game, "reattack")] == [True, True]
    assert calls(game, "clean_up")


def test_no_counterattack_after_a_first_round_no_attack_could_hit_14_17(
    silent_war: Checked,
) -> None:
    # [14.17] "A. If no successful attack can be made in the first attack round, there is no
    # Counterattack [14.2]. The player may withdraw [14.3] or conduct a Re-Attack round [14.4]
    # normally. B. If no successful attack can be made in a Re-Attack round, a counterattack
    # round is conducted normally". The target's defense 9 cannot be reached.
    game = reattack_game(silent_war, [1], skipper=1)
    order = [
        e.procedure for e in game.events("call") if e.procedure in ("combat_round", "counterattack")
    ]
    assert order == [
        "combat_round",
        "combat_round",
        "counterattack",
        "combat_round",
        "counterattack",
    ]
    assert len(decisions(game, "reattack")) == 2  # A: offered as normal after the first round


def test_the_player_may_withdraw_after_the_counterattack_round_14_3(
    silent_war: Checked,
) -> None:
    # [14.3] "Once the Counterattack Round is over, the player may voluntarily withdraw the
    # submarine from combat. If the player voluntarily withdraws, proceed to Super Skipper
    # Determination": declining the Re-Attack after the first round ends the combat there.
    game = reattack_game(silent_war, [], skipper=0, reattack=[False])
    assert len(calls(game, "combat_round")) == 1
    (offer,) = decisions(game, "reattack")
    assert offer.choice is False
    order = [e.procedure for e in game.events("call")]
    assert order.index("clean_up") > order.index("combat_round")  # [14.5], then [14.8]
    assert game.state["end_combat"] is True


# ---- [14.15] Combat Events, Diligent Escorts revealed while targets are chosen ----------------


def targeting_game(
    silent_war: Checked, dice: list[int], chit: dict[str, Any], *others: dict[str, Any]
) -> Game:
    """Spearfish (6-3-4, tactical set to 2) in column B reveals two decoys [14.13], places
    its two TDC markers on a revealed 2-0 merchant with ASW 1 and on a face-down piece, and
    puts 3 attack points on each [14.15]: the face-down piece is turned up only then."""
    game = Game(
        silent_war,
        dice,
        column=["B"],
        to_reveal=["Decoy 1", "Decoy 2"],
        target=["Maru", "Chit"],
        give=[3, 3],
    )
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=2)
    b = col(game, "B")
    game.set(
        display=(
            unit(game, name="Maru", tonnage=4, defense=2, asw=1),
            unit(game, name="Chit", column=b, revealed=False, **chit),
            unit(game, name="Decoy 1", tonnage=2, revealed=False),
            unit(game, name="Decoy 2", tonnage=2, revealed=False),
            *(unit(game, **{**o, "column": col(game, o["column"])}) for o in others),
        ),
        combatants=(sub,),
        tdc_pool=(0, 0),
        torpedo=2,  # so that a 3-point attack on the Maru can hit: (3 + 2) - (2 + 1 + 0) = 2
    )
    game.call("combat_round", sub=sub)
    return game


EVENT = {"event": True, "tonnage": 0}


@pytest.mark.parametrize(
    ("name", "dice", "counterattacked"),
    [
        # [19.21 #2] 3, 4 Hot Run: "the current attack round is cancelled. Proceed to the
        # Counterattack round."
        ("Hot Run", [1, 2, 3, 0], True),
        # 7, 8, 9 Close call: "The current attack round is canceled including the counterattack."
        ("Close call", [1, 2, 7], False),
        # [19.21 #3] a successful crash dive [28.2] (0 <= 3): "Proceed to the Endurance check."
        ("Patrol Bomber", [1, 3, 0], False),
        # [19.21 #4] even: "There is no Combat Phase for the submarine this turn."
        ("Mechanical Troubles", [1, 4, 2], False),
        # [19.21 #8] "Resolve as per Combat Event #7 except the submarine cannot make an attack."
        ("Counterattack", [1, 8, 0], True),
    ],
)
def test_an_event_revealed_while_targeting_stops_the_attack_14_15(
    silent_war: Checked, name: str, dice: list[int], counterattacked: bool
) -> None:
    # "Resolve any Combat Event markers, Diligent Escorts, or aircraft revealed this way as
    # per [14.13]"; "The results of the Event supercede the rules in all cases" [19.2].
    game = targeting_game(silent_war, dice, EVENT)
    assert not calls(game, "attack"), name
    assert len(calls(game, "counterattack")) == (1 if counterattacked else 0)
    assert game.dice_left() == 0


@pytest.mark.parametrize(
    ("name", "dice"),
    [
        # 6 Dead Torpedo: "The submarine's attack value is halved (round down)"; then the
        # attack (9: a miss) and the counterattack (0: No Effect).
        ("Dead Torpedo", [1, 2, 6, 9, 0]),
        # 5 Premature Detonation: halved too; its own d10 (1 < Defense 3: no effect).
        ("Premature Detonation", [1, 2, 5, 1, 9, 0]),
    ],
)
def test_a_halved_attack_revealed_while_targeting_is_played_14_15(
    silent_war: Checked, name: str, dice: list[int]
) -> None:
    game = targeting_game(silent_war, dice, EVENT)
    sub = game.state["combatants"][0]
    # 6 halved, rounded down: 3 points, all on the one target left with a TDC marker
    maru = next(u for u in game.state["display"] if u.attrs["name"] == "Maru")
    assert maru.attrs["points"] == 3, name
    assert len(calls(game, "attack")) == 1
    assert len(calls(game, "counterattack")) == 1
    assert str(sub.attrs["status"]) == "active" and game.dice_left() == 0


def test_an_ignored_gunnery_event_revealed_while_targeting_keeps_every_point_14_15(
    silent_war: Checked,
) -> None:
    # [19.21 #1] revealed at [14.15] and ignored (a revealed DD, in column D): the torpedo
    # attack goes on, the 3 points of the chit reallocated to the Maru [14.15]. Dice: the TDC
    # draw, event 1, the attack (9: a miss), the counterattack (0).
    destroyer = {"name": "DD", "type": "DD", "tonnage": 2, "defense": 7, "asw": 1, "column": "D"}
    game = targeting_game(silent_war, [1, 1, 9, 0], EVENT, destroyer)
    maru = next(u for u in game.state["display"] if u.attrs["name"] == "Maru")
    assert maru.attrs["points"] == 6 and game.state["gunnery"] is False
    assert len(calls(game, "attack")) == 1 and game.dice_left() == 0


def test_short_campaign_seed_37_plays_to_its_end_14_15(silent_war: Checked) -> None:
    # a Dead Torpedo revealed at [14.15] used to stop the game on the attack-points check
    result = new_game(silent_war, None, 37).play()
    assert result.reports and result.reports[-1].ended is not None


def test_no_withdrawal_after_a_diligent_escort_revealed_while_targeting_14_15(
    silent_war: Checked,
) -> None:
    # "a submarine damaged by a Diligent Escort may NOT choose to withdraw from combat at
    # this point." Crash dive 9 > 3 fails; the Diligent Escort line, 8: Damaged (provisional).
    diligent = {"diligent": True, "type": "DD", "tonnage": 2, "defense": 7, "asw": 3}
    game = targeting_game(silent_war, [1, 9, 8], diligent)
    sub = game.state["combatants"][0]
    assert sub.attrs["damage"] == 1
    assert not decisions(game, "withdraw_now")
    assert calls(game, "attack")  # combat goes on


def test_no_withdrawal_after_a_second_diligent_escort_of_a_deadly_division_14_13(
    silent_war: Checked,
) -> None:
    # "If a second Diligent Escort is revealed in the same column and Combat Event 5, Deadly
    # Division, occurred ... resolve as per the bullet above; however, no withdrawal is allowed."
    # Crash dive 9 fails; the Diligent Escort line, 8: Damaged (provisional).
    game = Game(silent_war, [9, 8])
    sub = game.sub_at_sea("Spearfish", "East China Sea")
    first = unit(game, name="DE 1", diligent=True, type="DD", defense=7, asw=3)
    second = unit(game, name="DE 2", diligent=True, type="DD", defense=7, asw=3)
    game.set(display=(first, second), combatants=(sub,), deadly_division=True)
    game.call("diligent_escort_revealed", sub=sub, u=second)
    assert sub.attrs["damage"] == 1
    assert not decisions(game, "withdraw_now")
    assert game.state["end_combat"] is False


# ---- [19.21] Combat Events ------------------------------------------------------------------


def event_in_reveal(silent_war: Checked, dice: list[int], *others: dict[str, Any]) -> Game:
    """Spearfish (tactical 1) turns up a Combat Event chit in [14.13]; a revealed 2-0 Maru
    with ASW 1 is the target; the torpedo is at +2."""
    game = Game(silent_war, dice, column=["B"])
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=1)
    game.set(
        display=(
            unit(game, name="Chit", revealed=False, **EVENT),
            unit(game, name="Maru", tonnage=4, defense=2, asw=1),
            *(unit(game, **{**o, "column": col(game, o["column"])}) for o in others),
        ),
        combatants=(sub,),
        tdc_pool=(0, 0),
        torpedo=2,
    )
    game.call("combat_round", sub=sub)
    return game


def test_circular_run_comes_in_addition_to_the_attack_19_21_2(silent_war: Checked) -> None:
    # "0, 1, 2 — Circular Run: ... Conduct the Attack Round normally, but additionally conduct
    # an attack on your own submarine ... If the submarine survives proceed to the
    # Counterattack Round." Dice: event 2, malfunction 0, the TDC draw, the attack on the Maru
    # (9: (6 + 2) - (2 + 1 + 0) = 5, a miss), crash dive 9 > 3 fails, the circular run
    # (9 > (6 + 2 + 1) - (3 + 0) = 6: it misses), the counterattack (0).
    game = event_in_reveal(silent_war, [2, 0, 1, 9, 9, 9, 0])
    order = [
        e.procedure
        for e in game.events("call")
        if e.procedure in ("attack", "circular_run", "counterattack")
    ]
    assert order == ["attack", "circular_run", "counterattack"]
    circular = [e for e in game.events("roll") if e.rule == "19.21 #2"]
    assert circular[-1].natural == 9 and game.dice_left() == 0
    assert str(game.state["combatants"][0].attrs["status"]) == "active"


def test_counterattack_event_revealed_in_14_13_is_a_counterattack_19_21_8(
    silent_war: Checked,
) -> None:
    # "8 Counterattack: Escorts detect the submarine making its approach and hold it down.
    # Resolve as per Combat Event #7 except the submarine cannot make an attack."
    game = event_in_reveal(silent_war, [8, 0])
    assert len(calls(game, "counterattack")) == 1
    assert not calls(game, "attack") and game.dice_left() == 0


def test_counterattack_combat_the_escorts_attack_first_19_21_7(silent_war: Checked) -> None:
    # "7 Counterattack - Combat: ... the escorts attack first. If not sunk or forced to RTB,
    # the submarine attacks the surface ships. Conduct the initial attack round ([14.11] thru
    # [14.15]) then skip to the Counterattack Round [14.2]. If the submarine is not sunk or
    # forced to RTB, it may then attack normally as per [14.16]." Dice: event 7, the TDC draw,
    # the counterattack (0: no effect), the attack (9: a miss); no second counterattack.
    game = event_in_reveal(silent_war, [7, 1, 0, 9])
    order = [e.procedure for e in game.events("call") if e.procedure in ("attack", "counterattack")]
    assert order == ["counterattack", "attack"]
    assert game.dice_left() == 0


def test_combat_combat_an_extra_free_attack_and_no_counterattack_19_21_9(
    silent_war: Checked,
) -> None:
    # "9 Combat - Combat: The submarine eludes all escorts and attacks the surface ships. There
    # is no Counterattack, and the submarine gets an extra free attack before proceeding to
    # [14.3]." Dice: event 9, a TDC draw and an attack (9: a miss), twice.
    game = event_in_reveal(silent_war, [9, 1, 9, 1, 9])
    assert len(calls(game, "attack_round")) == 2 and len(calls(game, "attack")) == 2
    assert not calls(game, "counterattack")
    assert game.dice_left() == 0


def test_an_ignored_gunnery_event_leaves_the_torpedo_attack_19_21_1(silent_war: Checked) -> None:
    # "If there is no revealed merchant/transport piece, or if there is a revealed IJN unit
    # (... DD ...), this event is ignored." Ignored, the attack round is the normal one.
    destroyer = {"name": "DD", "type": "DD", "tonnage": 2, "defense": 7, "asw": 1, "column": "B"}
    game = event_in_reveal(silent_war, [1, 1, 9, 0], destroyer)
    assert game.state["gunnery"] is False
    assert len(calls(game, "attack")) == 1
    assert not game.state["combatants"][0].attrs["spotted"]


def test_a_diligent_escort_that_lumbers_in_is_rolled_for_19_21_0(silent_war: Checked) -> None:
    # "choose any face down Red Ball flagged ship ... reveal it, and determine if it is sunk
    # ... Note: A Diligent Escort revealed this way does not get to roll on the Counterattack
    # table as if revealed in [14.13]." It is rolled for; it does not counterattack.
    game = Game(silent_war, [4])
    sub = game.sub_at_sea("Spearfish", "East China Sea")
    escort = unit(
        game, name="DE", revealed=False, diligent=True, type="DD", tonnage=2, defense=7, asw=3
    )
    game.set(display=(escort,), combatants=(sub,))
    game.call("target_lumbers", sub=sub)
    assert escort.attrs["revealed"] is True
    lookups = [e.table for e in game.events("lookup")]
    assert lookups.count("attack_results") == 1 and "diligent_escort_table" not in lookups
    assert game.dice_left() == 0 and sub.attrs["damage"] == 0


# ---- [14.4] Re-Attack: reposition; [14.13] radar ----------------------------------------------


def test_reposition_to_an_adjacent_column_before_a_reattack_14_4(silent_war: Checked) -> None:
    # "Prior to Re-Attack combat, the player may reposition the submarine to an adjacent column."
    game = Game(silent_war, [], column=["B"], reattack=[True], reposition=["C"])
    sub = game.sub_at_sea("Skipjack", "East China Sea")
    game.set(display=(unit(game, tonnage=4, defense=9, asw=0, column=col(game, "A")),))
    game.call("combat_phase", sub=sub)
    (asked,) = decisions(game, "reposition")
    assert sorted(str(o) for o in asked.options) == ["A", "B", "C"]
    assert str(sub.attrs["column"]) == "C"


def test_radar_may_unflip_a_unit_revealed_in_a_reattack_14_4_b(silent_war: Checked) -> None:
    # "[14.4 B] If equipped with Radar (10/1943 to War End), the submarine may not "unflip" a
    # Japanese unit that was revealed in the first attack round." A unit revealed in the
    # Re-Attack itself may be.
    game = Game(silent_war, [], unflip=[True])
    game.set(year=1943, month="Oct")
    sub = game.sub_at_sea("Spearfish", "East China Sea", tactical=1)
    first = unit(game, name="Seen", tonnage=4)  # revealed in the first round
    one = unit(game, name="One", tonnage=4, revealed=False)
    two = unit(game, name="Two", tonnage=2, revealed=False)
    game.set(display=(first, one, two), combatants=(sub,))
    game.call("reveal_units", sub=sub, reattack=True)
    assert len(decisions(game, "unflip")) == 1
    assert (one.attrs["revealed"], two.attrs["revealed"]) == (False, True)


# ---- [14.6] Sub vs. Sub ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("area", "storm"), [("Java Sea", None), ("East China Sea", "Tropical Storm")]
)
def test_an_enemy_submarine_attacking_is_hurt_by_shallows_and_storms_14_6_e(
    silent_war: Checked, area: str, storm: str | None
) -> None:
    # "Total the following for the attacking submarine: 1. Its Attack Rating ... 3. Subtract
    # one (1) if in Shallow Waters [2.1]. 4. Subtract one (1) if in a Tropical Storm 5. ...
    # Japanese torpedoes have a value of -2." The enemy spots first (0 <= 2); I-boat drawn
    # (die 1); TDC -3: the target totals 3 - 3 = 0. Attack 4 - 1 - 2 = 1: a 2 misses.
    game = Game(silent_war, [0, 1, 2])
    sub = game.sub_at_sea("Spearfish", area)
    assert silent_war.tables["area_features"] is not None
    game.set(tdc_pool=(-3,))
    if storm is not None:
        level = game.v("storm_level", storm)
        game.set(storms=(game.call("storm", area=game.v("area", area), level=level),))
    else:
        assert game.call("area_features", area=game.v("area", area)).get("shallow") is True
    assert game.call("sub_vs_sub", sub=sub) == "missed"
    assert game.dice_left() == 0


def test_an_axis_submarine_sunk_scores_its_table_tonnage_14_6_f(silent_war: Checked) -> None:
    # "If an Axis submarine is sunk, advance the Ships Sunk marker by one and the Tonnage Sunk
    # marker by the appropriate amount." The amount is not printed: it is the (provisional)
    # tonnage of the Enemy Submarine Table, used and reported as provisional.
    game = Game(silent_war, [9, 1, 0, 9])  # player first; I-boat; hit 0; results 9 + -2 - 1
    sub = game.sub_at_sea("Spearfish", "East China Sea")
    game.set(tdc_pool=(-3,), torpedo=2)
    i_boat = game.call("enemy_submarines", war_period=game.v("war_period", "WP1"))[0]
    game.call("sub_vs_sub", sub=sub)
    assert game.state["ships_sunk"] == 1
    assert game.state["tonnage_sunk"] == i_boat.get("tonnage")
    assert any("enemy_submarines" in p for p in game.interp.trace.provisional_used)


# ---- [14.7] Endurance ------------------------------------------------------------------------


def test_an_aggressive_posture_of_an_earlier_combat_does_not_count_14_7(
    silent_war: Checked,
) -> None:
    # "+1 drm if the submarine was given an Attack Posture of Aggressive" -- this turn. A boat
    # that bypasses Search & Contact this turn has only the -2 drm [13.1].
    game = Game(silent_war, [], bypass=[True])
    sub = game.sub_at_sea("Spearfish", "East China Sea", posture=None)
    sub.attrs["posture"] = game.v("posture", "aggressive")
    sub.attrs["section"] = game.v("section", "operating")
    game.call("search_and_contact", sub=sub)
    assert game.call("endurance_drm", sub=sub) == -2


# ---- [28.1] Loners ---------------------------------------------------------------------------


def loner_game(silent_war: Checked, dice: list[int], **answers: Any) -> tuple[Game, Entity]:
    """War Period 1: the loner comes from cup A, which holds one 2-0 merchant with ASW 0."""
    game = Game(silent_war, dice, reattack=[False], **answers)
    sub = game.sub_at_sea("Spearfish", "East China Sea", contact="loner")  # [28.11]
    maru = unit(game, name="Loner", tonnage=4, defense=2, asw=0, revealed=False)
    game.set(cup_a=(maru,))
    return game, sub


def test_the_loner_placement_roll_places_the_submarine_28_13(silent_war: Checked) -> None:
    # "If the (modified) die roll is = or < the submarine's tactical rating, place the
    # submarine in the same column as the target; otherwise, place it in an adjacent column."
    # 9 > 4: column B, the one column next to A; no ordinary placement choice after it.
    game, sub = loner_game(silent_war, [9])
    game.call("loner_combat", sub=sub)
    assert str(sub.attrs["column"]) == "B"
    assert not decisions(game, "column")


def test_voluntary_surface_gunnery_against_a_loner_28_14(silent_war: Checked) -> None:
    # "the player may voluntarily invoke Combat Event #1 (Surface Gunnery Combat) with a +1
    # drm": placement 2 <= 4 (same column A), then the gunnery roll 4 + 1 on the 26-35 line.
    game, sub = loner_game(silent_war, [2, 4], guns=[True])
    game.call("loner_combat", sub=sub)
    (gun,) = [e for e in game.events("roll") if e.rule == "19.21 #1 B"]
    assert (gun.natural, gun.total) == (4, 5)
    assert sub.attrs["spotted"] is True  # "A. Place a Spotted marker on the submarine."
    assert not calls(game, "attack")  # no torpedoes this round


def test_an_aircraft_loner_is_negated_by_a_typhoon_28_14(silent_war: Checked) -> None:
    # "If the revealed unit is an aircraft, the aircraft receives a single counterattack round
    # after which combat ends (may be negated by Effects of Weather [7.21])." [7.21] Typhoon:
    # "Any Japanese aircraft revealed during combat is returned to the appropriate cup."
    game = Game(silent_war, [2])
    sub = game.sub_at_sea("Spearfish", "East China Sea")
    plane = unit(game, name="Air", type="Air", aircraft=True, asw=1, revealed=False)
    typhoon = game.call(
        "storm", area=game.v("area", "East China Sea"), level=game.v("storm_level", "Typhoon-1")
    )
    game.set(cup_a=(plane,), storms=(typhoon,))
    game.call("loner_combat", sub=sub)
    assert not calls(game, "counterattack")
    assert [u.attrs["name"] for u in game.state["cup_a"]] == ["Air"]


# ---- [28.4] Targeting an Escort --------------------------------------------------------------


@pytest.mark.parametrize(("mate_attacked", "offered"), [(True, False), (False, True)])
def test_targeting_an_escort_after_a_pack_mate_attacked_28_41_e(
    silent_war: Checked, mate_attacked: bool, offered: bool
) -> None:
    # "E. A member of a Wolfpack has already attacked, alerting the escorts (only the first
    # member of a pack can take advantage of this benefit)." Attacked -- whether it sank
    # anything or not.
    game = Game(silent_war)
    sub = game.sub_at_sea("Tang", "East China Sea", wolfpack=1)
    mate = game.sub_at_sea("Wahoo", "East China Sea", wolfpack=1, column=col(game, "D"))
    escort = unit(game, name="DD", type="DD", tonnage=2, defense=7, asw=1, points=6, tdc=0)
    game.set(
        display=(escort,),
        combatants=(sub, mate),
        have_attacked=(mate,) if mate_attacked else (),
    )
    game.call("target_an_escort", sub=sub)
    assert bool(decisions(game, "escort")) is offered


# ---- [24] Wolfpacks --------------------------------------------------------------------------


def test_wolfpacks_are_formed_in_the_sequence_of_play_24_1(silent_war: Checked) -> None:
    # "Starting in October 1943, Wolfpacks may be formed. The submarines chosen must all be in
    # the Ready for Sea Box." Before the Operations Segment, where they "start out from their
    # Base at the same time" [24.0], and move as one unit [24.2].
    turn = repr(silent_war.book.sequences["turn"])
    for phase in ("wolfpack_formation_phase", "unit_patrol_movement", "unit_transit_movement"):
        assert phase in turn
    game = Game(silent_war)
    game.set(year=1943, month="Oct")
    pearl = game.v("base", "Pearl Harbor")
    boats = [
        game.call("start_at_base", name=n, at=pearl)
        for n in ("Tautog", "Thresher", "Gudgeon", "Triton")
    ]
    game.call("wolfpack_formation_phase")
    # [24.11] before the marker reaches nine: one pack, at most three submarines
    assert [b.attrs["wolfpack"] for b in boats] == [1, 1, 1, 0]
    game.call("wolfpack_formation_phase")
    assert boats[3].attrs["wolfpack"] == 0  # "only deploy one wolfpack at a time"


@pytest.mark.parametrize("cautious", [False, True])
def test_a_pack_leaves_its_base_and_arrives_together_24_2(
    silent_war: Checked, cautious: bool
) -> None:
    # "all members of a Wolfpack move together as if they were a single unit", a Cautious
    # Transit [15.25] of its leader too (before, the mates went at full speed without it)
    game = Game(silent_war, cautious=[cautious] * 3)
    game.set(year=1943, month="Oct")
    pearl = game.v("base", "Pearl Harbor")
    boats = [
        game.call("start_at_base", name=n, at=pearl) for n in ("Tautog", "Thresher", "Gudgeon")
    ]
    game.call("wolfpack_formation_phase")
    for b in boats:
        game.call("unit_transit_movement", sub=b)
    assert len({str(b.attrs["area"]) for b in boats}) == 1 and boats[0].attrs["area"] is not None
    assert len({str(b.attrs["destination"]) for b in boats}) == 1
    if cautious:  # one OpArea out: the one next to Pearl Harbor
        assert str(boats[0].attrs["area"]) == "Hawaiian Islands"


def test_wolfpack_limits_improve_the_turn_after_the_marker_reaches_nine_24_12(
    silent_war: Checked,
) -> None:
    # "The turn after the Wolfpack Experience marker reaches nine (9) ... up to three Wolfpacks
    # at a time ... may not exceed four (4) submarines."
    game = Game(silent_war)
    game.set(year=1944, month="Mar", week=2, wolfpack_experience=8)
    a = game.sub_at_sea("Tautog", "East China Sea", wolfpack=1, sank=1)
    b = game.sub_at_sea("Thresher", "East China Sea", wolfpack=1, sank=1)
    game.sub_at_sea("Gudgeon", "East China Sea", wolfpack=1)
    game.call("wolfpack_experience_check", pack=1)  # two subs of the pack sank ships [24.7]
    assert game.state["wolfpack_experience"] == 9
    assert list(game.call("wolfpack_limits")) == [1, 3]  # this turn: still [24.11]
    game.call("advance_date")
    assert list(game.call("wolfpack_limits")) == [3, 4]
    assert a.attrs["wolfpack"] == b.attrs["wolfpack"] == 1


def pack(game: Game, *names: str, column: str = "B") -> list[Entity]:
    return [
        game.sub_at_sea(n, "East China Sea", wolfpack=1, column=col(game, column)) for n in names
    ]


def test_pack_combat_places_every_sub_before_any_attack_24_53(silent_war: Checked) -> None:
    # "A. Assign subs to columns (max two per column)." Stale columns from earlier combats
    # (all three in B) do not count; then each attacks in turn, and the one Re-Attack round
    # comes after every member's round [24.55].
    game = Game(silent_war, [0, 0, 0], reattack=[True, True, True])
    tang, wahoo, drum = pack(game, "Tang", "Wahoo", "Drum")
    game.set(display=(unit(game, tonnage=4, defense=9, asw=0, column=col(game, "A")),))
    game.call("pack_combat", attackers=(tang, wahoo, drum))
    columns = [str(s.attrs["column"]) for s in (tang, wahoo, drum)]
    assert max(columns.count(c) for c in columns) <= 2
    order = [
        (e.event, e.name if e.event == "decision" else e.args.get("reattack"))
        for e in game.interp.trace.events
        if (e.event == "decision" and e.name in ("pack_column", "reattack"))
        or (e.event == "call" and e.procedure == "combat_round")
    ]
    assert (
        order
        == [("decision", "pack_column")] * 3
        + [("call", False)] * 3
        + [("decision", "reattack")] * 3
        + [("call", True)] * 3
    )


def test_a_diligent_escort_attacks_a_random_pack_member_24_51(silent_war: Checked) -> None:
    # "If a Diligent Escort counter is revealed, its attack is made on a randomly chosen
    # submarine." The draw picks the second; its crash dive fails (9); the Diligent Escort
    # line, 8: Damaged (provisional) -- on Wahoo, not on Tang that revealed it.
    game = Game(silent_war, [2, 9, 8])
    tang, wahoo = pack(game, "Tang", "Wahoo")
    escort = unit(game, name="DE", diligent=True, type="DD", defense=7, asw=3)
    game.set(display=(escort,), combatants=(tang, wahoo))
    game.call("diligent_escort_revealed", sub=tang, u=escort)
    assert (tang.attrs["damage"], wahoo.attrs["damage"]) == (0, 1)
    assert game.dice_left() == 0


def test_a_counterattack_event_holds_down_mates_near_escorts_24_52(silent_war: Checked) -> None:
    # [19.21 #8] "If this event occurs to a Wolfpack, the other submarines in the Wolfpack
    # that have not yet attacked and which have revealed escorts in the same or an adjacent
    # column may not attack this round. Those that do not may attack normally."
    game = Game(silent_war, [0])
    (wahoo,) = pack(game, "Wahoo")
    escort = unit(game, name="DD", type="DD", tonnage=2, defense=7, asw=1)
    game.set(display=(escort, unit(game, name="Maru", tonnage=4)), combatants=(wahoo,))
    game.set(held_down=True, tdc_pool=(0,))
    game.call("pack_member_round", sub=wahoo, reattack=False)
    assert not calls(game, "attack") and len(calls(game, "counterattack")) == 1


def test_tonnage_doubled_only_for_the_sub_that_revealed_it_24_52(silent_war: Checked) -> None:
    # "Combat Events [19.2] only apply to the submarine that reveals the event chit except for
    # Event 5"; #6 "double the tonnage of the largest merchant ship sunk".
    game = Game(silent_war)
    tang, wahoo = pack(game, "Tang", "Wahoo")
    small = unit(game, name="Small", tonnage=5)
    big = unit(game, name="Big", tonnage=7)
    game.call("sink_unit", sub=tang, target=small)
    game.call("sink_unit", sub=wahoo, target=big)
    game.set(doubled_for=("Tang",))
    before = game.state["tonnage_sunk"]
    game.call("tonnage_doubled_bonus", sub=wahoo)
    game.call("tonnage_doubled_bonus", sub=tang)
    assert game.state["tonnage_sunk"] - before == 5


def test_deadly_division_does_not_carry_into_a_pack_combat_24_52(silent_war: Checked) -> None:
    # [19.21 #5] Deadly Division lasts "during this attack"; a pack's combat starts without it.
    game = Game(silent_war)
    (tang,) = pack(game, "Tang")
    game.set(deadly_division=True, display=())
    game.call("pack_combat", attackers=(tang,))
    assert game.state["deadly_division"] is False


def test_only_the_drawn_pack_member_meets_an_enemy_sub_and_rolls_endurance_14_6_a(
    silent_war: Checked,
) -> None:
    # "randomly select one of the player submarines to encounter the enemy submarine. The
    # other submarines are not involved and make no Endurance Checks". Dice: search 0 (white)
    # and 0: a submarine [13.1 A]; the draw picks the second member; 5: the player detects
    # first; I-boat; the attack 9 misses; the drawn member's Endurance roll 0.
    game = Game(silent_war, [0, 0, 2, 5, 1, 9, 0])
    members = pack(game, "Tang", "Wahoo", "Drum")
    for m in members:
        m.attrs["section"] = game.v("section", "operating")
    game.set(tdc_pool=(0,))
    game.call("pack_search_and_combat", pack=1)
    assert len([e for e in game.events("roll") if e.rule == "14.7"]) == 1
    assert game.dice_left() == 0
    assert all(str(m.attrs["section"]) == "done" for m in members)


def test_a_new_pack_can_gain_experience_on_its_patrol_24_7(silent_war: Checked) -> None:
    # "A Wolfpack may only gain one experience point per patrol": per patrol, so a pack formed
    # later (here under the same number 1) may gain one on its own patrol.
    game = Game(silent_war)
    game.set(year=1943, month="Oct", wolfpack_xp_patrol=(1,))
    pearl = game.v("base", "Pearl Harbor")
    boats = [
        game.call("start_at_base", name=n, at=pearl) for n in ("Tautog", "Thresher", "Gudgeon")
    ]
    game.call("form_wolfpack", members=tuple(boats), pack=1)
    for b in boats[:2]:
        b.attrs["sank"] = 1
    game.call("wolfpack_experience_check", pack=1)
    assert game.state["wolfpack_experience"] == 1


# ---- [14.15]/[14.8] a TDC marker taken off goes back into the draw pool ---------------------


def test_points_taken_off_an_event_never_stay_on_a_face_down_aircraft_14_15(
    silent_war: Checked,
) -> None:
    # "Attack points allocated to an aircraft or Combat Event marker may be reallocated to any
    # other unit with a TDC marker on it" [14.15], and "any unrevealed Japanese unit that is
    # being targeted is now turned face up": a face-down piece taking them is turned up first,
    # and an aircraft found there loses its TDC marker and the points in turn, so no attack
    # is ever made on a face-down aircraft (bench/campaigns.py, random policy, full campaign
    # seed 144, turn 91: points left on a face-down aircraft stopped the game on the Attack
    # Results Table, "no row for tonnage = 0"). All six points on the Combat Event chit; its
    # d10, 6: Tonnage Doubled [19.21 #6]; the plane, outside any storm, stays on the display.
    game = Game(silent_war, [6], give=[6])
    sub = game.sub_at_sea("Spearfish", "East China Sea")
    chit = unit(game, name="Chit", revealed=False, tdc=-1, event=True, tonnage=0)
    plane = unit(game, name="Plane", revealed=False, tdc=-2, aircraft=True, tonnage=0)
    game.set(display=(chit, plane), combatants=(sub,), tdc_pool=())
    game.call("allocate", sub=sub)
    assert chit.attrs["revealed"] is True and chit.attrs["points"] == 0
    assert plane.attrs["revealed"] is True
    assert plane.attrs["points"] == 0 and plane.attrs["tdc"] is None
    assert sorted(game.state["tdc_pool"]) == [-2, -1]
    assert game.dice_left() == 0


def test_a_tdc_marker_taken_off_a_revealed_aircraft_goes_back_to_the_pool_14_15(
    silent_war: Checked,
) -> None:
    # "If a Japanese aircraft or Combat Event marker is revealed, remove the TDC marker from
    # it" [14.15]; TDC markers are returned "to the draw pool" [14.8]. Both markers (0, 0)
    # were drawn; the one on the aircraft is back in the pool, the Maru keeps its own.
    # dice: the first TDC draw (the second takes the last marker), the attack on the Maru
    # (2, then 2 on the Attack Results Table), the counterattack (0)
    game = targeting_game(silent_war, [1, 2, 2, 0], {"aircraft": True, "tonnage": 0, "asw": 1})
    chit = next(u for u in game.state["display"] if u.attrs["name"] == "Chit")
    assert chit.attrs["tdc"] is None and chit.attrs["points"] == 0
    assert list(game.state["tdc_pool"]) == [0]
    assert game.dice_left() == 0


def test_a_piece_returned_to_its_cup_gives_back_its_tdc_marker_14_8(silent_war: Checked) -> None:
    game = Game(silent_war, [])
    plane = unit(game, name="Air", aircraft=True, tdc=2)
    game.set(display=(plane,), tdc_pool=(1,))
    game.call("return_to_cup", u=plane)
    assert plane.attrs["tdc"] is None
    assert sorted(game.state["tdc_pool"]) == [1, 2]


def test_sinking_a_hospital_ship_is_an_involuntary_rtb_28_3(silent_war: Checked) -> None:
    # [28.3] "the ship is counted towards ships sunk but no tonnage is scored. The submarine
    # is marked as an involuntary RTB [15.22]", which [15.22] says flips it to its Transit
    # side and puts it in the "Done" section; "if the submarine has a Super Skipper, that
    # skipper is immediately relieved of command".
    game = Game(silent_war, [])
    sub = game.sub_at_sea("Spearfish", "East China Sea", skipper=1)
    sub.attrs["side"] = game.v("side", "patrol")
    sub.attrs["section"] = game.v("section", "operating")
    ship = unit(game, name="Asahi Maru", hospital=True, tonnage=9)
    game.set(display=(ship,), ships_sunk=0, tonnage_sunk=0)
    game.call("sink_unit", sub=sub, target=ship)
    assert game.state["ships_sunk"] == 1 and game.state["tonnage_sunk"] == 0
    assert str(sub.attrs["rtb"]) == "involuntary"
    assert str(sub.attrs["side"]) == "transit" and str(sub.attrs["section"]) == "done"
    assert sub.attrs["skipper"] == 0


def test_a_diligent_escort_weakened_by_a_cautious_sub_is_one_again_in_its_cup_14_12(
    silent_war: Checked,
) -> None:
    # [14.12] Cautious: "the Diligent Escort is treated as a normal DD with one (1) subtracted
    # from its ASW value" -- in that combat; the piece goes back to its cup as printed [14.8].
    game = Game(silent_war, [])
    printed = game.call("counter_types", category=game.v("category", "Diligent Escort"))
    escort = unit(
        game,
        name="Diligent Escort",
        category=game.v("category", "Diligent Escort"),
        diligent=False,
        asw=max(dict(printed.fields)["asw"] - 1, 0),
        cup=col(game, "C"),
    )
    game.set(display=(escort,), combatants=(), cup_c=())
    game.call("clean_up")
    assert list(game.state["cup_c"]) == [escort]
    assert escort.attrs["diligent"] is True
    assert escort.attrs["asw"] == dict(printed.fields)["asw"]


def test_a_pack_member_in_a_zone_leaves_it_after_its_pack_moved_20_5(silent_war: Checked) -> None:
    # [20.5] boats in an SMZ "must conduct voluntary RTB movement [15.21] in the Transit
    # Movement Phase of the current turn" -- a Wolfpack member too, even when the rest of its
    # pack has made its move already (before, it was skipped and stayed in the zone).
    game = Game(silent_war, [0] * 12)
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    boats = [game.sub_at_sea(n, "Marianas", wolfpack=1) for n in ("Tautog", "Thresher", "Gudgeon")]
    for b in boats:
        b.attrs["side"] = game.v("side", "transit")
        b.attrs["destination"] = game.v("area", "Carolines")
    in_zone = boats[2]
    in_zone.attrs["smz"] = game.v("smz", "Saipan")
    in_zone.attrs["side"] = game.v("side", "patrol")
    game.call("unit_transit_movement", sub=boats[0])
    game.call("unit_transit_movement", sub=in_zone)
    assert in_zone.attrs["smz"] is None
    assert str(in_zone.attrs["rtb"]) == "voluntary"


def test_a_pack_that_falls_below_three_is_disbanded_24_14(silent_war: Checked) -> None:
    # [24.14] "A Wolfpack which falls below three submarines ceases to exist ... If the
    # Wolfpack falls below three members due to a Transit Event or a member failing its
    # Endurance check, the pack is disbanded immediately." A pack of four loses one boat
    # forced home and stays a pack of three; losing a second, it is disbanded.
    game = Game(silent_war, [])
    tang, wahoo, drum, gato = pack(game, "Tang", "Wahoo", "Drum", "Gato")
    game.call("involuntary_rtb", sub=tang)
    game.call("left_the_pack", mates=(tang, wahoo, drum, gato))
    assert [s.attrs["wolfpack"] for s in (tang, wahoo, drum, gato)] == [0, 1, 1, 1]
    game.call("sub_sunk", sub=wahoo)
    game.call("left_the_pack", mates=(wahoo, drum, gato))
    assert [s.attrs["wolfpack"] for s in (wahoo, drum, gato)] == [0, 0, 0]
    assert "Wolfpack 1 is disbanded" in notes(game)


def test_each_pack_member_has_its_own_revealed_escort_level_24_54(silent_war: Checked) -> None:
    # [24.54] "If a submarine has an escort in its column, the escort's ASW factor is applied
    # to that submarine. If a submarine has an escort in an adjacent column, and no submarine
    # is in that column, the escort's ASW factor is applied to that submarine. The ASW level of
    # an aircraft is applied to all submarines regardless of column."
    game = Game(silent_war, [])
    tang, wahoo = pack(game, "Tang", "Wahoo", column="A")
    wahoo.attrs["column"] = col(game, "B")
    escort_b = unit(game, name="DD B", type="DD", asw=2, column=col(game, "B"))
    escort_c = unit(game, name="DD C", type="DD", asw=1, column=col(game, "C"))
    plane = unit(game, name="Plane", aircraft=True, asw=1, column=col(game, "D"))
    game.set(display=(escort_b, escort_c, plane), combatants=(tang, wahoo))
    # Tang (A): B is adjacent but Wahoo is in it; C is not adjacent; the aircraft counts
    assert game.call("revealed_asw", sub=tang) == 1
    # Wahoo (B): its own column's escort, C adjacent with no submarine in it, the aircraft
    assert game.call("revealed_asw", sub=wahoo) == 2 + 1 + 1
    # alone on the display, Tang would have B's escort as well
    game.set(combatants=(tang,))
    assert game.call("revealed_asw", sub=tang) == 2 + 1


def test_a_barrier_pack_searches_at_plus_two_and_intercepts_on_0_to_5_24_32(
    silent_war: Checked,
) -> None:
    # [24.31] "If deployed in a Group, the pack makes a single die roll on the Area Activity
    # Chart [13.1.A] with no (drm) modifier." [24.32] "If deployed in a Barrier ... with a +2
    # drm ... On a roll of 0-5 the submarine is able to intercept. On a roll of 6-9 the
    # submarine is unable to intercept".
    game = Game(silent_war, [5, 6])
    tang, _wahoo, _drum = pack(game, "Tang", "Wahoo", "Drum")
    group = game.call("search_drm", sub=tang)
    assert game.call("search_drm", sub=tang, barrier=True) == group + 2
    assert game.call("barrier_intercepts", sub=tang) is True
    assert game.call("barrier_intercepts", sub=tang) is False
    assert game.dice_left() == 0


def test_a_barrier_pack_contact_maker_and_interceptors_24_32(silent_war: Checked) -> None:
    # [24.32] "If contact is made, one randomly chosen submarine from the Wolfpack is assumed
    # to have made the contact. A separate die roll is then made for each additional submarine
    # in the pack ... On a roll of 0-5 the submarine is able to intercept. On a roll of 6-9 the
    # submarine is unable to intercept and is set aside (but is still in the Wolfpack) ...
    # submarines that did not attack do not have to do an endurance check [14.7]." The search
    # die is 9 (+2: box 9, High, in the East China Sea); the rest are the seeded dice.
    game = Game(silent_war, [9], barrier=True)
    game.set_up()
    members = pack(game, "Tang", "Wahoo", "Drum")
    for s in members:
        s.attrs["section"] = game.v("section", "operating")
    game.call("pack_search_and_combat", pack=1)
    (search,) = [e for e in game.events("roll") if e.rule == "13.1 A"]
    assert search.total == search.natural + 2
    (maker,) = [e for e in game.events("draw") if e.rule == "24.32"]
    intercepts = [e.natural for e in game.events("roll") if e.rule == "24.32"]
    assert len(intercepts) == 2  # one for each other member
    (combat,) = [e for e in game.events("call") if e.procedure == "pack_combat"]
    attackers = combat.args["attackers"]
    assert len(attackers) == 1 + sum(1 for r in intercepts if r <= 5)
    assert max(intercepts) >= 6 and min(intercepts) <= 5  # this draw: one of each
    checked = [e.args["sub"] for e in game.events("call") if e.procedure == "endurance_check"]
    aside = next(s for s in members if s.attrs["name"] not in attackers)
    assert aside.attrs["name"] not in checked and set(checked) <= set(attackers)
    # an attacker sent home by a counterattack leaves the area without an Endurance check
    for s in members:
        if s.attrs["name"] in attackers and s.attrs["name"] not in checked:
            assert str(s.attrs["rtb"]) != "none"
    assert str(aside.attrs["section"]) == "done"
    # set aside "but is still in the Wolfpack": it never drops out itself; the pack is only
    # disbanded [24.14] when an attacker sent home leaves fewer than three
    left = [e.args["sub"] for e in game.events("call") if e.procedure == "leave_wolfpack"]
    assert aside.attrs["name"] not in left
    assert aside.attrs["wolfpack"] == (0 if left else 1)
    assert maker is not None


def test_a_boat_sunk_by_damaged_and_rtb_takes_no_rtb_marker_18_12(silent_war: Checked) -> None:
    # [14.2] "Damaged + RTB" on a boat that already has a Damage marker: [18.12] "Should a
    # submarine receive a second Damage marker, a die is rolled: If the die result is > the
    # Defense rating of the submarine, it is sunk." A lost boat goes home no more: it takes
    # no involuntary RTB marker [15.22] and stays where it was lost.
    game = Game(silent_war, [5])  # 5 > Spearfish's Defense 3: sunk
    sub = game.sub_at_sea("Spearfish", "East China Sea", damage=1, defense=3)
    game.call(
        "apply_counterattack", sub=sub, result=game.v("counterattack_result", "Damaged + RTB")
    )
    assert str(sub.attrs["status"]) == "sunk"
    assert sub.attrs["rtb"] is None
    assert str(sub.attrs["side"]) == "patrol"
    assert game.dice_left() == 0
    # a 3 is not above Defense 3: a second Damage marker, and home she goes
    game = Game(silent_war, [3])
    sub = game.sub_at_sea("Skipjack", "East China Sea", damage=1, defense=3)
    game.call(
        "apply_counterattack", sub=sub, result=game.v("counterattack_result", "Damaged + RTB")
    )
    assert (str(sub.attrs["status"]), sub.attrs["damage"]) == ("active", 2)
    assert (str(sub.attrs["rtb"]), str(sub.attrs["side"])) == ("involuntary", "transit")
