"""Provenance value by value (issue 16): printed, derived from a worked example, provisional.

The values asserted printed are the ones the source texts print in their worked examples,
quoted beside each test.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from conftest import RULEBOOKS, cli_json, run_cli

from rulekit.book.checker import Checked, load
from rulekit.book.provenance import DERIVED, PRINTED, PROVISIONAL, _leaves, survey, totals
from rulekit.language import nodes as n


def _row(checked: Checked, table: str, key: str) -> list[n.TableItem]:
    decl = checked.book.tables[table]
    for line in decl.lines:
        first = line.items[0].value
        if isinstance(first, n.CellText) and first.text.strip('"') == key:
            return list(line.items)
    raise AssertionError(f"{table} has no row {key}")


def _statuses(cell: n.Cell | None) -> list[tuple[str, str]]:
    """Each element of a record cell: (its status, its reason)."""
    assert isinstance(cell, n.CellTuple), cell
    out = []
    for item in cell.items:
        leaves = list(_leaves(item, PRINTED, ""))
        statuses = {status for status, _, _ in leaves}
        out.append((statuses.pop() if len(statuses) == 1 else "mixed", leaves[0][2]))
    return out


def test_gato_card_values_the_examples_print_are_not_provisional(gato: Checked) -> None:
    # Columns: number, type, speed, VP, XP, Surface attack, Submerged attack, Ram, Detection.
    # "Tyoko Maru's Surface attack rating is 1 Light Hit"
    tyoko = _statuses(_row(gato, "merchant_cards", "Tyoko Maru")[1].value)
    assert tyoko[5][0] == PRINTED and tyoko[2][0] == PROVISIONAL
    # "Nomi's submerged attack rating is 2 Heavy Hits"; "It must roll a 5 to Detect me"
    nomi_cell = _row(gato, "escort_cards", "Nomi")[1].value
    nomi = _statuses(nomi_cell)
    assert nomi[6][0] == PRINTED and nomi[8][0] == "mixed"
    assert isinstance(nomi_cell, n.CellTuple)
    detection = nomi_cell.items[8]
    assert isinstance(detection, n.CellTuple)
    assert [s for s, _, _ in _leaves(detection, PRINTED, "")] == [PROVISIONAL, PRINTED]
    # "CH-30's Surface attack rating is 2 Light Hits"
    assert _statuses(_row(gato, "escort_cards", "CH-30")[1].value)[5][0] == PRINTED
    # "the attack on Aoba sinks the cruiser ... you score 2 Victory Points and earn 2 XP"
    aoba = _statuses(_row(gato, "naval_cards", "Aoba")[1].value)
    assert aoba[3][0] == aoba[4][0] == PRINTED and aoba[2][0] == PROVISIONAL


def test_the_veteran_uss_gato_card_is_in_the_data(gato: Checked) -> None:
    # "Gato has a Torpedo Skill of +2", "Gato has a Gunnery Skill of +1", "Gato's Evasion
    # rating (4)": printed; the rest of the card is not.
    row = _row(gato, "submarine_cards", "Gato")
    veteran = next(i for i in row[1:] if isinstance(i.key, n.CellText) and i.key.text == "Veteran")
    fields = [f.split(":")[0].strip() for f in _record_fields(gato, "card_side")]
    statuses = dict(zip(fields, _statuses(veteran.value), strict=True))
    assert {k for k, (s, _) in statuses.items() if s == PRINTED} == {"gs", "ts", "ev"}
    table = gato.tables["submarine_cards"]
    boat = gato.vocab.enum_value("boat", "Gato")
    skill = gato.vocab.enum_value("skill", "Veteran")
    card = dict(table.lookup([boat, skill])[0].value.fields)
    assert (card["gs"], card["ts"], card["ev"]) == (1, 2, 4)


def _record_fields(checked: Checked, record: str) -> list[str]:
    return [f.name for f in checked.book.records[record].fields]


def test_event_cards_after_1942_are_provisional_with_their_reason(gato: Checked) -> None:
    # "The card might be divided into two sections showing the event during different years."
    table = gato.tables["event_card_year"]
    assert not table.lookup([1942])[0].provisional
    later = table.lookup([1944])[0]
    assert later.provisional and later.value == 1942
    marks = [m for e in survey(gato.book) if e.name == "event_card_year" for m in e.marks]
    assert [m.reason for m in marks] == [
        "cards can differ by year: only the 1942 effects are printed (in the examples)"
    ]


def test_attack_sub_unprinted_hit_results_are_provisional() -> None:
    book = load(str(RULEBOOKS / "attack_sub"))
    entry = next(e for e in survey(book.book) if e.name == "hit_boxes")
    assert entry.provisional == 4 and entry.printed == 10
    assert {m.reason for m in entry.marks} == {
        "ATTACK x2 is not printed",
        "ATTACK + SENSOR is not printed",
    }
    hit = book.vocab.enum_value("hit_result", "SENSOR x2")
    assert not book.tables["hit_boxes"].lookup([hit])[0].provisional


SMALL = """rulebook "Small"
dice d6 = 1..6
const printed_bonus = 2 [1.0]
const example_bonus = 3 [1.1] derived "the example of [1.1]"
const guessed_bonus = 4 [1.2] provisional "not printed"
table hits [2.0]: roll d6 -> int
    1-2 | 0
    3-4 | ~"a guess" 1
    5-6 | ~2
table ranks [3.0]: rank: int -> int
    derived "the example of [3.0]"
    1 | 10
    2 | 20
"""


def test_derived_values_are_counted_apart_from_printed_and_provisional(
    make_rulebook: Callable[..., Path],
) -> None:
    root = make_rulebook(SMALL)
    checked = load(str(root))
    entries = {e.name: e for e in survey(checked.book)}
    assert (entries["hits"].printed, entries["hits"].provisional) == (1, 2)  # keys are not values
    assert [m.reason for m in entries["hits"].marks] == [
        "a guess",
        "not printed in the source (marked ~)",
    ]
    assert entries["ranks"].derived == 2 and entries["ranks"].cite == "the example of [3.0]"
    assert entries["example_bonus"].derived == 1 and entries["guessed_bonus"].provisional == 1
    assert totals(list(entries.values())) == {PRINTED: 2, DERIVED: 3, PROVISIONAL: 3}
    # a derived value is the publisher's: it is not counted as provisional
    assert checked.provisional_count == 3
    assert run_cli("fmt", root, "--check").exit_code == 0


def test_check_provenance_and_json(make_rulebook: Callable[..., Path]) -> None:
    root = make_rulebook(SMALL)
    shown = run_cli("check", root, "--provenance")
    assert shown.exit_code == 0, shown.output
    assert "8 values: 2 printed (25%), 3 derived from worked examples (38%), 3 provisional" in (
        shown.output
    )
    data = cli_json("check", root)["provenance"]
    assert data["totals"] == {"printed": 2, "derived": 3, "provisional": 3}
    each = data["provisional_each"]
    assert [(m["line"], m["reason"]) for m in each if m["what"].startswith("table")] == [
        (8, "a guess"),
        (9, "not printed in the source (marked ~)"),
    ]
    assert all(m["file"].endswith("rulebook.rk") for m in each)


def test_a_cell_derived_from_an_example_and_a_reason_for_every_mark(
    make_rulebook: Callable[..., Path],
) -> None:
    root = make_rulebook(
        """rulebook "Cells"
dice d6 = 1..6
record rating = attack: int, defense: int
table boats [1.0]: name: text -> rating
    marked "the counters are not in the rules"
    Alpha | derived "the example of [1.1]" 6 | ~3
    Beta  | ~5 | ~"a reason of its own" 2
"""
    )
    checked = load(str(root))
    entry = next(e for e in survey(checked.book) if e.name == "boats")
    assert (entry.printed, entry.derived, entry.provisional) == (0, 1, 3)
    assert entry.cite == "the example of [1.1]"
    assert [m.reason for m in entry.marks] == [
        "the counters are not in the rules",
        "the counters are not in the rules",
        "a reason of its own",
    ]
    # the derived value is read as any other
    from rulekit.api import load as api_load

    alpha = api_load(str(root)).lookup("boats", at={"name": "Alpha"})
    assert alpha.printed == {"attack": 6, "defense": 3}
    # the formatter keeps the marks: once formatted, the table reads the same
    assert run_cli("fmt", root).exit_code == 0
    assert run_cli("fmt", root, "--check").exit_code == 0
    again = next(e for e in survey(load(str(root)).book) if e.name == "boats")
    assert (again.derived, again.provisional) == (1, 3)
    assert [m.reason for m in again.marks] == [m.reason for m in entry.marks]


def test_silent_war_values_printed_derived_or_marked(silent_war: Checked) -> None:
    def leaves(table: str, key: str) -> list[tuple[str, str]]:
        return [
            (status, why)
            for item in _row(silent_war, table, key)[1:]
            for status, _, why in _leaves(item.value, PRINTED, "")
        ]

    # [14.15] "USS Spearfish (6-3-4)": attack, defense, tactical derived; the rest invented
    spear = leaves("sub_roster", "Spearfish")
    assert [s for s, _ in spear] == [PROVISIONAL] * 4 + [DERIVED] * 3 + [PROVISIONAL] * 2
    # "Tautog Tambor 72,606" (Designer's Notes): a class the text prints; Sargo's it does not
    assert leaves("sub_roster", "Tautog")[0][0] == PRINTED
    assert leaves("sub_roster", "Sargo")[0][0] == PROVISIONAL
    # the [14.15] example's 2-0 and 1-0 cargo ships come without tonnage: category guessed
    small = leaves("counter_types", "M 1-3t")
    assert small[2][0] == PROVISIONAL and "tonnage" in small[2][1]
    # "one revealed 7-1 destroyer": a DD's defense and ASW derived
    assert [s for s, _ in leaves("counter_types", "DD")[2:4]] == [DERIVED, DERIVED]
    # [3.13] "BV Ise 36t": a battleship-carrier, 36 thousand tons printed
    from rulekit.api import load as api_load

    ise = api_load(str(RULEBOOKS / "silent_war")).lookup("named_ships", at={"number": 3})
    assert ise.printed["name"] == "Ise" and ise.printed["category"] == "BV"
    bv = leaves("counter_types", "BV")
    assert bv[0] == (PRINTED, "") and bv[1][0] == PRINTED  # type BV, tonnage 36
    # the map: Coral Sea - Solomons printed ([12.1] example), other links invented
    coral = dict(
        zip(["Solomons", "Bismarck Sea", "Banda Sea"], leaves("routes", "Coral Sea"), strict=True)
    )
    assert coral["Solomons"][0] == PRINTED and coral["Bismarck Sea"][0] == PROVISIONAL
    # [14.2] example: the East China Sea is not shallow (derived); narrow is invented
    assert [s for s, _ in leaves("area_features", "East China Sea")] == [PROVISIONAL, DERIVED]


def test_the_docs_provenance_table_is_what_check_counts() -> None:
    readme = (RULEBOOKS.parent / "docs" / "rulebooks.md").read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| `(\w+)` \| (\d+) \| (\d+) \(\d+%\) \| (\d+) \(\d+%\) \| (\d+) ", readme, re.M
    )
    assert len(rows) == 5
    for name, whole, printed, derived, provisional in rows:
        sums = totals(survey(load(str(RULEBOOKS / name)).book))
        assert (sums[PRINTED], sums[DERIVED], sums[PROVISIONAL]) == (
            int(printed),
            int(derived),
            int(provisional),
        ), name
        assert sum(sums.values()) == int(whole)
