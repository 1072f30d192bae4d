"""Every phase of the Silent War 2.1 sequence of play, resolved from the short campaign's
start with dice forced: a snapshot of each trace, and asserts on the numbers that matter."""

from __future__ import annotations

from typing import Any

from test_silent_war_rules import Game

from rulekit.book.checker import Checked
from rulekit.engine.dice import SeededDice
from rulekit.engine.trace import render_text
from rulekit.play.scenario import apply_scenario, find_scenario, load_scenario


def campaign(book: Checked, dice: list[int], **answers: Any) -> Game:
    """The short campaign set up on seeded dice (sorting the War Mix draws the Diligent
    Escorts [3.11]); the forced dice are the phase's."""
    game = Game(book, dice, **answers)
    scenario = load_scenario(book, find_scenario(book, "short_campaign"))
    forced = game.interp.dice
    game.interp.use_dice(SeededDice(0))
    apply_scenario(book, scenario, game.interp)
    game.interp.use_dice(forced)
    game.interp.trace.events.clear()
    return game


def sub_named(game: Game, name: str) -> Any:
    return next(s for s in game.state["subs"] if s.attrs["name"] == name)


def trace(game: Game) -> str:
    return "\n".join(render_text(game.interp.trace))


def test_war_event_phase_5_0(silent_war: Checked, snapshot: Any) -> None:
    # "If the die roll is 0, 1, 2, or 3, the player rolls again on the War Events Table"
    game = campaign(silent_war, [3, 5])
    game.call("war_event_phase")
    assert game.state["tf_only"] is True  # WP1 roll 5 on the (provisional) War Events Table
    assert trace(game) == snapshot
    quiet = campaign(silent_war, [4])
    quiet.call("war_event_phase")
    assert not quiet.events("lookup")


def test_one_time_event_happens_once_5_1(silent_war: Checked) -> None:
    game = campaign(silent_war, [0, 0, 0, 0])
    game.call("war_event_phase")
    game.call("war_event_phase")
    assert "Manila" not in [str(b) for b in game.state["active_bases"]]
    assert "Fall of Manila has already occurred: No Event" in [e.text for e in game.events("note")]


def test_intelligence_phase_7_1(silent_war: Checked, snapshot: Any) -> None:
    game = campaign(silent_war, [3])
    game.call("intelligence_phase")
    assert [str(a) for a in game.state["ultra_areas"]] == ["S. China Sea 2", "N. Philippine Sea"]
    assert trace(game) == snapshot


def test_weather_phase_7_2(silent_war: Checked, snapshot: Any) -> None:
    game = campaign(silent_war, [0, 1, 1])  # December: Formation Number 0
    game.call("weather_phase")
    (storm,) = game.state["storms"]
    assert (storm.attrs["area"].member, str(storm.attrs["level"])) == (
        "Marshalls",
        "Tropical Storm",
    )
    assert str(storm.attrs["area"]) == "Marshall Islands"  # as printed in the Weather table
    assert trace(game) == snapshot


def test_reinforcement_phase_8_0(silent_war: Checked, snapshot: Any) -> None:
    # fleet.rk: Drum (provisional) is received in March 1942 at Fremantle, not yet active:
    # "If a base of arrival is not yet active ... received at Pearl Harbor" [8.0]
    game = campaign(silent_war, [])
    game.set(year=1942, month="Mar", week=1)
    game.call("reinforcement_phase")
    drum = sub_named(game, "Drum")
    assert (str(drum.attrs["base"]), str(drum.attrs["box"]), str(drum.attrs["side"])) == (
        "Pearl Harbor",
        "Broom",
        "transit",
    )
    assert trace(game) == snapshot


def test_ready_phase_9_0(silent_war: Checked, snapshot: Any) -> None:
    # Pollack (Broom, Readiness 4): "roll = or < Readiness Rating"; Seal: Pier Side -> Ready
    game = campaign(silent_war, [5])
    game.call("ready_phase")
    assert str(sub_named(game, "Pollack").attrs["box"]) == "Pier Side"
    assert str(sub_named(game, "Seal").attrs["box"]) == "Ready for Sea"
    assert trace(game) == snapshot
    again = campaign(silent_war, [4])
    again.call("ready_phase")
    assert str(sub_named(again, "Pollack").attrs["box"]) == "Ready for Sea"


def test_repair_phase_10_0(silent_war: Checked, snapshot: Any) -> None:
    game = campaign(silent_war, [7, 6, 6])
    pearl = game.v("base", "Pearl Harbor")
    tautog, thresher, gudgeon = (sub_named(game, n) for n in ("Tautog", "Thresher", "Gudgeon"))
    tautog.attrs["box"] = game.v("base_box", "Repair 1")
    thresher.attrs["box"] = game.v("base_box", "Repair 2")
    gudgeon.attrs["box"] = game.v("base_box", "Repair 3")
    assert all(s.attrs["base"] == pearl for s in (tautog, thresher, gudgeon))
    game.call("repair_phase")
    # the (provisional) Pearl Harbor display: box 1 needs 7, box 2 needs 6, box 3 needs 5
    assert [str(s.attrs["box"]) for s in (tautog, thresher, gudgeon)] == [
        "Broom",
        "Repair 1",
        "Repair 3",
    ]
    assert trace(game) == snapshot


def test_prep_phase_11_0(silent_war: Checked) -> None:
    game = campaign(silent_war, [])
    game.call("prep_phase")
    assert all(
        str(s.attrs["section"]) == "operating"
        for s in game.state["subs"]
        if s.attrs["area"] is not None
    )


def test_patrol_movement_12_0(silent_war: Checked, snapshot: Any) -> None:
    game = campaign(silent_war, [2], move_to=["S. China Sea 2"])
    game.call("prep_phase")
    skipjack = sub_named(game, "Skipjack")
    game.call("patrol_movement", sub=skipjack)
    assert str(skipjack.attrs["area"]) == "S. China Sea 2"
    assert len(game.events("roll")) == 1  # "A roll is made for a Transit Event"
    assert trace(game) == snapshot


def test_search_and_combat_13_0_14_0(silent_war: Checked, snapshot: Any) -> None:
    game = campaign(silent_war, [9], bypass=["no"])
    game.call("prep_phase")
    game.interp.trace.events.clear()
    skipjack = sub_named(game, "Skipjack")
    game.call("search_and_combat", sub=skipjack)
    search = next(e for e in game.events("roll") if e.rule == "13.1 A")
    assert search.natural == 9
    assert skipjack.attrs["contact"] in ("C1", "C2", "TF")
    assert game.events("total", name="attack_value")  # a combat took place
    assert game.state["display"] == ()  # Clean-Up [14.8] returned every piece
    assert trace(game) == snapshot


def test_transit_movement_15_0(silent_war: Checked, snapshot: Any) -> None:
    game = campaign(silent_war, [], target=["Marshalls"])
    tautog = sub_named(game, "Tautog")
    game.call("transit_movement", sub=tautog)
    # Pearl Harbor -> Hawaiian Islands -> Marshalls: two OpAreas, Tautog's speed
    assert str(tautog.attrs["area"]) == "Marshalls"
    assert str(tautog.attrs["side"]) == "patrol"  # it intends to patrol there
    assert trace(game) == snapshot


def test_conclude_turn_phase_16_0(silent_war: Checked, snapshot: Any) -> None:
    game = campaign(silent_war, [0])
    sub_named(game, "Skipjack").attrs["spotted"] = True
    game.set(ultra_areas=[game.v("area", "Marianas")])
    game.call("conclude_turn_phase")
    assert sub_named(game, "Skipjack").attrs["spotted"] is False
    assert game.state["ultra_areas"] == ()
    assert (game.state["week"], str(game.state["month"]), game.state["year"]) == (3, "Dec", 1941)
    assert trace(game) == snapshot


def test_war_progress_phase_17_0(silent_war: Checked, snapshot: Any) -> None:
    # The end of the fourth week of a month with a number: roll + modification >= number.
    # War Progress follows Conclude Turn, which has moved the date to the week after [16.3].
    game = campaign(silent_war, [9])
    game.set(year=1942, month="Jul", week=1, ships_sunk=40, tonnage_sunk=600)
    game.call("war_progress_phase")
    assert str(game.state["war_period"]) == "WP2"
    assert game.events("lookup", table="war_period_modification")[0].result == 1
    assert trace(game) == snapshot
    below = campaign(silent_war, [9])
    below.set(year=1942, month="Jul", week=1, ships_sunk=5, tonnage_sunk=10)
    below.call("war_progress_phase")
    assert str(below.state["war_period"]) == "WP1"  # "automatically fails to advance"
