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
