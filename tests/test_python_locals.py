"""A procedure's locals as Python variables of its generated function (rulekit.engine.
codegen_locals): no dict read or written in the body, and where code outside the function
reads the locals (a decision's default and policy, a comprehension's helper, a draw) the
same values, steps and trace as when every local lived in the dict."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulekit.book.checker import Checked, load
from rulekit.engine import codegen
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import DecisionRequest
from rulekit.engine.values import to_json

BOOK = """rulebook "locals"
dice d6 = 1..6
state kept: int = 0 [1.0]
procedure plus(a: int) -> int [1.0]
    let b = a + 1
    return b * 2
procedure pick(n: int) -> int [1.0]
    let base = n + 1
    let cup = [base, base + 1, base + 2, base + 3]
    let first = draw from cup
    let bigger = [x + base for x in cup if x > n]
    choose k from bigger default max(x for x in bigger if x != first + base) [1.0] "for {base}"
    note "base {base}, chose {k}, cup {cup}, first {first}"
    let total = 0
    for each x in cup:
        total += x
    let again = [draw from cup for y in [1]]
    choose m from [1, 2] default first(again) - first(again) + 1 [1.0] "then {total}"
    kept = total + m
    note "left {cup}, total {total}, again {again}, m {m}"
    return total + k + plus(m)
"""


class Watching:
    """Chooses the last option and keeps the frame's locals as each decision saw them."""

    def __init__(self) -> None:
        self.interp: Interpreter | None = None
        self.seen: list[dict[str, Any]] = []

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        assert self.interp is not None
        self.seen.append({k: to_json(v) for k, v in self.interp.locals.items()})
        return request.options[-1], "watching"


def _run(book: Path, seed: int) -> tuple[str, list[dict[str, Any]]]:
    from rulekit.engine.dice import SeededDice

    checked = load(str(book))
    policy = Watching()
    interp = Interpreter(checked, SeededDice(seed), policy)
    policy.interp = interp
    result = interp.call("pick", {"n": seed})
    events = interp.trace.to_json()
    kept = to_json(interp.state.values["kept"])
    shown = json.dumps([to_json(result), interp.steps, events, kept])
    return shown, policy.seen


def test_a_parameter_and_a_let_are_python_variables(silent_war: Checked) -> None:
    comp = Interpreter(silent_war).code
    decl = silent_war.book.procedures["torpedo_improvement_phase"]
    for traced in (True, False):
        source = codegen.procedure(comp, decl, traced).source
        assert "L[" not in source and " in L" not in source and "i.locals" not in source
        assert "_l2 = _table(" in source  # let needed = torpedo_improvement(...)


def test_the_parameter_is_read_from_the_dict_once(make_rulebook: Callable[..., Path]) -> None:
    checked = load(str(make_rulebook(BOOK)))
    comp = Interpreter(checked).code
    source = codegen.procedure(comp, checked.book.procedures["plus"], True).source
    lines = source.splitlines()
    assert lines[1:3] == ["    L = i.locals", "    _l1 = L['a']"]
    body = "\n".join(lines[3:])
    assert "L" not in body.replace("_l", "")  # nothing else reads the dict
    assert "_l2 = " in body  # let b


def test_locals_that_escape_give_the_same_run(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(BOOK)
    runs = [_run(book, seed) for seed in range(1, 7)]
    notes = [e for e in json.loads(runs[0][0])[2] if e["event"] == "note"]
    assert len(notes) == 2 and notes[0]["text"].startswith("base 2, chose ")
    # the policy saw the procedure's locals as they were when it was asked
    first_seen, second_seen = runs[0][1]
    assert first_seen["base"] == 2 and len(first_seen["cup"]) == 3 and "k" not in first_seen
    assert second_seen["total"] == sum(second_seen["cup"]) + second_seen["again"][0]
    assert second_seen["k"] == first_seen["bigger"][-1]
    compiled = codegen.procedure(
        Interpreter(load(str(book))).code, load(str(book)).book.procedures["pick"], True
    ).source
    assert "_sync(L, " in compiled  # written to the dict before the decision
    assert runs == [_run(book, seed) for seed in range(1, 7)]  # the same again


def test_the_same_run_as_with_locals_in_the_dict(
    make_rulebook: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    book = make_rulebook(BOOK)
    ours = [_run(book, seed) for seed in range(1, 7)]
    # every local kept in the dict, as before locals were Python variables
    monkeypatch.setattr(codegen.Gen, "python_locals", lambda self, decl: None)
    before = [_run(book, seed) for seed in range(1, 7)]
    assert ours == before
