"""Property tests: rulebook text generated along the grammar, checked against a Python model."""

from __future__ import annotations

import re
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit.book.checker import Checked, check
from rulekit.book.loader import load_rulebook
from rulekit.engine.session import resolve

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def build(text: str) -> Checked:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "rulebook.rk").write_text(text, encoding="utf-8")
        return check(load_rulebook(str(root)))


# ---- tables: a random partition of a die's faces into ranges --------------------------------

# the grammar's own words ("derived", "none", "x"...) read as markers or values in a cell, not
# as text: hypothesis may try them, as it tries the string constants of the code under test
KEYWORDS = frozenset(
    re.findall(r'"([a-z_]+)"i?', (ROOT / "rulekit" / "language" / "grammar.lark").read_text())
)
words = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8
).filter(lambda w: w.lower() not in KEYWORDS)
cell_text = st.lists(words, min_size=1, max_size=3).map(" ".join)


@st.composite
def partitions(draw: Any) -> tuple[int, list[tuple[int, int]]]:
    faces = draw(st.integers(min_value=2, max_value=12))
    cuts = sorted(draw(st.sets(st.integers(min_value=2, max_value=faces), max_size=faces - 1)))
    bounds = [1, *cuts, faces + 1]
    return faces, [(bounds[i], bounds[i + 1] - 1) for i in range(len(bounds) - 1)]


def range_text(low: int, high: int, style: int) -> str:
    if low == high:
        return str(low)
    return [f"{low}-{high}", f"{low}..{high}"][style % 2]


@SETTINGS
@given(partitions(), st.data())
def test_generated_range_table_looks_up_every_face(part: Any, data: Any) -> None:
    faces, ranges = part
    values = [data.draw(cell_text) for _ in ranges]
    styles = [data.draw(st.integers(0, 1)) for _ in ranges]
    lines = [
        f"    {range_text(lo, hi, s)} | {v}"
        for (lo, hi), v, s in zip(ranges, values, styles, strict=True)
    ]
    book = build(
        f"dice d{faces} = 1..{faces}\ntable t [1.0]: roll d{faces} -> text\n"
        + "\n".join(lines)
        + "\n"
    )
    assert not book.errors, [d.message for d in book.errors]
    table = book.tables["t"]
    for (low, high), value in zip(ranges, values, strict=True):
        for face in range(low, high + 1):
            assert table.lookup([face])[0].value == value


@SETTINGS
@given(partitions(), st.integers(min_value=0, max_value=10))
def test_a_missing_row_is_a_gap(part: Any, which: int) -> None:
    faces, ranges = part
    if len(ranges) < 2:
        return
    dropped = ranges[which % len(ranges)]
    kept = [r for r in ranges if r != dropped]
    lines = [f"    {range_text(lo, hi, 0)} | x" for lo, hi in kept]
    book = build(
        f"dice d{faces} = 1..{faces}\ntable t [1.0]: roll d{faces} -> text\n"
        + "\n".join(lines)
        + "\n"
    )
    gap = range_text(*dropped, 0)
    assert [d.message for d in book.errors] == [f"no row for roll {gap} of d{faces}"]


@SETTINGS
@given(partitions(), st.integers(min_value=0, max_value=10))
def test_a_widened_row_is_an_overlap(part: Any, which: int) -> None:
    faces, ranges = part
    if len(ranges) < 2:
        return
    i = which % (len(ranges) - 1)
    low, high = ranges[i]
    ranges = [*ranges[:i], (low, high + 1), *ranges[i + 1 :]]
    lines = [f"    {lo}..{hi} | x" for lo, hi in ranges]
    book = build(
        f"dice d{faces} = 1..{faces}\ntable t [1.0]: roll d{faces} -> text\n"
        + "\n".join(lines)
        + "\n"
    )
    assert any("both cover roll" in d.message for d in book.errors)


# ---- a grid: enum rows x die columns -------------------------------------------------------


@SETTINGS
@given(st.integers(1, 4), st.integers(2, 6), st.data())
def test_generated_grid(rows: int, faces: int, data: Any) -> None:
    names = [f"R{i}" for i in range(rows)]
    cells = [[data.draw(cell_text) for _ in range(faces)] for _ in names]
    header = "    roll | " + " | ".join(str(f) for f in range(1, faces + 1))
    body = "\n".join(
        f"    {name} | " + " | ".join(row) for name, row in zip(names, cells, strict=True)
    )
    text = (
        f"dice d{faces} = 1..{faces}\nenum r = {' '.join(names)}\n"
        f"table g [1.0]: r x roll d{faces} -> text\n{header}\n{body}\n"
    )
    book = build(text)
    assert not book.errors, [d.message for d in book.errors]
    for i, name in enumerate(names):
        key = book.vocab.enum_value("r", name)
        for face in range(1, faces + 1):
            assert book.tables["g"].lookup([key, face])[0].value == cells[i][face - 1]


# ---- expressions: exact arithmetic, as Python computes it with fractions --------------------


@st.composite
def expressions(draw: Any, depth: int = 0) -> tuple[str, Fraction]:
    if depth > 3 or draw(st.booleans()):
        n = draw(st.integers(0, 20))
        return str(n), Fraction(n)
    op = draw(st.sampled_from(["+", "-", "*", "/"]))
    left_text, left = draw(expressions(depth + 1))
    right_text, right = draw(expressions(depth + 1))
    if op == "/" and right == 0:
        op = "+"
    value = {
        "+": left + right,
        "-": left - right,
        "*": left * right,
        "/": left / right if right else 0,
    }[op]
    return f"({left_text} {op} {right_text})", value


@SETTINGS
@given(expressions())
def test_arithmetic_is_exact(expr: tuple[str, Fraction]) -> None:
    text, value = expr
    book = build(f"procedure p [1.0]\n    return {text}\n")
    assert not book.errors
    result = resolve(book, "p").result
    assert Fraction(result) == value


# ---- modifier lists: the total is the sum of the lines whose condition holds -----------------


@SETTINGS
@given(
    st.lists(st.tuples(st.integers(-3, 3).filter(bool), st.booleans()), min_size=1, max_size=8),
    st.integers(1, 6),
)
def test_modifier_total_is_sum_of_applicable_lines(
    lines: list[tuple[int, bool]], natural: int
) -> None:
    body = "\n".join(
        f"    {'+' if v > 0 else '-'}{abs(v)} if {'true' if on else 'false'} [1.{i}]"
        for i, (v, on) in enumerate(lines)
    )
    book = build(
        f"dice d6 = 1..6\nmodifiers m [1.0]\n{body}\nprocedure p [2.0]\n    return roll d6 + m()\n"
    )
    assert not book.errors
    outcome = resolve(book, "p", dice=[natural])
    roll = outcome.trace.events[1]
    assert roll.total == natural + sum(v for v, on in lines if on)
    assert [t.rule for t in roll.modifiers] == [f"1.{i}" for i, (v, on) in enumerate(lines) if on]
