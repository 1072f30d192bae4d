"""`rulekit render`: chart cards built from the data, in HTML and Markdown.

Expected words and numbers are the printed ones, read from the rulebook sources (and there
from the rule texts), not copied from rendered output.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.aids.cards import build_deck, rule_key
from rulekit.aids.modlinks import modifier_links
from rulekit.aids.render import render_text
from rulekit.book.checker import Checked, load
from tests.conftest import RULEBOOKS, run_cli

BOOKS = ["silent_war", "steel_wolves_like", "gato_leader", "eots_submarine_warfare", "attack_sub"]


def _card(html: str, anchor: str) -> str:
    """The HTML of one card."""
    start = html.index(f'id="{anchor}"')
    end = html.index("</section>", start)
    return html[start:end]


@pytest.mark.parametrize("fmt", ["html", "markdown"])
@pytest.mark.parametrize("book", BOOKS)
def test_every_table_of_every_rulebook_is_rendered(book: str, fmt: str, tmp_path: Path) -> None:
    result = run_cli("render", RULEBOOKS / book, "--format", fmt, "-o", tmp_path)
    assert result.exit_code == 0, result.stderr
    [page] = list(tmp_path.iterdir())
    text = page.read_text(encoding="utf-8")
    checked = load(str(RULEBOOKS / book))
    assert f"{len(checked.tables)} chart card(s)" in result.stdout
    for name, table in checked.book.tables.items():
        assert f'id="t-{name}"' in text
        if table.ref is not None:
            assert f"[{table.ref.text}]" in text or f"\\[{table.ref.text}\\]" in text
    if fmt == "html":  # self-contained: nothing fetched, nothing run
        assert not re.search(r"https?://|<script|<link|@import|url\(", text)


def test_ranges_and_cells_as_printed(steel_wolves: Checked) -> None:
    html = render_text(build_deck(steel_wolves, ["A1"]), "html")
    # [A1] prints "1 or less", "2-4", "5 or more" and its results in these words
    for words in ("1 or less", "2-4", "5 or more", "Successful Crash Dive (no air attack)"):
        assert f">{words}<" in html
    # the roll adds the box beside the chart, by its title, not the rulebook's code
    assert "Roll 2d6 + Die Roll Modifiers" in html and "aircraft_drm()" not in html


def test_grid_keeps_the_sources_header_blocks(steel_wolves: Checked) -> None:
    # [E1] prints two blocks of five areas each, each under its own header line
    html = render_text(build_deck(steel_wolves, ["encounter_chart"]), "html")
    heads = re.findall(r"<thead><tr>(.*?)</tr></thead>", html)
    assert len(heads) == 2
    assert ">Transit<" in heads[0] and ">Java Sea<" in heads[0]
    assert ">Marianas<" in heads[1] and ">Solomons<" in heads[1]
    assert ">2d6<" in heads[0]  # the corner names the dice, not the language's word "roll"


def test_modifier_box_lines_value_words_and_rule(steel_wolves: Checked) -> None:
    html = render_text(build_deck(steel_wolves, ["A1"]), "html")
    box = html[html.index('class="modbox"') :]
    # from [A1]'s Die Roll Modifiers: "-1 Green Crew", "+1 Elite Crew", "-1 1943"
    assert re.search(r'<td class="v">-1</td><td>Green Crew</td>', box)
    assert re.search(r'<td class="v">\+1</td><td>Elite Crew</td>', box)
    assert re.search(r'<td class="v">-1</td><td>1943</td>', box)
    assert "added to the table&#39;s own roll" in box


def test_modifier_lines_keep_their_own_rule(silent_war: Checked) -> None:
    html = render_text(build_deck(silent_war, ["counterattack_table"]), "html")
    assert "[14.2 C] Counterattack die roll modifiers" in html or "[14.2 C]" in html
    assert re.search(r"<td>each damage marker</td><td class=\"r\">\[14.2 C1\]</td>", html)
    assert "the roll that Counterattack Round [14.2] makes" in html  # its title, not its code


def test_which_modifiers_go_beside_which_table(make_rulebook: Callable[..., Path]) -> None:
    root = make_rulebook(
        """rulebook "T"
dice d6 = 1..6
state bad: bool = false
modifiers own_drm [1.1]
    -1 if bad [1.1] "bad"
modifiers call_drm [2.0]
    +1 if bad [2.0] "worse"
modifiers let_drm [3.0]
    +2 if bad [3.0] "worst"
modifiers same_rule [4.1]
    +1 if bad [4.1] "listed under 4.1"
modifiers other_part [4.1 B]
    +1 if bad [4.1 B] "listed under 4.1 B"
table t1 [1.1]: roll d6 + own_drm() -> int
    1-6 | 1
table t2 [2.0]: roll d6 -> int
    ..6 | 2
table t3 [3.5]: roll d6 -> int
    ..6 | 3
table t4 [4.1]: roll d6 -> int
    ..6 | 4
procedure p2 -> int [2.1]
    return t2(roll: roll d6 + call_drm())
procedure p3 -> int [3.1]
    let r = roll d6 - let_drm()
    return t3(roll: r)
"""
    )
    links = modifier_links(load(str(root)).book)
    assert [(lk.modifiers, lk.how) for lk in links["t1"]] == [
        ("own_drm", "added to the table's own roll")
    ]
    assert [lk.modifiers for lk in links["t2"]] == ["call_drm"]
    assert "procedure p2 [2.1]" in links["t2"][0].how
    assert [lk.modifiers for lk in links["t3"]] == ["let_drm"]
    # [2.0] call_drm is not put beside t2 a second time for sharing its rule number
    assert [lk.modifiers for lk in links["t4"]] == ["same_rule"]  # not [4.1 B]


def test_provisional_cells_hatched_with_the_reason_from_the_data(silent_war: Checked) -> None:
    html = render_text(build_deck(silent_war, ["counterattack_table"]), "html")
    decl = silent_war.book.tables["counterattack_table"]
    assert decl.provenance is not None
    assert decl.provenance.reason in html  # the reason the .rk file gives, as a footnote
    assert '<ol class="footnotes">' in html
    card = _card(html, "t-counterattack_table")
    assert card.count('<td class="prov">') == silent_war.tables["counterattack_table"].cells


def test_only_marked_cells_are_provisional(steel_wolves: Checked) -> None:
    # [S3]: only the "-1 or less" Deck Gun box (written ~2) is not printed
    html = render_text(build_deck(steel_wolves, ["attack_damage"]), "html")
    card = _card(html, "t-attack_damage")
    assert card.count('class="prov"') == 1
    assert re.search(r'<td class="prov">2<sup class="fn">1</sup></td>', card)
    assert "marked ~ in the data, steel_wolves_like/attack.rk" in card


def test_a_cell_naming_another_chart_links_to_it(steel_wolves: Checked) -> None:
    html = render_text(build_deck(steel_wolves), "html")
    card = _card(html, "t-aircraft_encounter")
    assert '<a href="#t-escort_air_attack_chart">[E3]</a>' in card
    assert 'id="t-escort_air_attack_chart"' in html


def test_a_follow_up_roll_links_to_its_chart(silent_war: Checked) -> None:
    html = render_text(build_deck(silent_war), "html")
    card = _card(html, "t-combat_events")
    assert re.search(r'Torpedo Malfunction ⇒ <a href="#t-torpedo_malfunction">', card)


def test_footer_names_rulebook_edition_options_and_variant(tmp_path: Path) -> None:
    result = run_cli("render", f"{RULEBOOKS / 'silent_war'}@1.1", "-o", tmp_path)
    assert result.exit_code == 0, result.stderr
    [page] = list(tmp_path.iterdir())
    footer = re.search(r"<footer>(.*?)</footer>", page.read_text(encoding="utf-8"), re.S)
    assert footer is not None
    text = footer.group(1)
    # editions/1.1.rk: edition "1.1", "use option original_engagement"
    assert "Silent War, edition 1.1" in text
    assert "options: original_engagement" in text
    assert "variant: " in text and "variant: none" not in text


def test_index_is_by_rule_number() -> None:
    rules = ["14.2", "A1", "7.1", "2.1", "14.16 D", "§Hits", "E10", "E2", "2.3 A"]
    assert sorted(rules, key=rule_key) == [
        "2.1",
        "2.3 A",
        "7.1",
        "14.2",
        "14.16 D",
        "A1",
        "E2",
        "E10",
        "§Hits",
    ]


def test_table_option_selects_by_name_or_rule(tmp_path: Path) -> None:
    result = run_cli(
        "render", RULEBOOKS / "silent_war", "--table", "7.1", "--table", "attack_results",
        "-o", tmp_path, "--format", "markdown",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "2 chart card(s)" in result.stdout
    text = next(tmp_path.iterdir()).read_text(encoding="utf-8")
    assert "## [7.1] ULTRA Table" in text and "## [14.16 D] Attack Results Table" in text


def test_table_option_whole_rule_first_then_rule_number(silent_war: Checked) -> None:
    from rulekit.aids.cards import select

    assert select(silent_war, ["14.2"]) == ["counterattack_table"]  # not [14.2 A3] too
    assert select(silent_war, ["14.2 A3"]) == ["general_asw"]
    assert sorted(select(silent_war, ["19.21 #2", "ultra"])) == ["torpedo_malfunction", "ultra"]


def test_unknown_table_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    result = run_cli("render", RULEBOOKS / "silent_war", "--table", "ultr", "-o", tmp_path)
    assert result.exit_code == 1
    assert "no table named or numbered 'ultr'" in result.stderr
    assert "did you mean 'ultra'" in result.stderr
    assert run_cli("render", RULEBOOKS / "silent_war", "--format", "docx").exit_code == 2


@pytest.mark.parametrize("book", BOOKS)
def test_markdown_tables_are_well_formed(book: str) -> None:
    """Every GitHub table has as many cells in each row as its header has."""
    text = render_text(build_deck(load(str(RULEBOOKS / book))), "markdown")
    tables = 0
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not re.fullmatch(r"\|(---\|)+", line):
            continue
        tables += 1
        width = line.count("---")
        j = i - 1  # the header line, then the body up to a line that is not a row
        while j <= i or (j < len(lines) and lines[j].startswith("|")):
            if j != i:
                cells = re.split(r"(?<!\\)\|", lines[j].strip())[1:-1]
                assert len(cells) == width, (book, lines[j])
            j += 1
    assert tables >= len(load(str(RULEBOOKS / book)).tables)


def test_markdown_cell_text_is_escaped(steel_wolves: Checked) -> None:
    text = render_text(build_deck(steel_wolves, ["encounter_chart"]), "markdown")
    assert "| **2** | Aircraft | Aircraft | Minefield | Aircraft | Warship |" in text
    assert r"Two Ships+Escort\*" in text  # a printed "*" stays a star, not emphasis


def test_open_ranges_read_as_a_chart_prints_them(silent_war: Checked) -> None:
    # combat.rk writes the Attack Results bands as `..0: No Effect | 1-4: Damaged | 5..: Sunk`
    md = render_text(build_deck(silent_war, ["attack_results"]), "markdown")
    assert "| **1-4** | 0 or less: No Effect" in md
    assert "5 or more: Sunk" in md
    assert "..0" not in md and "5.." not in md


def test_open_range_words() -> None:
    from rulekit.aids.cards import open_range

    assert open_range("..1") == "1 or less"
    assert open_range("-5..") == "-5 or more"
    assert open_range("..1942") == "1942 or earlier"
    assert open_range("1943..") == "1943 or later"
    assert open_range("2-4") == "2-4"


def test_a_card_longer_than_a_page_is_printed_across_pages(silent_war: Checked) -> None:
    # Silent War's roster of the whole submarine force (256 boats) cannot be kept on one
    # page: it is marked `paged` (the print breaks it between rows, headers repeated); the
    # Area Activity Charts (22 OpAreas x 4 War Periods) still fit one page
    deck = build_deck(silent_war)
    paged = {c.name for c in deck.cards if c.paged}
    assert {"sub_roster", "reinforcement_list"} <= paged
    assert "area_activity" not in paged and "attack_results" not in paged
    html = render_text(deck, "html")
    assert re.search(r'<section class="card[^"]* paged" id="t-sub_roster"', html)
    assert ".card.paged thead { display: table-header-group; }" in html


def test_no_tuple_or_code_on_gato_leaders_cards() -> None:
    # issue 35: ship cards printed an attack as a tuple, the Torpedo Dud table its results as
    # identifiers, and the boxes beside charts named procedures by their code
    from tests.conftest import RULEBOOKS

    html = render_text(build_deck(load(str(RULEBOOKS / "gato_leader"))), "html")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "(1, Light)" not in text
    assert "Tyoko Maru 56 · type freighter" in text and "surface attack 1 · type Light" in text
    assert "all_miss" not in text and "all miss All torpedoes automatically miss" in text
    assert "contact_phase" not in text and "procedure " not in text
    assert "added to the roll that Contact Phase [§CONTACT PHASE] makes" in text
