"""Exact analysis by situations against brute force, on procedures generated at random:
rolls, a table, a modifier list, a decision, state, branches and bounded loops. The brute
force is the path-by-path enumeration (every path of dice run from the start), which the
situations must match exactly wherever it finishes."""

from __future__ import annotations

import tempfile
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

ROLLS = ["roll d3", "roll d4", "roll 2d3", "roll highest of 2 d4", "roll d6"]


@st.composite
def value(draw: Any, names: list[str]) -> str:
    """An int expression over the locals defined so far."""
    kind = draw(st.integers(0, 9))
    if kind == 0 or not names:
        return draw(st.sampled_from(ROLLS))
    name = draw(st.sampled_from(names))
    # values with several parts that throw (worked out as distributions: analysis.lift)
    if kind == 6:
        return f"f(roll d4, {name}) + (roll d3)"
    if kind == 7:
        return f"max(roll d3, {name}) - min(roll 2d3, t(roll: roll d4))"
    if kind == 8:
        return f"if roll d3 > 1 then {name} else roll d4"
    if kind == 9:
        return f"count(x for x in [roll d3, roll d4, {name}] if x >= 3)"
    if kind == 1:
        return f"{name} + {draw(st.integers(0, 2))}"
    if kind == 2:
        return "t(roll: roll d4)"
    if kind == 3:
        return f"roll d4 + m({name})"
    if kind == 4:
        return f"min({name}, s + 1)"
    return name


@st.composite
def block(draw: Any, names: list[str], depth: int, indent: str) -> list[str]:
    """Statements; ``names`` grows with the locals they define (shared with the caller)."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 6 if depth < 2 else 3))
        if kind <= 1:
            name = f"v{len(names)}"
            lines.append(f"{indent}let {name} = {draw(value(names))}")
            names.append(name)
        elif kind == 2 and names:
            lines.append(f"{indent}s += {draw(st.sampled_from(names))}")
        elif kind == 3:
            lines.append(f"{indent}s = min(s, 4)")
        elif kind == 4 and names:
            name = draw(st.sampled_from(names))
            inner = list(names)
            lines.append(f"{indent}if {name} >= {draw(st.integers(1, 4))}:")
            lines += draw(block(inner, depth + 1, indent + "    "))
            if draw(st.booleans()):
                lines.append(f"{indent}else:")
                lines += draw(block(list(names), depth + 1, indent + "    "))
        elif kind == 5:
            # a loop bounded by a counter, stopped early by a die
            counter = f"n{len(names)}"
            names.append(counter)
            lines.append(f"{indent}let {counter} = 0")
            lines.append(f"{indent}while {counter} < {draw(st.integers(1, 3))} and roll d3 < 3:")
            lines.append(f"{indent}    {counter} += 1")
            lines += draw(block(list(names), depth + 1, indent + "    "))
        else:
            name = f"c{len(names)}"
            default = draw(st.sampled_from(["1", "2", "s"]))
            lines.append(f'{indent}choose {name} from [1, 2, s] default {default} "pick"')
            names.append(name)
    return lines


@st.composite
def procedures(draw: Any) -> str:
    names: list[str] = []
    body = draw(block(names, 0, "    "))
    result = draw(st.sampled_from(names)) if names else "0"
    tail = draw(st.sampled_from([f"{result} + s", "s", f"{result}"]))
    return HEADER + "\nprocedure p -> int [2.0]\n" + "\n".join(body) + f"\n    return {tail}\n"


@SETTINGS
@given(procedures())
def test_situations_match_brute_force(text: str) -> None:
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
