"""The sub-commander patrol (seed 002) played box by box: whole patrols with ``rulekit run``,
and the key branches of a travel box with the dice forced.

Every expected number below is worked out by hand from the charts in
../shared/seeds/002_be4ecad555d5eb36.txt, for the scenario's boat and date: a Gato with a
Trained crew, SJ radar and a 3" deck gun, from Pearl Harbor in October 1943 ([P1p] column
"1943 Jul - Dec", [S2] row "9/43-12/43", [E3] column "Air/Escort July 43+", [E2] "+1 1943-44",
[A1] "-1 1943"). The patrol track (2 Transit boxes, 4 patrol-area boxes, 2 Transit boxes home)
and the boat data (24 torpedoes, 6 forward and 4 aft tubes, 6 hull boxes, 4 diesels) are the
rulebook's provisional values.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import RULEBOOKS, run_cli

from rulekit.book.checker import Checked
from rulekit.engine.dice import ForcedDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import ScriptedPolicy
from rulekit.engine.trace import DecisionEvent, LookupEvent, NoteEvent, RollEvent
from rulekit.engine.values import to_json
from rulekit.play.runner import new_game
from rulekit.play.scenario import apply_scenario, find_scenario, load_scenario

BOOK = str(RULEBOOKS / "steel_wolves_like")
ENDINGS = (
    "victory: a successful patrol",
    "draw: an unsuccessful patrol",
    "defeat: the Captain is KIA",
)


class Patrol:
    """The scenario "patrol" set up, with every die forced (none may be left over or missing)."""

    def __init__(self, book: Checked, dice: list[int], **answers: Any) -> None:
        self.book = book
        self.dice = ForcedDice(list(dice))
        scripted = {k: v if isinstance(v, list) else [v] for k, v in answers.items()}
        self.interp = Interpreter(book, self.dice, ScriptedPolicy(scripted))
        apply_scenario(book, load_scenario(book, find_scenario(book, "patrol")), self.interp)
        self.interp.trace.events.clear()

    def __getitem__(self, name: str) -> Any:
        return to_json(self.interp.state.values[name])

    def set(self, **values: Any) -> None:
        for key, value in values.items():
            if isinstance(value, str):
                value = self.book.vocab.read(value, self.book.globals[key])
            self.interp.state.values[key] = value

    def call(self, procedure: str) -> Any:
        return self.interp.call(procedure, {})

    def box(self) -> None:
        """One turn's travel box and what follows it."""
        self.call("travel_box_phase")
        self.call("end_of_box_phase")
        self.call("return_to_base_phase")

    def all_dice_used(self) -> bool:
        return self.dice.used == len(self.dice.values)

    def lookups(self, table: str) -> list[LookupEvent]:
        return [
            e for e in self.interp.trace.events if isinstance(e, LookupEvent) and e.table == table
        ]

    def rolls(self, rule: str) -> list[RollEvent]:
        return [e for e in self.interp.trace.events if isinstance(e, RollEvent) and e.rule == rule]

    def notes(self) -> list[str]:
        return [e.text for e in self.interp.trace.events if isinstance(e, NoteEvent)]

    def decisions(self) -> dict[str, Any]:
        return {e.name: e.choice for e in self.interp.trace.events if isinstance(e, DecisionEvent)}

    def crewman(self, name: str) -> Any:
        return next(c for c in self.interp.state.values["crewmen"] if c.attrs["name"] == name)


def assigned(book: Checked, assignment: list[int], dice: list[int], box: int = 2) -> Patrol:
    """A patrol given its assignment with ``assignment`` (2d6 on [P1p]), then placed after
    travel box ``box`` (default: the two outbound Transit boxes done)."""
    game = Patrol(book, assignment + dice)
    game.call("assignment_phase")
    game.set(box=box)
    game.interp.trace.events.clear()
    return game


# ---- whole patrols ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3, 8, 14, 23, 36, 37])
@pytest.mark.parametrize("policy", ["default", "random"])
def test_a_patrol_runs_to_its_end(steel_wolves: Checked, seed: int, policy: str) -> None:
    # what ``rulekit run rulebooks/steel_wolves_like --seed N [--policy random]`` plays
    result = new_game(steel_wolves, None, seed, policy).play()
    assert result.title == "A War Patrol from Pearl Harbor, October 1943"
    assert result.ended is not None
    assert result.ended in ENDINGS or result.ended.startswith("defeat: the boat is lost (")
    # 2 + 4 + 2 travel boxes, and one more with a Special Mission: 9 turns at most
    assert 1 <= result.turns <= 9
    final = result.final
    assert 0 <= final["torpedoes"] <= 24
    assert final["tonnage_sunk"] >= 500 * final["ships_sunk"]  # the smallest ships: 500 tons
    assert any("const transit_boxes" in p for p in result.provisional_used)


def test_rulekit_run_plays_the_default_scenario_to_its_end() -> None:
    result = run_cli("run", BOOK, "--seed", "3", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["title"] == "A War Patrol from Pearl Harbor, October 1943"
    assert data["ended"] in ENDINGS or data["ended"].startswith("defeat: the boat is lost (")
    assert data["turns"] <= 9 and len(data["reports"]) == data["turns"]
    assert data["provisional_scenario"].startswith("the charts give no scenario")


# ---- [P1p] assignment and the travel boxes ---------------------------------------------------


def test_assignment_and_track(steel_wolves: Checked) -> None:
    # [P1p] 1943 Jul - Dec, roll 5: "Empire" (no mission): 2 Transit, 4 Empire, 2 Transit boxes
    game = Patrol(steel_wolves, [2, 3])
    game.call("assignment_phase")
    assert game["assigned_area"] == "Empire" and game["mission"] is None
    kinds = [(b["kind"], b["out"]) for b in game["track"]]
    assert kinds == [("Transit", 1), ("Transit", 2)] + [("Patrol Area", 3)] * 4 + [
        ("Transit", 2),
        ("Transit", 1),
    ]
    crew = game.interp.state.values["crewmen"]
    assert [c.attrs["name"] for c in crew][-1] == "Crew 4"  # no Passenger
    # roll 2: "Marshalls - R", a Recon mission: its Mission Travel Box, and a Passenger aboard
    recon = Patrol(steel_wolves, [1, 1])
    recon.call("assignment_phase")
    assert recon["assigned_area"] == "Marshalls" and recon["mission"] == "R"
    assert [b["kind"] for b in recon["track"]][2:4] == ["Mission Travel Box", "Patrol Area"]
    assert len(recon["track"]) == 9
    assert recon.crewman("Passenger").attrs["wound"] is None
    assert game.all_dice_used() and recon.all_dice_used()


def test_a_travel_box_with_no_encounter(steel_wolves: Checked) -> None:
    # box 1 is Transit: [E1] Transit row 4 is "—"
    game = assigned(steel_wolves, [2, 3], [1, 3], box=0)
    game.box()
    assert game["box"] == 1 and game["area"] == "Transit"
    (row,) = game.lookups("encounter_chart")
    assert row.keys == {"roll": 4, "area": "Transit"} and row.result == "—"
    assert "No encounter. Proceed to next Travel Box." in game.notes()
    assert game["torpedoes"] == 24 and game["ships_sunk"] == 0
    assert not game["in_port"] and game.all_dice_used()


def test_the_patrol_ends_in_port_after_its_last_box(steel_wolves: Checked) -> None:
    # the eighth box (Transit, 1 out) with no encounter: home port, an unsuccessful patrol
    game = assigned(steel_wolves, [2, 3], [2, 2], box=7)
    game.box()
    assert game["in_port"] and game["patrol_done"]
    assert game.call("patrol_over") == "draw: an unsuccessful patrol"
    assert game["awards"] == []
    assert game.all_dice_used()


# ---- a ship encounter: a hit that sinks ------------------------------------------------------


def test_a_hit_that_sinks(steel_wolves: Checked) -> None:
    dice = [
        5, 6,  # [E1] 11, Marshalls: "Ship" (no escort)
        2,  # [E1] ship size 2: Small Ship
        1,  # roster a (provisional)
        14,  # [T1a] 14: 4000 P Macassar Maru -> [S3] 1,001-5,000 tons: 2 damage to sink
        5,  # [E1] Day or Night 5: Night
        3, 3,  # [S1] 6 - 1 Surface Torpedo Attack = 5, Medium Range "7 or less": Hit
        4,  # [S2] 9/43-12/43, Mk 14 duds on 1-2: 4 is no dud
        1,  # [S3] Torpedo 1: 4 damage >= 2: sunk
    ]  # fmt: skip
    # [P1p] 1943 Jul - Dec roll 6: "Marshalls"; box 3 is the first box in the patrol area
    game = assigned(steel_wolves, [3, 3], dice)
    game.box()
    assert game["box"] == 3 and game["area"] == "Marshalls"
    # the defaults: a night surface attack at Medium Range, two torpedoes
    assert game.decisions() == {
        "approach": "night surface attack",
        "fire_range": "Medium",
        "torpedoes_fired": 2,
    }
    (shot,) = game.rolls("S1")
    assert shot.natural == 6 and shot.total == 5
    assert [(t.value, t.label) for t in shot.modifiers] == [(-1, "Surface Torpedo Attack")]
    # the second torpedo is not fired at a ship already sunk; no escort, no detection
    assert game["torpedoes"] == 23
    assert game["ships_sunk"] == 1 and game["tonnage_sunk"] == 4000
    assert game["sunk_ships"] == ["Macassar Maru"]
    assert not game.lookups("escort_detection_chart")
    assert "Macassar Maru (4000 tons) sunk" in game.notes()
    assert game.all_dice_used()


def test_optional_circular_run_sinks_the_boat(steel_wolves: Checked) -> None:
    dice = [
        5, 6, 2, 1, 14, 5,  # the Macassar Maru by Night, as above
        6, 6,  # [S1] 12 - 1 = 11: Miss; a natural 12: "roll 2d6. If 12 again, go to [S4]"
        6, 6,  # 12 again
        6,  # [S4] 6: "Sub Sunk if no dud - roll on [S2]"
        3,  # [S2] 9/43-12/43 Mk 14 duds on 1-2: 3 is no dud: the boat is sunk
    ]  # fmt: skip
    game = assigned(steel_wolves, [3, 3], dice)
    game.set(circular_runs=True)
    game.box()
    assert game["boat_lost"] and game["loss"] == "Circular Run [S4]"
    assert game["torpedoes"] == 23  # the second torpedo is never fired
    assert game.all_dice_used()


# ---- escorts: detection, attack, damage, repair ----------------------------------------------


def test_detection_leads_to_an_escort_attack_and_damage(steel_wolves: Checked) -> None:
    dice = [
        3, 4,  # [E1] 7, Marianas: "Ship+Escort"
        6,  # Large Ship
        3,  # roster b (provisional)
        1,  # [T2b] 01: 10000 T Nampo Maru -> 10,000+ tons: 4 damage to sink
        2,  # Day: a submerged day attack (the default)
        6, 5,  # [S1] 11: Medium Range "8 or more": Miss
        6, 6,  # [S1] 12: Miss
        5, 4,  # [E2] 9 +1 1943-44 +1 Mk 14 Torpedo/Day = 11: "9-11 Detected"
        4, 4,  # [E3] Air/Escort July 43+, 8: "7-8 2 Hits"
        41,  # [E4] 41: Hull
        15,  # [E4] 15: Dive Planes
        5,  # [E5] Dive Planes repair, 5: "3-6 Inoperable"
    ]  # fmt: skip
    # [P1p] 1943 Jul - Dec roll 9: "Marianas"
    game = assigned(steel_wolves, [4, 5], dice)
    game.box()
    decisions = game.decisions()
    assert decisions["approach"] == "submerged day attack"
    assert decisions["go_deep"] == "no"
    # detected this round: the default is to break off
    assert decisions["attack_again"] == "break off"
    (detect,) = game.rolls("E2")
    assert detect.total == 11
    assert sorted(t.label for t in detect.modifiers) == ["1943-44", "Mk 14 Torpedo/Day"]
    (attack,) = game.lookups("escort_air_attack_chart")
    assert attack.keys["column"] == "Air/Escort July 43+" and attack.result == "2 Hits"
    assert [e.result for e in game.lookups("sub_damage")] == ["Hull", "Dive Planes"]
    assert game["hull_damage"] == 1
    assert game["inoperable"] == ["Dive Planes"] and game["damaged"] == []
    assert game["dive_planes_damaged"] is True  # [E2] +1, [A1] -1 from now on
    assert game["torpedoes"] == 22 and game["ships_sunk"] == 0
    assert not game["aborted"] and game.all_dice_used()


def escort_hits(diesel_hits: list[int], e3: list[int]) -> list[int]:
    """A Ship+Escort in the Marianas, two misses by day, detected, and the escorts' Hits."""
    return [3, 4, 6, 3, 1, 2, 6, 5, 6, 6, 5, 4, *e3, *diesel_hits]


def test_three_of_four_diesels_out_abort_and_roll_twice(steel_wolves: Checked) -> None:
    # [E3] 9: "9-10 3 Hits" on Diesel Eng 1, 2, 3; each repair 5: "5-6 Inoperable"
    dice = [*escort_hits([23, 25, 26], [4, 5]), 5, 5, 5]
    game = assigned(steel_wolves, [4, 5], dice)
    game.box()
    assert game["inoperable"] == ["Diesel Eng 1", "Diesel Eng 2", "Diesel Eng 3"]
    # [E5] "If ... 3 of 4 diesel engines are out, the sub aborts patrol after combat": from the
    # patrol area (3 out) home through the Transit boxes 2 and 1 out
    assert game["aborted"] and game["roll_twice"]
    assert [(b["kind"], b["out"]) for b in game["track"]] == [
        ("Transit", 1),
        ("Transit", 2),
        ("Patrol Area", 3),
        ("Transit", 2),
        ("Transit", 1),
    ]
    assert game.all_dice_used()
    # "Roll twice per travel box for Encounters [E1] en-route home": Transit 4 and 7, "—"
    game.dice.values += [1, 3, 3, 4]
    game.interp.trace.events.clear()
    game.box()
    assert [e.keys["roll"] for e in game.lookups("encounter_chart")] == [4, 7]
    assert game["box"] == 4 and not game["in_port"] and game.all_dice_used()


def test_all_diesels_out_far_from_port_scuttle(steel_wolves: Checked) -> None:
    # [E3] 11: "4 Hits" on the four diesels, none repaired; 3 travel boxes out: scuttled,
    # [E10] rescue roll 6: "2-9 Rescued"
    dice = [*escort_hits([23, 25, 26, 46], [5, 6]), 5, 6, 5, 6, 3, 3]
    game = assigned(steel_wolves, [4, 5], dice)
    game.box()
    assert game["boat_lost"] and not game["in_port"]
    assert "Rescued" in game["loss"]
    assert game.call("patrol_over").startswith("defeat: the boat is lost (scuttled")
    assert game.all_dice_used()


def test_fuel_tanks_not_repaired_abort(steel_wolves: Checked) -> None:
    # [E3] 5: "4-6 1 Hit", [E4] 66 Fuel Tank, repair 3: "3-6 Inoperable": "sub must abort patrol"
    dice = [*escort_hits([66], [2, 3]), 3]
    game = assigned(steel_wolves, [4, 5], dice)
    game.box()
    assert game["inoperable"] == ["Fuel Tank"] and game["fuel_tanks_damaged"] is True
    assert game["aborted"] and not game["roll_twice"]
    assert len(game["track"]) == 5
    assert game.all_dice_used()


# ---- aircraft, mines, random events ----------------------------------------------------------


def test_aircraft_attack_injury_and_aa_fire(steel_wolves: Checked) -> None:
    dice = [
        1, 1,  # [E1] 2, Transit: Aircraft
        1, 2,  # [A1] 3 -1 (1943) = 2: "2-4 1 Attack on [E3] ... + 1 Crew Injury"
        3, 4,  # [E5] Crew Injury 7: "6-10 Crew"
        2,  # "1-3 Light Wound (LW)"
        1, 1,  # [E3] 2 +1 Air Attack = 3: "2-3 Miss"
        2, 3,  # [A2] 5 -1 (Gato, both AA guns OK) = 4: "4-5 Damaged": the encounter ends
    ]  # fmt: skip
    game = assigned(steel_wolves, [2, 3], dice, box=0)
    game.box()
    (a1,) = game.lookups("aircraft_encounter")
    assert a1.keys["roll"] == 2
    assert game.crewman("Crew 1").attrs["wound"].member == "LW"
    assert game["captain_wounded"] is False
    (aa,) = game.lookups("aa_attack")
    assert aa.keys["roll"] == 4 and aa.result == "Damaged"
    assert game["hull_damage"] == 0 and game.all_dice_used()


def test_a_minefield_sinks_the_boat(steel_wolves: Checked) -> None:
    # [E1] Empire 2: Minefield; [A5] 5 (Trained: no modifier): "2-5 Sub Lost to Mine"
    game = assigned(steel_wolves, [2, 3], [1, 1, 2, 3])
    game.box()
    assert game["boat_lost"] and game["loss"] == "Sub Lost to Mine [A5]"
    assert game.call("patrol_over") == "defeat: the boat is lost (Sub Lost to Mine [A5])"
    assert game.all_dice_used()


def test_pow_ship_random_event_sends_the_boat_home(steel_wolves: Checked) -> None:
    # the first natural 12 of the patrol: [R1] 10, POW Ship Sunk: Kachidoki Maru, 10,500 tons
    # "(successful patrol)... head immediately to base"
    game = assigned(steel_wolves, [2, 3], [6, 6, 4, 6])
    game.box()
    assert game["random_event_occurred"]
    assert game["ships_sunk"] == 1 and game["tonnage_sunk"] == 10500
    assert game["aborted"] and len(game["track"]) == 5
    assert game.call("successful") is True
    assert game.all_dice_used()


def test_man_overboard_the_captain_ends_the_game(steel_wolves: Checked) -> None:
    # [R1] 2: Man Overboard!, 1d6 1: "Captain (game ends)"
    game = assigned(steel_wolves, [2, 3], [6, 6, 1, 1, 1])
    game.box()
    assert game["captain_kia"]
    assert game.call("patrol_over") == "defeat: the Captain is KIA"
    assert game.all_dice_used()


# ---- crew injuries [E5] ----------------------------------------------------------------------


def test_captain_sw_gives_the_exec_command_and_2_lw_are_sw(steel_wolves: Checked) -> None:
    game = Patrol(steel_wolves, [1, 1, 4, 1, 2, 2, 1, 2, 3])
    game.call("crew_injury_roll")  # [E5] 2: Captain, 4: "4-5 Severe Wound (SW)"
    assert game["in_command"] == "Exec" and game["captain_wounded"]
    game.call("crew_injury_roll")  # 3: Chief Engineer, 2: "1-3 Light Wound (LW)"
    assert game["chief_engineer_sw_or_kia"] is False
    game.call("crew_injury_roll")  # 3 and 3: LW again, "2x LW = SW": he cannot perform duties
    assert game.crewman("Chief Engineer").attrs["wound"].member == "SW"
    assert game["chief_engineer_sw_or_kia"] is True
    assert game.all_dice_used()


# ---- the end of a patrol: [C4], [C5] ---------------------------------------------------------


def test_awards_at_the_end_of_a_patrol(steel_wolves: Checked) -> None:
    # 3 ships sunk, back in port: Battle Star [C4], Bronze Star and the Submarine Combat Patrol
    # Insignia [C5]; the first successful patrol, so no Crew Advancement roll [C2]
    game = Patrol(steel_wolves, [])
    game.set(ships_sunk=3, tonnage_sunk=12000, in_port=True)
    game.call("return_to_base_phase")
    assert game["awards"] == ["Battle Star", "Bronze Star", "Submarine Combat Patrol Insignia"]
    assert game["successful_patrols"] == 1
    assert game.call("patrol_over") == "victory: a successful patrol"
    assert game["new_boat_assigned"] is False


def test_a_navy_cross_and_a_new_boat(steel_wolves: Checked) -> None:
    # 5 ships: [C5] Navy Cross (a Navy Cross in the period [C3]); [C1] Navy Cross "1-3": a 2
    game = Patrol(steel_wolves, [2])
    game.set(ships_sunk=5, tonnage_sunk=20000, in_port=True)
    game.call("return_to_base_phase")
    assert game["awards"] == ["Battle Star", "Navy Cross", "Submarine Combat Patrol Insignia"]
    assert game["navy_crosses_in_period"] == 1
    assert game["new_boat_assigned"] is True
    assert game.all_dice_used()


# ---- a short run, explained --------------------------------------------------------------------


def test_explained_start_of_a_patrol(snapshot: Any) -> None:
    # seed 37: the assignment roll 11, [P1p] "Philippines-T" (Transport: a Passenger aboard);
    # box 1 Transit 6, "—"; box 2 a natural 12, the patrol's Random Event, [R1] 11 Crew
    # Illness; box 3 the Mission Travel Box, Special Missions 7, "—": the mission is done
    result = run_cli("run", BOOK, "--seed", "37", "--turns", "3", "--explain")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "row 11 / 1943 Jul - Dec: (area: Philippines, mission: T)" in text
    assert "set crewmen [P1a, P1p]: + Passenger" in text
    assert "random_events [R1] roll=11 -> row 11: Crew Illness" in text
    assert "set crew_illness [R1]: no -> yes" in text
    assert "note [E1 Special Missions]: Special Mission T completed" in text
    assert "result: not over yet" in text
    assert text == snapshot
