"""``rulekit fmt``: canonical layout, meaning kept, comments kept, files written safely."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import RULEBOOKS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import cell_text, expressions

from rulekit.errors import SyntaxProblem
from rulekit.language import fmt
from rulekit.language.fmt import FormatterBug, format_rulebook, format_text
from rulekit.language.parser import parse

BUNDLED = sorted(RULEBOOKS.glob("*/**/*.rk"))
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def fmt_ok(text: str) -> str:
    """Format, and check here too what format_text promises: equal nodes, a fixed point."""
    out = format_text(text, "t.rk")
    assert parse(out, "t.rk") == parse(text, "t.rk")
    assert format_text(out, "t.rk") == out
    return out


def body(text: str) -> str:
    """A test text: the lines after the first, which only names the rulebook."""
    return text.split("\n", 1)[1]


HEAD = 'rulebook "T"\n'


# ---- every bundled rulebook file ---------------------------------------------------------------


_CODE_OR_HASH = re.compile(r'"(?:[^"\\\n]|\\.)*"|\[[^\]\n]*\]|#')  # strings, brackets, "#"


def _comments(text: str) -> list[str]:
    """Every comment of a file, in order, as written: from the first "#" outside strings
    and brackets (rule references hold "#": [19.21 #2]) to the end of the line."""
    out = []
    for line in text.splitlines():
        for m in _CODE_OR_HASH.finditer(line):
            if m.group() == "#":
                out.append(line[m.start() :].rstrip())
                break
    return out


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: str(p.relative_to(RULEBOOKS)))
def test_bundled_file_keeps_its_meaning_and_comments(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    stat = path.stat()
    # format_text parses its result and raises FormatterBug unless the nodes are equal to
    # the original's and formatting the result again changes nothing (idempotence); the
    # fault-injection tests below show both checks fire.
    out = format_text(text, str(path))
    assert _comments(out) == _comments(text)
    assert out.endswith("\n") and not out.endswith("\n\n")
    assert all(line == line.rstrip() for line in out.splitlines())
    assert "\n\n\n" not in out
    assert path.read_text(encoding="utf-8") == text  # not written
    assert path.stat().st_mtime_ns == stat.st_mtime_ns


def test_the_bundled_files_are_found() -> None:
    names = {str(p.relative_to(RULEBOOKS)) for p in BUNDLED}
    assert {"silent_war/rulebook.rk", "silent_war/combat.rk", "gato_leader/vocabulary.rk"} <= names
    assert len(BUNDLED) > 50


def test_the_self_check_catches_a_change_of_meaning(monkeypatch: pytest.MonkeyPatch) -> None:
    real = fmt._layout
    monkeypatch.setattr(fmt, "_layout", lambda text, tokens: real(text, tokens).replace("2", "3"))
    with pytest.raises(FormatterBug, match="meaning"):
        format_text(HEAD + "const a = 2\n", "t.rk")


def test_the_self_check_catches_broken_output(monkeypatch: pytest.MonkeyPatch) -> None:
    real = fmt._layout
    monkeypatch.setattr(fmt, "_layout", lambda text, tokens: real(text, tokens) + "const\n")
    with pytest.raises(FormatterBug, match="does not parse"):
        format_text(HEAD + "const a = 2\n", "t.rk")


def test_the_self_check_catches_a_second_pass_that_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    real = fmt._layout
    monkeypatch.setattr(fmt, "_layout", lambda text, tokens: real(text, tokens) + "# more\n")
    with pytest.raises(FormatterBug, match="again"):
        format_text(HEAD + "const a = 2\n", "t.rk")


# ---- tables -------------------------------------------------------------------------------------

GRID = """\
table ultra [7.1] "ULTRA Table": war_period x roll d10 -> list of area
    roll|0-4|5-9
    WP1 |East China Sea, S. Philippine Sea|  Gilberts
    WP2|"a | b"|~Kuriles
"""


def test_grid_columns_line_up() -> None:
    assert body(fmt_ok(HEAD + GRID)) == (
        'table ultra [7.1] "ULTRA Table": war_period x roll d10 -> list of area\n'
        "    roll | 0-4                               | 5-9\n"
        "    WP1  | East China Sea, S. Philippine Sea | Gilberts\n"
        '    WP2  | "a | b"                           | ~Kuriles\n'
    )


def test_one_dimensional_key_value_lines_line_up() -> None:
    text = (
        HEAD
        + "table wf [7.2]: month -> int or no_roll\n"
        + "    Jan: 0 | Feb: X | Mar: 10\n"
        + "    Jul:1|Aug : 2\n"
    )
    assert body(fmt_ok(text)).splitlines()[1:] == [
        "    Jan: 0 | Feb: X | Mar: 10",
        "    Jul: 1 | Aug: 2",
    ]


def test_one_dimensional_rows_line_up() -> None:
    text = HEAD + "table s [7.2]: roll d10 -> area\n    0-1 | Marshall Islands\n    8 | North Sea\n"
    assert body(fmt_ok(text)).splitlines()[1:] == [
        "    0-1 | Marshall Islands",
        "    8   | North Sea",
    ]


def test_ragged_threshold_rows_line_up_by_column() -> None:
    text = (
        HEAD
        + "table ti [6.0]: torpedo x at_least ships_sunk -> int\n"
        + "    -2 | 70: 9 | 75: 8 | 80: 7\n"
        + "    -1 | 270: 9 | 280: 8\n"
    )
    assert body(fmt_ok(text)).splitlines()[1:] == [
        "    -2 | 70: 9  | 75: 8  | 80: 7",
        "    -1 | 270: 9 | 280: 8",
    ]


def test_numbers_are_right_aligned_records_and_actions_kept() -> None:
    text = (
        HEAD
        + "table ships [T1]: roll d100 -> freighter\n"
        + '    01 | 900 | F | "Heijo Maru"\n'
        + "    02 | 12800 | P | ( a , b )\n"
        + "    100 | ~50 | T | { x : 1 , y : ~ 2 }  =>  again( )\n"
    )
    assert body(fmt_ok(text)).splitlines()[1:] == [
        '    01  |   900 | F | "Heijo Maru"',
        "    02  | 12800 | P | (a, b)",
        "    100 |   ~50 | T | {x: 1, y: ~2} => again()",
    ]


def test_a_header_with_an_empty_first_cell_keeps_the_other_columns_in_line() -> None:
    text = HEAD + "table t [1.0]: a x roll d6 -> text\n    | 1-3 | 4-6\n    Long | x | y\n"
    lines = body(fmt_ok(text)).splitlines()[1:]
    assert lines == ["    |      1-3 | 4-6", "    Long | x   | y"]
    assert lines[0].rindex("|") == lines[1].rindex("|")


def test_options_stay_above_the_rows_and_a_comment_between_rows_is_kept() -> None:
    text = (
        HEAD
        + "table t [1.0]: roll d6 -> int\n"
        + '  provisional   "not printed"\n'
        + "  default  ~ 1\n"
        + "  1-3 | 10\n"
        + "        # the printed chart skips 4\n"
        + "  5-6 | 200\n"
    )
    assert body(fmt_ok(text)).splitlines()[1:] == [
        '    provisional "not printed"',
        "    default ~1",
        "    1-3 |  10",
        "    # the printed chart skips 4",
        "    5-6 | 200",
    ]


def test_a_row_written_over_several_lines_is_kept_as_written() -> None:
    text = HEAD + "table t [1.0]: roll d6 -> text\n    1-3 | (a,\n           b)\n    4-6 |   c\n"
    assert body(fmt_ok(text)).splitlines()[1:] == [
        "    1-3 | (a,",
        "           b)",
        "    4-6 | c",
    ]


# ---- comments, blank lines, indentation ---------------------------------------------------------


def test_comments_are_kept_word_for_word() -> None:
    text = (
        '\n\n# [5.0] "At the start of each turn"   #2 [§Dud]   \n'
        + HEAD
        + "procedure p [1.0]\n"
        + "  # about x\n"
        + "  let x=1 # crowded\n"
        + "  let y = 2        # at its column, moved with the line\n"
        + "        # deeper than the block\n"
        + "  return x\n"
        + "  # end of the block\n"
        + " # between blocks\n"
        + "\n\n\n"
        + "# the end\n\n\n"
    )
    assert fmt_ok(text) == (
        '# [5.0] "At the start of each turn"   #2 [§Dud]\n'
        + HEAD
        + "procedure p [1.0]\n"
        + "    # about x\n"
        + "    let x = 1  # crowded\n"
        + "    let y = 2        # at its column, moved with the line\n"
        + "    # deeper than the block\n"
        + "    return x\n"
        + "    # end of the block\n"
        + "# between blocks\n"
        + "\n"
        + "# the end\n"
    )


def test_messy_spacing_and_indentation_are_normalised() -> None:
    text = (
        'rulebook   "Messy"  edition "1"\r\n'
        + "dice d6 = 1 .. 6\n"
        + "dice d66 = tens_units( d6 , d6 )\n"
        + "track   torpedo -2 .. +2 = - 2 [6.0]\n"
        + 'enum area [2.1] "Areas"\n'
        + '  "East China Sea" aka "E. China Sea" , "ECS"\n'
        + "record r = a : int , b : list of text [T1]\n"
        + "kind k [3.0]\n"
        + '      x : int = 0 provisional "why"\n'
        + "modifiers m( s : int , t : bool = false ) [5.0]\n"
        + "  clamp - 5 ..\n"
        + "  - s  per s if not t\n"
        + "  +abs( s - 1 )\n"
        + 'procedure p( s : int ) -> int [6.0] "P"\t\n'
        + "  let x = roll 2d6+m( s )  - 1\n"
        + "  if x>3 and not ( s in [ 1 , 2 ] ) [6.2] :\n"
        + "        return -x\n"
        + "  elif x = - 1 : pass\n"
        + "  else :\n"
        + "        x += f( a : 1 , roll : roll d6 ) . b\n"
        + "  let y = [ q.a for q in xs if q . b != none ]\n"
        + "  return sum( u.points for u in display ) * - 1"
    )
    assert fmt_ok(text) == (
        'rulebook "Messy" edition "1"\n'
        + "dice d6 = 1..6\n"
        + "dice d66 = tens_units(d6, d6)\n"
        + "track torpedo -2..+2 = -2 [6.0]\n"
        + 'enum area [2.1] "Areas"\n'
        + '    "East China Sea" aka "E. China Sea", "ECS"\n'
        + "record r = a: int, b: list of text [T1]\n"
        + "kind k [3.0]\n"
        + '    x: int = 0 provisional "why"\n'
        + "modifiers m(s: int, t: bool = false) [5.0]\n"
        + "    clamp -5..\n"
        + "    -s per s if not t\n"
        + "    +abs(s - 1)\n"
        + 'procedure p(s: int) -> int [6.0] "P"\n'
        + "    let x = roll 2d6 + m(s) - 1\n"
        + "    if x > 3 and not (s in [1, 2]) [6.2]:\n"
        + "        return -x\n"
        + "    elif x = -1: pass\n"
        + "    else:\n"
        + "        x += f(a: 1, roll: roll d6).b\n"
        + "    let y = [q.a for q in xs if q.b != none]\n"
        + "    return sum(u.points for u in display) * -1\n"
    )


def test_continued_lines_are_kept_and_moved_with_their_block() -> None:
    text = (
        HEAD
        + "procedure p [1.0]\n  let z = g(1,\n        2)  # two lines\n  let w = 1 + \\\n      2\n"
    )
    assert body(fmt_ok(text)) == (
        "procedure p [1.0]\n"
        "    let z = g(1,\n"
        "          2)  # two lines\n"
        "    let w = 1 + \\\n"
        "        2\n"
    )


def test_an_empty_file_stays_empty() -> None:
    assert format_text("", "t.rk") == ""
    assert format_text("\n\n# only a comment   \n\n", "t.rk") == "# only a comment\n"


# ---- trailing rule references and titles -------------------------------------------------------


def test_statement_references_written_apart_go_to_the_margin() -> None:
    long = "let total = " + " + ".join(f"value_{i}" for i in range(8))
    text = (
        HEAD
        + "procedure p [1.0]\n"
        + "    let a = 1   [1.1]\n"
        + "    if a > 0:\n"
        + "        a += 1                [1.2]\n"
        + "    let b = 2 [1.3]\n"
        + f"    {long}    [1.4]\n"
        + '    choose c from [1, 2] default 1   [1.5] "Which?"\n'
    )
    lines = body(fmt_ok(text)).splitlines()
    assert lines[1] == "    let a = 1".ljust(80) + "[1.1]"
    assert lines[3] == "        a += 1".ljust(80) + "[1.2]"
    assert lines[4] == "    let b = 2 [1.3]"  # written after one space: stays
    assert lines[5] == f"    {long}  [1.4]"  # too long for the margin: two spaces
    assert lines[6] == "    choose c from [1, 2] default 1".ljust(80) + '[1.5] "Which?"'


def test_modifier_annotations_line_up_after_the_longest_line() -> None:
    text = (
        HEAD
        + "modifiers drm(sub: submarine) [13.1 A]\n"
        + "    clamp -5.. [13.1]\n"
        + '    +1 if sub.area in ultra_areas       [7.1] "ULTRA area"\n'
        + '    -congregating_risk(sub.area) [22.1] "Congregating Risk"\n'
        + "    +1 per sub.damage                                      [14.2 C1]\n"
        + "    -2 if weather = typhoon\n"
    )
    assert body(fmt_ok(text)).splitlines()[1:] == [
        "    clamp -5.. [13.1]",
        '    +1 if sub.area in ultra_areas  [7.1] "ULTRA area"',
        '    -congregating_risk(sub.area)   [22.1] "Congregating Risk"',
        "    +1 per sub.damage              [14.2 C1]",
        "    -2 if weather = typhoon",
    ]


def test_a_block_written_with_single_spaces_stays_so() -> None:
    text = (
        HEAD
        + "modifiers drm [1.0]\n"
        + '    +1 if a [7.1] "A"\n'
        + '    -1 if long_condition_name [7.2] "B"\n'
        + "kind k [2.0]\n"
        + "    x: int = 0 [2.1]\n"
        + "    long_name: int = 0 [2.2]\n"
    )
    assert fmt_ok(text) == text


def test_a_blank_line_ends_an_alignment_group() -> None:
    text = HEAD + "kind k [2.0]\n    x: int = 0  [2.1]\n\n    long_name: int = 0  [2.2]\n"
    assert fmt_ok(text) == text


# ---- whole rulebooks -----------------------------------------------------------------------------

MESSY_ENTRY = 'rulebook "B"\ninclude "a.rk"\ninclude "sub/b.rk"\nconst  x = 1\n'
TIDY_A = "const a = 2\n"
MESSY_B = "const b=3\n"


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_format_rulebook_reports_without_writing(make_rulebook: Callable[..., Path]) -> None:
    root = make_rulebook(
        MESSY_ENTRY, **{"a.rk": TIDY_A, "sub__b.rk": MESSY_B, "c.rk": "const c=1\n"}
    )
    before = _snapshot(root)
    changed = format_rulebook(root, write=False)
    assert [p.relative_to(root.resolve()) for p in changed] == [
        Path("rulebook.rk"),
        Path("sub/b.rk"),
    ]
    assert _snapshot(root) == before  # c.rk is not included: not the rulebook's


def test_format_rulebook_writes_changed_files(make_rulebook: Callable[..., Path]) -> None:
    root = make_rulebook(MESSY_ENTRY, **{"a.rk": TIDY_A, "sub__b.rk": MESSY_B})
    (root / "sub" / "b.rk").chmod(0o640)
    a_before = (root / "a.rk").stat().st_mtime_ns
    assert len(format_rulebook(root, write=True)) == 2
    assert (root / "rulebook.rk").read_text() == MESSY_ENTRY.replace("const  x", "const x")
    assert (root / "sub" / "b.rk").read_text() == "const b = 3\n"
    assert (root / "sub" / "b.rk").stat().st_mode & 0o777 == 0o640
    assert (root / "a.rk").stat().st_mtime_ns == a_before  # unchanged: not rewritten
    assert sorted(os.listdir(root)) == ["a.rk", "rulebook.rk", "sub"]  # no temp file left
    assert format_rulebook(root, write=True) == []


def test_a_syntax_error_is_reported_and_no_file_is_touched(
    make_rulebook: Callable[..., Path],
) -> None:
    root = make_rulebook(
        MESSY_ENTRY, **{"a.rk": "const a = 2\nconst b = = 3\n", "sub__b.rk": MESSY_B}
    )
    before = _snapshot(root)
    with pytest.raises(SyntaxProblem) as caught:
        format_rulebook(root, write=True)
    [diag] = caught.value.diagnostics
    assert re.fullmatch(r".*[/\\]a\.rk:2:11", diag.location), diag.location
    assert _snapshot(root) == before


def test_format_text_reports_a_syntax_error_with_its_position() -> None:
    with pytest.raises(SyntaxProblem) as caught:
        format_text(HEAD + "procedure p [1.0]\n    let x = = 1\n", "book/rulebook.rk")
    assert caught.value.diagnostics[0].location == "book/rulebook.rk:3:13"


# ---- properties ----------------------------------------------------------------------------------


@st.composite
def respaced(draw: Any, text: str) -> str:
    """The same tokens with other spacing: extra spaces where spaces are, and inside brackets."""
    out = []
    for ch in text:
        if ch == " ":
            ch = " " * draw(st.integers(1, 3))
        elif ch in "([":
            ch += " " * draw(st.integers(0, 2))
        elif ch in ")]":
            ch = " " * draw(st.integers(0, 2)) + ch
        out.append(ch)
    return "".join(out)


@SETTINGS
@given(expressions(), st.data())
def test_expression_spacing_is_canonical(expr: tuple[str, Any], data: Any) -> None:
    text = f"procedure p [1.0]\n    return {expr[0]}\n"
    assert fmt_ok(text) == text  # the generator writes expressions the canonical way
    messy = f"procedure p [1.0]\n  return {data.draw(respaced(expr[0]))}\n"
    assert fmt_ok(messy) == text


@SETTINGS
@given(st.integers(1, 4), st.integers(1, 5), st.data())
def test_generated_tables_line_up(rows: int, cols: int, data: Any) -> None:
    cells = [[f"R{r}"] + [data.draw(cell_text) for _ in range(cols)] for r in range(rows)]
    gaps = st.text(alphabet=" ", max_size=3)
    lines = [
        "  " + row[0] + "".join(data.draw(gaps) + "|" + data.draw(gaps) + c for c in row[1:])
        for row in cells
    ]
    text = "enum r = " + " ".join(f"R{r}" for r in range(rows)) + "\n"
    text += "table g [1.0]: r x n: int -> text\n" + "\n".join(lines) + "\n"
    out = fmt_ok(text).splitlines()[2:]
    bars = {tuple(i for i, ch in enumerate(line) if ch == "|") for line in out}
    assert len(bars) == 1  # every row has its separators at the same columns
    assert [[c.strip() for c in line.split("|")] for line in out] == cells
