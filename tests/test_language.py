"""Every feature of the language, on a fixture rulebook, with golden traces."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from tracing import trace_text

from rulekit.book.checker import Checked, load
from rulekit.engine.dice import ForcedDice, SeededDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import ScriptedPolicy
from rulekit.engine.session import resolve
from rulekit.engine.trace import render_text
from rulekit.engine.values import Entity, unwrap
from rulekit.errors import RuleViolation
from rulekit.language.parser import build_parser

GOLDEN = Path(__file__).parent / "golden" / "language"


@pytest.fixture(scope="module")
def book() -> Checked:
    return load(str(GOLDEN))


def test_grammar_is_lalr_without_conflicts() -> None:
    # strict mode refuses shift/reduce conflicts and colliding terminals
    assert build_parser(strict=True) is not None


def test_includes_and_provenance_counted(book: Checked) -> None:
    assert [Path(f).name for f in book.book.files] == ["rulebook.rk", "vocabulary.rk", "tables.rk"]
    assert book.provisional_count == 4
    assert sorted(p.what for p in book.provisional) == [
        "boat.speed",
        "const ratio",
        "state guess",
        "table grid",
    ]


@pytest.mark.parametrize(
    ("dice", "bonus", "expected", "total"),
    [
        ((1, 1), -3, "Aircraft", 2),
        ((1, 1), 0, "—", 5),
        ((2, 2), -3, "Aircraft", 4),
        ((2, 3), -3, "—", 5),
        ((4, 5), -3, "Convoy", 9),
        ((4, 5), 0, "Convoy", 12),
        ((6, 6), 0, "random event", 15),
    ],
)
def test_roll_with_modifiers_into_open_ranges(
    book: Checked, dice: tuple[int, int], bonus: int, expected: str, total: int
) -> None:
    # search_drm, Trained crew: +bonus [3.1 C], +1 per pip [3.1 D] with the pips track at 3
    outcome = resolve(book, "search", at=[f"bonus={bonus}"], dice=list(dice))
    roll = next(e for e in outcome.trace.events if e.event == "roll")
    assert roll.natural == sum(dice)
    expected_terms = ([(bonus, "3.1 C")] if bonus else []) + [(3, "3.1 D")]
    assert [(t.value, t.rule) for t in roll.modifiers] == expected_terms
    assert roll.total == total
    assert outcome.result == expected


def test_modifier_list_clamp(book: Checked, snapshot: Any) -> None:
    outcome = resolve(book, "search_drm", at=["bonus=5", "crew=Elite"])
    total = outcome.trace.events[-1]
    assert [t.value for t in total.terms] == [1, 5, 3]  # Veteran or better, bonus, pips
    assert total.total == 3 and total.clamped
    assert trace_text(outcome) == snapshot


def test_note_interpolation_and_natural(book: Checked) -> None:
    outcome = resolve(book, "search", dice=[6, 6])
    notes = [e.text for e in outcome.trace.events if e.event == "note"]
    assert notes == ["a natural 12 (12) is a random event"]


def test_keep_highest_and_lowest(book: Checked, snapshot: Any) -> None:
    outcome = resolve(book, "spread", at=["n=3"], dice=[2, 9, 4, 7, 3, 8])
    rolls = [e for e in outcome.trace.events if e.event == "roll"]
    assert rolls[0].dice == "highest of 3 d10" and rolls[0].natural == 9 and rolls[0].total == 10
    assert rolls[1].dice == "lowest of 3 d10" and rolls[1].natural == 3
    assert outcome.result == 7
    assert trace_text(outcome) == snapshot


def test_require_names_its_rule(book: Checked) -> None:
    with pytest.raises(RuleViolation) as caught:
        resolve(book, "spread", at=["n=0"])
    assert caught.value.diagnostics[0].message == "fire at least one torpedo (rule [4.1])"


def test_gato_style_d10_reads_ten(book: Checked) -> None:
    assert book.dice["d10"].faces == tuple(range(1, 11))
    outcome = resolve(book, "spread", at=["n=1"], dice=[10, 10])
    assert outcome.result == 1  # 10 + 1 - 10


def test_d66_and_d100(book: Checked) -> None:
    assert book.dice["d66"].faces[:7] == (11, 12, 13, 14, 15, 16, 21)
    assert len(book.dice["d66"].faces) == 36
    assert book.dice["d100"].faces == tuple(range(1, 101))
    assert resolve(book, "damage", dice=[23]).result == "Minor"
    assert resolve(book, "roster_table", dice=[100]).result.get("name") == "Sapporo Maru #11"
    assert resolve(book, "roster_table", dice=[1]).result.get("tonnage") == 2600


def test_state_writes_tracks_clamp_and_exact_arithmetic(
    book: Checked, snapshot: Any, tmp_path: Path
) -> None:
    given = tmp_path / "boat.toml"
    given.write_text('[s]\nname = "Wahoo"\nhits = 1\n')
    outcome = resolve(book, "bookkeeping", given=str(given))
    state = outcome.interpreter.state.values
    assert state["pips"] == 12  # 3 + 10, clamped to the track's end
    assert state["seen"] == ("Wahoo",)
    assert state["score"] == 12  # 2 + 4 + 6
    values = {e.name: e.value for e in outcome.trace.events if e.event == "value"}
    assert values["avg"] == 3.0  # 12 / 4 exactly
    assert values["up"] == 3  # rounded up
    assert values["nearest"] == 3  # 5/2 to nearest: halves away from zero
    assert outcome.args["s"].attrs["hits"] == 3
    assert outcome.result == 6
    assert trace_text(outcome) == snapshot


def test_fraction_rounding(book: Checked) -> None:
    interp = Interpreter(book)
    from rulekit.engine.builtins import round_value

    assert round_value(Fraction(7, 2), "up") == 4
    assert round_value(Fraction(7, 2), "down") == 3
    assert round_value(Fraction(-7, 2), "nearest") == -4
    assert interp.c.rounding == "up"


def test_decision_default_and_scripted(book: Checked) -> None:
    assert str(resolve(book, "decide_posture").result) == "standard"
    outcome = resolve(book, "decide_posture", decide=["p=aggressive"])
    decision = next(e for e in outcome.trace.events if e.event == "decision")
    assert decision.choice == "aggressive" and decision.by == "given"
    assert decision.options == ["cautious", "standard", "aggressive"]


def test_aggregates(book: Checked, tmp_path: Path) -> None:
    given = tmp_path / "boats.toml"
    given.write_text(
        "".join(f'[[boats]]\nname = "{n}"\nhits = {h}\n' for n, h in (("A", 2), ("B", 0), ("C", 3)))
    )
    outcome = resolve(book, "aggregates", given=str(given))
    assert outcome.result == 5 * 100 + 2 * 10 + 3


def test_tables_markers_aliases_thresholds_actions(book: Checked, snapshot: Any) -> None:
    assert str(resolve(book, "draws", at=["sea=Kurile Islands"]).result) == "•"
    assert resolve(book, "draws", at=["sea=Japan Sea"]).result == 2
    assert resolve(book, "threshold", at=["ships=25"]).result == 2
    assert resolve(book, "threshold", at=["ships=9"]).result is None  # below the first line
    assert resolve(book, "grid", at=["level=Elite"], dice=[1]).result == 4
    outcome = resolve(book, "follow", dice=[5, 6])
    assert unwrap(outcome.result) == "Trouble" and outcome.result.then == 3
    assert trace_text(outcome) == snapshot


def test_grid_in_two_blocks_and_provisional_cell(book: Checked) -> None:
    grid = book.tables["grid"]
    assert grid.keys(0) == ["Green", "Trained", "Veteran", "Elite"]
    assert grid.keys(1) == ["1-2", "3-4", "5-6"]
    marked = [[k.printed for k in path] for path, c in grid.iter_cells() if c.provisional]
    assert marked == [["Elite", "1-2"]]
    outcome = resolve(book, "grid", at=["level=Elite"], dice=[2])
    assert outcome.trace.provisional_used == ["table grid (Elite / 1-2) [3.7]"]


def test_sequence_of_play_with_per_unit_loop(book: Checked, snapshot: Any) -> None:
    interp = Interpreter(book, ForcedDice([]), ScriptedPolicy({"p": ["cautious"]}))
    interp.state.values["fleet"] = (
        Entity("boat", {"name": "Tang", "hits": 0, "sunk": False, "speed": 2}, "Tang"),
        Entity("boat", {"name": "Barb", "hits": 1, "sunk": False, "speed": 2}, "Barb"),
    )
    interp.run_sequence()
    assert interp.state.values["seen"] == ("Tang", "Barb")
    assert [e.text for e in interp.trace.events if e.event == "note"][:2] == [
        "segment first",
        "segment second",
    ]
    assert "\n".join(render_text(interp.trace)) == snapshot


def test_same_seed_same_trace(book: Checked) -> None:
    first = resolve(book, "spread", at=["n=4"], seed=1234)
    second = resolve(book, "spread", at=["n=4"], seed=1234)
    assert first.trace.to_json() == second.trace.to_json()
    others = [resolve(book, "spread", at=["n=4"], seed=s).trace.to_json() for s in range(5)]
    assert any(o != first.trace.to_json() for o in others)  # the seed does matter


def test_seeded_dice_are_uniform_over_faces(book: Checked) -> None:
    source = SeededDice(7)
    die = book.dice["d66"]
    seen = {source.throw(die, "test") for _ in range(2000)}
    assert seen == set(die.faces)


def test_draw_without_replacement_forced(book: Checked) -> None:
    outcome = resolve(book, "draw_ships", at=["n=2"], dice=[5, 1, 3])
    draws = [(e.position, e.of, e.item) for e in outcome.trace.events if e.event == "draw"]
    assert draws == [(5, 5, "Combat Event"), (1, 4, "CL"), (3, 3, "M 4t")]
    assert outcome.result == ("Combat Event", "CL")
    state = outcome.interpreter.state.values
    assert sorted(state["cup"]) == sorted(["CL", "DD", "M 2t", "M 4t", "Combat Event"])
    assert state["hand"] == ("Combat Event", "CL")


def test_seeded_draws_never_repeat(book: Checked) -> None:
    for seed in range(20):
        outcome = resolve(book, "draw_ships", at=["n=4"], seed=seed)
        items = [e.item for e in outcome.trace.events if e.event == "draw"]
        assert len(items) == len(set(items)) == 5


def test_draw_more_than_there_is(book: Checked) -> None:
    outcome = resolve(book, "draw_many", at=["n=9"], seed=1)
    notes = [e.text for e in outcome.trace.events if e.event == "note"]
    assert notes == ["only 5 left in cup"]
    assert sorted(outcome.result) == sorted(["CL", "DD", "M 2t", "M 4t", "Combat Event"])
    assert outcome.interpreter.state.values["cup"] == ()


def test_draw_from_an_empty_pool_is_an_error(book: Checked, tmp_path: Path) -> None:
    from rulekit.errors import RuleRuntimeError

    given = tmp_path / "empty.toml"
    given.write_text("cup = []\n")
    with pytest.raises(RuleRuntimeError) as caught:
        resolve(book, "draw_ships", given=str(given), at=["n=0"])
    assert caught.value.diagnostics[0].message == "cannot draw from cup: it is empty"


def test_provisional_state_is_counted_and_reported_until_changed(tmp_path: Path) -> None:
    book = load(str(GOLDEN))
    assert any(p.what == "state guess" for p in book.provisional)
    interp = Interpreter(book)
    assert interp.trace.provisional_used == []  # setting up the state reads nothing
    from rulekit.language import nodes as n

    assert interp.eval(n.Name("guess")) == 4
    assert interp.trace.provisional_used == ["state guess [2.10]"]


def test_clamp_holds_inside_a_roll(book: Checked) -> None:
    # search_drm is clamped to -3..3: bonus 5 + Elite 1 + 3 pips = 9 -> 3
    outcome = resolve(book, "search", at=["bonus=5", "crew=Elite"], dice=[1, 1])
    roll = next(e for e in outcome.trace.events if e.event == "roll")
    assert roll.total == 2 + 3
    assert roll.modifiers[-1].label == "clamp -3..3"


def test_while_loop_and_nesting_limit(make_rulebook: Any) -> None:
    from rulekit.errors import StepBudgetExceeded

    root = make_rulebook(
        'rulebook "W"\nprocedure count_to(n: int) -> int [1.0]\n    let i = 0\n'
        "    while i < n:\n        i += 1\n    return i\n"
        "procedure deep(n: int) -> int [2.0]\n    return deep(n + 1)\n"
    )
    checked = load(str(root))
    assert resolve(checked, "count_to", at=["n=7"]).result == 7
    with pytest.raises(StepBudgetExceeded) as caught:
        resolve(checked, "deep", at=["n=0"])
    assert "calls nest deeper than" in caught.value.diagnostics[0].message


def test_rerolled_exploding_and_listed_dice(book: Checked, snapshot: Any) -> None:
    # 1 and 6 thrown; the 1 is thrown again (3); the 6 explodes (6), and again (2): limit 2
    outcome = resolve(book, "salvo", dice=[1, 6, 3, 6, 2, 0, 0, 1, -1])
    rolls = [e for e in outcome.trace.events if e.event == "roll"]
    assert rolls[0].dice == "2d6 reroll 1 explode 2" and rolls[0].faces == [6, 3, 6, 2]
    assert (rolls[0].natural, rolls[0].total) == (17, 18)
    assert rolls[1].faces == [0, 0, 1, -1] and rolls[1].total == 0
    assert outcome.result == 18 + 0 + 2  # [12, 21]: two cells
    assert trace_text(outcome) == snapshot


def test_end_turn_in_a_procedure(book: Checked) -> None:
    outcome = resolve(book, "salvo", dice=[2, 3, -1, -1, -1, -1])
    notes = [e.text for e in outcome.trace.events if e.event == "note"]
    assert notes == ["the turn ends: a disaster"]
    assert outcome.result is None
