"""Empire of the Sun, Submarine Warfare variant [11.21]-[11.24].

Every expected number is transcribed from the variant's text
(../shared/seeds/003_ede40a1c355681ed.txt), not from rulekit's output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tracing import events, one, state, trace_text

from rulekit.book.checker import Checked
from rulekit.engine.session import Outcome, resolve
from rulekit.engine.values import unwrap
from rulekit.errors import RuleViolation

ROOT = Path(__file__).resolve().parent.parent
TWO_BASES = str(ROOT / "examples" / "eots_submarine_warfare" / "two_sub_bases_1944.toml")


# ---- the rulebook ---------------------------------------------------------------------------


def test_checks_clean_with_nothing_provisional(eots: Checked) -> None:
    assert eots.errors == [] and eots.warnings == []
    assert eots.provisional_count == 0  # every value is printed in the variant


def test_the_die_reads_zero_to_nine(eots: Checked) -> None:
    # [11.24.A] "On a die roll of: 0 / 1 - 2 / 3 - 9"
    assert tuple(eots.dice["d10"].faces) == tuple(range(10))


# ---- [11.21.B] Sub Base Order of Battle -----------------------------------------------------

# The Scenario Table as printed: "Scenario Starting Position".
OOB = {
    "Wilkes": {1941: 2813, 1942: 2813, 1943: "Replaced", 1944: "Replaced"},
    "Lockwood (4)": {1941: 4, 1942: 4, 1943: 3727, 1944: "Replaced"},
    "Fife": {1941: 6, 1942: 6, 1943: 6, 1944: 4024},
    "Lockwood (6)": {1941: 6, 1942: 6, 1943: 6, 1944: 5108},
}
SWM_MARKER = {1941: 2, 1942: 2, 1943: 1, 1944: 0}


@pytest.mark.parametrize("unit", list(OOB))
def test_scenario_table_rows(eots: Checked, unit: str) -> None:
    table = eots.tables["sub_base_oob"]
    member = eots.vocab.read(unit, table.dims[0].type)
    for year, printed in OOB[unit].items():
        cell = table.lookup([member, year])[0]
        assert str(unwrap(cell.value)) == str(printed), (unit, year)


def test_swm_marker_row(eots: Checked) -> None:
    table = eots.tables["swm_marker"]
    assert {year: table.lookup([year])[0].value for year in SWM_MARKER} == SWM_MARKER


@pytest.mark.parametrize(
    ("unit", "year", "where", "number"),
    [
        ("Wilkes", 1941, "on_map", "2813"),
        ("Lockwood (4)", 1942, "turn_record_track", "Turn 4"),
        ("Lockwood (4)", 1943, "on_map", "3727"),
        ("Wilkes", 1943, "replaced_in_situ", None),
        ("Fife", 1943, "turn_record_track", "Turn 6"),
        ("Fife", 1944, "on_map", "4024"),
        ("Lockwood (6)", 1944, "on_map", "5108"),
    ],
)
def test_scenario_start(
    eots: Checked, unit: str, year: int, where: str, number: str | None
) -> None:
    outcome = resolve(eots, "scenario_start", at=[f"unit={unit}", f"year={year}"])
    assert str(outcome.result) == where
    if number is not None:
        assert number in one(outcome, "note").text


def test_wilkes_replaced_by_lockwood_on_turn_4_then_fife_on_turn_6(
    eots: Checked, tmp_path: Path
) -> None:
    given = tmp_path / "base.toml"
    given.write_text('[base]\nname = "Wilkes"\nunit = "Wilkes"\n', encoding="utf-8")
    on_4 = resolve(eots, "sub_base_reinforcement", given=str(given), at=["turn=4"])
    assert str(on_4.args["base"].attrs["unit"]) == "Lockwood4"
    assert on_4.args["base"].attrs["on_map_at_reinforcement"] is True  # replaced on the map
    given.write_text('[base]\nname = "Lockwood"\nunit = "Lockwood (4)"\n', encoding="utf-8")
    on_6 = resolve(eots, "sub_base_reinforcement", given=str(given), at=["turn=6"])
    assert str(on_6.args["base"].attrs["unit"]) == "Fife"
    assert "until Turn 7" in one(on_6, "note").text
    # Replaced in situ on the TRT: "then it may not conduct submarine warfare".
    given.write_text('[base]\nname = "Wilkes"\nunit = "Wilkes"\non_map = false\n', encoding="utf-8")
    on_trt = resolve(eots, "sub_base_reinforcement", given=str(given), at=["turn=4"])
    assert on_trt.args["base"].attrs["on_map_at_reinforcement"] is False
    # Nothing happens on other turns.
    given.write_text('[base]\nname = "Wilkes"\nunit = "Wilkes"\n', encoding="utf-8")
    on_5 = resolve(eots, "sub_base_reinforcement", given=str(given), at=["turn=5"])
    assert not events(on_5, "set")


# ---- [11.22.B] the Submarine Warfare Modifier -------------------------------------------------


def swm(eots: Checked, *at: str) -> int:
    return int(unwrap(resolve(eots, "swm", at=list(at)).result))


@pytest.mark.parametrize("year", list(SWM_MARKER))
def test_swm_year_factor_is_the_scenario_tables_marker(eots: Checked, year: int) -> None:
    # "+2: If the year is 1942 / +1: If the year is 1943 / +0: If the year is 1944/1945
    # (reflected in the Scenario Table above)"
    assert swm(eots, f"year={year}") == SWM_MARKER[year]


def test_swm_1945_is_zero(eots: Checked) -> None:
    assert swm(eots, "year=1945") == 0


@pytest.mark.parametrize(
    ("switch", "amount"),
    [
        ("first_convoy_escort_fleet=yes", 2),  # Card #37
        ("grand_escort_command=yes", 2),  # Card #38
        ("new_submarine_doctrine_plays=1", -2),  # Card #80, each play
        ("new_submarine_doctrine_plays=2", -4),
        ("swm_reductions=1", -1),  # each previous success that reduced the SWM
        ("swm_reductions=3", -3),
    ],
)
def test_each_swm_factor_moves_the_swm_by_its_amount(
    eots: Checked, switch: str, amount: int
) -> None:
    for year in (1942, 1944):
        base = swm(eots, f"year={year}")
        assert swm(eots, f"year={year}", switch) - base == amount, (year, switch)


def test_swm_floor_is_minus_five(eots: Checked) -> None:
    # "The SWM may be negative, but it may not be less than -5."
    exact = resolve(
        eots, "swm", at=["year=1944", "new_submarine_doctrine_plays=2", "swm_reductions=1"]
    )
    assert unwrap(exact.result) == -5 and not one(exact, "total").clamped
    below = resolve(eots, "swm", at=["year=1944", "new_submarine_doctrine_plays=3"])
    total = one(below, "total")
    assert sum(t.value for t in total.terms) == -6
    assert unwrap(below.result) == -5 and total.clamped
    assert swm(eots, "year=1944", "new_submarine_doctrine_plays=5", "swm_reductions=4") == -5


# ---- [11.22.C] SLOC PV ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ports", "pv"),
    [(0, 0), (2, 0), (3, 1), (7, 1), (8, 2), (12, 2), (13, 3), (17, 3), (18, 4)],
)
def test_sloc_pv_is_count_over_five_rounded_to_nearest(eots: Checked, ports: int, pv: int) -> None:
    # "Divide the final count by five (5) and round to the nearest integer."
    # 12 / 5 = 2.4 -> 2; 13 / 5 = 2.6 -> 3; 2 / 5 = 0.4 -> 0; 3 / 5 = 0.6 -> 1
    assert resolve(eots, "sloc_pv", at=[f"home_island_ports={ports}"]).result == pv


@pytest.mark.parametrize(
    ("switch", "amount"),
    [
        ("home_island_ports=1", 1),
        ("home_island_ports=4", 4),
        ("pusan=yes", 1),
        ("resource_hexes=1", 1),
        ("resource_hexes=3", 3),
        ("japanese_hqs=1", 1),
        ("japanese_hqs=2", 2),
    ],
)
def test_each_sloc_count_line(eots: Checked, switch: str, amount: int) -> None:
    outcome = resolve(eots, "sloc_count", at=[switch])
    assert unwrap(outcome.result) == amount
    assert [t.rule for t in one(outcome, "total").terms] == ["11.22.C"]


def test_sloc_counts_add_up_before_dividing(eots: Checked) -> None:
    # 9 ports + Pusan + 2 resource hexes + 1 HQ counted in addition to its hex = 13 -> 2.6 -> 3
    outcome = resolve(
        eots,
        "sloc_pv",
        at=["home_island_ports=9", "pusan=yes", "resource_hexes=2", "japanese_hqs=1"],
    )
    assert one(outcome, "total", name="sloc_count").total == 13
    assert outcome.result == 3


# ---- [11.22.A] the success test -----------------------------------------------------------


def warfare(eots: Checked, die: int, *at: str) -> Outcome:
    return resolve(eots, "submarine_warfare_test", at=list(at), dice=[die])


@pytest.mark.parametrize(
    ("at", "last_success"),
    [
        # 1944: SWM 0; 12 ports: PV 2.4 -> 2. (DR + 0) - 2 <= 0 up to DR 2.
        (("year=1944", "home_island_ports=12"), 2),
        # 1942: SWM +2; 13 ports: PV 3. (DR + 2) - 3 <= 0 up to DR 1.
        (("year=1942", "home_island_ports=13"), 1),
        # 1943: SWM +1; PV 2: up to DR 1.
        (("year=1943", "home_island_ports=12"), 1),
        # 1942 and both Japanese escort cards: SWM +6; PV 3: DR -3 is impossible.
        (
            (
                "year=1942",
                "first_convoy_escort_fleet=yes",
                "grand_escort_command=yes",
                "home_island_ports=13",
            ),
            -1,
        ),
        # 1944 and three New Submarine Doctrine plays: -6, floored at -5; PV 0. (DR - 5) <= 0
        # up to DR 5 (without the floor DR 6 would also succeed).
        (("year=1944", "new_submarine_doctrine_plays=3"), 5),
    ],
)
def test_success_test_boundary(eots: Checked, at: tuple[str, ...], last_success: int) -> None:
    # "(DR +/- SWM) - SLOC PV <= 0 successful submarine attack"
    for die in range(10):
        assert warfare(eots, die, *at).result is (die <= last_success), (at, die)


def test_success_test_trace(eots: Checked, snapshot: Any) -> None:
    # 1942 (+2), Grand Escort Command (+2), one New Submarine Doctrine play (-2): SWM +2.
    # 10 ports + Pusan + 2 HQs = 13 -> PV 3. DR 1: (1 + 2) - 3 = 0 -> success.
    outcome = warfare(
        eots,
        1,
        "year=1942",
        "grand_escort_command=yes",
        "new_submarine_doctrine_plays=1",
        "home_island_ports=10",
        "pusan=yes",
        "japanese_hqs=2",
    )
    assert one(outcome, "total", name="swm").total == 2
    assert [t.value for t in one(outcome, "total", name="swm").terms] == [2, 2, -2]
    assert one(outcome, "value", name="pv").value == 3
    roll = one(outcome, "roll")
    assert roll.natural == 1 and roll.total == 3
    assert one(outcome, "value", name="result").value == 0
    assert outcome.result is True
    assert trace_text(outcome) == snapshot


@pytest.mark.parametrize(
    "failing",
    ["in_supply", "hq_eligible", "unique_hq", "on_map_at_reinforcement", "on_map"],
)
def test_each_condition_to_conduct_submarine_warfare(
    eots: Checked, tmp_path: Path, failing: str
) -> None:
    given = tmp_path / "base.toml"
    given.write_text(f'[base]\nname = "Fife"\n{failing} = false\n', encoding="utf-8")
    # 1944: SWM 0, nothing in range: PV 0. A DR of 0 succeeds, if the base may roll at all.
    outcome = resolve(
        eots, "conduct_submarine_warfare", given=str(given), at=["year=1944"], dice=[0]
    )
    assert outcome.result is False and not events(outcome, "roll")
    assert one(outcome, "note").rule == "11.22.A"  # the reason is shown
    given.write_text('[base]\nname = "Fife"\n', encoding="utf-8")
    ok = resolve(eots, "conduct_submarine_warfare", given=str(given), at=["year=1944"], dice=[0])
    assert ok.result is True


# ---- [11.23] effects ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("normal", "successes", "b29", "draw"),
    [
        (7, 0, 0, 7),
        (7, 1, 0, 6),  # "reduced by one card for EACH Sub Base that successfully conducts"
        (7, 2, 0, 5),
        (6, 2, 0, 4),
        (5, 2, 0, 4),  # "cannot be reduced to fewer than four cards"
        (7, 2, 2, 4),  # "regardless of how successful submarine warfare and B-29 bombing are"
        (4, 1, 0, 4),
    ],
)
def test_japanese_hand_reduction(
    eots: Checked, normal: int, successes: int, b29: int, draw: int
) -> None:
    outcome = resolve(
        eots,
        "japanese_card_draw",
        at=[f"normal_draw={normal}", f"successful_sub_bases={successes}", f"b29_reduction={b29}"],
    )
    assert outcome.result == draw


def decision(outcome: Outcome) -> Any:
    return one(outcome, "decision")


def test_success_offers_asp_or_swm_and_counts_the_base(eots: Checked) -> None:
    outcome = resolve(
        eots, "submarine_warfare_success", at=["japanese_asp=3"], decide=["effect=reduce_swm"]
    )
    assert decision(outcome).options == ["reduce_asp", "reduce_swm", "neither"]
    values = state(outcome)
    assert values["successful_sub_bases"] == 1
    assert values["swm_reductions"] == 1 and values["japanese_asp"] == 3
    asp = resolve(
        eots, "submarine_warfare_success", at=["japanese_asp=3"], decide=["effect=reduce_asp"]
    )
    assert state(asp)["japanese_asp"] == 2 and state(asp)["swm_reductions"] == 0


def test_the_chosen_swm_reduction_lowers_the_swm_by_one(eots: Checked) -> None:
    outcome = resolve(
        eots, "submarine_warfare_success", at=["year=1943"], decide=["effect=reduce_swm"]
    )
    after = state(outcome)["swm_reductions"]
    assert swm(eots, "year=1943", f"swm_reductions={after}") == 1 - 1


def test_not_the_last_asp(eots: Checked) -> None:
    # "The Japanese may not lose their last ASP in this manner"
    assert decision(resolve(eots, "submarine_warfare_success", at=["japanese_asp=1"])).options == [
        "reduce_swm",
        "neither",
    ]
    assert (
        "reduce_asp"
        in decision(resolve(eots, "submarine_warfare_success", at=["japanese_asp=2"])).options
    )


def test_swm_not_below_minus_five(eots: Checked) -> None:
    # "the SWM may not be reduced below -5 in this manner"
    at_floor = resolve(
        eots,
        "submarine_warfare_success",
        at=["year=1944", "new_submarine_doctrine_plays=2", "swm_reductions=1"],
    )
    assert "reduce_swm" not in decision(at_floor).options
    above = resolve(
        eots, "submarine_warfare_success", at=["year=1944", "new_submarine_doctrine_plays=2"]
    )
    assert "reduce_swm" in decision(above).options


def test_once_per_turn_each(eots: Checked) -> None:
    # "Only one 1 ASP may be lost per turn and only one adjustment of the SWM may be made per turn"
    done = resolve(
        eots,
        "submarine_warfare_success",
        at=["japanese_asp=5", "asp_reduced_this_turn=yes", "swm_reduced_this_turn=yes"],
    )
    assert decision(done).options == ["neither"]


def test_two_successful_bases_lose_an_asp_and_adjust_the_swm(eots: Checked, snapshot: Any) -> None:
    # "If both Sub Bases successfully conduct submarine warfare, then both an ASP may be lost
    # and an SWM adjustment may be made."
    # 1944: SWM 0. Fife: 8 ports + Pusan + 1 resource + 1 HQ = 11 -> 2.2 -> PV 2; DR 1: -1.
    # Lockwood: 4 ports + 2 resources + 1 HQ = 7 -> 1.4 -> PV 1; DR 0: -1.
    outcome = resolve(eots, "submarine_warfare_segment", given=TWO_BASES, dice=[1, 0])
    assert [e.value for e in events(outcome, "value", name="pv")] == [2, 1]
    assert [e.value for e in events(outcome, "value", name="result")] == [-1, -1]
    assert outcome.result == 2
    values = state(outcome)
    assert values["japanese_asp"] == 2 and values["swm_reductions"] == 1
    assert [e.choice for e in events(outcome, "decision")] == ["reduce_asp", "reduce_swm"]
    draw = resolve(
        eots, "japanese_card_draw", at=["normal_draw=7", f"successful_sub_bases={outcome.result}"]
    )
    assert draw.result == 5
    assert trace_text(outcome) == snapshot


def test_one_success_one_failure(eots: Checked) -> None:
    # Fife: PV 2, DR 3: (3 + 0) - 2 = 1 > 0 fails; Lockwood: PV 1, DR 1: 0 succeeds.
    outcome = resolve(eots, "submarine_warfare_segment", given=TWO_BASES, dice=[3, 1])
    assert outcome.result == 1
    assert len(events(outcome, "decision")) == 1


# ---- [11.21.C]-[11.21.E] --------------------------------------------------------------------


@pytest.mark.parametrize(("hits", "displaced"), [(0, False), (14, False), (15, True), (20, True)])
def test_fifteen_hits_displace_a_sub_base(eots: Checked, hits: int, displaced: bool) -> None:
    # "It requires 15 hits to displace a Sub Base"
    assert resolve(eots, "sub_base_hits", at=[f"hits={hits}"]).result is displaced


def test_hits_on_a_sub_base_only_after_the_others_are_reduced(eots: Checked) -> None:
    with pytest.raises(RuleViolation) as caught:
        resolve(eots, "sub_base_hits", at=["hits=15", "other_units_reduced=no"])
    assert caught.value.diagnostics[0].rule.text == "11.21.D"


@pytest.mark.parametrize(
    ("at", "ok"),
    [
        ((), True),
        (("in_supply=no",), False),
        (("port_or_coastal_airfield=no",), False),
        (("in_unneutralized_japanese_zoi=yes",), False),
        (("within_half_hq_range=no",), False),
        (("hq_used_by_other_sub_base=yes",), False),
        (("other_sub_base_in_hex=yes",), False),
    ],
)
def test_placing_a_sub_base(eots: Checked, at: tuple[str, ...], ok: bool) -> None:
    base = {
        "port_or_coastal_airfield": "yes",
        "in_supply": "yes",
        "in_unneutralized_japanese_zoi": "no",
        "within_half_hq_range": "yes",
    }
    base.update(dict(a.split("=") for a in at))
    result = resolve(eots, "may_place_sub_base", at=[f"{k}={v}" for k, v in base.items()]).result
    assert result is ok


@pytest.mark.parametrize(
    ("at", "on_trt"),
    [
        (("can_be_placed=yes",), False),
        (("can_be_placed=no",), True),
        (("can_be_placed=yes", "voluntary_trt=yes"), True),
    ],
)
def test_emergency_sub_base_move(
    eots: Checked, tmp_path: Path, at: tuple[str, ...], on_trt: bool
) -> None:
    # [11.21.E] "The Allied player may choose to voluntarily place the Sub Base on the TRT.
    # Otherwise the Sub Base is placed with[in] 10 hexes ... If the Sub Base cannot be placed
    # subject to those restrictions, it must be placed on the TRT."
    given = tmp_path / "base.toml"
    given.write_text('[base]\nname = "Fife"\nunit = "Fife"\n', encoding="utf-8")
    outcome = resolve(eots, "emergency_sub_base_move", given=str(given), at=list(at))
    assert outcome.args["base"].attrs["on_map"] is (not on_trt)
    if not on_trt:
        assert "within 10 hexes" in one(outcome, "note").text


def test_constants_as_printed(eots: Checked) -> None:
    consts = {name: decl.value.value for name, decl in eots.book.consts.items()}
    assert consts["relocation_activations"] == 2  # "using two activations"
    assert consts["emergency_move_hexes"] == 10  # "placed with[in] 10 hexes"
    assert consts["japanese_hand_floor"] == 4
    assert consts["last_china_divisions"] == 2


# ---- [11.24.A] Cryptographic Intercepts -------------------------------------------------------

INTERCEPTS = {
    0: "Reduce the Japanese Divisions in China by 2",
    1: "Reduce the Japanese Divisions in China by 1",
    2: "Reduce the Japanese Divisions in China by 1",
    **{die: "No Effect" for die in range(3, 10)},
}


@pytest.mark.parametrize("die", list(INTERCEPTS))
def test_card_5_table(eots: Checked, die: int) -> None:
    assert eots.tables["intercepts"].lookup([die])[0].printed == INTERCEPTS[die]


@pytest.mark.parametrize(
    ("divisions", "die", "left"),
    [
        (6, 0, 4),  # by 2
        (6, 1, 5),  # by 1
        (6, 2, 5),
        (6, 3, 6),  # no effect
        (6, 9, 6),
        (3, 0, 2),  # "Neither of the last two divisions in China may be removed"
        (2, 0, 2),
        (2, 1, 2),
    ],
)
def test_cryptographic_intercepts(eots: Checked, divisions: int, die: int, left: int) -> None:
    outcome = resolve(
        eots, "cryptographic_intercepts", at=[f"divisions_in_china={divisions}"], dice=[die]
    )
    assert outcome.result == left


def test_cryptographic_intercepts_trace(eots: Checked, snapshot: Any) -> None:
    outcome = resolve(eots, "cryptographic_intercepts", at=["divisions_in_china=5"], dice=[0])
    assert one(outcome, "lookup", table="intercepts").row == ["0"]
    assert one(outcome, "value", name="removed").value == 2
    assert outcome.result == 3
    assert trace_text(outcome) == snapshot


@pytest.mark.parametrize("at", [("relocated=yes",), ("japanese_hqs_in_range=0",)])
def test_cryptographic_intercepts_needs_an_eligible_sub_base(
    eots: Checked, at: tuple[str, ...]
) -> None:
    # "Select a Sub Base that has not been relocated ... that is within the SLOC Proximity
    # Range of at least one Japanese HQ. If none is available, then this event may not be played."
    with pytest.raises(RuleViolation):
        resolve(eots, "cryptographic_intercepts", at=["divisions_in_china=5", *at], dice=[0])
