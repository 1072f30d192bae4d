"""Closures for calls: procedures, modifier lists, tables, constructors, builtins, rolls
and draws (see rulekit.compiler).

A call's callee, the binding of its arguments to parameters and every label are worked
out when the closure is built; running it binds, steps, traces and runs, as the walker did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from attrs import evolve

from rulekit import compile_stmts as stmts
from rulekit import graph
from rulekit import nodes as n
from rulekit.builtins import BUILTINS, BuiltinError
from rulekit.checker import ENUM_FUNCTIONS, GRAPH_FUNCTIONS
from rulekit.dice import Die, throw_dice
from rulekit.reach import quiet
from rulekit.runtime import MAX_NESTING, Frame
from rulekit.tables import CompiledTable, LookupMiss
from rulekit.trace import (
    CallEvent,
    DecisionEvent,
    DrawEvent,
    LookupEvent,
    NoteEvent,
    ReturnEvent,
    RollEvent,
    SetEvent,
    Term,
    TotalEvent,
)
from rulekit.values import (
    Entity,
    EnumValue,
    Followed,
    RecordValue,
    RollValue,
    is_number,
    normalize,
    one_of_a_kind,
    plain,
    show,
    to_json,
    unwrap,
)

if TYPE_CHECKING:
    from rulekit.compiler import Code, Compiler
    from rulekit.interpreter import Interpreter

Binder = Callable[["Interpreter"], dict[str, Any]]
Invoke = Callable[["Interpreter", dict[str, Any]], Any]
ModifierCode = Callable[["Interpreter", dict[str, Any]], tuple[list[Term], Any, bool]]
LookupCode = Callable[["Interpreter", list[Any], n.Span], Any]

# A procedure that wrote none of these is a pure helper: its call is left out of the trace.
_EFFECTS = frozenset(
    {RollEvent, LookupEvent, DecisionEvent, SetEvent, DrawEvent, NoteEvent, TotalEvent}
)


def _r(ref: n.RuleRef | None) -> str | None:
    return ref.text if ref else None


def _step(span: n.Span) -> Callable[[Interpreter], None]:
    def step(i: Interpreter) -> None:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)

    return step


def call(comp: Compiler, e: n.Call) -> Code:
    """A call, by what its name names (in the walker's order of precedence)."""
    name, book = e.func, comp.book
    if name in comp.tables:
        return _table_call(comp, e)
    if name in book.modifiers:
        return _modifier_call(comp, e)
    if name in book.procedures:
        return _procedure_call(comp, e)
    if name in book.kinds or name in book.records:
        return _construct(comp, e)
    if name in GRAPH_FUNCTIONS:
        return _graph_call(comp, e)
    if name in ENUM_FUNCTIONS:
        return _enum_call(comp, e)
    if name in BUILTINS:
        return _builtin_call(comp, e)
    step, span = _step(e.span), e.span

    def unknown(i: Interpreter) -> Any:
        step(i)
        raise i.fail(f"unknown procedure, table or function '{name}'", span)

    return unknown


# ---- binding arguments to parameters ---------------------------------------------------


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
            return _too_many(codes[:index], "tuple index out of range")
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


def _too_many(codes: list[Code], message: str) -> Binder:
    """More positional arguments than parameters (the checker does not let this through)."""

    def fail(i: Interpreter) -> dict[str, Any]:
        for code in codes:
            code(i)
        raise IndexError(message)

    return fail


# ---- procedures --------------------------------------------------------------------------


def _procedure_call(comp: Compiler, e: n.Call) -> Code:
    decl = comp.book.procedures[e.func]
    bind = binder(comp, e, decl.params)
    proc = comp.procedure(e.func)
    traced, frame_name, ref = proc.traced, proc.frame_name, decl.ref
    quietly = proc.quietly
    span = e.span

    def run(i: Interpreter) -> Any:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        args = bind(i)
        if not i.muted:
            if quietly is not None and i.trace.events:
                return quietly(i, args)
            return traced(i, args)
        memo = i.memo
        if memo is None:
            return muted(i, args)
        # a default that only computes: the same call gives the same result in as many steps
        key = (proc, len(i.frames), *map(id, args.values()))
        hit = memo.calls.get(key)
        if hit is not None and i.steps + hit[1] <= i.max_steps:
            i.steps += hit[1]
            if not one_of_a_kind(hit[0]):
                memo.reused = True
            return hit[0]
        given = tuple(args.values())  # kept with the result, so their ids stay theirs
        before = i.steps
        result = muted(i, args)
        memo.calls[key] = (result, i.steps - before, given)
        return result

    def muted(i: Interpreter, args: dict[str, Any]) -> Any:
        # Interpreter.push and .pop, written out: this is the commonest call of all. The
        # depth is only shown in events, and none are made here: it is left as it is.
        frames = i.frames
        frame = Frame(frame_name, ref, args)
        if len(frames) > MAX_NESTING:
            raise i.too_deep(frame)
        frames.append(frame)
        i.locals = args
        saved = i.ref
        try:
            out = proc.body(i)
        finally:
            frames.pop()
            i.locals = frames[-1].locals
            i.ref = saved
        return None if out is None else out[0]

    return run


class Procedure:
    """A procedure: its body is built on its first call (procedures may call themselves)."""

    body: stmts.StmtCode

    def __init__(self, comp: Compiler, decl: n.ProcedureDecl) -> None:
        self.frame_name = f"procedure {decl.name}"

        def build(i: Interpreter) -> tuple[Any] | None:
            self.body = stmts.block(comp, decl.body, None, decl.ref)
            return self.body(i)

        self.body = build
        self.traced = _traced(self, decl)
        self.quietly = _quietly(self, decl) if quiet(comp.book, comp.tables, decl.name) else None


def _quietly(proc: Procedure, decl: n.ProcedureDecl) -> Invoke:
    """A quiet procedure called after the trace's first event: every event it would write
    is removed when it returns, so none is made. Should it fail, it runs again, traced
    (from the same step count: it changed nothing), to leave the failing trace as it was."""
    frame_name, ref, traced = proc.frame_name, decl.ref, proc.traced

    def invoke(i: Interpreter, args: dict[str, Any]) -> Any:
        frames = i.frames
        if len(frames) > MAX_NESTING:
            return traced(i, args)  # its error, after its call event
        steps = i.steps
        frame = Frame(frame_name, ref, dict(args))  # the body may change its locals
        frames.append(frame)
        i.locals = frame.locals
        saved = i.ref
        i.muted = True
        try:
            out = proc.body(i)
        except Exception:
            out = _FAILED
        finally:
            i.muted = False
            frames.pop()
            i.locals = frames[-1].locals
            i.ref = saved
        if out is _FAILED:
            i.steps = steps
            return traced(i, args)
        return None if out is None else out[0]

    return invoke


_FAILED = ("failed",)


def _traced(proc: Procedure, decl: n.ProcedureDecl) -> Invoke:
    """A call written to the trace between a call and a return event."""
    name, title, ref, rule = decl.name, decl.title, decl.ref, _r(decl.ref)
    frame_name = proc.frame_name

    def invoke(i: Interpreter, args: dict[str, Any]) -> Any:
        events = i.trace.events
        start = len(events)
        events.append(
            CallEvent(i.depth, name, rule, title, {k: to_json(v) for k, v in args.items()})
        )
        saved = i.push(Frame(frame_name, ref, args))
        try:
            out = proc.body(i)
        finally:
            i.pop(saved)
        result = None if out is None else out[0]
        events = i.trace.events
        if start > 0:
            for event in events[start:]:
                if type(event) in _EFFECTS:
                    break
            else:
                # a pure helper (no roll, row, decision, draw, change or note): not worth a line
                del events[start:]
                return result
        events.append(ReturnEvent(i.depth, name, to_json(result)))
        return result

    return invoke


# ---- modifier lists ------------------------------------------------------------------------


def _modifier_call(comp: Compiler, e: n.Call) -> Code:
    decl = comp.book.modifiers[e.func]
    bind = binder(comp, e, decl.params)
    terms_of = comp.modifier(e.func)
    name, rule, span = decl.name, _r(decl.ref), e.span

    def run(i: Interpreter) -> Any:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        terms, total, clamped = terms_of(i, bind(i))
        if not i.muted:
            i.trace.events.append(TotalEvent(i.depth, name, rule, terms, to_json(total), clamped))
        return total

    return run


def _label(comp: Compiler, line: n.ModLine) -> str:
    if line.label:
        return line.label
    text = comp.text(line.value.span)
    if line.per is not None:
        text += f" per {comp.text(line.per.span)}"
    if line.cond is not None:
        text += f" if {comp.text(line.cond.span)}"
    return text


def _modifier_line(
    comp: Compiler, decl: n.ModifiersDecl, line: n.ModLine
) -> Callable[[Interpreter, list[Term]], None]:
    ref = line.ref or decl.ref
    cond = comp.cond(line.cond) if line.cond is not None else None
    value = comp.expr(line.value)
    per = comp.expr(line.per) if line.per is not None else None
    sign, label, rule = line.sign, _label(comp, line), _r(line.ref)
    span, value_span = line.span, line.value.span

    def run(i: Interpreter, terms: list[Term]) -> None:
        i.ref = ref
        if cond is not None and not cond(i):
            return
        amount = plain(value(i))
        if per is not None:
            amount = i._arith("*", amount, per(i), span)
        if type(amount) is not int and not is_number(amount):
            raise i.fail(f"a modifier must be a number, got {show(amount)}", value_span)
        if amount == 0:
            return
        terms.append(Term(normalize(sign * amount), label, rule))

    return run


def modifier(comp: Compiler, decl: n.ModifiersDecl) -> ModifierCode:
    """A modifier list's terms, total and whether its clamp changed the total."""
    frame_name, ref = f"modifiers {decl.name}", decl.ref
    lines: list[Callable[[Interpreter, list[Term]], None]] = []  # built on the first call
    low, high = decl.clamp if decl.clamp is not None else (None, None)

    def run(i: Interpreter, args: dict[str, Any]) -> tuple[list[Term], Any, bool]:
        if not lines and decl.lines:
            lines.extend(_modifier_line(comp, decl, line) for line in decl.lines)
        terms: list[Term] = []
        saved = i.push(Frame(frame_name, ref, args))
        try:
            for line in lines:
                line(i, terms)
        finally:
            i.pop(saved)
        total = normalize(sum([t.value for t in terms], 0))
        if decl.clamp is None:
            return terms, total, False
        bounded = total
        if low is not None and bounded < low:
            bounded = low
        if high is not None and bounded > high:
            bounded = high
        return terms, bounded, bounded != total

    return run


# ---- rolls --------------------------------------------------------------------------------


def roll(comp: Compiler, spec: n.DiceSpec, mods: tuple[n.RollMod, ...], span: n.Span) -> Code:
    """Throws the dice, adds the modifiers as terms, and traces the roll."""
    die = comp.dice.get(spec.die)
    count = comp.expr(spec.count) if not isinstance(spec.count, int) else None
    fixed = spec.count if isinstance(spec.count, int) else 1
    keep = spec.keep
    terms_of = [_roll_terms(comp, mod) for mod in mods]
    shown = str(spec)
    at = str(span)

    def run(i: Interpreter) -> RollValue:
        if die is None:
            raise KeyError(spec.die)
        number = fixed if count is None else plain(count(i))
        if not isinstance(number, int) or number < 1:
            raise i.fail(f"cannot roll {show(number)} dice", spec.span)
        faces = throw_dice(i.dice, die, number, i._where(span))
        if keep == "highest":
            natural = max(faces)
        elif keep == "lowest":
            natural = min(faces)
        else:
            natural = sum(faces)
        terms: list[Term] = []
        for term in terms_of:
            terms.extend(term(i))
        total = normalize(natural + sum((t.value for t in terms), 0))
        if not i.muted:
            dice = shown if count is None else str(evolve(spec, count=number))
            i.trace.events.append(
                RollEvent(i.depth, dice, list(faces), natural, terms, total, _r(i.ref), at)
            )
        return RollValue(total, natural, faces)

    return run


def _roll_terms(comp: Compiler, mod: n.RollMod) -> Callable[[Interpreter], list[Term]]:
    value, sign = mod.value, mod.sign
    if isinstance(value, n.Call) and value.func in comp.book.modifiers:
        decl = comp.book.modifiers[value.func]
        bind = binder(comp, value, decl.params)
        terms_of = comp.modifier(value.func)
        low, high = decl.clamp or (None, None)
        bounds = f"{'' if low is None else low}..{'' if high is None else high}"
        rule = _r(decl.ref)

        def listed(i: Interpreter) -> list[Term]:
            terms, total, clamped = terms_of(i, bind(i))
            if clamped:
                # the list's clamp holds inside a roll too: a term brings the sum to the total
                correction = normalize(total - sum((t.value for t in terms), 0))
                terms = [*terms, Term(correction, f"clamp {bounds}", rule)]
            return [Term(sign * t.value, t.label, t.rule, t.provisional) for t in terms]

        return listed
    code = comp.expr(value)
    label = "" if isinstance(value, n.Num) else comp.text(value.span)
    span = value.span

    def single(i: Interpreter) -> list[Term]:
        amount = plain(code(i))
        if not is_number(amount):
            raise i.fail(f"a roll modifier must be a number, got {show(amount)}", span)
        if amount == 0:
            return []
        return [Term(normalize(sign * amount), label, None)]

    return single


# ---- tables -------------------------------------------------------------------------------


def _table_call(comp: Compiler, e: n.Call) -> Code:
    table = comp.tables[e.func]
    inputs = [d for d in table.dims if d.kind != "roll"]
    plan: list[tuple[str | None, Code]] = []  # (None for the roll, or the dimension, value)
    position = 0
    for arg in e.args:
        code = comp.expr(arg.value)
        if arg.name == "roll":
            plan.append((None, code))
        elif arg.name is not None:
            plan.append((arg.name, code))
        elif position < len(inputs):
            plan.append((inputs[position].name, code))
            position += 1
        else:
            return _too_many([c for _, c in plan] + [code], "list index out of range")
    dims: list[tuple[str | None, Code | None]] = []
    for dim in table.dims:
        if dim.kind == "roll":
            assert dim.decl.dice is not None
            dims.append((None, roll(comp, dim.decl.dice, dim.decl.mods, e.span)))
        else:
            dims.append((dim.name, None))
    lookup = comp.lookup(table)
    span = e.span

    def run(i: Interpreter) -> Any:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        given: dict[str, Any] = {}
        rolled: Any = None
        for key, code in plan:
            if key is None:
                rolled = code(i)
            else:
                given[key] = code(i)
        values = []
        for key, throw in dims:
            if key is None:
                if rolled is None:
                    assert throw is not None
                    rolled = throw(i)
                values.append(rolled)
            else:
                values.append(given[key])
        return lookup(i, values, span)

    return run


def lookup(comp: Compiler, table: CompiledTable) -> LookupCode:
    """Finds a cell, traces the row, and runs the cell's follow-up action if it has one."""
    dims = table.dims
    enums = [d.type.name if d.type.__class__.__name__ == "EnumT" else None for d in dims]  # type: ignore[union-attr]
    name, rule, ref = table.name, table.rule, table.decl.ref
    enum_value = comp.vocab.enum_value

    def run(i: Interpreter, values: list[Any], span: n.Span) -> Any:
        resolved = []
        for enum, value in zip(enums, values, strict=True):
            if enum is not None:
                v = plain(value)
                if isinstance(v, str):
                    member = enum_value(enum, v)
                    value = member if member is not None else value
            resolved.append(value)
        try:
            cell, path = table.lookup(resolved)
        except LookupMiss as miss:
            return _missed(i, table, resolved, miss, span)
        keys = {d.name: to_json(plain(v)) for d, v in zip(dims, resolved, strict=True)}
        row = [k.printed for k in path]
        if cell.provisional:
            i.trace.used_provisional(
                f"table {name} ({' / '.join(row)})" + (f" [{rule}]" if rule else "")
            )
        i.trace.events.append(
            LookupEvent(i.depth, name, rule, keys, row, cell.printed, cell.provisional, str(span))
        )
        if cell.action is None:
            return cell.value
        action = comp.cached(cell.action)
        local = {d.name: v for d, v in zip(dims, resolved, strict=True) if d.kind != "roll"}
        saved = i.push(Frame(f"table {name}", ref, local))
        try:
            then = action(i)
        finally:
            i.pop(saved)
        return then if cell.value is None else Followed(cell.value, then)

    return run


def _missed(
    i: Interpreter, table: CompiledTable, resolved: list[Any], miss: LookupMiss, span: n.Span
) -> Any:
    if miss.dim.kind == "threshold":
        # "the highest entry the value equals or exceeds": below the first, no entry.
        keys = {d.name: to_json(unwrap(v)) for d, v in zip(table.dims, resolved, strict=True)}
        below = f"below {miss.keys[0] if miss.keys else 'every line'}"
        if not i.muted:
            i.trace.add(
                LookupEvent(i.depth, table.name, table.rule, keys, [below], None, False, str(span))
            )
        return None
    raise i.fail(
        f"table {table.name} has no row for {miss.dim.name} = {show(unwrap(miss.value))}",
        span,
        hint=f"its {miss.dim.name} rows are: {', '.join(miss.keys)}" if miss.keys else None,
    ) from None


# ---- constructors, graphs, enums, builtins -------------------------------------------------


def _construct(comp: Compiler, e: n.Call) -> Code:
    record = comp.book.records.get(e.func)
    decl: n.KindDecl | n.RecordDecl = record or comp.book.kinds[e.func]
    params = tuple(n.Param(f.name, f.type, f.default, span=f.span) for f in decl.fields)
    bind = binder(comp, e, params)
    step, kind = _step(e.span), decl.name
    if record is not None:
        names = [f.name for f in record.fields]

        def make_record(i: Interpreter) -> RecordValue:
            step(i)
            attrs = bind(i)
            return RecordValue(kind, tuple((name, attrs[name]) for name in names))

        return make_record

    def make_entity(i: Interpreter) -> Entity:
        step(i)
        attrs = bind(i)
        i.entity_count += 1
        label = str(attrs.get("name") or f"{kind} {i.entity_count}")
        return Entity(kind, attrs, label)

    return make_entity


def _graph_call(comp: Compiler, e: n.Call) -> Code:
    """Distances and routes over a table of neighbours, traced as one event."""
    step, func = _step(e.span), e.func
    codes = [comp.expr(a.value) for a in e.args[1:]]

    def run(i: Interpreter) -> Any:
        step(i)
        graph_name = e.args[0].value.id  # type: ignore[union-attr]
        table = comp.tables[graph_name]
        first, second = (code(i) for code in codes)
        if func == "distance":
            result: Any = graph.distance(table, first, second)
        elif func == "route":
            result = graph.route(table, first, second) or ()
        else:
            result = graph.within(table, list(i._iterate(first, e.span)), unwrap(second))
        if table.provisional_cells:
            i.trace.used_provisional(
                f"table {table.name}" + (f" [{table.rule}]" if table.rule else "")
            )
        shown = f"{func}({graph_name}, {show(first)}, {show(second)}) = {show(result)}"
        if not i.muted:
            i.trace.add(NoteEvent(i.depth, shown, table.rule))
        return result

    return run


def _enum_call(comp: Compiler, e: n.Call) -> Code:
    step, name, span = _step(e.span), e.func, e.span
    arg = comp.expr(e.args[0].value) if e.args else None
    vocab, enums = comp.vocab, comp.book.enums

    def run(i: Interpreter) -> Any:
        step(i)
        if arg is None:
            raise IndexError("tuple index out of range")
        value = unwrap(arg(i))
        if not isinstance(value, EnumValue):
            raise i.fail(f"{name}() takes a member of an enum, got {show(value)}", span)
        size = len(enums[value.enum].members)
        if name == "members_of":
            return tuple(vocab.member_of(value.enum, k) for k in range(size))
        return vocab.member_of(value.enum, value.index + 1) if value.index + 1 < size else None

    return run


def _builtin_call(comp: Compiler, e: n.Call) -> Code:
    name, span = e.func, e.span
    impl, rounding = BUILTINS[name].impl, comp.rounding
    codes = [comp.expr(a.value) for a in e.args]
    only = codes[0] if len(codes) == 1 else None

    def run(i: Interpreter) -> Any:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        args = [code(i) for code in codes]
        try:
            return normalize(impl(args, rounding))
        except BuiltinError as exc:
            raise i.fail(_builtin_message(name, exc), span) from None

    if only is not None and name in _QUICK:
        quick = _QUICK[name]

        def fast(i: Interpreter) -> Any:
            i.steps += 1
            if i.steps > i.max_steps:
                raise i.over_budget(span)
            value = only(i)
            result = quick(value)
            if result is not _SLOW:
                return result
            try:
                return normalize(impl([value], rounding))
            except BuiltinError as exc:
                raise i.fail(_builtin_message(name, exc), span) from None

        return fast
    return run


_SLOW = object()


def _builtin_message(name: str, exc: BuiltinError) -> str:
    """The builtin's message, named once (some messages already start with their call)."""
    text = str(exc)
    return text if text.startswith(f"{name}(") else f"{name}(): {text}"


# The commonest one-argument builtins on their commonest values; anything else, the builtin.
_QUICK: dict[str, Callable[[Any], Any]] = {
    "count": lambda v: len(v) if type(v) is tuple else _SLOW,
    "abs": lambda v: abs(v) if type(v) is int else _SLOW,
    "ord": lambda v: v.index if type(v) is EnumValue else _SLOW,
    "first": lambda v: (normalize(v[0]) if v else None) if type(v) is tuple else _SLOW,
    "last": lambda v: (normalize(v[-1]) if v else None) if type(v) is tuple else _SLOW,
}


# ---- draws ---------------------------------------------------------------------------------


def draw(comp: Compiler, e: n.Draw) -> Code:
    """Draw without replacement; the dice source picks the position of each item."""
    name = comp.text(e.source.span)
    source = comp.expr(e.source)
    count = comp.expr(e.count) if e.count is not None else None
    store = _store(comp, e.source)
    span, source_span = e.span, e.source.span

    def run(i: Interpreter) -> Any:
        pool = list(i._iterate(source(i), source_span))
        wanted = 1 if count is None else unwrap(count(i))
        if not isinstance(wanted, int) or wanted < 0:
            raise i.fail(f"cannot draw {show(wanted)} items", span)
        if count is None and not pool:
            raise i.fail(f"cannot draw from {name}: it is empty", span)
        if wanted > len(pool) and not i.muted:
            i.trace.add(NoteEvent(i.depth, f"only {len(pool)} left in {name}", _r(i.ref)))
        drawn = []
        for _ in range(min(wanted, len(pool))):
            die = Die(f"draw from {name}", tuple(range(1, len(pool) + 1)), "draw")
            # one item left is no chance at all: no die is thrown for it
            position = 1 if len(pool) == 1 else i.dice.throw(die, i._where(span))
            item = pool.pop(position - 1)
            drawn.append(item)
            if not i.muted:
                i.trace.add(
                    DrawEvent(i.depth, name, position, len(pool) + 1, to_json(item), _r(i.ref))
                )
        store(i, tuple(pool))
        return drawn[0] if count is None else tuple(drawn)

    return run


def _store(comp: Compiler, target: n.Expr) -> Callable[[Interpreter, Any], None]:
    """Write back a pool after a draw (a local, a state variable or an attribute)."""
    if isinstance(target, n.Name):
        name = target.id

        def local_or_state(i: Interpreter, value: Any) -> None:
            if name in i.locals:
                i.locals[name] = value
            else:
                i.state.values[name] = value

        return local_or_state
    assert isinstance(target, n.Attr)
    obj, attr, span = comp.expr(target.obj), target.name, target.span

    def attribute(i: Interpreter, value: Any) -> None:
        piece = obj(i)
        if not isinstance(piece, Entity):
            raise i.fail(f"cannot draw from {show(piece)}: not a game piece", span)
        piece.attrs[attr] = value

    return attribute
