"""Gato Leader rules: the worked examples of the rulebook, dice forced, numbers from the text.

Each example is quoted; its numbers are asserted as the text prints them. Snapshots keep the
whole trace of each main procedure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES
from tracing import events, one, rolls, state, trace_text

from rulekit.book.checker import Checked
from rulekit.book.inputs import ValueReader
from rulekit.engine.dice import ForcedDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import DefaultPolicy
from rulekit.engine.session import Outcome, resolve
from rulekit.engine.trace import render_text
from rulekit.engine.values import unwrap
from rulekit.errors import InputError, RuleViolation

GATO = EXAMPLES / "gato_leader"


def example(name: str) -> str:
    return str(GATO / name)


def arg(outcome: Outcome, name: str) -> Any:
    return outcome.args[name]


def write(tmp_path: Path, text: str, name: str = "given.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# Salmon as the example turn gives her (see examples/gato_leader/salmon_example_turn.toml).
SALMON = """
name = "USS Salmon"
boat = "Salmon"
skill = "Trained"
area = "Solomon Islands"
abilities = ["Cool"]
initiative = "Cautious"
shaken_initiative = "Cautious"
ts = 1
gs = 1
ev = 2
hull = 3
surfaced_speed = 2
submerged_speed = 1
ready_max = 8
"""


# ---- Set-up: Special Option points -------------------------------------------------------


def test_so_budget_35_less_27_leaves_8(gato: Checked, snapshot: Any) -> None:
    # [§Expend Special Option Points] "Example: You have 35 SO points at the beginning of your
    # Campaign. You spend 27 SO points on Subs, leaving you with 8 SO points to spend
    # throughout the Campaign."
    outcome = resolve(gato, "spend_so_points", at=["so_points=35", "points=27"])
    assert outcome.result == 8
    assert state(outcome)["so_points"] == 8
    assert trace_text(outcome) == snapshot


def test_so_budget_cannot_overspend(gato: Checked) -> None:
    with pytest.raises(RuleViolation):
        resolve(gato, "spend_so_points", at=["so_points=8", "points=9"])


def test_selecting_submarines_against_the_sun(gato: Checked, snapshot: Any) -> None:
    # [§Selecting Submarines] "You select the Medium Campaign on the Against the Sun Campaign
    # Sheet and have 35 SO points ... Trained USS Tautog (6 SO points), Trained USS Silversides
    # (8 SO points), Trained USS Drum (8 SO points), and an Ace USS Permit (10 SO points) for a
    # total of 32 SO points. You decide to save the remaining 3 SO points"
    start = resolve(gato, "start_campaign", at=["c=Against the Sun", "length=Medium"])
    assert start.result == 35
    outcome = resolve(gato, "select_submarines", given=example("so_budget_example.toml"))
    costs = [e.result for e in events(outcome, "lookup", table="submarine_so_cost")]
    assert costs == [6, 8, 8, 10]
    assert one(outcome, "value", name="cost").value == 32
    assert outcome.result == 3
    assert trace_text(outcome) == snapshot


def test_example_turn_squadron_and_torpedo_modification(gato: Checked, tmp_path: Path) -> None:
    # [§EXAMPLE TURN] "Holding the Line Campaign Sheet and have 33 SO points ... Trained USS
    # Salmon (6 SO points), Trained USS Stingray (6 SO points), Trained USS Gudgeon (6 SO
    # points), and a Veteran USS Tautog (10 SO points) for a total of 28 SO points. I decide to
    # save the remaining 5 SO points" ... "I decide to spend 2 SO points on a Torpedo
    # Modification for USS Tautog leaving me with 3 more SO points."
    start = resolve(gato, "start_campaign", at=["c=Holding the Line", "length=Medium"])
    assert start.result == 33
    outcome = resolve(gato, "select_submarines", given=example("example_turn_squadron.toml"))
    assert one(outcome, "value", name="cost").value == 28
    assert outcome.result == 5
    given = write(
        tmp_path,
        'campaign = "Holding the Line"\nso_points = 5\n[sub]\nname = "USS Tautog"\n'
        'boat = "Tautog"\nskill = "Veteran"\narea = "Freemantle"\n',
    )
    modified = resolve(gato, "buy_torpedo_modification", given=given)
    assert modified.result == 3
    assert arg(modified, "sub").attrs["torpedo_modified"] is True


def test_a_submarine_is_selected_once(gato: Checked, tmp_path: Path) -> None:
    # "You cannot select the Green USS Harder and Veteran USS Harder for the same Campaign."
    given = write(
        tmp_path,
        'campaign = "Setting Sun"\nso_points = 40\n'
        '[[picks]]\nboat = "Harder"\nskill = "Green"\n'
        '[[picks]]\nboat = "Harder"\nskill = "Veteran"\n',
    )
    with pytest.raises(RuleViolation) as caught:
        resolve(gato, "select_submarines", given=given)
    assert "only select a particular Submarine once" in caught.value.diagnostics[0].message


@pytest.mark.parametrize(
    ("campaign", "usable"),
    [
        ("Holding the Line", False),
        ("Against the Sun", False),
        ("Turning the Tide", False),
        ("Setting Sun", True),
    ],
)
def test_tang_serves_only_in_setting_sun(gato: Checked, campaign: str, usable: bool) -> None:
    # "The years in service for the Balao class Submarine Tang is Jan '44 - Aug '45. This
    # Submarine can only be used in the Setting Sun campaign."
    outcome = resolve(gato, "in_service", at=["b=Tang", f"c={campaign}"])
    assert outcome.result is usable


# ---- Contact Phase ------------------------------------------------------------------------------


def test_contact_example_5_plus_1_is_6(gato: Checked, snapshot: Any) -> None:
    # [§EXAMPLE TURN] "I roll a die, getting 5 and add +1 for the Ultra counter for a total of
    # 6. Looking at the Contact Table in the Solomon Islands Area, a 6 shows that there is 1
    # Contact, so I set the Contact Counter to 1."
    outcome = resolve(gato, "contact_phase", given=example("contact_example.toml"), dice=[5])
    roll = one(outcome, "roll")
    assert roll.natural == 5
    assert [(t.value, t.rule) for t in roll.modifiers] == [(1, "§Contact Determination Modifiers")]
    assert roll.total == 6
    row = one(outcome, "lookup", table="contact_table")
    assert row.row == ["Solomon Islands", "6"] and row.result == 1 and not row.provisional
    assert outcome.result == 1
    assert state(outcome)["contact_counter"] == 1
    assert trace_text(outcome) == snapshot


def test_unfit_submarine_goes_to_the_searched_box(gato: Checked, tmp_path: Path) -> None:
    # "If a Submarine is Unfit, move it to its Area's Searched box." (sample card: Unfit 11+)
    given = write(tmp_path, "[sub]\n" + SALMON + "stress = 11\n")
    outcome = resolve(gato, "contact_phase", given=given)
    assert outcome.result == 0 and not rolls(outcome)
    assert arg(outcome, "sub").attrs["searched"] is True


def test_convoy_card_and_warning_counter(gato: Checked, tmp_path: Path) -> None:
    # [§EXAMPLE TURN] "I draw the top Convoy card #37, a Merchant Contact with 4 Merchants and 2
    # Escorts. Then I place a Submarine Warning counter in the Area and reduce the Contact
    # Counter to 0." Holding the Line removes cards 47 and 48: the deck is 37, 42, 49.
    given = write(tmp_path, 'campaign = "Holding the Line"\ncontact_counter = 1\n[sub]\n' + SALMON)
    outcome = resolve(gato, "convoy_card_phase", given=given, dice=[1])
    draw = one(outcome, "draw")
    assert (draw.position, draw.of, draw.item) == (1, 3, 37)
    assert outcome.result == 37
    values = state(outcome)
    assert values["contact_counter"] == 0
    assert [str(a) for a in values["warning_counters"]] == ["Solomon Islands"]
    assert str(values["convoy_contact"]) == "Merchant"


def test_the_action_decision_offers_what_the_situation_allows(
    gato: Checked, tmp_path: Path
) -> None:
    # [§Action Decision (with Contacts)] "Re-Attack the Convoy - If the previous Contact type
    # was a Merchant, not a Naval ... you can re-attack the Convoy"; the Final Shot needs "one
    # or more Ships" with "a Heavy Damage counter". A Naval contact and no damaged Ship leave
    # only doing nothing and returning to the Contact Phase.
    naval = write(tmp_path, 'convoy_contact = "Naval"\ncontact_counter = 1\n[sub]\n' + SALMON)
    for refused in ("Re-Attack the Convoy", "Final Shot"):
        with pytest.raises(InputError) as caught:
            resolve(gato, "action_decision", given=naval, decide=[f"act={refused}"])
        message = str(caught.value)
        assert f"'{refused}' is not an option of decision 'act'" in message
        assert "(options: Do Nothing, Return to the Contact Phase)" in message
    merchant = write(tmp_path, "contact_counter = 1\n[sub]\n" + SALMON, "merchant.toml")
    outcome = resolve(gato, "action_decision", given=merchant, decide=["act=Re-Attack the Convoy"])
    assert str(outcome.result) == "Re-Attack the Convoy"
    decision = one(outcome, "decision", name="act")
    assert decision.options == ["Do Nothing", "Return to the Contact Phase", "Re-Attack the Convoy"]


CONVOY_37 = "".join(
    f'[[display]]\nname = "{name}"\nrole = "{role}"\nrange = {distance}\n'
    for name, role, distance in [
        ("E1", "E", 5),
        ("E2", "E", 5),
        ("M1", "M", 4),
        ("M2", "M", 4),
        ("M3", "M", 3),
        ("M4", "M", 3),
    ]
)


def test_tactical_set_up_convoy_37_and_special_card_42(gato: Checked, tmp_path: Path) -> None:
    # [§EXAMPLE TURN] "The Convoy is set up on the Tactical Display. I choose to start Salmon on
    # the surface in the Long Range Convoy Wake Area of the Tactical Display. Next, I draw
    # another Convoy card to determine any special conditions, getting card #42 with a Tail
    # Chase condition."
    given = write(
        tmp_path,
        'campaign = "Holding the Line"\nconvoy_deck_ready = true\nconvoy_deck = [42, 49]\n'
        "[sub]\n" + SALMON + CONVOY_37,
    )
    outcome = resolve(
        gato, "tactical_set_up", given=given, at=["card=37"], decide=["zone=Convoy Wake"], dice=[1]
    )
    assert outcome.result == 42
    condition = events(outcome, "lookup", table="convoy_cards")[-1]
    assert condition.result["condition"] == "Tail Chase"
    salmon = arg(outcome, "sub").attrs
    assert str(salmon["zone"]) == "Convoy Wake" and salmon["surfaced"] is True
    one_escort_only = "[[display]]" + CONVOY_37.split("[[display]]")[1]
    too_few = write(tmp_path, "[sub]\n" + SALMON + one_escort_only)
    with pytest.raises(RuleViolation):
        resolve(gato, "tactical_set_up", given=too_few, at=["card=37"])


def test_only_an_infiltrator_sets_up_nearer(gato: Checked, tmp_path: Path) -> None:
    # "If the Submarine has an Infiltrator Special Ability, it can set up in a Medium-Range or
    # Short-Range Area."
    given = write(tmp_path, "[sub]\n" + SALMON)
    with pytest.raises(InputError) as refused:
        resolve(gato, "tactical_set_up", given=given, at=["card=37"], decide=["zone=Short Range"])
    assert "'Short Range' is not an option of decision 'zone' [§Tactical Set-Up]" in str(
        refused.value
    )
    assert "(options: Long Range, Convoy Wake)" in str(refused.value)
    infiltrator = write(tmp_path, "[sub]\n" + SALMON.replace('"Cool"', '"Infiltrator"'))
    outcome = resolve(
        gato,
        "tactical_set_up",
        given=infiltrator,
        at=["card=37"],
        decide=["zone=Short Range"],
        dice=[1],
    )
    assert str(arg(outcome, "sub").attrs["zone"]) == "Short Range"


def test_convoy_card_49_pays_2_vp_for_all_the_merchants(gato: Checked, tmp_path: Path) -> None:
    # [§Tactical Set-Up] "I draw another Convoy card getting card 49. According to card number
    # 49, I will gain 2 additional Victory Points if I sink all the Merchant ships on the
    # Tactical Display."
    merchants = "".join(
        f'[[display]]\nname = "M{i}"\nrole = "M"\nrange = 1\nsunk = {sunk}\n'
        for i, sunk in enumerate(["true", "true", "false"])
    )
    given = write(tmp_path, "special_card = 49\n[sub]\n" + SALMON + merchants)
    assert resolve(gato, "record_points", given=given).result == 0
    given = write(
        tmp_path, "special_card = 49\n[sub]\n" + SALMON + merchants.replace("false", "true")
    )
    outcome = resolve(gato, "record_points", given=given)
    assert outcome.result == 2 and state(outcome)["victory_points"] == 2


# ---- Tactical Display: Lag Movement, Escorts -------------------------------------------------


@pytest.mark.parametrize(("speed", "drift"), [(1, 1), (0, 2)])
def test_lag_movement_example(gato: Checked, snapshot: Any, speed: int, drift: int) -> None:
    # [§Lag Movement] "based on the Reference Ship's speed of 2. USS Gato can use its Speed 1,
    # and drift backward by 1, or you can treat it as having Speed 0, and have it drift
    # backward by 2. The Escort must drift back by 1 because its Speed has been reduced to 1."
    outcome = resolve(
        gato,
        "lag_movement",
        given=example("lag_movement_example.toml"),
        decide=[f"speed={speed}"],
    )
    assert one(outcome, "return", procedure="reference_speed").result == 2
    drifts = [e.result for e in events(outcome, "lookup", table="lag_drift")]
    assert drifts == [drift, 0, 0, 1]  # Gato, the two Merchants, the damaged Escort
    gato_sub = arg(outcome, "subs")[0]
    assert gato_sub.attrs["to_wake"] == 3 - drift
    assert trace_text(outcome) == snapshot


def test_example_turn_escort_movement_rolls(gato: Checked) -> None:
    # [§EXAMPLE TURN] "Escort 1's roll is 5, so it stays in place based on Escort Movement
    # (Against Undetected Submarines). Escort 2's roll is 8, so the Escort rotates 1 Area
    # Clockwise in the Short Range Area."
    assert str(resolve(gato, "escort_patrol", dice=[5]).result) == "does not move"
    assert str(resolve(gato, "escort_patrol", dice=[8]).result) == "Clockwise"


def test_escort_detection_example_4_plus_1_is_5(gato: Checked, snapshot: Any) -> None:
    # [§Escort Detection Modifiers] "The Convoy has 1 Alerted counter. USS Gato moves on the
    # Surface 3 Areas away from Escort E2 ... the top Escort card is flipped and shows the
    # Submarine Chaser CH-30. The Convoy is Alerted, so there is a +1 modifier to the Detection
    # roll. You roll a die getting a 4, which is modified to 5, Gato is Detected"
    outcome = resolve(
        gato, "escort_detection", given=example("escort_detection_example.toml"), dice=[2, 4]
    )
    assert one(outcome, "draw").item == "CH-30"
    roll = one(outcome, "roll")
    assert roll.natural == 4
    assert [t.value for t in roll.modifiers] == [1]
    assert roll.total == 5
    assert outcome.result is True
    assert arg(outcome, "sub").attrs["detected"] is True
    assert trace_text(outcome) == snapshot


def test_detection_range_is_2_surfaced_1_submerged_plus_alerted(
    gato: Checked, tmp_path: Path
) -> None:
    # "against each Surfaced Submarine at a range of 0, 1, or 2 Areas and against each
    # Submerged Submarine at a range of 0 or 1. Add 1 to these ranges for each Alerted counter"
    for surfaced, alerted, in_range in ((True, 0, 2), (False, 0, 1), (False, 1, 2), (True, 2, 4)):
        for distance in (in_range, in_range + 1):
            given = write(
                tmp_path,
                f'alerted = {alerted}\n[escort]\nname = "Nomi"\nrole = "E"\ncard = "Nomi"\n'
                f"range = {distance}\n[sub]\n{SALMON}surfaced = {str(surfaced).lower()}\n",
            )
            outcome = resolve(gato, "escort_detection", given=given, dice=[10])
            assert bool(rolls(outcome)) is (distance == in_range), (surfaced, alerted, distance)


def test_nomi_detects_salmon_in_the_example_turn(gato: Checked, tmp_path: Path) -> None:
    # [§EXAMPLE TURN] "the escort Nomi is at range 2 from my Submarine ... Nomi would usually be
    # too far away to detect Salmon, but it gains +1 range due to the Alerted counter. It must
    # roll a 5 to Detect me and gains +1 due to the Alerted counter. Nomi rolls a 7, Salmon is
    # detected" (Salmon has dived: Submerged).
    given = write(
        tmp_path,
        'alerted = 1\n[escort]\nname = "Nomi"\nrole = "E"\ncard = "Nomi"\nrange = 2\n'
        "[sub]\n" + SALMON + "surfaced = false\n",
    )
    outcome = resolve(gato, "escort_detection", given=given, dice=[7])
    assert one(outcome, "value", name="number").value == 5
    assert one(outcome, "roll").total == 8
    assert outcome.result is True


def test_escort_moves_toward_a_detected_submarine(gato: Checked, tmp_path: Path) -> None:
    # "the Escort moves the number of Areas equal to the Speed rating ... An Escort stops moving
    # when it enters the Area of the Submarine" ("Nomi moves into the same Area as Salmon")
    given = write(
        tmp_path,
        '[escort]\nname = "Nomi"\nrole = "E"\ncard = "Nomi"\nrange = 1\n'
        "[[subs]]\n" + SALMON + "detected = true\n",
    )
    outcome = resolve(gato, "escort_movement", given=given)
    assert outcome.result == 1  # Speed 2, but it stops in the Submarine's Area
    assert arg(outcome, "escort").attrs["range"] == 0


# ---- Attacks: gun, torpedoes, damage ---------------------------------------------------------


def test_gun_example_8_minus_2_is_6_light_damage(gato: Checked, snapshot: Any) -> None:
    # "Gato has a Gunnery Skill of +1 and the range to the freighter is 1 Area, giving a final
    # modifier of -2 to the attack (+1 - 3 = -2). You roll an 8, which is modified to 6, causing
    # light damage to the freighter and a Light Damage counter is placed on Tatuwa Maru. Gato's
    # Gun Ammo 5 counter is replaced with a Gun Ammo 4 counter."
    outcome = resolve(gato, "gun_attack", given=example("gun_attack_example.toml"), dice=[8])
    roll = one(outcome, "roll")
    assert [t.value for t in roll.modifiers] == [-3, 1]
    assert sum(t.value for t in roll.modifiers) == -2
    assert (roll.natural, roll.total) == (8, 6)
    assert str(outcome.result) == "light"
    assert arg(outcome, "target").attrs["light_damage"] is True
    assert arg(outcome, "sub").attrs["gun_ammo"] == 4
    assert trace_text(outcome) == snapshot


def test_gun_attack_limits(gato: Checked, tmp_path: Path) -> None:
    # "Only Surfaced Submarines can perform Gun attacks. Gun attacks can be made out to a range
    # of 2." "You must have at least one Gun Ammo left to perform a Gun attack."
    cases = [
        ("surfaced = false\ngun_ammo = 6\n", 1, "Only Surfaced"),
        ("surfaced = true\ngun_ammo = 6\n", 3, "range of 2"),
        ("surfaced = true\ngun_ammo = 0\n", 1, "at least one Gun Ammo"),
    ]
    for sub_lines, distance, message in cases:
        given = write(
            tmp_path,
            "[sub]\n" + SALMON + sub_lines + '[target]\nname = "Tyoko Maru"\nrole = "M"\n'
            f'card = "Tyoko Maru"\nrange = {distance}\n',
        )
        with pytest.raises(RuleViolation) as caught:
            resolve(gato, "gun_attack", given=given, dice=[5])
        assert message in caught.value.diagnostics[0].message


def test_example_turn_attacks(gato: Checked, snapshot: Any) -> None:
    # [§EXAMPLE TURN] "I decide to fire 6 torpedoes at the Hoten Maru, 2 Torpedoes at the Syoei
    # Maru, and a Gun attack at the Tyoko Maru." "First, I attack Syoei Maru and roll on the
    # Torpedo Dud table. A die roll of 2 in the 1942 column results in all torpedoes missing"
    # "I then resolve the attack on Hoten Maru, Rolling on the Torpedo Dud table I roll a 7,
    # meaning that half of my torpedoes run correctly. I gain +2 on each Torpedo roll due to the
    # Torpedo Spread ... I also gain +1 for my Torpedo Skill, and -1 for Range. ... I roll 3
    # dice getting a 1, 4, and 6, keeping the 6 and modifying it by +2 for a final result of 8.
    # Looking at the Torpedo line on Hoten Maru's card an 8 shows that it is sunk."
    # "Finally, I perform a Gun attack on the Tyoko Maru. +1 due to Skill, -3 due to range. I
    # roll a 7, which is modified to a 5 resulting in Light Damage. ... I then remove the 8
    # ready torpedoes from the Salmon and decrease its Gun Ammo to 5." "My Cautious Submarine
    # attacks. I place an Alerted counter on the Tactical Display."
    outcome = resolve(
        gato,
        "submarine_attacks",
        given=example("salmon_example_turn.toml"),
        decide=[
            "torpedoes=2",  # Syoei Maru
            "gun=no",
            "torpedoes=0",  # Nanrei Maru
            "gun=no",
            "torpedoes=0",  # Tyoko Maru
            "gun=yes",
            "torpedoes=6",  # Hoten Maru
        ],
        dice=[2, 7, 1, 4, 6, 7],
    )
    duds = [(e.keys["roll"], e.result) for e in events(outcome, "lookup", table="torpedo_dud")]
    assert duds == [(2, "all_miss"), (7, "half_run")]
    spread = next(e for e in rolls(outcome) if len(e.faces) > 1)
    assert spread.faces == [1, 4, 6] and spread.natural == 6
    assert sorted(t.value for t in spread.modifiers) == [-1, 1, 2]
    assert spread.total == 8
    gun = rolls(outcome, "§Gun Hit Numbers")[0]
    assert (gun.natural, gun.total) == (7, 5)
    ships = {s.attrs["name"]: s for s in state(outcome)["display"]}
    assert ships["Hoten Maru"].attrs["sunk"] is True
    assert ships["Syoei Maru"].attrs["sunk"] is False
    assert ships["Syoei Maru"].attrs["light_damage"] is False
    assert ships["Tyoko Maru"].attrs["light_damage"] is True
    salmon = arg(outcome, "sub")
    assert salmon.attrs["ready"] == 0
    assert salmon.attrs["gun_ammo"] == 5
    assert state(outcome)["alerted"] == 1
    assert trace_text(outcome) == snapshot


def test_all_torpedoes_missing_is_not_an_attack_for_the_alerted_counter(
    gato: Checked, tmp_path: Path
) -> None:
    # "All torpedoes automatically miss, but this does not count as an attack for the purposes
    # of placing an Alerted counter." ("if this had been my only attack during the phase, the
    # Alerted marker would be removed") A premature explosion does count.
    for die, alerted in ((2, 0), (1, 1)):
        given = write(
            tmp_path,
            "campaign_year = 1942\n[sub]\n" + SALMON + "ready = 8\nsurfaced = true\n"
            '[[display]]\nname = "Syoei Maru"\nrole = "M"\ncard = "Syoei Maru"\nrange = 2\n',
        )
        outcome = resolve(
            gato, "submarine_attacks", given=given, decide=["torpedoes=2", "gun=no"], dice=[die]
        )
        assert state(outcome)["alerted"] == alerted, die


def test_tyoko_maru_is_sunk_by_one_torpedo(gato: Checked, tmp_path: Path) -> None:
    # [§EXAMPLE TURN] "I decide to fire 1 torpedo at Tyoko Maru, hoping to sink it. Rolling on
    # the Torpedo Dud table I roll a 7, meaning that one torpedo runs correctly. I have +1 for my
    # Torpedo Skill. I roll 1 die getting a 6 for a final result of 7, which is enough to sink
    # Tyoko Maru." Salmon is in Tyoko Maru's Area (range 0).
    given = write(
        tmp_path,
        "campaign_year = 1942\n[sub]\n" + SALMON + "ready = 1\nsurfaced = false\n"
        '[target]\nname = "Tyoko Maru"\nrole = "M"\ncard = "Tyoko Maru"\nrange = 0\n'
        "light_damage = true\n",
    )
    outcome = resolve(gato, "torpedo_attack", given=given, at=["fired=1"], dice=[7, 6])
    assert one(outcome, "lookup", table="torpedo_dud").result == "half_run"
    hit = rolls(outcome, "§Torpedo Hit Numbers")[0]
    assert [t.value for t in hit.modifiers] == [1]  # no range, no spread bonus, TS +1
    assert hit.total == 7
    assert str(outcome.result) == "sunk"


def test_torpedo_modification_uses_the_1944_45_column(gato: Checked, tmp_path: Path) -> None:
    # [§Torpedo Modifications] "During a Turning the Tide campaign, you spend SO points on a
    # Torpedo Modification for USS Bonefish. When rolling on the Torpedo Dud table, USS
    # Bonefish will use the 1944-45 column instead of the 1943 column."
    given = write(
        tmp_path,
        'campaign = "Turning the Tide"\ncampaign_year = 1943\n[sub]\nname = "USS Bonefish"\n'
        'boat = "Bonefish"\nskill = "Trained"\narea = "Java Sea"\nready = 2\n'
        'torpedo_modified = true\n[target]\nname = "Tatibana Maru"\nrole = "M"\n'
        'card = "Tatibana Maru"\nrange = 1\n',
    )
    outcome = resolve(gato, "torpedo_attack", given=given, at=["fired=2"], dice=[3, 5, 5])
    dud = one(outcome, "lookup", table="torpedo_dud")
    assert dud.keys["year"] == "1944-45" and dud.result == "half_run"


def test_circling_torpedo_attacks_the_submarine(gato: Checked, tmp_path: Path) -> None:
    # "Only one torpedo runs correctly ... If there is more than one torpedo in the spread, roll
    # another die. On a 1 a torpedo has circled around and attacks the Submarine. Immediately
    # resolve an attack on the Submarine with 3 Heavy Hits." Salmon's Evasion 2 takes 1 Light
    # Hit away: 3 Heavy = 6 Light - 1 = 2 Heavy and 1 Light Hit counters.
    given = write(
        tmp_path,
        "campaign_year = 1942\n[sub]\n" + SALMON + "ready = 3\nsurfaced = false\n"
        '[target]\nname = "Tatibana Maru"\nrole = "M"\ncard = "Tatibana Maru"\nrange = 1\n',
    )
    outcome = resolve(gato, "torpedo_attack", given=given, at=["fired=3"], dice=[4, 1, 1, 1, 1, 5])
    assert one(outcome, "lookup", table="torpedo_dud").result == "one_runs"
    hits = one(outcome, "return", procedure="attack_hits").result
    assert hits == ["Heavy", "Heavy", "Light"]
    assert len(events(outcome, "draw")) == 3


def test_special_torpedoes(gato: Checked, tmp_path: Path) -> None:
    # "Mk 27 Torpedoes: These Torpedoes can only be used against Escorts. They can only be fired
    # with other Mk 27 torpedoes and only a maximum of two (2) Mk 27 torpedoes can be fired
    # together. Mk 27 torpedoes have a +2 attack modifier. Do not roll on the Torpedo Dud table"
    base = "[sub]\n" + SALMON + "ready_mk27 = 3\nready_mk10 = 2\nsurfaced = true\n"
    merchant = '[target]\nname = "Tyoko Maru"\nrole = "M"\ncard = "Tyoko Maru"\nrange = 1\n'
    escort = '[target]\nname = "Nomi"\nrole = "E"\ncard = "Nomi"\nrange = 1\n'
    with pytest.raises(RuleViolation):
        resolve(
            gato,
            "torpedo_attack",
            given=write(tmp_path, base + merchant),
            at=["fired=1", "torpedo=mk27"],
            dice=[5],
        )
    with pytest.raises(RuleViolation):
        resolve(
            gato,
            "torpedo_attack",
            given=write(tmp_path, base + escort),
            at=["fired=3", "torpedo=mk27"],
            dice=[5],
        )
    mk27 = resolve(
        gato,
        "torpedo_attack",
        given=write(tmp_path, base + escort),
        at=["fired=2", "torpedo=mk27"],
        dice=[5, 3],
    )
    assert not events(mk27, "lookup", table="torpedo_dud")
    roll = rolls(mk27, "§Torpedo Hit Numbers")[0]
    assert sorted(t.value for t in roll.modifiers) == [-1, 1, 1, 2]  # range, spread, TS, Mk 27
    mk10 = resolve(
        gato,
        "torpedo_attack",
        given=write(tmp_path, base + merchant),
        at=["fired=1", "torpedo=mk10"],
        dice=[5],
    )
    assert not events(mk10, "lookup", table="torpedo_dud")
    assert sorted(t.value for t in rolls(mk10)[0].modifiers) == [-2, -1, 1]


@pytest.mark.parametrize(
    ("light", "heavy", "result", "after"),
    [
        (False, False, "light", (True, False, False)),
        (True, False, "light", (False, True, False)),  # Light + Light = Heavy
        (False, True, "heavy", (False, True, True)),  # Heavy + Heavy = Sunk
        (True, True, "light", (False, True, True)),  # Light + Light = Heavy, + Heavy = Sunk
        (True, False, "heavy", (True, True, False)),  # both counters stay
    ],
)
def test_damage_counters_combine(
    gato: Checked,
    tmp_path: Path,
    light: bool,
    heavy: bool,
    result: str,
    after: tuple[bool, bool, bool],
) -> None:
    # [§Damage to the Target] "Light Damage + Light Damage = Heavy Damage; Heavy Damage + Heavy
    # Damage = Sunk. The effects of all Damage counters on a Ship are cumulative."
    given = write(
        tmp_path,
        "[sub]\n" + SALMON + '[target]\nname = "Tyoko Maru"\nrole = "M"\ncard = "Tyoko Maru"\n'
        f"range = 1\nlight_damage = {str(light).lower()}\nheavy_damage = {str(heavy).lower()}\n",
    )
    outcome = resolve(gato, "damage_ship", given=given, at=[f"result={result}"])
    ship = arg(outcome, "target").attrs
    assert (ship["light_damage"], ship["heavy_damage"], ship["sunk"]) == after


@pytest.mark.parametrize(
    ("light", "heavy", "speed"),
    [(False, False, 2), (True, False, 1), (False, True, 0), (True, True, 0)],
)
def test_damage_reduces_speed_never_below_0(
    gato: Checked, tmp_path: Path, light: bool, heavy: bool, speed: int
) -> None:
    # "If a Ship suffers Light Damage, reduce its Speed by 1 ... Heavy Damage, reduce its Speed
    # by 2" "A Ship's speed is never reduced below 0." The Unknown counter's Speed 2 is
    # provisional; the reduction is what is tested.
    given = write(
        tmp_path,
        '[s]\nname = "M1"\nrole = "M"\nrange = 2\n'
        f"light_damage = {str(light).lower()}\nheavy_damage = {str(heavy).lower()}\n",
    )
    outcome = resolve(gato, "ship_speed", given=given)
    assert outcome.result == speed


def test_trained_crew_reloads_one_torpedo(gato: Checked, tmp_path: Path) -> None:
    # [§EXAMPLE TURN] "Instead I choose to reload my torpedoes. Because Salmon is Trained, I can
    # move one Torpedo from Stored to Ready."
    given = write(tmp_path, "[sub]\n" + SALMON + "ready = 0\nstored = 16\n")
    outcome = resolve(gato, "reload_instead", given=given)
    assert outcome.result == 1
    salmon = arg(outcome, "sub").attrs
    assert (salmon["ready"], salmon["stored"]) == (1, 15)


# ---- Enemy attacks and Submarine reactions ---------------------------------------------------


def test_enemy_attack_example_2_light_less_2_light_plus_1_heavy(
    gato: Checked, snapshot: Any
) -> None:
    # [§Attack Resolution] "CH-30's Surface attack rating is 2 Light Hits, minus 2 Light Hits for
    # Gato's Evasion rating (4) +1 Heavy Hit for attacking a Surfaced Submarine at zero range.
    # This leaves 1 Heavy Hit as the result."
    outcome = resolve(gato, "attack_hits", given=example("enemy_attack_example.toml"))
    light = one(outcome, "total", name="light_hit_modifiers")
    heavy = one(outcome, "total", name="heavy_hit_modifiers")
    assert light.total == -2 and heavy.total == 1
    assert [str(h) for h in outcome.result] == ["Heavy"]
    assert trace_text(outcome) == snapshot


def test_gato_takes_1_hull_hit(gato: Checked, tmp_path: Path) -> None:
    # "You draw a Heavy Hit counter and Gato takes 1 Hull Hit." Gato stays Surfaced (no Crash
    # Dive). The Hit counter mix is provisional: counter 1's Heavy side is a Hull hit.
    given = write(
        tmp_path,
        '[attacker]\nname = "CH-30"\nrole = "E"\ncard = "CH-30"\nrange = 0\n[sub]\n'
        'name = "USS Gato"\nboat = "Gato"\nskill = "Veteran"\narea = "Marianas"\nev = 4\n'
        "detected = true\nsurfaced = true\n",
    )
    outcome = resolve(gato, "enemy_ship_attack", given=given, decide=["react=no"], dice=[1])
    assert one(outcome, "return", procedure="attack_hits").result == ["Heavy"]
    assert one(outcome, "lookup", table="hit_counters").keys == {"counter": 1, "side": "Heavy"}
    damage = arg(outcome, "sub").attrs["damage"]
    assert [str(d.get("effect")) for d in damage] == ["Hull"]


def test_tyoko_maru_1_light_hit_ignored_by_evasion_2(gato: Checked) -> None:
    # [§EXAMPLE TURN] "Tyoko Maru's Surface attack rating is 1 Light Hit, but since Salmon has an
    # Evasion Rating of 2, it can ignore 1 Light Hit. So there is no damage to Salmon."
    outcome = resolve(gato, "attack_hits", given=example("tyoko_attack_example.toml"))
    assert one(outcome, "total", name="light_hit_modifiers").total == -1
    assert outcome.result == ()


def test_hoten_maru_has_no_surface_attack(gato: Checked, tmp_path: Path) -> None:
    # "Hoten Maru does not have a Surface attack rating, so it cannot attack."
    given = write(
        tmp_path,
        '[attacker]\nname = "Hoten Maru"\nrole = "M"\ncard = "Hoten Maru"\nrange = 1\n'
        "[sub]\n" + SALMON + "surfaced = true\n",
    )
    outcome = resolve(gato, "enemy_ship_attack", given=given)
    assert outcome.result == () and not events(outcome, "decision")


def test_nomi_2_heavy_less_evasion_is_1_heavy_1_light(gato: Checked, tmp_path: Path) -> None:
    # [§EXAMPLE TURN] "Nomi's submerged attack rating is 2 Heavy Hits, but Salmon's Evasion
    # rating reduces this to 1 Heavy and 1 Light Hit. The Light Hit is No Effect and the Heavy
    # Hit is a Hull* hit and a Hull damage marker is placed on Salmon's card. With the existing
    # Flooding and Hull hits, if Salmon takes one more of these hits it will be sunk."
    numbers = resolve(gato, "attack_hits", given=example("nomi_attack_example.toml"))
    assert [str(h) for h in numbers.result] == ["Heavy", "Light"]
    given = write(
        tmp_path,
        '[attacker]\nname = "Nomi"\nrole = "E"\ncard = "Nomi"\nrange = 0\n[sub]\n'
        + SALMON
        + "surfaced = false\ndetected = true\n"
        '[[sub.damage]]\neffect = "Flooding"\namount = 1\nlasting = false\n',
    )
    # Hit counters (provisional mix): counter 1 (Heavy side: Hull), then counter 4 (Light side:
    # No Effect), the 3rd of the 9 left.
    outcome = resolve(gato, "enemy_ship_attack", given=given, decide=["react_deep=no"], dice=[1, 3])
    effects = [str(h.get("effect")) for h in outcome.result]
    assert effects == ["Hull", "No Effect"]
    salmon = arg(outcome, "sub")
    assert salmon.attrs["sunk"] is False
    assert hull_hits_of(outcome) == 2  # one more makes 3 = Hull rating: sunk


def hull_hits_of(outcome: Outcome) -> int:
    salmon = arg(outcome, "sub").attrs
    return sum(
        d.get("amount") for d in salmon["damage"] if str(d.get("effect")) in ("Hull", "Flooding")
    )


def test_hull_hits_equal_to_hull_rating_sink_the_submarine(gato: Checked, tmp_path: Path) -> None:
    # "Hull - ... When the number of Hull hits is equal to the Hull rating for the Submarine, the
    # Submarine is sunk." "Flooding counts as a Hull hit"
    given = write(
        tmp_path,
        "[sub]\n" + SALMON + '[[sub.damage]]\neffect = "Flooding"\namount = 1\nlasting = false\n'
        '[[sub.damage]]\neffect = "Hull"\namount = 1\nlasting = true\n'
        '[hit]\neffect = "Hull"\namount = 1\nlasting = true\n',
    )
    outcome = resolve(gato, "apply_hit", given=given)
    assert arg(outcome, "sub").attrs["sunk"] is True
    assert state(outcome)["subs_sunk"] == 1


def test_deep_dive_example_roll_6_floods(gato: Checked, snapshot: Any) -> None:
    # [§EXAMPLE TURN] "I choose to react by Deep Diving, which negates the attack by Nomi. I place
    # a Deep Dive counter by the Submarine, place 2 Stress Points on Salmon's card, and roll to
    # see if there is any damage from the action. I need to roll a 2 or less to avoid damage. I
    # roll a 6, so I place a Flooding counter on Salmon's card."
    outcome = resolve(
        gato,
        "enemy_ship_attack",
        given=example("salmon_deep_dive.toml"),
        decide=["react_deep=yes"],
        dice=[6],
    )
    assert not events(outcome, "lookup", table="hit_counters")  # no Hit counter is drawn
    salmon = arg(outcome, "sub").attrs
    assert salmon["stress"] == 3 + 2
    assert salmon["deep_dive"] is True
    assert [(str(d.get("effect")), d.get("lasting")) for d in salmon["damage"]] == [
        ("Flooding", False)
    ]
    assert trace_text(outcome) == snapshot


@pytest.mark.parametrize(
    ("die", "damage"), [(2, []), (3, ["Flooding"]), (10, ["Flooding", "Hull"])]
)
def test_deep_dive_rolls(gato: Checked, tmp_path: Path, die: int, damage: list[str]) -> None:
    # "If the die roll is equal to or less than the Submarine's Evasion rating, there is no
    # effect. If the die roll is greater than the Evasion rating, the Submarine takes one
    # Flooding Temporary Damage hit. If the die roll is 10, the Submarine takes one Hull Lasting
    # Damage hit."
    given = write(tmp_path, "[sub]\n" + SALMON + "surfaced = false\n")
    outcome = resolve(gato, "deep_dive", given=given, dice=[die])
    assert [str(d.get("effect")) for d in outcome.result] == damage


@pytest.mark.parametrize(("die", "no_effect"), [(2, True), (3, False)])
def test_crash_dive(gato: Checked, tmp_path: Path, die: int, no_effect: bool) -> None:
    # "Flip the Submarine counter over to its Submerged side. Add 1 Stress Point on its card.
    # ... If the die roll is equal to or less than the Submarine's Evasion rating, the attack
    # has no effect."
    given = write(tmp_path, "[sub]\n" + SALMON + "surfaced = true\nstress = 4\n")
    outcome = resolve(gato, "crash_dive", given=given, dice=[die])
    assert outcome.result is no_effect
    salmon = arg(outcome, "sub").attrs
    assert salmon["surfaced"] is False and salmon["stress"] == 5


@pytest.mark.parametrize(("die", "escapes", "stress"), [(2, True, 0), (3, False, 2)])
def test_silent_running(
    gato: Checked, tmp_path: Path, die: int, escapes: bool, stress: int
) -> None:
    # "If the die roll is less than or equal to the Submarine's Evasion rating, the Detected
    # counter is removed from the Submarine. If the die roll is greater than the Evasion rating,
    # the Submarine suffers 2 Stress and the Detected counter remains in place."
    given = write(tmp_path, "[sub]\n" + SALMON + "surfaced = false\ndetected = true\n")
    outcome = resolve(gato, "silent_running", given=given, dice=[die])
    salmon = arg(outcome, "sub").attrs
    assert outcome.result is escapes
    assert salmon["detected"] is not escapes
    assert salmon["stress"] == stress
    assert salmon["silent_running"] is True


# ---- Stress -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stress", "status", "evasion"),
    [(0, "Okay", 3), (7, "Okay", 3), (8, "Shaken", 2), (10, "Shaken", 2), (11, "Unfit", 2)],
)
def test_sample_card_stress_ranges(
    gato: Checked, tmp_path: Path, stress: int, status: str, evasion: int
) -> None:
    # "The Okay range on the sample card is 0 to 7." "The Shaken range on the sample card is 8
    # to 10." "the Unfit range on the sample card is 11+ ... Unfit Submarines use the Shaken
    # Evasion rating, which on the sample card is a 2." (an Okay Evasion of 3 given here)
    given = write(
        tmp_path,
        f'[sub]\nname = "sample"\nskill = "Trained"\narea = "Brisbane"\nev = 3\n'
        f"okay_max = 7\nshaken_max = 10\nshaken_ev = 2\nstress = {stress}\n",
    )
    assert str(resolve(gato, "status_of", given=given).result) == status
    assert resolve(gato, "evasion", given=given).result == evasion


# ---- Operations: Event cards and Special Missions ---------------------------------------------


def test_stingray_enemy_aircraft_6_plus_3_is_9_light_hit(gato: Checked, tmp_path: Path) -> None:
    # [§EXAMPLE TURN] "To resolve the event I roll the die roll getting a 6 and adding Stingray's
    # Evasion of 3 for a total of 9, which results in a Light Hit. The Light Hit draw gives the
    # Submarine 2 Stress Points" (the Hit counter mix is provisional: counter 2's Light side).
    given = write(
        tmp_path,
        '[sub]\nname = "USS Stingray"\nboat = "Stingray"\nskill = "Trained"\n'
        'area = "Solomon Islands"\nev = 3\n',
    )
    outcome = resolve(gato, "resolve_event", given=given, at=["card=Enemy Aircraft"], dice=[6, 2])
    roll = one(outcome, "roll")
    assert (roll.natural, roll.total) == (6, 9)
    row = one(outcome, "lookup", table="enemy_aircraft_event")
    assert row.result == "Light" and not row.provisional
    assert arg(outcome, "sub").attrs["stress"] == 2


def test_ultra_intercept_places_an_ultra_counter(gato: Checked, tmp_path: Path) -> None:
    # [§EXAMPLE TURN] "I draw 1 Event card, getting an Ultra Intercept card. I place an Ultra +1
    # marker in the Solomon Islands."
    given = write(tmp_path, "[sub]\n" + SALMON)
    outcome = resolve(gato, "resolve_event", given=given, at=["card=Ultra Intercept"])
    assert [str(a) for a in state(outcome)["ultra_counters"]] == ["Solomon Islands"]


def test_tautog_rough_seas_and_target_of_opportunity(gato: Checked, tmp_path: Path) -> None:
    # [§EXAMPLE TURN] "From Freemantle, Tautog moves into the Java Sea drawing 1 Event card,
    # getting Rough Seas and adding 2 Stress Points. Then continues into the South China Sea
    # drawing 2 Event cards, getting the Clear Weather and Target of Opportunity cards. Tautog
    # expends 4 Torpedoes to gain 2 Victory Points and adds 3 Stress Points (for a total of 5).
    # I note 2 Victory Points on the Campaign Log Sheet."
    tautog = (
        '[sub]\nname = "USS Tautog"\nboat = "Tautog"\nskill = "Veteran"\n'
        'area = "South China Sea"\nready = 8\nstored = 8\n'
    )
    rough = resolve(gato, "resolve_event", given=write(tmp_path, tautog), at=["card=Rough Seas"])
    assert arg(rough, "sub").attrs["stress"] == 2
    given = write(tmp_path, tautog + "stress = 2\n")
    outcome = resolve(gato, "resolve_event", given=given, at=["card=Target of Opportunity"])
    sub = arg(outcome, "sub").attrs
    assert sub["stress"] == 5
    assert sub["ready"] + sub["stored"] == 16 - 4
    assert state(outcome)["victory_points"] == 2


def test_gudgeon_minefield_outside_the_four_areas(gato: Checked, tmp_path: Path) -> None:
    # [§EXAMPLE TURN] "Gudgeon moves into the Java Sea drawing 1 Event card, getting a Minefield
    # card. Since Gudgeon isn't in South China Sea, East China Sea Empire Waters, or Sea of
    # Japan, I just add 1 Stress Point."
    given = write(
        tmp_path,
        '[sub]\nname = "USS Gudgeon"\nboat = "Gudgeon"\nskill = "Trained"\narea = "Java Sea"\n',
    )
    outcome = resolve(gato, "resolve_event", given=given, at=["card=Minefield"])
    assert arg(outcome, "sub").attrs["stress"] == 1 and not rolls(outcome)


def test_minefield_roll_gets_2_with_intel(gato: Checked, tmp_path: Path) -> None:
    # [§Intelligence] "if the Intelligence counter is in the South China Sea ... and a Submarine
    # in this Area draws a Minefield Event card, there is a +2 modifier to the minefield roll."
    base = '[sub]\nname = "USS Drum"\nboat = "Drum"\nskill = "Trained"\narea = "South China Sea"\n'
    plain = resolve(
        gato, "resolve_event", given=write(tmp_path, base), at=["card=Minefield"], dice=[7]
    )
    intel = resolve(
        gato,
        "resolve_event",
        given=write(tmp_path, 'intel_area = "South China Sea"\n' + base),
        at=["card=Minefield"],
        dice=[7],
    )
    assert one(intel, "roll").total - one(plain, "roll").total == 2


def test_drum_moves_pearl_harbor_to_empire_waters(gato: Checked, tmp_path: Path) -> None:
    # [§Move Submarines] "You move USS Drum from its Port at Pearl Harbor into the Marianas, then
    # draw and resolve 1 Event card. You then move it into the Bonins, draw and resolve 1 Event
    # card. Finally you move the Submarine into Empire Waters, draw and resolve 3 Event cards."
    # (Clear Weather cards: the first of the Event deck each time.)
    given = write(
        tmp_path,
        'campaign = "Against the Sun"\n[sub]\nname = "USS Drum"\nboat = "Drum"\n'
        'skill = "Trained"\narea = "Pearl Harbor"\n',
    )
    outcome = resolve(
        gato,
        "move_submarine",
        given=given,
        decide=[
            "move=yes",
            "into=Marianas",
            "move=yes",
            "into=Bonins",
            "move=yes",
            "into=Empire Waters",
            "move=no",
        ],
        dice=[1, 1, 1, 1, 1],
    )
    moving = [e.result for e in events(outcome, "return", procedure="move_into")]
    assert moving == [1, 1, 3]
    assert len(events(outcome, "draw")) == 5
    drum = arg(outcome, "sub").attrs
    assert str(drum["area"]) == "Empire Waters" and drum["moved"] is True


def test_no_transit_east_china_sea_to_bonins(gato: Checked, tmp_path: Path) -> None:
    # [§Move Submarines] "Example: You can move from the East China Sea into Marianas or Empire
    # Waters, but you cannot move from East China Sea into Bonins."
    given = write(tmp_path, "[sub]\n" + SALMON.replace("Solomon Islands", "East China Sea"))
    with pytest.raises(RuleViolation) as caught:
        resolve(gato, "move_into", given=given, at=["into=Bonins"])
    assert "No Transit" in caught.value.diagnostics[0].message
    for into in ("Marianas", "Empire Waters"):
        outcome = resolve(gato, "move_into", given=given, at=[f"into={into}"], seed=1)
        assert str(arg(outcome, "sub").attrs["area"]) == into


def test_a_wolfpack_of_one_is_dissolved(gato: Checked, tmp_path: Path) -> None:
    # [§Wolfpacks] "Submarines that are Sunk or become Unfit will always leave a Wolfpack. If the
    # number of Submarines in a Wolfpack is one (1), the Wolfpack is dissolved"
    given = write(
        tmp_path,
        '[[squadron]]\nname = "A"\nskill = "Trained"\narea = "Java Sea"\nwolfpack = true\n'
        '[[squadron]]\nname = "B"\nskill = "Trained"\narea = "Java Sea"\nwolfpack = true\n'
        "sunk = true\n",
    )
    outcome = resolve(gato, "dissolve_wolfpacks", given=given)
    assert [s.attrs["wolfpack"] for s in state(outcome)["squadron"]] == [False, False]


def test_returning_to_port_completes_a_patrol(gato: Checked, tmp_path: Path) -> None:
    # [§End of a Patrol] "A Submarine completes one Patrol when you move its counter into a Port
    # box." "A Submarine must end movement when it enters a Port box."
    given = write(tmp_path, "[sub]\n" + SALMON + "patrols = 1\n")
    outcome = resolve(gato, "move_into", given=given, at=["into=Brisbane"])
    assert outcome.result == 0 and not events(outcome, "draw")
    assert arg(outcome, "sub").attrs["patrols"] == 2


def test_mine_mission_9_torpedoes_3_vp(gato: Checked, snapshot: Any) -> None:
    # [§Special Mission: Mine] "On the Campaign Sheet Against the Sun, USS Drum successfully drops
    # Mines in the South China Sea Area. You chose to have Mines replace 9 Torpedoes on the
    # Submarine, so you earn 3 Victory Points."
    outcome = resolve(gato, "mine_mission", given=example("mine_mission_example.toml"), dice=[1])
    row = one(outcome, "lookup", table="mine_box_vp")
    assert row.keys == {"mines": 9} and row.result == 3 and not row.provisional
    assert outcome.result == 3
    assert state(outcome)["victory_points"] == 3
    drum = arg(outcome, "sub").attrs
    assert drum["searched"] is True and list(drum["missions"]) == []
    assert len(events(outcome, "draw")) == 1  # "draw 1 Event card to enter the box"
    assert trace_text(outcome) == snapshot


def test_mine_mission_replaces_torpedoes(gato: Checked, tmp_path: Path) -> None:
    # "This Special Mission can only be purchased for Submarines that are on a Port box. ... You
    # can replace any number of the Submarine's Ready or Stored Torpedoes with Mines."
    given = write(
        tmp_path,
        "so_points = 10\n[sub]\n"
        + SALMON.replace('"Solomon Islands"', '"Brisbane"')
        + "ready = 8\nstored = 16\n",
    )
    outcome = resolve(gato, "assign_special_mission", given=given, at=["mission=Mine", "mines=9"])
    salmon = arg(outcome, "sub").attrs
    assert (salmon["ready"], salmon["stored"], salmon["mines"]) == (0, 15, 9)
    at_sea = write(tmp_path, "so_points = 10\n[sub]\n" + SALMON + "ready = 8\n")
    with pytest.raises(RuleViolation):
        resolve(gato, "assign_special_mission", given=at_sea, at=["mission=Mine", "mines=2"])


def test_s44_naval_attack_mission(gato: Checked, tmp_path: Path) -> None:
    # [§Special Mission: Naval Attack] "S-44 ... moves into the Special Attack box in the area.
    # You draw three Event cards, one at a time. ... S-44 is ready to attack and draws 2 Naval
    # cards, getting the Heavy Cruiser Aoba and the Light Cruiser Jintsu. You decide to attack
    # Aoba with 4 torpedoes and Jintsu with 1. The torpedo fired at Jintsu misses, while the
    # attack on Aoba sinks the cruiser. S-44 is placed in the Searched box and you score 2
    # Victory Points and earn 2 Experience Points." The three Event cards here are Clear Weather
    # (not the example's); S-44 fires Mk 10 torpedoes (no Dud check, -2). The attack of 3 Heavy
    # Hits that follows takes Hit counters 1, 2 and 3 (provisional mix).
    given = write(
        tmp_path,
        'campaign = "Holding the Line"\n[sub]\nname = "USS S-44"\nboat = "S-44"\n'
        'skill = "Veteran"\nsub_class = "S"\narea = "Solomon Islands"\n'
        'abilities = ["Mk 10 Torpedo"]\nmissions = ["Naval Attack"]\nready = 5\nev = 2\n'
        "surfaced = false\nhull = 5\n",
    )
    outcome = resolve(
        gato,
        "naval_attack_mission",
        given=given,
        decide=["torpedoes=4", "torpedoes=1"],
        # 3 Event cards, the 2 Naval cards, Aoba's spread (4 dice), Jintsu's (1 die), 3 Hit counters
        dice=[1, 1, 1, 1, 1, 9, 9, 9, 9, 1, 1, 1, 1],
    )
    assert [e.item for e in events(outcome, "draw", pool="naval_deck")] == ["Aoba", "Jintsu"]
    assert outcome.result == 2
    s44 = arg(outcome, "sub").attrs
    assert s44["xp"] == 2 and s44["searched"] is True and s44["ready"] == 0
    assert not events(outcome, "lookup", table="torpedo_dud")


# ---- Post-Combat Resolution and Refit --------------------------------------------------------


def test_example_turn_post_combat(gato: Checked, tmp_path: Path, snapshot: Any) -> None:
    # [§EXAMPLE TURN] "I now go to the Post-Combat Resolution Phase. I add 1 Stress to Salmon,
    # transfer 8 of the stored torpedoes to become ready torpedoes, I record 4 Experience and 5
    # Victory Points for sinking the Hoten Maru and Tyoko Maru."
    given = write(
        tmp_path,
        "[sub]\n" + SALMON + "stress = 5\nready = 0\nstored = 15\nparticipated = true\n"
        "battle_xp = 4\nbattle_vp = 5\n",
    )
    outcome = resolve(gato, "post_combat", given=given)
    salmon = arg(outcome, "sub").attrs
    assert salmon["stress"] == 6
    assert (salmon["ready"], salmon["stored"]) == (8, 7)
    assert salmon["xp"] == 4
    assert state(outcome)["victory_points"] == 5
    assert trace_text(outcome) == snapshot


def test_promotion_7_xp_less_5_leaves_2(gato: Checked, snapshot: Any) -> None:
    # [§Promote Submarines] "A Submarine needs 5 Experience Points to promote to the next level.
    # It has gained 7 Experience Points. Promote the Submarine and deduct 5 Experience Points.
    # This leaves the Submarine with 2 Experience Points toward its next Level."
    outcome = resolve(gato, "promote", given=example("promotion_example.toml"))
    assert outcome.result is True
    sub = arg(outcome, "sub").attrs
    assert sub["xp"] == 2
    assert str(sub["skill"]) == "Veteran"
    assert trace_text(outcome) == snapshot


def test_no_promotion_above_ace_or_below_the_number(gato: Checked, tmp_path: Path) -> None:
    for skill, xp in (("Ace", 9), ("Green", 4)):
        given = write(
            tmp_path,
            f'[sub]\nname = "s"\nskill = "{skill}"\narea = "Brisbane"\npromotion = 5\nxp = {xp}\n',
        )
        outcome = resolve(gato, "promote", given=given)
        assert outcome.result is False
        assert arg(outcome, "sub").attrs["xp"] == xp


def test_example_turn_refit_cool_at_sea(gato: Checked, tmp_path: Path, snapshot: Any) -> None:
    # [§EXAMPLE TURN] "Since they are all at sea and there aren't any Forward Operating Bases, the
    # only Submarine that can reduce stress is Salmon, because it has the Cool Special Ability.
    # Finally all the Temporary Damage counters are removed from the Submarines."
    damage = (
        '[[sub.damage]]\neffect = "Flooding"\namount = 1\nlasting = false\n'
        '[[sub.damage]]\neffect = "Hull"\namount = 1\nlasting = true\n'
    )
    given = write(tmp_path, "[sub]\n" + SALMON + "stress = 6\n" + damage)
    outcome = resolve(gato, "stress_recovery", given=given)
    salmon = arg(outcome, "sub").attrs
    assert outcome.result == 1 and salmon["stress"] == 5
    assert [str(d.get("effect")) for d in salmon["damage"]] == ["Hull"]
    stingray = write(
        tmp_path,
        '[sub]\nname = "USS Stingray"\nskill = "Trained"\narea = "Solomon Islands"\nstress = 2\n',
        "stingray.toml",
    )
    assert resolve(gato, "stress_recovery", given=stingray).result == 0
    assert trace_text(outcome) == snapshot


def test_stress_recovery_in_port_and_at_a_fob(gato: Checked, tmp_path: Path) -> None:
    # In Port: "Reduce the Stress Points ... by the number of Stress Points shown on the Refit
    # line for the Port" (provisional: Brisbane 3), Cool 1 more; "Remove any Temporary or
    # Lasting Damage counters". At sea: "Submarines in the same Campaign Map Area as a Forward
    # Operating Base can reduce Stress by 2 Stress Points."
    damage = '[[sub.damage]]\neffect = "Hull"\namount = 1\nlasting = true\n'
    port = write(
        tmp_path,
        "[sub]\n" + SALMON.replace('"Solomon Islands"', '"Brisbane"') + "stress = 9\n" + damage,
    )
    outcome = resolve(gato, "stress_recovery", given=port)
    refit = one(outcome, "lookup", table="port_refit").result
    assert outcome.result == refit + 1
    assert list(arg(outcome, "sub").attrs["damage"]) == []
    fob = write(tmp_path, 'fob_areas = ["Solomon Islands"]\n[sub]\n' + SALMON + "stress = 9\n")
    assert resolve(gato, "stress_recovery", given=fob).result == 2 + 1


def test_patrol_limits_and_at_sea_check(gato: Checked, tmp_path: Path) -> None:
    # "When a Submarine has completed a number of Patrols equal to the Campaign's Patrol limit,
    # the Submarine's participation in the Campaign ends." "If the Campaign is not over and
    # there are no Submarines in any Sea Areas (only in Port boxes), subtract 2 from your Victory
    # Point total."
    squadron = (
        '[[squadron]]\nname = "A"\nskill = "Trained"\narea = "Brisbane"\npatrols = 2\n'
        '[[squadron]]\nname = "B"\nskill = "Trained"\narea = "Brisbane"\npatrols = 1\n'
    )
    outcome = resolve(
        gato, "patrol_limits", given=write(tmp_path, "victory_points = 10\n" + squadron)
    )
    assert outcome.result is False
    assert [s.attrs["name"] for s in state(outcome)["squadron"]] == ["B"]
    assert state(outcome)["victory_points"] == 8
    done = squadron.replace("patrols = 1", "patrols = 2")
    ended = resolve(gato, "patrol_limits", given=write(tmp_path, "victory_points = 10\n" + done))
    assert ended.result is True and state(ended)["victory_points"] == 10


def test_campaign_outcome_21_vp_one_sub_sunk(gato: Checked) -> None:
    # [§CAMPAIGN OUTCOME] "You check your Player Log and see you have earned 21 Victory Points,
    # but one of your Subs was Sunk. According to the Campaign Outcome table, your have earned an
    # Adequate Campaign Victory." "Subtract 3 Victory Points from your total for each Submarine
    # that was Sunk" (the Victory Point table itself is provisional).
    outcome = resolve(
        gato, "campaign_outcome", at=["victory_points=21", "subs_sunk=1", "campaign_length=Short"]
    )
    assert one(outcome, "value", name="total").value == 18
    row = one(outcome, "lookup", table="victory_level")
    assert row.provisional
    assert outcome.result == "Adequate Campaign Victory"


@pytest.mark.parametrize(
    ("campaign", "factor"), [("Holding the Line", 2), ("Turning the Tide", 1.5), ("Setting Sun", 1)]
)
def test_better_american_torpedoes_scale_the_vp_table(
    gato: Checked, campaign: str, factor: float
) -> None:
    # "for the 1942 campaigns double the number of VPs listed on the Campaign Sheet to determine
    # your victory level and for the 1943 campaign multiply the VPs listed by 1.5."
    outcome = resolve(gato, "listed_vp_factor", at=[f"campaign={campaign}", "better_torpedoes=yes"])
    assert float(unwrap(outcome.result)) == factor


def test_reset_campaign_map_removes_counters(gato: Checked, tmp_path: Path) -> None:
    # "Remove all Intelligence and Submarine Warning counters from the Campaign Map. Move
    # Submarines out of the Searched boxes". Example turn: "I reset the Campaign Map by removing
    # the Ultra counter from the Map. Then I move all the Submarine counters out of the Searched
    # Boxes."
    given = write(
        tmp_path,
        'intel_area = "Java Sea"\nwarning_counters = ["Solomon Islands"]\n'
        'ultra_counters = ["Solomon Islands"]\n[[squadron]]\n' + SALMON + "searched = true\n",
    )
    outcome = resolve(gato, "reset_campaign_map", given=given)
    values = state(outcome)
    assert values["intel_area"] is None
    assert values["warning_counters"] == () and values["ultra_counters"] == ()
    assert values["squadron"][0].attrs["searched"] is False


# ---- Card decks ---------------------------------------------------------------------------------


def test_a_deck_is_reshuffled_from_its_discards(gato: Checked, tmp_path: Path) -> None:
    # [§Shuffling Cards and Preparing Decks] "After you have drawn the last card from a deck,
    # gather the discards, and shuffle them to form a new deck."
    given = write(
        tmp_path,
        "convoy_deck_ready = true\nconvoy_deck = []\nconvoy_discards = [42, 49]\n",
    )
    outcome = resolve(gato, "draw_convoy_card", given=given, dice=[2])
    assert outcome.result == 49
    values = state(outcome)
    assert values["convoy_deck"] == (42,) and values["convoy_discards"] == (49,)


def test_set_up_removes_the_campaign_sheet_convoy_cards(gato: Checked) -> None:
    # "I remove Convoy cards # 47 and 48 from the deck." (Holding the Line)
    outcome = resolve(gato, "set_up_convoy_deck", at=["campaign=Holding the Line"])
    deck = state(outcome)["convoy_deck"]
    assert 47 not in deck and 48 not in deck and 37 in deck


def test_naval_convoy_escorts_are_fleet_escorts(gato: Checked, tmp_path: Path) -> None:
    # "For Naval Contact types, the Escorts are always Fleet Escorts. The Fleet Escort cards are
    # used instead of drawing Escort cards."
    given = write(tmp_path, 'convoy_contact = "Naval"\n[s]\nname = "E1"\nrole = "E"\nrange = 2\n')
    outcome = resolve(gato, "reveal", given=given, dice=[1])
    assert one(outcome, "draw").pool == "fleet_escort_deck"
    assert arg(outcome, "s").attrs["fleet"] is True


# ---- a whole Combat Resolution Phase and the Sequence of Play --------------------------------


def test_example_turn_first_combat_resolution_phase(gato: Checked, snapshot: Any) -> None:
    # [§EXAMPLE TURN] "I move Salmon forward 2 spaces into the Short Range labeled Area ...
    # revealing the ships as: top left - Syoei Maru (#58), top right - Nanrei Maru (#75), bottom
    # left - Tyoko Maru (#56), bottom right - Hoten Maru (#66). The 2 Escorts are still too far
    # away to identify. For the Lag Movement ... All ships on the Tactical Display have a speed
    # of 2 so I do not move any ships." "Escorts can Detect Submarines on the Surface at a range
    # up to 2. I am at range 3 so they do not detect me. ... Escort 1's roll is 5, so it stays
    # in place ... Escort 2's roll is 8, so the Escort rotates 1 Area Clockwise ... The Escort
    # is now 2 away from my Submarine ... It is the Nomi (#95)." Then the Enemy Ships and
    # Salmon's attacks as in test_example_turn_attacks.
    outcome = resolve(
        gato,
        "combat_resolution_phase",
        given=example("salmon_combat_example.toml"),
        decide=[
            "exit=no",
            "areas=2",
            "zone=Short Range",
            "to_wake=2",
            *[f"new_range={r}" for r in (2, 2, 1, 1, 3, 3)],
            "new_range=2",  # E2 after moving Clockwise
            "torpedoes=2",
            "gun=no",
            "torpedoes=0",
            "gun=no",
            "torpedoes=0",
            "gun=yes",
            "torpedoes=6",
        ],
        # Merchant deck draws (Syoei, Nanrei, Tyoko, Hoten), Escort movement rolls 5 and 8, the
        # Escort deck draw (Nomi), then the attacks' dice.
        dice=[3, 4, 2, 2, 5, 8, 1, 2, 7, 1, 4, 6, 7],
    )
    revealed = [e.item for e in events(outcome, "draw")]
    assert revealed == ["Syoei Maru", "Nanrei Maru", "Tyoko Maru", "Hoten Maru", "Nomi"]
    assert all(e.result == 0 for e in events(outcome, "lookup", table="lag_drift"))
    patrol = [e.result for e in events(outcome, "lookup", table="escort_patrol")]
    assert patrol == ["does not move", "Clockwise"]
    assert events(outcome, "return", procedure="attack_hits")[0].result == []
    assert outcome.result is True  # Salmon and Ships are still on the Display: repeat
    ships = {s.attrs["name"]: s.attrs for s in state(outcome)["display"]}
    assert ships["M4"]["sunk"] is True and ships["M4"]["card"] == "Hoten Maru"
    assert ships["M3"]["light_damage"] is True
    assert state(outcome)["alerted"] == 1
    assert trace_text(outcome) == snapshot


def test_combat_repeats_until_the_submarines_break_off(gato: Checked) -> None:
    # "The Combat Resolution steps are repeated until all Submarines have broken off from
    # contact, are sunk, or there are no Ship counters on the Tactical Display." "A Submarine
    # may exit the Tactical Display by moving off the display from any Long Range Area."
    # First phase: Salmon stays (exit=no, no move, no attack); second phase: she breaks off.
    outcome = resolve(
        gato,
        "combat",
        given=example("salmon_combat_example.toml"),
        decide=["exit=no", "areas=0", "exit=yes"],
        dice=[5, 5, 5, 5],  # the two Escorts stay (their movement rolls, in both phases)
    )
    assert outcome.result == 2
    phases = events(outcome, "return", procedure="combat_resolution_phase")
    assert [e.result for e in phases] == [True, False]
    assert arg(outcome, "sub").attrs["off_display"] is True


# The Sequence of Play as printed [§SEQUENCE OF PLAY].
PRINTED_SEQUENCE = [
    ("segment", "Strategic Segment"),
    ("phase", "§Expend Special Option Points"),
    ("phase", "§Assign Special Missions"),
    ("segment", "Operations Segment"),
    ("phase", "§Wolfpacks"),  # Form Wolfpacks
    ("phase", "§Move Submarines"),  # Move Submarines, Resolve Event cards
    ("phase", "§Resolve Special Missions"),
    ("segment", "Tactical Segment"),
    ("segment", "Contact Phase"),
    ("phase", "§CONTACT PHASE"),
    ("phase", "§Draw Convoy Card"),  # Draw Convoy card, Tactical Set-Up
    ("segment", "Combat Resolution Phase"),
    ("phase", "§COMBAT RESOLUTION PHASE"),
    ("segment", "Post-Combat Resolution Phase"),
    ("phase", "§Add Stress"),
    ("phase", "§Reload Torpedoes"),
    ("phase", "§Record Experience Points"),
    ("phase", "§Action Decision (with Contacts)"),
    ("phase", "§Post Combat for a Submarine"),
    ("segment", "Refit Segment"),
    ("phase", "§Promote Submarines"),
    ("phase", "§Patrol Limits"),
    ("phase", "§Stress Recovery"),
    ("phase", "§Port Restock"),
    ("phase", "§Sea Reload"),
    ("phase", "§Resetting the Campaign Map"),
]


def test_sequence_of_play_follows_the_printed_order(gato: Checked) -> None:
    from rulekit.language import nodes as n

    found: list[tuple[str, str]] = []

    def walk(items: Any) -> None:
        for item in items:
            if isinstance(item, n.SeqSegment):
                found.append(("segment", item.title or item.name))
                walk(item.items)
            elif isinstance(item, n.SeqPhase):
                found.append(("phase", item.ref.text if item.ref else item.call.func))
            else:
                walk(item.items)

    assert gato.book.sequence is not None
    walk(gato.book.sequence.items)
    assert found == PRINTED_SEQUENCE


def test_a_turn_with_the_squadron_in_port(gato: Checked, snapshot: Any) -> None:
    # One turn of the Sequence of Play with one Submarine that stays in Brisbane: no Events, no
    # Contacts; the At Sea Check costs 2 VP ("there are no Submarines in any Sea Areas"), Stress
    # Recovery in Port, Port Restock.
    interp = Interpreter(gato, ForcedDice([]), DefaultPolicy())
    reader = ValueReader(gato, interp.eval, "test")
    from rulekit.book import types as t

    salmon = reader.read(
        {
            "name": "USS Salmon",
            "skill": "Trained",
            "area": "Brisbane",
            "stress": 5,
            "abilities": ["Cool"],
        },
        t.KindT("submarine"),
        "salmon",
    )
    interp.state.values["squadron"] = (salmon,)
    interp.run_sequence()
    notes = [
        e.text for e in interp.trace.events if e.event == "note" and e.text.startswith("segment")
    ]
    assert notes == [
        "segment Strategic Segment",
        "segment Operations Segment",
        "segment Tactical Segment",
        "segment Contact Phase",
        "segment Refit Segment",
    ]
    assert interp.state.values["victory_points"] == -2
    assert salmon.attrs["gun_ammo"] == 6 and salmon.attrs["ready"] == salmon.attrs["ready_max"]
    assert "\n".join(render_text(interp.trace)) == snapshot


def test_a_gun_damaged_by_a_circling_torpedo_makes_no_declared_gun_attack(
    gato: Checked, tmp_path: Path
) -> None:
    # "Declare all attacks before rolling for any." Salmon, surfaced, declares 3 torpedoes and
    # a Gun attack at Tyoko Maru (range 2). The Torpedo Dud roll 4 (1942) lets one torpedo run;
    # the second die, 1, sends one around: "Immediately resolve an attack on the Submarine with
    # 3 Heavy Hits" (2 Heavy and 1 Light Hit after Salmon's Evasion 2). Drawing the first
    # counter each time: counters 1 and 2 on their Heavy side (a Hull hit each), counter 3 on
    # its Light side: Gun. "Gun - The Submarine cannot make gun attacks until the gun is
    # repaired": the declared Gun attack is not made, and its Gun Ammo is not spent. (Found by
    # the advised policy's look-ahead: the game stopped on gun_attack's `require`.)
    given = write(
        tmp_path,
        "campaign_year = 1942\n[sub]\n" + SALMON + "ready = 3\nsurfaced = true\ngun_ammo = 6\n"
        '[[display]]\nname = "Tyoko Maru"\nrole = "M"\ncard = "Tyoko Maru"\nrange = 2\n',
    )
    outcome = resolve(
        gato,
        "submarine_attacks",
        given=given,
        decide=["reload=no", "torpedoes=3", "gun=yes"],
        dice=[4, 1, 1, 1, 1, 5],
    )
    assert one(outcome, "lookup", table="torpedo_dud").result == "one_runs"
    assert one(outcome, "return", procedure="attack_hits").result == ["Heavy", "Heavy", "Light"]
    salmon = arg(outcome, "sub")
    effects = [d.get("effect") for d in salmon.attrs["damage"]]
    assert [str(e) for e in effects] == ["Hull", "Hull", "Gun"]
    notes = [e.text for e in events(outcome, "note")]
    assert "the Gun attack declared at Tyoko Maru is not made: the gun is damaged" in notes
    assert not events(outcome, "call", procedure="gun_attack")
    assert salmon.attrs["gun_ammo"] == 6  # not spent
    assert salmon.attrs["ready"] == 0  # the three torpedoes were fired
    assert outcome.result == 1  # one attack made: the torpedoes
