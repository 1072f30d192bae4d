"""Gato Leader tables and modifier lists: values transcribed from the rules, one modifier at a time.

The look-up tests compare with values transcribed here from the rules text; cells that the
rules do not print must be marked provisional, and the printed ones must not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tracing import one

from rulekit.book.checker import Checked
from rulekit.engine.session import resolve
from rulekit.engine.values import unwrap


def cell(gato: Checked, name: str, *keys: Any) -> Any:
    """The cell of a table at the given keys (text keys read as the dimension's type)."""
    table = gato.tables[name]
    values = [
        gato.vocab.read(key, dim.type) if isinstance(key, str) else key
        for dim, key in zip(table.dims, keys, strict=True)
    ]
    return table.lookup(values)[0]


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "given.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


# ---- printed tables ---------------------------------------------------------------------------

# [§Torpedo Reloads] "Skill Rating / Number of Torpedoes that can be moved from Stored to Ready:
# Green 0 Torpedoes, Trained 1 Torpedo, Veteran 2 Torpedoes, Ace 3 Torpedoes"
RELOAD = {"Green": 0, "Trained": 1, "Veteran": 2, "Ace": 3}


@pytest.mark.parametrize(("skill", "torpedoes"), list(RELOAD.items()))
def test_torpedo_reload_table(gato: Checked, skill: str, torpedoes: int) -> None:
    found = cell(gato, "torpedo_reload", skill)
    assert found.value == torpedoes and not found.provisional


# [§Escort Movement (Against Undetected Submarines)] "If the die roll is 1-3 ... Counter-Clockwise
# ... 4-7 ... does not move ... 8-10 ... Clockwise"
ESCORT_PATROL = {
    **dict.fromkeys(range(1, 4), "Counter-Clockwise"),
    **dict.fromkeys(range(4, 8), "does not move"),
    **dict.fromkeys(range(8, 11), "Clockwise"),
}


@pytest.mark.parametrize(("roll", "move"), list(ESCORT_PATROL.items()))
def test_escort_patrol_table(gato: Checked, roll: int, move: str) -> None:
    assert cell(gato, "escort_patrol", roll).printed == move


# [§Lag Movement] same or higher Speed: no move; 1, 2, 3 lower: 1, 2, 3 Areas.
@pytest.mark.parametrize(("slower", "areas"), [(-2, 0), (-1, 0), (0, 0), (1, 1), (2, 2), (3, 3)])
def test_lag_drift_table(gato: Checked, slower: int, areas: int) -> None:
    assert cell(gato, "lag_drift", slower).value == areas


def test_lag_drift_has_no_line_past_3(gato: Checked) -> None:
    from rulekit.book.tables import LookupMiss

    with pytest.raises(LookupMiss):
        cell(gato, "lag_drift", 4)


# [§Patrol Limits] "(1, 2, or 4)"; [§Random Submarine Selection] "gain 2, 4, or 8 SO Points for
# Short, Medium, or Long Campaigns."
@pytest.mark.parametrize(
    ("length", "patrols", "bonus"), [("Short", 1, 2), ("Medium", 2, 4), ("Long", 4, 8)]
)
def test_campaign_length_tables(gato: Checked, length: str, patrols: int, bonus: int) -> None:
    assert cell(gato, "patrol_limit", length).value == patrols
    assert cell(gato, "random_selection_bonus", length).value == bonus


@pytest.mark.parametrize(
    ("campaign", "first", "last"),
    [
        ("Holding the Line", 1942, 1942),
        ("Against the Sun", 1942, 1942),
        ("Turning the Tide", 1943, 1943),
        ("Setting Sun", 1944, 1945),
    ],
)
def test_campaign_years(gato: Checked, campaign: str, first: int, last: int) -> None:
    years = cell(gato, "campaign_years", campaign).value
    assert (years.get("first"), years.get("last")) == (first, last)


# SO costs the rules' examples print; every other cell of the roster is provisional.
PRINTED_SO_COSTS = {
    ("Tautog", "Trained"): 6,
    ("Silversides", "Trained"): 8,
    ("Drum", "Trained"): 8,
    ("Permit", "Ace"): 10,
    ("Salmon", "Trained"): 6,
    ("Stingray", "Trained"): 6,
    ("Gudgeon", "Trained"): 6,
    ("Tautog", "Veteran"): 10,
}


def test_submarine_so_costs(gato: Checked) -> None:
    table = gato.tables["submarine_so_cost"]
    for keys, found in table.iter_cells():
        printed = (keys[0].printed, keys[1].printed)
        if printed in PRINTED_SO_COSTS:
            assert found.value == PRINTED_SO_COSTS[printed] and not found.provisional, printed
        else:
            assert found.provisional, printed
    assert table.cells == 12 * 4


def test_campaign_so_points(gato: Checked) -> None:
    printed = {("Against the Sun", "Medium"): 35, ("Holding the Line", "Medium"): 33}
    for keys, found in gato.tables["campaign_so_points"].iter_cells():
        key = (keys[0].printed, keys[1].printed)
        assert found.provisional is (key not in printed), key
        if key in printed:
            assert found.value == printed[key]


def test_special_option_costs(gato: Checked) -> None:
    # "Each alternate Torpedo costs 1/2 an SO point"; "spend 2 SO points on a Torpedo
    # Modification" (Holding the Line).
    from fractions import Fraction

    assert cell(gato, "special_option_cost", "Alternate Torpedo").value == Fraction(1, 2)
    modification = cell(gato, "special_option_cost", "Torpedo Modification")
    assert modification.value == 2 and not modification.provisional
    assert cell(gato, "special_option_cost", "Radar Option").provisional


def test_holding_the_line_removes_convoy_cards_47_and_48(gato: Checked) -> None:
    found = cell(gato, "removed_convoy_cards", "Holding the Line")
    assert list(found.value) == [47, 48] and not found.provisional
    assert cell(gato, "removed_convoy_cards", "Setting Sun").provisional


def test_contact_table_prints_only_the_solomon_islands_6(gato: Checked) -> None:
    table = gato.tables["contact_table"]
    for keys, found in table.iter_cells():
        printed = (keys[0].printed, keys[1].printed) == ("Solomon Islands", "6")
        assert found.provisional is not printed
    assert cell(gato, "contact_table", "Solomon Islands", 6).value == 1


def test_mine_box_9_torpedoes_3_vp_is_the_printed_cell(gato: Checked) -> None:
    for keys, found in gato.tables["mine_box_vp"].iter_cells():
        assert found.provisional is (keys[0].printed != "9")
    assert cell(gato, "mine_box_vp", 9).value == 3


def test_enemy_aircraft_9_is_a_light_hit(gato: Checked) -> None:
    found = cell(gato, "enemy_aircraft_event", 9)
    assert found.printed == "Light" and not found.provisional


# "Marianas ... 1 Event card", "Bonins ... 1", "Empire Waters ... 3", Solomon Islands 1, Java Sea
# 1, South China Sea 2 ("drawing 2 Event cards").
MOVING = {
    "Solomon Islands": 1,
    "Java Sea": 1,
    "South China Sea": 2,
    "Marianas": 1,
    "Bonins": 1,
    "Empire Waters": 3,
}


@pytest.mark.parametrize(("area", "cards"), list(MOVING.items()))
def test_moving_event_cards(gato: Checked, area: str, cards: int) -> None:
    assert cell(gato, "area_event_cards", area).value.get("moving") == cards


def test_special_attack_box_in_the_solomon_islands(gato: Checked) -> None:
    # "You draw three Event cards"; "draws 2 Naval cards"
    found = cell(gato, "special_attack_box", "Solomon Islands")
    assert (found.value.get("events"), found.value.get("naval_cards")) == (3, 2)
    assert not found.provisional


def test_convoy_card_37(gato: Checked) -> None:
    # "Contact card 37, with two Escorts and four Merchants"; "a Merchant Contact"
    card = cell(gato, "convoy_cards", 37).value
    assert (str(card.get("contact")), card.get("escorts"), card.get("ships")) == (
        "Merchant",
        2,
        4,
    )


# [§Adjacent Areas] as printed.
ADJACENT = {
    "Long Range": ["Long Range"] * 2 + ["Medium Range"] * 2,
    "Medium Range": ["Medium Range"] * 2 + ["Long Range"] * 2 + ["Short Range"] * 2,
    "Short Range": ["Convoy Area"] * 2 + ["Short Range"] * 2 + ["Medium Range"] * 2,
    "Convoy Area": ["Convoy Area"] * 2 + ["Short Range"] * 2,
}


@pytest.mark.parametrize(("zone", "adjacent"), list(ADJACENT.items()))
def test_adjacent_areas(gato: Checked, zone: str, adjacent: list[str]) -> None:
    assert [str(z) for z in cell(gato, "adjacent_areas", zone).value] == adjacent


def test_damage_counters_without_a_hit_counter(gato: Checked) -> None:
    # "one Flooding Temporary Damage hit"; "one Hull Lasting Damage hit"
    flooding = cell(gato, "damage_counter", "Flooding").value
    hull = cell(gato, "damage_counter", "Hull").value
    assert flooding.get("lasting") is False and hull.get("lasting") is True


def test_unprinted_charts_are_provisional(gato: Checked) -> None:
    for name in (
        "hit_counters",
        "event_deck_copies",
        "fleet_escort_cards",
        "victory_level",
        "port_refit",
        "special_option_limit",
        "wolfpack_limit",
    ):
        assert all(c.provisional for _, c in gato.tables[name].iter_cells()), name
    reasons = {p.what for p in gato.provisional}
    for const in (
        "hit_counter_mix",
        "convoy_deck_cards",
        "merchant_deck_cards",
        "tactics_counter_mix",
    ):
        assert f"const {const}" in reasons


# ---- modifier lists: each modifier on and off ---------------------------------------------------

SUB = """name = "USS Gudgeon"
boat = "Gudgeon"
skill = "Trained"
area = "Java Sea"
"""

CONTACT_MODIFIERS = [
    # (game state lines, extra lines for the Submarine, --at, change of the roll)
    ('intel_area = "Java Sea"\n', "", [], +2),
    ('intel_area = "Marianas"\n', "", [], 0),
    ('ultra_counters = ["Java Sea"]\n', "", [], +1),
    ('ultra_counters = ["Java Sea", "Java Sea", "Marianas"]\n', "", [], +2),
    ("", 'abilities = ["Searcher"]\n', [], +1),
    ("", 'abilities = ["Radar"]\n', [], +1),
    ("", "radar_option = true\n", [], +1),
    ('campaign = "Setting Sun"\n', "", [], +1),  # "all Submarines are equipped with Radar"
    (
        "",
        'abilities = ["Radar"]\n[[sub.damage]]\neffect = "Electronics"\namount = 1\n'
        "lasting = false\n",
        [],
        0,
    ),
    ('warning_counters = ["Java Sea"]\n', "", [], -2),
    ('warning_counters = ["Java Sea", "Java Sea"]\n', "", [], -4),
    ("", "moved = true\n", [], -3),
    ("", "", ["event_drm=1"], +1),
    ("", "", ["event_drm=-2"], -2),
    (
        '[[squadron]]\nname = "USS Drum"\nskill = "Trained"\narea = "Java Sea"\nwolfpack = true\n',
        "wolfpack = true\n",
        [],
        +2,
    ),
]


@pytest.mark.parametrize(("game", "sub", "at", "change"), CONTACT_MODIFIERS)
def test_contact_determination_modifiers(
    gato: Checked, tmp_path: Path, game: str, sub: str, at: list[str], change: int
) -> None:
    # [§Contact Determination Modifiers] "+2 if there is an Intel counter in the Campaign Map
    # Area. +1 for each Ultra counter in the Campaign Map Area. +1 if the Submarine has the
    # Searcher Special Ability. +1 if the Submarine has the Radar Special Ability. +1 for each
    # Submarine in a Wolfpack. -2 for each Submarine Warning counter in the Campaign Map Area.
    # -3 if the Submarine moved during the Operations Segment. +X for any modifiers on Event
    # cards."
    rule = "§CONTACT PHASE"
    base = resolve(gato, "contact_phase", given=write(tmp_path, "[sub]\n" + SUB), dice=[5])
    # TOML: top-level keys first, then the [sub] table (array tables of the squadron last)
    squadron = game if game.startswith("[[") else ""
    top = "" if squadron else game
    given = write(tmp_path, top + "[sub]\n" + SUB + sub + squadron)
    varied = resolve(gato, "contact_phase", given=given, at=at, dice=[5])
    assert one(varied, "roll", rule=rule).total - one(base, "roll", rule=rule).total == change


ESCORT = '[escort]\nname = "Nomi"\nrole = "E"\ncard = "Nomi"\nrange = 0\n'


@pytest.mark.parametrize(
    ("game", "escort", "dice", "change"),
    [
        ("alerted = 1\n", "", [1], +1),
        ("alerted = 2\n", "", [1], +2),
        ("", "light_damage = true\n", [1], -1),
        ("", "heavy_damage = true\n", [1], -2),
        # "+ X from Tactics counter for 1944 and 1945": a +2 counter drawn from the cup
        ('campaign = "Setting Sun"\ntactics_cup_ready = true\ntactics_cup = [2]\n', "", [1, 1], +2),
        (
            'campaign = "Turning the Tide"\ntactics_cup_ready = true\ntactics_cup = [2]\n',
            "",
            [1],
            0,
        ),
    ],
)
def test_escort_detection_modifiers(
    gato: Checked, tmp_path: Path, game: str, escort: str, dice: list[int], change: int
) -> None:
    # [§Escort Detection Modifiers] "+1 to the Detection die roll for each Alerted counter. -1 if
    # an Escort has a Light Damage counter on it. -2 if an Escort has a Heavy Damage counter on
    # it. + X from Tactics counter for 1944 and 1945."
    sub = "[sub]\n" + SUB + "surfaced = true\n"
    base = resolve(gato, "escort_detection", given=write(tmp_path, ESCORT + sub), dice=[1])
    varied = resolve(
        gato, "escort_detection", given=write(tmp_path, game + ESCORT + escort + sub), dice=dice
    )
    rule = "§Escort Detection"
    assert one(varied, "roll", rule=rule).total - one(base, "roll", rule=rule).total == change


TARGET = '[target]\nname = "Tyoko Maru"\nrole = "M"\ncard = "Tyoko Maru"\n'


@pytest.mark.parametrize(
    ("sub", "target", "change"),
    [
        ("", "range = 1\n", -3),
        ("", "range = 2\n", -6),
        ("gs = 2\n", "range = 0\n", +2),
        ("gs = -1\n", "range = 0\n", -1),
        ("", "range = 0\nheavy_damage = true\n", +1),
    ],
)
def test_gun_attack_modifiers(
    gato: Checked, tmp_path: Path, sub: str, target: str, change: int
) -> None:
    # [§Gun Attack Modifiers] "-3 Per Range; +/- The Submarine's GS (Gunnery Skill) modifier;
    # +1 if the target has a Heavy Damage counter."
    base_sub = "[sub]\n" + SUB + "gs = 0\nsurfaced = true\n"
    base = resolve(
        gato, "gun_attack", given=write(tmp_path, base_sub + TARGET + "range = 0\n"), dice=[5]
    )
    given = write(tmp_path, base_sub.replace("gs = 0\n", sub or "gs = 0\n") + TARGET + target)
    varied = resolve(gato, "gun_attack", given=given, dice=[5])
    rule = "§Gun Hit Numbers"
    assert one(varied, "roll", rule=rule).total - one(base, "roll", rule=rule).total == change


@pytest.mark.parametrize(
    ("at", "change"),
    [
        (["target_range=1"], -1),
        (["target_range=3"], -3),
        (["skill=2"], +2),
        (["heavy_damage=yes"], +1),
        (["torpedo=mk10"], -2),
        (["torpedo=mk27"], +2),
    ],
)
def test_torpedo_attack_modifiers(gato: Checked, at: list[str], change: int) -> None:
    # [§Torpedo Attack Modifiers] "-1 Per Range ... +/- Submarine's TS (Torpedo Skill) modifier.
    # +1 if the target has a Heavy Damage counter. - 2 if the torpedo is a Mk 10 torpedo. +2 if
    # the torpedo is a Mk 27 torpedo" (one torpedo, 1944: no spread bonus, all run)
    base_at = ["fired=1", "year=1944", "skill=0", "target_range=0"]
    dice = [10, 5]
    base = resolve(gato, "torpedo_spread", at=base_at, dice=dice)
    names = {a.split("=")[0] for a in at}
    varied_at = [a for a in base_at if a.split("=")[0] not in names] + at
    special = "torpedo" in names  # alternate torpedoes do not roll on the Dud table
    varied = resolve(gato, "torpedo_spread", at=varied_at, dice=dice[1:] if special else dice)
    assert unwrap(varied.result) - unwrap(base.result) == change


@pytest.mark.parametrize(
    ("at", "total"),
    [
        (["evasion=0"], 0),
        (["evasion=1"], 0),
        (["evasion=2"], -1),
        (["evasion=3"], -1),
        (["evasion=4"], -2),
        (
            ["evasion=4", "from_event=yes"],
            0,
        ),  # "this modifier does not apply to hits from Event cards"
        (["evasion=0", "light_damage=yes"], -1),
        (["evasion=0", "tactics=1"], +1),
    ],
)
def test_light_hit_attack_modifiers(gato: Checked, at: list[str], total: int) -> None:
    # [§Attack Resolution] "-1 Light Hit for every 2 Submarine Evasion rating (round down) ...
    # -1 Light Hit if an Enemy Ship has a Light Damage counter on it. ... + X Light Hit from
    # Tactics counter in 1944 or later."
    assert resolve(gato, "light_hit_modifiers", at=at).result == total


@pytest.mark.parametrize(
    ("at", "total"),
    [
        (["surfaced=yes", "zero_range=yes"], +1),
        (["surfaced=yes", "zero_range=no"], 0),
        (["surfaced=no", "zero_range=yes"], 0),
        (["surfaced=no", "zero_range=no", "heavy_damage=yes"], -1),
    ],
)
def test_heavy_hit_attack_modifiers(gato: Checked, at: list[str], total: int) -> None:
    # "+1 Heavy Hit if an Enemy Ship is attacking a Surfaced Submarine at zero range. ... -1
    # Heavy Hit if an Enemy Ship has a Heavy Damage counter on it."
    assert resolve(gato, "heavy_hit_modifiers", at=at).result == total


@pytest.mark.parametrize(
    ("number", "type_", "evasion", "zero_range", "heavy_damage", "hits"),
    [
        (2, "Light", 0, False, False, ["Light", "Light"]),  # an unmodified attack keeps its type
        (1, "Heavy", 2, False, False, ["Light"]),  # 1 Heavy = 2 Light, less 1 Light
        (1, "Light", 4, False, False, []),
        (2, "Light", 0, False, True, []),  # -1 Heavy Hit = -2 Light Hits
        (2, "Heavy", 2, True, False, ["Heavy", "Heavy", "Light"]),  # 3 Heavy less 1 Light
        (2, "Heavy", 5, True, False, ["Heavy", "Heavy"]),  # 3 Heavy less 2 Light
    ],
)
def test_attack_number_in_heavy_and_light_hits(
    gato: Checked,
    number: int,
    type_: str,
    evasion: int,
    zero_range: bool,
    heavy_damage: bool,
    hits: list[str],
) -> None:
    # "When modifying the attack number and type, 1 Heavy Hit is equal to 2 Light Hits."
    yes = {True: "yes", False: "no"}
    outcome = resolve(
        gato,
        "attack_hits",
        at=[
            f"number={number}",
            f"type={type_}",
            f"evasion={evasion}",
            "surfaced=yes",
            f"zero_range={yes[zero_range]}",
            f"heavy_damage={yes[heavy_damage]}",
        ],
    )
    assert [str(h) for h in outcome.result] == hits
