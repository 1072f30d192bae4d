"""Attack Sub: the [13M] Convoy Screen played turn after turn with `rulekit run`.

The ship ratings, the deck and the action cards' values are provisional (not in the rules);
the checks below read them from the rulebook's tables and apply the rules' arithmetic to
them: [4.1] RN + Sensor value (+1 Active Sonar [4.21]) >= Detection Value, [6.5] Fire +
Attack Value - Evasive Action [7.1] + RN >= Defense Value, [9.5] X reads 0, [11.1] RN +
deck number >= 6, [3.5] the Hand refilled at the end of the turn.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

import pytest
from conftest import RULEBOOKS, run_cli
from tracing import find

from rulekit.book.checker import Checked
from rulekit.engine.dice import ForcedDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import DefaultPolicy
from rulekit.engine.values import unwrap
from rulekit.play.runner import Game, new_game
from rulekit.play.scenario import apply_scenario, find_scenario, load_scenario

BOOK = RULEBOOKS / "attack_sub"
DECK = list(range(1, 45))  # the provisional deck


def positions(*cards: int) -> list[int]:
    """The forced draws (positions in the Draw pile) that draw these cards in turn."""
    left = list(DECK)
    out = []
    for c in cards:
        out.append(left.index(c) + 1)
        left.remove(c)
    return out


def forced_game(book: Checked, draws: list[int]) -> Game:
    scenario = load_scenario(book, find_scenario(book, "convoy_screen"))
    interp = Interpreter(book, ForcedDice(positions(*draws)), DefaultPolicy())
    apply_scenario(book, scenario, interp)
    interp.trace.events.clear()
    return Game(book, scenario, interp, None, "default")


def cell(book: Checked, table: str, *keys: Any) -> Any:
    t = book.tables[table]
    read = [
        book.vocab.read(k, d.type) if isinstance(k, str) else k
        for k, d in zip(keys, t.dims, strict=True)
    ]
    return unwrap(t.lookup(read)[0].value)


def ships(game: Game) -> dict[str, dict[str, Any]]:
    return {s.attrs["name"]: s.attrs for s in game.interp.state.values["ships"]}


def level(game: Game, name: str) -> int:
    found = [
        c.attrs["level"] for c in game.interp.state.values["contacts"] if c.attrs["name"] == name
    ]
    assert len(found) == 1, name
    return int(found[0])


# ---- the scenario runs to its end ----------------------------------------------------------


def test_default_scenario_is_convoy_screen(sub: Checked) -> None:
    assert sub.book.default_scenario == "convoy_screen"
    assert sub.errors == [] and sub.warnings == []
    text = (BOOK / "scenarios" / "convoy_screen.toml").read_text(encoding="utf-8")
    forces = tomllib.loads(text)["start"][0]["args"]["forces"]
    # [13M] as printed: NATO, its Reinforcements 1-2, SOVIET, its Reinforcements 1-3
    assert forces == [
        "Arleigh Burke",
        "Bowen",
        "John Rodgers",
        "Los Angeles",
        "Ivan Rogov",
        "Skvortsov",
        "Yenisey",
        "Grif",
        "Sura",
    ]


def test_start_up(sub: Checked) -> None:
    game = new_game(sub, None, 1)
    fleet = ships(game)
    assert [n for n, s in fleet.items() if s["in_play"]] == [
        "Arleigh Burke",
        "Bowen",
        "Ivan Rogov",
        "Skvortsov",
    ]
    assert [fleet[n]["reinforcement"] for n in ("John Rodgers", "Los Angeles")] == [1, 2]
    assert [fleet[n]["reinforcement"] for n in ("Yenisey", "Grif", "Sura")] == [1, 2, 3]
    # [4.4] one marker per Soviet Sub on each NATO ship (5 x 4), the NATO Nationality marker
    # and the Los Angeles' own on each Soviet ship (2 x 5): 30, all at No Contact
    contacts = game.interp.state.values["contacts"]
    assert len(contacts) == 30 and all(c.attrs["level"] == 0 for c in contacts)
    # [3.5] both Hands filled: the provisional Hand Size is hand_base + one per Ship in play
    base = sub.book.consts["hand_base"].value.value
    values = game.interp.state.values
    assert len(values["nato_hand"]) == base + 2 and len(values["soviet_hand"]) == base + 2
    assert len(values["rn_deck"]) == 44 - 2 * (base + 2)


@pytest.mark.parametrize("seed", [1, 2])  # a Soviet and a NATO victory
def test_runs_to_the_end(sub: Checked, seed: int) -> None:
    game = new_game(sub, None, seed)
    result = game.play()
    final = result.final
    assert result.ended is not None and result.turns < 60
    fleet = ships(game)
    score = sum(
        1
        for s in fleet.values()
        if (str(s["side"]) == "NATO" and s["sunk"]) or (str(s["side"]) == "SOVIET" and s["exited"])
    )
    assert final["soviet_score"] == score
    if result.ended.startswith("SOVIET victory"):
        # [13M] "any combination of five sunken NATO ships and/or exited Soviet Subs"
        assert score >= 5
    else:
        # "NATO wins by avoiding the Soviet Victory Conditions": the game ended without 5
        assert result.ended == f"NATO victory: the Soviets scored {score} of 5" and score < 5
        last_deck = sub.book.consts["last_deck"].value.value
        left = [
            s
            for s in fleet.values()
            if str(s["side"]) == "SOVIET" and not s["sunk"] and not s["exited"]
        ]
        ended_11_3 = game.interp.call("scenario_ended", {})
        assert final["deck_number"] > last_deck or not left or ended_11_3


@pytest.mark.parametrize("seed", [10])
def test_cli_run_to_the_end(seed: int) -> None:
    result = run_cli("run", BOOK, "--seed", str(seed), "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["ended"] and len(data["reports"]) == data["turns"]
    assert data["provisional_scenario"].startswith("the scenario's length")
    assert any("const last_deck" in p for p in data["provisional_used"])
    assert [r["values"]["game_turn"] for r in data["reports"]] == list(range(1, data["turns"] + 1))


# ---- a NATO Player Turn with every card forced ----------------------------------------------

# Start-up draws: the NATO Hand, then the Soviet Hand (5 cards each).
NATO_HAND = [13, 7, 14, 10, 9]  # C/OR, Active Sonar, Weapon Lockon, Battle Stations, Technician
SOVIET_HAND = [31, 11, 3, 34, 18]  # Evasive Action, Passive Sonar, Contact Reduction, BS, BS
TURN = [
    6,  # [11.1] the reinforcement's RN: 5
    28,  # Arleigh Burke's Active Sonar check on Ivan Rogov: RN 5
    22,  # ... on Skvortsov: RN "X" [9.1]
    29,  # the Battle Stations attack on Ivan Rogov: RN 6
    40,  # the Hit result: SENSOR x2
    1,
    4,
    8,
    12,
    15,  # the NATO Hand refilled at the end of the turn
]


def nato_turn(book: Checked) -> Game:
    game = forced_game(book, NATO_HAND + SOVIET_HAND + TURN)
    nato = book.vocab.read("NATO", book.globals["first_player"])
    game.interp.call("player_turn", {"player": nato})
    return game


def test_forced_nato_turn(sub: Checked) -> None:
    game = nato_turn(sub)
    values = game.interp.state.values
    fleet = ships(game)

    # [11.1] card 13 is played for John Rodgers: RN 5 + deck 1 = 6 >= 6, it enters.
    assert fleet["John Rodgers"]["in_play"] is True and fleet["John Rodgers"]["entered_deck"] == 1
    assert [e.value for e in find(game.interp.trace, "value", name="modified")] == [5 + 1]

    # [4.1] Arleigh Burke searches both Soviet Subs with Active Sonar: Sensor value + 1 [4.21].
    sensor = cell(sub, "sensor_track", "Arleigh Burke", 0)
    detection = cell(sub, "ship_ratings", "Ivan Rogov").get("detection")
    search = find(game.interp.trace, "total", name="search_value")
    assert [t.total for t in search] == [sensor + 1]
    assert 5 + sensor + 1 >= detection  # RN 5: one box right on Ivan Rogov
    assert level(game, "NATO on Ivan Rogov") == 1
    # Skvortsov: an X [9.1] - the check fails and a -1 marker goes on the Sensor system;
    # [9.2] Bowen, another Surface Ship without a Sensor malfunction, keeps the contact.
    assert str(fleet["Arleigh Burke"]["sensor_malfunction"]) == "-1"
    assert level(game, "NATO on Skvortsov") == 0
    # [4.22] Ivan Rogov answers the Active Sonar with its Passive Sonar card (11).
    assert level(game, "Ivan Rogov on Arleigh Burke") == 1

    # [3.6] Battle Stations (card 10): Arleigh Burke attacks Ivan Rogov with card 14 (Contact
    # value within Level 1); [7.1] the Soviets answer with their Evasive Action card (31).
    lock = cell(sub, "lockon_cards", 14)
    attack_value = cell(sub, "attack_bottom", "Arleigh Burke", 0)
    evade = cell(sub, "evasion_cards", 31).get("number")
    strength = find(game.interp.trace, "total", name="attack_strength")
    assert len(strength) == 1
    assert [t.value for t in strength[0].terms] == [lock.get("fire"), attack_value, -evade]
    total = lock.get("fire") + attack_value - evade
    defense = cell(sub, "ship_ratings", "Ivan Rogov").get("defense")
    assert total + 6 >= defense  # RN 6: a hit
    # [6.5] SENSOR x2: the Sensor Value marker two boxes right; [6.6] damaged
    ivan = fleet["Ivan Rogov"]
    assert (ivan["sensor_box"], ivan["attack_box"], ivan["damaged"], ivan["sunk"]) == (
        2,
        0,
        True,
        False,
    )
    # [5.5] not played dead: NATO is at Level 1 only (the advice waits for Level 3)
    assert ivan["shutdown"] is False

    # Bowen has nothing to play; John Rodgers entered and takes no other action [11.1].
    assert values["acted"] == ("John Rodgers", "Arleigh Burke", "Bowen")
    # Cards played and drawn, in order
    assert values["discards"] == (13, 6, 7, 28, 22, 11, 10, 14, 31, 29, 40)
    assert values["soviet_hand"] == (3, 34, 18)
    # [3.5] refilled to the Hand Size, now with three NATO Ships in play
    base = sub.book.consts["hand_base"].value.value
    assert values["nato_hand"] == (9, 1, 4, 8, 12, 15)
    assert len(values["nato_hand"]) == base + 3


def test_reinforcement_fails_below_six(sub: Checked) -> None:
    # [11.1] RN 4 + deck 1 = 5 < 6: John Rodgers stays out, the C/OR card is spent.
    turn = [5, 28, 22, 29, 40, 1, 4, 8, 12]
    game = forced_game(sub, NATO_HAND + SOVIET_HAND + turn)
    nato = sub.vocab.read("NATO", sub.globals["first_player"])
    game.interp.call("player_turn", {"player": nato})
    assert ships(game)["John Rodgers"]["in_play"] is False
    assert game.interp.state.values["discards"][:2] == (13, 5)
    # the Hand Size stays at two NATO Ships: 9 and four new cards
    assert len(game.interp.state.values["nato_hand"]) == 5


# ---- a short run, as printed ---------------------------------------------------------------


def test_short_run_snapshot(snapshot: Any) -> None:
    result = run_cli("run", BOOK, "--seed", "3", "--turns", "8")
    assert result.exit_code == 0, result.stderr
    assert "turns played: 8" in result.stdout and "result: not over yet" in result.stdout
    assert result.stdout == snapshot
    data = json.loads(run_cli("run", BOOK, "--seed", "3", "--turns", "8", "--json").stdout)
    for report in data["reports"]:
        v = report["values"]
        # [13M] no exit before a whole deck in play: the starting Subs from deck 2 on
        assert v["soviet_exited"] == 0 or v["deck_number"] >= 2
        # 2 + 2 Ships at the start, the reinforcements later: never more than 4 NATO, 5 Soviet
        assert v["nato_in_play"] + v["nato_sunk"] <= 4
        assert v["soviet_in_play"] + v["soviet_sunk"] + v["soviet_exited"] <= 5
