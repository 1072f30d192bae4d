"""Closures that bind a call's arguments to its parameters (see rulekit.engine.compiler).

The binding of each argument is worked out when the closure is built; running it only
evaluates and converts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rulekit.engine.trace import (
    Term,
)
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.compiler import Code, Compiler
    from rulekit.engine.interpreter import Interpreter


Binder = Callable[["Interpreter"], dict[str, Any]]


Invoke = Callable[["Interpreter", dict[str, Any]], Any]


ModifierCode = Callable[["Interpreter", dict[str, Any]], tuple[list[Term], Any, bool]]


LookupCode = Callable[["Interpreter", list[Any], n.Span], Any]


def rule_text(ref: n.RuleRef | None) -> str | None:
    return ref.text if ref else None


def step_code(span: n.Span) -> Callable[[Interpreter], None]:
    def step(i: Interpreter) -> None:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)

    return step


def _enum_of(comp: Compiler, param: n.Param) -> str | None:
    assert param.type is not None
    typ = comp.vocab.type_of(param.type)
    options: tuple[Any, ...] = typ.options if hasattr(typ, "options") else (typ,)
    return next((o.name for o in options if o.__class__.__name__ == "EnumT"), None)


def _enum_param(
    comp: Compiler, param: n.Param, span: n.Span
) -> Callable[[Interpreter, str], Any] | None:
    """A text given for a parameter whose type includes an enum reads as its member."""
    if param.type is None:
        return None
    try:
        if _enum_of(comp, param) is None:
            return None  # no text to read: the value is taken as it is
    except Exception:  # a type that does not resolve fails only when a text comes
        pass

    def read(i: Interpreter, value: str) -> Any:
        enum = _enum_of(comp, param)
        if enum is not None:
            member = comp.vocab.enum_value(enum, value)
            if member is None:
                raise i.fail(f"'{value}' is not a {enum}", span)
            return member
        return value

    return read


def binder(comp: Compiler, e: n.Call, params: tuple[n.Param, ...]) -> Binder:
    """Evaluates the arguments in order, then each parameter's value or default in order."""
    codes = [comp.expr(a.value) for a in e.args]
    keys: list[str] = []
    for index, arg in enumerate(e.args):
        if arg.name is None and index >= len(params):
            return too_many(codes[:index], "tuple index out of range")
        keys.append(arg.name if arg.name is not None else params[index].name)
    missing = next((p for p in params if p.name not in keys and p.default is None), None)
    if missing is not None:
        message, span = f"{e.func} needs '{missing.name}'", e.span

        def fail(i: Interpreter) -> dict[str, Any]:
            for code in codes:
                code(i)
            raise i.fail(message, span)

        return fail
    plan: list[tuple[str, int | Code, Callable[[Interpreter, str], Any] | None]] = []
    for p in params:
        if p.name in keys:
            index = len(keys) - 1 - keys[::-1].index(p.name)  # the last one given wins
            read = _enum_param(comp, p, e.span)
            plan.append((p.name, index, read))
        else:
            assert p.default is not None
            plan.append((p.name, comp.cached(p.default), None))
    if len(codes) == len(params) and all(src == k for k, (_, src, _) in enumerate(plan)):
        return _in_order([p.name for p in params], codes, [read for _, _, read in plan])

    def bind(i: Interpreter) -> dict[str, Any]:
        values = [code(i) for code in codes]
        bound: dict[str, Any] = {}
        for name, src, read in plan:
            if isinstance(src, int):
                value = values[src]
                if read is not None and isinstance(value, str):
                    value = read(i, value)
                bound[name] = value
            else:
                bound[name] = src(i)  # a default, evaluated where the call is made
        return bound

    return bind


Read = Callable[["Interpreter", str], Any]


def _in_order(names: list[str], codes: list[Code], reads: list[Read | None]) -> Binder:
    """Every parameter given in order (the commonest call), written out for few parameters.
    A text given for an enum parameter is read once every argument is evaluated."""
    if not any(reads):
        if len(names) == 1:
            (n0,), (c0,) = names, codes
            return lambda i: {n0: c0(i)}
        if len(names) == 2:
            (n0, n1), (c0, c1) = names, codes
            return lambda i: {n0: c0(i), n1: c1(i)}
        if len(names) == 3:
            (n0, n1, n2), (c0, c1, c2) = names, codes
            return lambda i: {n0: c0(i), n1: c1(i), n2: c2(i)}
    if len(names) == 1:
        (n0,), (c0,), (r0,) = names, codes, reads

        def bind1(i: Interpreter) -> dict[str, Any]:
            v0 = c0(i)
            if r0 is not None and isinstance(v0, str):
                v0 = r0(i, v0)
            return {n0: v0}

        return bind1
    if len(names) == 2:
        (n0, n1), (c0, c1), (r0, r1) = names, codes, reads

        def bind2(i: Interpreter) -> dict[str, Any]:
            v0, v1 = c0(i), c1(i)
            if r0 is not None and isinstance(v0, str):
                v0 = r0(i, v0)
            if r1 is not None and isinstance(v1, str):
                v1 = r1(i, v1)
            return {n0: v0, n1: v1}

        return bind2
    if len(names) == 3:
        (n0, n1, n2), (c0, c1, c2), (r0, r1, r2) = names, codes, reads

        def bind3(i: Interpreter) -> dict[str, Any]:
            v0, v1, v2 = c0(i), c1(i), c2(i)
            if r0 is not None and isinstance(v0, str):
                v0 = r0(i, v0)
            if r1 is not None and isinstance(v1, str):
                v1 = r1(i, v1)
            if r2 is not None and isinstance(v2, str):
                v2 = r2(i, v2)
            return {n0: v0, n1: v1, n2: v2}

        return bind3
    if len(names) == 4:
        (n0, n1, n2, n3), (c0, c1, c2, c3), (r0, r1, r2, r3) = names, codes, reads

        def bind4(i: Interpreter) -> dict[str, Any]:
            v0, v1, v2, v3 = c0(i), c1(i), c2(i), c3(i)
            if r0 is not None and isinstance(v0, str):
                v0 = r0(i, v0)
            if r1 is not None and isinstance(v1, str):
                v1 = r1(i, v1)
            if r2 is not None and isinstance(v2, str):
                v2 = r2(i, v2)
            if r3 is not None and isinstance(v3, str):
                v3 = r3(i, v3)
            return {n0: v0, n1: v1, n2: v2, n3: v3}

        return bind4
    texts = [(k, read) for k, read in enumerate(reads) if read is not None]

    def bind(i: Interpreter) -> dict[str, Any]:
        values = [code(i) for code in codes]
        for k, read in texts:
            value = values[k]
            if isinstance(value, str):
                values[k] = read(i, value)
        return {name: value for name, value in zip(names, values, strict=True)}

    return bind


def too_many(codes: list[Code], message: str) -> Binder:
    """More positional arguments than parameters (the checker does not let this through)."""

    def fail(i: Interpreter) -> dict[str, Any]:
        for code in codes:
            code(i)
        raise IndexError(message)

    return fail
