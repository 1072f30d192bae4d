"""What exact analysis answers with: outcomes and their probabilities, and the dice that
walk a tree of throws (shared by rulekit.analysis.prob and rulekit.analysis.situations)."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import comb, factorial, prod
from typing import Any, TypeVar

from attrs import define, field

from rulekit.book.inputs import Target
from rulekit.engine.dice import DiceNeeded, Die
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.values import EnumValue, show, to_json, unwrap
from rulekit.errors import InputError, error
from rulekit.language import nodes as n
from rulekit.limits import DEFAULT_MAX_PATHS

T = TypeVar("T")


def retried(attempt: Callable[[], T], needed: Callable[[str], None]) -> T:
    """``attempt()``, again each time a roll whose faces it reads was thrown as a total
    or kept value (dice.DiceNeeded: ``needed(where)`` then throws that roll die by die,
    anew): the one retry of every exact method."""
    while True:
        try:
            return attempt()
        except DiceNeeded as found:
            needed(found.where)


class TooManyPaths(InputError):
    """The procedure has more paths of dice than the budget allows."""

    SAMPLE = "raise --max-paths, or estimate it by sampling: rulekit prob ... --samples 100000"
    DECIDE = "raise --max-paths, or fix some decisions with --decide NAME=VALUE"

    @classmethod
    def over(cls, message: str, hint: str = SAMPLE) -> TooManyPaths:
        """The error, naming the ``--max-paths`` budget."""
        return cls([error(message, where="--max-paths", hint=hint)])


def multisets(
    die: Die, count: int, limit: int = DEFAULT_MAX_PATHS
) -> tuple[tuple[tuple[int, ...], int], ...]:
    """The multisets of a roll of ``count`` alike dice (see ``_multisets``), an error
    before any is made when there are more than ``limit`` (25 d10 have 52 million)."""
    many = comb(len(set(die.faces)) + count - 1, count)
    if many > limit:
        raise TooManyPaths.over(
            f"a roll of {count} {die.name} has {many:,} outcomes (the faces it can show, in "
            f"any order), more than the {limit:,} paths allowed",
            "raise --max-paths, read only the roll's total (thrown as a total, its faces "
            "unread), or estimate it by sampling: rulekit prob ... --samples 100000",
        )
    return _multisets(die.faces, count)


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
    limit: int = DEFAULT_MAX_PATHS  # a roll's outcomes allowed (the --max-paths budget)

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
        outcomes = multisets(die, count, self.limit)
        choice = self._next(len(outcomes))
        faces, ways = outcomes[choice]
        self.weight *= Fraction(ways, len(die.faces) ** count)
        return faces

    def probability(self) -> Fraction:
        """The probability of the path thrown."""
        return self.weight

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
    situations: int | None = None  # situations solved (rulekit.analysis.situations)
    unresolved: Fraction = Fraction(0)  # probability left unexplored under a tolerance
    # the question in the rules' words (``[14.2] Counterattack Table``) and the inputs it was
    # asked with (``difference = 7``): what a plot's title and a saved result say
    title: str | None = None
    inputs: list[str] = field(factory=list)

    def how(self) -> str:
        """How it was found, in a few words (the title of a printed or plotted result)."""
        if not self.exact:
            return f"{self.samples} samples"
        if self.situations is None:
            return f"exact, {self.paths} path(s) of dice"
        how = f"exact, {self.situations} situation(s), {self.paths} run(s) between them"
        if self.unresolved:
            how += f"; unresolved p = {float(self.unresolved):.3g}"
        return how

    @property
    def mean(self) -> Fraction | None:
        """The expected value when every result is a number."""
        values = [unwrap(o.value) for o in self.outcomes]
        if not values or any(isinstance(v, bool) or not isinstance(v, int | float) for v in values):
            return None
        return sum(
            (o.p * Fraction(v) for o, v in zip(self.outcomes, values, strict=True)), Fraction(0)
        )

    @property
    def ordered(self) -> bool:
        """Whether the results can be "at least" or "at most": all numbers, or members of
        one enum (the outcomes come sorted in that order)."""
        values = [unwrap(o.value) for o in self.outcomes]
        if not values:
            return False
        if all(isinstance(v, int | Fraction) and not isinstance(v, bool) for v in values):
            return True
        return all(isinstance(v, EnumValue) for v in values) and len({v.enum for v in values}) == 1

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
            "situations": self.situations,
            "unresolved": {"p": str(self.unresolved), "float": float(self.unresolved)},
            "provisional_used": self.provisional_used,
            "question": {
                "title": self.title or self.what,
                "inputs": self.inputs,
                "ordered": self.ordered,
                "how": self.how(),
            },
        }


def outcome_order(value: Any) -> tuple[int, Any]:
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
    # the run after its set-up, given what the set-up bound (a table's or modifier list's
    # outcomes are then worked out on one interpreter: rulekit.analysis.prob)
    answer: Callable[[Interpreter, dict[str, Any]], Any] | None = None


def outcome_key(value: Any) -> str:
    return json.dumps(to_json(value), sort_keys=True)
