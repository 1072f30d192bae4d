"""Sub-commander charts (seed 002), looked up and compared with the printed values."""

from __future__ import annotations

from typing import Any

import pytest

from rulekit.book.checker import Checked
from rulekit.engine.session import resolve

# [E4] Sub Damage Chart, as printed (Roll 1d6+1d6).
E4 = {
    11: "Batteries",
    12: "Flooding",
    13: "Crew Injury",
    14: "Periscope",
    15: "Dive Planes",
    16: "Electric Mtr 1",
    21: "Flooding",
    22: "Electric Mtr 2",
    23: "Diesel Eng 1",
    24: "AA Gun",
    25: "Diesel Eng 2",
    26: "Diesel Eng 3",
    31: "Flooding",
    32: "Minor Damage",
    33: "Crew Injury x2",
    34: "Crew Injury",
    35: "Hull",
    36: "Deck Gun",
    41: "Hull",
    42: "Radio",
    43: "SJ Radar",
    44: "Flooding",
    45: "Hull",
    46: "Diesel Eng 4",
    51: "Flooding",
    52: "AA Gun",
    53: "SD Radar",
    54: "Flooding x2",
    55: "Electric Mtr 3",
    56: "Electric Mtr 4",
    61: "Hydrophones",
    62: "Aft Torp Doors",
    63: "Fwd Torp EVEN",
    64: "Fwd Torp ODD",
    65: "Hull x2",
    66: "Fuel Tank",
}

# [T3] Capital Ship Target Roster (Roll 1d20): tonnage, type, name, fast (*), hits.
T3 = {
    1: (62300, "BB", "Musashi", True, 7),
    2: (30000, "CV", "Shokaku", True, 6),
    3: (30000, "CV", "Zuikaku", True, 6),
    4: (21000, "CVE", "Shinyo", False, 5),
    5: (27500, "CV", "Hiyo", False, 6),
    6: (28100, "CV", "Kaga", False, 6),
    7: (29300, "BB", "Fuso", False, 6),
    8: (20000, "CVE", "Chuyo", False, 5),
    9: (37200, "BB", "Haruna", True, 6),
    10: (28100, "CV", "Akagi", True, 6),
    11: (32700, "BB", "Nagato", False, 6),
    12: (31000, "CV", "Taiho", False, 6),
    13: (30000, "BB", "Ise", False, 6),
    14: (20000, "CVE", "Unyo", False, 5),
    15: (36600, "BB", "Kirishima", True, 6),
    16: (18500, "CV", "Unryu", True, 5),
    17: (36600, "BB", "Hiei", True, 6),
    18: (29800, "BB", "Yamashiro", False, 6),
    19: (37200, "BB", "Kongo", True, 6),
    20: (62300, "BB", "Yamato", True, 7),
}

# [E1] Encounter Chart, as printed, rolls 2-12 per area column.
E1 = {
    "Transit": ["Aircraft", "—", "—", "—", "—", "—", "—", "—", "—", "—", "Ship"],
    "China Sea": [
        "Aircraft",
        "Two Ships+Escort",
        "Ship",
        "— (SJ)",
        "—",
        "—",
        "Two Ships+Escort*",
        "Ship",
        "—",
        "Convoy",
        "Minefield",
    ],
    "Empire": [
        "Minefield",
        "Aircraft",
        "Warship",
        "— (SJ)",
        "Two Ships+Escort*",
        "—",
        "Ship+Escort",
        "—",
        "—",
        "Convoy",
        "Capital Ship",
    ],
    "Indochina": [
        "Aircraft",
        "—",
        "Warship",
        "— (SJ)",
        "—",
        "Ship",
        "Convoy",
        "—",
        "Two Ships+Escort",
        "—",
        "Aircraft",
    ],
    "Java Sea": [
        "Warship",
        "—",
        "—",
        "— (SJ)",
        "Ship",
        "—",
        "—",
        "Ship+Escort",
        "Convoy",
        "Ship+Escort",
        "Aircraft",
    ],
    "Marianas": [
        "Warship",
        "Ship",
        "—",
        "— (SJ)",
        "Two Ships+Escort",
        "Ship+Escort",
        "—",
        "—",
        "—",
        "Convoy",
        "Aircraft",
    ],
    "Marshalls": [
        "Capital Ship",
        "Warship",
        "—",
        "— (SJ)",
        "Two Ships+Escort",
        "—",
        "Convoy",
        "—",
        "—",
        "Ship",
        "Aircraft",
    ],
    "Midway": [
        "Capital ship",
        "Warship",
        "Ship+Escort",
        "— (SJ)",
        "—",
        "—",
        "—",
        "Ship+Escort",
        "—",
        "Warship",
        "Aircraft",
    ],
    "Philippines": [
        "Capital ship",
        "Ship",
        "—",
        "— (SJ)",
        "—",
        "Ship+Escort",
        "—",
        "Ship+Escort",
        "Convoy",
        "—",
        "Aircraft",
    ],
    "Solomons": [
        "Capital ship",
        "—",
        "Warship",
        "— (SJ)",
        "Two Ships+Escort",
        "—",
        "—",
        "Ship+Escort",
        "—",
        "—",
        "Aircraft",
    ],
}

# [T1a] Small Freighter Target Roster a (Roll 1d10+1d10), a sample of printed rows.
T1A = {
    1: (2600, "F", "Heijo Maru"),
    4: (900, "F", "Shingetsu Maru"),
    26: (3800, "P", "Madras Maru"),
    30: (2900, "T", "Sanyo Maru"),
    31: (2800, "F", "Sapporo Maru #11"),
    50: (800, "T", "Nanshin Maru #21"),
    51: (1000, "F", "Hosen Maru"),
    67: (900, "F", "Daito Maru #3"),
    76: (1000, "F", "Shunsen Maru"),
    81: (800, "T", "Nanshin Maru #22"),
    96: (1300, "F", "Hakutetsu Maru #13"),
    100: (4700, "F", "Ryuzan Maru"),
}


def printed(book: Checked, table: str, roll: int, **keys: str) -> Any:
    compiled = book.tables[table]
    values: list[Any] = []
    for dim in compiled.dims:
        values.append(roll if dim.kind == "roll" else book.vocab.read(keys[dim.name], dim.type))
    return compiled.lookup(values)[0].printed


@pytest.mark.parametrize("roll", sorted(E4))
def test_e4_sub_damage_d66(steel_wolves: Checked, roll: int) -> None:
    assert printed(steel_wolves, "sub_damage", roll) == E4[roll]


def test_e4_covers_exactly_the_36_d66_results(steel_wolves: Checked) -> None:
    assert steel_wolves.tables["sub_damage"].cells == 36
    assert set(steel_wolves.dice["d66"].faces) == set(E4)


@pytest.mark.parametrize("roll", sorted(T3))
def test_t3_capital_ships_d20(steel_wolves: Checked, roll: int) -> None:
    tonnage, kind, name, fast, hits = T3[roll]
    assert printed(steel_wolves, "capital_ships", roll) == {
        "tonnage": tonnage,
        "type": kind,
        "name": name,
        "fast": "*" if fast else None,
        "hits": hits,
    }


@pytest.mark.parametrize("area", sorted(E1))
def test_e1_encounter_chart(steel_wolves: Checked, area: str) -> None:
    for roll, expected in zip(range(2, 13), E1[area], strict=True):
        assert printed(steel_wolves, "encounter_chart", roll, area=area) == expected, (area, roll)


@pytest.mark.parametrize("roll", sorted(T1A))
def test_t1a_small_freighters_d100(steel_wolves: Checked, roll: int) -> None:
    tonnage, kind, name = T1A[roll]
    assert printed(steel_wolves, "small_freighters_a", roll) == {
        "tonnage": tonnage,
        "type": kind,
        "name": name,
    }


def test_t1a_has_all_hundred_rolls(steel_wolves: Checked) -> None:
    table = steel_wolves.tables["small_freighters_a"]
    assert sorted(int(k) for k in table.keys(0)) == list(range(1, 101))


# [A1] Aircraft Encounter (Roll 2d6): "1 or less", "2-4", "5 or more".
@pytest.mark.parametrize(
    ("roll", "expected"),
    [
        (-3, "2* Attacks on [E3] Escort/Air Attack Chart + 1 Crew Injury"),
        (1, "2* Attacks on [E3] Escort/Air Attack Chart + 1 Crew Injury"),
        (2, "1 Attack on [E3] Escort/Air Attack Chart + 1 Crew Injury"),
        (4, "1 Attack on [E3] Escort/Air Attack Chart + 1 Crew Injury"),
        (5, "Successful Crash Dive (no air attack)"),
        (14, "Successful Crash Dive (no air attack)"),
    ],
)
def test_a1_open_ranges(steel_wolves: Checked, roll: int, expected: str) -> None:
    assert printed(steel_wolves, "aircraft_encounter", roll) == expected


@pytest.mark.parametrize(
    ("at", "modifier"),
    [
        ([], 0),
        (["crew_all_kia_or_sw=yes"], -1),
        (["crew=Green"], -1),
        (["crew=Elite"], +1),
        (["dive_planes_damaged=yes"], -1),
        (["boat=Narwhal"], -1),
        (["sd_radar_working=no"], -1),
        (["year=1941"], +1),
        (["year=1943"], -1),
        (["year=1944"], 0),
        (["mission=L"], -1),
        (["mission=W"], 0),
        (["crew=Green", "year=1943", "boat=Argonaut"], -3),
    ],
)
def test_a1_modifiers_move_the_roll_by_their_value(
    steel_wolves: Checked, at: list[str], modifier: int
) -> None:
    outcome = resolve(steel_wolves, "aircraft_encounter", at=at, dice=[3, 4])
    roll = outcome.trace.events[0]
    assert roll.natural == 7
    assert roll.total == 7 + modifier
    assert all(t.rule == "A1" for t in roll.modifiers)
