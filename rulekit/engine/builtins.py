"""Built-in functions of the rulebook language: their signatures and implementations."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from attrs import frozen

from rulekit.book import types as t
from rulekit.engine.values import (
    Entity,
    EnumValue,
    RangeValue,
    RecordValue,
    RollValue,
    normalize,
    unwrap,
)


class BuiltinError(Exception):
    """A builtin was given values it cannot use; the interpreter adds the location."""


def round_value(x: Any, mode: str) -> int:
    """Round an exact number: ``up`` (the 2.1 convention [2.5]), ``down`` or ``nearest``."""
    whole = unwrap(x)
    if type(whole) is int:
        return whole  # every mode leaves a whole number as it is
    value = Fraction(whole)
    if mode == "up":
        return math.ceil(value)
    if mode == "down":
        return math.floor(value)
    # nearest, halves away from zero
    sign = -1 if value < 0 else 1
    return sign * math.floor(abs(value) + Fraction(1, 2))


def _num(x: Any) -> int | Fraction:
    v = unwrap(x)
    if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
        raise BuiltinError(f"expected a number, got {v!r}")
    return v


def _seq(args: list[Any]) -> list[Any]:
    if len(args) == 1 and isinstance(args[0], tuple):
        return list(args[0])
    return args


def _min(args: list[Any], mode: str) -> Any:
    items = _seq(args)
    if not items:
        raise BuiltinError("min() of nothing")
    return min(items, key=_num)


def _max(args: list[Any], mode: str) -> Any:
    items = _seq(args)
    if not items:
        raise BuiltinError("max() of nothing")
    return max(items, key=_num)


def _ord(args: list[Any], mode: str) -> int:
    v = unwrap(args[0])
    if not isinstance(v, EnumValue):
        raise BuiltinError(f"ord() takes a member of an enum, got {v!r}")
    return v.index


def _count(args: list[Any], mode: str) -> int:
    v = unwrap(args[0])
    if not isinstance(v, tuple):
        raise BuiltinError(f"count() takes a list, got {v!r}")
    return len(v)


def _range(args: list[Any], mode: str) -> tuple[int, ...]:
    first, last = (_num(a) for a in args)
    if not isinstance(first, int) or not isinstance(last, int):
        raise BuiltinError("range() takes whole numbers")
    return tuple(range(first, last + 1))


def _first(args: list[Any], mode: str) -> Any:
    items = unwrap(args[0])
    if not isinstance(items, tuple):
        raise BuiltinError(f"first() takes a list, got {items!r}")
    return items[0] if items else None


def _last(args: list[Any], mode: str) -> Any:
    items = unwrap(args[0])
    if not isinstance(items, tuple):
        raise BuiltinError(f"last() takes a list, got {items!r}")
    return items[-1] if items else None


def _take(args: list[Any], mode: str) -> tuple[Any, ...]:
    items, n = unwrap(args[0]), _num(args[1])
    if not isinstance(items, tuple) or not isinstance(n, int):
        raise BuiltinError("take(list, n) takes a list and a whole number")
    return items[: max(n, 0)]


def _drop(args: list[Any], mode: str) -> tuple[Any, ...]:
    items, n = unwrap(args[0]), _num(args[1])
    if not isinstance(items, tuple) or not isinstance(n, int):
        raise BuiltinError("drop(list, n) takes a list and a whole number")
    return items[max(n, 0) :]


def _nth(args: list[Any], mode: str) -> Any:
    items, i = unwrap(args[0]), _num(args[1])
    if not isinstance(items, tuple) or not isinstance(i, int):
        raise BuiltinError("nth(list, i) takes a list and a whole number")
    if not 0 <= i < len(items):
        raise BuiltinError(
            f"nth(): position {i} is outside a list of {len(items)} (positions count from 0)"
        )
    return items[i]


def _pool(value: Any, name: str) -> list[Any]:
    """The items of a list, or the faces of a roll (its dice, not its total)."""
    if isinstance(value, RollValue):
        return list(value.dice)
    items = unwrap(value)
    if not isinstance(items, tuple):
        raise BuiltinError(f"{name}() takes a list or a roll, got {items!r}")
    return list(items)


def _ordered(value: Any, name: str, descending: bool) -> list[Any]:
    # sorted() is stable, so equal items keep their order (pieces with equal ratings)
    return sorted(_pool(value, name), key=_num, reverse=descending)


def _count_arg(value: Any, name: str) -> int:
    n = _num(value)
    if not isinstance(n, int):
        raise BuiltinError(f"{name}() takes a whole number of items, got {n}")
    return n


def _nth_of(descending: bool) -> Callable[[list[Any], str], Any]:
    name = "nth_highest" if descending else "nth_lowest"

    def run(args: list[Any], mode: str) -> Any:
        items, n = _ordered(args[0], name, descending), _count_arg(args[1], name)
        if not 1 <= n <= len(items):
            raise BuiltinError(
                f"{name}(): there is no {n}th of {len(items)} (the first is 1, the highest "
                "or lowest itself)"
            )
        return items[n - 1]

    return run


def _keep(descending: bool) -> Callable[[list[Any], str], Any]:
    name = "keep_highest" if descending else "keep_lowest"

    def run(args: list[Any], mode: str) -> tuple[Any, ...]:
        items, n = _ordered(args[0], name, descending), _count_arg(args[1], name)
        return tuple(items[: max(n, 0)])

    return run


def _pairs(args: list[Any], mode: str) -> tuple[Any, ...]:
    """Item i of one list with item i of the other, as long as both last."""
    first, second = _pool(args[0], "pairs"), _pool(args[1], "pairs")
    return tuple((a, b) for a, b in zip(first, second, strict=False))


def _field(item: Any, name: str, builtin: str) -> Any:
    item = unwrap(item)
    if isinstance(item, Entity) and name in item.attrs:
        return item.attrs[name]
    if isinstance(item, RecordValue) and name in item.names():
        return item.get(name)
    raise BuiltinError(f"{builtin}(): {item} has no '{name}'")


def _by(largest: bool) -> Callable[[list[Any], str], Any]:
    builtin = "max_by" if largest else "min_by"

    def run(args: list[Any], mode: str) -> Any:
        items, name = _pool(args[0], builtin), unwrap(args[1])
        if not isinstance(name, str):
            raise BuiltinError(f'{builtin}(list, "field") takes the field\'s name as text')
        if not items:
            return None
        # the first of equals wins, as max()/min() do: the order of the list decides ties
        pick = max if largest else min
        return pick(items, key=lambda item: _num(_field(item, name, builtin)))

    return run


def _range_end(high: bool) -> Callable[[list[Any], str], Any]:
    builtin = "high" if high else "low"

    def run(args: list[Any], mode: str) -> Any:
        value = unwrap(args[0])
        if isinstance(value, RangeValue):
            return value.high if high else value.low  # none for an open end
        if isinstance(value, tuple) and all(type(x) is int for x in value):
            # range(a, b) is a list of whole numbers: its ends, or none when empty
            return (max(value) if high else min(value)) if value else None
        raise BuiltinError(f"{builtin}() takes a range, got {value!r}")

    return run


def _pool_item(types: list[t.Type]) -> t.Type:
    if types and types[0] == t.ROLL:
        return t.INT
    listed = t.as_list(types[0]) if types else None
    return listed.item if listed is not None else t.ANY


def _pool_list(types: list[t.Type]) -> t.Type:
    return t.ListT(_pool_item(types))


def _pair_list(types: list[t.Type]) -> t.Type:
    items = [_pool_item([x]) for x in types]
    return t.ListT(t.ListT(t.union(*items)))


def _same_list(types: list[t.Type]) -> t.Type:
    listed = t.as_list(types[0]) if types else None
    return listed if listed is not None else t.ListT(t.ANY)


def _flat_list(types: list[t.Type]) -> t.Type:
    outer = t.as_list(types[0]) if types else None
    inner = t.as_list(outer.item) if outer is not None else None
    return inner if inner is not None else t.ListT(t.ANY)


def _flatten(args: list[Any], mode: str) -> tuple[Any, ...]:
    v = unwrap(args[0])
    if not isinstance(v, tuple) or not all(isinstance(x, tuple) for x in v):
        raise BuiltinError(f"flatten() takes a list of lists, got {v!r}")
    return tuple(item for inner in v for item in inner)


def _element(types: list[t.Type]) -> t.Type:
    listed = t.as_list(types[0]) if types else None
    return t.union(listed.item, t.NONE) if listed is not None else t.ANY


def _numeric_result(types: list[t.Type]) -> t.Type:
    return t.INT if all(x in (t.INT, t.ROLL) for x in types) else t.NUMBER


def _item_or_numeric(types: list[t.Type]) -> t.Type:
    if len(types) == 1 and isinstance(types[0], t.ListT):
        return types[0].item
    return _numeric_result(types)


@frozen
class Builtin:
    """A builtin function: arity, result type from argument types, implementation."""

    name: str
    min_args: int
    max_args: int | None
    returns: Callable[[list[t.Type]], t.Type]
    impl: Callable[[list[Any], str], Any]
    doc: str


BUILTINS: dict[str, Builtin] = {
    b.name: b
    for b in [
        Builtin("abs", 1, 1, _numeric_result, lambda a, m: abs(_num(a[0])), "absolute value"),
        Builtin("min", 1, None, _item_or_numeric, _min, "smallest of the values or of a list"),
        Builtin("max", 1, None, _item_or_numeric, _max, "largest of the values or of a list"),
        Builtin(
            "rounded",
            1,
            1,
            lambda ts: t.INT,
            lambda a, m: round_value(a[0], m),
            "round as the rulebook's rounding setting says",
        ),
        Builtin(
            "round_up", 1, 1, lambda ts: t.INT, lambda a, m: round_value(a[0], "up"), "round up"
        ),
        Builtin(
            "round_down",
            1,
            1,
            lambda ts: t.INT,
            lambda a, m: round_value(a[0], "down"),
            "round down",
        ),
        Builtin(
            "round_nearest",
            1,
            1,
            lambda ts: t.INT,
            lambda a, m: round_value(a[0], "nearest"),
            "round to the nearest whole number (halves away from zero)",
        ),
        Builtin("ord", 1, 1, lambda ts: t.INT, _ord, "position of an enum member, from 0"),
        Builtin("count", 1, 1, lambda ts: t.INT, _count, "number of items in a list"),
        Builtin(
            "range",
            2,
            2,
            lambda ts: t.ListT(t.INT),
            _range,
            "the whole numbers from the first to the last, both included",
        ),
        Builtin("first", 1, 1, _element, _first, "the first item of a list, or none"),
        Builtin("nth", 2, 2, lambda ts: _element(ts[:1]), _nth, "the item at position i, from 0"),
        Builtin("take", 2, 2, _same_list, _take, "the first n items of a list"),
        Builtin("drop", 2, 2, _same_list, _drop, "a list without its first n items"),
        Builtin("last", 1, 1, _element, _last, "the last item of a list, or none"),
        Builtin("flatten", 1, 1, _flat_list, _flatten, "the items of a list of lists, in order"),
        Builtin(
            "sorted",
            1,
            1,
            _pool_list,
            lambda a, m: tuple(_ordered(a[0], "sorted", False)),
            "a list (or a roll's dice) from lowest to highest",
        ),
        Builtin(
            "sorted_desc",
            1,
            1,
            _pool_list,
            lambda a, m: tuple(_ordered(a[0], "sorted_desc", True)),
            "a list (or a roll's dice) from highest to lowest",
        ),
        Builtin(
            "nth_highest",
            2,
            2,
            lambda ts: _pool_item(ts[:1]),
            _nth_of(True),
            "the n-th highest item or die, from 1",
        ),
        Builtin(
            "nth_lowest",
            2,
            2,
            lambda ts: _pool_item(ts[:1]),
            _nth_of(False),
            "the n-th lowest item or die, from 1",
        ),
        Builtin(
            "keep_highest",
            2,
            2,
            lambda ts: _pool_list(ts[:1]),
            _keep(True),
            "the n highest items or dice, highest first",
        ),
        Builtin(
            "keep_lowest",
            2,
            2,
            lambda ts: _pool_list(ts[:1]),
            _keep(False),
            "the n lowest items or dice, lowest first",
        ),
        Builtin(
            "pairs",
            2,
            2,
            _pair_list,
            _pairs,
            "[a, b] for item i of each list, as far as the shorter goes",
        ),
        Builtin("max_by", 2, 2, _element, _by(True), "the item whose named field is largest"),
        Builtin("min_by", 2, 2, _element, _by(False), "the item whose named field is smallest"),
        Builtin(
            "low",
            1,
            1,
            lambda ts: t.union(t.INT, t.NONE),
            _range_end(False),
            "the low end of a range (none if open)",
        ),
        Builtin(
            "high",
            1,
            1,
            lambda ts: t.union(t.INT, t.NONE),
            _range_end(True),
            "the high end of a range (none if open)",
        ),
        Builtin("odd", 1, 1, lambda ts: t.BOOL, lambda a, m: _num(a[0]) % 2 == 1, "is odd"),
        Builtin("even", 1, 1, lambda ts: t.BOOL, lambda a, m: _num(a[0]) % 2 == 0, "is even"),
    ]
}


def call_builtin(name: str, args: list[Any], rounding: str) -> Any:
    return normalize(BUILTINS[name].impl(args, rounding))


def work(name: str, args: list[Any]) -> int:
    """The steps a call costs beyond its own, counted before it runs: range() builds a list
    of every number between its ends, so it costs one step per number."""
    if name == "range" and len(args) == 2:
        first, last = (unwrap(a) for a in args)
        if type(first) is int and type(last) is int:
            return max(0, last - first + 1)
    return 0
