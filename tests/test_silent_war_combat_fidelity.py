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

from rulekit.checker import Checked
from rulekit.runner import new_game
from rulekit.values import Entity


def calls(game: Game, procedure: str) -> list[Any]:
    return [e for e in game.events("call") if e.procedure == procedure]


def decisions(game: Game, name: str) -> list[Any]:
    return game.events("decision", name=name)


def notes(game: Game) -> list[str]:
    return [e.text for e in game.events("note")]


def col(game: Game, name: str) -> Any:
    return game.v("column", name)


# ---- [14.41] a second Re-Attack needs a Super Skipper ---------------------------------------


def reattack_game(silent_war: Checked, dice: list[int], skipper: int) -> Game:
    """A combat against a target that cannot be hit and escorts with no ASW: no die is
    thrown but the [14.41] one, so the rounds played show the rule alone."""
    game = Game(silent_war, dice, reattack=[True, True])
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


# ---- [14.15] Combat Events, Diligent Escorts revealed while targets are chosen ----------------


def targeting_game(silent_war: Checked, dice: list[int], chit: dict[str, Any]) -> Game:
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


def test_short_campaign_seed_37_plays_to_its_end_14_15(silent_war: Checked) -> None:
    # a Dead Torpedo revealed at [14.15] used to stop the game on the attack-points check
    result = new_game(silent_war, None, 37).play()
    assert result.reports and result.reports[-1].ended is not None


def test_no_withdrawal_after_a_diligent_escort_revealed_while_targeting_14_15(
    silent_war: Checked,
) -> None:
    # "a submarine damaged by a Diligent Escort may NOT choose to withdraw from combat at
    # this point." Crash dive 9 > 3 fails; the Diligent Escort line, 7: Damaged.
    diligent = {"diligent": True, "type": "DD", "tonnage": 2, "defense": 7, "asw": 3}
    game = targeting_game(silent_war, [1, 9, 7], diligent)
    sub = game.state["combatants"][0]
    assert sub.attrs["damage"] == 1
    assert not decisions(game, "withdraw_now")
    assert calls(game, "attack")  # combat goes on


def test_no_withdrawal_after_a_second_diligent_escort_of_a_deadly_division_14_13(
    silent_war: Checked,
) -> None:
    # "If a second Diligent Escort is revealed in the same column and Combat Event 5, Deadly
    # Division, occurred ... resolve as per the bullet above; however, no withdrawal is allowed."
    game = Game(silent_war, [9, 7])
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
            *(unit(game, **o) for o in others),
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


def test_an_ignored_gunnery_event_leaves_the_torpedo_attack_19_21_1(silent_war: Checked) -> None:
    # "If there is no revealed merchant/transport piece, or if there is a revealed IJN unit
    # (... DD ...), this event is ignored." Ignored, the attack round is the normal one.
    destroyer = {"name": "DD", "type": "DD", "tonnage": 2, "defense": 7, "asw": 1}
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
