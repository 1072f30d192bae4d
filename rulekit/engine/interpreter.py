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
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from fractions import Fraction
from typing import Any, Protocol, SupportsIndex

from attrs import frozen

from rulekit.book.checker import Checked
from rulekit.engine import slow
from rulekit.engine.dice import DiceSource, Die, SeededDice
from rulekit.engine.memo import CallMemo
from rulekit.engine.policy import DefaultPolicy, Policy
from rulekit.engine.program import Program, program_for
from rulekit.engine.runtime import (
    MAX_NESTING,
    Frame,
    GameState,
    TurnEnded,
    clamp_track,
    default_for,
)
from rulekit.engine.trace import NoteEvent, Trace
from rulekit.engine.values import (
    Entity,
    EnumValue,
    MarkerValue,
    RollValue,
    clone,
)
from rulekit.errors import RuleRuntimeError, StepBudgetExceeded, error
from rulekit.language import nodes as n
from rulekit.limits import DEFAULT_STEP_BUDGET as DEFAULT_STEP_BUDGET  # one value: limits

PYTHON_RECURSION_LIMIT = 12_000  # room for MAX_NESTING calls


class DefaultMemo(Protocol):
    """Decision defaults remembered across runs, by a key that fixes the game's history."""

    known: dict[Any, int]  # key -> index of the default among the options

    def key(self, decisions: int) -> Any: ...


class CallWatcher(Protocol):
    """Told of each frame an interpreter enters and leaves (Interpreter.watch_calls)."""

    def entered(self, frame: Frame) -> None: ...

    def left(self) -> None: ...


class _Watched(list[Frame]):
    """An interpreter's stack of frames, telling its watcher of each call and return."""

    def __init__(self, frames: list[Frame], watcher: CallWatcher) -> None:
        super().__init__(frames)
        self.watcher = watcher

    def append(self, frame: Frame) -> None:
        super().append(frame)
        self.watcher.entered(frame)

    def pop(self, index: SupportsIndex = -1) -> Frame:
        frame = super().pop(index)
        self.watcher.left()
        return frame


@frozen
class Snapshot:
    """A game's position, copied (Interpreter.snapshot): state values, pieces, pieces made."""

    values: dict[str, Any]
    entities: list[Entity]
    pieces: int


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

    # ---- the engine's API: what analysis and play set (no code outside engine/ assigns an
    # interpreter's fields; tests/test_engine_api.py scans for it) -------------------------

    def mute(self, muted: bool = True) -> None:
        """Run off the record (or back on it): a muted run makes no trace events; only its
        values, its provisional values and its state changes are kept."""
        self.muted = muted

    @contextmanager
    def quietly(self) -> Iterator[None]:
        """Muted for a while (a scenario's set-up), as it was after."""
        was = self.muted
        self.muted = True
        try:
            yield
        finally:
            self.muted = was

    def use_dice(self, dice: DiceSource) -> None:
        """Throw from ``dice`` from now on (a path of exact enumeration, forced dice)."""
        self.dice = dice

    def use_policy(self, policy: Policy) -> None:
        """Answer decisions with ``policy`` from now on."""
        self.policy = policy

    def set_budget(self, max_steps: int) -> None:
        """The step budget of each top-level call or turn from now on (--max-steps)."""
        self.max_steps = max_steps

    def new_run(self) -> None:
        """A fresh step budget: what runs next is a run of its own (a path of dice)."""
        self.steps = 0

    def remember_defaults(self, memo: DefaultMemo | None) -> None:
        """Remember each decision's default across runs in ``memo`` (None: work it out)."""
        self.defaults = memo

    def set_rule(self, ref: n.RuleRef | None) -> None:
        """The rule the running statement belongs to (errors and trace events name it)."""
        self.ref = ref

    def resume(
        self,
        state: GameState,
        pieces: int,
        frames: Sequence[Frame] = (),
        changed: Iterable[str] | None = None,
    ) -> None:
        """Go on from a position: the game state, the count of pieces made so far, the calls
        under way (their frames, above the rulebook's own), and, from a save, the state
        variables written since the start. A fresh step budget, no decision counted yet, no
        trace event kept."""
        self.state = state
        self.entity_count = pieces
        self.set_frames(frames)
        if changed is not None:
            self.changed = set(changed)
        self.steps = 0
        self.decisions = 0
        self.trace.events.clear()

    def snapshot(self) -> Snapshot:
        """A copy of the game's position (state and pieces made) that shares nothing
        mutable with the running game; ``restore`` goes back to it."""
        memo: dict[int, Any] = {}
        return Snapshot(
            clone(self.state.values, memo), clone(self.state.entities, memo), self.entity_count
        )

    def restore(self, snapshot: Snapshot) -> None:
        """Back to ``snapshot`` (copied again: the snapshot can be restored many times),
        at the rulebook's top frame, as ``resume``."""
        memo: dict[int, Any] = {}
        state = GameState(clone(snapshot.values, memo), clone(snapshot.entities, memo))
        self.resume(state, snapshot.pieces)

    def set_frames(self, frames: Sequence[Frame]) -> None:
        """The calls under way, above the rulebook's own frame (none: back at the top)."""
        self.frames[1:] = frames
        self.locals = self.frames[-1].locals

    def enter_frame(self, frame: Frame) -> None:
        """Enter a call that a resumed run makes (exact analysis by situations runs calls
        as blocks): as ``push``, with no depth or rule to restore."""
        if len(self.frames) > MAX_NESTING:
            raise self.too_deep(frame)
        self.frames.append(frame)
        self.locals = frame.locals

    def leave_frame(self) -> None:
        """Leave the call ``enter_frame`` entered."""
        frames = self.frames
        frames.pop()
        self.locals = frames[-1].locals

    def watch_calls(self, watcher: CallWatcher) -> None:
        """Tell ``watcher`` each frame entered and left from now on (a look-ahead policy)."""
        self.frames = _Watched(list(self.frames), watcher)

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

    # ---- the slower paths of values (rulekit.engine.slow), for the rest of the engine -----

    _where = slow.where
    _iterate = slow.iterate
    _name_value = slow.name_value
    _attr = slow.attr
    _arith = slow.arith
    _eq = slow.eq
    _contains = slow.contains
    _among = slow.among
    _order = slow.order
    _record_change = slow.record_change


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
