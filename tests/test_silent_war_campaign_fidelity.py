"""Silent War 2.1 campaign-side rules played as written (issue 11): War Progress, victory,
reinforcements and withdrawals, the War Mix, transit, range, and the full campaign.

Every situation is written from the rules text (../shared/seeds/000_0b28bf2899953500.txt) and
the numbers asserted are the text's; where a chart is not printed the test asserts the rule's
mechanism (which box, which month, which piece), never a provisional value.
"""

from __future__ import annotations

from typing import Any

from test_silent_war_rules import Game

from rulekit.checker import Checked


def sub_named(game: Game, name: str) -> Any:
    return next(s for s in game.state["subs"] if s.attrs["name"] == name)


def rolls_of(game: Game, rule: str) -> list[Any]:
    return [e for e in game.events("roll") if e.rule == rule]


def notes(game: Game) -> list[str]:
    return [e.text for e in game.events("note")]


# ---- [17.0] War Progress, [16.1] victory first ---------------------------------------------------


def end_turn(game: Game) -> None:
    """The End Turn Segment [4.0 IV]: Conclude Turn [16.0], then War Progress [17.0]."""
    game.call("conclude_turn_phase")
    game.call("war_progress_phase")


def test_war_progress_is_rolled_after_the_fourth_week_17_0(silent_war: Checked) -> None:
    # "At the end of the fourth week of months marked with numbers in their boxes on the War
    # Period Transition Table, the player must determine if the War Period advances."
    # June 1944 is printed with a 9 for War Period 4 [28.5].
    game = Game(silent_war, [9, 9])
    game.set(year=1944, month="Jun", week=3, war_period="WP3", ships_sunk=700, tonnage_sunk=600)
    end_turn(game)  # the third week ends: no roll
    assert (str(game.state["month"]), game.state["week"]) == ("Jun", 4)
    assert rolls_of(game, "17.0 B") == []
    end_turn(game)  # the fourth week of June ends: one roll against June's 9
    (roll,) = rolls_of(game, "17.0 B")
    assert (str(game.state["month"]), game.state["week"]) == ("Jul", 1)
    assert roll.natural == 9
    assert str(game.state["war_period"]) == ("WP4" if roll.total >= 9 else "WP3")


def test_war_progress_uses_the_month_that_ended_17_0(silent_war: Checked) -> None:
    # January 1945 is the last War Period 4 box (printed "Jun 44 thru Jan 45" [28.5]): the end
    # of its fourth week is the last attempt, and failing it the War Period advances [17.1].
    game = Game(silent_war, [0])
    game.set(year=1945, month="Jan", week=4, war_period="WP3", ships_sunk=400, tonnage_sunk=0)
    wp4 = game.v("war_period", "WP4")
    end_turn(game)
    assert (str(game.state["month"]), game.state["year"]) == ("Feb", 1945)
    assert game.call("transition_number", to=wp4) is None  # February has no box ...
    assert str(game.state["war_period"]) == "WP4"  # ... yet January's attempt was made
    assert "all transition numbers have been attempted: automatic advance" in notes(game)


def test_victory_is_checked_first_in_conclude_turn_16_1(silent_war: Checked) -> None:
    # [16.1] "Check victory conditions for victory or defeat. If either is achieved, play ends
    # immediately." Nothing after it: no Spotted roll, no date advance, no War Progress roll.
    game = Game(silent_war, [0, 0])
    game.set(
        year=1942, month="Nov", week=4, war_period="WP1", ships_sunk=100, tonnage_sunk=1000
    )
    game.set(victory_conditions="short_campaign")
    game.sub_at_sea("Spearfish", "East China Sea", spotted=True)
    end_turn(game)
    assert game.state["game_result"] == "victory: the tonnage goal is met"
    assert (str(game.state["month"]), game.state["week"]) == ("Nov", 4)
    assert game.events("roll") == []
    assert str(game.state["war_period"]) == "WP1"
    assert game.call("victory_reached") == "victory: the tonnage goal is met"


# ---- [28.5] Early Advancement into War Period 4 ---------------------------------------------------


def test_early_advancement_never_delays_war_period_4_28_5(silent_war: Checked) -> None:
    # [28.5] is "an early transition to War Period 4": reached in August 1944, whose printed
    # box is 7 (June 9, July 8 ...), the trigger must not make August a 9.
    game = Game(silent_war, [0])
    game.set(year=1944, month="Aug", week=2, war_period="WP3", ships_sunk=860, tonnage_sunk=3800)
    game.call("war_progress_phase")
    assert game.state["early_wp4_from"] is not None
    wp4 = game.v("war_period", "WP4")
    numbers = {}
    for month in ("Aug", "Sep", "Oct"):
        game.set(month=month)
        numbers[month] = game.call("transition_number", to=wp4)
    assert numbers == {"Aug": 7, "Sep": 6, "Oct": 5}


def test_early_advancement_sequence_ends_with_automatic_advance_28_5(silent_war: Checked) -> None:
    # The [28.5] example: March 1944 is 9, April 8, May 7 ...: the 2 (as printed for the last
    # box, January 1945) falls in October 1944, after which the War Period advances [17.1].
    game = Game(silent_war, [0])
    game.set(year=1944, month="Mar", week=2, war_period="WP3", ships_sunk=860, tonnage_sunk=3900)
    game.call("war_progress_phase")
    wp4 = game.v("war_period", "WP4")
    game.set(month="Oct")
    assert game.call("transition_number", to=wp4) == 2
    assert game.call("last_transition_month", to=wp4) is True
    game.set(month="Sep")
    assert game.call("last_transition_month", to=wp4) is False
