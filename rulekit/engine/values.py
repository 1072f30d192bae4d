"""Runtime values of the interpreter, and how they are shown as printed text or JSON."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

from attrs import define, field, frozen


@frozen(eq=False)
class EnumValue:
    """A member of an enum; ``printed`` keeps the wording of the chart it came from."""

    enum: str
    member: str
    index: int
    printed: str = ""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EnumValue):
            return self.enum == other.enum and self.member == other.member
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.enum, self.member))

    def __str__(self) -> str:
        return self.printed or self.member


@frozen
class MarkerValue:
    """A printed marker such as ``X`` (no roll) or ``•`` (no draw)."""

    name: str
    symbol: str = field(eq=False)

    def __str__(self) -> str:
        return self.symbol


@frozen
class RecordValue:
    """A row of a multi-column chart, or a record cell."""

    type: str
    fields: tuple[tuple[str, Any], ...]

    def get(self, name: str) -> Any:
        for key, value in self.fields:
            if key == name:
                return value
        raise KeyError(name)

    def names(self) -> list[str]:
        return [k for k, _ in self.fields]


@frozen
class RangeValue:
    """An inclusive range of die results, either end open: ``2-4``, ``..1``, ``5+``."""

    low: int | None
    high: int | None
    printed: str = field(eq=False, default="")

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int):
            return False
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    def __str__(self) -> str:
        if self.printed:
            return self.printed
        lo = "" if self.low is None else str(self.low)
        hi = "" if self.high is None else str(self.high)
        return lo if self.low == self.high else f"{lo}..{hi}"


@frozen
class RollValue:
    """The result of a roll: its total, with the natural (unmodified) value and each die."""

    total: int
    natural: int
    dice: tuple[int, ...]


@frozen
class Followed:
    """A table result followed by an action's result (a second roll): ``x.then``."""

    value: Any
    then: Any


@define(eq=False)
class Entity:
    """A game entity (a submarine, a ship): mutable attributes, compared by identity."""

    kind: str
    attrs: dict[str, Any]
    label: str = ""

    def __str__(self) -> str:
        if _shown_as is not None:
            return _shown_as(self)
        return self.label or self.kind


# How a game piece shows wherever it is written as text (trace events, notes). None: by its
# label. `rulekit play` sets it for the length of a game so that a face-down piece shows
# where it is, not what it is, in the story as in the prompts (see showing_pieces).
_shown_as: Callable[[Entity], str] | None = None


@contextmanager
def showing_pieces(shown_as: Callable[[Entity], str]) -> Iterator[None]:
    """Write game pieces as ``shown_as`` says while the block runs (one game at a time)."""
    global _shown_as
    before, _shown_as = _shown_as, shown_as
    try:
        yield
    finally:
        _shown_as = before


Value = (
    int
    | Fraction
    | str
    | bool
    | None
    | EnumValue
    | MarkerValue
    | RangeValue
    | RecordValue
    | RollValue
    | Followed
    | Entity
    | tuple[Any, ...]
)


def unwrap(value: Any) -> Any:
    """The plain value used by arithmetic and comparison."""
    while True:
        if isinstance(value, RollValue):
            return value.total
        if isinstance(value, Followed):
            value = value.value
            continue
        return value


def plain(value: Any) -> Any:
    """``unwrap``, quicker for the common case of a value neither a roll nor followed."""
    t = type(value)
    if t is RollValue:
        return value.total
    if t is Followed:
        return unwrap(value)
    return value


def truth(value: Any) -> bool:
    """A value as a condition."""
    return bool(plain(value))


def is_number(value: Any) -> bool:
    """An int or an exact fraction (a bool is not a number)."""
    if type(value) is int:
        return True  # before isinstance(..., Fraction), which asks an ABC
    return not isinstance(value, bool) and isinstance(value, (int, Fraction))


def normalize(value: Any) -> Any:
    """Exact fractions that are whole become ints."""
    if type(value) is int:
        return value  # before isinstance(..., Fraction), which asks an ABC
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value)
    return value


def show(value: Any) -> str:
    """Short human text of a value, as in a trace."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, RollValue):
        return str(value.total)
    if isinstance(value, Followed):
        return f"{show(value.value)} -> {show(value.then)}"
    if isinstance(value, tuple):
        return ", ".join(show(v) for v in value) if value else "(none)"
    if isinstance(value, RecordValue):
        return "(" + ", ".join(f"{k}: {show(v)}" for k, v in value.fields) + ")"
    return str(value)


def to_json(value: Any) -> Any:
    """The JSON form: names as strings, numbers as numbers, lists, records as objects."""
    t = type(value)
    if t is int or t is str or t is bool or value is None:
        return value
    if t is Entity or t is EnumValue:
        return str(value)
    return _to_json(value)


def _to_json(value: Any) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return float(value)
    if isinstance(value, (EnumValue, MarkerValue, RangeValue)):
        return str(value)
    if isinstance(value, RollValue):
        return value.total
    if isinstance(value, Followed):
        return {"result": to_json(value.value), "then": to_json(value.then)}
    if isinstance(value, tuple):
        return [to_json(v) for v in value]
    if isinstance(value, RecordValue):
        return {k: to_json(v) for k, v in value.fields}
    if isinstance(value, Entity):
        return str(value)
    raise TypeError(f"no JSON form for {value!r}")


def one_of_a_kind(value: Any) -> bool:
    """Whether every computation of this value gives the very same object: none, yes/no,
    small ints (Python keeps one of each); a game piece or a text (code that only computes
    makes neither, it finds them)."""
    t = type(value)
    return (
        t is bool or value is None or t is Entity or t is str or (t is int and -5 <= value <= 256)
    )


def parts(value: Any) -> list[Any]:
    """A value and the values inside it (list items, record fields, a follow-up)."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        found.append(item)
        if type(item) is tuple:
            stack.extend(item)
        elif type(item) is RecordValue:
            stack.extend(v for _, v in item.fields)
        elif type(item) is Followed:
            stack.extend((item.value, item.then))
    return found


# the types clone copies: mutable, or able to hold something mutable (a chart row of
# plain values is shared as it is)
_HOLDERS = frozenset({Entity, tuple, list, dict, RecordValue, Followed})


def clone(value: Any, memo: dict[int, Any]) -> Any:
    """A copy sharing nothing mutable with ``value``: pieces copied once each, so that two
    references to one piece stay two references to one copy."""
    t = type(value)
    if t is int or t is str or t is bool or value is None:
        return value
    if t is Entity:
        copy = memo.get(id(value))
        if copy is None:
            copy = memo[id(value)] = Entity(value.kind, {}, value.label)
            copy.attrs.update({k: clone(v, memo) for k, v in value.attrs.items()})
        return copy
    if t is tuple:
        copied = [clone(v, memo) for v in value]
        # a tuple of values that are not copied is shared, as they are (a tuple is frozen)
        return value if all(c is v for c, v in zip(copied, value, strict=True)) else tuple(copied)
    if t is list:
        return [clone(v, memo) for v in value]
    if t is dict:
        return {k: clone(v, memo) for k, v in value.items()}
    if t is RecordValue:
        if all(type(v) not in _HOLDERS for _, v in value.fields):
            return value  # frozen, and holds nothing mutable: shared (a chart row)
        return RecordValue(value.type, tuple((k, clone(v, memo)) for k, v in value.fields))
    if t is Followed:
        return Followed(clone(value.value, memo), clone(value.then, memo))
    return value  # frozen values (enum members, rolls, ranges, markers, fractions)
