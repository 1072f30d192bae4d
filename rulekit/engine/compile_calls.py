"""Closures for calls: the dispatch of a call, and procedures (see rulekit.engine.compiler).
Modifier lists, rolls, tables and the other callees are in compile_lookups.

A call's callee, the binding of its arguments to parameters and every label are worked
out when the closure is built; running it binds, steps, traces and runs, as the walker did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rulekit.book.check_exprs import ENUM_FUNCTIONS, GRAPH_FUNCTIONS
from rulekit.engine import compile_stmts as stmts
from rulekit.engine.builtins import BUILTINS
from rulekit.engine.reach import quiet, remembered_depth
from rulekit.engine.runtime import MAX_NESTING, Frame, TurnEnded
from rulekit.engine.trace import (
    CallEvent,
    DecisionEvent,
    DrawEvent,
    LookupEvent,
    NoteEvent,
    ReturnEvent,
    RollEvent,
    SetEvent,
    TotalEvent,
)
from rulekit.engine.values import (
    one_of_a_kind,
    to_json,
)
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.compiler import Code, Compiler
    from rulekit.engine.interpreter import Interpreter
from rulekit.engine.compile_args import Invoke, binder, rule_text, step_code
from rulekit.engine.compile_lookups import (
    builtin_call,
    construct,
    enum_call,
    graph_call,
    modifier_call,
    table_call,
)

# A procedure that wrote none of these is a pure helper: its call is left out of the trace.
_EFFECTS = frozenset(
    {RollEvent, LookupEvent, DecisionEvent, SetEvent, DrawEvent, NoteEvent, TotalEvent}
)


def call(comp: Compiler, e: n.Call) -> Code:
    """A call, by what its name names (in the walker's order of precedence)."""
    name, book = e.func, comp.book
    if name in comp.tables:
        return table_call(comp, e)
    if name in book.modifiers:
        return modifier_call(comp, e)
    if name in book.procedures:
        return _procedure_call(comp, e)
    if name in book.kinds or name in book.records:
        return construct(comp, e)
    if name in GRAPH_FUNCTIONS:
        return graph_call(comp, e)
    if name in ENUM_FUNCTIONS:
        return enum_call(comp, e)
    if name in BUILTINS:
        return builtin_call(comp, e)
    step, span = step_code(e.span), e.span

    def unknown(i: Interpreter) -> Any:
        step(i)
        raise i.fail(f"unknown procedure, table or function '{name}'", span)

    return unknown


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
        self.ref = decl.ref
        # the untraced function generated for the body (rulekit.engine.codegen), once built
        self.untraced: Callable[[Interpreter], tuple[Any] | None] | None = None

        def build(i: Interpreter) -> tuple[Any] | None:
            self.body = comp.body(decl)
            return self.body(i)

        self.body = build
        self.traced = _traced(self, decl)
        self.quietly = _quietly(self, decl) if quiet(comp.book, comp.tables, decl.name) else None
        # calls nesting inside it, when its results are remembered off the record (the same
        # arguments give the same result in as many steps: reach.remembered_depth)
        kept = remembered_depth(comp.book, comp.tables, comp.vocab.type_of, decl.name)
        self.depth: int | None = None
        self.reads: tuple[str, ...] = ()
        if kept is not None:
            self.depth, self.reads = kept
        self.known: dict[tuple[Any, ...], tuple[Any, int, tuple[str, ...]]] = {}


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
    name, title, ref, rule = decl.name, decl.title, decl.ref, rule_text(decl.ref)
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
        except TurnEnded:  # the call ends with the turn: its return closes it in the trace
            i.pop(saved)
            i.trace.events.append(ReturnEvent(i.depth, name, None))
            raise
        else:
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
