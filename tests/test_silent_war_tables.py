"""Silent War 2.1 printed tables: every cell looked up and compared with the printed value.

The expected values below are transcribed from the rules text
(../shared/seeds/000_0b28bf2899953500.txt), independently of the rulebook data files.
"""

from __future__ import annotations

from typing import Any

import pytest
from printed import IMPROVEMENT

from rulekit.book.checker import Checked
from rulekit.engine.session import resolve
from rulekit.engine.values import to_json

# ULTRA TABLE [7.1], as printed: War Period x die roll 0-9.
ULTRA = {
    "WP1": [
        ["East China Sea", "S. Philippine Sea"],
        ["Empire Pacific", "Gilberts"],
        ["S. China Sea 1", "Bonins"],
        ["S. China Sea 2", "N. Philippine Sea"],
        ["Kuriles", "Banda Sea"],
        ["Solomons", "Bismarck Sea"],
        ["Marianas", "Coral Sea"],
        ["Carolines", "Aleutians"],
        ["Marshalls", "Java Sea"],
        ["North Pacific"],
    ],
    "WP2": [
        ["Sea of Japan", "Solomons"],
        ["East China Sea", "Marianas"],
        ["Empire Pacific", "Coral Sea"],
        ["S. China Sea 2", "Banda Sea"],
        ["Kuriles", "East China Sea"],
        ["Bismarck Sea", "S. China Sea 1"],
        ["Aleutians", "Bonins"],
        ["S. Philippine Sea", "Java Sea"],
        ["Bismarck Sea", "S. China Sea 2"],
        ["N. Philippine Sea"],
    ],
    "WP3": [
        ["Yellow Sea", "Bonins"],
        ["S. China Sea 2", "S. Philippine Sea"],
        ["Empire Pacific", "Bismarck Sea"],
        ["Java Sea", "Solomons"],
        ["Kuriles", "Carolines"],
        ["S. China Sea 1", "E. China Sea"],
        ["Marianas", "S. Philippine Sea"],
        ["Bonins", "S. China Sea 2"],
        ["E. China Sea"],
        ["Sea of Japan", "N. Philippine Sea"],
    ],
    "WP4": [
        ["Sea of Japan", "Kuriles"],
        ["East China Sea", "Yellow Sea"],
        ["Marianas", "S. Philippine Sea"],
        ["S. China Sea 2"],
        ["Empire Pacific"],
        ["Yellow Sea"],
        ["Bonins"],
        ["S. China Sea 1"],
        ["N. Philippine Sea"],
        ["Sea of Japan"],
    ],
}

# Weather Event Formation Number (X = no roll required) [7.2].
FORMATION = {
    "Jan": 0,
    "Feb": "X",
    "Mar": "X",
    "Apr": 0,
    "May": 0,
    "Jun": 1,
    "Jul": 1,
    "Aug": 2,
    "Sep": 3,
    "Oct": 2,
    "Nov": 1,
    "Dec": 0,
}

# Storm Initial Location and Typhoon-2 2nd week movement [7.2].
INITIAL = {
    0: "Marshall Islands",
    1: "Marshall Islands",
    2: "Marianas",
    3: "Marianas",
    4: "Marianas",
    5: "Carolines",
    6: "Carolines",
    7: "Carolines",
    8: "North Philippine Sea",
    9: "South Philippine Sea",
}
MOVEMENT = {
    "Marshall Islands": ("Marianas", "East China Sea", "Aleutian Islands"),
    "Marianas": ("East China Sea", "Empire Pacific", "North Pacific"),
    "Carolines": ("North Philippine Sea", "South Philippine Sea", "Bonins"),
    "North Philippine Sea": ("South China Sea 1", "Empire Pacific", "Kurile Islands"),
    "South Philippine Sea": ("South China Sea 2", "East China Sea", "Empire Pacific"),
}

# COMBAT EVENTS TABLE [19.21] and its second rolls.
EVENTS = [
    "Target Lumbers into Way",
    "Surface Gunnery Combat",
    "Torpedo Malfunction",
    "Japanese Patrol Bomber Spots Submarine",
    "Mechanical Troubles End Attack",
    "Cui Favet Fortuna?",
    "Tonnage Doubled",
    "Counterattack — Combat",
    "Counterattack",
    "Combat — Combat",
]
MALFUNCTION = (
    ["Circular Run"] * 3
    + ["Hot Run"] * 2
    + ["Premature Detonation", "Dead Torpedo"]
    + ["Close call"] * 3
)
FORTUNA = ["Perfect Setup"] * 5 + ["Deadly Division"] * 5


def cell(book: Checked, table: str, *keys: Any) -> Any:
    """The printed form of one cell, looked up as `rulekit lookup` does."""
    compiled = book.tables[table]
    values = []
    for dim, key in zip(compiled.dims, keys, strict=True):
        values.append(book.vocab.read(key, dim.type) if isinstance(key, str) else key)
    found, _ = compiled.lookup(values)
    return found.printed


@pytest.mark.parametrize("period", list(ULTRA))
def test_ultra_table(silent_war: Checked, period: str) -> None:
    for roll, areas in enumerate(ULTRA[period]):
        assert cell(silent_war, "ultra", period, roll) == areas, (period, roll)


def test_ultra_cells_are_areas_of_the_map(silent_war: Checked) -> None:
    # "E. China Sea" is printed in WP3; it is the same OpArea as "East China Sea".
    found, _ = silent_war.tables["ultra"].lookup(
        [silent_war.vocab.read("WP3", _enum(silent_war, "ultra", 0)), 8]
    )
    assert found.value[0].member == "East China Sea"
    assert found.printed == ["E. China Sea"]


def _enum(book: Checked, table: str, dim: int) -> Any:
    return book.tables[table].dims[dim].type


@pytest.mark.parametrize(("month", "number"), list(FORMATION.items()))
def test_weather_formation_number(silent_war: Checked, month: str, number: Any) -> None:
    assert cell(silent_war, "weather_formation", month) == number


@pytest.mark.parametrize("roll", range(10))
def test_storm_initial_location(silent_war: Checked, roll: int) -> None:
    assert cell(silent_war, "storm_initial_location", roll) == INITIAL[roll]


@pytest.mark.parametrize("storm", list(MOVEMENT))
def test_typhoon_second_week_movement(silent_war: Checked, storm: str) -> None:
    low, middle, high = MOVEMENT[storm]
    for roll in range(10):
        expected = low if roll <= 2 else middle if roll <= 6 else high
        assert cell(silent_war, "typhoon_movement", storm, roll) == expected, (storm, roll)


@pytest.mark.parametrize("level", list(IMPROVEMENT))
def test_torpedo_improvement_lines(silent_war: Checked, level: int) -> None:
    lines = IMPROVEMENT[level]
    for i, (ships, die) in enumerate(lines):
        assert cell(silent_war, "torpedo_improvement", level, ships) == die
        # "the highest number for ships sunk that the current number equals or exceeds"
        next_ships = lines[i + 1][0] if i + 1 < len(lines) else ships + 1000
        assert cell(silent_war, "torpedo_improvement", level, next_ships - 1) == die


@pytest.mark.parametrize("roll", range(10))
def test_combat_events(silent_war: Checked, roll: int) -> None:
    assert cell(silent_war, "combat_events", roll) == EVENTS[roll]
    assert cell(silent_war, "torpedo_malfunction", roll) == MALFUNCTION[roll]
    assert cell(silent_war, "cui_favet_fortuna", roll) == FORTUNA[roll]


@pytest.mark.parametrize(("roll", "second"), [(2, "torpedo_malfunction"), (5, "cui_favet_fortuna")])
def test_combat_event_second_rolls_are_made(silent_war: Checked, roll: int, second: str) -> None:
    outcome = resolve(silent_war, "combat_events", dice=[roll, 3])
    lookups = [e for e in outcome.trace.events if e.event == "lookup"]
    assert [e.table for e in lookups] == ["combat_events", second]
    assert to_json(outcome.result) == {
        "result": EVENTS[roll],
        "then": MALFUNCTION[3] if second == "torpedo_malfunction" else FORTUNA[3],
    }


@pytest.mark.parametrize(
    ("die", "expected"),
    [(1, "Damage marker and involuntary RTB"), (4, "Fixed: resume normal operations next turn")],
)
def test_mechanical_troubles_odd_or_even(silent_war: Checked, die: int, expected: str) -> None:
    outcome = resolve(silent_war, "combat_events", dice=[4, die])
    assert outcome.result.value == "Mechanical Troubles End Attack"
    assert outcome.result.then == expected


def test_printed_tables_are_not_provisional(silent_war: Checked) -> None:
    for name in (
        "ultra",
        "weather_formation",
        "storm_initial_location",
        "typhoon_movement",
        "torpedo_improvement",
        "combat_events",
        "torpedo_malfunction",
        "cui_favet_fortuna",
    ):
        assert silent_war.tables[name].provisional_cells == 0, name


def test_unprinted_charts_are_provisional(silent_war: Checked) -> None:
    for name in ("attack_results", "counterattack_table", "area_activity", "area_features"):
        table = silent_war.tables[name]
        assert table.provisional_cells == table.cells > 0, name
    # the War Period display: only War Period 2's value is printed (in the [14.2] example)
    general = silent_war.tables["general_asw"]
    marks = {path[0].printed: c.provisional for path, c in general.iter_cells()}
    assert marks == {"WP1": True, "WP2": False, "WP3": True, "WP4": True}
