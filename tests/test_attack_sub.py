"""Attack Sub (Avalon Hill, 1991), rules sections 3-13.

Expected numbers are transcribed from the rules (../shared/seeds/004_99198bb6d749be39.txt).
Ship ratings and the deck's composition are not in the rules: where a test needs one, it
reads the (provisional) value from the rulebook's table and checks the rule's arithmetic
with it; the rules' own numbers (RN >= 4, modified RN >= 6, Level 4, the [6.4] strength 6,
...) are written here as printed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tracing import events, one, state, trace_text

from rulekit.book.checker import Checked
from rulekit.engine.session import Outcome, resolve
from rulekit.engine.values import Entity, unwrap
from rulekit.errors import RuleViolation

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "attack_sub"
CONVOY = str(EXAMPLES / "convoy_screen_13m.toml")
JOHN_RODGERS = str(EXAMPLES / "john_rodgers_6_4.toml")
UDALOY = str(EXAMPLES / "udaloy_10_31.toml")
VICTOR_TRANSPORT = str(EXAMPLES / "victor_transport_12_3.toml")

DECK = list(range(1, 45))  # the provisional deck: cards 1..44
X = 11  # card 11 reads "X"


# ---- helpers -----------------------------------------------------------------------------


def ship(outcome: Outcome, name: str) -> dict[str, Any]:
    found = [s for s in state(outcome)["ships"] if s.attrs["name"] == name]
    assert len(found) == 1
    return found[0].attrs


def level(outcome: Outcome, name: str) -> int:
    found = [c for c in state(outcome)["contacts"] if c.attrs["name"] == name]
    assert len(found) == 1
    return int(found[0].attrs["level"])


def card(rn: int) -> int:
    """The card of the provisional deck that reads ``rn`` (0-9) in its first block."""
    return rn + 1


def positions(*cards: int, deck: list[int] | None = None) -> list[int]:
    """--dice values that draw these cards one after the other from ``deck``."""
    left = list(DECK if deck is None else deck)
    out = []
    for c in cards:
        out.append(left.index(c) + 1)
        left.remove(c)
    return out


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return '"' + str(value) + '"'


def situation(tmp_path: Path, **items: Any) -> str:
    """Write a --given file: top-level keys (arguments and state)."""
    path = tmp_path / f"situation_{len(list(tmp_path.iterdir()))}.toml"
    text = "\n".join(f"{k} = {toml_value(v)}" for k, v in items.items()) + "\n"
    path.write_text(text, encoding="utf-8")
    return str(path)


def vessel(name: str, cls: str, side: str, kind: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "class": cls, "side": side, "type": kind, **extra}


def marker(target: str, side: str, by_sub: str = "", at: int = 0) -> dict[str, Any]:
    holder = by_sub or side
    entry: dict[str, Any] = {"name": f"{holder} on {target}", "target": target, "side": side}
    if by_sub:
        entry["submarine"] = by_sub
    entry["level"] = at
    return entry


def cell(book: Checked, table: str, *keys: Any) -> Any:
    t = book.tables[table]
    read = [
        book.vocab.read(k, d.type) if isinstance(k, str) else k
        for k, d in zip(keys, t.dims, strict=True)
    ]
    return t.lookup(read)[0]


def rating(book: Checked, cls: str, field: str) -> Any:
    return unwrap(cell(book, "ship_ratings", cls).value).get(field)


# A duel: a NATO Los Angeles against a Soviet Victor III, plus a NATO surface escort.
def duel(tmp_path: Path, la_on_victor: int = 1, victor_on_la: int = 1, **extra: Any) -> str:
    ships = [
        vessel("Los Angeles", "Los Angeles", "NATO", "submarine", **extra.pop("la", {})),
        vessel("Victor III", "Victor III", "SOVIET", "submarine", **extra.pop("victor", {})),
        vessel("Bowen", "Bowen", "NATO", "surface", **extra.pop("bowen", {})),
    ]
    contacts = [
        marker("Victor III", "NATO", "Los Angeles", la_on_victor),
        marker("Los Angeles", "SOVIET", "Victor III", victor_on_la),
        marker("Bowen", "SOVIET", "Victor III", extra.pop("victor_on_bowen", 1)),
        marker("Victor III", "NATO", at=extra.pop("nato_on_victor", 1)),
    ]
    return situation(tmp_path, ships=ships, contacts=contacts, **extra)


# ---- the rulebook ------------------------------------------------------------------------


def test_checks_clean(sub: Checked) -> None:
    assert sub.errors == [] and sub.warnings == []
    provisional = {p.what: p.count for p in sub.provisional}
    assert provisional["table rn_card"] == 44  # the deck is not in the rules
    assert provisional["const deck_size"] == 1


def test_values_printed_in_the_rules_are_plain_data(sub: Checked) -> None:
    # [6.4] "An undamaged John Rodgers ... Attack Value +2" (against the Victor III Submarine)
    jr = cell(sub, "attack_bottom", "John Rodgers", 0)
    assert jr.value == 2 and not jr.provisional
    # [§Notes from the Skipper] the Los Angeles' Harpoon "+3 rating" against surface targets
    la = cell(sub, "attack_top", "Los Angeles", 0)
    assert la.value == 3 and not la.provisional
    # [13.1] "The Kennedy has no Sensor values (-)"; its track is still used for damage
    for box in (0, 1, 2):
        kennedy = cell(sub, "sensor_track", "Kennedy", box)
        assert kennedy.value is None and not kennedy.provisional
        # [13.2] "The carriers Moskva, Kennedy, and INVINCIBLE have no attack values (-)"
        for carrier in ("Moskva", "Kennedy", "INVINCIBLE"):
            bottom = cell(sub, "attack_bottom", carrier, box)
            assert bottom.value is None and not bottom.provisional
        # [12.1] "Transports have neither Attack nor Sensor values"
        for table in ("sensor_track", "attack_top", "attack_bottom"):
            assert cell(sub, table, "Transport", box).value is None
    # [10.2] "the Sensor/Attack values (2) printed on the Helicopter card"
    assert sub.book.consts["helicopter_value"].value.value == 2
    assert sub.book.consts["helicopter_value"].provenance is None


def test_printed_constants(sub: Checked) -> None:
    consts = {name: decl.value.value for name, decl in sub.book.consts.items()}
    assert consts["max_contact"] == 4  # [4.3] "farther than Level 4"
    assert consts["repair_number"] == 4  # [9.4] "a RN >= 4"
    assert consts["weather_number"] == 4  # [10.32] "a RN >= 4 the weather clears"
    assert consts["shutdown_number"] == 4  # [5.5] "If the RN is >= 4"
    assert consts["entry_number"] == 6  # [11.1] "a modified RN >= 6"
    assert (
        consts["convoy_screen_score"] == 5
    )  # [13M] "five sunken NATO ships and/or exited Soviet Subs"


# ---- the deck: Random Numbers, X, reshuffle ------------------------------------------------


def test_provisional_deck_reads_as_its_comment_says(sub: Checked) -> None:
    table = sub.tables["rn_card"]
    for n in DECK:
        face = unwrap(table.lookup([n])[0].value)
        rn = face.get("rn")
        expected = "X" if (n - 1) % 11 == 10 else str((n - 1) % 11)
        assert str(rn) == expected, n
        assert (str(face.get("title")) == "Helicopter") is (n in (5, 16, 27, 38))
    assert all(c.provisional for _, c in table.iter_cells())


@pytest.mark.parametrize("rn", range(10))
def test_a_draw_is_the_card_at_the_forced_position(sub: Checked, rn: int) -> None:
    outcome = resolve(sub, "draw_rn", at=["player=NATO"], dice=[card(rn)])
    draw = one(outcome, "draw")
    assert (draw.position, draw.of, draw.item) == (card(rn), 44, card(rn))
    assert unwrap(outcome.result) == rn
    assert state(outcome)["discards"] == (card(rn),)
    assert card(rn) not in state(outcome)["rn_deck"] and len(state(outcome)["rn_deck"]) == 43


def test_x_is_read_as_zero(sub: Checked) -> None:
    # [9.5] "Unless specified otherwise, a Random Number draw of "X" is treated as "0"."
    outcome = resolve(sub, "draw_rn", at=["player=NATO"], dice=[X])
    assert str(outcome.result) == "X"
    assert resolve(sub, "rn_number", at=["rn=X"]).result == 0


def test_spent_deck_is_reshuffled_and_counted(sub: Checked, tmp_path: Path) -> None:
    # The Draw pile is empty: the discards become the next deck [11.1] "the current deck".
    given = situation(tmp_path, rn_deck=[], discards=[3, 7], deck_number=1)
    outcome = resolve(sub, "draw_rn", at=["player=SOVIET"], given=given, dice=[2])
    assert state(outcome)["deck_number"] == 2
    assert one(outcome, "draw").item == 7 and unwrap(outcome.result) == 6
    assert state(outcome)["rn_deck"] == (3,)
    assert state(outcome)["discards"] == (7,)


def test_every_card_is_drawn_once_per_deck(sub: Checked) -> None:
    outcome = resolve(sub, "refill_hand", at=["player=NATO", "hand_size=44"], seed=3)
    assert sorted(state(outcome)["nato_hand"]) == DECK
    assert state(outcome)["rn_deck"] == () and state(outcome)["deck_number"] == 1


def test_hands_draw_from_the_same_pile(sub: Checked, tmp_path: Path) -> None:
    # [3.5] refill to the Hand Size; a Hand over its size draws nothing.
    outcome = resolve(sub, "refill_hand", at=["player=SOVIET", "hand_size=3"], dice=[1, 1, 1])
    assert state(outcome)["soviet_hand"] == (1, 2, 3) and outcome.result == 3
    full = situation(tmp_path, soviet_hand=[4, 5, 6, 7])
    assert resolve(sub, "refill_hand", given=full, at=["player=SOVIET", "hand_size=3"]).result == 0
    played = resolve(sub, "discard_card", given=full, at=["player=SOVIET", "card=5"])
    assert state(played)["soviet_hand"] == (4, 6, 7) and state(played)["discards"] == (5,)


def test_a_helicopter_card_drawn_as_rn_calls_for_a_check(sub: Checked) -> None:
    # [3.3] "If a "Helicopter" card appears while drawing for a RN, a "Helicopter Check"
    # (10.31) must be made for any airborne helicopters of the drawing player."
    outcome = resolve(sub, "draw_rn", at=["player=SOVIET"], dice=[5])
    assert state(outcome)["helicopter_check_due"][0].member == "SOVIET"
    # A Hit result card is not a RN draw ("not a Hit resolution card" [10.31]).
    assert state(resolve(sub, "draw_hit", dice=[5]))["helicopter_check_due"] == ()


# ---- [4] Sensor Detection --------------------------------------------------------------------


def sensor_case(sub: Checked, tmp_path: Path, rn: int, **at: Any) -> Outcome:
    given = duel(tmp_path, **at.pop("duel", {}))
    args = [
        f"{k}={v}" for k, v in {"searcher": "Los Angeles", "target": "Victor III", **at}.items()
    ]
    return resolve(sub, "sensor_detection", given=given, at=args, dice=[card(rn)])


@pytest.mark.parametrize("sonar", ["passive", "active"])
def test_sensor_check_threshold(sub: Checked, tmp_path: Path, sonar: str) -> None:
    # [4.1] RN + Sensor value (+1 for Active Sonar [4.21]) >= Detection Value: one box right.
    sensor = cell(sub, "sensor_track", "Los Angeles", 0).value
    detection = rating(sub, "Victor III", "detection")
    needed = detection - sensor - (1 if sonar == "active" else 0)
    for rn in range(10):
        outcome = sensor_case(sub, tmp_path, rn, sonar=sonar)
        raised = rn >= needed
        assert str(outcome.result[0]) == ("raised" if raised else "no_change"), rn
        assert level(outcome, "Los Angeles on Victor III") == (2 if raised else 1)


def test_active_sonar_adds_one(sub: Checked, tmp_path: Path) -> None:
    term = [t for t in one(sensor_case(sub, tmp_path, 0, sonar="active"), "total").terms]
    assert [(t.value, t.rule) for t in term][1] == (1, "4.21")
    assert len(one(sensor_case(sub, tmp_path, 0), "total").terms) == 1


def test_contact_reduction_reaction_lowers_the_search(sub: Checked, tmp_path: Path) -> None:
    # [5.3] "Subtract the red number indicated on the card from the Sensor Value"
    outcome = sensor_case(sub, tmp_path, 9, duel={"victor": {"reduction": 2}})
    terms = one(outcome, "total").terms
    assert [(t.value, t.rule) for t in terms][-1] == (-2, "5.3")
    base = cell(sub, "sensor_track", "Los Angeles", 0).value
    assert one(outcome, "total").total == base - 2


def test_contact_never_passes_level_4(sub: Checked, tmp_path: Path) -> None:
    # [4.3] "A Contact marker cannot be advanced farther than Level 4"; "Sensor cards cannot
    # be played if all potential targets are at maximum contact levels."
    with pytest.raises(RuleViolation) as caught:
        sensor_case(sub, tmp_path, 9, duel={"la_on_victor": 4})
    assert caught.value.diagnostics[0].rule.text == "4.3"
    three = sensor_case(sub, tmp_path, 9, duel={"la_on_victor": 3})
    assert level(three, "Los Angeles on Victor III") == 4


def test_surface_ships_share_their_contact(sub: Checked, tmp_path: Path) -> None:
    # [4.4] "whenever a Surface Ship/Helicopter increases the contact it has on an opponent,
    # that new Contact Level is instantly enjoyed by all Surface Ships on its side"
    given = situation(
        tmp_path,
        ships=[
            vessel("Bowen", "Bowen", "NATO", "surface"),
            vessel("Arleigh Burke", "Arleigh Burke", "NATO", "surface"),
            vessel("Victor III", "Victor III", "SOVIET", "submarine"),
        ],
        contacts=[marker("Victor III", "NATO", at=1)],
    )
    outcome = resolve(
        sub,
        "sensor_detection",
        given=given,
        at=["searcher=Bowen", "target=Victor III", "sonar=active"],
        dice=[card(9)],
    )
    assert level(outcome, "NATO on Victor III") == 2
    by_name = {s.attrs["name"]: s for s in state(outcome)["ships"]}
    other = {"holder": by_name["Arleigh Burke"], "target": by_name["Victor III"]}
    assert outcome.interpreter.call("contact_level", other) == 2


def test_passive_sonar_answers_active_sonar(sub: Checked, tmp_path: Path) -> None:
    # [4.22] "any defending Ship may play a "Passive Sonar" card to increase its Contact Level
    # on the searching Ship"
    given = duel(tmp_path, victor_on_la=1)
    outcome = resolve(
        sub, "passive_sonar", given=given, at=["reactor=Victor III", "firer=Los Angeles"]
    )
    assert outcome.result is True and level(outcome, "Victor III on Los Angeles") == 2
    with pytest.raises(RuleViolation):  # a Ship does not answer its own side
        resolve(sub, "passive_sonar", given=given, at=["reactor=Bowen", "firer=Los Angeles"])


def test_sensor_detection_trace_udaloy_helicopter_10_31(sub: Checked, snapshot: Any) -> None:
    # [10.31] "The Udaloy has its one allowed Helicopter aloft. That Helicopter makes a Sensor
    # Check, and fails the resulting Helicopter Check by drawing a "1", and is discarded. The
    # Udaloy, which has not yet performed an action, may now launch another Helicopter".
    outcome = resolve(sub, "sensor_detection", given=UDALOY, dice=positions(card(7), card(1)))
    # The Helicopter searches with the value (2) on its card [10.2]: 7 + 2 = 9.
    assert one(outcome, "total", name="search_value").total == 2
    assert one(outcome, "value", name="total").value == 9
    raised = rating(sub, "Los Angeles", "detection") <= 9
    assert level(outcome, "SOVIET on Los Angeles") == (2 if raised else 1)
    # the Helicopter Check: RN 1 against the Udaloy's Duration Number
    assert rating(sub, "Udaloy", "helicopter_duration") > 1
    assert ship(outcome, "Udaloy")["helicopters"] == 0
    again = outcome.interpreter.call("launch_helicopter", {"ship": "Udaloy"})
    assert again == 1
    assert trace_text(outcome) == snapshot


def test_helicopter_search_needs_a_helicopter(sub: Checked, tmp_path: Path) -> None:
    with pytest.raises(RuleViolation):
        sensor_case(sub, tmp_path, 0, searcher="Bowen", helicopter="yes")


# ---- [9] System Malfunctions -------------------------------------------------------------------


def test_x_on_a_sensor_check_is_a_malfunction(sub: Checked, tmp_path: Path) -> None:
    # [9.1] the check fails, a -1 marker; [9.2] "All Contacts of the malfunctioning Ship are
    # reduced by one and no more Sensor checks may be attempted with that card."
    given = duel(tmp_path, la_on_victor=2)
    outcome = resolve(
        sub,
        "sensor_detection",
        given=given,
        at=["searcher=Los Angeles", "target=Victor III"],
        dice=[X],
    )
    assert [str(r) for r in outcome.result] == ["malfunction"]
    assert str(ship(outcome, "Los Angeles")["sensor_malfunction"]) == "-1"
    assert level(outcome, "Los Angeles on Victor III") == 1


def test_a_malfunction_ends_the_sensor_card(sub: Checked, tmp_path: Path) -> None:
    # [9.2] "no more Sensor checks may be attempted with that card": the second target of the
    # search is not checked after an X.
    given = situation(
        tmp_path,
        searcher="Bowen",
        target="Ivan Rogov",
        more_targets=["Skvortsov"],
        ships=[
            vessel("Bowen", "Bowen", "NATO", "surface"),
            vessel("Ivan Rogov", "Ivan Rogov", "SOVIET", "submarine"),
            vessel("Skvortsov", "Skvortsov", "SOVIET", "submarine"),
        ],
        contacts=[marker("Ivan Rogov", "NATO", at=1), marker("Skvortsov", "NATO", at=1)],
    )
    broken = resolve(sub, "sensor_detection", given=given, dice=[X])
    assert [str(r) for r in broken.result] == ["malfunction"]
    assert len(events(broken, "draw")) == 1
    # a lone Surface Ship: its (shared) contacts drop by one [9.2]
    assert level(broken, "NATO on Ivan Rogov") == 0 and level(broken, "NATO on Skvortsov") == 0
    both = resolve(sub, "sensor_detection", given=given, dice=positions(card(9), card(9) + 11))
    assert [str(r) for r in both.result] == ["raised", "raised"]
    assert level(both, "NATO on Skvortsov") == 2


def test_malfunction_markers_minus_one_minus_two_down(sub: Checked) -> None:
    # [9.3] -1, then -2, then "Down"
    table = sub.tables["worse_malfunction"]
    steps = ["working"]
    for _ in range(3):
        member = sub.vocab.read(steps[-1], table.dims[0].type)
        steps.append(str(unwrap(table.lookup([member])[0].value)))
    assert steps == ["working", "-1", "-2", "Down"]


@pytest.mark.parametrize(("marker_on", "penalty"), [("working", 0), ("-1", 1), ("-2", 2)])
def test_a_malfunction_lowers_the_system_value(
    sub: Checked, tmp_path: Path, marker_on: str, penalty: int
) -> None:
    # [9.1] "That ship must apply a -1 modifier to that system value"; [9.3] -2
    outcome = sensor_case(sub, tmp_path, 0, duel={"la": {"sensor_malfunction": marker_on}})
    printed = cell(sub, "sensor_track", "Los Angeles", 0).value
    assert one(outcome, "total", name="search_value").terms[0].value == printed - penalty


def test_down_sensor_cannot_search_and_the_ship_cannot_attack(sub: Checked, tmp_path: Path) -> None:
    # [9.3] "The affected Ship's System may not be used, nor may that Ship attack"
    with pytest.raises(RuleViolation):
        sensor_case(sub, tmp_path, 0, duel={"la": {"sensor_malfunction": "Down"}})
    given = duel(tmp_path, la_on_victor=3, la={"sensor_malfunction": "Down"})
    with pytest.raises(RuleViolation) as caught:
        resolve(
            sub,
            "weapon_lockon",
            given=given,
            at=["attacker=Los Angeles", "target=Victor III", "fire=2", "contact=1"],
        )
    assert caught.value.diagnostics[0].rule.text == "9.3"


def test_third_sensor_malfunction_drops_contacts_to_no_contact(
    sub: Checked, tmp_path: Path
) -> None:
    # [9.3] "in the case of a Down Sensor system, reduce all Contacts on its Contact Level
    # Track to No Contact" (read as the Ship's own contacts)
    given = duel(tmp_path, la_on_victor=3, la={"sensor_malfunction": "-2"})
    outcome = resolve(
        sub,
        "sensor_detection",
        given=given,
        at=["searcher=Los Angeles", "target=Victor III"],
        dice=[X],
    )
    assert str(ship(outcome, "Los Angeles")["sensor_malfunction"]) == "Down"
    assert level(outcome, "Los Angeles on Victor III") == 0


def test_surface_ship_keeps_its_contact_with_a_working_friend(sub: Checked, tmp_path: Path) -> None:
    # [9.2] EXCEPTION: another friendly Surface Ship without a Sensor malfunction in play
    ships = [
        vessel("Bowen", "Bowen", "NATO", "surface"),
        vessel("Arleigh Burke", "Arleigh Burke", "NATO", "surface"),
        vessel("Victor III", "Victor III", "SOVIET", "submarine"),
    ]
    contacts = [marker("Victor III", "NATO", at=2)]
    together = situation(tmp_path, ships=ships, contacts=contacts)
    args = ["searcher=Bowen", "target=Victor III"]
    kept = resolve(sub, "sensor_detection", given=together, at=args, dice=[X])
    assert level(kept, "NATO on Victor III") == 2
    ships[1]["sensor_malfunction"] = "-1"
    alone = situation(tmp_path, ships=ships, contacts=contacts)
    lowered = resolve(sub, "sensor_detection", given=alone, at=args, dice=[X])
    assert level(lowered, "NATO on Victor III") == 1


def repair_case(
    sub: Checked, tmp_path: Path, before: str, *dice: int, technician: bool = False
) -> Outcome:
    given = duel(tmp_path, la={"attack_malfunction": before})
    at = ["ship=Los Angeles", "system=attack_system", f"technician={'yes' if technician else 'no'}"]
    return resolve(sub, "repair", given=given, at=at, dice=list(dice))


@pytest.mark.parametrize("rn", range(10))
def test_repair_needs_rn_4_or_more(sub: Checked, tmp_path: Path, rn: int) -> None:
    # [9.4] "repaired to the next best step by ... drawing a RN >= 4"
    outcome = repair_case(sub, tmp_path, "-2", card(rn))
    assert str(outcome.result) == ("-1" if rn >= 4 else "-2")


def test_repair_x_reverts_to_down(sub: Checked, tmp_path: Path, snapshot: Any) -> None:
    # [9.4] "If any Repair attempt draws an "X" RN, the system reverts to "Down" status"
    outcome = repair_case(sub, tmp_path, "-1", X)
    assert str(outcome.result) == "Down"
    assert str(ship(outcome, "Los Angeles")["attack_malfunction"]) == "Down"
    assert trace_text(outcome) == snapshot


def test_down_takes_three_repairs(sub: Checked, tmp_path: Path) -> None:
    # [9.4] "A single Repair operation will not return a "Down" system to full operational
    # status—it would have to undergo three successful Repair attempts."
    state = "Down"
    for expected in ("-2", "-1", "working"):
        state = str(repair_case(sub, tmp_path, state, technician=True).result)
        assert state == expected


def test_repair_with_technician_draws_nothing(sub: Checked, tmp_path: Path) -> None:
    outcome = repair_case(sub, tmp_path, "-1", technician=True)
    assert str(outcome.result) == "working" and not events(outcome, "draw")
    with pytest.raises(RuleViolation):
        repair_case(sub, tmp_path, "working", card(9))


# ---- [6] Weapon Lockon, [7] Evasive Action ----------------------------------------------------


def test_john_rodgers_multiple_fire_cards_6_4(sub: Checked, snapshot: Any) -> None:
    # [6.4] "The total of the Contact values played is 3 which equals the Contact Level on the
    # Submarine. The strength of the attack prior to the RN draw is 6 (John Rodgers Attack
    # Value +2, Fire Value +2, Fire Value +2). ... This combined attack is resolved by drawing
    # one RN." Drawn here: RN 8 (card 9), then card 11 for the Hit result (ATTACK).
    outcome = resolve(sub, "weapon_lockon", given=JOHN_RODGERS, dice=positions(card(8), 11))
    assert level(outcome, "NATO on Victor III") == 3  # the Contact Level, unchanged
    strength = one(outcome, "total", name="attack_strength")
    assert strength.total == 6
    assert [(t.value, t.rule) for t in strength.terms] == [(4, "6.4"), (2, "6.5")]
    assert len(events(outcome, "draw")) == 2  # one RN, then the Hit result card
    defense = rating(sub, "Victor III", "defense")
    assert (defense <= 6 + 8) is (str(outcome.result) == "hit")
    assert ship(outcome, "Victor III")["attack_box"] == 1  # ATTACK: one box right
    assert ship(outcome, "Victor III")["damaged"] is True
    assert trace_text(outcome) == snapshot


def test_contact_values_may_not_exceed_the_contact_level(sub: Checked, tmp_path: Path) -> None:
    # [6.4] "if the Contact Level of the target equals or exceeds the sum of all the Contact
    # Values" — a third card of Contact value 1 makes 4 > 3.
    with pytest.raises(RuleViolation) as caught:
        resolve(sub, "weapon_lockon", given=JOHN_RODGERS, at=["fire=5", "contact=4", "cards=3"])
    assert caught.value.diagnostics[0].rule.text == "6.4"


def test_no_contact_may_not_be_attacked(sub: Checked, tmp_path: Path) -> None:
    # [6.1] "Targets whose current Contact Levels are "No Contact" ... may not be attacked."
    given = duel(tmp_path, la_on_victor=0)
    with pytest.raises(RuleViolation) as caught:
        resolve(
            sub,
            "weapon_lockon",
            given=given,
            at=["attacker=Los Angeles", "target=Victor III", "fire=1", "contact=0"],
        )
    assert caught.value.diagnostics[0].rule.text == "6.1"


def lockon(sub: Checked, given: str, rn: int, *at: str, hit: int | None = None) -> Outcome:
    cards = [card(rn)] if hit is None else [card(rn), hit]
    return resolve(sub, "weapon_lockon", given=given, at=list(at), dice=positions(*cards))


@pytest.mark.parametrize("rn", range(10))
def test_hit_when_strength_plus_rn_reaches_defense(sub: Checked, tmp_path: Path, rn: int) -> None:
    # [6.5] "If that total plus that of a RN is >= the target's Defense Value, the Ship has
    # been hit." Los Angeles (bottom value against a Submarine) with one card of Fire 2.
    given = duel(tmp_path, la_on_victor=2)
    attack = cell(sub, "attack_bottom", "Los Angeles", 0).value
    defense = rating(sub, "Victor III", "defense")
    outcome = lockon(
        sub,
        given,
        rn,
        "attacker=Los Angeles",
        "target=Victor III",
        "fire=2",
        "contact=2",
        hit=card(0) if card(0) != card(rn) else 12,
    )
    assert (str(outcome.result) == "hit") is (2 + attack + rn >= defense), rn


def test_evasive_action_subtracts_from_the_attack(sub: Checked, tmp_path: Path) -> None:
    # [7.1] "Subtract the number indicated on the card from the attacking Ship's/Helicopter's
    # Attack Value. One "Evasive Action" card may be used against each "Weapon Lockon" card"
    given = duel(tmp_path, la_on_victor=3)
    base = ["attacker=Los Angeles", "target=Victor III", "fire=2", "contact=1"]
    plain = lockon(sub, given, 0, *base)
    evaded = lockon(sub, given, 0, *base, "evasion=3", "sub_only_evasion=yes")
    first = one(plain, "total", name="attack_strength").total
    second = one(evaded, "total", name="attack_strength")
    assert second.total == first - 3
    assert (second.terms[-1].value, second.terms[-1].rule) == (-3, "7.1")
    with pytest.raises(RuleViolation) as caught:
        lockon(sub, given, 0, *base, "evasion=2", "evasion_cards=2")
    assert caught.value.diagnostics[0].rule.text == "7.1"
    # two Weapon Lockon cards may each be answered
    twice = lockon(
        sub, given, 0, *base[:2], "fire=4", "contact=2", "cards=2", "evasion=2", "evasion_cards=2"
    )
    assert one(twice, "total", name="attack_strength").total == first + 2 - 2


def test_sub_only_evasion_is_for_submarines(sub: Checked, tmp_path: Path) -> None:
    # [7.2] Sub Only Evasive Action cards: a Surface Ship cannot use them (Victor III attacks Bowen)
    given = duel(tmp_path)
    with pytest.raises(RuleViolation) as caught:
        lockon(
            sub,
            given,
            0,
            "attacker=Victor III",
            "target=Bowen",
            "fire=2",
            "contact=1",
            "evasion=1",
            "sub_only_evasion=yes",
        )
    assert caught.value.diagnostics[0].rule.text == "7.2"


def test_surface_ships_only_attack_submarines(sub: Checked, tmp_path: Path) -> None:
    # [6.2] the top value of a Surface Ship is its Helicopter count, not an attack
    given = situation(
        tmp_path,
        ships=[
            vessel("Bowen", "Bowen", "NATO", "surface"),
            vessel("Udaloy", "Udaloy", "SOVIET", "surface"),
        ],
        contacts=[marker("Udaloy", "NATO", at=2)],
    )
    with pytest.raises(RuleViolation) as caught:
        lockon(sub, given, 0, "attacker=Bowen", "target=Udaloy", "fire=2", "contact=1")
    assert caught.value.diagnostics[0].rule.text == "6.2"


def test_a_submarine_uses_its_top_value_against_surface_ships(sub: Checked, tmp_path: Path) -> None:
    # [6.2] "For Submarines, it [the top value] is used to resolve attacks against Surface Ships."
    given = duel(tmp_path)
    outcome = lockon(sub, given, 0, "attacker=Victor III", "target=Bowen", "fire=1", "contact=1")
    top = cell(sub, "attack_top", "Victor III", 0).value
    assert one(outcome, "total", name="attack_strength").terms[1].value == top


def test_x_on_an_attack_is_an_attack_malfunction(sub: Checked, tmp_path: Path) -> None:
    # [9.1] "the Attack ... fails and a circular Malfunction marker is placed"
    given = duel(tmp_path, la_on_victor=2)
    outcome = resolve(
        sub,
        "weapon_lockon",
        given=given,
        at=["attacker=Los Angeles", "target=Victor III", "fire=2", "contact=1"],
        dice=[X],
    )
    assert str(outcome.result) == "malfunction"
    assert str(ship(outcome, "Los Angeles")["attack_malfunction"]) == "-1"
    assert len(events(outcome, "draw")) == 1 and ship(outcome, "Victor III")["damaged"] is False


def test_passive_sonar_against_an_attacking_submarine(sub: Checked, tmp_path: Path) -> None:
    # [6.8] "all opposing Surface Ships/Helicopters increase their Contact Level by one on that
    # Submarine if a defending Surface Ship/Helicopter plays a "Passive Sonar" card"
    given = duel(tmp_path, nato_on_victor=1)
    args = ["reactor=Bowen", "firer=Victor III", "attack=yes"]
    outcome = resolve(sub, "passive_sonar", given=given, at=args)
    assert level(outcome, "NATO on Victor III") == 2
    # a Surface Ship's attack is not detected this way
    surface = resolve(
        sub, "passive_sonar", given=given, at=["reactor=Victor III", "firer=Bowen", "attack=yes"]
    )
    assert surface.result is False and level(surface, "Victor III on Bowen") == 1
    # [13.3] "The "swimmout" torpedoes of the Seawolf allow attacks without detection by
    # Passive Sonar (6.8)."
    seawolf = situation(
        tmp_path,
        ships=[
            vessel("Seawolf", "Seawolf", "SOVIET", "submarine"),
            vessel("Bowen", "Bowen", "NATO", "surface"),
        ],
        contacts=[marker("Bowen", "SOVIET", "Seawolf", 1), marker("Seawolf", "NATO", at=1)],
    )
    quiet = resolve(
        sub, "passive_sonar", given=seawolf, at=["reactor=Bowen", "firer=Seawolf", "attack=yes"]
    )
    assert quiet.result is False and level(quiet, "NATO on Seawolf") == 1


# The hit results, as [6.5] describes them: boxes moved on the Attack and Sensor tracks.
HITS = {
    "DUD": (0, 0),
    "ATTACK": (1, 0),
    "ATTACK x2": (2, 0),
    "SENSOR": (0, 1),
    "SENSOR x2": (0, 2),
    "ATTACK + SENSOR": (1, 1),
}


@pytest.mark.parametrize("result", list(HITS))
def test_hit_results_move_the_markers(sub: Checked, tmp_path: Path, result: str) -> None:
    victim = situation(
        tmp_path,
        target={"name": "Victor III", "class": "Victor III", "side": "SOVIET", "type": "submarine"},
    )
    hit = resolve(sub, "apply_hit", given=victim, at=[f"result={result}"])
    target = hit.args["target"].attrs
    assert (target["attack_box"], target["sensor_box"]) == HITS[result]
    # [6.5] "A hit result of "Dud" ... the target is not damaged"; [6.6] otherwise damaged
    assert target["damaged"] is (result != "DUD")
    assert target["sunk"] is False


def test_sunk_result_and_the_sunk_box(sub: Checked, tmp_path: Path) -> None:
    # [6.5] "Any target whose hit result is "Sunk", or whose "Attack" or "Sensor Value" marker
    # is moved into its "Sunk" box is removed from play."
    victim = {"name": "Victor III", "class": "Victor III", "side": "SOVIET", "type": "submarine"}
    sunk = resolve(sub, "apply_hit", given=situation(tmp_path, target=victim), at=["result=SUNK"])
    assert sunk.args["target"].attrs["sunk"] is True
    last = sub.book.consts["sunk_box"].value.value
    worn = situation(tmp_path, target={**victim, "sensor_box": last - 1})
    into = resolve(sub, "apply_hit", given=worn, at=["result=SENSOR"])
    assert into.args["target"].attrs["sunk"] is True


def test_damage_lowers_detection_and_defense_for_good(sub: Checked, tmp_path: Path) -> None:
    # [6.6] "its Detection and Defense values are both reduced by one thereafter regardless of
    # any subsequent Damage Control efforts"; [6.7] Damage Control moves a marker back one box.
    target = {"name": "Victor III", "class": "Victor III", "side": "SOVIET", "type": "submarine"}
    fresh = resolve(sub, "defense_value", given=situation(tmp_path, s=target)).result
    damaged = {**target, "damaged": True, "attack_box": 1}
    assert resolve(sub, "defense_value", given=situation(tmp_path, s=damaged)).result == fresh - 1
    seen = resolve(sub, "detection_value", given=situation(tmp_path, s=damaged)).result
    assert seen == rating(sub, "Victor III", "detection") - 1
    given = situation(
        tmp_path,
        ships=[
            vessel("Victor III", "Victor III", "SOVIET", "submarine", damaged=True, attack_box=1)
        ],
    )
    repaired = resolve(
        sub, "damage_control", given=given, at=["ship=Victor III", "system=attack_system"]
    )
    assert repaired.result == 0 and ship(repaired, "Victor III")["damaged"] is True
    with pytest.raises(RuleViolation):  # nothing left to repair on that track
        resolve(sub, "damage_control", given=given, at=["ship=Victor III", "system=sensor_system"])


def test_transport_damage_track(sub: Checked, tmp_path: Path) -> None:
    # [12.1] "the marker on the Damage Track of a Transport is moved one box to the right for
    # each "Attack" or "Sensor" hit result"
    transport = {"name": "Transport", "class": "Transport", "side": "NATO", "type": "transport"}
    one_box = resolve(
        sub, "apply_hit", given=situation(tmp_path, target=transport), at=["result=SENSOR"]
    )
    assert one_box.args["target"].attrs["damage_box"] == 1
    two = resolve(
        sub, "apply_hit", given=situation(tmp_path, target=transport), at=["result=ATTACK + SENSOR"]
    )
    assert two.args["target"].attrs["damage_box"] == 2
    assert two.args["target"].attrs["attack_box"] == 0
    assert two.args["target"].attrs["damaged"] is True  # [6.6]


# ---- [5] Contact Reduction, Playing Dead ---------------------------------------------------


@pytest.mark.parametrize("rn", range(10))
def test_contact_reduction_card(sub: Checked, tmp_path: Path, rn: int) -> None:
    # [5.2] "draw a RN >= the number listed on the card. If successful, all Contact markers on
    # that Ship's Contact Level Track are lowered by one"
    given = duel(tmp_path, la_on_victor=2, nato_on_victor=3)
    outcome = resolve(
        sub,
        "contact_reduction",
        given=given,
        at=["ship=Victor III", "card_number=5", "sub_only=yes"],
        dice=[card(rn)],
    )
    assert outcome.result is (rn >= 5)
    assert level(outcome, "Los Angeles on Victor III") == (1 if rn >= 5 else 2)
    assert level(outcome, "NATO on Victor III") == (2 if rn >= 5 else 3)
    assert level(outcome, "Victor III on Los Angeles") == 1  # the Victor's own contact stays


def test_one_contact_reduction_reaction_per_turn(sub: Checked, tmp_path: Path) -> None:
    # [5.3] "Only one "Contact Reduction" card can be played to assist each Ship during a single
    # opponent's turn."
    given = duel(tmp_path)
    first = resolve(
        sub, "contact_reduction_reaction", given=given, at=["ship=Victor III", "red_number=2"]
    )
    assert ship(first, "Victor III")["reduction"] == 2
    twice = duel(tmp_path, victor={"reduction": 2})
    with pytest.raises(RuleViolation):
        resolve(
            sub, "contact_reduction_reaction", given=twice, at=["ship=Victor III", "red_number=1"]
        )
    # [5.4] Sub Only cards
    with pytest.raises(RuleViolation):
        resolve(
            sub,
            "contact_reduction_reaction",
            given=given,
            at=["ship=Bowen", "red_number=1", "sub_only=yes"],
        )


def test_playing_dead(sub: Checked, tmp_path: Path) -> None:
    # [5.5] "This reduces all Contact Levels on that Submarine by one and allows it to draw one
    # RN in each subsequent turn. If the RN is >= 4 it reduces Contact by one level, or the Sub
    # may drop Systems Shutdown status"
    given = duel(tmp_path, la_on_victor=3, nato_on_victor=2)
    dead = resolve(sub, "play_dead", given=given, at=["sub=Victor III"])
    assert ship(dead, "Victor III")["shutdown"] is True
    assert level(dead, "Los Angeles on Victor III") == 2 and level(dead, "NATO on Victor III") == 1
    quiet = duel(tmp_path, la_on_victor=3, victor={"shutdown": True})
    low = resolve(sub, "shutdown_draw", given=quiet, at=["sub=Victor III"], dice=[card(3)])
    assert low.result is False and level(low, "Los Angeles on Victor III") == 3
    lower = resolve(sub, "shutdown_draw", given=quiet, at=["sub=Victor III"], dice=[card(4)])
    assert level(lower, "Los Angeles on Victor III") == 2
    up = resolve(
        sub,
        "shutdown_draw",
        given=quiet,
        at=["sub=Victor III"],
        dice=[card(4)],
        decide=["choice=drop_shutdown"],
    )
    assert (
        ship(up, "Victor III")["shutdown"] is False and level(up, "Los Angeles on Victor III") == 3
    )
    # "While in "Systems Shutdown" it may play no Black cards"
    with pytest.raises(RuleViolation):
        resolve(
            sub,
            "weapon_lockon",
            given=quiet,
            at=["attacker=Victor III", "target=Los Angeles", "fire=1", "contact=1"],
        )


# ---- [8] Close/Open Range ---------------------------------------------------------------------


def change_range(sub: Checked, given: str, *at: str) -> Outcome:
    """[8] A Close/Open Range play in the situation `given`, e.g. at "mover=Bowen", "move=open"."""
    return resolve(sub, "change_range", given=given, at=list(at))


def test_victor_close_range_negated_by_the_escort_12_3(sub: Checked, snapshot: Any) -> None:
    # [12.3] "The net result is that the Submarine increases contact on the Transport but the
    # contacts of the opposing escort and Submarine on each other remain unchanged."
    outcome = resolve(sub, "change_range", given=VICTOR_TRANSPORT)
    assert level(outcome, "Victor III on Transport") == 2
    assert level(outcome, "Victor III on Escort") == 1
    assert level(outcome, "NATO on Victor III") == 1
    assert outcome.result is False
    # [10.31] the escort played a C/OR card on its Surface Force: a Helicopter Check is due
    assert [d.member for d in state(outcome)["helicopter_check_due"]] == ["NATO"]
    assert trace_text(outcome) == snapshot


def test_submarine_closes_on_the_surface_force(sub: Checked, tmp_path: Path) -> None:
    # [8.4] "increases the Contact Level of the moving Submarine and all opposing Surface Ships"
    given = duel(tmp_path, victor_on_bowen=1, nato_on_victor=1)
    outcome = change_range(sub, given, "mover=Victor III", "move=close")
    assert level(outcome, "Victor III on Bowen") == 2
    assert level(outcome, "NATO on Victor III") == 2
    assert level(outcome, "Victor III on Los Angeles") == 1  # not the opposing Submarine
    opened = change_range(sub, given, "mover=Victor III", "move=open")
    assert level(opened, "Victor III on Bowen") == 0 and level(opened, "NATO on Victor III") == 0


def test_submarine_against_one_submarine(sub: Checked, tmp_path: Path) -> None:
    # [8.2] "If a Submarine plays a "C/OR" card against another Submarine, it affects the
    # Contact Levels of only those two Submarines."
    given = duel(tmp_path, la_on_victor=2, victor_on_la=3)
    outcome = change_range(sub, given, "mover=Los Angeles", "move=open", "opponent=Victor III")
    assert level(outcome, "Los Angeles on Victor III") == 1
    assert level(outcome, "Victor III on Los Angeles") == 2
    assert level(outcome, "NATO on Victor III") == 1 and level(outcome, "Victor III on Bowen") == 1


def test_surface_force_closes_on_one_submarine(sub: Checked, tmp_path: Path) -> None:
    # [8.4] "If a Surface Force plays a "Close Range" card, the Contact level of the Surface
    # Force and one opposing Submarine of its choice is increased one level"
    given = duel(tmp_path, nato_on_victor=2, victor_on_bowen=1)
    outcome = change_range(sub, given, "mover=Bowen", "move=close", "opponent=Victor III")
    assert level(outcome, "NATO on Victor III") == 3
    assert level(outcome, "Victor III on Bowen") == 2
    assert [d.member for d in state(outcome)["helicopter_check_due"]] == ["NATO"]


def test_close_range_needs_a_contact(sub: Checked, tmp_path: Path) -> None:
    # [8.1] "it cannot be played unless the moving vessel has established a minimum Contact
    # Level (anything above "No Contact") on an opposing Ship that is the object of that play"
    given = duel(tmp_path, la_on_victor=0)
    with pytest.raises(RuleViolation) as caught:
        change_range(sub, given, "mover=Los Angeles", "move=close", "opponent=Victor III")
    assert caught.value.diagnostics[0].rule.text == "8.1"


def test_contacts_stay_between_no_contact_and_four(sub: Checked, tmp_path: Path) -> None:
    # [4.3] never above Level 4, never below "No Contact"
    given = duel(tmp_path, la_on_victor=4, victor_on_la=1)
    outcome = change_range(sub, given, "mover=Los Angeles", "move=close", "opponent=Victor III")
    assert level(outcome, "Los Angeles on Victor III") == 4
    given = duel(tmp_path, la_on_victor=1, victor_on_la=0)
    opened = change_range(sub, given, "mover=Los Angeles", "move=open", "opponent=Victor III")
    assert (
        level(opened, "Los Angeles on Victor III") == 0
        and level(opened, "Victor III on Los Angeles") == 0
    )


# ---- [10] Helicopters -------------------------------------------------------------------------


def carrier(tmp_path: Path, **extra: Any) -> str:
    ships = [
        vessel("Udaloy", "Udaloy", "SOVIET", "surface", **extra.pop("udaloy", {})),
        vessel("Los Angeles", "Los Angeles", "NATO", "submarine"),
    ]
    contacts = [marker("Los Angeles", "SOVIET", at=extra.pop("soviet_on_la", 2))]
    return situation(tmp_path, ships=ships, contacts=contacts, **extra)


def test_launch_up_to_the_top_attack_value(sub: Checked, tmp_path: Path) -> None:
    # [10.1] "The number in the top-left triangular half of the Ship's current Attack Value
    # status indicates the maximum number of "Helicopter" cards that Ship may have in play."
    capacity = cell(sub, "attack_top", "Udaloy", 0).value
    full = carrier(tmp_path, udaloy={"helicopters": capacity})
    with pytest.raises(RuleViolation) as caught:
        resolve(sub, "launch_helicopter", given=full, at=["ship=Udaloy"])
    assert caught.value.diagnostics[0].rule.text == "10.1"
    room = carrier(tmp_path, udaloy={"helicopters": capacity - 1})
    assert resolve(sub, "launch_helicopter", given=room, at=["ship=Udaloy"]).result == capacity
    with pytest.raises(RuleViolation):  # [10.32] not in bad weather
        resolve(
            sub, "launch_helicopter", given=carrier(tmp_path, bad_weather=True), at=["ship=Udaloy"]
        )
    with pytest.raises(RuleViolation):  # no Helicopter symbol on a Submarine
        resolve(sub, "launch_helicopter", given=carrier(tmp_path), at=["ship=Los Angeles"])


@pytest.mark.parametrize("rn", range(10))
def test_helicopter_check(sub: Checked, tmp_path: Path, rn: int) -> None:
    # [10.3] "If the RN drawn is >= the Helicopter Duration Number, that Helicopter may stay
    # aloft. Otherwise, it is discarded."
    duration = rating(sub, "Udaloy", "helicopter_duration")
    given = situation(
        tmp_path,
        s={
            "name": "Udaloy",
            "class": "Udaloy",
            "side": "SOVIET",
            "type": "surface",
            "helicopters": 1,
        },
    )
    outcome = resolve(sub, "helicopter_check", given=given, dice=[card(rn)])
    assert outcome.result is (rn >= duration)
    assert outcome.args["s"].attrs["helicopters"] == (1 if rn >= duration else 0)


def test_x_in_a_helicopter_check_is_bad_weather(sub: Checked, tmp_path: Path) -> None:
    # [10.32] "Whenever an "X" RN is drawn during a Helicopter Check, bad weather grounds all
    # Helicopters. Discard all airborne Helicopters."
    due = situation(
        tmp_path,
        ships=[
            vessel("Udaloy", "Udaloy", "SOVIET", "surface", helicopters=1),
            vessel("Moskva", "Moskva", "SOVIET", "surface", helicopters=2),
        ],
        helicopter_check_due=["SOVIET"],
    )
    outcome = resolve(
        sub, "end_of_player_turn", given=due, at=["player=SOVIET", "check_weather=no"], dice=[X]
    )
    assert state(outcome)["bad_weather"] is True
    assert (
        ship(outcome, "Udaloy")["helicopters"] == 0 and ship(outcome, "Moskva")["helicopters"] == 0
    )
    assert len(events(outcome, "draw")) == 1  # no Helicopter is left to check


@pytest.mark.parametrize(("rn", "clears"), [(3, False), (4, True), (9, True)])
def test_weather_check(sub: Checked, tmp_path: Path, rn: int, clears: bool) -> None:
    # [10.32] "If he draws a RN >= 4 the weather clears"
    outcome = resolve(sub, "weather_check", at=["player=NATO", "bad_weather=yes"], dice=[card(rn)])
    assert outcome.result is clears and state(outcome)["bad_weather"] is (not clears)
    x = resolve(sub, "weather_check", at=["player=NATO", "bad_weather=yes"], dice=[X])
    assert x.result is False  # X reads 0 [9.5]


def test_end_of_turn_checks_only_when_due(sub: Checked, tmp_path: Path) -> None:
    # [10.31] a check for each Helicopter in play at the end of the turn, only when a Helicopter
    # RN was drawn or a C/OR was played on the Surface Force; reactions end with the turn [5.3]
    given = situation(
        tmp_path,
        ships=[vessel("Moskva", "Moskva", "SOVIET", "surface", helicopters=2, reduction=1)],
    )
    quiet = resolve(sub, "end_of_player_turn", given=given, at=["player=SOVIET"])
    assert not events(quiet, "draw") and ship(quiet, "Moskva")["reduction"] == 0
    flagged = situation(
        tmp_path,
        ships=[vessel("Moskva", "Moskva", "SOVIET", "surface", helicopters=2)],
        helicopter_check_due=["SOVIET"],
    )
    due = resolve(
        sub,
        "end_of_player_turn",
        given=flagged,
        at=["player=SOVIET"],
        dice=positions(card(9), card(0)),
    )
    assert len(events(due, "draw")) == 2  # one check per Helicopter
    assert ship(due, "Moskva")["helicopters"] == 1  # RN 0 fails against the Duration Number
    assert state(due)["helicopter_check_due"] == ()


def test_helicopter_attack_uses_value_2_and_is_checked(sub: Checked, tmp_path: Path) -> None:
    # [13.2] "Those Helicopters have an Attack Value of "2" regardless of the damage status of
    # their carrier"; [10.3] a Helicopter Check after the attack.
    given = situation(
        tmp_path,
        ships=[
            vessel("Moskva", "Moskva", "SOVIET", "surface", helicopters=1, attack_box=2),
            vessel("Los Angeles", "Los Angeles", "NATO", "submarine"),
        ],
        contacts=[marker("Los Angeles", "SOVIET", at=2)],
    )
    outcome = resolve(
        sub,
        "weapon_lockon",
        given=given,
        at=["attacker=Moskva", "target=Los Angeles", "fire=1", "contact=1", "helicopter=yes"],
        dice=positions(card(0), card(9)),
    )
    strength = one(outcome, "total", name="attack_strength")
    assert [(t.value, t.rule) for t in strength.terms] == [(1, "6.4"), (2, "6.5")]
    assert strength.total == 3
    assert one(outcome, "call", procedure="helicopter_check")
    with pytest.raises(RuleViolation):  # the Moskva itself has no attack value (-) [13.2]
        resolve(
            sub,
            "weapon_lockon",
            given=given,
            at=["attacker=Moskva", "target=Los Angeles", "fire=1", "contact=1"],
            dice=[card(0)],
        )


def test_orphans_and_lost_capacity(sub: Checked, tmp_path: Path) -> None:
    # [10.4] "any already airborne Helicopter whose Ship is sunk/exitted is removed from play";
    # a Ship whose Helicopter number drops below its Helicopters in the air removes the excess.
    moskva = {
        "name": "Moskva",
        "class": "Moskva",
        "side": "SOVIET",
        "type": "surface",
        "helicopters": 2,
    }
    sunk = resolve(sub, "apply_hit", given=situation(tmp_path, target=moskva), at=["result=SUNK"])
    assert sunk.args["target"].attrs["helicopters"] == 0
    hit = resolve(
        sub, "apply_hit", given=situation(tmp_path, target=moskva), at=["result=ATTACK x2"]
    )
    capacity = cell(sub, "attack_top", "Moskva", 2).value
    assert hit.args["target"].attrs["helicopters"] == min(2, capacity)


# ---- [11] Reinforcements ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("deck", "rn", "enters"),
    [(1, 4, False), (1, 5, True), (2, 3, False), (2, 4, True), (3, 3, True), (6, 0, True)],
)
def test_reinforcement_needs_modified_rn_6(sub: Checked, deck: int, rn: int, enters: bool) -> None:
    # [11.1] "draws a modified RN >= 6. The RN drawn is added to the number of the current deck."
    outcome = resolve(
        sub,
        "reinforcement_entry",
        given=CONVOY,
        at=["ship=John Rodgers", f"deck_number={deck}"],
        dice=[card(rn)],
    )
    assert one(outcome, "value", name="modified").value == rn + deck
    assert outcome.result is enters
    assert ship(outcome, "John Rodgers")["in_play"] is enters


def test_reinforcement_entry_trace(sub: Checked, snapshot: Any) -> None:
    outcome = resolve(
        sub,
        "reinforcement_entry",
        given=CONVOY,
        at=["ship=Yenisey", "deck_number=2"],
        dice=[card(4)],
    )
    assert outcome.result is True and ship(outcome, "Yenisey")["entered_deck"] == 2
    assert trace_text(outcome) == snapshot


def test_reinforcements_enter_in_order(sub: Checked) -> None:
    # [11.1] "the second listed reinforcement may never enter before the first listed
    # reinforcement arrives"
    with pytest.raises(RuleViolation) as caught:
        resolve(sub, "reinforcement_entry", given=CONVOY, at=["ship=Los Angeles"], dice=[card(9)])
    assert caught.value.diagnostics[0].rule.text == "11.1"
    with pytest.raises(RuleViolation):
        resolve(sub, "reinforcement_entry", given=CONVOY, at=["ship=Sura"], dice=[card(9)])
    with pytest.raises(RuleViolation):  # already in play
        resolve(sub, "reinforcement_entry", given=CONVOY, at=["ship=Bowen"], dice=[card(9)])


def test_reinforcement_x_reads_zero(sub: Checked) -> None:
    outcome = resolve(
        sub,
        "reinforcement_entry",
        given=CONVOY,
        at=["ship=John Rodgers", "deck_number=6"],
        dice=[X],
    )
    assert one(outcome, "value", name="modified").value == 6 and outcome.result is True


# ---- [13M] Convoy Screen ---------------------------------------------------------------------

FORCES = {
    # [13M] as printed: (side, 0 = at start / n = Reinforcement n)
    "Arleigh Burke": ("NATO", 0),
    "Bowen": ("NATO", 0),
    "John Rodgers": ("NATO", 1),
    "Los Angeles": ("NATO", 2),
    "Ivan Rogov": ("SOVIET", 0),
    "Skvortsov": ("SOVIET", 0),
    "Yenisey": ("SOVIET", 1),
    "Grif": ("SOVIET", 2),
    "Sura": ("SOVIET", 3),
}


def test_convoy_screen_forces(sub: Checked) -> None:
    table = sub.tables["convoy_screen"]
    for name, (side, entry) in FORCES.items():
        force = unwrap(cell(sub, "convoy_screen", name).value)
        assert (str(force.get("side")), force.get("entry")) == (side, entry), name
    assert len(list(table.iter_cells())) == len(FORCES)


def test_convoy_screen_example_file_matches_the_scenario(sub: Checked) -> None:
    outcome = resolve(sub, "convoy_screen_setup", given=CONVOY)
    assert outcome.result == 9
    ships = {s.attrs["name"]: s.attrs for s in state(outcome)["ships"]}
    for name, (side, entry) in FORCES.items():
        assert (str(ships[name]["side"]), ships[name]["reinforcement"]) == (side, entry)
        assert ships[name]["in_play"] is (entry == 0)


def exits(sub: Checked, tmp_path: Path, deck: int, entered: int) -> Outcome:
    given = situation(
        tmp_path,
        ships=[vessel("Yenisey", "Yenisey", "SOVIET", "submarine", entered_deck=entered)],
        deck_number=deck,
    )
    return resolve(sub, "may_attempt_exit", given=given, at=["sub=Yenisey"])


@pytest.mark.parametrize(
    ("deck", "entered", "may"),
    [(1, 0, False), (2, 0, True), (2, 1, False), (3, 1, True), (3, 2, False), (4, 2, True)],
)
def test_no_exit_before_one_entire_deck(
    sub: Checked, tmp_path: Path, deck: int, entered: int, may: bool
) -> None:
    # [13M] "No Soviet Sub may attempt to exit before it has spent at least one entire deck
    # in play."
    assert exits(sub, tmp_path, deck, entered).result is may


def score_case(tmp_path: Path, sunk: list[str], exited: list[str], **extra: Any) -> str:
    ships = []
    for name, (side, entry) in FORCES.items():
        kind = "submarine" if side == "SOVIET" or name == "Los Angeles" else "surface"
        ships.append(
            vessel(
                name,
                name,
                side,
                kind,
                reinforcement=entry,
                in_play=extra.get("all_in", entry == 0),
                sunk=name in sunk,
                exited=name in exited,
            )
        )
    return situation(tmp_path, ships=ships)


def test_soviets_win_with_five(sub: Checked, tmp_path: Path, snapshot: Any) -> None:
    # [13M] "The Soviets win by scoring any combination of five sunken NATO ships and/or exited
    # Soviet Subs (13.5)."
    five = score_case(
        tmp_path,
        ["Arleigh Burke", "Bowen", "John Rodgers"],
        ["Ivan Rogov", "Skvortsov"],
        all_in=True,
    )
    won = resolve(sub, "convoy_screen_victory", given=five)
    assert one(won, "value", name="score").value == 5 and str(won.result) == "SOVIET"
    assert trace_text(won) == snapshot
    four = score_case(
        tmp_path, ["Arleigh Burke", "Bowen"], ["Ivan Rogov", "Skvortsov"], all_in=True
    )
    assert resolve(sub, "convoy_screen_victory", given=four).result is None
    # "NATO wins by avoiding the Soviet Victory Conditions."
    assert (
        str(resolve(sub, "convoy_screen_victory", given=four, at=["game_over=yes"]).result)
        == "NATO"
    )
    # Sunken Soviet ships and exited NATO ships do not score.
    other = score_case(
        tmp_path, ["Ivan Rogov", "Skvortsov", "Yenisey", "Grif", "Sura"], [], all_in=True
    )
    assert one(resolve(sub, "convoy_screen_victory", given=other), "value", name="score").value == 0


def test_scenario_ends_when_a_side_is_sunk_before_its_reinforcements(
    sub: Checked, tmp_path: Path
) -> None:
    # [11.3] "If all Ships of a side are sunk before its reinforcements enter play, the
    # scenario ends."
    given = score_case(tmp_path, ["Arleigh Burke", "Bowen"], [])
    assert resolve(sub, "scenario_ended", given=given).result is True
    assert str(resolve(sub, "convoy_screen_victory", given=given).result) == "NATO"
    assert (
        resolve(sub, "scenario_ended", given=score_case(tmp_path, ["Arleigh Burke"], [])).result
        is False
    )


def test_an_exit_is_refused_before_a_whole_deck(sub: Checked, tmp_path: Path) -> None:
    given = situation(
        tmp_path, ships=[vessel("Ivan Rogov", "Ivan Rogov", "SOVIET", "submarine")], deck_number=1
    )
    with pytest.raises(RuleViolation) as caught:
        resolve(sub, "exit_submarine", given=given, at=["sub=Ivan Rogov"])
    assert caught.value.diagnostics[0].rule.text == "13M"
    later = situation(
        tmp_path, ships=[vessel("Ivan Rogov", "Ivan Rogov", "SOVIET", "submarine")], deck_number=2
    )
    assert (
        ship(resolve(sub, "exit_submarine", given=later, at=["sub=Ivan Rogov"]), "Ivan Rogov")[
            "exited"
        ]
        is True
    )


def test_entities_are_game_pieces(sub: Checked) -> None:
    outcome = resolve(sub, "convoy_screen_setup", given=CONVOY)
    assert all(isinstance(s, Entity) for s in state(outcome)["ships"])
    assert len(state(outcome)["contacts"]) == 30  # 5 + 5 NATO markers, 5 x 4 Soviet ones
