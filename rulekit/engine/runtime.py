"""Game state: tracks, state variables and entities, as the interpreter reads and writes them."""

from __future__ import annotations

import operator
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from attrs import define, field

from rulekit.book import types as t
from rulekit.engine.values import Entity
from rulekit.errors import MAX_BITS, MAX_DIGITS
from rulekit.language import nodes as n

# The operators of the language's arithmetic and order comparisons, by their symbol.
ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
}
ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class TurnEnded(Exception):
    """``end turn`` was reached: the sequence of play stops this turn's phases."""


@define
class GameState:
    """The values of every track and state variable, and the entities in play."""

    values: dict[str, Any] = field(factory=dict)
    entities: list[Entity] = field(factory=list)

    def snapshot(self) -> dict[str, Any]:
        return dict(self.values)


MAX_NESTING = 200  # calls inside calls, each a dozen or so Python frames deep


@define
class Frame:
    """The locals of one running procedure, modifier list or table action."""

    name: str
    rule: n.RuleRef | None
    locals: dict[str, Any]


def default_for(typ: t.Type) -> Any:
    """The value of a state variable nobody set: an empty list, or none."""
    if isinstance(typ, t.ListT):
        return ()
    return None


def clamp_track(value: int, low: int, high: int | None) -> int:
    """A marker cannot move past the ends of its track."""
    if value < low:
        return low
    if high is not None and value > high:
        return high
    return value


def charge(i: Any, work: int, span: n.Span) -> None:
    """Count ``work`` steps against the step budget: building a list or string of n items,
    or throwing n dice, costs n steps, so the budget bounds memory as well as time."""
    i.steps += work
    if i.steps > i.max_steps:
        raise i.over_budget(span)


def sized(i: Any, value: Any, span: n.Span) -> Any:
    """``value``, when a number of at most MAX_DIGITS digits; else an error at ``span``."""
    if type(value) is int:
        if value.bit_length() <= MAX_BITS:
            return value
    elif isinstance(value, Fraction):
        if value.numerator.bit_length() <= MAX_BITS and value.denominator.bit_length() <= MAX_BITS:
            return value
    else:
        return value
    raise i.fail(
        f"a number of more than {MAX_DIGITS} digits: rulekit does not compute with it",
        span,
        hint="look for a value multiplied by itself in a loop",
    )


__all__ = [
    "MAX_NESTING",
    "Frame",
    "GameState",
    "charge",
    "clamp_track",
    "default_for",
    "sized",
]
