"""Exact outcome distributions: every path of dice a procedure can take, weighted exactly.

A procedure is run again and again with a dice source that walks the tree of throws depth
first: each run replays a prefix of choices, takes the first outcome at every throw beyond
it, and records how many outcomes each throw had; the next run moves the deepest throw that
has outcomes left to its next one. A roll of several alike dice is one throw whose
outcomes are the multisets of faces, weighted by how many orderings give each. So a
procedure that rolls only when an earlier roll says so explores only those branches, and
the weights are exact fractions that must sum to one.

Decisions go through the policy (the rulebook's defaults, or ``--decide`` answers), never
through the dice.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod
from typing import Any

from attrs import define, field

from rulekit.book import types as t
from rulekit.book.checker import Checked, check_expression
from rulekit.book.inputs import Inputs, Target, assignments, check_decisions, find_target
from rulekit.engine.dice import Die, SeededDice
from rulekit.engine.interpreter import DEFAULT_STEP_BUDGET, Interpreter
from rulekit.engine.session import _slots, bind_inputs, make_policy
from rulekit.engine.values import EnumValue, show, to_json, unwrap
from rulekit.errors import InputError, error
from rulekit.language import nodes as n
from rulekit.language.parser import parse_expression
from rulekit.limits import DEFAULT_MAX_PATHS


class TooManyPaths(InputError):
    """The procedure has more paths of dice than the budget allows."""


@cache
def _multisets(faces: tuple[int, ...], count: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every multiset of ``count`` throws of a die, with the number of ways of throwing it
    (orderings, times the faces that read alike: a die ``2, 3, 3, 4, 4, 5`` shows 3 two ways),
    out of ``len(faces) ** count``."""
    alike = {f: faces.count(f) for f in faces}
    out = []
    for combo in combinations_with_replacement(sorted(alike), count):
        kinds = set(combo)
        orders = factorial(count) // prod(factorial(combo.count(f)) for f in kinds)
        out.append((combo, orders * prod(alike[f] ** combo.count(f) for f in kinds)))
    return tuple(out)


@define
class PathDice:
    """A dice source for one path of the tree: replays ``prefix``, then takes outcome 0."""

    prefix: list[int]
    choices: list[int] = field(factory=list)
    sizes: list[int] = field(factory=list)
    weight: Fraction = Fraction(1)

    def _next(self, size: int) -> int:
        position = len(self.choices)
        choice = self.prefix[position] if position < len(self.prefix) else 0
        self.choices.append(choice)
        self.sizes.append(size)
        return choice

    def throw(self, die: Die, where: str) -> int:
        choice = self._next(len(die.faces))
        self.weight /= len(die.faces)
        return die.faces[choice]

    def throw_group(self, die: Die, count: int, where: str) -> tuple[int, ...]:
        outcomes = _multisets(die.faces, count)
        choice = self._next(len(outcomes))
        faces, ways = outcomes[choice]
        self.weight *= Fraction(ways, len(die.faces) ** count)
        return faces

    def next_prefix(self) -> list[int] | None:
        """The prefix of the next path in depth-first order; None when all are done."""
        for i in range(len(self.choices) - 1, -1, -1):
            if self.choices[i] + 1 < self.sizes[i]:
                return [*self.choices[:i], self.choices[i] + 1]
        return None


@define
class Defaults:
    """Decision defaults shared by every path: the dice thrown so far and the number of
    decisions made fix everything that happened, so a default worked out once holds."""

    dice: PathDice | None = None
    known: dict[Any, int] = field(factory=dict)

    def key(self, decisions: int) -> Any:
        assert self.dice is not None
        return (decisions, tuple(self.dice.choices))


@define
class Outcome:
    """One distinct result and its probability (exact, or estimated by sampling)."""

    value: Any
    p: Fraction


@define
class Distribution:
    """The outcomes of a procedure, table or expression, and how they were found."""

    what: str
    outcomes: list[Outcome]
    paths: int
    exact: bool = True
    samples: int = 0
    provisional_used: list[str] = field(factory=list)
    note: str | None = None  # which one ran, when a chart code numbers a table and procedures

    @property
    def mean(self) -> Fraction | None:
        """The expected value when every result is a number."""
        values = [unwrap(o.value) for o in self.outcomes]
        if not values or any(isinstance(v, bool) or not isinstance(v, int | float) for v in values):
            return None
        return sum(
            (o.p * Fraction(v) for o, v in zip(self.outcomes, values, strict=True)), Fraction(0)
        )

    def p(self, value: Any) -> Fraction:
        """The probability of a result, given as rulekit shows it (``"Hit"``, ``7``)."""
        for o in self.outcomes:
            if o.value == value or show(o.value) == str(value):
                return o.p
        return Fraction(0)

    def to_json(self) -> dict[str, Any]:
        mean = self.mean
        return {
            "what": self.what,
            "exact": self.exact,
            "paths": self.paths,
            "samples": self.samples,
            "outcomes": [
                {"value": to_json(o.value), "p": str(o.p), "float": float(o.p)}
                for o in self.outcomes
            ],
            "mean": None if mean is None else {"p": str(mean), "float": float(mean)},
            "provisional_used": self.provisional_used,
        }


def _order(value: Any) -> tuple[int, Any]:
    """Numbers ascending, enum members in declared order, then anything else by its text."""
    v = unwrap(value)
    if v is None:
        return (0, 0)
    if isinstance(v, bool):
        return (1, int(v))
    if isinstance(v, int | float):
        return (2, v)
    if isinstance(v, EnumValue):
        return (3, (v.enum, v.index))
    return (4, show(v))


@define
class Question:
    """What to run on each path: set-up, the run itself, and what to report of it."""

    target: Target
    run: Callable[[Interpreter], Any]
    setup: Callable[[Interpreter], dict[str, Any]]
    of: n.Expr | None = None
    describe: str = ""


def ask(
    checked: Checked,
    name: str,
    *,
    given: str | Mapping[str, Any] | None = None,
    at: Inputs = (),
    decide: Inputs = (),
    of: str | None = None,
) -> Question:
    """Turn a command line's target, inputs and ``--of`` into a question for every path."""
    target = find_target(checked, name, ("procedure", "table", "modifiers"))
    pairs = assignments(at, "--at")
    decisions = assignments(decide, "--decide")
    check_decisions(checked, decisions, "--decide")
    expr = _of_expression(checked, target, of) if of is not None else None

    def setup(interp: Interpreter) -> dict[str, Any]:
        interp.policy = make_policy(decisions)
        return bind_inputs(checked, target, interp, given, pairs)

    def run(interp: Interpreter) -> Any:
        args = setup(interp)
        if target.kind == "table":
            result = interp.lookup(target.name, args)
        else:
            result = interp.call(target.name, args)
        if expr is None:
            return result
        return interp.evaluate(expr, {**args, "result": result})

    describe = f"{target.kind} {target.name}" + (f" [{target.ref.text}]" if target.ref else "")
    if of is not None:
        describe += f", of: {of}"
    return Question(target, run, setup, expr, describe)


def _of_expression(checked: Checked, target: Target, text: str) -> n.Expr:
    checked.book.sources.add("--of", text)  # so that errors can quote it
    expr = parse_expression(text, "--of")
    names = dict(_slots(checked, target))
    names["result"] = _result_type(checked, target)
    _, diags = check_expression(checked, expr, names)
    if diags:
        raise InputError(diags)
    return expr


def _result_type(checked: Checked, target: Target) -> t.Type:
    book = checked.book
    if target.kind == "procedure":
        decl = book.procedures[target.name]
        return checked.vocab.type_of(decl.returns) if decl.returns is not None else t.ANY
    if target.kind == "modifiers":
        return t.INT
    return t.ANY


def _key(value: Any) -> str:
    return json.dumps(to_json(value), sort_keys=True)


def exact(
    checked: Checked,
    question: Question,
    max_paths: int = DEFAULT_MAX_PATHS,
    max_steps: int = DEFAULT_STEP_BUDGET,
) -> Distribution:
    """Every path of dice, weighted exactly; an error beyond ``max_paths`` paths."""
    totals: dict[str, Outcome] = {}
    provisional: list[str] = []
    prefix: list[int] | None = []
    paths = 0
    defaults = Defaults()
    while prefix is not None:
        paths += 1
        if paths > max_paths:
            raise TooManyPaths(
                [
                    error(
                        f"{question.describe} has more than {max_paths} paths of dice",
                        where="--max-paths",
                        hint="raise --max-paths, or estimate it by sampling: "
                        "rulekit prob ... --samples 100000 (or rulekit simulate)",
                    )
                ]
            )
        dice = defaults.dice = PathDice(prefix)
        interp = Interpreter(checked, dice, max_steps=max_steps)
        interp.muted = True  # untraced: only the value and the provisional values are read
        interp.defaults = defaults
        value = unwrap(question.run(interp))  # a roll counts as its total
        key = _key(value)
        if key in totals:
            totals[key].p += dice.weight
        else:
            totals[key] = Outcome(value, dice.weight)
        for item in interp.trace.provisional_used:
            if item not in provisional:
                provisional.append(item)
        prefix = dice.next_prefix()
    outcomes = sorted(totals.values(), key=lambda o: _order(o.value))
    total = sum((o.p for o in outcomes), Fraction(0))
    if total != 1:  # the enumeration itself is wrong: a bug, not bad input
        raise AssertionError(f"probabilities of {question.describe} sum to {total}, not 1")
    return Distribution(question.describe, outcomes, paths, provisional_used=provisional)


def sampled(
    checked: Checked,
    question: Question,
    samples: int,
    seed: int,
    max_steps: int = DEFAULT_STEP_BUDGET,
) -> Distribution:
    """Monte Carlo: ``samples`` seeded runs; probabilities are observed frequencies."""
    counts: dict[str, list[Any]] = {}
    provisional: list[str] = []
    dice = SeededDice(seed)
    for _ in range(samples):
        interp = Interpreter(checked, dice, max_steps=max_steps)
        interp.muted = True  # untraced, as above
        value = unwrap(question.run(interp))
        entry = counts.setdefault(_key(value), [value, 0])
        entry[1] += 1
        for item in interp.trace.provisional_used:
            if item not in provisional:
                provisional.append(item)
    outcomes = [Outcome(v, Fraction(c, samples)) for v, c in counts.values()]
    outcomes.sort(key=lambda o: _order(o.value))
    return Distribution(
        question.describe, outcomes, 0, exact=False, samples=samples, provisional_used=provisional
    )


__all__ = [
    "DEFAULT_MAX_PATHS",
    "Distribution",
    "Outcome",
    "PathDice",
    "Question",
    "TooManyPaths",
    "ask",
    "exact",
    "sampled",
]
