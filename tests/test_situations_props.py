"""Exact analysis by situations against brute force, on procedures generated at random:
rolls, a table, a modifier list, a decision, state, branches and bounded loops. The brute
force is the path-by-path enumeration (every path of dice run from the start), which the
situations must match exactly wherever it finishes; and both must match an oracle that uses
no part of the engine: each generated procedure has a twin in plain Python, run over every
face of every die (``oracle``)."""

from __future__ import annotations

import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rulekit.analysis.prob import TooManyPaths, ask, exact
from rulekit.book.checker import check
from rulekit.book.loader import load_rulebook

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

HEADER = """rulebook "generated"
dice d3 = 1..3
dice d4 = 1..4
dice d6 = 1..6
state s: int = 0

table t [1.0]: roll d4 -> int
    1   | 0
    2-3 | 1
    4   | 3

modifiers m(x: int) [1.1]
    +1 if x >= 3 [1.1 A]
    -1 if x = 1  [1.1 B]

procedure f(a: int, b: int) -> int [1.2]
    if a > b:
        return a - b
    return s
"""

# each roll with the same dice in plain Python (R(n): a face of an n-sided die, 1..n)
ROLLS = [
    ("roll d3", "R(3)"),
    ("roll d4", "R(4)"),
    ("roll 2d3", "(R(3) + R(3))"),
    ("roll highest of 2 d4", "max(R(4), R(4))"),
    ("roll d6", "R(6)"),
]

# HEADER's table, modifiers and procedure f, written again in plain Python: the oracle below
# runs the generated procedure's Python twin over every face of every die, with no engine
PRELUDE = """
T = {1: 0, 2: 1, 3: 1, 4: 3}
def m(x):
    return (1 if x >= 3 else 0) + (-1 if x == 1 else 0)
def f(a, b):
    return a - b if a > b else st["s"]
"""


@st.composite
def value(draw: Any, names: list[str]) -> tuple[str, str]:
    """An int expression over the locals defined so far, and its Python twin."""
    kind = draw(st.integers(0, 9))
    if kind == 0 or not names:
        return draw(st.sampled_from(ROLLS))
    name = draw(st.sampled_from(names))
    # values with several parts that throw (worked out as distributions: analysis.lift)
    if kind == 6:
        return f"f(roll d4, {name}) + (roll d3)", f"(f(R(4), {name}) + R(3))"
    if kind == 7:
        return (
            f"max(roll d3, {name}) - min(roll 2d3, t(roll: roll d4))",
            f"(max(R(3), {name}) - min(R(3) + R(3), T[R(4)]))",
        )
    if kind == 8:
        return f"if roll d3 > 1 then {name} else roll d4", f"({name} if R(3) > 1 else R(4))"
    if kind == 9:
        return (
            f"count(x for x in [roll d3, roll d4, {name}] if x >= 3)",
            f"sum(1 for x in [R(3), R(4), {name}] if x >= 3)",
        )
    if kind == 1:
        k = draw(st.integers(0, 2))
        return f"{name} + {k}", f"({name} + {k})"
    if kind == 2:
        return "t(roll: roll d4)", "T[R(4)]"
    if kind == 3:
        return f"roll d4 + m({name})", f"(R(4) + m({name}))"
    if kind == 4:
        return f"min({name}, s + 1)", f"min({name}, st['s'] + 1)"
    return name, name


Lines = list[tuple[str, str]]


@st.composite
def block(draw: Any, names: list[str], depth: int, indent: str) -> Lines:
    """Statements and their Python twins; ``names`` grows with the locals they define
    (shared with the caller)."""
    lines: Lines = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 6 if depth < 2 else 3))
        if kind <= 1:
            name = f"v{len(names)}"
            rk, py = draw(value(names))
            lines.append((f"{indent}let {name} = {rk}", f"{indent}{name} = {py}"))
            names.append(name)
        elif kind == 2 and names:
            name = draw(st.sampled_from(names))
            lines.append((f"{indent}s += {name}", f"{indent}st['s'] += {name}"))
        elif kind == 3:
            lines.append((f"{indent}s = min(s, 4)", f"{indent}st['s'] = min(st['s'], 4)"))
        elif kind == 4 and names:
            name = draw(st.sampled_from(names))
            inner = list(names)
            k = draw(st.integers(1, 4))
            lines.append((f"{indent}if {name} >= {k}:", f"{indent}if {name} >= {k}:"))
            lines += draw(block(inner, depth + 1, indent + "    "))
            if draw(st.booleans()):
                lines.append((f"{indent}else:", f"{indent}else:"))
                lines += draw(block(list(names), depth + 1, indent + "    "))
        elif kind == 5:
            # a loop bounded by a counter, stopped early by a die
            counter = f"n{len(names)}"
            names.append(counter)
            k = draw(st.integers(1, 3))
            lines.append((f"{indent}let {counter} = 0", f"{indent}{counter} = 0"))
            lines.append(
                (
                    f"{indent}while {counter} < {k} and roll d3 < 3:",
                    f"{indent}while {counter} < {k} and R(3) < 3:",
                )
            )
            lines.append((f"{indent}    {counter} += 1", f"{indent}    {counter} += 1"))
            lines += draw(block(list(names), depth + 1, indent + "    "))
        else:
            name = f"c{len(names)}"
            default = draw(st.sampled_from(["1", "2", "s"]))
            lines.append(
                (
                    f'{indent}choose {name} from [1, 2, s] default {default} "pick"',
                    f"{indent}{name} = CHOOSE([1, 2, st['s']], {['1', '2', 's'].index(default)})",
                )
            )
            names.append(name)
    return lines


@st.composite
def procedures_and_twins(draw: Any) -> tuple[str, str]:
    """A procedure p, and its Python twin: ``p(R, CHOOSE)`` returns its result, R(n)
    throwing an n-sided die, CHOOSE(options, default) answering a decision."""
    names: list[str] = []
    body = draw(block(names, 0, "    "))
    result = draw(st.sampled_from(names)) if names else "0"
    tail = draw(st.sampled_from([(f"{result} + s", f"{result} + st['s']"), ("s", "st['s']"),
                                 (result, result)]))  # fmt: skip
    text = HEADER + "\nprocedure p -> int [2.0]\n" + "\n".join(rk for rk, _ in body)
    text += f"\n    return {tail[0]}\n"
    twin = PRELUDE + "def p(R, CHOOSE):\n    st['s'] = 0\n" + "\n".join(py for _, py in body)
    twin += f"\n    return {tail[1]}\n"
    return text, twin


class NeedsMore(Exception):
    """The run reached an event (a die or a decision) past the ones it was given."""

    def __init__(self, kind: str, options: int, default: int = 0) -> None:
        self.kind, self.options, self.default = kind, options, default


def run_twin(twin: str, events: list[int]) -> int:
    """The twin run with the given faces (0-based) and decisions, in the order it meets them."""
    scope: dict[str, Any] = {"st": {"s": 0}}
    exec(twin, scope)  # the twin is generated above, from the same draws as the rulebook
    at = iter(events)

    def roll(n: int) -> int:
        face = next(at, None)
        if face is None:
            raise NeedsMore("die", n)
        return face + 1

    def choose(options: list[int], default: int) -> int:
        pick = next(at, None)
        if pick is None:
            raise NeedsMore("decision", len(options), default)
        return options[pick]

    return int(scope["p"](roll, choose))


def worth(twin: str, events: list[int], pick: Any) -> Fraction:
    """The expected result from ``events`` on: every face of every die, and at each decision
    the option ``pick(worths, default)`` chooses (recursion over the tree of events)."""
    try:
        return Fraction(run_twin(twin, events))
    except NeedsMore as more:
        worths = [worth(twin, [*events, i], pick) for i in range(more.options)]
        if more.kind == "die":
            return sum(worths, Fraction(0)) / more.options
        return pick(worths, more.default)  # type: ignore[no-any-return]


def oracle(twin: str) -> dict[int, Fraction]:
    """The distribution of the result under the defaults, over every face of every die."""
    out: dict[int, Fraction] = {}
    todo: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while todo:
        events, p = todo.pop()
        try:
            result = run_twin(twin, events)
        except NeedsMore as more:
            if more.kind == "die":
                todo += [([*events, i], p / more.options) for i in range(more.options)]
            else:
                todo.append(([*events, more.default], p))
            continue
        out[result] = out.get(result, Fraction(0)) + p
    return out


@SETTINGS
@given(procedures_and_twins())
def test_situations_match_brute_force(pair: tuple[str, str]) -> None:
    text, twin = pair
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "rulebook.rk").write_text(text, encoding="utf-8")
        checked = check(load_rulebook(tmp))
    try:
        brute = exact(checked, ask(checked, "p"), 5_000, method="paths")
    except TooManyPaths:
        assume(False)
        return
    merged = exact(checked, ask(checked, "p"))
    assert [(o.value, o.p) for o in merged.outcomes] == [(o.value, o.p) for o in brute.outcomes], (
        text
    )
    assert merged.unresolved == 0
    # and both against plain Python over the same dice, which uses no part of the engine
    assert {o.value: o.p for o in merged.outcomes} == oracle(twin), (text, twin)
