"""Sub-commander charts (seed 002): every chart looked up against values transcribed from the
source text, every modifier switched on and off, and the charts' special rules.

The expected values below are transcribed from ../shared/seeds/002_be4ecad555d5eb36.txt.
"""

from __future__ import annotations

from typing import Any

import pytest
from tracing import rolls

from rulekit.book.checker import Checked
from rulekit.engine.session import Outcome, resolve
from rulekit.engine.trace import LookupEvent, NoteEvent, SetEvent
from rulekit.engine.values import to_json
from rulekit.errors import RuleViolation


def cell(book: Checked, table: str, roll: int | None = None, **keys: Any) -> Any:
    """The printed cell of a table for a roll (already modified) and keys."""
    found = book.tables[table].lookup(_values(book, table, roll, keys))[0]
    return found.printed


def provisional(book: Checked, table: str, roll: int | None = None, **keys: Any) -> bool:
    return bool(book.tables[table].lookup(_values(book, table, roll, keys))[0].provisional)


def _values(book: Checked, table: str, roll: int | None, keys: dict[str, Any]) -> list[Any]:
    values: list[Any] = []
    for dim in book.tables[table].dims:
        if dim.kind == "roll":
            values.append(roll)
        else:
            value = keys[dim.name]
            values.append(value if isinstance(value, int) else book.vocab.read(value, dim.type))
    return values


def lookups(outcome: Outcome, table: str) -> list[LookupEvent]:
    return [e for e in outcome.trace.events if isinstance(e, LookupEvent) and e.table == table]


def notes(outcome: Outcome) -> str:
    return "\n".join(e.text for e in outcome.trace.events if isinstance(e, NoteEvent))


def result(outcome: Outcome) -> Any:
    return to_json(outcome.result)


def check_modifier(
    book: Checked,
    target: str,
    base: list[str],
    dice: list[int],
    at: list[str],
    value: int,
    rule: str,
    label: str | None,
) -> None:
    """With ``at`` on top of ``base`` the first roll moves by exactly ``value``, by one term."""
    before = rolls(resolve(book, target, at=base, dice=dice))[0]
    assert before.total == before.natural, before.modifiers
    after = rolls(resolve(book, target, at=base + at, dice=dice))[0]
    assert after.natural == before.natural
    assert after.total == before.total + value
    if value:
        assert [(t.value, t.rule) for t in after.modifiers] == [(value, rule)]
        if label is not None:
            assert label in after.modifiers[0].label
    else:
        assert after.modifiers == []


# ---- [P1a] and [P1p] Patrol Assignment ----------------------------------------------------------

PERIODS = [
    "1941",
    "1942 Jan - Jun",
    "1942 Jul - Dec",
    "1943 Jan - Jun",
    "1943 Jul - Dec",
    "1944 Jan - Jun",
    "1944 Jul - Dec",
    "1945 Jan - Jun",
]

# Roll 2..12 per date column, as printed ("China Sea - M": area China Sea, mission M).
P1A = {
    "1941": [
        "China Sea",
        "Philippines - E",
        "Philippines - E",
        "Philippines",
        "Philippines",
        "Philippines",
        "Philippines - E",
        "Java Sea",
        "Indochina",
        "Philippines - E",
        "China Sea",
    ],
    "1942 Jan - Jun": [
        "Solomons",
        "Indochina",
        "Philippines - T",
        "China Sea",
        "Java Sea",
        "Philippines",
        "Solomons",
        "Indochina",
        "Philippines",
        "Solomons",
        "Java Sea",
    ],
    "1942 Jul - Dec": [
        "Java Sea",
        "China Sea",
        "Solomons",
        "Indochina - M",
        "Solomons",
        "Solomons",
        "Java Sea",
        "Indochina",
        "Solomons",
        "China Sea",
        "Indochina - M",
    ],
    "1943 Jan - Jun": [
        "China Sea - M",
        "China Sea",
        "Indochina",
        "Solomons",
        "Philippines",
        "Solomons",
        "Indochina",
        "Philippines",
        "Java Sea",
        "China Sea - M",
        "Java Sea",
    ],
    "1943 Jul - Dec": [
        "Marshalls - R",
        "Marianas - W",
        "Marshalls - R",
        "China Sea",
        "Solomons",
        "China Sea",
        "Solomons",
        "Marianas",
        "Marshalls-L",
        "Philippines - T",
        "China Sea",
    ],
    "1944 Jan - Jun": [
        "Philippines - W",
        "Java Sea - M",
        "Marianas - L",
        "Marshalls",
        "Marianas",
        "Java Sea",
        "Marianas",
        "China Sea",
        "China Sea",
        "Java Sea - L",
        "Indochina",
    ],
    "1944 Jul - Dec": [
        "China Sea - M",
        "Java Sea",
        "Philippines - L",
        "Java Sea",
        "Philippines",
        "China Sea",
        "Philippines-W",
        "China Sea",
        "China Sea",
        "Java Sea",
        "China Sea - M",
    ],
    "1945 Jan - Jun": [
        "China Sea",
        "Empire",
        "Empire-W",
        "Empire",
        "Empire - L",
        "Empire",
        "Empire - L",
        "Empire",
        "China Sea",
        "Empire - L",
        "China Sea",
    ],
}

P1P = {
    "1941": [
        "Empire",
        "Empire",
        "Marshalls",
        "Empire",
        "Marshalls",
        "Marshalls",
        "Marshalls",
        "Empire",
        "Empire",
        "Marshalls",
        "Empire",
    ],
    "1942 Jan - Jun": [
        "Marianas",
        "Marshalls",
        "Midway",
        "China Sea",
        "Empire",
        "Empire",
        "Marshalls",
        "Marianas",
        "Midway",
        "Midway",
        "China Sea",
    ],
    "1942 Jul - Dec": [
        "China Sea",
        "China Sea",
        "Marianas",
        "Empire - M",
        "Empire",
        "Marianas",
        "Empire",
        "Marshalls",
        "Empire - M",
        "China Sea",
        "Marianas",
    ],
    "1943 Jan - Jun": [
        "Empire - M",
        "China Sea",
        "Marshalls",
        "Marianas",
        "Empire",
        "Empire",
        "Empire",
        "Philippines",
        "Marianas",
        "China Sea - M",
        "Philippines",
    ],
    "1943 Jul - Dec": [
        "Marshalls - R",
        "Marianas - W",
        "Marshalls - R",
        "Empire",
        "Marshalls",
        "China Sea",
        "Empire",
        "Marianas",
        "Marshalls-L",
        "Philippines-T",
        "Empire -W",
    ],
    "1944 Jan - Jun": [
        "Philippines - W",
        "Empire",
        "Marianas - L",
        "Marshalls",
        "Marshalls",
        "Philippines",
        "Marianas",
        "China Sea",
        "Empire",
        "Empire",
        "Marianas",
    ],
    "1944 Jul - Dec": [
        "China Sea - M",
        "Empire",
        "Philippines - L",
        "Empire",
        "Philippines",
        "Empire",
        "Philippines - W",
        "China Sea",
        "China Sea",
        "Empire",
        "China Sea - M",
    ],
    "1945 Jan - Jun": [
        "China Sea",
        "Empire",
        "Empire-W",
        "Empire",
        "Empire - L",
        "Empire",
        "Empire - L",
        "Empire",
        "China Sea",
        "Empire - L",
        "China Sea",
    ],
}


def assignment(printed_text: str) -> dict[str, Any]:
    """'China Sea - M' -> {'area': 'China Sea', 'mission': 'M'} (also 'Empire-W', 'Empire -W')."""
    area, _, mission = printed_text.partition("-")
    return {"area": area.strip(), "mission": mission.strip() or None}


@pytest.mark.parametrize(
    ("table", "chart"),
    [("patrol_assignment_australia", P1A), ("patrol_assignment_pearl_harbor", P1P)],
)
@pytest.mark.parametrize("period", PERIODS)
def test_p1_patrol_assignment(
    steel_wolves: Checked, table: str, chart: dict[str, list[str]], period: str
) -> None:
    for roll, printed_text in zip(range(2, 13), chart[period], strict=True):
        assert cell(steel_wolves, table, roll, period=period) == assignment(printed_text), roll


@pytest.mark.parametrize(
    ("at", "dice", "table", "expected"),
    [
        (["year=1941", "month=12"], [2, 2], "patrol_assignment_australia", "Philippines - E"),
        (["year=1942", "month=6"], [2, 2], "patrol_assignment_australia", "Philippines - T"),
        (["year=1942", "month=7"], [3, 2], "patrol_assignment_australia", "Indochina - M"),
        (
            ["year=1943", "month=7", "base=Pearl Harbor"],
            [6, 6],
            "patrol_assignment_pearl_harbor",
            "Empire -W",
        ),
        (
            ["year=1945", "month=6", "base=Pearl Harbor"],
            [1, 3],
            "patrol_assignment_pearl_harbor",
            "Empire-W",
        ),
    ],
)
def test_p1_patrol_assignment_by_base_and_date(
    steel_wolves: Checked, at: list[str], dice: list[int], table: str, expected: str
) -> None:
    outcome = resolve(steel_wolves, "patrol_assignment", at=at, dice=dice)
    assert result(outcome) == assignment(expected)
    assert len(lookups(outcome, table)) == 1


def test_p1_charts_end_in_june_1945(steel_wolves: Checked) -> None:
    with pytest.raises(Exception, match="1945"):
        resolve(steel_wolves, "patrol_assignment", at=["year=1945", "month=7"], dice=[3, 4])


# ---- [E1] the rest of the Encounter Chart -------------------------------------------------------

ADDITIONAL_ROUND = {2: "Escort", 3: "Aircraft", **{r: "—" for r in range(4, 13)}}
SPECIAL_MISSIONS = {2: "Aircraft", 3: "Aircraft", 4: "Aircraft", **{r: "—" for r in range(5, 13)}}


@pytest.mark.parametrize("roll", range(2, 13))
def test_e1_additional_round_and_special_missions(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "additional_round", roll) == ADDITIONAL_ROUND[roll]
    assert cell(steel_wolves, "special_missions", roll) == SPECIAL_MISSIONS[roll]
    assert not provisional(steel_wolves, "additional_round", roll)


def test_e1_small_columns_open_ends(steel_wolves: Checked) -> None:
    # "2 or less" is printed; 13 (12 +1 in 1941-1942) is not
    assert cell(steel_wolves, "additional_round", 1) == "Escort"
    assert cell(steel_wolves, "special_missions", 0) == "Aircraft"
    assert cell(steel_wolves, "additional_round", 13) == "—"
    assert provisional(steel_wolves, "additional_round", 13)


@pytest.mark.parametrize(
    ("at", "value"),
    [(["year=1941"], 1), (["year=1942"], 1), (["year=1943"], 0), (["year=1945"], 0)],
)
def test_e1_additional_round_modifier(steel_wolves: Checked, at: list[str], value: int) -> None:
    check_modifier(
        steel_wolves,
        "additional_round",
        ["year=1944"],
        [1, 1],
        at,
        value,
        "E1 Additional Round of Combat",
        "1941-1942",
    )


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ("day_or_night", {1: "Day", 2: "Day", 3: "Day", 4: "Night", 5: "Night", 6: "Night"}),
        (
            "switch_to_night",
            {1: "Night", 2: "Night", 3: "Night", 4: "Night", 5: "Target Lost", 6: "Target Lost"},
        ),
        (
            "ship_size",
            {
                1: "Small Ship",
                2: "Small Ship",
                3: "Small Ship",
                4: "Small Ship",
                5: "Large Ship",
                6: "Large Ship",
            },
        ),
    ],
)
def test_e1_day_night_and_ship_size(
    steel_wolves: Checked, table: str, expected: dict[int, str]
) -> None:
    for roll, printed_text in expected.items():
        assert cell(steel_wolves, table, roll) == printed_text, roll


def test_e1_ship_size_minus_one_in_1945(steel_wolves: Checked) -> None:
    check_modifier(steel_wolves, "ship_size", [], [5], ["year=1945"], -1, "E1 Ship size", "1945")
    outcome = resolve(steel_wolves, "ship_size", at=["year=1945"], dice=[5])
    assert result(outcome) == "Small Ship"
    # a 1 in 1945 reads 0: not printed, Small Ship marked provisional
    assert cell(steel_wolves, "ship_size", 0) == "Small Ship"
    assert provisional(steel_wolves, "ship_size", 0)


def test_e1_sj_is_rerolled_with_a_working_sj_radar(steel_wolves: Checked) -> None:
    # Empire 5 is "— (SJ)", Empire 8 is "Ship+Escort"
    outcome = resolve(
        steel_wolves, "encounter", at=["area=Empire", "sj_radar_working=yes"], dice=[2, 3, 4, 4]
    )
    assert result(outcome) == "Ship+Escort"
    assert [r.natural for r in rolls(outcome)] == [5, 8]


def test_e1_sj_without_radar_is_no_encounter(steel_wolves: Checked) -> None:
    outcome = resolve(steel_wolves, "encounter", at=["area=Empire"], dice=[2, 3])
    assert result(outcome) == "—"
    assert len(rolls(outcome)) == 1


def test_e1_sj_rolled_a_second_time_is_no_encounter(steel_wolves: Checked) -> None:
    outcome = resolve(
        steel_wolves, "encounter", at=["area=Solomons", "sj_radar_working=yes"], dice=[1, 4, 4, 1]
    )
    assert result(outcome) == "—"
    assert [r.natural for r in rolls(outcome)] == [5, 5]


def test_e1_first_natural_12_is_a_random_event(steel_wolves: Checked) -> None:
    # 6+6, then [R1] 5 = Superior Torpedoes
    outcome = resolve(steel_wolves, "encounter", at=["area=Transit"], dice=[6, 6, 2, 3])
    assert result(outcome) == "Superior Torpedoes"
    assert not lookups(outcome, "encounter_chart")
    assert outcome.interpreter.state.values["random_event_occurred"] is True
    assert outcome.interpreter.state.values["superior_torpedoes"] is True


def test_e1_later_natural_12_is_the_encounter(steel_wolves: Checked) -> None:
    outcome = resolve(
        steel_wolves, "encounter", at=["area=Transit", "random_event_occurred=yes"], dice=[6, 6]
    )
    assert result(outcome) == "Ship"


def test_e1_modified_12_is_not_a_random_event(steel_wolves: Checked) -> None:
    # only a natural 12 counts: 5+6 = 11 on Empire is a Convoy, no event
    outcome = resolve(steel_wolves, "encounter", at=["area=Empire"], dice=[5, 6])
    assert result(outcome) == "Convoy"
    assert outcome.interpreter.state.values["random_event_occurred"] is False


def test_e1_natural_12_on_the_sj_reroll_is_the_random_event(steel_wolves: Checked) -> None:
    outcome = resolve(
        steel_wolves,
        "encounter",
        at=["area=Marianas", "sj_radar_working=yes"],
        dice=[1, 4, 6, 6, 5, 6],
    )
    assert result(outcome) == "Crew Illness"


@pytest.mark.parametrize(("area", "dice"), [("China Sea", [4, 4]), ("Empire", [3, 3])])
def test_e1_star_is_no_encounter_in_1945(steel_wolves: Checked, area: str, dice: list[int]) -> None:
    before = resolve(steel_wolves, "encounter", at=[f"area={area}", "year=1944"], dice=dice)
    assert result(before) == "Two Ships+Escort*"
    after = resolve(steel_wolves, "encounter", at=[f"area={area}", "year=1945"], dice=dice)
    assert result(after) == "—"


# ---- [A2] AA Attack vs. Aircraft, [A5] Minefield ------------------------------------------------

A2 = {2: "Shot Down", 3: "Shot Down", 4: "Damaged", 5: "Damaged", 6: "Miss", 12: "Miss"}


@pytest.mark.parametrize("roll", sorted(A2))
def test_a2_aa_attack(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "aa_attack", roll) == A2[roll]


def test_a2_open_ends(steel_wolves: Checked) -> None:
    assert cell(steel_wolves, "aa_attack", 1) == "Shot Down"
    assert cell(steel_wolves, "aa_attack", 14) == "Miss"


@pytest.mark.parametrize(
    ("at", "value", "rule", "label"),
    [
        (["only_one_50_cal=yes"], +1, "A2", "Gato - only 1 x .50 cal"),
        (["only_one_50_cal=yes", "boat=Balao"], 0, "A2", None),
        (["boat=Porpoise"], +1, "A2", "Porpoise, Tambor, Salmon"),
        (["boat=Tambor"], +1, "A2", "Porpoise, Tambor, Salmon"),
        (["boat=Salmon"], +1, "A2", "Porpoise, Tambor, Salmon"),
        (["crew=Veteran"], -1, "A2", "Veteran or Elite Crew"),
        (["crew=Elite"], -1, "A2", "Veteran or Elite Crew"),
        (["crew=Green"], 0, "A2", None),
        (["both_aa_guns_ok=yes"], -1, "A2", "both AA guns OK"),
        (["both_aa_guns_ok=yes", "boat=Balao"], -1, "A2", "both AA guns OK"),
        (["both_aa_guns_ok=yes", "boat=Tench"], -1, "A2", "both AA guns OK"),
        (["both_aa_guns_ok=yes", "boat=Gar"], -1, "A2", "both AA guns OK"),
        (["both_aa_guns_ok=yes", "boat=Narwhal"], 0, "A2", None),
        (["crew_illness=yes"], +1, "R1", "Crew Illness"),
    ],
)
def test_a2_modifiers(
    steel_wolves: Checked, at: list[str], value: int, rule: str, label: str | None
) -> None:
    check_modifier(
        steel_wolves, "aa_attack", ["both_aa_guns_ok=no"], [2, 3], at, value, rule, label
    )


A5 = {2: "Sub Lost to Mine", 3: "Sub Lost to Mine", 4: "Sub Lost to Mine", 5: "Sub Lost to Mine"}
A5.update({r: "Safe Passage" for r in range(6, 15)})


@pytest.mark.parametrize("roll", sorted(A5))
def test_a5_minefield(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "minefield", roll) == A5[roll]


@pytest.mark.parametrize(
    ("at", "value", "label"),
    [
        (["crew=Veteran"], 1, "Veteran Crew"),
        (["crew=Elite"], 2, "Elite Crew"),
        (["crew=Green"], 0, None),
    ],
)
def test_a5_modifiers(steel_wolves: Checked, at: list[str], value: int, label: str | None) -> None:
    check_modifier(steel_wolves, "minefield", [], [2, 2], at, value, "A5", label)


# ---- [S1] Torpedo/Deck Gun Fire Chart -----------------------------------------------------------

# Close: 8 or less Hit, 9 or more Miss; Medium: 7 / 8; Long: 6 / 7.
S1_LAST_HIT = {"Close Range": 8, "Medium Range": 7, "Long Range": 6}


@pytest.mark.parametrize("fire_range", sorted(S1_LAST_HIT))
def test_s1_fire_chart(steel_wolves: Checked, fire_range: str) -> None:
    last_hit = S1_LAST_HIT[fire_range]
    for roll in range(-1, 16):
        expected = "Hit" if roll <= last_hit else "Miss"
        assert cell(steel_wolves, "fire_chart", roll, fire_range=fire_range) == expected, roll


@pytest.mark.parametrize(
    ("at", "value", "rule", "label"),
    [
        (["surface_attack=yes"], -1, "S1", "Surface Torpedo Attack"),
        (["surface_attack=yes", "weapon=Deck Gun"], 0, "S1", None),
        (["crew=Elite"], -1, "S1", "Elite Crew"),
        (["crew=Green"], +1, "S1", "Green Crew"),
        (["crew=Veteran"], 0, "S1", None),
        (["target=Warship/Escort"], +1, "S1", "Warship/Escort, Fast Capital Ship"),
        (["target=Fast Capital Ship"], +1, "S1", "Warship/Escort, Fast Capital Ship"),
        (["target=Capital Ship"], 0, "S1", None),
        (["in_command=Exec"], +1, "S1", "Exec Firing or all Crew KIA/SW"),
        (["crew_all_kia_or_sw=yes"], +1, "S1", "Exec Firing or all Crew KIA/SW"),
        (["in_command=Exec", "crew_all_kia_or_sw=yes"], +1, "S1", "Exec Firing or all Crew KIA/SW"),
        (["second_salvo=yes", "night_surface_attack=yes"], +1, "S1", "Second Salvo"),
        (["second_salvo=yes", "night_surface_attack=yes", "weapon=Deck Gun"], 0, "S1", None),
        (["weapon=Mk 18"], +1, "S1", "Mk 18 Torpedo at Medium Range"),
        (["weapon=Mk 18", "attack_range=Long"], +2, "S1", "Mk 18 Torpedo at Long Range"),
        (["weapon=Mk 18", "attack_range=Close"], 0, "S1", None),
        (["attack_range=Long"], 0, "S1", None),
        (["in_command=3rd Officer"], +2, "S1", "3rd Officer Firing"),
        (["crew_illness=yes"], +1, "R1", "Crew Illness"),
    ],
)
def test_s1_modifiers(
    steel_wolves: Checked, at: list[str], value: int, rule: str, label: str | None
) -> None:
    check_modifier(steel_wolves, "fire", [], [3, 4], at, value, rule, label)


def test_s1_second_salvo_only_as_night_surface_attack(steel_wolves: Checked) -> None:
    with pytest.raises(RuleViolation):
        resolve(steel_wolves, "fire", at=["second_salvo=yes"], dice=[3, 4])


def test_s1_fire_uses_the_range_column(steel_wolves: Checked) -> None:
    # natural 7 + Mk 18 at Long (+2) = 9: a Miss at Long Range
    outcome = resolve(steel_wolves, "fire", at=["weapon=Mk 18", "attack_range=Long"], dice=[3, 4])
    assert result(outcome) == "Miss"
    (lookup,) = lookups(outcome, "fire_chart")
    assert lookup.row == ["Long Range", "7 or more"]
    outcome = resolve(steel_wolves, "fire", at=["attack_range=Close"], dice=[4, 4])
    assert result(outcome) == "Hit"


def test_s1_unmodified_2_is_a_critical_hit(steel_wolves: Checked) -> None:
    outcome = resolve(steel_wolves, "fire", dice=[1, 1])
    assert result(outcome) == "Hit"
    assert "critical hit" in notes(outcome)
    outcome = resolve(steel_wolves, "fire", at=["crew=Elite"], dice=[1, 2])
    assert "critical hit" not in notes(outcome)


def test_s1_optional_circular_run_on_12(steel_wolves: Checked) -> None:
    # 12 to hit, 12 again, [S4] 6: "Sub Sunk if no dud" -> [S2] 12/41-7/42 Mk 14 dud on 1-4
    at = ["optional_circular_run=yes", "year=1942", "month=3"]
    outcome = resolve(steel_wolves, "fire", at=at, dice=[6, 6, 6, 6, 6, 5])
    assert result(outcome) == "Miss"
    assert lookups(outcome, "circular_run_table")[0].result == "Sub Sunk if no dud - roll on [S2]"
    assert lookups(outcome, "torpedo_dud")[0].result == "1-4"
    assert [r.natural for r in rolls(outcome)] == [12, 12, 6, 5]
    # without the optional rule a 12 is only a miss
    outcome = resolve(steel_wolves, "fire", dice=[6, 6])
    assert not lookups(outcome, "circular_run_table") and len(rolls(outcome)) == 1
    # the deck gun does not circle
    outcome = resolve(steel_wolves, "fire", at=[*at, "weapon=Deck Gun"], dice=[6, 6])
    assert len(rolls(outcome)) == 1


# ---- [S2] Torpedo Dud Chart ---------------------------------------------------------------------

# date row -> {torpedo: dud die results}; a torpedo not in a row is blank (not available).
S2 = {
    "12/41-7/42": {"Mk 14": (1, 4)},
    "8/42-8/43": {"Mk 14": (1, 3)},
    "9/43-12/43": {"Mk 14": (1, 2), "Mk 18": (1, 2)},
    "1944": {"Mk 14": (1, 1), "Mk 18": (1, 1)},
    "1945": {"Mk 14": (1, 1), "Mk 18": (1, 1), "Mk 27": (1, 1)},
}


@pytest.mark.parametrize("period", sorted(S2))
def test_s2_torpedo_dud(steel_wolves: Checked, period: str) -> None:
    table = steel_wolves.tables["torpedo_dud"]
    for torpedo in ("Mk 14", "Mk 18", "Mk 27"):
        values = _values(
            steel_wolves, "torpedo_dud", None, {"dud_period": period, "weapon": torpedo}
        )
        if torpedo not in S2[period]:
            with pytest.raises(Exception, match="weapon"):
                table.lookup(values)
            continue
        found = table.lookup(values)[0].value
        assert (found.low, found.high) == S2[period][torpedo]


@pytest.mark.parametrize(
    ("date", "torpedo", "last_dud"),
    [
        (["year=1941", "month=12"], "Mk 14", 4),
        (["year=1942", "month=7"], "Mk 14", 4),
        (["year=1942", "month=8"], "Mk 14", 3),
        (["year=1943", "month=8"], "Mk 14", 3),
        (["year=1943", "month=9"], "Mk 14", 2),
        (["year=1943", "month=12"], "Mk 18", 2),
        (["year=1944", "month=1"], "Mk 18", 1),
        (["year=1945", "month=3"], "Mk 27", 1),
    ],
)
def test_s2_dud_check_by_date(
    steel_wolves: Checked, date: list[str], torpedo: str, last_dud: int
) -> None:
    for die in range(1, 7):
        outcome = resolve(steel_wolves, "dud_check", at=[*date, f"weapon={torpedo}"], dice=[die])
        assert outcome.result is (die <= last_dud), die


def test_s2_superior_torpedoes(steel_wolves: Checked) -> None:
    base = ["year=1942", "month=8"]
    check_modifier(
        steel_wolves,
        "dud_check",
        base,
        [3],
        ["superior_torpedoes=yes"],
        1,
        "S2",
        "Superior Torpedoes",
    )
    assert resolve(steel_wolves, "dud_check", at=base, dice=[3]).result is True
    outcome = resolve(steel_wolves, "dud_check", at=[*base, "superior_torpedoes=yes"], dice=[3])
    assert outcome.result is False


def test_s2_mk_27_is_not_available_before_1945(steel_wolves: Checked) -> None:
    with pytest.raises(Exception, match="Mk 27"):
        resolve(steel_wolves, "dud_check", at=["year=1944", "weapon=Mk 27"], dice=[1])


# ---- [S3] Attack Damage Chart and Points to Sink ------------------------------------------------

S3 = {  # roll: (Torpedo, Deck Gun) damage; "—" no damage
    0: (None, 2),
    1: (4, 2),
    2: (3, 1),
    3: (2, 1),
    4: (1, 1),
    5: (1, 1),
    6: (1, 1),
    7: (1, 1),
}


@pytest.mark.parametrize("roll", sorted(S3))
def test_s3_attack_damage(steel_wolves: Checked, roll: int) -> None:
    torpedo, deck_gun = S3[roll]
    assert cell(steel_wolves, "attack_damage", roll, column="Torpedo") == torpedo
    assert cell(steel_wolves, "attack_damage", roll, column="Deck Gun") == deck_gun
    assert not provisional(steel_wolves, "attack_damage", roll, column="Deck Gun")


def test_s3_below_the_chart_is_provisional(steel_wolves: Checked) -> None:
    assert cell(steel_wolves, "attack_damage", -1, column="Deck Gun") == 2
    assert provisional(steel_wolves, "attack_damage", -1, column="Deck Gun")


@pytest.mark.parametrize(
    ("gun", "value", "label"),
    [(6, -2, "6” Deck Gun"), (5, -1, "5” Deck Gun"), (3, 1, "3” Deck Gun"), (4, 0, None)],
)
def test_s3_deck_gun_modifiers(
    steel_wolves: Checked, gun: int, value: int, label: str | None
) -> None:
    outcome = resolve(
        steel_wolves, "damage_roll", at=["column=Deck Gun", f"deck_gun={gun}"], dice=[3]
    )
    (roll,) = rolls(outcome)
    assert roll.total == 3 + value
    assert [(t.value, t.rule) for t in roll.modifiers] == ([(value, "S3")] if value else [])
    if label:
        assert roll.modifiers[0].label == label
    # the torpedo column takes no deck gun modifier
    outcome = resolve(
        steel_wolves, "damage_roll", at=["column=Torpedo", f"deck_gun={gun}"], dice=[3]
    )
    assert rolls(outcome)[0].total == 3
    assert result(outcome) == 2


def test_s3_deck_gun_needs_its_calibre(steel_wolves: Checked) -> None:
    with pytest.raises(RuleViolation):
        resolve(steel_wolves, "damage_roll", at=["column=Deck Gun"], dice=[3])


POINTS_TO_SINK = {
    "Capital Ship": (5, 7),
    "10,000+ tons": (4, 4),
    "5,001-9,999 tons": (3, 3),
    "1,001-5,000 tons": (2, 2),
    "1,000 tons or less": (1, 1),
}


@pytest.mark.parametrize("ship", sorted(POINTS_TO_SINK))
def test_s3_points_to_sink(steel_wolves: Checked, ship: str) -> None:
    values = _values(steel_wolves, "points_to_sink", None, {"ship": ship})
    found = steel_wolves.tables["points_to_sink"].lookup(values)[0].value
    assert (found.low, found.high) == POINTS_TO_SINK[ship]


@pytest.mark.parametrize(
    ("tonnage", "ship"),
    [
        (500, "1,000 tons or less"),
        (1000, "1,000 tons or less"),
        (1001, "1,001-5,000 tons"),
        (5000, "1,001-5,000 tons"),
        (5001, "5,001-9,999 tons"),
        (9999, "5,001-9,999 tons"),
        (10000, "10,000+ tons"),
        (17500, "10,000+ tons"),
    ],
)
def test_s3_sink_class_of_a_tonnage(steel_wolves: Checked, tonnage: int, ship: str) -> None:
    outcome = resolve(steel_wolves, "sink_class_of", at=[f"tonnage={tonnage}"])
    assert result(outcome) == ship


# ---- [S4] Circular Run --------------------------------------------------------------------------


@pytest.mark.parametrize("roll", range(1, 7))
def test_s4_circular_run(steel_wolves: Checked, roll: int) -> None:
    expected = "Sub Sunk if no dud - roll on [S2]" if roll == 6 else "Miss"
    assert cell(steel_wolves, "circular_run_table", roll) == expected


def test_s4_needs_a_second_12(steel_wolves: Checked) -> None:
    outcome = resolve(steel_wolves, "circular_run", dice=[6, 5])
    assert outcome.result is None
    outcome = resolve(steel_wolves, "circular_run", dice=[6, 6, 3])
    assert result(outcome) == "Miss"
    # 6: the dud check decides (1944 Mk 14: dud on 1 only)
    outcome = resolve(steel_wolves, "circular_run", at=["year=1944"], dice=[6, 6, 6, 2])
    assert result(outcome) == {"result": "Sub Sunk if no dud - roll on [S2]", "then": False}


# ---- [E2] Escort Detection ----------------------------------------------------------------------

E2 = {r: "Undetected" for r in range(-2, 9)}
E2.update({9: "Detected", 10: "Detected", 11: "Detected"})
E2.update({r: "Detected (+1 Attack DRM)" for r in range(12, 20)})


@pytest.mark.parametrize("roll", sorted(E2))
def test_e2_escort_detection_chart(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "escort_detection_chart", roll) == E2[roll]


# a baseline with every modifier off: night (no "Mk 14 Torpedo/Day"), 1942, Medium Range
E2_BASE = ["time_of_day=Night"]


@pytest.mark.parametrize(
    ("at", "value", "rule", "label"),
    [
        (["year=1943"], +1, "E2", "1943-44"),
        (["year=1944"], +1, "E2", "1943-44"),
        (["year=1945"], 0, "E2", None),
        (["escort_attacked=Hit"], -1, "E2", "Escort Attacked, Scored a Hit"),
        (["escort_attacked=Miss"], +1, "E2", "Escort Attacked, Missed"),
        (["in_command=Exec"], +1, "E2", "Captain is SW"),
        (["fuel_tanks_damaged=yes"], +1, "E2", "Fuel Tanks Damaged"),
        (["dive_planes_damaged=yes"], +1, "E2", "Dive Planes Out"),
        (["target=Capital Ship"], +1, "E2", "Capital Ship, Warship/Escort"),
        (["target=Fast Capital Ship"], +1, "E2", "Capital Ship, Warship/Escort"),
        (["target=Warship/Escort"], +1, "E2", "Capital Ship, Warship/Escort"),
        (["time_of_day=Day"], +1, "E2", "Mk 14 Torpedo/Day"),
        (["time_of_day=Day", "weapon=Mk 18"], 0, "E2", None),
        (["previously_detected=yes"], +1, "E2", "Previously Detected"),
        (["attack_range=Close"], +1, "E2", "Close Range (after firing)"),
        (["attack_range=Long"], -1, "E2", "Long Range"),
        (["night_surface_attack=yes"], +1, "E2", "Night Surface Attack"),
        (["fired_fwd_and_aft=yes"], +1, "E2", "Firing Fwd+Aft (1st Round only)"),
        (["fired_fwd_and_aft=yes", "first_round=no"], 0, "E2", None),
        (
            ["wolfpack_convoy=Escorts focused on your sub, detection +1"],
            +1,
            "E2",
            "Wolfpack Attack on Convoy",
        ),
        (
            ["wolfpack_convoy=Escorts busy elsewhere, detection -1"],
            -1,
            "E2",
            "Wolfpack Attack on Convoy",
        ),
        (
            ["wolfpack_convoy=Position reports coming in, may auto switch day/night, auto follow"],
            0,
            "E2",
            None,
        ),
        (["exceeding_test_depth=yes"], -1, "E2", "Exceeding Test Depth"),
        (["escort_quality=Elite"], +1, "E6", "Elite"),
        (["escort_quality=Veteran"], 0, "E6", None),
    ],
)
def test_e2_modifiers(
    steel_wolves: Checked, at: list[str], value: int, rule: str, label: str | None
) -> None:
    check_modifier(steel_wolves, "escort_detection", E2_BASE, [3, 4], at, value, rule, label)


def test_e2_night_surface_attack_only_in_42_43(steel_wolves: Checked) -> None:
    def total(*at: str) -> int:
        outcome = resolve(steel_wolves, "escort_detection", at=[*E2_BASE, *at], dice=[3, 4])
        return rolls(outcome)[0].total

    assert total("year=1943", "night_surface_attack=yes") - total("year=1943") == 1
    assert total("year=1944", "night_surface_attack=yes") - total("year=1944") == 0
    assert total("year=1941", "night_surface_attack=yes") - total("year=1941") == 0


def test_e2_third_officer_in_command_is_plus_two(steel_wolves: Checked) -> None:
    # [E5]: "Exec: 3rd Officer takes command ... Detection [E2] and To Hit [S1] rolls are +2."
    outcome = resolve(
        steel_wolves, "escort_detection", at=[*E2_BASE, "in_command=3rd Officer"], dice=[3, 4]
    )
    roll = rolls(outcome)[0]
    assert roll.total == 9
    assert sorted(t.rule for t in roll.modifiers) == ["E2", "E5"]


def test_e2_unmodified_2_is_undetected(steel_wolves: Checked) -> None:
    heavy = [
        "year=1943",
        "escort_attacked=Miss",
        "in_command=Exec",
        "fuel_tanks_damaged=yes",
        "dive_planes_damaged=yes",
        "target=Warship/Escort",
        "previously_detected=yes",
        "time_of_day=Day",
    ]
    outcome = resolve(steel_wolves, "escort_detection", at=heavy, dice=[1, 1])
    roll = rolls(outcome)[0]
    assert roll.natural == 2 and roll.total == 10
    assert cell(steel_wolves, "escort_detection_chart", roll.total) == "Detected"
    assert result(outcome) == "Undetected"
    assert not lookups(outcome, "escort_detection_chart")
    # a 3 with the same modifiers is read on the chart
    outcome = resolve(steel_wolves, "escort_detection", at=heavy, dice=[1, 2])
    assert result(outcome) == "Detected"


CLOSE = ["attack_range=Close", "before_firing=yes"]


@pytest.mark.parametrize("roll", range(1, 15))
def test_e2_close_range_chart(steel_wolves: Checked, roll: int) -> None:
    # "Detection occurs on roll of 10 or higher"
    expected = "Detected" if roll >= 10 else "Undetected"
    assert cell(steel_wolves, "close_range_detection", roll) == expected


@pytest.mark.parametrize(
    ("at", "dice", "expected"),
    [
        ([], [4, 5], "Undetected"),
        ([], [4, 6], "Detected"),
        (["year=1943"], [4, 5], "Detected"),
        (["year=1944"], [4, 4], "Undetected"),
        ([], [6, 6], "Detected"),
        (["year=1944"], [1, 1], "Undetected"),
    ],
)
def test_e2_close_range_before_firing(
    steel_wolves: Checked, at: list[str], dice: list[int], expected: str
) -> None:
    outcome = resolve(steel_wolves, "escort_detection", at=[*CLOSE, *at], dice=dice)
    assert result(outcome) == expected


def test_e2_close_range_before_firing_takes_only_the_year_modifier(steel_wolves: Checked) -> None:
    others = [
        "previously_detected=yes",
        "fuel_tanks_damaged=yes",
        "target=Capital Ship",
        "time_of_day=Day",
        "escort_attacked=Miss",
    ]
    outcome = resolve(steel_wolves, "escort_detection", at=[*CLOSE, *others], dice=[4, 5])
    roll = rolls(outcome)[0]
    assert roll.total == 9 and roll.modifiers == []
    assert result(outcome) == "Undetected"
    outcome = resolve(
        steel_wolves, "escort_detection", at=[*CLOSE, *others, "year=1944"], dice=[4, 5]
    )
    roll = rolls(outcome)[0]
    assert roll.total == 10
    assert [(t.value, t.rule) for t in roll.modifiers] == [(1, "E2 Close Range")]


# ---- [E3] Escort/Air Attack ---------------------------------------------------------------------

E3 = {  # roll: (Escort 41-June 43, Air/Escort July 43+)
    2: ("Miss", "Miss"),
    3: ("Miss", "Miss"),
    4: ("1 Hit", "1 Hit"),
    5: ("1 Hit", "1 Hit"),
    6: ("1 Hit", "1 Hit"),
    7: ("2 Hits", "2 Hits"),
    8: ("2 Hits", "2 Hits"),
    9: ("2 Hits", "3 Hits"),
    10: ("2 Hits", "3 Hits"),
    11: ("3 Hits", "4 Hits"),
    12: ("4 Hits", "5 Hits"),
    13: ("5 Hits", "Sunk"),
    17: ("5 Hits", "Sunk"),
}


@pytest.mark.parametrize("roll", sorted(E3))
def test_e3_escort_air_attack_chart(steel_wolves: Checked, roll: int) -> None:
    early, late = E3[roll]
    assert cell(steel_wolves, "escort_air_attack_chart", roll, column="Escort 41-June 43") == early
    assert cell(steel_wolves, "escort_air_attack_chart", roll, column="Air/Escort July 43+") == late


@pytest.mark.parametrize(
    ("at", "column"),
    [
        (["year=1942"], "Escort 41-June 43"),
        (["year=1943", "month=6"], "Escort 41-June 43"),
        (["year=1943", "month=7"], "Air/Escort July 43+"),
        (["year=1945"], "Air/Escort July 43+"),
        (["year=1942", "air_attack=yes"], "Air/Escort July 43+"),
    ],
)
def test_e3_column_by_date(steel_wolves: Checked, at: list[str], column: str) -> None:
    outcome = resolve(steel_wolves, "escort_air_attack", at=at, dice=[4, 5])
    (lookup,) = lookups(outcome, "escort_air_attack_chart")
    assert lookup.row[1] == column


@pytest.mark.parametrize(
    ("at", "value", "label"),
    [
        (["fuel_tanks_damaged=yes"], 1, "Fuel Tanks Hit"),
        (["hydrophones_damaged=yes"], 1, "Hydrophones out"),
        (["batteries_damaged=yes"], 1, "Batteries Damaged"),
        (["electric_motors_out=1"], 0, None),  # a boat with 4 electrics
        (["electric_motors_out=2"], 1, "Electric Motor Dam"),
        (["electric_motors_out=3"], 1, "Electric Motor Dam"),
        (["electric_motors_out=4"], 2, "Electric Motor Dam"),
        (["night_surface_attack=yes"], 1, "Night Surface Attack"),
        (["night_surface_attack=yes", "first_round=no"], 0, None),
        (["detected_12_or_more=yes"], 1, "Rolled 12+ on Detection"),
        (["air_attack=yes"], 1, "Air Attack"),
    ],
)
def test_e3_modifiers(steel_wolves: Checked, at: list[str], value: int, label: str | None) -> None:
    check_modifier(steel_wolves, "escort_air_attack", [], [2, 3], at, value, "E3", label)


def test_e3_motor_count_is_provisional_boat_data(steel_wolves: Checked) -> None:
    outcome = resolve(steel_wolves, "escort_air_attack", at=["electric_motors_out=2"], dice=[2, 3])
    assert any("electric_motors" in p for p in outcome.trace.provisional_used)


# ---- [E5] Sub Damage and Repair -----------------------------------------------------------------

FLOODING = {1: "Flooding stopped", 2: "Flooding stopped", 3: "Flooding stopped"}
FLOODING.update({4: "Flooding stopped", 5: "Additional Flooding", 6: "Additional Flooding"})


@pytest.mark.parametrize("roll", sorted(FLOODING))
def test_e5_flooding_check(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "flooding_check", roll) == FLOODING[roll]
    assert not provisional(steel_wolves, "flooding_check", roll)


# system: the highest roll that is "Fixed" (the rest up to 6 is "Inoperable")
REPAIR = {
    "Engines and Motors": 4,
    "Periscope": 2,
    "AA Gun(s)": 2,
    "Deck Gun": 2,
    "Hydrophones": 2,
    "Dive Planes": 2,
    "Fwd/Aft Torpedo Doors": 2,
    "Fuel Tanks": 2,
    "Batteries": 4,
    "Radio": 2,
    "SD and SJ Radar": 3,
}


@pytest.mark.parametrize("system", sorted(REPAIR))
def test_e5_repair_rolls(steel_wolves: Checked, system: str) -> None:
    for roll in range(1, 7):
        expected = "Fixed" if roll <= REPAIR[system] else "Inoperable"
        assert cell(steel_wolves, "repair", roll, system=system) == expected, roll
        assert not provisional(steel_wolves, "repair", roll, system=system)
    # beyond the die, by the modifiers: not printed
    assert cell(steel_wolves, "repair", 0, system=system) == "Fixed"
    assert cell(steel_wolves, "repair", 7, system=system) == "Inoperable"
    assert provisional(steel_wolves, "repair", 0, system=system)
    assert provisional(steel_wolves, "repair", 7, system=system)


@pytest.mark.parametrize(
    ("damage", "system"),
    [
        ("Diesel Eng 3", "Engines and Motors"),
        ("Electric Mtr 1", "Engines and Motors"),
        ("Fuel Tank", "Fuel Tanks"),
        ("SJ Radar", "SD and SJ Radar"),
        ("Fwd Torp ODD", "Fwd/Aft Torpedo Doors"),
        ("AA Gun", "AA Gun(s)"),
    ],
)
def test_e5_repair_reads_the_e4_result_names(
    steel_wolves: Checked, damage: str, system: str
) -> None:
    assert cell(steel_wolves, "repair", 3, system=damage) == cell(
        steel_wolves, "repair", 3, system=system
    )


@pytest.mark.parametrize(
    ("at", "value", "label"),
    [
        (["chief_engineer_sw_or_kia=yes"], 1, "All repair rolls are +1"),
        (["expert_chief_engineer=yes"], -1, "Expert Chief Engineer"),
        (
            ["expert_chief_engineer=yes", "chief_engineer_sw_or_kia=yes"],
            1,
            "All repair rolls are +1",
        ),
    ],
)
@pytest.mark.parametrize("table", ["repair", "flooding_check"])
def test_e5_repair_modifiers(
    steel_wolves: Checked, table: str, at: list[str], value: int, label: str
) -> None:
    base = ["system=Periscope"] if table == "repair" else []
    check_modifier(steel_wolves, table, base, [2], at, value, "E5", label)


CREW_INJURY = {2: "Captain", 3: "Chief Engineer", 4: "Exec", 5: "Pharm. Mate", 11: "3rd Officer"}
CREW_INJURY.update({r: "Crew" for r in range(6, 11)})
CREW_INJURY[12] = "Passenger"
WOUND = {1: "Light Wound (LW)", 2: "Light Wound (LW)", 3: "Light Wound (LW)"}
WOUND.update({4: "Severe Wound (SW)", 5: "Severe Wound (SW)", 6: "Killed in Action (KIA)"})


@pytest.mark.parametrize("roll", sorted(CREW_INJURY))
def test_e5_injured_crew_member(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "injured_crew_member", roll) == CREW_INJURY[roll]


@pytest.mark.parametrize("roll", sorted(WOUND))
def test_e5_injury(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "injury", roll) == WOUND[roll]


@pytest.mark.parametrize(
    ("dice", "expected"),
    [
        ([1, 1, 6], ["Captain", "Killed in Action (KIA)"]),
        ([3, 4, 4], ["Crew", "Severe Wound (SW)"]),
        ([6, 6, 1], ["Passenger", "Light Wound (LW)"]),
    ],
)
def test_e5_crew_injury_is_who_and_how_bad(
    steel_wolves: Checked, dice: list[int], expected: list[str]
) -> None:
    outcome = resolve(steel_wolves, "crew_injury", dice=dice)
    assert result(outcome) == expected
    assert [r.dice for r in rolls(outcome)] == ["2d6", "d6"]


@pytest.mark.parametrize(
    ("section", "start", "end"),
    [
        ("Flooding", "Place or advance Flooding marker in box.", "remove the Flooding marker."),
        ("Hull", "Mark one hull box for damage.", "not repairable at sea."),
        ("Crew Injury", "Note: For additional wounds", "Special Mission fails if KIA/SW"),
        ("Engines and Motors", "DIESEL ENGINES: If 1 of 2 or 3 of 4", "engine or motor."),
        ("Fuel Tanks", "Tanks leaking.", "sub must abort patrol."),
        ("Minor Damage", "No effect.", "No effect."),
        ("SD and SJ Radar", "SD inoperable: apply -1", "attempt repair."),
        ("-1R", "Expert Chief Engineer who can perform duties", "repair rolls by -1."),
    ],
)
def test_e5_text(steel_wolves: Checked, section: str, start: str, end: str) -> None:
    text = cell(steel_wolves, "damage_and_repair_text", section=section)
    assert text.startswith(start) and text.endswith(end)
    assert "  " not in text


def test_e5_sw_crew_become_kia_on_4_to_6(steel_wolves: Checked) -> None:
    for die in range(1, 7):
        assert resolve(steel_wolves, "sw_crew_become_kia", dice=[die]).result is (die >= 4)


# ---- [E6] Variable Escort/Aircraft Quality ------------------------------------------------------

E6 = {  # Year: roll 1..6 -> quality
    "41-42": ["Green", "Trained", "Trained", "Trained", "Trained", "Veteran"],
    "43-44": ["Green", "Trained", "Trained", "Trained", "Veteran", "Elite"],
    "45": ["Green", "Green", "Trained", "Trained", "Trained", "Veteran"],
}


@pytest.mark.parametrize("year", sorted(E6))
def test_e6_quality(steel_wolves: Checked, year: str) -> None:
    for roll, expected in zip(range(1, 7), E6[year], strict=True):
        assert cell(steel_wolves, "escort_quality_chart", roll, quality_years=year) == expected


@pytest.mark.parametrize(
    ("year", "die", "expected"),
    [
        (1941, 6, "Veteran"),
        (1942, 2, "Trained"),
        (1943, 6, "Elite"),
        (1944, 5, "Veteran"),
        (1945, 2, "Green"),
        (1945, 6, "Veteran"),
    ],
)
def test_e6_quality_for_the_year(steel_wolves: Checked, year: int, die: int, expected: str) -> None:
    outcome = resolve(steel_wolves, "escort_quality_roll", at=[f"year={year}"], dice=[die])
    assert result(outcome) == expected


def test_e6_hits_by_quality(steel_wolves: Checked) -> None:
    # "one less Hit", "use the charts normally", "+1 Hit", "+1 Hit"
    expected = {"Green": -1, "Trained": 0, "Veteran": 1, "Elite": 1}
    for quality, hits in expected.items():
        assert cell(steel_wolves, "quality_hits", escort_quality=quality) == hits


# ---- [E7] Evasive Maneuvers ---------------------------------------------------------------------

E7 = {1: "Left", 2: "Left", 3: "Right", 4: "Right", 5: "Straight", 6: "Straight"}


@pytest.mark.parametrize("roll", sorted(E7))
def test_e7_direction(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "evasive_direction", roll) == E7[roll]


@pytest.mark.parametrize(
    ("evasion", "escort", "hits"),
    [(1, 5, -1), (3, 1, -1), (1, 2, 1), (4, 3, 1), (5, 5, 3), (2, 2, 3), (6, 5, 1)],
)
def test_e7_evasive_maneuvers(steel_wolves: Checked, evasion: int, escort: int, hits: int) -> None:
    outcome = resolve(
        steel_wolves, "evasive_maneuvers", decide=[f"evasion={evasion}"], dice=[escort]
    )
    assert outcome.result == hits


# ---- [E8] Exceed Test Depth ---------------------------------------------------------------------

E8 = {
    "< Current Hull Damage": "Sub Sunk",
    "= Current Hull Damage": "+1 Hull Damage, roll again",
    "> Current Hull Damage": "-1 on current detection attempt only",
}


def test_e8_chart(steel_wolves: Checked) -> None:
    for comparison, expected in E8.items():
        assert cell(steel_wolves, "exceed_test_depth_chart", hull_comparison=comparison) == expected


def test_e8_roll_above_the_hull_damage(steel_wolves: Checked) -> None:
    outcome = resolve(steel_wolves, "exceed_test_depth", at=["hull_damage=1"], dice=[2, 1])
    assert result(outcome) == "-1 on current detection attempt only"
    state = outcome.interpreter.state.values
    assert state["hull_damage"] == 2 and state["exceeding_test_depth"] is True


def test_e8_roll_below_the_hull_damage_sinks(steel_wolves: Checked) -> None:
    # "Take 1 Hull damage": 4 -> 5, then 2+2 = 4 < 5
    outcome = resolve(steel_wolves, "exceed_test_depth", at=["hull_damage=4"], dice=[2, 2])
    assert result(outcome) == "Sub Sunk"
    assert outcome.interpreter.state.values["exceeding_test_depth"] is False


def test_e8_roll_equal_takes_hull_damage_and_rolls_again(steel_wolves: Checked) -> None:
    # 2 -> 3, roll 3 (=): 4, roll 2 (<): sunk
    outcome = resolve(steel_wolves, "exceed_test_depth", at=["hull_damage=2"], dice=[1, 2, 1, 1])
    assert result(outcome) == "Sub Sunk"
    assert outcome.interpreter.state.values["hull_damage"] == 4
    sets = [
        e for e in outcome.trace.events if isinstance(e, SetEvent) and e.target == "hull_damage"
    ]
    assert [(e.old, e.new) for e in sets] == [(2, 3), (3, 4)]


@pytest.mark.parametrize("at", [["area=China Sea"], ["first_detection_after_night_surface=yes"]])
def test_e8_cannot_be_used(steel_wolves: Checked, at: list[str]) -> None:
    with pytest.raises(RuleViolation):
        resolve(steel_wolves, "exceed_test_depth", at=at, dice=[6, 6])


# ---- [E9] Wolfpack ------------------------------------------------------------------------------

E9 = {
    1: "Escorts busy elsewhere, detection -1",
    2: "Convoy scattered: player gets single unescorted ship instead of convoy",
    3: "Position reports coming in, may auto switch day/night, auto follow",
    4: "Position reports coming in, may auto switch day/night, auto follow",
    5: "Position reports coming in, may auto switch day/night, auto follow",
    6: "Escorts focused on your sub, detection +1",
}


@pytest.mark.parametrize("roll", sorted(E9))
def test_e9_wolfpack_chart(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "wolfpack_chart", roll) == E9[roll]


def test_e9_wolfpack_result_feeds_detection(steel_wolves: Checked) -> None:
    outcome = resolve(steel_wolves, "wolfpack", dice=[1])
    assert result(outcome) == E9[1]
    assert str(outcome.interpreter.state.values["wolfpack_convoy"]) == E9[1]
    with pytest.raises(RuleViolation):
        resolve(steel_wolves, "wolfpack", at=["radio_working=no"], dice=[1])


# ---- [E10] Scuttling ----------------------------------------------------------------------------

SCUTTLING = {r: "Success, crew captured and made POW" for r in range(2, 12)}
SCUTTLING[12] = "Failure, sub captured by Japanese"
RESCUE = {r: "Rescued" for r in range(2, 10)}
RESCUE.update({10: "Crew lost at sea", 11: "Crew lost at sea", 12: "Crew lost at sea"})


@pytest.mark.parametrize("roll", range(2, 13))
def test_e10_scuttling_and_rescue(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "scuttling", roll) == SCUTTLING[roll]
    assert cell(steel_wolves, "rescue", roll) == RESCUE[roll]
    assert not provisional(steel_wolves, "scuttling", roll)
    assert not provisional(steel_wolves, "rescue", roll)


def test_e10_beyond_12_is_provisional(steel_wolves: Checked) -> None:
    assert provisional(steel_wolves, "scuttling", 13)
    assert provisional(steel_wolves, "rescue", 16)


def test_e10_modifiers(steel_wolves: Checked) -> None:
    check_modifier(
        steel_wolves, "scuttling", [], [5, 6], ["in_command=Exec"], 1, "E10", "Captain is SW or KIA"
    )
    check_modifier(
        steel_wolves,
        "rescue",
        [],
        [4, 5],
        ["radio_working=no"],
        4,
        "E10 Rescue",
        "radio inoperable",
    )
    outcome = resolve(steel_wolves, "rescue", at=["radio_working=no"], dice=[2, 4])
    assert result(outcome) == "Crew lost at sea"


# ---- [C1]-[C5] Career ---------------------------------------------------------------------------


def test_c1_assignment_to_new_boat(steel_wolves: Checked) -> None:
    values = _values(steel_wolves, "new_boat", None, {"upgrade": "Navy Cross"})
    found = steel_wolves.tables["new_boat"].lookup(values)[0].value
    assert (found.low, found.high) == (1, 3)
    for upgrade in ("Medal of Honor", "Sub has 5+ month refit", "Cpt in hospital 5+ months"):
        assert cell(steel_wolves, "new_boat", upgrade=upgrade) == "Auto"


C2 = {
    1: "Expert Chief Engineer (-1 repair rolls)",
    2: "Expert Pharmacist’s Mate (-1 injury recovery rolls)",
    3: "Expert Executive Officer no command penalty",
    4: "Expert 3rd Officer no command penalty",
    5: "Crew increases to next level",
    6: "Crew increases to next level",
}


@pytest.mark.parametrize("roll", sorted(C2))
def test_c2_crew_advancement(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "crew_advancement", roll) == C2[roll]


@pytest.mark.parametrize("roll", range(1, 7))
def test_c3_promotions(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "promotion", roll) == ("Promoted" if roll <= 3 else "Passed Over")
    assert not provisional(steel_wolves, "promotion", roll)


@pytest.mark.parametrize(
    ("at", "value", "label"),
    [
        (["navy_crosses_in_period=1"], -1, "Navy Cross"),
        (["navy_crosses_in_period=2"], -2, "Navy Cross"),
        (["sinkings_in_period=9"], 0, None),
        (["sinkings_in_period=10"], -1, "per 10 sinkings"),
        (["sinkings_in_period=25"], -2, "per 10 sinkings"),
        (["medal_of_honor=yes"], -2, "Medal of Honor"),
        (["unsuccessful_patrols_in_period=1"], 1, "unsuccessful patrol"),
        (["unsuccessful_patrols_in_period=3"], 3, "unsuccessful patrol"),
        (["captain_o6_attempt=yes"], 1, "Captain (O-6) attempt"),
        (["letter_of_reprimand=yes"], 1, "Letter of Reprimand"),
    ],
)
def test_c3_modifiers(steel_wolves: Checked, at: list[str], value: int, label: str | None) -> None:
    check_modifier(steel_wolves, "promotion", [], [3], at, value, "C3", label)


def test_c4_ship_awards(steel_wolves: Checked) -> None:
    assert cell(steel_wolves, "ship_awards", award="Battle Star") == "Successful Patrol"
    assert cell(steel_wolves, "ship_awards", award="NUC") == "6 ships sunk and roll 1-3"
    assert (
        cell(steel_wolves, "ship_awards", award="PUC")
        == "7+ ships sunk and roll 1-2 (3-6 gets NUC above)"
    )


@pytest.mark.parametrize(
    ("ships", "die", "expected"),
    [
        (5, 1, None),
        (6, 1, "(NUC) Navy Unit Commendation"),
        (6, 3, "(NUC) Navy Unit Commendation"),
        (6, 4, None),
        (6, 6, None),
        (7, 1, "(PUC) Presidential Unit Citation"),
        (7, 2, "(PUC) Presidential Unit Citation"),
        (7, 3, "(NUC) Navy Unit Commendation"),
        (9, 6, "(NUC) Navy Unit Commendation"),
    ],
)
def test_c4_unit_citation_roll(
    steel_wolves: Checked, ships: int, die: int, expected: str | None
) -> None:
    outcome = resolve(steel_wolves, "unit_citation", at=[f"ships_sunk={ships}"], dice=[die])
    assert result(outcome) == expected


C5 = {
    "Navy Commendation Ribbon (11/43+)": "Successful Special Mission",
    "Bronze Star": "3 ships sunk on patrol",
    "Silver Star": "4 ships sunk on patrol",
    "Navy Cross": "5 ships or 1 Capital ship",
    "Medal of Honor (MoH)": "7+ ships sunk (3 times)",
    "Purple Heart": "Any Wound",
    "Submarine Combat Patrol Insignia": "Successful patrol, any type",
}


@pytest.mark.parametrize("award", sorted(C5))
def test_c5_captain_awards(steel_wolves: Checked, award: str) -> None:
    assert cell(steel_wolves, "captain_awards", award=award) == C5[award]


# ---- [R1] Random Events -------------------------------------------------------------------------

R1 = {
    2: "Man Overboard!",
    3: "Run Aground!",
    4: "Ultra Intercept",
    5: "Superior Torpedoes",
    6: "Appendicitis",
    7: "Lucky Rabbit’s Foot",
    8: "Rebased",
    9: "Pooped",
    10: "POW Ship Sunk",
    11: "Crew Illness",
    12: "Trial by Courts-Martial",
}


@pytest.mark.parametrize("roll", sorted(R1))
def test_r1_random_events(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "random_events", roll) == R1[roll]


@pytest.mark.parametrize(
    ("event", "start", "end"),
    [
        ("Man Overboard!", "Huge wave hits your bridge", "ignore this event."),
        ("Run Aground!", "The boat runs aground", "Roll for rescue in that case."),
        ("Ultra Intercept", "An Ultra intercept", "for this travel box."),
        ("Superior Torpedoes", "Your boat has been loaded", "(Random Event Box)."),
        ("Appendicitis", "A crewman needs emergency surgery.", "marker (if present)."),
        ("Lucky Rabbit’s Foot", "Not so lucky for the rabbit", "(Random Event Box)."),
        ("Rebased", "You have been ordered to rebase.", "or vice versa)."),
        ("Pooped", "Your boat has been swept", "Roll for 1 x crew injury."),
        ("POW Ship Sunk", "You sink the Kachidoki Maru, 10,500 tons", "already sunk it."),
        ("Crew Illness", "Most of the boat’s crew is sick", "torpedo, deck gun and AA."),
        ("Trial by Courts-Martial", "Your boat accidentally sinks", "treat as no encounter."),
    ],
)
def test_r1_event_descriptions(steel_wolves: Checked, event: str, start: str, end: str) -> None:
    text = cell(steel_wolves, "random_event_text", random_event=event)
    assert text.startswith(start) and text.endswith(end)
    assert "  " not in text


MAN_OVERBOARD = {1: "Captain (game ends)", 2: "Exec", 3: "Chief Engineer"}
MAN_OVERBOARD.update({4: "3rd Officer", 5: "3rd Officer", 6: "3rd Officer"})
APPENDICITIS = {
    r: "Successful, and Pharmacist’s Mate becomes Expert (if not already)" for r in (1, 2, 3)
}
APPENDICITIS.update({4: "Patient survives", 5: "Patient survives"})
APPENDICITIS[6] = "Patient dies, Remove Pharmacist’s Mate expert marker (if present)"


@pytest.mark.parametrize("roll", range(1, 7))
def test_r1_sub_rolls(steel_wolves: Checked, roll: int) -> None:
    assert cell(steel_wolves, "man_overboard", roll) == MAN_OVERBOARD[roll]
    assert cell(steel_wolves, "appendicitis", roll) == APPENDICITIS[roll]


@pytest.mark.parametrize(
    ("dice", "expected"),
    [
        ([1, 1, 2], {"result": "Man Overboard!", "then": "Exec"}),
        ([3, 3, 4], {"result": "Appendicitis", "then": "Patient survives"}),
        ([5, 4, 1, 1, 5], {"result": "Pooped", "then": ["Captain", "Severe Wound (SW)"]}),
    ],
)
def test_r1_sub_rolls_follow_the_event(
    steel_wolves: Checked, dice: list[int], expected: dict[str, Any]
) -> None:
    assert result(resolve(steel_wolves, "random_event", dice=dice)) == expected


def test_r1_ultra_intercept_rolls_a_capital_ship(steel_wolves: Checked) -> None:
    outcome = resolve(steel_wolves, "random_event", dice=[1, 3, 20])
    assert result(outcome)["then"]["name"] == "Yamato"


@pytest.mark.parametrize(
    ("dice", "state", "value"),
    [
        ([2, 3], "superior_torpedoes", True),
        ([5, 6], "crew_illness", True),
        ([6, 6], "letter_of_reprimand", True),
        ([4, 5, 1, 1, 1], "sj_radar_working", False),
        ([4, 5, 1, 1, 1], "sd_radar_working", False),
    ],
)
def test_r1_events_that_last(
    steel_wolves: Checked, dice: list[int], state: str, value: bool
) -> None:
    outcome = resolve(steel_wolves, "random_event", at=["sj_radar_working=yes"], dice=dice)
    assert outcome.interpreter.state.values[state] is value


def test_r1_only_once_per_patrol(steel_wolves: Checked) -> None:
    with pytest.raises(RuleViolation):
        resolve(steel_wolves, "random_event", at=["random_event_occurred=yes"], dice=[3, 4])


# ---- every chart carries its chart code ---------------------------------------------------------


def test_every_table_and_modifier_list_cites_a_chart(steel_wolves: Checked) -> None:
    codes = {
        "P1a",
        "P1p",
        "E1",
        "A1",
        "A2",
        "A5",
        "S1",
        "S2",
        "S3",
        "S4",
        "E2",
        "E3",
        "E4",
        "E5",
        "E6",
        "E7",
        "E8",
        "E9",
        "E10",
        "T1a",
        "T1b",
        "T1c",
        "T2a",
        "T2b",
        "T2c",
        "T3",
        "T4",
        "C1",
        "C2",
        "C3",
        "C4",
        "C5",
        "R1",
    }
    book = steel_wolves.book
    for decl in [*book.tables.values(), *book.modifiers.values()]:
        assert decl.ref is not None, decl.name
        assert decl.ref.number.rstrip(",") in codes, (decl.name, decl.ref.text)
    for decl in book.modifiers.values():
        for line in decl.lines:
            assert line.ref is not None and line.ref.number in codes, (decl.name, line)
