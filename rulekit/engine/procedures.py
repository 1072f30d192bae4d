"""A procedure of a rulebook as the generated code calls it: its body (generated on first
use), and its call written to the trace, or left out of it when it is a quiet helper.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rulekit.engine.reach import costly, quiet, remembered_depth
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
from rulekit.engine.values import to_json
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.interpreter import Interpreter

Body = Callable[["Interpreter"], "tuple[Any] | None"]

# A procedure that wrote none of these is a pure helper: its call is left out of the trace.
_EFFECTS = frozenset(
    {RollEvent, LookupEvent, DecisionEvent, SetEvent, DrawEvent, NoteEvent, TotalEvent}
)


class Procedure:
    """A procedure: its body is generated on its first call (procedures may call
    themselves), by the program that holds it."""

    def __init__(self, program: Any, decl: n.ProcedureDecl) -> None:
        self.program, self.decl = program, decl
        self.name, self.title, self.ref = decl.name, decl.title, decl.ref
        self.rule = decl.ref.text if decl.ref else None
        self.frame_name = f"procedure {decl.name}"
        # the untraced function generated for the body (rulekit.engine.codegen), once built
        self.untraced: Body | None = None
        self.body: Body = self._build
        # a pure helper called after the trace's first event runs off the record
        self.quiet = quiet(program.book, program.tables, decl.name)
        # calls nesting inside it, when its results are remembered off the record (the same
        # arguments give the same result in as many steps: reach.remembered_depth)
        kept = remembered_depth(program.book, program.tables, program.vocab.type_of, decl.name)
        self.depth: int | None = None
        self.reads: tuple[str, ...] = ()
        if kept is not None:
            self.depth, self.reads = kept
        self.known: dict[tuple[Any, ...], tuple[Any, int, tuple[str, ...]]] = {}
        # worth remembering while a default is worked out (engine.memo): a call may cost
        # more than looking its result up
        self.costly = costly(program.book, program.tables, decl.name)

    def _build(self, i: Interpreter) -> tuple[Any] | None:
        self.body = self.program.body(self.decl)
        return self.body(i)


def call_traced(i: Interpreter, proc: Procedure, args: dict[str, Any]) -> Any:
    """A procedure called while the trace is written (its arguments bound)."""
    if proc.quiet and i.trace.events:
        return _quietly(i, proc, args)
    return _traced(i, proc, args)


def _quietly(i: Interpreter, proc: Procedure, args: dict[str, Any]) -> Any:
    """A quiet procedure called after the trace's first event: every event it would write
    is removed when it returns, so none is made. Should it fail, it runs again, traced
    (from the same step count: it changed nothing), to leave the failing trace as it was."""
    frames = i.frames
    if len(frames) > MAX_NESTING:
        return _traced(i, proc, args)  # its error, after its call event
    steps = i.steps
    frame = Frame(proc.frame_name, proc.ref, dict(args))  # the body may change its locals
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
        return _traced(i, proc, args)
    return None if out is None else out[0]


_FAILED = ("failed",)


def _traced(i: Interpreter, proc: Procedure, args: dict[str, Any]) -> Any:
    """A call written to the trace between a call and a return event."""
    name = proc.name
    events = i.trace.events
    start = len(events)
    events.append(
        CallEvent(i.depth, name, proc.rule, proc.title, {k: to_json(v) for k, v in args.items()})
    )
    saved = i.push(Frame(proc.frame_name, proc.ref, args))
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
