"""Procedure results remembered while one decision's default is worked out.

A default that can only compute (rulekit.engine.reach.pure: no dice, draw, decision, change
of state or piece, new piece or ``end turn``, following every call) often calls the same
procedure with the same arguments again (Silent War's ``best_shot`` works out ``shot`` and
``revealed_asw`` once more for each target). Nothing the game holds changes while it runs,
so such a call gives what the first gave, in as many steps, noting the same provisional
values: the first call's result is served again, charged those steps and noting those
values (as codegen_runtime._remembered does for plain procedures, for a whole game).

The memo lives for that one default computation (decisions.Suggestion makes it and drops it).
Its keys compare arguments as finely as a procedure can tell them apart, never by ``id()``:
plain values by value, with their type and wording (``1``, ``true`` and ``1/1`` are three
keys; a member worded ``"Sub"`` and ``"sub"`` two); game pieces by identity, the key holding
the piece itself, so that no other object can take its ``id()`` while the memo lives; lists,
records, rolls element-wise. An argument of any other kind is not remembered (the call runs).

A result is kept only when it is made of immutable values and game pieces (which cannot
change while the memo lives), and when no part of it is an object the arguments hold (a
small int, none, yes/no and pieces aside): a later call with equal arguments would return
its own arguments' object, and a decision finds its default among its options by identity
first (two options may be equal). Objects the run made or found in the game are what a run
again would make anew or find again, and nothing made while a default is worked out is an
option. A call that first reads a constant is not kept either: a later run would not work the
constant out again, so it would take fewer steps.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rulekit.engine.values import (
    Entity,
    EnumValue,
    Followed,
    MarkerValue,
    RangeValue,
    RecordValue,
    RollValue,
)

Key = tuple[Any, ...]
# a remembered call: its result, the steps it took, the provisional values it noted, and the
# most frames there were when it ran (a call from deeper runs: it would fail as deep)
Entry = tuple[Any, int, tuple[str, ...], int]


class Unkeyable(Exception):
    """An argument the memo does not compare: the call runs."""


class CallMemo:
    """Procedure results by their arguments, while one default is worked out."""

    __slots__ = ("calls",)

    def __init__(self) -> None:
        self.calls: dict[Key, Entry] = {}


def key_of(value: Any) -> Any:
    """``value`` as a memo key: equal keys only for arguments no procedure can tell apart.
    Ints and texts stand for themselves (neither equals the other); other plain values are
    tagged with their type and every field, wording included; a game piece is itself
    (compared and hashed by identity, and held)."""
    t = type(value)
    if t is int or t is str or t is Entity or value is None:
        return value
    if t is EnumValue:
        return (EnumValue, value.enum, value.member, value.printed)
    if t is tuple:
        return (tuple, *[key_of(v) for v in value])
    if t is bool:
        return (bool, value)
    if t is RollValue:
        return (RollValue, value.total, value.natural, value.dice)
    if t is RecordValue:
        return (RecordValue, value.type, *[(k, key_of(v)) for k, v in value.fields])
    if t is Fraction:
        return (Fraction, value.numerator, value.denominator)
    if t is Followed:
        return (Followed, key_of(value.value), key_of(value.then))
    if t is RangeValue:
        return (RangeValue, value.low, value.high, value.printed)
    if t is MarkerValue:
        return (MarkerValue, value.name, value.symbol)
    raise Unkeyable(t.__name__)


def _parts(value: Any, found: list[Any]) -> bool:
    """Append ``value`` and every value inside it to ``found``; False if one is not an
    immutable value or a game piece."""
    stack = [value]
    while stack:
        item = stack.pop()
        found.append(item)
        t = type(item)
        if t is tuple:
            stack.extend(item)
        elif t is RecordValue:
            stack.extend(v for _, v in item.fields)
        elif t is Followed:
            stack.extend((item.value, item.then))
        elif t is RollValue:
            stack.append(item.dice)
        elif t is RangeValue:
            stack.extend((item.low, item.high, item.printed))
        elif t is EnumValue:
            stack.extend((item.enum, item.member, item.printed))
        elif t is MarkerValue:
            stack.extend((item.name, item.symbol))
        elif not (
            t is int or t is str or t is bool or t is Entity or t is Fraction or item is None
        ):
            return False
    return True


def _same_whatever_made_it(value: Any) -> bool:
    """Whether any computation of ``value`` gives this very object: none, yes/no, a small
    int (Python keeps one of each), a game piece (found, never made, while the memo lives)."""
    t = type(value)
    return value is None or t is bool or t is Entity or (t is int and -5 <= value <= 256)


def keepable(result: Any, args: dict[str, Any]) -> bool:
    """Whether a call's result may be served again to calls with equal arguments: it is
    immutable, and no part of it is an object the arguments hold (see the module's doc)."""
    parts: list[Any] = []
    if not _parts(result, parts):
        return False
    shared = [p for p in parts if not _same_whatever_made_it(p)]
    if not shared:
        return True
    held: list[Any] = []
    for arg in args.values():
        _parts(arg, held)
    ids = {id(p) for p in held}  # all alive: the arguments hold them
    return not any(id(p) in ids for p in shared)
