"""Empire of the Sun, Submarine Warfare variant: the campaign scenarios played with `rulekit run`.

Expected numbers are worked out by hand from the variant's rules ([11.21.B] Order of Battle,
[11.22.A] "(DR +/- SWM) - SLOC PV <= 0", [11.22.B] SWM factors and its -5 floor, [11.22.C]
count / 5 rounded to the nearest, [11.23] effects) applied to the scenario's (provisional)
SLOC counts, card plays and attack, which are read from the scenario file itself.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

import pytest
from conftest import RULEBOOKS, run_cli

from rulekit.book.checker import Checked
from rulekit.engine.dice import ForcedDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import DefaultPolicy
from rulekit.play.runner import Game
from rulekit.play.scenario import apply_scenario, find_scenario, load_scenario

BOOK = RULEBOOKS / "eots_submarine_warfare"
SCENARIOS = BOOK / "scenarios"


def scenario_data(name: str) -> dict[str, Any]:
    return tomllib.loads((SCENARIOS / f"{name}.toml").read_text(encoding="utf-8"))


def forced_game(book: Checked, name: str, dice: list[int]) -> tuple[Game, ForcedDice]:
    """A game of the scenario whose dice are all forced (no seed behind them)."""
    scenario = load_scenario(book, find_scenario(book, name))
    source = ForcedDice(list(dice))
    interp = Interpreter(book, source, DefaultPolicy())
    apply_scenario(book, scenario, interp)
    interp.trace.events.clear()
    return Game(book, scenario, interp, None, "default"), source


def values(game: Game) -> dict[str, Any]:
    return game.interp.state.values


def run_json(*args: str) -> Any:
    result = run_cli("run", BOOK, *args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


# ---- the scenarios run to their end ---------------------------------------------------------


def test_rulebook_names_its_default_scenario(eots: Checked) -> None:
    assert eots.book.default_scenario == "campaign_1941"
    assert eots.errors == [] and eots.warnings == []
    assert eots.provisional_count == 0  # invented values live in the scenario file only


@pytest.mark.parametrize("seed", [1, 2, 3, 7, 11])
def test_default_scenario_runs_to_its_end(seed: int) -> None:
    data = run_json("--seed", str(seed))
    assert data["turns"] == 12 and len(data["reports"]) == 12
    assert data["ended"].startswith(f"{data['final']['total_successes']} successful Sub Base")
    assert data["provisional_scenario"].startswith("the variant's text gives")
    # [11.23] each success costs the Japanese one card (7 never comes near the floor of 4)
    assert data["final"]["cards_denied"] == data["final"]["total_successes"]
    assert [r["values"]["game_turn"] for r in data["reports"]] == list(range(1, 13))
    # the year of each turn, as the scenario gives it
    years = scenario_data("campaign_1941")["state"]["turn_years"]
    assert [r["values"]["year"] for r in data["reports"]] == years
    # [11.22.B] "it may not be less than -5"
    assert all(r["values"]["current_swm"] >= -5 for r in data["reports"])


@pytest.mark.parametrize("seed", [1, 4])
def test_1944_start_runs_turns_8_to_12(seed: int) -> None:
    data = run_json("--scenario", "campaign_1944", "--seed", str(seed))
    assert [r["values"]["game_turn"] for r in data["reports"]] == [8, 9, 10, 11, 12]
    assert data["ended"] and "successful Sub Base" in data["ended"]


# ---- [11.21.B] the Order of Battle, turn by turn ---------------------------------------------


def test_sub_bases_1941_order_of_battle(eots: Checked) -> None:
    # 1941 column: Wilkes in 2813; Lockwood (4) replaces it in situ on Turn 4, Fife replaces
    # Lockwood on Turn 6 and the new Lockwood (6) arrives that turn.
    game, _ = forced_game(eots, "campaign_1941", [9] * 20)
    units = []
    for _ in range(6):
        game.play(1)
        units.append([str(b.attrs["unit"]) for b in values(game)["sub_bases"]])
    assert units == [
        ["Wilkes"],
        ["Wilkes"],
        ["Wilkes"],
        ["Lockwood4"],
        ["Lockwood4"],
        ["Fife", "Lockwood6"],
    ]
    names = [b.attrs["name"] for b in values(game)["sub_bases"]]
    assert names == ["Fife", "Lockwood (6)"]


def test_1944_column_places_fife_and_lockwood_6(eots: Checked) -> None:
    # 1944: "Wilkes Replaced, Lockwood (4) Replaced, Fife 4024, Lockwood (6) 5108", SWM 0.
    # Turn 8 (1944): Fife 8 ports + Pusan + 1 resource + 1 HQ = 11 -> PV 2; Lockwood (6)
    # 4 + 2 + 1 = 7 -> PV 1. Both were on the map: both roll. DR 3: (3 + 0) - 2 = 1 fails;
    # DR 1: (1 + 0) - 1 = 0 succeeds -> ASP 4 -> 3, draw 7 - 1 = 6.
    game, dice = forced_game(eots, "campaign_1944", [3, 1])
    game.play(1)
    assert dice.used == 2
    v = values(game)
    assert [str(b.attrs["unit"]) for b in v["sub_bases"]] == ["Fife", "Lockwood6"]
    assert v["game_turn"] == 8 and v["year"] == 1944
    assert v["successful_sub_bases"] == 1 and v["japanese_asp"] == 3
    assert v["japanese_draw"] == 6 and v["current_swm"] == 0


# ---- [11.22] the success test, forced dice -------------------------------------------------


@pytest.mark.parametrize(("die", "success"), [(0, True), (1, True), (2, False), (9, False)])
def test_turn_5_boundary(eots: Checked, die: int, success: bool) -> None:
    # Turn 5 is 1943: SWM +1. Lockwood (4): 2 ports + 6 resources + 2 HQs = 10 -> PV 2.
    # (DR + 1) - 2 <= 0 for DR 0 and 1. Turns 1-4 fail with a 9.
    game, dice = forced_game(eots, "campaign_1941", [9, 9, 9, 9, die])
    game.play(5)
    assert dice.used == 5  # one Sub Base, one die a turn
    v = values(game)
    assert v["total_successes"] == (1 if success else 0)
    assert v["japanese_draw"] == (6 if success else 7)
    assert v["japanese_asp"] == (5 if success else 6)  # the default: reduce the ASP level


def test_1941_and_1942_need_impossible_rolls_with_wilkes(eots: Checked) -> None:
    # Turns 1-3, Wilkes: 3 resources + 1 HQ = 4 -> 0.8 -> PV 1; SWM +2 (1941, 1942).
    # (0 + 2) - 1 = 1 > 0: even a 0 fails.
    game, dice = forced_game(eots, "campaign_1941", [0, 0, 0])
    game.play(3)
    assert dice.used == 3 and values(game)["total_successes"] == 0


def test_whole_campaign_with_every_die_zero(eots: Checked) -> None:
    # Worked by hand, every DR 0 (SWM before the turn's card plays; reduce the ASP level
    # while more than one is left and not yet this turn, else the SWM):
    #  T1-3 Wilkes PV 1, SWM +2: 1 fails.
    #  T4 Lockwood (4) 8 -> PV 2, SWM +2: 0 succeeds, ASP 6 -> 5.
    #  T5 PV 2, SWM +1: -1 succeeds, ASP 4. First Convoy Escort Fleet played.
    #  T6 Fife 11 -> PV 2, SWM 1 + 2 = 3: 1 fails; Lockwood (6) just arrived: no roll.
    #     New Submarine Doctrine played.
    #  T7 SWM 1 + 2 - 2 = 1: Fife -1 (ASP 3), Lockwood (6) 7 -> PV 1: 0 (SWM reduced: 1).
    #     Grand Escort Command played.
    #  T8 SWM 0 + 2 + 2 - 2 - 1 = 1: Fife -1 (ASP 2), Lockwood (6) 0 (reductions 2).
    #  T9 SWM 0: Fife -2 (ASP 1), Lockwood (6) -1 (reductions 3). New Submarine Doctrine
    #     played; Lockwood (6) takes 15 hits and goes to the Turn Record Track.
    #  T10 SWM 4 - 4 - 3 = -3: Fife -5 (last ASP kept: reductions 4); Lockwood (6) was not on
    #     the map at the beginning of the Reinforcement Segment: no roll.
    #  T11 Fife 15 -> PV 3, Lockwood (6) 12 -> PV 2, SWM -4: both succeed, one SWM
    #     reduction (5): SWM -5.
    #  T12 SWM -5: both succeed, nothing more to reduce.
    game, dice = forced_game(eots, "campaign_1941", [0] * 17)
    result = game.play()
    assert dice.used == 17
    per_turn = [r.values["successful_sub_bases"] for r in result.reports]
    assert per_turn == [0, 0, 0, 1, 1, 0, 2, 2, 2, 1, 2, 2]
    swm = [r.values["current_swm"] for r in result.reports]
    # the SWM at the end of each turn (after the turn's card plays)
    assert swm == [2, 2, 2, 2, 3, 1, 2, 0, -3, -4, -5, -5]
    asp = [r.values["japanese_asp"] for r in result.reports]
    assert asp == [6, 6, 6, 5, 4, 4, 3, 2, 1, 1, 1, 1]
    draws = [r.values["japanese_draw"] for r in result.reports]
    assert draws == [7, 7, 7, 6, 6, 7, 5, 5, 5, 6, 5, 5]
    v = values(game)
    assert v["total_successes"] == 13 and v["successful_turns"] == 8
    assert v["cards_denied"] == 13 and v["asps_lost"] == 5 and v["swm_reductions"] == 5
    assert result.ended == (
        "13 successful Sub Base attack(s) in 8 game turn(s): the Japanese drew 13 Strategy "
        "Card(s) fewer and lost 5 ASP(s); SWM -5"
    )


def test_whole_campaign_with_every_die_nine(eots: Checked) -> None:
    # A 9 never succeeds: the best case is Turn 12, SWM 0 + 2 + 2 - 2 - 2 = 0 and Fife's PV 3.
    game, dice = forced_game(eots, "campaign_1941", [9] * 17)
    result = game.play()
    assert dice.used == 17
    assert values(game)["total_successes"] == 0
    assert result.ended.startswith("0 successful Sub Base attack(s) in 0 game turn(s)")


# ---- a short run, as printed ---------------------------------------------------------------


def test_short_run_snapshot(snapshot: Any) -> None:
    result = run_cli("run", BOOK, "--seed", "5", "--turns", "6")
    assert result.exit_code == 0, result.stderr
    assert "turns played: 6" in result.stdout
    assert result.stdout == snapshot
