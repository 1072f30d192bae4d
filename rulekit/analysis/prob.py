"""Exact outcome distributions: the question asked, and every path of dice it can take.

``exact`` solves a procedure by its situations (rulekit.analysis.situations) unless asked
for its paths; a table or modifier list that only computes is asked on one interpreter, its
rolls thrown as their totals (``_by_outcomes``); the rest and ``method="paths"`` are solved
here, path by path.
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

import time
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from rulekit.analysis.lift import SituationDice
from rulekit.analysis.outcomes import (
    Defaults,
    Distribution,
    Outcome,
    PathDice,
    Question,
    TooManyPaths,
    outcome_key,
    outcome_order,
    retried,
)
from rulekit.analysis.situations import solve_by_situations
from rulekit.book import types as t
from rulekit.book.checker import Checked, check_expression
from rulekit.book.inputs import Inputs, Target, assignments, check_decisions, find_target
from rulekit.engine.dice import SeededDice
from rulekit.engine.interpreter import DEFAULT_STEP_BUDGET, Interpreter
from rulekit.engine.program import program_for
from rulekit.engine.reach import pure
from rulekit.engine.session import bind_inputs, input_slots, make_policy
from rulekit.engine.values import unwrap
from rulekit.errors import InputError, error
from rulekit.language import nodes as n
from rulekit.language.parser import parse_expression
from rulekit.limits import DEFAULT_MAX_PATHS, DEFAULT_MAX_SITUATIONS


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
    expr = of_expression(checked, target, of) if of is not None else None

    def setup(interp: Interpreter) -> dict[str, Any]:
        interp.use_policy(make_policy(decisions))
        return bind_inputs(checked, target, interp, given, pairs)

    def run(interp: Interpreter) -> Any:
        return answer(interp, setup(interp))

    def answer(interp: Interpreter, args: dict[str, Any]) -> Any:
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
    return Question(target, run, setup, expr, describe, answer)


def of_expression(checked: Checked, target: Target, text: str, where: str = "--of") -> n.Expr:
    """``text`` parsed and checked with the target's inputs and its ``result`` in scope."""
    checked.book.sources.add(where, text)  # so that errors can quote it
    expr = parse_expression(text, where)
    names = dict(input_slots(checked, target))
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


def exact(
    checked: Checked,
    question: Question,
    max_paths: int = DEFAULT_MAX_PATHS,
    max_steps: int = DEFAULT_STEP_BUDGET,
    *,
    method: str = "situations",
    max_situations: int = DEFAULT_MAX_SITUATIONS,
    tolerance: float = 0.0,
    max_seconds: float | None = None,
) -> Distribution:
    """The exact distribution. A procedure is solved by its situations (runs that reach
    the same situation merged: rulekit.analysis.situations), unless ``method`` is
    ``"paths"``; a table or modifier list, and ``"paths"``, by every path of dice, an
    error beyond ``max_paths`` paths."""
    if method == "situations" and question.target.kind == "procedure":
        return solve_by_situations(
            checked,
            question,
            max_situations=max_situations,
            max_paths=max_paths,
            max_steps=max_steps,
            max_seconds=max_seconds,
            tolerance=tolerance,
        )
    deadline = _Deadline(question, max_seconds)
    if method == "situations" and question.answer is not None and _computes(checked, question):
        full: set[str] = set()
        answer = question.answer
        return retried(
            lambda: _by_outcomes(checked, question, answer, full, max_paths, max_steps, deadline),
            full.add,
        )
    defaults = Defaults()

    def throw(prefix: list[int]) -> PathDice:
        dice = defaults.dice = PathDice(prefix, limit=max_paths)
        return dice

    def run(dice: PathDice) -> tuple[Any, list[str]]:
        interp = Interpreter(checked, dice, max_steps=max_steps)
        interp.mute()  # untraced: only the value and the provisional values are read
        interp.remember_defaults(defaults)
        return question.run(interp), interp.trace.provisional_used

    return _enumerate(question, max_paths, throw, run, deadline)


def _enumerate(
    question: Question,
    max_paths: int,
    throw: Callable[[list[int]], PathDice],
    run: Callable[[PathDice], tuple[Any, list[str]]],
    deadline: _Deadline | None = None,
) -> Distribution:
    """Every path of dice, depth first: ``throw`` makes the dice of a path from its prefix,
    ``run`` runs it (its value and the provisional values it used); equal values add up."""
    totals: dict[str, Outcome] = {}
    provisional: list[str] = []
    prefix: list[int] | None = []
    paths = 0
    while prefix is not None:
        paths += 1
        if paths > max_paths:
            raise _too_many_paths(question, max_paths)
        if deadline is not None:
            deadline.check(paths)
        dice = throw(prefix)
        value, used = run(dice)
        value = unwrap(value)  # a roll counts as its total
        key = outcome_key(value)
        if key in totals:
            totals[key].p += dice.probability()
        else:
            totals[key] = Outcome(value, dice.probability())
        for item in used:
            if item not in provisional:
                provisional.append(item)
        prefix = dice.next_prefix()
    outcomes = sorted(totals.values(), key=lambda o: outcome_order(o.value))
    total = sum((o.p for o in outcomes), Fraction(0))
    if total != 1:  # the enumeration itself is wrong: a bug, not bad input
        raise AssertionError(f"probabilities of {question.describe} sum to {total}, not 1")
    return Distribution(question.describe, outcomes, paths, provisional_used=provisional)


MAX_SAMPLES = 100_000_000  # --samples: beyond it a run would take days, and counts no better


class _Deadline:
    """``--max-seconds`` for the methods that run path by path or sample by sample (by
    situations has its own): an error naming the budget once the time is up."""

    def __init__(self, question: Question, seconds: float | None) -> None:
        self.question, self.seconds = question, seconds
        self.at = None if seconds is None else time.monotonic() + seconds

    def check(self, done: int, what: str = "paths") -> None:
        if self.at is not None and time.monotonic() > self.at:
            raise InputError(
                [
                    error(
                        f"{self.question.describe} took more than {self.seconds:g} s "
                        f"({done - 1:,} {what})",
                        where="--max-seconds",
                        hint="raise --max-seconds, or take fewer --samples"
                        if what == "samples"
                        else "raise --max-seconds, or estimate it by sampling: "
                        "rulekit prob ... --samples 10000",
                    )
                ]
            )


def _too_many_paths(question: Question, max_paths: int) -> TooManyPaths:
    return TooManyPaths.over(
        f"{question.describe} has more than {max_paths} paths of dice",
        TooManyPaths.SAMPLE + " (or rulekit simulate)",
    )


def _computes(checked: Checked, question: Question) -> bool:
    """Whether asking a table or modifier list (and reading ``--of``) only computes and
    throws dice: then nothing it does needs undoing between two of its outcomes."""
    book, tables = checked.book, checked.tables
    if question.target.kind not in ("table", "modifiers"):
        return False
    if question.of is not None and not pure(book, tables, question.of, dice=True):
        return False
    facts = program_for(checked).analysis_facts
    key = ("computes", question.target.name)
    found = facts.get(key)
    if found is None:
        found = facts[key] = pure(book, tables, n.Call(question.target.name, ()), dice=True)
    return bool(found)


def _by_outcomes(
    checked: Checked,
    question: Question,
    answer: Callable[[Interpreter, dict[str, Any]], Any],
    full: set[str],
    max_paths: int,
    max_steps: int,
    deadline: _Deadline | None = None,
) -> Distribution:
    """A table or modifier list by the outcomes of its dice: one interpreter, set up once,
    each roll thrown as the totals (or kept values) it can make, not die by die."""
    interp = Interpreter(checked, PathDice([]), max_steps=max_steps)
    interp.mute()
    defaults = Defaults()
    interp.remember_defaults(defaults)
    args = question.setup(interp)

    def throw(prefix: list[int]) -> PathDice:
        dice = SituationDice(prefix, full)
        dice.limit = max_paths
        defaults.dice = dice
        interp.use_dice(dice)
        return dice

    def run(dice: PathDice) -> tuple[Any, list[str]]:
        interp.new_run()  # each outcome a run of its own, as path by path
        value = answer(interp, args)
        used = interp.trace.provisional_used
        noted = list(used)
        used.clear()
        return value, noted

    return _enumerate(question, max_paths, throw, run, deadline)


def sampled(
    checked: Checked,
    question: Question,
    samples: int,
    seed: int,
    max_steps: int = DEFAULT_STEP_BUDGET,
    max_seconds: float | None = None,
    progress: Callable[[int], None] | None = None,
) -> Distribution:
    """Monte Carlo: ``samples`` seeded runs; probabilities are observed frequencies. At most
    MAX_SAMPLES, within ``max_seconds``; ``progress`` hears of every thousandth run."""
    if not 1 <= samples <= MAX_SAMPLES:
        raise InputError(
            [error(f"--samples must be between 1 and {MAX_SAMPLES:,}", where="--samples")]
        )
    deadline = _Deadline(question, max_seconds)
    counts: dict[str, list[Any]] = {}
    provisional: list[str] = []
    dice = SeededDice(seed)
    for done in range(samples):
        deadline.check(done + 1, "samples")
        if progress is not None and done % 1000 == 0:
            progress(done)
        interp = Interpreter(checked, dice, max_steps=max_steps)
        interp.mute()  # untraced, as above
        value = unwrap(question.run(interp))
        entry = counts.setdefault(outcome_key(value), [value, 0])
        entry[1] += 1
        for item in interp.trace.provisional_used:
            if item not in provisional:
                provisional.append(item)
    outcomes = [Outcome(v, Fraction(c, samples)) for v, c in counts.values()]
    outcomes.sort(key=lambda o: outcome_order(o.value))
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
