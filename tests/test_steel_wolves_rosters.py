"""Sub-commander target rosters (seed 002), [T1b]-[T1c], [T2a]-[T2c], [T4] (Roll 1d10+1d10).

Each sample row is transcribed from the source text (rows 1-2, 12-13, 24-25 of each of the
four interleaved columns, and a few rows whose names look garbled but are kept as printed).
"""

from __future__ import annotations

from typing import Any

import pytest

from rulekit.book.checker import Checked

# table name -> roll -> (tonnage, type, name) as printed.
FREIGHTERS: dict[str, dict[int, tuple[int, str, str]]] = {
    "small_freighters_b": {  # [T1b]
        1: (900, "F", "Hakuun Maru #2"),
        2: (500, "F", "Hassho Maru"),
        12: (1000, "F", "Hyuga Maru"),
        13: (2900, "F", "Sappora Maru #12"),
        24: (4400, "P", "Indus Maru"),
        25: (3700, "F", "Taian Maru"),
        26: (2700, "F", "Nichiun Maru"),
        27: (1000, "F", "Suruga Maru"),
        28: (2900, "F", "Tsuneshima"),
        37: (4500, "P", "Palao Maru"),
        38: (4100, "F", "Setsuyo Maru"),
        49: (1900, "F", "Katori Maru"),
        50: (3100, "P", "Seikai Maru"),
        51: (2300, "F", "Teikyu Maru"),
        52: (2300, "F", "Chita Maru"),
        55: (2800, "F", "Pliyama Maru"),
        62: (2200, "F", "Shisen Maru"),
        63: (4400, "P", "Uga Maru"),
        74: (2000, "F", "Gyokuzan Maru"),
        75: (4000, "P", "Shinkoku Maru"),
        76: (3400, "F", "Shogen Maru"),
        77: (4700, "F", "Ehime Maru"),
        81: (900, "T", "Kinrei Maru"),
        87: (3100, "F", "Iwaki Maru"),
        88: (4400, "P", "Hiburi Maru"),
        99: (2600, "F", "Seikyo Maru"),
        100: (4400, "P", "Hino Maru #3"),
    },
    "small_freighters_c": {  # [T1c]
        1: (3400, "F", "Sana Maru"),
        2: (4300, "T", "Fushimi Maru #3"),
        12: (2600, "P", "Bifuku Maru"),
        13: (4200, "F", "Hokusho Maru"),
        24: (900, "F", "Hizen Maru"),
        25: (1900, "F", "Shoko Maru"),
        26: (2700, "F", "Hisashima Maru"),
        27: (2200, "P", "Showa Maru"),
        35: (1500, "F", "Ploko Maru"),
        37: (2000, "P", "Shoju Maru"),
        38: (4700, "F", "Toho Maru"),
        41: (3300, "F", "Unkai Maru #5"),
        49: (3800, "P", "Fukkai Maru"),
        50: (3600, "F", "Nanyo Maru"),
        51: (2800, "F", "Shirane Maru"),
        52: (4500, "F", "Anbo Maru"),
        62: (900, "T", "Tokyo Maru"),
        63: (2200, "F", "Mayachi Maru"),
        74: (3700, "F", "Yamatsuru Maru"),
        75: (4800, "P", "Ryusei Maru"),
        76: (2800, "F", "Nichinan Maru"),
        77: (3200, "F", "Koan Maru"),
        81: (2800, "T", "Unkai Maru #5"),
        87: (3000, "P", "Aso Maru"),
        88: (4600, "F", "Yoshida Maru #3"),
        99: (4500, "F", "Akashisan Maru"),
        100: (4700, "F", "Kokuyo Maru"),
    },
    "large_freighters_a": {  # [T2a]
        1: (6400, "F", "Jokuja Maru"),
        2: (6900, "F", "Azuchisan Maru"),
        12: (5600, "F", "Okuni Maru"),
        13: (5600, "P", "Takashima Maru"),
        15: (10400, "A", "Gokoku Maru"),
        24: (10600, "T", "Kyokuei Maru"),
        25: (5100, "T", "Ichiyu Maru"),
        26: (6000, "T", "Hakko Maru"),
        27: (10500, "T", "Ominesan Maru"),
        37: (10000, "T", "Kokuyo Maru"),
        38: (5500, "P", "Konzan Maru"),
        49: (10100, "T", "Kyokuho Maru"),
        50: (5200, "F", "Yamamizu Maru #2"),
        51: (7400, "T", "Zuiyo Maru"),
        52: (6500, "T", "Tsurumi Maru"),
        62: (6900, "F", "Sansho Maru"),
        63: (6000, "F", "Nittetsu Maru"),
        74: (5400, "F", "Yamafuji Maru"),
        75: (9500, "F", "Africa Maru"),
        76: (6800, "F", "Genoa Maru"),
        77: (6100, "P", "Kaisho Maru"),
        87: (10200, "T", "Arita Maru"),
        88: (10400, "P", "Hakusan Maru"),
        99: (7400, "A", "Awata Maru"),
        100: (5600, "F", "Gyokurei Maru"),
    },
    "large_freighters_b": {  # [T2b]
        1: (10000, "T", "Nampo Maru"),
        2: (6200, "F", "Ryujin Maru"),
        12: (5200, "P", "Miyadono Maru"),
        13: (5300, "F", "Kaimei Maru"),
        24: (17500, "P", "Kamakura Maru"),
        25: (5900, "F", "Sumatra Maru"),
        26: (6800, "P", "Nekka Maru"),
        27: (5100, "F", "Shinei Maru"),
        37: (10100, "T", "Tatekawa Maru"),
        38: (6900, "F", "Taimei Maru"),
        49: (6800, "P", "Nichiyu Maru"),
        50: (6600, "P", "Taibun Maru"),
        51: (5400, "F", "Kokusei Maru"),
        52: (5300, "F", "Pligane Maru"),
        56: (7200, "A", "Sagara Maru"),
        62: (6900, "F", "Aracsan Maru"),
        63: (5400, "F", "Daizen Maru"),
        74: (5800, "P", "Mexico Maru"),
        75: (5400, "F", "Nichiei Maru"),
        76: (6900, "F", "Yuzan Maru #2"),
        77: (5800, "P", "Teihoku Maru"),
        87: (7000, "F", "Ejiri Maru"),
        88: (9500, "P", "Manila Maru"),
        93: (10500, "P", "Kachidoki Maru"),
        99: (5900, "F", "Manju Maru"),
        100: (5200, "F", "Yamagiku Maru"),
    },
    "large_freighters_c": {  # [T2c]
        1: (5200, "T", "Yuho Maru"),
        2: (5500, "P", "Rashin Maru"),
        12: (6500, "P", "Nichiran Maru"),
        13: (5800, "P", "Seattle Maru"),
        24: (7000, "P", "Tsuyama Maru"),
        25: (5300, "P", "Hamburg Maru"),
        26: (7300, "P", "Atlas Maru"),
        27: (8000, "P", "Atsuta Maru"),
        33: (9200, "A", "Akitsu Maru"),
        37: (9800, "T", "Teiyo Maru"),
        38: (17500, "P", "Teia Maru"),
        49: (5100, "T", "Asanagi Maru"),
        50: (5200, "F", "Nichinan Maru #2"),
        51: (6000, "F", "Batopaha Maru"),
        52: (7300, "T", "Ogura Maru #2"),
        62: (5200, "P", "Konan Maru"),
        63: (6500, "P", "Nichiro Maru"),
        74: (6900, "F", "Akigawa Maru"),
        75: (9500, "P", "Hawaii Maru"),
        76: (6900, "F", "Taijo Maru"),
        77: (6900, "F", "Toyo Maru"),
        87: (5100, "T", "Medan Maru"),
        88: (5500, "P", "Boston Maru"),
        99: (10400, "S", "Kashino"),
        100: (17000, "P", "Tatuta Maru"),
    },
}

# [T4] Warship Target Roster: roll -> (tonnage, type or None, name, submarine "*").
# A submarine's row prints no type: "03 1000 R-30*".
T4: dict[int, tuple[int, str | None, str, bool]] = {
    1: (2000, "DD", "Isoname", False),
    2: (9000, "CVS", "Mizuho", False),
    3: (1000, None, "R-30", True),
    7: (11400, "AS", "Asahi", False),
    12: (2200, None, "I-24", True),
    13: (1500, None, "I-182", True),
    24: (1300, "DD", "Minatsuki", False),
    25: (2000, "DD", "Tanikaze", False),
    26: (2100, None, "I-43", True),
    27: (2600, None, "I-29", True),
    37: (1200, "DD", "Urakaze", False),
    38: (12200, "CA", "Maya", False),
    40: (1100, None, "RO-115", True),
    49: (1200, "DD", "Akikaze", False),
    50: (2000, "DD", "Natugumo", False),
    51: (4400, "ML", "Okinoshima", False),
    52: (1200, None, "U-537", True),
    53: (2100, "DD", "Hubuki", False),
    62: (1600, "DD", "Shigure", False),
    63: (2700, None, "I-351", True),
    74: (1300, "DD", "Asakaze", False),
    75: (900, "FF", "Yaku", False),
    76: (2100, "DD", "Hayanami", False),
    77: (900, "FF", "Matsuwa", False),
    87: (700, "ML", "Hirashima", False),
    88: (1500, None, "I-365", True),
    99: (800, "FF", "Coast Def", False),
    100: (1000, "FF", "Coast Def", False),
}

# The submarines of [T4] (marked "*"), all of them, from the source text.
T4_SUBMARINES = {3, 4, 6, 12, 13, 26, 27, 40, 52, 61, 63, 68, 71, 80, 88, 89, 90}


def printed(book: Checked, table: str, roll: int) -> Any:
    return book.tables[table].lookup([roll])[0].printed


@pytest.mark.parametrize(
    ("table", "roll"), [(t, r) for t, rows in FREIGHTERS.items() for r in sorted(rows)]
)
def test_freighter_rosters(steel_wolves: Checked, table: str, roll: int) -> None:
    tonnage, kind, name = FREIGHTERS[table][roll]
    assert printed(steel_wolves, table, roll) == {"tonnage": tonnage, "type": kind, "name": name}


@pytest.mark.parametrize("roll", sorted(T4))
def test_t4_warships(steel_wolves: Checked, roll: int) -> None:
    tonnage, kind, name, sub = T4[roll]
    assert printed(steel_wolves, "warships", roll) == {
        "tonnage": tonnage,
        "type": kind,
        "name": name,
        "submarine": "*" if sub else None,
    }


def test_t4_marks_exactly_the_printed_submarines(steel_wolves: Checked) -> None:
    marked = {r for r in range(1, 101) if printed(steel_wolves, "warships", r)["submarine"] == "*"}
    assert marked == T4_SUBMARINES
    # a submarine's row prints no type, every other row does
    for r in range(1, 101):
        assert (printed(steel_wolves, "warships", r)["type"] is None) == (r in T4_SUBMARINES)


@pytest.mark.parametrize(
    ("table", "rule"),
    [
        ("small_freighters_b", "T1b"),
        ("small_freighters_c", "T1c"),
        ("large_freighters_a", "T2a"),
        ("large_freighters_b", "T2b"),
        ("large_freighters_c", "T2c"),
        ("warships", "T4"),
    ],
)
def test_rosters_have_all_hundred_rolls_and_their_chart_code(
    steel_wolves: Checked, table: str, rule: str
) -> None:
    compiled = steel_wolves.tables[table]
    assert compiled.rule == rule
    assert sorted(int(k) for k in compiled.keys(0)) == list(range(1, 101))
    assert compiled.provisional_cells == 0


def test_small_rosters_only_use_the_small_ship_types(steel_wolves: Checked) -> None:
    # the [T1] legends print F, T and P only; [T2] adds A, and [T2c] S
    for table in ("small_freighters_b", "small_freighters_c"):
        kinds = {printed(steel_wolves, table, r)["type"] for r in range(1, 101)}
        assert kinds <= {"F", "T", "P"}
    assert {printed(steel_wolves, "large_freighters_c", r)["type"] for r in range(1, 101)} == {
        "F",
        "T",
        "P",
        "A",
        "S",
    }
