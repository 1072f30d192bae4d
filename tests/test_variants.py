"""Variants and optional rules as data, Silent War 1.1, and `rulekit diff`."""

from __future__ import annotations

import importlib.util
import json
import tomllib
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from conftest import RULEBOOKS, run_cli

from rulekit.analysis.diff import compare
from rulekit.analysis.prob import ask, exact
from rulekit.book.checker import Checked, load
from rulekit.book.tables import Cell, Key, Node
from rulekit.engine.dice import ForcedDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.values import show
from rulekit.errors import RulebookInvalid

SW = str(RULEBOOKS / "silent_war")

BASE = """rulebook "Base" edition "1"
dice d6 = 1..6
rounding up [1.0]

enum side = red blue

const bonus = 1 [2.0]
state score: int = 0

table hit [3.0] "Hit Table": roll 2d6 + hit_drm() -> text
    ..6 | Miss
    7-9 | Hit
    10.. | Sunk

table grid [3.1]: side x roll d6 -> int
    side | 1-2 | 3-4 | 5-6
    red  | 1   | 2   | 3
    blue | 4   | 5   | 6

modifiers hit_drm [3.2] "Hit modifiers"
    +bonus if score > 0 [3.2 A] "veteran"
    -1 if score > 5 [3.2 B] "tired"

procedure shoot -> text [3.0]
    return hit()

procedure half(x: int) -> int [1.0]
    return rounded(x / 2)

procedure first_phase [4.1]
    score += 1

procedure second_phase [4.2]
    score += 10

procedure third_phase [4.3]
    score += 100

sequence turn [4.0]
    phase first_phase [4.1]
    phase second_phase [4.2]
    phase third_phase [4.3]

option hard [9.0] "Hard mode"
    set const bonus = 0 [9.0]
"""


@pytest.fixture
def base(make_rulebook: Callable[..., Path]) -> Path:
    return make_rulebook(BASE)


def variant(base: Path, body: str, name: str = "v", extends: str = "..") -> str:
    folder = base / "editions"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.rk"
    path.write_text(f'variant "V {name}" extends "{extends}" edition "{name}"\n\n{body}')
    return str(path)


def run_turn(book: Checked) -> int:
    interp = Interpreter(book, ForcedDice([]))
    interp.run_sequence()
    return int(interp.state.values["score"])


# ---- each kind of change ------------------------------------------------------------------


def test_no_changes_is_the_base(base: Path) -> None:
    book = load(variant(base, ""))
    assert book.book.edition == "v" and book.book.variants == ["V v"]
    assert compare(load(str(base)), book) == []


def test_replace_table_and_set_cells(base: Path) -> None:
    path = variant(
        base,
        'replace table hit [5.0] "New Hit Table": roll 2d6 + hit_drm() -> text\n'
        "    ..7 | Miss\n    8.. | Hit\n"
        "set cell grid(red, 1-2) [5.1] = 10\n"
        "set row grid(blue) [5.2] = 40 | 50 | 60\n",
    )
    book = load(path)
    assert book.tables["hit"].decl.title == "New Hit Table"
    cells = {tuple(k.printed for k in keys): c.value for keys, c in book.tables["grid"].items()}
    assert cells[("red", "1-2")] == 10 and cells[("red", "3-4")] == 2
    assert [cells[("blue", k)] for k in ("1-2", "3-4", "5-6")] == [40, 50, 60]
    # the cells the variant sets are not provisional, and the diff shows each one
    changes = {c.name: c for c in compare(load(str(base)), book)}
    assert {(x.keys, x.old, x.new) for x in changes["grid"].cells} == {
        (("red", "1-2"), "1", "10"),
        (("blue", "1-2"), "4", "40"),
        (("blue", "3-4"), "5", "50"),
        (("blue", "5-6"), "6", "60"),
    }


def test_modifier_lines(base: Path) -> None:
    path = variant(
        base,
        'remove modifier "tired" from hit_drm [5.3]\n'
        'change modifier "veteran" in hit_drm\n    +2 if score > 0 [5.4] "veteran"\n'
        'add modifier to hit_drm\n    -1 if score > 50 [5.5] "exhausted"\n',
    )
    lines = load(path).book.modifiers["hit_drm"].lines
    assert [(x.label, x.ref.text if x.ref else None) for x in lines] == [
        ("veteran", "5.4"),
        ("exhausted", "5.5"),
    ]


def test_phases_removed_inserted_moved(base: Path) -> None:
    assert run_turn(load(str(base))) == 111
    path = variant(base, "remove phase second_phase [6.0]\n")
    assert run_turn(load(path)) == 101
    path = variant(base, "move phase first_phase after third_phase [6.1]\n", "moved")
    seq = load(path).book.sequences["turn"]
    assert [p.call.func for p in seq.items] == ["second_phase", "third_phase", "first_phase"]  # type: ignore[union-attr]
    path = variant(base, "insert phase second_phase before first_phase [6.2]\n", "twice")
    assert run_turn(load(path)) == 121


def test_settings_procedures_and_additions(base: Path) -> None:
    path = variant(
        base,
        "set const bonus = 3 [7.0]\n"
        "set rounding down [7.1]\n"
        'replace procedure shoot -> text [7.3]\n    return "never"\n'
        "remove procedure third_phase [7.4]\n"
        "remove phase third_phase [7.4]\n"
        "procedure extra -> int [7.5]\n    return bonus * 2\n",
    )
    book = load(path)
    assert book.rounding == "down"
    interp = Interpreter(book, ForcedDice([]))
    assert interp.call("half", {"x": 3}) == 1  # rounded down now
    assert interp.call("extra", {}) == 6
    assert interp.call("shoot", {}) == "never"
    assert "third_phase" not in book.book.procedures


def test_set_dice_is_checked_against_the_tables(base: Path) -> None:
    result = run_cli("check", variant(base, "set dice d6 = 0..5 [7.2]\n"))
    assert result.exit_code == 1
    assert "no row for roll 0 of d6 (row 'red')" in result.stderr


def test_options_and_variants_of_variants(base: Path) -> None:
    assert load(str(base), ["hard"]).book.consts["bonus"].value.value == 0  # type: ignore[union-attr]
    first = variant(base, "use option hard [8.0]\nset const bonus = 5 [8.1]\n", "first")
    second = variant(base, "set cell grid(red, 5-6) [8.2] = 7\n", "second", extends="first.rk")
    book = load(second)
    assert book.book.variants == ["V first", "V second"]
    assert book.book.options_on == ["hard"]
    assert book.book.consts["bonus"].value.value == 5  # type: ignore[union-attr]
    assert load(first).book.edition == "first"


# ---- errors ----------------------------------------------------------------------------------


def errors_of(path: str, options: tuple[str, ...] = ()) -> str:
    with pytest.raises(RulebookInvalid) as caught:
        load(path, options)
    return caught.value.render(caught.value.sources if hasattr(caught.value, "sources") else None)


@pytest.mark.parametrize(
    ("body", "message", "hint"),
    [
        ("set cell hitt(3) [1.0] = Miss\n", "there is no table 'hitt'", "did you mean 'hit'?"),
        ("set cell grid(rd, 1-2) [1.0] = 9\n", "table grid has no side 'rd'",
         "did you mean 'red'?"),
        ("set row grid(red) [1.0] = 1 | 2\n", "row has 3 cell(s) (1-2, 3-4, 5-6)", None),
        ("set const bonus = 2\n", "a change cites the rule it comes from", "add a rule reference"),
        ('remove modifier "tird" from hit_drm [1.0]\n', "no line 'tird' in modifiers hit_drm",
         "did you mean 'tired'?"),
        ("remove phase secnd_phase [1.0]\n", "no sequence of play has a phase 'secnd_phase'",
         "did you mean 'second_phase'?"),
        ("use option hrd [1.0]\n", "no option 'hrd' in Base", "did you mean 'hard'?"),
        ("replace procedure shot -> text [1.0]\n    return \"x\"\n", "no procedure 'shot'",
         "did you mean 'shoot'?"),
        ("procedure shoot -> text [1.0]\n    return \"x\"\n", "'shoot' is defined twice", None),
    ],
)  # fmt: skip
def test_change_errors_point_at_the_change(
    base: Path, body: str, message: str, hint: str | None
) -> None:
    path = variant(base, body)
    result = run_cli("check", path)
    assert result.exit_code == 1
    assert "editions/v.rk:3:" in result.stderr, result.stderr
    assert message in result.stderr
    if hint:
        assert hint in result.stderr
    assert "Traceback" not in result.stderr


def test_other_variant_errors(base: Path) -> None:
    result = run_cli("check", f"{base}@w")
    assert result.exit_code == 1 and "no variant 'w'" in result.stderr
    variant(base, "", "loop", extends="loop2.rk")
    variant(base, "", "loop2", extends="loop.rk")
    result = run_cli("check", f"{base}@loop")
    assert result.exit_code == 1 and "variant cycle" in result.stderr
    result = run_cli("check", str(base), "--option", "hadr")
    assert result.exit_code == 1 and "did you mean 'hard'?" in result.stderr
    (base / "rulebook.rk").write_text(BASE + "set const bonus = 2 [1.0]\n")
    result = run_cli("check", str(base))
    assert "a change belongs in a variant file or an option block" in result.stderr


# ---- Silent War 1.1 ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sw11() -> Checked:
    return load(f"{SW}@1.1")


def test_silent_war_1_1_changes_and_nothing_else(sw11: Checked, silent_war: Checked) -> None:
    changes = compare(sw11, silent_war)
    assert sorted((c.kind, c.name, c.rule) for c in changes) == sorted(
        [
            ("setting", "rounding", "2.5"),  # [2.5] rounded up only since 2.1
            ("option", "original_engagement", "29.0"),  # [29.0] the original table
            ("const", "early_gato_boats", "2.3 A"),  # no Early Gatos before 2.0
            ("const", "tender_capacity_bonus", "21.2"),  # tenders +1 in 2.0
            ("table", "war_mix", "3.11"),  # no No TDC Solution chits
            ("procedure", "posture_levels", "14.12"),  # no Attack Posture
            ("procedure", "posture_options", "14.12"),
            ("sequence", "turn", "4.0"),  # no Weather phase [7.2]
        ]
    )
    weather = next(c for c in changes if c.kind == "sequence")
    assert weather.details == ["+ phase weather_phase [7.2]"]
    assert sw11.book.rounding is not None and sw11.book.rounding.provenance is not None


def test_silent_war_1_1_uses_the_printed_original_engagement_table(sw11: Checked) -> None:
    # [29.0] HIGH: C1 "5 3 4 •", C2 "5 4 3 2", TF "3 3 4 5"; SPARSE: C1 "2 1 • •"
    interp = Interpreter(sw11, ForcedDice([]))
    shown = {
        (found, level): show(interp.call("engagement_draws", {"found": found, "level": level}))
        for found, level in [("C1", "High"), ("C2", "High"), ("TF", "High"), ("C1", "Sparse")]
    }  # fmt: skip
    assert shown == {
        ("C1", "High"): "(A: 5, B: 3, C: 4, D: •)",
        ("C2", "High"): "(A: 5, B: 4, C: 3, D: 2)",
        ("TF", "High"): "(A: 3, B: 3, C: 4, D: 5)",
        ("C1", "Sparse"): "(A: 2, B: 1, C: •, D: •)",
    }


def test_silent_war_diff_snapshot(snapshot: Any, tmp_path: Path) -> None:
    # one run of the costly 1.1 -> 2.1 diff serves the snapshot, the bars and the plot (it
    # writes only to stderr, so the snapshot is what a run without --plot prints)
    plotting = importlib.util.find_spec("matplotlib") is not None
    target = tmp_path / "diff.svg"
    result = run_cli("diff", f"{SW}@1.1", SW, *(["--plot", target] if plotting else []))
    assert result.exit_code == 3, result.stderr
    assert result.stdout == snapshot
    # before and after as bars side by side
    line = next(x for x in result.stdout.splitlines() if "(A: 5, B: 3, C: 4, D: •)" in x)
    assert "1 (100.0%)" in line and "█" * 12 in line
    if plotting:
        svg = target.read_text(encoding="utf-8")
        assert "before" in svg and "after" in svg and "Silent War 1.1 -&gt; Silent War 2.1" in svg


def test_diff_of_a_rulebook_with_itself() -> None:
    result = run_cli("diff", SW, SW)
    assert result.exit_code == 0
    assert result.stdout.strip() == "Silent War 2.1 -> Silent War 2.1: no differences"


# ---- behaviour ---------------------------------------------------------------------------------


def test_behaviour_of_a_changed_table_by_hand(base: Path) -> None:
    # The variant moves Miss from ..6 to ..7 on 2d6 (no modifier at score 0):
    # P(Miss) 15/36 -> 21/36, P(Hit) 7-9: 15/36 -> 8-9: 9/36; Sunk 10..: 6/36 both.
    path = variant(base, "replace table hit [5.0]: roll 2d6 + hit_drm() -> text\n"
                   "    ..7 | Miss\n    8-9 | Hit\n    10.. | Sunk\n")  # fmt: skip
    result = run_cli("diff", str(base), path, "--json")
    assert result.exit_code == 3
    data = json.loads(result.stdout)
    table = next(b for b in data["behaviour"] if b["probe"] == "hit")
    rows = {r["value"]: (Fraction(r["old"]), Fraction(r["new"])) for r in table["outcomes"]}
    assert rows == {
        "Miss": (Fraction(15, 36), Fraction(21, 36)),
        "Hit": (Fraction(15, 36), Fraction(9, 36)),
        "Sunk": (Fraction(6, 36), Fraction(6, 36)),
    }
    # the procedure that uses it is compared too: it reads a changed table
    assert any(b["probe"] == "shoot" for b in data["behaviour"])


def test_probe_with_a_situation(base: Path) -> None:
    path = variant(base, "set const bonus = 3 [5.0]\n")
    result = run_cli("diff", str(base), path, "--probe", "shoot", "--at", "score=1", "--json")
    data = json.loads(result.stdout)
    shoot = data["behaviour"][0]
    assert shoot["probe"] == "shoot score=1" and shoot["exact"]
    # score 1: +bonus. 2d6+1 vs 2d6+3 against ..6 Miss: P(Miss) 10/36 -> 3/36
    rows = {r["value"]: r for r in shoot["outcomes"]}
    assert Fraction(rows["Miss"]["old"]) == Fraction(10, 36)
    assert Fraction(rows["Miss"]["new"]) == Fraction(3, 36)


def test_sampled_comparison_has_intervals(base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rulekit.analysis.behaviour as behaviour

    monkeypatch.setattr(behaviour, "MAX_PATHS", 5)
    monkeypatch.setattr(behaviour, "SAMPLES", 400)
    path = variant(base, "set const bonus = 3 [5.0]\n")
    data = json.loads(
        run_cli("diff", str(base), path, "--probe", "shoot", "--at", "score=1", "--json").stdout
    )
    shoot = data["behaviour"][0]
    assert not shoot["exact"] and all(r["ci"] > 0 for r in shoot["outcomes"])
    assert shoot["differs"]


# ---- options on every command, saves ------------------------------------------------------------


def test_option_on_run_and_resume(tmp_path: Path) -> None:
    save = tmp_path / "s.toml"
    args = ("run", SW, "--scenario", "patrol", "--seed", "3", "--turns", "1")
    assert run_cli(*args, "--option", "original_engagement", "--save", save).exit_code == 0
    assert tomllib.loads(save.read_text())["options"] == ["original_engagement"]
    result = run_cli("run", SW, "--resume", save)
    assert result.exit_code == 1
    assert "saved with options original_engagement" in result.stderr
    assert "--option original_engagement" in result.stderr
    result = run_cli("run", SW, "--option", "original_engagement", "--resume", save)
    assert result.exit_code == 0, result.stderr


def test_check_lists_options() -> None:
    result = run_cli("check", SW)
    assert (
        'option original_engagement [29.0] "Silent War 1.0/1.1 Original Engagement Table": off'
        in result.stdout
    )
    data = json.loads(run_cli("check", f"{SW}@1.1", "--json").stdout)
    assert data["options"] == [
        {"name": "original_engagement", "rule": "29.0",
         "title": "Silent War 1.0/1.1 Original Engagement Table", "on": True}
    ]  # fmt: skip
    assert data["variants"] == ["Silent War 1.1"]


def test_prob_with_an_option_and_a_variant(sw11: Checked) -> None:
    one = exact(sw11, ask(sw11, "posture_levels"))
    assert [show(o.value) for o in one.outcomes] == ["standard"]


def test_a_patched_table_node_forgets_what_it_found() -> None:
    # Look-ups remember what an int found; a variant's patch changes the entries afterwards.
    low, high = Key("1-3", "range", low=1, high=3), Key("4-6", "range", low=4, high=6)
    node = Node(0, [(low, Cell("A", "A")), (high, Cell("B", "B"))])
    assert node.find(2, False) == (low, Cell("A", "A"))
    node.entries[0] = (low, Cell("C", "C"))
    node.forget()
    assert node.find(2, False) == (low, Cell("C", "C"))


def test_behaviour_in_every_war_period_largest_shift_first(
    sw11: Checked, silent_war: Checked
) -> None:
    # The Engagement Table has a War Period dimension: what reads it is compared in each War
    # Period the state can hold, not only the initial one (WP1). The 1.1 table (printed in
    # [29.0]) has no War Period column, so what a found C1 at High level draws is the same in
    # every War Period there; the 2.1 chart (partly provisional) changes with the War Period.
    from rulekit.analysis.behaviour import compare_behaviour
    from rulekit.analysis.diff import compare

    out = compare_behaviour(sw11, silent_war, compare(sw11, silent_war), [])
    labels = [c.probe.label for c in out.comparisons]
    for period in ("WP1", "WP2", "WP3", "WP4"):
        assert f"engagement_draws found=C1 level=High war_period={period}" in labels
    shifts = [c.shift for c in out.comparisons]
    assert shifts == sorted(shifts, reverse=True) and shifts[0] > 0


def test_no_attack_posture_in_1_1_wolfpack_combat(sw11: Checked, silent_war: Checked) -> None:
    # Welcome page: Attack Posture is new in 2.0. A Wolfpack's combat asks its members for a
    # posture from the edition's levels, so 1.1 offers standard alone, 2.1 all three.
    from test_silent_war_combat_fidelity import col, pack, unit
    from test_silent_war_rules import Game

    offered = {}
    for name, book in (("1.1", sw11), ("2.1", silent_war)):
        game = Game(book, [0, 0, 0], reattack=[False, False, False])
        tang, wahoo, drum = pack(game, "Tang", "Wahoo", "Drum")
        target = unit(game, tonnage=4, defense=9, asw=0, column=col(game, "A"))
        game.set(display=(target,))
        game.call("pack_combat", attackers=(tang, wahoo, drum))
        offered[name] = {tuple(d.options) for d in game.events("decision", name="posture_choice")}
    assert offered["1.1"] == {("standard",)}
    assert offered["2.1"] == {("cautious", "standard", "aggressive")}
