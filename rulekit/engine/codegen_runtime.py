"""What generated code calls (rulekit.engine.codegen): the slower paths of operators, calls
of procedures and tables, aggregates, constants and provisional values; the line map that
locates an error in the rulebook. Rolls, draws, look-ups and builtins are in
rulekit.engine.lookups, decisions in rulekit.engine.decisions, a procedure's call in
rulekit.engine.procedures.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from attrs import frozen

from rulekit.book import graph
from rulekit.book.tables import Cell, CompiledTable, LookupMiss
from rulekit.book.types import allows_none
from rulekit.engine import lookups
from rulekit.engine.decisions import Suggestion, choose
from rulekit.engine.dice import Die
from rulekit.engine.lookups import Lookup
from rulekit.engine.memo import Unkeyable, keepable, key_of
from rulekit.engine.procedures import Procedure, call_traced
from rulekit.engine.runtime import (
    MAX_NESTING,
    ORDER,
    Frame,
    TurnEnded,
    charge,
    clamp_track,
    sized,
)
from rulekit.engine.slow import arith as _arith
from rulekit.engine.slow import attr as _attr_any
from rulekit.engine.slow import contains as _contains
from rulekit.engine.slow import eq as _eq_any
from rulekit.engine.slow import iterate as _iterate
from rulekit.engine.slow import name_value as _name_value
from rulekit.engine.slow import order as _order_any
from rulekit.engine.slow import record_change as _record_change
from rulekit.engine.slow import where as _where
from rulekit.engine.trace import (
    CheckEvent,
    LookupEvent,
    NoteEvent,
    RollEvent,
    Term,
    TotalEvent,
    ValueEvent,
)
from rulekit.engine.values import (
    Entity,
    EnumValue,
    MarkerValue,
    RollValue,
    is_number,
    normalize,
    plain,
    show,
    to_json,
    truth,
    unwrap,
)
from rulekit.errors import (
    InternalRuleError,
    RulekitError,
    RuleRuntimeError,
    RuleViolation,
    error,
)
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.interpreter import Interpreter
    from rulekit.engine.program import Program

# ---- the source and its line map ----------------------------------------------------------


@frozen
class Generated:
    """One generated function: its source, where each line came from, and the function."""

    name: str
    source: str
    spans: tuple[n.Span | None, ...]  # by line of source, from 1
    function: Callable[..., Any]

    def where(self, line: int) -> n.Span | None:
        """The rulebook span that line ``line`` (1-based) of the source was written for."""
        if 1 <= line <= len(self.spans):
            return self.spans[line - 1]
        return None

    def annotated(self) -> str:
        """The source for a reader: a line that starts a rulebook line says which."""
        out, last = [], None
        for line, span in zip(self.source.splitlines(), self.spans, strict=True):
            where = f"{span.file}:{span.line}" if span is not None and span.line else None
            if where is not None and where != last:
                line += f"  # {where}"
            last = where or last
            out.append(line)
        return "\n".join(out) + "\n"


def mangle(name: str) -> str:
    """A rulebook name as a safe Python identifier: letters and digits kept, others coded."""
    out = []
    for ch in name:
        if ch.isascii() and (ch.isalnum() or ch == "_") and ch != "_":
            out.append(ch)
        else:
            out.append(f"_{ord(ch):x}_")
    return "".join(out)


_NONE_TYPE = type(None)
PLAIN_EQ = frozenset({int, str, bool, _NONE_TYPE, EnumValue, Entity})


def _cond(v: Any) -> bool:
    if v is True or v is False:
        return v
    return truth(v)


def _eq(i: Interpreter, a: Any, b: Any) -> bool:
    t = type(a)
    if t is type(b):
        if t is EnumValue:  # EnumValue.__eq__ inline: this is the commonest comparison
            return a.member == b.member and a.enum == b.enum  # type: ignore[no-any-return]
        if t in PLAIN_EQ:
            return bool(a == b)
    elif a is None:  # none equals only none (as Interpreter._eq finds, more slowly)
        return unwrap(b) is None
    elif b is None:
        return unwrap(a) is None
    return _eq_any(i, a, b)


def _check(i: Interpreter, result: bool, text: str, rule: str) -> bool:
    i.trace.events.append(CheckEvent(i.depth, text, result, rule))
    return result


def _violate(i: Interpreter, message: str, span: n.Span, rule: n.RuleRef | None) -> None:
    raise RuleViolation([error(message, span, rule=rule, context=f"in {i.frame.name}")])


RUNTIME: dict[str, Any] = {
    "_cond": _cond,
    "_eq": _eq,
    "_check": _check,
    "_violate": _violate,
    "_plain": plain,
    "_Entity": Entity,
    "_EnumValue": EnumValue,
    "_ValueEvent": ValueEvent,
    "_NoteEvent": NoteEvent,
    "_to_json": to_json,
    "_RollValue": RollValue,
    "_clamp": clamp_track,
    # the slower paths (rulekit.engine.slow): generated code calls no interpreter method
    "_iterate": _iterate,
    "_name_value": _name_value,
    "_attr_any": _attr_any,
    "_arith": _arith,
    "_eq_any": _eq_any,
    "_contains": _contains,
    "_order_any": _order_any,
    "_record_change": _record_change,
}


def _join_or_arith(i: Interpreter, a: Any, b: Any, span: n.Span) -> Any:
    """``a + b`` when not both ints: lists join (a step per item), numbers add (the
    interpreter's slower path)."""
    pa, pb = plain(a), plain(b)
    if isinstance(pa, tuple) and isinstance(pb, tuple):
        charge(i, len(pa) + len(pb), span)
        return pa + pb
    return _arith(i, "+", a, b, span)


def _sized(i: Interpreter, value: int, span: n.Span) -> int:
    """An int result beyond ``_BIG``: kept if it has at most MAX_DIGITS digits, else the
    error (runtime.sized)."""
    return sized(i, value, span)  # type: ignore[no-any-return]


RUNTIME["_join_or_arith"] = _join_or_arith
RUNTIME["_sized"] = _sized
RUNTIME["_charge"] = charge
RUNTIME["_BIG"] = 1 << 64  # a result below it is certainly not too big (runtime.sized)


def _stepped(i: Interpreter, span: n.Span) -> Interpreter:
    """A step, inside an expression: a call steps before its arguments are evaluated."""
    i.steps += 1
    if i.steps > i.max_steps:
        raise i.over_budget(span)
    return i


_KNOWN_MAX = 100_000  # results remembered per procedure, at most


def _remembered(i: Interpreter, proc: Procedure, args: dict[str, Any]) -> Any:
    """A call of a procedure whose result only its (plain) arguments and the (plain) state
    variables it reads decide: the result of an earlier call with the same ones, charged
    the steps it took and noting the provisional values it used, unless that would go past
    the step budget or the nesting limit (then it runs, to fail as it would)."""
    key: tuple[Any, ...] = tuple(args.items())
    if proc.reads:  # and the values of the state variables it reads
        values = i.state.values
        key = (*key, *[values.get(name) for name in proc.reads])
    known = proc.known
    try:
        hit = known.get(key)
    except TypeError:  # an argument that cannot be a key: run it
        return _run(i, proc, args)
    trace = i.trace
    if hit is not None:
        result, steps, notes = hit
        assert proc.depth is not None
        if i.steps + steps <= i.max_steps and len(i.frames) + proc.depth <= MAX_NESTING:
            i.steps += steps
            for note in notes:
                trace.used_provisional(note)
            return result
        return _run(i, proc, args)
    steps_before = i.steps
    noted_before = trace.begin_noting()  # every provisional value the run uses, in order
    try:
        result = _run(i, proc, args)
    finally:
        notes = trace.end_noting(noted_before)
    if len(known) < _KNOWN_MAX:
        known[key] = (result, i.steps - steps_before, notes)
    return result


BY_FILE: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()


def located(i: Interpreter, exc: BaseException) -> RuleRuntimeError | None:
    """An unexpected Python error raised in generated code, as an error at the rulebook
    line the innermost generated line came from (never at the generated code)."""
    if isinstance(exc, RulekitError | TurnEnded | EOFError):
        # a rulebook's error, `end turn` on its way to the sequence of play, or the end of
        # the player's input (Ctrl-D at a prompt of `rulekit play`: it saves and stops)
        return None
    span = None
    tb = exc.__traceback__
    while tb is not None:
        generated = BY_FILE.get(tb.tb_frame.f_code.co_filename)
        if generated is not None:
            span = generated.where(tb.tb_lineno) or span
        tb = tb.tb_next
    if span is None:
        return None
    failed = i.fail(f"internal error: {type(exc).__name__}: {exc}", span)
    return InternalRuleError(failed.diagnostics)


def _run(i: Interpreter, proc: Procedure, args: dict[str, Any]) -> Any:
    """A procedure run off the record; while a default that only computes is worked out,
    its result remembered for that default (``_memoized``)."""
    if i.memo is not None and proc.costly:
        return _memoized(i, proc, args)
    return _execute(i, proc, args)


def _execute(i: Interpreter, proc: Procedure, args: dict[str, Any]) -> Any:
    """A procedure run off the record: its frame, its untraced body, its result."""
    frames = i.frames
    frame = Frame(proc.frame_name, proc.ref, args)
    if len(frames) > MAX_NESTING:
        raise i.too_deep(frame)
    frames.append(frame)
    i.locals = args
    saved = i.ref
    run = proc.untraced
    try:
        out = run(i) if run is not None else proc.body(i)
    except Exception as exc:
        error = located(i, exc)
        if error is None:
            raise
        raise error from exc
    finally:
        frames.pop()
        i.locals = frames[-1].locals
        i.ref = saved
    return None if out is None else out[0]


def _memoized(i: Interpreter, proc: Procedure, args: dict[str, Any]) -> Any:
    """A call while a default that only computes is worked out (rulekit.engine.memo): the
    result of an earlier call with arguments no procedure can tell apart, charged the steps
    it took and noting the provisional values it noted, unless that would pass the step
    budget or it ran with fewer frames below it (then it runs, to fail as it would)."""
    memo = i.memo
    assert memo is not None
    try:
        key: tuple[Any, ...] = (proc, *[(k, key_of(v)) for k, v in args.items()])
    except Unkeyable:
        return _execute(i, proc, args)
    calls = memo.calls
    hit = calls.get(key)
    trace = i.trace
    if hit is not None:
        result, steps, notes, frames = hit
        if i.steps + steps <= i.max_steps and len(i.frames) <= frames:
            i.steps += steps
            for note in notes:
                trace.used_provisional(note)
            return result
        return _execute(i, proc, args)
    steps_before, consts_before = i.steps, len(i.consts)
    noted_before = trace.begin_noting()  # every provisional value the run uses, in order
    try:
        result = _execute(i, proc, args)
    finally:
        notes = trace.end_noting(noted_before)
    if len(i.consts) == consts_before and keepable(result, args):
        calls[key] = (result, i.steps - steps_before, notes, len(i.frames))
    return result


class TableSite:
    """A table called at one place: which argument goes to which dimension, and the rows
    already found by the (plain int or enum) values of its dimensions."""

    __slots__ = ("at", "dims", "found", "lookup", "names", "rolled", "span", "table", "throw")

    def __init__(
        self,
        table: CompiledTable,
        lookup: Lookup,
        dims: tuple[int | str | None, ...],
        rolled: int | None,
        throw: Callable[[Interpreter], Any] | None,
        span: n.Span,
    ) -> None:
        self.table, self.lookup, self.dims, self.rolled = table, lookup, dims, rolled
        self.throw, self.span, self.at = throw, span, str(span)
        self.names = tuple(d.name for d in table.dims)
        self.found: dict[tuple[Any, ...], tuple[Cell, list[str], str | None]] = {}


_KEYED = frozenset({int, EnumValue})


def _table(i: Interpreter, site: TableSite, given: tuple[Any, ...]) -> Any:
    rolled = given[site.rolled] if site.rolled is not None else None
    values = []
    for src in site.dims:
        if src is None:
            if rolled is None:
                assert site.throw is not None
                rolled = site.throw(i)
            values.append(rolled)
        else:
            values.append(given[src])  # type: ignore[index]  # no dimension is missing here
    key = tuple([plain(v) for v in values])
    keyed = True
    for v in key:
        if type(v) not in _KEYED:
            keyed = False
            break
    hit = site.found.get(key) if keyed else None
    if hit is None:
        hit = _row(site, key)
        if hit is None:  # a text, a miss, a follow-up action: the slower way
            return site.lookup.run(i, values, site.span)
    cell, row, note = hit
    if note is not None:
        i.trace.used_provisional(note)
    if i.muted:  # off the record: nobody reads the row's event
        return cell.value
    keys = dict(zip(site.names, map(to_json, key), strict=True))  # an enum as worded here
    table = site.table
    i.trace.events.append(
        LookupEvent(
            i.depth,
            table.name,
            table.rule,
            keys,
            list(row),
            cell.printed,
            cell.provisional,
            site.at,
        )
    )
    return cell.value


def _table_missing(i: Interpreter, site: TableSite, given: tuple[Any, ...]) -> Any:
    """A table called without an argument for one of its dimensions (the checker does not
    let this through): the dimensions before it taken in order (the table's roll thrown if
    it comes first), then the error."""
    rolled = given[site.rolled] if site.rolled is not None else None
    for src in site.dims:
        if src is None:
            if rolled is None:
                assert site.throw is not None
                rolled = site.throw(i)
        elif type(src) is str:
            raise KeyError(src)
    raise AssertionError("no dimension is missing")


_BELOW = Cell(None, None)  # what a value below a threshold table's first line finds


def _row(site: TableSite, key: tuple[Any, ...]) -> tuple[Cell, list[str], str | None] | None:
    """The row of plain int or enum values, remembered; None for any other look-up."""
    if not all(type(v) in _KEYED for v in key):
        return None
    table = site.table
    try:
        cell, path = table.lookup(list(key))
    except LookupMiss as miss:
        if miss.dim.kind != "threshold":
            return None  # an error (lookups._missed), never remembered
        # below the first line of a threshold: no entry, as lookups._missed traces it
        below = f"below {miss.keys[0] if miss.keys else 'every line'}"
        missed: tuple[Cell, list[str], str | None] = (_BELOW, [below], None)
        site.found[key] = missed
        return missed
    if cell.action is not None:
        return None
    row = [k.printed for k in path]
    note = None
    if cell.provisional:
        rule = table.rule
        note = f"table {table.name} ({' / '.join(row)})" + (f" [{rule}]" if rule else "")
    hit = site.found[key] = (cell, row, note)
    return hit


def _call_any(i: Interpreter, proc: Procedure, args: dict[str, Any]) -> Any:
    """A procedure called where the code runs traced or not (a modifier list, a default)."""
    if not i.muted:
        return call_traced(i, proc, args)
    if proc.depth is None:
        return _run(i, proc, args)
    return _remembered(i, proc, args)


def _call_given(i: Interpreter, proc: Procedure, args: dict[str, Any]) -> Any:
    """A procedure called by Interpreter.call: it runs, off the record or on it (a run of it
    is what the caller asked for, never a result remembered from another)."""
    if i.muted:
        return _execute(i, proc, args)
    return call_traced(i, proc, args)


class ModifierSite:
    """A modifier list called at one place: its generated function, found on first use."""

    __slots__ = ("comp", "name", "rule", "terms_of")

    def __init__(self, comp: Program, decl: n.ModifiersDecl) -> None:
        self.comp, self.name = comp, decl.name
        self.rule = decl.ref.text if decl.ref else None
        self.terms_of: Any = None


def _total_untraced(i: Interpreter, site: ModifierSite, args: dict[str, Any]) -> Any:
    terms_of = site.terms_of
    if terms_of is None:
        terms_of = site.terms_of = site.comp.modifier(site.name)
    return terms_of(i, args)[1]


def _total_traced(i: Interpreter, site: ModifierSite, args: dict[str, Any]) -> Any:
    terms_of = site.terms_of
    if terms_of is None:
        terms_of = site.terms_of = site.comp.modifier(site.name)
    terms, total, clamped = terms_of(i, args)
    i.trace.events.append(TotalEvent(i.depth, site.name, site.rule, terms, to_json(total), clamped))
    return total


def _terms(i: Interpreter, site: ModifierSite, args: dict[str, Any]) -> Any:
    """A modifier list's terms, total and clamp, in a roll (no step, no event of its own)."""
    terms_of = site.terms_of
    if terms_of is None:
        terms_of = site.terms_of = site.comp.modifier(site.name)
    return terms_of(i, args)


def _total_any(i: Interpreter, site: ModifierSite, args: dict[str, Any]) -> Any:
    if i.muted:
        return _total_untraced(i, site, args)
    return _total_traced(i, site, args)


def _not_a_modifier(i: Interpreter, amount: Any, span: n.Span) -> None:
    raise i.fail(f"a modifier must be a number, got {show(amount)}", span)


def _assign_attr(
    i: Interpreter, value: Any, obj: Any, target: tuple[str, ...], op: str, span: n.Span
) -> None:
    """``piece.attr = v`` / ``+=`` / ``-=``, the value first."""
    if not isinstance(obj, Entity):
        raise i.fail(f"cannot change '{'.'.join(target)}': {show(obj)} is not a game piece", span)
    attr, attrs = target[-1], obj.attrs
    if attr not in attrs:
        raise i.fail(f"a {obj.kind} has no '{attr}'", span)
    old = attrs[attr]
    if op == "=":
        new = value.total if type(value) is RollValue else value
    elif type(old) is int and type(value) is int and op[0] in "+-":
        new = old + value if op[0] == "+" else old - value
    else:
        new = _arith(i, op[0], old, value, span)
    attrs[attr] = new
    t = type(old)
    if t is type(new) and t in PLAIN_EQ and old == new:
        return  # unchanged: nothing to trace
    _record_change(i, f"{obj}.{attr}", old, new)


class ConstSite:
    """A constant: its value, worked out on first use in each game (generated on first use
    in the rulebook), and what reading it notes when it is provisional."""

    __slots__ = ("decl", "name", "note", "program", "value")

    def __init__(self, program: Any, decl: n.ConstDecl) -> None:
        self.program, self.decl, self.name = program, decl, decl.name
        self.note = (
            f"const {decl.name}" + (f" [{decl.ref.text}]" if decl.ref else "")
            if decl.provenance is not None
            else None
        )
        self.value: Callable[[Interpreter], Any] | None = None


def _const(i: Interpreter, site: ConstSite) -> Any:
    consts, name = i.consts, site.name
    if name not in consts:
        value = site.value
        if value is None:
            value = site.value = site.program.expression(site.decl.value)
        consts[name] = value(i)
    if site.note is not None:
        i.trace.used_provisional(site.note)
    return consts[name]


def _state_noted(i: Interpreter, name: str, note: str | None) -> Any:
    """A state variable that is (``note``) provisional until the game changes it."""
    if note is not None and name not in i.changed:
        i.trace.used_provisional(note)
    return i.state.values[name]


def _no_value(i: Interpreter, name: str, span: n.Span) -> Any:
    raise i.fail(f"'{name}' has no value here", span)


def _attr_noted(i: Interpreter, o: Any, name: str, kinds: frozenset[str], span: n.Span) -> Any:
    """An attribute that is provisional in pieces of ``kinds``: read, and noted."""
    if type(o) is Entity:
        attrs = o.attrs
        if name in attrs:
            if o.kind in kinds:
                i.trace.used_provisional(f"{o.kind}.{name} of {o}")
            return attrs[name]
    return _attr_any(i, o, name, span)


def _fill(i: Interpreter, span: n.Span, text: str, parts: tuple[tuple[str, str], ...]) -> str:
    """A text's placeholders filled in: each replacement charged by
    the text's length, so that a text doubled in a loop stops at the step budget."""
    for placeholder, shown in parts:
        text = text.replace(placeholder, shown)
        charge(i, len(text) // 64, span)
    return text


class GraphSite:
    __slots__ = ("func", "span", "table")

    def __init__(self, func: str, table: CompiledTable, span: n.Span) -> None:
        self.func, self.table, self.span = func, table, span


def _graph(i: Interpreter, site: GraphSite, first: Any, second: Any, traced: bool | None) -> Any:
    """A graph function after its step and arguments, traced as one note (untraced, the
    note is not made)."""
    func, table = site.func, site.table
    if func == "distance":
        result: Any = graph.distance(table, first, second)
    elif func == "route":
        result = graph.route(table, first, second) or ()
    else:
        result = graph.within(table, list(_iterate(i, first, site.span)), unwrap(second))
    if table.provisional_cells:
        i.trace.used_provisional(f"table {table.name}" + (f" [{table.rule}]" if table.rule else ""))
    if traced or (traced is None and not i.muted):
        shown = f"{func}({table.name}, {show(first)}, {show(second)}) = {show(result)}"
        i.trace.add(NoteEvent(i.depth, shown, table.rule))
    return result


def _order(i: Interpreter, op: str, a: Any, b: Any, span: n.Span) -> bool:
    """An order comparison not of two ints: a roll compares as its total (as
    Interpreter._order, which unwraps it, would find), anything else by Interpreter._order."""
    if type(a) is RollValue:
        a = a.total
    if type(b) is RollValue:
        b = b.total
    if type(a) is int and type(b) is int:
        return bool(ORDER[op](a, b))
    return _order_any(i, op, a, b, span)


def _yes(v: Any) -> bool:
    return v is True or (v is not False and truth(v))


def _count(values: list[Any]) -> int:
    return sum(1 for v in values if _yes(v))


def _any(values: list[Any]) -> bool:
    return any([_yes(v) for v in values])


def _all(values: list[Any]) -> bool:
    return all([_yes(v) for v in values])


def _sum(values: list[Any]) -> Any:
    return normalize(sum([plain(v) for v in values], 0))


def _max(values: list[Any]) -> Any:
    numbers = [plain(v) for v in values]
    return max(numbers) if numbers else None


def _min(values: list[Any]) -> Any:
    numbers = [plain(v) for v in values]
    return min(numbers) if numbers else None


class RollSite:
    """A roll of one die, no modifier (the commonest roll)."""

    __slots__ = ("at", "die", "shown", "span")

    def __init__(self, die: Die | None, shown: str, span: n.Span) -> None:
        self.die, self.shown, self.span, self.at = die, shown, span, str(span)


def _roll1(i: Interpreter, site: RollSite) -> RollValue:
    """One die thrown, as lookups.throw throws it (a step included in the
    statement's; its event when traced)."""
    die = site.die
    if die is None:
        raise KeyError(site.shown)
    face = i.dice.throw(die, _where(i, site.span))
    if not i.muted:
        ref = i.ref.text if i.ref else None
        i.trace.events.append(RollEvent(i.depth, site.shown, [face], face, [], face, ref, site.at))
    return RollValue(face, face, (face,))


class ReturnGuard:
    """A procedure whose declared result cannot be none (``-> combat_result``): a none it
    would return (a threshold table below its first line, a body falling off its end) is
    an error where it happens, never passed on to the caller."""

    def __init__(self, decl: n.ProcedureDecl, declared: str) -> None:
        self.name, self.declared, self.span = decl.name, declared, decl.span


def return_guard(comp: Program, decl: n.ProcedureDecl) -> ReturnGuard | None:
    """The guard of a procedure whose declared result cannot be none, else None."""
    if decl.returns is None:
        return None
    declared = comp.vocab.type_of(decl.returns)
    return None if allows_none(declared) else ReturnGuard(decl, str(declared))


def _none_returned(i: Interpreter, guard: ReturnGuard, span: n.Span | None) -> None:
    if span is None:  # the body fell off its end
        raise i.fail(
            f"procedure {guard.name} ends without a return, but it says {guard.declared}",
            guard.span,
            hint=f"return a value on every way through, or declare '-> {guard.declared} or none'",
        )
    raise i.fail(
        f"procedure {guard.name} returns none here, but it says {guard.declared}",
        span,
        hint=f"a table may have no entry for these keys; declare '-> {guard.declared} or none' "
        "if none is a result",
    )


_MISSING = object()
AGGREGATES = frozenset({"count", "any", "all", "sum", "max", "min"})

RUNTIME.update(
    _none_returned=_none_returned,
    _order=_order,
    _fill=_fill,
    _show=show,
    _graph=_graph,
    _assign_attr=_assign_attr,
    _Suggestion=Suggestion,
    _choose=choose,
    _call_any=_call_any,
    _call_given=_call_given,
    _builtin=lookups.builtin,
    _total_untraced=_total_untraced,
    _total_traced=_total_traced,
    _total_any=_total_any,
    _not_a_modifier=_not_a_modifier,
    _Frame=Frame,
    _Term=Term,
    _normalize=normalize,
    _is_number=is_number,
    _count=_count,
    _any=_any,
    _all=_all,
    _sum=_sum,
    _max=_max,
    _min=_min,
    _MISSING=_MISSING,
    _table=_table,
    _stepped=_stepped,
    _call_traced=call_traced,
    _run=_run,
    _remembered=_remembered,
    _roll1=_roll1,
    _table_missing=_table_missing,
    _terms=_terms,
    _const=_const,
    _state_noted=_state_noted,
    _no_value=_no_value,
    _attr_noted=_attr_noted,
    _MarkerValue=MarkerValue,
    _TurnEnded=TurnEnded,
    _NO_ARG=lookups.NO_ARG,
    _rolling=lookups.rolling,
    _throw=lookups.throw,
    _rolled=lookups.rolled,
    _single_term=lookups.single_term,
    _listed_terms=lookups.listed_terms,
    _draw=lookups.draw,
    _drawn_from_name=lookups.drawn_from_name,
    _drawn_from_attr=lookups.drawn_from_attr,
    _make_record=lookups.make_record,
    _make_entity=lookups.make_entity,
    _enum_call=lookups.enum_call,
    _enum_members=lookups.enum_members,
    _unknown_call=lookups.unknown_call,
    _too_many=lookups.too_many,
    _needs=lookups.needs,
    _graph_odd=lookups.graph_odd,
    _graph_unpack=lookups.graph_unpack,
)
