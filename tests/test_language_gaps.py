"""Gaps found by rulebooks written outside the project (issue 34 §3), each with its test."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import run_cli

from rulekit.language import nodes as n
from rulekit.language.parser import parse

Make = Callable[..., Path]


@pytest.mark.parametrize("ref", ["B.", "B.2", "A1.", "E4", "14.16 A"])
def test_a_rule_reference_may_be_a_chapter_letter(ref: str) -> None:
    # a rulebook whose chapters are lettered cites "[B.]" as it cites "[A1.]"
    module = parse(f'procedure p -> int [{ref}] "the rule"\n    return 1\n', "t.rk")
    (decl,) = module.decls
    assert isinstance(decl, n.ProcedureDecl)
    assert decl.ref == n.RuleRef(ref) and decl.title == "the rule"


def test_a_chapter_reference_on_a_statement_and_a_table() -> None:
    text = "table t [C.] : x: int -> int\n    1 | 2\nprocedure p -> int\n    return t(1)  [C.3]\n"
    table, proc = parse(text, "t.rk").decls
    assert isinstance(table, n.TableDecl) and table.ref == n.RuleRef("C.")
    assert isinstance(proc, n.ProcedureDecl)
    (ret,) = proc.body
    assert isinstance(ret, n.Return) and ret.ref == n.RuleRef("C.3")


# ---- 1. a threshold looked up with a fraction; a none the declared type does not allow ----

# Shaped like Battle for Moscow's Combat Results Table (the cells are illustrative, not the
# printed chart): columns of odds, attack / defense rounded down to the column, so 8 1/2
# against 4 is the 2:1 column ("at_least" 2); rows are the die.
BFM = """rulebook "Odds"
dice d6 = 1..6 [1.0]
enum combat_result = AE AR EX DR DE NE
table crt [7.0] "Combat Results Table": roll d6 x at_least odds: number -> combat_result
    roll | 1  | 2  | 3
    1    | AR | AR | DR
    2    | AR | DR | DR
    3    | DR | DR | EX
    4    | DR | EX | DE
    5    | EX | DE | DE
    6    | DE | DE | DE
procedure attack(attack: number = 8.5, defense: int = 4) -> combat_result [7.1]
    return crt(attack / defense)
"""


def _prob(book: Path, name: str, *args: str) -> dict[str, Fraction]:
    shown = run_cli("prob", book, name, "--json", *args)
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["exact"] is True
    return {o["value"]: Fraction(o["p"]) for o in data["outcomes"]}


def _result(book: Path, name: str, *args: str) -> str:
    shown = run_cli("resolve", book, name, *args)
    assert shown.exit_code == 0, shown.output
    return next(line for line in shown.stdout.splitlines() if line.startswith("result:"))


@pytest.mark.parametrize("roll,expected", [(1, "AR"), (2, "DR"), (4, "EX"), (6, "DE")])
def test_a_fraction_finds_its_threshold_column(
    make_rulebook: Make, roll: int, expected: str
) -> None:
    # the 2:1 column above, die 1..6: AR DR DR EX DE DE
    book = make_rulebook(BFM)
    assert _result(book, "attack", "--dice", str(roll)) == f"result: {expected}"


def test_a_fraction_threshold_in_exact_analysis_matches_the_row(make_rulebook: Make) -> None:
    book = make_rulebook(BFM)
    sixth = Fraction(1, 6)
    # the 2:1 column: AR once, DR twice, EX once, DE twice (not none with probability 1)
    assert _prob(book, "attack") == {"AR": sixth, "DR": 2 * sixth, "EX": sixth, "DE": 2 * sixth}
    # 3:1 exactly, and just under it (11.99.. / 4 is still 2:1)
    assert _prob(book, "attack", "--at", "attack=12")["DE"] == 3 * sixth
    assert _prob(book, "attack", "--at", "attack=11.5")["DE"] == 2 * sixth


def test_a_threshold_of_int_accepts_a_fraction_and_keys_may_be_fractions(
    make_rulebook: Make,
) -> None:
    # an "int" threshold dimension is still looked up with a number (rows are thresholds);
    # keys may be printed as fractions: 1/2 is the 1:2 column, 1.5 the 3:2 column
    book = make_rulebook(
        BFM.replace("at_least odds: number", "at_least odds: int")
        + "table ratio [8.0]: at_least odds: number -> text\n"
        "    1/2: worse | 1: even | 1.5: better\n"
        "procedure r(a: int, d: int) -> text [8.1]\n    return ratio(a / d)\n"
    )
    checked = run_cli("check", book)
    assert checked.exit_code == 0, checked.output
    assert _result(book, "attack", "--dice", "2") == "result: DR"
    assert _result(book, "r", "--at", "a=1", "--at", "d=2") == "result: worse"
    assert _result(book, "r", "--at", "a=2", "--at", "d=3") == "result: worse"
    assert _result(book, "r", "--at", "a=3", "--at", "d=2") == "result: better"
    assert _result(book, "r", "--at", "a=4", "--at", "d=3") == "result: even"


def test_a_none_below_the_first_threshold_is_an_error_where_it_is_returned(
    make_rulebook: Make,
) -> None:
    # 1:2 is below the first column: the table gives none, and attack says combat_result
    book = make_rulebook(BFM)
    shown = run_cli("resolve", book, "attack", "--at", "attack=2", "--dice", "3")
    assert shown.exit_code == 1
    assert "returns none" in shown.stderr and "combat_result" in shown.stderr
    assert "rulebook.rk:13:5" in shown.stderr  # the return statement
    assert "[7.1]" in shown.stderr and "^" in shown.stderr
    # exact analysis: the same error, not a result of none
    analysed = run_cli("prob", book, "attack", "--at", "attack=2")
    assert analysed.exit_code == 1, analysed.output
    assert "returns none" in analysed.stderr and "rulebook.rk:13:5" in analysed.stderr


def test_a_none_the_type_allows_is_returned(make_rulebook: Make) -> None:
    book = make_rulebook(BFM.replace("-> combat_result [7.1]", "-> combat_result or none [7.1]"))
    assert _result(book, "attack", "--at", "attack=2", "--dice", "3") == "result: none"
    assert _prob(book, "attack", "--at", "attack=2") == {None: Fraction(1)}


def test_a_procedure_that_falls_off_its_end_returns_none_where_it_may_not(
    make_rulebook: Make,
) -> None:
    book = make_rulebook(
        'rulebook "N"\ndice d6 = 1..6 [1.0]\n'
        "procedure p(x: int) -> int [2.0]\n    if x > 3:\n        return x\n"
    )
    assert _result(book, "p", "--at", "x=5") == "result: 5"
    shown = run_cli("resolve", book, "p", "--at", "x=1")
    assert shown.exit_code == 1
    assert "ends without a return" in shown.stderr and "[2.0]" in shown.stderr


@pytest.mark.parametrize(
    "body,message",
    [
        ("    return none\n", "returns none but the procedure says int"),
        ("    return\n", "returns nothing but the procedure says int"),
    ],
)
def test_a_none_that_can_be_seen_is_an_error_at_check_time(
    make_rulebook: Make, body: str, message: str
) -> None:
    book = make_rulebook('rulebook "N"\ndice d6 = 1..6 [1.0]\nprocedure p -> int [2.0]\n' + body)
    shown = run_cli("check", book)
    assert shown.exit_code == 1
    assert message in shown.output and "rulebook.rk:4:" in shown.output


def test_a_none_from_a_called_procedure_is_an_error_in_exact_analysis(make_rulebook: Make) -> None:
    # `return p(...)` of a procedure that throws dice runs as blocks of its own (exact
    # analysis): the none it gives back is checked against the caller's declared result
    book = make_rulebook(
        BFM + "procedure maybe(odds: number) -> combat_result or none [7.2]\n"
        "    return crt(odds)\n"
        "procedure sure(odds: number) -> combat_result [7.3]\n"
        "    return maybe(odds)\n"
    )
    assert _prob(book, "sure", "--at", "odds=3")["DE"] == Fraction(1, 2)
    for command in ("prob", "resolve"):
        shown = run_cli(command, book, "sure", "--at", "odds=1/2")
        assert shown.exit_code == 1, shown.output
        assert "procedure sure returns none here" in shown.stderr
        assert "rulebook.rk:17:5" in shown.stderr


# ---- 2. odds columns as printed -------------------------------------------------------------

# A Combat Results Table laid out as printed (cells illustrative): odds columns headed 1-2,
# 1:1, 2:1, 3:1; the dice down the side
ODDS = """rulebook "Odds"
dice d6 = 1..6 [1.0]
enum combat_result = AE AR EX DR DE NE
table crt [7.0] "Combat Results Table": roll d6 x at_least odds: number -> combat_result
    roll | 1-2 | 1:1 | 2:1 | 3:1
    1    | AE  | AR  | AR  | DR
    2    | AE  | AR  | DR  | DR
    3    | AR  | DR  | DR  | EX
    4    | AR  | DR  | EX  | DE
    5    | NE  | EX  | DE  | DE
    6    | NE  | DE  | DE  | DE
procedure attack(attack: number, defense: int) -> combat_result or none [7.1]
    return crt(attack / defense)
"""


def test_an_odds_header_parses_as_cells_not_key_value_items() -> None:
    table = parse(ODDS, "t.rk").decls[3]
    assert isinstance(table, n.TableDecl)
    header = table.lines[0]
    texts = [item.value.text for item in header.items if isinstance(item.value, n.CellText)]
    assert texts == ["roll", "1-2", "1:1", "2:1", "3:1"]
    assert all(item.key is None for item in header.items)
    # "70: 9", with a space, is still a key and its value
    line = parse("table t: at_least x: int -> int\n    70: 9 | 75: 8\n", "t.rk").decls[0]
    assert isinstance(line, n.TableDecl)
    assert [(i.key.text, i.value.text) for i in line.lines[0].items] == [("70", "9"), ("75", "8")]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "attack,defense,column",
    [(2, 4, "AE"), (3, 4, "AE"), (4, 4, "AR"), (8.5, 4, "AR"), (11, 4, "AR"), (12, 4, "DR")],
)
def test_odds_columns_are_read_as_their_ratios(
    make_rulebook: Make, attack: float, defense: int, column: str
) -> None:
    # die 1 reads the first row: AE (1-2) | AR (1:1) | AR (2:1) | DR (3:1)
    book = make_rulebook(ODDS)
    checked = run_cli("check", book)
    assert checked.exit_code == 0, checked.output  # not "appears twice"
    got = _result(
        book, "attack", "--at", f"attack={attack}", "--at", f"defense={defense}", "--dice", "1"
    )
    assert got == f"result: {column}"


def test_odds_below_the_first_column_give_none(make_rulebook: Make) -> None:
    book = make_rulebook(ODDS)
    assert _prob(book, "attack", "--at", "attack=1", "--at", "defense=3") == {None: Fraction(1)}


def test_odds_on_a_dimension_that_is_not_a_threshold_say_how(make_rulebook: Make) -> None:
    book = make_rulebook(ODDS.replace("at_least odds: number", "odds: int"))
    shown = run_cli("check", book)
    assert shown.exit_code == 1
    assert "rulebook.rk:5:18: error: '1:1' is not a die result or range" in shown.output
    assert "declare the dimension 'at_least odds: number'" in shown.output
    assert "appears twice" not in shown.output


def test_odds_round_trip_through_fmt() -> None:
    from rulekit.language.fmt import format_text

    out = format_text(ODDS, "t.rk")
    assert "| 1-2 | 1:1 | 2:1 | 3:1" in out
    assert parse(out, "t.rk") == parse(ODDS, "t.rk")
    assert format_text(out, "t.rk") == out


def test_odds_are_highlighted_as_numbers() -> None:
    tm = pytest.importorskip("textmate_grammar.parsers.base")
    from conftest import ROOT

    grammar = json.loads((ROOT / "editors" / "rulekit.tmLanguage.json").read_text("utf-8"))
    element = tm.LanguageParser(grammar).parse_string("    roll | 1-2 | 1:1 | 2:1\n")
    scoped = {piece: scopes for _, piece, scopes in element.flatten()}
    assert any(s.startswith("constant.numeric.odds") for s in scoped["1:1"])
    assert any(s.startswith("constant.numeric.odds") for s in scoped["2:1"])


# ---- 3. roll 0 d6 ---------------------------------------------------------------------------

ZERO = """rulebook "Zero"
dice d6 = 1..6 [1.0]
procedure fire(strength: int = 0) -> int [3.0] "Each strength point throws a die"
    let r = roll (strength) d6 + 2
    return r
procedure faces(strength: int = 0) -> int [3.1]
    let r = roll (strength) d6
    return count(r.dice)
procedure literal -> int [3.2]
    return roll 0 d6 + (roll 0d6)
procedure best(strength: int = 0) -> int [3.3]
    return roll highest of (strength) d6
"""


def test_a_roll_of_no_dice_is_empty(make_rulebook: Make) -> None:
    book = make_rulebook(ZERO)
    assert run_cli("check", book).exit_code == 0
    assert _result(book, "fire") == "result: 2"  # sum 0, then the +2
    assert _result(book, "faces") == "result: 0"  # no dice in it
    assert _result(book, "literal") == "result: 0"
    assert _result(book, "fire", "--at", "strength=2", "--dice", "3,4") == "result: 9"
    shown = run_cli("resolve", book, "fire")
    assert "roll 0d6 [3.0]: natural 0 +2 = 2" in shown.stdout  # the trace: no die thrown


def test_a_roll_of_no_dice_in_exact_analysis(make_rulebook: Make) -> None:
    book = make_rulebook(ZERO)
    assert _prob(book, "fire") == {2: Fraction(1)}
    assert _prob(book, "literal") == {0: Fraction(1)}
    odds = run_cli("odds", "0d6", "--json")
    assert odds.exit_code == 0, odds.output
    assert [(o["value"], o["p"]) for o in json.loads(odds.stdout)["outcomes"]] == [(0, "1")]


def test_the_highest_of_no_dice_is_an_error(make_rulebook: Make) -> None:
    book = make_rulebook(ZERO)
    shown = run_cli("resolve", book, "best")
    assert shown.exit_code == 1
    assert "rulebook.rk:12:17: error: cannot keep the highest of 0 dice" in shown.stderr
    negative = run_cli("resolve", book, "fire", "--at", "strength=-1")
    assert negative.exit_code == 1 and "cannot roll -1 dice" in negative.stderr
    checked = run_cli(
        "check", make_rulebook(ZERO + "procedure w -> int [3.4]\n    return roll lowest of 0 d6\n")
    )
    assert checked.exit_code == 1
    assert "rulebook.rk:14:17: error: no lowest die of 0 dice" in checked.output


def test_no_dice_round_trip_through_fmt() -> None:
    from rulekit.language.fmt import format_text

    out = format_text(ZERO, "t.rk")
    assert "roll 0 d6 + (roll 0d6)" in out
    assert parse(out, "t.rk") == parse(ZERO, "t.rk")
    literal = parse(ZERO, "t.rk").decls[4]
    assert isinstance(literal, n.ProcedureDecl)
    (ret,) = literal.body
    # a roll with a roll as its modifier: both of no dice
    assert isinstance(ret, n.Return) and isinstance(ret.value, n.Roll)
    inner = ret.value.mods[0].value
    assert isinstance(inner, n.Roll)
    assert (ret.value.dice.count, inner.dice.count) == (0, 0)


# ---- 4. break and continue ----------------------------------------------------------------

LOOPS = """rulebook "Loops"
dice d6 = 1..6 [1.0]
procedure to_ten -> int [4.0] "Add dice until ten, ones do not count"
    let t = 0
    while true:
        let r = roll d6
        if r = 1:
            continue [4.1]
        t += r
        if t >= 10:
            break [4.2]
    return t
procedure volley -> int [4.3] "Three shots; a 1 jams the gun, 4+ hits"
    let h = 0
    for each shot in [1, 2, 3]:
        let r = roll d6
        if r = 1:
            break
        if r < 4:
            continue
        h += 1
    return h
procedure skip -> int [4.4]
    let s = 0
    for each x in [1, 2, 3, 4, 5]:
        if x = 2:
            continue
        if x = 5:
            break
        s += x
    return s
procedure first_known(xs: list of (int or none)) -> int [4.5]
    let s = 0
    for each x in xs:
        if x = none:
            continue
        s += x
    return s
"""


def _to_ten_by_hand() -> dict[int, Fraction]:
    # a 1 is thrown again without counting: each counted die is 2..6 alike
    out: dict[int, Fraction] = {}

    def go(total: int, p: Fraction) -> None:
        if total >= 10:
            out[total] = out.get(total, Fraction(0)) + p
            return
        for face in range(2, 7):
            go(total + face, p / 5)

    go(0, Fraction(1))
    return out


def _volley_by_hand() -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=3):
        hits = 0
        for face in faces:
            if face == 1:
                break
            hits += face >= 4
        out[hits] = out.get(hits, Fraction(0)) + Fraction(1, 216)
    return out


def test_break_and_continue_in_runs(make_rulebook: Make) -> None:
    book = make_rulebook(LOOPS)
    assert run_cli("check", book).exit_code == 0
    assert _result(book, "skip") == "result: 8"  # 1 + 3 + 4: 2 skipped, stopped at 5
    assert _result(book, "first_known", "--at", "xs=1, none, 5") == "result: 6"
    # 3, then a 1 (not counted), 5, then 6: 14
    shown = run_cli("resolve", book, "to_ten", "--dice", "3,1,5,6")
    assert shown.exit_code == 0, shown.output
    assert "result: 14" in shown.stdout
    # a break or continue that cites its rule shows in the trace
    assert "note [4.1]: on to the next round" in shown.stdout
    assert "note [4.2]: the loop ends" in shown.stdout
    assert _result(book, "volley", "--dice", "5,1,6") == "result: 1"  # the jam ends it
    assert _result(book, "volley", "--dice", "2,4,6") == "result: 2"  # the 2 misses


def test_break_and_continue_in_exact_analysis(make_rulebook: Make) -> None:
    book = make_rulebook(LOOPS)
    assert _prob(book, "to_ten") == _to_ten_by_hand()
    assert _prob(book, "volley") == _volley_by_hand()
    assert _prob(book, "skip") == {8: Fraction(1)}


@pytest.mark.parametrize("word", ["break", "continue"])
def test_break_outside_a_loop_is_an_error(make_rulebook: Make, word: str) -> None:
    book = make_rulebook(
        'rulebook "B"\ndice d6 = 1..6 [1.0]\nprocedure q -> int [1.0]\n'
        f"    if roll d6 = 6:\n        {word}\n    return 1\n"
    )
    shown = run_cli("check", book)
    assert shown.exit_code == 1
    assert f"rulebook.rk:5:9: error: '{word}' outside a loop" in shown.output
    assert "belongs in a 'while' or 'for each'" in shown.output and "^~~" in shown.output


def test_break_and_continue_round_trip_through_fmt() -> None:
    from rulekit.language.fmt import format_text

    out = format_text(LOOPS, "t.rk")
    assert "            continue [4.1]\n" in out and "            break [4.2]\n" in out
    assert parse(out, "t.rk") == parse(LOOPS, "t.rk")
    assert format_text(out, "t.rk") == out
    proc = parse(LOOPS, "t.rk").decls[2]
    assert isinstance(proc, n.ProcedureDecl)
    loop = proc.body[1]
    assert isinstance(loop, n.While)
    first = loop.body[1]
    assert isinstance(first, n.If)
    assert first.branches[0].body == (n.Continue(n.RuleRef("4.1")),)


# ---- 5. explode on kept dice (Savage Worlds' trait die and Wild Die) --------------------------

SAVAGE = """rulebook "Savage"
dice d6 = 1..6 [1.0]
procedure trait -> int [5.0] "A Wild Card's trait test: the trait die and the Wild Die, each aces"
    return roll highest of 2 d6 explode 3
procedure worst -> int [5.1]
    return roll lowest of 2 d6 explode 2
"""


def _aced(explode: int) -> dict[int, Fraction]:
    """One d6 that aces: a 6 adds another die, at most ``explode`` more (by hand)."""
    out: dict[int, Fraction] = {}

    def go(total: int, more: int, p: Fraction) -> None:
        for face in range(1, 7):
            if face == 6 and more > 0:
                go(total + 6, more - 1, p / 6)
            else:
                out[total + face] = out.get(total + face, Fraction(0)) + p / 6

    go(0, explode, Fraction(1))
    return out


def _keep(pick: Callable[[int, int], int], one: dict[int, Fraction]) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for (a, pa), (b, pb) in itertools.product(one.items(), repeat=2):
        out[pick(a, b)] = out.get(pick(a, b), Fraction(0)) + pa * pb
    return out


def test_each_kept_die_explodes_before_the_highest_total_is_kept(make_rulebook: Make) -> None:
    book = make_rulebook(SAVAGE)
    assert run_cli("check", book).exit_code == 0  # it was "only dice that are added up explode"
    assert _prob(book, "trait") == _keep(max, _aced(3))
    assert _prob(book, "worst") == _keep(min, _aced(2))
    # a 6 always aces: no die totals 6, so neither does the highest of two (the highest
    # face would be 6 one time in 36 * 11)
    assert 6 not in _prob(book, "trait")


def test_kept_exploding_dice_as_thrown(make_rulebook: Make) -> None:
    book = make_rulebook(SAVAGE)
    # the first die 6, the second 3; the 6 aces: 6, then 2: 6 + 6 + 2 = 14 against 3
    assert _result(book, "trait", "--dice", "6,3,6,2") == "result: 14"
    # the first 2, the second 6 then 1: 7 against 2
    assert _result(book, "trait", "--dice", "2,6,1") == "result: 7"
    # lowest: 6 + 5 = 11 against 4
    assert _result(book, "worst", "--dice", "6,4,5") == "result: 4"
    # dice are thrown round by round: 6 and 6; both ace: 5 and 6; the second aces again
    # (its last: explode 2): 6. Totals 6 + 5 = 11 and 6 + 6 + 6 = 18; the lowest is 11
    assert _result(book, "worst", "--dice", "6,6,5,6,6") == "result: 11"


# ---- 6. the trace shows re-rolled dice ----------------------------------------------------------

REROLL = """rulebook "Reroll" edition "1" scenario "range"
dice d6 = 1..6 [1.0]
state hits: int = 0 [6.0]
procedure fire -> int [6.1] "Two dice, ones thrown again once, a six adds a die"
    return roll 2d6 reroll 1 explode 1
procedure one -> int [6.2]
    return roll d6 reroll 1..2
procedure shoot [6.3]
    hits += roll 3d6 reroll 1..3
sequence turn [0.0] "Turn"
    phase shoot [6.3]
"""

REROLL_SCENARIO = """[scenario]
title = "The range"
turns = 6
summary = ["hits"]
"""


def test_the_trace_shows_a_die_thrown_again(make_rulebook: Make) -> None:
    book = make_rulebook(REROLL)
    # 1 and 6 thrown; the 1 is thrown again (a 4); the 6 explodes (a 2)
    shown = run_cli("resolve", book, "fire", "--dice", "1,6,4,2")
    assert shown.exit_code == 0, shown.output
    assert "roll 2d6 reroll 1 explode 1 [6.1]: natural 12 (6, 4, 2; rerolled 1) = 12" in (
        shown.stdout
    )
    # one die: a 2 thrown again shows a 1, which stands
    one = run_cli("resolve", book, "one", "--dice", "2,1")
    assert "roll d6 reroll 1..2 [6.2]: natural 1 (1; rerolled 2) = 1" in one.stdout
    # the JSON trace keeps every die in the order thrown; a roll with none thrown again
    # has no "thrown" at all
    data = json.loads(run_cli("resolve", book, "fire", "--dice", "1,6,4,2", "--json").stdout)
    (roll,) = [e for e in data["trace"] if e["event"] == "roll"]
    assert roll["faces"] == [6, 4, 2] and roll["thrown"] == [1, 6, 4, 2]
    plain = json.loads(run_cli("resolve", book, "fire", "--dice", "3,4", "--json").stdout)
    (roll,) = [e for e in plain["trace"] if e["event"] == "roll"]
    assert roll["faces"] == [3, 4] and "thrown" not in roll


def test_a_game_with_dice_thrown_again_replays(make_rulebook: Make, tmp_path: Path) -> None:
    # a replay forces the dice of the trace: those thrown again are among them (a 1 thrown
    # again that shows a 1 again would otherwise ask for a die the trace does not have)
    book = make_rulebook(REROLL, **{"scenarios__range.toml": REROLL_SCENARIO})
    trace = tmp_path / "t.jsonl"
    for seed in ("1", "2", "3"):
        ran = run_cli("run", book, "--seed", seed, "--trace", trace)
        assert ran.exit_code == 0, ran.output
        assert "rerolled" in trace.read_text() or '"thrown"' in trace.read_text()
        replayed = run_cli("replay", trace, "--rulebook", book)
        assert replayed.exit_code == 0, replayed.output


# ---- 7. decks and exact analysis (docs/LANGUAGE.md) ---------------------------------------------


def test_the_deck_claims_of_the_language_doc() -> None:
    from conftest import ROOT

    doc = (ROOT / "docs" / "LANGUAGE.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Decks and exact analysis") :]
    section = section[: section.index("\n## ", 1)]
    # the table of situations: | `name` | what | count |
    claimed = {
        m.group(1): int(m.group(2))
        for m in re.finditer(r"^\| `(\w+)` \|.*\| (\d+) \|$", section, re.M)
    }
    assert len(claimed) == 7
    for name, count in claimed.items():
        shown = run_cli("prob", str(ROOT / "examples" / "deck"), name, "--json")
        assert shown.exit_code == 0, shown.output
        assert json.loads(shown.stdout)["situations"] == count, name
    # the same distributions as the ordered paths of dice (merging loses nothing)
    for name in ("hand", "hand_back", "pair_then_die", "two_chits"):
        by = [
            json.loads(run_cli("prob", str(ROOT / "examples" / "deck"), name, "--json", *m).stdout)
            for m in ([], ["--method", "paths"])
        ]
        assert by[0]["outcomes"] == by[1]["outcomes"], name
    # by hand: with replacement, three draws of 2, 1, 0, 0, 0 make 6 once in 125
    back = _prob(ROOT / "examples" / "deck", "hand_back")
    assert back[6] == Fraction(1, 125) and back[0] == Fraction(27, 125)


def test_a_lookup_takes_odds_as_printed(make_rulebook: Make) -> None:
    book = make_rulebook(ODDS)
    for odds, cell in (("2:1", "AR"), ("1-2", "AE"), ("17/8", "AR"), ("3", "DR")):
        shown = run_cli("lookup", book, "crt", "--at", f"odds={odds}", "--roll", "1")
        assert shown.exit_code == 0, shown.output
        assert shown.stdout.splitlines()[-1] == cell


def test_a_return_that_cannot_be_none_is_still_worked_out_as_a_distribution(
    make_rulebook: Make,
) -> None:
    # exact analysis lifts a `return` of dice (rulekit.analysis.lift); a return that may
    # be none in a procedure that may not return none runs by paths instead, to be checked
    from rulekit.book.checker import load
    from rulekit.engine.codegen_blocks import blocks
    from rulekit.engine.program import program_for

    book = make_rulebook(
        BFM
        + "procedure total -> int [7.4]\n    return roll 2d6 + 1\n"
        + "procedure odds_of(odds: number) -> combat_result or none [7.5]\n"
        + "    return crt(odds)\n"
    )
    checked = load(str(book))
    program = program_for(checked)
    kinds = {
        name: [lift.kind for lift in blocks(program, checked.book.procedures[name]).lifts.values()]
        for name in ("total", "attack", "odds_of")
    }
    assert kinds == {"total": ["return"], "attack": [], "odds_of": ["return"]}


def test_a_variant_sets_a_cell_by_its_odds_column(make_rulebook: Make) -> None:
    variant = 'variant "V" extends "../rulebook.rk" [9.0]\nset cell crt(1, 2:1) [9.1] = DE\n'
    book = make_rulebook(ODDS, **{"variants__v.rk": variant})
    shown = run_cli("lookup", f"{book}@v", "crt", "--at", "odds=2:1", "--roll", "1")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines()[-1] == "DE"  # AR in the rulebook


@pytest.mark.parametrize(
    "body,warned",
    [
        ("    if x > 3:\n        return x\n", True),
        ("    if x > 3:\n        return x\n    else:\n        return 0\n", False),
        ("    while true:\n        return x\n", False),
        ("    while true:\n        if x > 3:\n            break\n        return x\n", True),
        ('    require x > 3 else "too small"\n    return x\n', False),
        ('    if x > 3:\n        return x\n    require false else "too small"\n', False),
        ("    for each y in [x]:\n        return y\n", True),
    ],
)
def test_a_procedure_that_may_fall_off_its_end_is_a_check_warning(
    make_rulebook: Make, body: str, warned: bool
) -> None:
    book = make_rulebook(
        'rulebook "N"\ndice d6 = 1..6 [1.0]\nprocedure p(x: int) -> int [2.0]\n' + body
    )
    shown = run_cli("check", book)
    assert shown.exit_code == 0, shown.output  # a warning, not an error
    message = "rulebook.rk:3:11: warning: procedure p may end without a return, but it says int"
    assert (message in shown.output) == warned, shown.output
