"""The interpreter: runs procedures, looks up tables and rolls dice, writing a trace.

All randomness comes from one injected dice source and all choices from one decision
policy, so the same rulebook, dice and decisions always give the same trace.

The rulebook's procedures, modifier lists and expressions run as Python functions generated
once per rulebook (rulekit.engine.program); this class holds one game's running state (frames,
dice, policy, trace, game state) and the slower, rarer paths the generated code falls back to.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from fractions import Fraction
from typing import Any, Protocol

from rulekit.book.checker import Checked
from rulekit.engine.dice import DiceSource, Die, SeededDice
from rulekit.engine.memo import CallMemo
from rulekit.engine.policy import DefaultPolicy, Policy
from rulekit.engine.program import Program, program_for
from rulekit.engine.runtime import (
    ARITH,
    MAX_NESTING,
    ORDER,
    Frame,
    GameState,
    TurnEnded,
    clamp_track,
    default_for,
    sized,
)
from rulekit.engine.trace import NoteEvent, SetEvent, Trace
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
from rulekit.errors import RuleRuntimeError, StepBudgetExceeded, error
from rulekit.language import nodes as n
from rulekit.limits import DEFAULT_STEP_BUDGET as DEFAULT_STEP_BUDGET  # one value: limits

PYTHON_RECURSION_LIMIT = 12_000  # room for MAX_NESTING calls


class DefaultMemo(Protocol):
    """Decision defaults remembered across runs, by a key that fixes the game's history."""

    known: dict[Any, int]  # key -> index of the default among the options

    def key(self, decisions: int) -> Any: ...


class Interpreter:
    """Runs one rulebook's procedures against a game state."""

    def __init__(
        self,
        checked: Checked,
        dice: DiceSource | None = None,
        policy: Policy | None = None,
        state: GameState | None = None,
        max_steps: int = DEFAULT_STEP_BUDGET,
    ) -> None:
        if sys.getrecursionlimit() < PYTHON_RECURSION_LIMIT:
            sys.setrecursionlimit(PYTHON_RECURSION_LIMIT)
        self.c = checked
        self.book = checked.book
        self.code: Program = program_for(checked)
        self.dice = dice if dice is not None else SeededDice(None)
        self.policy = policy if policy is not None else DefaultPolicy()
        self.trace = Trace()
        self.max_steps = max_steps
        self.steps = 0
        top = Frame("rulebook", None, {})
        self.frames: list[Frame] = [top]
        self.locals: dict[str, Any] = top.locals  # the innermost frame's, read most often
        self.depth = 0
        self.ref: n.RuleRef | None = None
        self.consts: dict[str, Any] = {}
        self.entity_count = 0
        self.changed: set[str] = set()  # state variables written since the start
        self.given: list[Any] = []  # the arguments of the running call()
        self.muted = False  # working out a decision's default: its events would be dropped
        self.memo: CallMemo | None = None  # working out a default that only computes (see memo)
        self.decisions = 0  # decisions made so far in this run
        # Exact enumeration re-runs a procedure once per path of dice; it may remember each
        # decision's default, which the dice thrown before it fully determine.
        self.defaults: DefaultMemo | None = None
        self.state = state if state is not None else self.initial_state()

    # ---- state ---------------------------------------------------------------------------

    def initial_state(self) -> GameState:
        """Every track at its start and every state variable at its initial value.

        Worked out once per rulebook when that is unobservable: no die thrown, no trace
        event, no piece made, and every value immutable (the steps and the provisional values
        used are charged and noted again) (exact analysis makes an interpreter
        per path of dice: a rulebook of 90 state variables evaluated them all each time)."""
        known = _INITIAL.get(self.code)
        if known is not None:
            values, steps, noted = known
            self.steps += steps  # charged and noted as if worked out
            for what in noted:
                self.trace.used_provisional(what)
            self.state = GameState(dict(values))
            return self.state
        dice, events, steps = self.dice, len(self.trace.events), self.steps
        pieces = self.entity_count
        counted = self.dice = _Counted(dice)
        before = self.trace.begin_noting()
        try:
            self._evaluate_initial()
        finally:
            self.dice = dice
            noted = self.trace.end_noting(before)
        values = self.state.values
        if (
            counted.thrown == 0
            and len(self.trace.events) == events
            and self.entity_count == pieces
            and not self.state.entities
            and all(_immutable(v) for v in values.values())
        ):
            _INITIAL[self.code] = (dict(values), self.steps - steps, noted)
        return self.state

    def _evaluate_initial(self) -> GameState:
        self.state = GameState()
        for track in self.book.tracks.values():
            start = self.eval(track.initial) if track.initial is not None else 0
            self.state.values[track.name] = clamp_track(start, track.low, track.high)
        for decl in self.book.states.values():
            if decl.initial is not None:
                self.state.values[decl.name] = self.eval(decl.initial)
            else:
                self.state.values[decl.name] = default_for(self.c.globals[decl.name])
        return self.state

    # ---- public entry points -------------------------------------------------------------

    def call(self, name: str, args: dict[str, Any]) -> Any:
        """Run a procedure, modifier list or table by name with already-read arguments."""
        self.steps = 0  # the step budget is per top-level call
        self.given = [_frozen(v) for v in args.values()]
        try:
            return self.code.given_call(name, tuple(args))(self)
        except TurnEnded:
            return None  # `end turn` outside a turn: the procedure stops there

    def lookup(self, name: str, keys: dict[str, Any], roll: Any = None) -> Any:
        """Look up one cell; with ``roll`` None a table with its own roll throws it."""
        self.steps = 0
        table = self.c.tables[name]
        values = []
        for dim in table.dims:
            if dim.kind == "roll":
                if roll is None:
                    assert dim.decl.dice is not None
                    roll = self.roll(dim.decl.dice, dim.decl.mods, table.decl.span)
                values.append(roll)
            else:
                values.append(keys[dim.name])
        return self.code.lookup(table).run(self, values, table.decl.span)

    def evaluate(self, expr: n.Expr, names: dict[str, Any]) -> Any:
        """Evaluate an expression from outside the rulebook with ``names`` as its locals."""
        with self._frame(Frame("expression", None, dict(names))):
            return self.eval(expr)

    def run_sequence(self, name: str | None = None) -> None:
        """One game turn: every segment and phase of the sequence of play, in order."""
        self.steps = 0  # the step budget is per turn
        seq = self.book.sequences.get(name) if name else self.book.sequence
        if seq is None:
            raise RuleRuntimeError(
                [error(f"this rulebook has no sequence of play {name or ''}", None)]
            )
        # `end turn`: the rest of the turn's phases are skipped
        with self._frame(Frame(seq.name, seq.ref, {})), suppress(TurnEnded):
            self._seq_items(seq.items)

    def _seq_items(self, items: tuple[n.SeqItem, ...]) -> None:
        for item in items:
            self._step(item.span)
            if isinstance(item, n.SeqSegment):
                self.trace.add(
                    NoteEvent(self.depth, f"segment {item.title or item.name}", _r(item.ref))
                )
                self._seq_items(item.items)
            elif isinstance(item, n.SeqPhase):
                self.ref = item.ref
                self.eval(item.call)
            else:
                for value in self._iterate(self.eval(item.iterable), item.iterable.span):
                    self.frame.locals[item.var] = value
                    self._seq_items(item.items)

    def eval(self, expr: n.Expr) -> Any:
        """The value of an expression (its function is generated on first use)."""
        return self.code.expression(expr)(self)

    def roll(self, spec: n.DiceSpec, mods: tuple[n.RollMod, ...], span: n.Span) -> RollValue:
        """Throw the dice, add the modifiers, and trace the roll."""
        result: RollValue = self.code.roll(spec, mods, span)(self)
        return result

    # ---- frames, errors and bookkeeping --------------------------------------------------

    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def fail(self, message: str, span: n.Span | None, hint: str | None = None) -> RuleRuntimeError:
        frame = self.frame
        context = f"in {frame.name}" + (f" [{frame.rule.text}]" if frame.rule else "")
        rule = self.ref or frame.rule
        return RuleRuntimeError(
            [
                error(
                    message,
                    span,
                    hint=hint,
                    rule=rule,
                    context=context
                    # the statement's own rule, when it is not the procedure's (by its text:
                    # exact analysis's blocks hold the same rule as another object)
                    + (
                        f", rule [{rule.text}]"
                        if rule and (frame.rule is None or rule.text != frame.rule.text)
                        else ""
                    ),
                )
            ]
        )

    def _step(self, span: n.Span) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise self.over_budget(span)

    def over_budget(self, span: n.Span) -> StepBudgetExceeded:
        frame = self.frame
        return StepBudgetExceeded(
            [
                error(
                    f"stopped after {self.max_steps} steps: the procedure does not finish",
                    span,
                    rule=frame.rule,
                    context=f"in {frame.name}" + (f" [{frame.rule.text}]" if frame.rule else ""),
                    hint="look for a loop that never ends, or raise the step budget "
                    "(--max-steps); a step is a statement, a call, a die thrown, or an item "
                    "of a list or 64 characters of text built",
                )
            ]
        )

    def too_deep(self, frame: Frame) -> StepBudgetExceeded:
        # where: the procedure entered once too often (its declaration), else the caller's
        kind, _, name = frame.name.partition(" ")
        decl = getattr(self.book, kind + "s", {}).get(name) if name else None
        span = decl.span if decl is not None else self.frame_span()
        return StepBudgetExceeded(
            [
                error(
                    f"calls nest deeper than {MAX_NESTING}: the procedure does not finish",
                    span,
                    rule=frame.rule,
                    context=f"in {frame.name}",
                    hint="look for a procedure that calls itself without end; "
                    "a 'while' loop may say it better",
                )
            ]
        )

    def frame_span(self) -> n.Span | None:
        """The declaration of the innermost running procedure, modifier list or table."""
        for frame in reversed(self.frames):
            kind, _, name = frame.name.partition(" ")
            decl = getattr(self.book, kind + "s", {}).get(name) if name else None
            if decl is not None:
                return decl.span  # type: ignore[no-any-return]
        return None

    def push(self, frame: Frame) -> n.RuleRef | None:
        """Enter a frame; returns the rule reference to restore on leaving it."""
        if len(self.frames) > MAX_NESTING:
            raise self.too_deep(frame)
        self.frames.append(frame)
        self.locals = frame.locals
        self.depth += 1
        return self.ref

    def pop(self, saved_ref: n.RuleRef | None) -> None:
        self.depth -= 1
        frames = self.frames
        frames.pop()
        self.locals = frames[-1].locals
        self.ref = saved_ref

    @contextmanager
    def _frame(self, frame: Frame) -> Iterator[Frame]:
        saved = self.push(frame)
        try:
            yield frame
        finally:
            self.pop(saved)

    def _where(self, span: n.Span) -> str:
        rule = self.ref or self.frame.rule
        return f"{span}" + (f" [{rule.text}]" if rule else "")

    # ---- the slower paths of values ------------------------------------------------------

    def _iterate(self, value: Any, span: n.Span) -> tuple[Any, ...]:
        value = unwrap(value)
        if not isinstance(value, tuple):
            raise self.fail(f"expected a list, got {show(value)}", span)
        return value

    def _name_value(self, name: str, span: n.Span) -> Any:
        """A name inside a note's ``{...}`` or an assignment's target."""
        local = self.frames[-1].locals
        if name in local:
            return local[name]
        if name in self.state.values:
            decl = self.book.states.get(name)
            if decl is not None and decl.provenance is not None and name not in self.changed:
                where = f" [{decl.ref.text}]" if decl.ref else ""
                self.trace.used_provisional(f"state {name}{where}")
            return self.state.values[name]
        return self.code.fallback_value(self, name, span)

    def _attr(self, obj: Any, name: str, span: n.Span) -> Any:
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
                if obj.kind in self.code.provisional_kinds(name):
                    self.trace.used_provisional(f"{obj.kind}.{name} of {obj}")
                return obj.attrs[name]
            raise self.fail(f"{obj} has no '{name}'", span)
        if isinstance(obj, RecordValue):
            try:
                return obj.get(name)
            except KeyError:
                raise self.fail(f"a {obj.type} has no '{name}'", span) from None
        if obj is None:
            raise self.fail(f"cannot read '{name}' of none", span)
        raise self.fail(f"{show(obj)} has no '{name}'", span)

    def _arith(self, op: str, left: Any, right: Any, span: n.Span) -> Any:
        a, b = unwrap(left), unwrap(right)
        for v in (a, b):
            if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
                raise self.fail(f"'{op}' needs numbers, got {show(v)}", span)
        if op == "/":
            if b == 0:
                raise self.fail("division by zero", span)
            return sized(self, normalize(Fraction(a) / Fraction(b)), span)
        return sized(self, normalize(ARITH[op](a, b)), span)

    def _eq(self, left: Any, right: Any) -> bool:
        a, b = unwrap(left), unwrap(right)
        if isinstance(a, str) and not isinstance(b, str):
            a, b = b, a
        if isinstance(a, EnumValue) and isinstance(b, str):
            return self.c.vocab.enum_value(a.enum, b) == a
        if isinstance(a, MarkerValue) and isinstance(b, str):
            return b in (a.name, a.symbol)
        if isinstance(a, bool) != isinstance(b, bool):
            return False
        return bool(a == b)

    def _contains(self, op: str, left: Any, right: Any, span: n.Span) -> bool:
        container = unwrap(right)
        if isinstance(container, RangeValue):
            found = unwrap(left) in container
        elif isinstance(container, tuple):
            found = self._among(left, container)
        else:
            raise self.fail(f"'{op}' needs a list, got {show(container)}", span)
        return found if op == "in" else not found

    def _among(self, left: Any, items: tuple[Any, ...]) -> bool:
        """Whether ``left`` equals one of ``items`` (as ``_eq``): a member or a game piece,
        the commonest cases, compared without a call per item."""
        t = type(left)
        if t is EnumValue:
            member, enum = left.member, left.enum
            for item in items:
                if type(item) is EnumValue:
                    if item.member == member and item.enum == enum:
                        return True
                elif self._eq(left, item):
                    return True
            return False
        if t is Entity:  # compared by identity, and never wrapped
            return any(item is left for item in items)
        if t is int:  # an int equals an int (not a bool: true is not 1)
            for item in items:
                if type(item) is int:
                    if item == left:
                        return True
                elif self._eq(left, item):
                    return True
            return False
        return any(self._eq(left, item) for item in items)

    def _order(self, op: str, left: Any, right: Any, span: n.Span) -> bool:
        a, b = unwrap(left), unwrap(right)
        if isinstance(a, EnumValue) and isinstance(b, EnumValue) and a.enum == b.enum:
            a, b = a.index, b.index
        ok = all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in (a, b))
        if not ok:
            raise self.fail(f"cannot compare {show(a)} and {show(b)}", span)
        return bool(ORDER[op](a, b))

    def _record_change(self, target: str, old: Any, new: Any) -> None:
        """A state change in the trace; a list change as what was added and removed."""
        if self.muted or (type(old) is type(new) and self._eq(old, new)):
            return
        if isinstance(old, tuple) and isinstance(new, tuple):
            removed = list(old)
            added = []
            for item in new:
                match = next((i for i, x in enumerate(removed) if self._eq(x, item)), None)
                if match is None:
                    added.append(item)
                else:
                    removed.pop(match)
            self.trace.add(
                SetEvent(
                    self.depth,
                    target,
                    len(old),
                    len(new),
                    _r(self.ref),
                    [to_json(a) for a in added],
                    [to_json(r) for r in removed],
                )
            )
            return
        self.trace.add(SetEvent(self.depth, target, to_json(old), to_json(new), _r(self.ref)))


def _frozen(value: Any) -> Any:
    """Python lists given by a caller become the interpreter's immutable lists."""
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _r(ref: n.RuleRef | None) -> str | None:
    return ref.text if ref else None


# The initial state values of each rulebook's program, when they are the same every time.
_INITIAL: weakref.WeakKeyDictionary[Program, tuple[dict[str, Any], int, tuple[str, ...]]] = (
    weakref.WeakKeyDictionary()
)


class _Counted:
    """The game's dice, counting the throws (while initial values are worked out)."""

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self.thrown = 0

    def throw(self, die: Die, where: str) -> int:
        self.thrown += 1
        return self.source.throw(die, where)

    def __getattr__(self, name: str) -> Any:
        # throw_group, throw_kept...: present only when the source has them
        found = getattr(self.source, name)
        if not (callable(found) and name.startswith("throw")):
            return found

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.thrown += 1
            return found(*args, **kwargs)

        return counted


def _immutable(value: Any) -> bool:
    """A value no statement can change in place: shared by every interpreter safely."""
    if value is None or type(value) in (int, bool, str, Fraction, EnumValue, MarkerValue):
        return True
    return type(value) is tuple and all(_immutable(v) for v in value)
