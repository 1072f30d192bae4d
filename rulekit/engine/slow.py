"""The slower, rarer paths of values that generated code falls back to (a list where any
value may come, an attribute of a value of unknown kind, arithmetic that is not on two
ints, equality of values of two kinds, a state change in the trace).

Plain functions of the running interpreter ``i``: generated code reaches them through the
one runtime namespace (rulekit.engine.codegen_runtime.RUNTIME), never through the
interpreter's own methods; the interpreter offers them to the rest of the engine under its
old names (Interpreter._eq, ...).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from rulekit.engine.runtime import ARITH, ORDER, sized
from rulekit.engine.trace import SetEvent
from rulekit.engine.values import (
    Entity,
    EnumValue,
    Followed,
    MarkerValue,
    RangeValue,
    RecordValue,
    RollValue,
    normalize,
    show,
    to_json,
    unwrap,
)
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.interpreter import Interpreter


def where(i: Interpreter, span: n.Span) -> str:
    """Where a die is thrown: the span and the running rule (the dice source reads it)."""
    rule = i.ref or i.frames[-1].rule
    return f"{span}" + (f" [{rule.text}]" if rule else "")


def iterate(i: Interpreter, value: Any, span: n.Span) -> tuple[Any, ...]:
    value = unwrap(value)
    if not isinstance(value, tuple):
        raise i.fail(f"expected a list, got {show(value)}", span)
    return value


def name_value(i: Interpreter, name: str, span: n.Span) -> Any:
    """A name inside a note's ``{...}`` or an assignment's target."""
    local = i.frames[-1].locals
    if name in local:
        return local[name]
    if name in i.state.values:
        decl = i.book.states.get(name)
        if decl is not None and decl.provenance is not None and name not in i.changed:
            at = f" [{decl.ref.text}]" if decl.ref else ""
            i.trace.used_provisional(f"state {name}{at}")
        return i.state.values[name]
    return i.code.fallback_value(i, name, span)


def attr(i: Interpreter, obj: Any, name: str, span: n.Span) -> Any:
    if isinstance(obj, Followed):
        if name == "then":
            return obj.then
        obj = obj.value
    if isinstance(obj, RollValue):
        if name == "natural":
            return obj.natural
        if name == "total":
            return obj.total
        if name == "dice":
            return obj.dice
    if isinstance(obj, Entity):
        if name in obj.attrs:
            if obj.kind in i.code.provisional_kinds(name):
                i.trace.used_provisional(f"{obj.kind}.{name} of {obj}")
            return obj.attrs[name]
        raise i.fail(f"{obj} has no '{name}'", span)
    if isinstance(obj, RecordValue):
        try:
            return obj.get(name)
        except KeyError:
            raise i.fail(f"a {obj.type} has no '{name}'", span) from None
    if obj is None:
        raise i.fail(f"cannot read '{name}' of none", span)
    raise i.fail(f"{show(obj)} has no '{name}'", span)


def arith(i: Interpreter, op: str, left: Any, right: Any, span: n.Span) -> Any:
    a, b = unwrap(left), unwrap(right)
    for v in (a, b):
        if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
            raise i.fail(f"'{op}' needs numbers, got {show(v)}", span)
    if op == "/":
        if b == 0:
            raise i.fail("division by zero", span)
        return sized(i, normalize(Fraction(a) / Fraction(b)), span)
    return sized(i, normalize(ARITH[op](a, b)), span)


def eq(i: Interpreter, left: Any, right: Any) -> bool:
    a, b = unwrap(left), unwrap(right)
    if isinstance(a, str) and not isinstance(b, str):
        a, b = b, a
    if isinstance(a, EnumValue) and isinstance(b, str):
        return i.c.vocab.enum_value(a.enum, b) == a
    if isinstance(a, MarkerValue) and isinstance(b, str):
        return b in (a.name, a.symbol)
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return bool(a == b)


def contains(i: Interpreter, op: str, left: Any, right: Any, span: n.Span) -> bool:
    container = unwrap(right)
    if isinstance(container, RangeValue):
        found = unwrap(left) in container
    elif isinstance(container, tuple):
        found = among(i, left, container)
    else:
        raise i.fail(f"'{op}' needs a list, got {show(container)}", span)
    return found if op == "in" else not found


def among(i: Interpreter, left: Any, items: tuple[Any, ...]) -> bool:
    """Whether ``left`` equals one of ``items`` (as ``eq``): a member or a game piece,
    the commonest cases, compared without a call per item."""
    t = type(left)
    if t is EnumValue:
        member, enum = left.member, left.enum
        for item in items:
            if type(item) is EnumValue:
                if item.member == member and item.enum == enum:
                    return True
            elif eq(i, left, item):
                return True
        return False
    if t is Entity:  # compared by identity, and never wrapped
        return any(item is left for item in items)
    if t is int:  # an int equals an int (not a bool: true is not 1)
        for item in items:
            if type(item) is int:
                if item == left:
                    return True
            elif eq(i, left, item):
                return True
        return False
    return any(eq(i, left, item) for item in items)


def order(i: Interpreter, op: str, left: Any, right: Any, span: n.Span) -> bool:
    a, b = unwrap(left), unwrap(right)
    if isinstance(a, EnumValue) and isinstance(b, EnumValue) and a.enum == b.enum:
        a, b = a.index, b.index
    ok = all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in (a, b))
    if not ok:
        raise i.fail(f"cannot compare {show(a)} and {show(b)}", span)
    return bool(ORDER[op](a, b))


def record_change(i: Interpreter, target: str, old: Any, new: Any) -> None:
    """A state change in the trace; a list change as what was added and removed."""
    if i.muted or (type(old) is type(new) and eq(i, old, new)):
        return
    rule = i.ref.text if i.ref else None
    if isinstance(old, tuple) and isinstance(new, tuple):
        removed = list(old)
        added = []
        for item in new:
            match = next((k for k, x in enumerate(removed) if eq(i, x, item)), None)
            if match is None:
                added.append(item)
            else:
                removed.pop(match)
        i.trace.add(
            SetEvent(
                i.depth,
                target,
                len(old),
                len(new),
                rule,
                [to_json(a) for a in added],
                [to_json(r) for r in removed],
            )
        )
        return
    i.trace.add(SetEvent(i.depth, target, to_json(old), to_json(new), rule))
