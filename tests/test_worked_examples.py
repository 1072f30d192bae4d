"""Worked examples printed in the source texts, dice forced, numbers taken from the text.

Each test asserts the example's numbers explicitly and snapshots the whole trace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES
from tracing import events, one, trace_text

from rulekit.book.checker import Checked
from rulekit.engine.session import resolve
from rulekit.engine.values import unwrap

SPEARFISH = str(EXAMPLES / "silent_war" / "spearfish_14_15.toml")


# ---- Silent War [14.15] / [14.16]: Spearfish's two attacks ------------------------------


def test_spearfish_attacks_hit_on_one_or_less(silent_war: Checked, snapshot: Any) -> None:
    # Both to-hit rolls are 1: "The player must roll equal to or less than 1 (3 - 2 = 1)".
    outcome = resolve(silent_war, "attack_round", given=SPEARFISH, dice=[1, 5, 1, 5])
    attacks = events(outcome, "total", name="attack_value")
    targets = events(outcome, "total", name="target_value")
    differences = events(outcome, "value", name="difference")
    # Merchant Ship #1: a) (3+1+[-1]) = +3; b) (2+1+[-2]+1) = +2; c) 3 - 2 = 1
    assert attacks[0].total == 3
    assert [t.value for t in attacks[0].terms] == [3, 1, -1]
    assert targets[0].total == 2
    assert [t.value for t in targets[0].terms] == [2, 1, -2, 1]
    assert differences[0].value == 1
    # Merchant Ship #3: a) (3+1+[-1]) = +3; b) (1+1+0) = +2; c) 3 - 2 = 1
    assert attacks[1].total == 3
    assert targets[1].total == 2
    assert [t.value for t in targets[1].terms] == [1, 1]  # TDC 0 adds nothing
    assert differences[1].value == 1
    to_hit = events(outcome, "roll", rule="14.16 C")
    assert [r.total for r in to_hit] == [1, 1]
    assert [str(o) for o in outcome.result] == ["damaged", "damaged"]  # hits, then chart D
    assert trace_text(outcome) == snapshot


@pytest.mark.parametrize("die", [2, 5, 9])
def test_spearfish_misses_above_one(silent_war: Checked, die: int) -> None:
    outcome = resolve(silent_war, "attack_round", given=SPEARFISH, dice=[die, die])
    assert [str(o) for o in outcome.result] == ["miss", "miss"]
    assert not events(outcome, "lookup", table="attack_results")


def test_spearfish_attack_points_must_add_up(silent_war: Checked, tmp_path: Any) -> None:
    # [14.15] "The sum of these attack points must equal the attack value of the attacking
    # submarine." Allocate 3 + 2 instead of 3 + 3.
    from rulekit.errors import RuleViolation

    bad = tmp_path / "bad.toml"
    text = Path(SPEARFISH).read_text(encoding="utf-8")
    bad.write_text(text.replace("tdc = 0\npoints = 3", "tdc = 0\npoints = 2"), encoding="utf-8")
    with pytest.raises(RuleViolation) as caught:
        resolve(silent_war, "attack_round", given=str(bad), dice=[1, 1])
    diag = caught.value.diagnostics[0]
    assert diag.rule is not None and diag.rule.text == "14.15"
    assert "must add up" in diag.message


# ---- Silent War [14.2]: the counterattack on the "1-2" line -----------------------------


def test_spearfish_counterattack_uses_the_1_2_line(silent_war: Checked, snapshot: Any) -> None:
    outcome = resolve(silent_war, "counterattack", given=SPEARFISH, dice=[0])
    japanese = one(outcome, "total", name="japanese_value")
    submarine = one(outcome, "total", name="submarine_value")
    # a) 1 revealed ASW + 3 red boxes + 1 general ASW level = +5
    assert [t.value for t in japanese.terms] == [1, 3, 1]
    assert japanese.total == 5
    # b) 3 submarine defense points + 1 Super Skipper = +4
    assert [t.value for t in submarine.terms] == [3, 1]
    assert submarine.total == 4
    # c) "The player consults the "1-2" line of the Counterattack Table (5-4=1)."
    assert one(outcome, "value", name="difference").value == 1
    row = one(outcome, "lookup", table="counterattack_table")
    assert row.row[0] == "1-2"
    assert row.provisional  # the table's cells are not printed in the rules
    assert any("counterattack_table" in p for p in outcome.trace.provisional_used)
    assert trace_text(outcome) == snapshot


# ---- Silent War [6.0]: torpedo improvement ----------------------------------------------


def test_torpedo_70_ships_roll_6_no_improvement(silent_war: Checked) -> None:
    # "The player reaches 70 ships sunk ... The die roll is '6' ... (a '9' is required)."
    outcome = resolve(silent_war, "torpedo_improvement_phase", at=["ships_sunk=70"], dice=[6])
    assert one(outcome, "lookup", table="torpedo_improvement").result == 9
    assert str(outcome.result) == "not_improved"
    assert outcome.interpreter.state.values["torpedo"] == -2
    # "The player may not roll again until 75 ships, or more, have been sunk."
    state = outcome.interpreter.state.values
    for ships, rolls in ((74, False), (75, True)):
        again = resolve(
            silent_war,
            "torpedo_improvement_phase",
            at=[f"ships_sunk={ships}", f"torpedo_line_tried={state['torpedo_line_tried']}"],
            dice=[9],
        )
        assert bool(events(again, "roll")) is rolls, ships


def test_torpedo_76_ships_rolls_on_the_75_line(silent_war: Checked) -> None:
    # "If the player reaches 76 ships, the player will roll on the 75 line and a result of
    # '8' or '9' will result in the improvement to -1."
    for die, improved in ((7, False), (8, True), (9, True)):
        outcome = resolve(
            silent_war,
            "torpedo_improvement_phase",
            at=["ships_sunk=76", "torpedo_line_tried=9"],
            dice=[die],
        )
        lookup = one(outcome, "lookup", table="torpedo_improvement")
        assert lookup.row == ["-2", "75"] and lookup.result == 8
        assert outcome.interpreter.state.values["torpedo"] == (-1 if improved else -2)


def test_torpedo_jump_from_70_to_81_rolls_on_the_80_line(silent_war: Checked) -> None:
    # "If ... the player jumped from 70 to 81 ships, the player will roll on the 80 line
    # needing 7, 8 or 9 to improve the torpedo."
    for die, improved in ((6, False), (7, True)):
        outcome = resolve(
            silent_war,
            "torpedo_improvement_phase",
            at=["ships_sunk=81", "torpedo_line_tried=9"],
            dice=[die],
        )
        lookup = one(outcome, "lookup", table="torpedo_improvement")
        assert lookup.row == ["-2", "80"] and lookup.result == 7
        assert (str(outcome.result) == "improved") is improved


def test_torpedo_improved_at_95_waits_for_270(silent_war: Checked, snapshot: Any) -> None:
    # "If the torpedo was improved at "95"(ships sunk), the player must achieve a total of
    # "270" (ships sunk) before attempting to improve it again."
    first = resolve(silent_war, "torpedo_improvement_phase", at=["ships_sunk=95"], dice=[4])
    assert str(first.result) == "improved"
    assert first.interpreter.state.values["torpedo"] == -1
    for ships in (95, 150, 269):
        waiting = resolve(
            silent_war, "torpedo_improvement_phase", at=["torpedo=-1", f"ships_sunk={ships}"]
        )
        assert str(waiting.result) == "no_attempt" and not events(waiting, "roll")
    at_270 = resolve(
        silent_war, "torpedo_improvement_phase", at=["torpedo=-1", "ships_sunk=270"], dice=[9]
    )
    assert one(at_270, "lookup", table="torpedo_improvement").row == ["-1", "270"]
    assert at_270.interpreter.state.values["torpedo"] == 0
    assert trace_text(first) + "\n---\n" + trace_text(at_270) == snapshot


# ---- Gato Leader: the torpedo spread ----------------------------------------------------


def test_gato_spread_six_torpedoes_half_run(gato: Checked, snapshot: Any) -> None:
    # "Gato rolls on the Torpedo Dud table for 1943 and half the Torpedoes run correctly.
    # ... a final modifier of +2 ... You roll three dice getting a 2, 4, and 5. You keep the
    # highest die roll, the 5, and modify it to 7 (5 +2)". A 1943 half-run roll is 4-6.
    outcome = resolve(
        gato,
        "torpedo_spread",
        at=["fired=6", "year=1943", "skill=2", "target_range=2"],
        dice=[5, 2, 4, 5],
    )
    dud = one(outcome, "lookup", table="torpedo_dud")
    assert dud.result == "half_run"
    spread = next(e for e in events(outcome, "roll") if len(e.faces) > 1)
    assert spread.faces == [2, 4, 5] and spread.natural == 5
    assert sum(t.value for t in spread.modifiers) == 2  # +2 skill, +2 spread, -2 range
    assert unwrap(outcome.result) == 7
    assert trace_text(outcome) == snapshot


def test_gato_example_turn_dud_rolls(gato: Checked) -> None:
    # Example turn (1942): "A die roll of 2 in the 1942 column results in all torpedoes
    # missing"; "I roll a 7, meaning that half of my torpedoes run correctly ... I roll 3
    # dice getting a 1, 4, and 6, keeping the 6 and modifying it by +2 for a final result of 8"
    # (+2 spread, +1 Torpedo Skill, -1 for Range).
    missed = resolve(
        gato, "torpedo_spread", at=["fired=2", "year=1942", "skill=1", "target_range=3"], dice=[2]
    )
    assert one(missed, "lookup", table="torpedo_dud").result == "all_miss"
    assert missed.result is None
    hoten = resolve(
        gato,
        "torpedo_spread",
        at=["fired=6", "year=1942", "skill=1", "target_range=1"],
        dice=[7, 1, 4, 6],
    )
    assert one(hoten, "lookup", table="torpedo_dud").result == "half_run"
    assert unwrap(hoten.result) == 8
