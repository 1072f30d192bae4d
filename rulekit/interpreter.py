"""The interpreter: runs procedures, looks up tables and rolls dice, writing a trace.

All randomness comes from one injected dice source and all choices from one decision
policy, so the same rulebook, dice and decisions always give the same trace.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Protocol

from attrs import define
from attrs import evolve as attrs_evolve

from rulekit import graph
from rulekit import nodes as n
from rulekit.builtins import BUILTINS, BuiltinError, call_builtin
from rulekit.checker import ENUM_FUNCTIONS, GRAPH_FUNCTIONS, Checked, placeholders
from rulekit.dice import DiceSource, Die, SeededDice, throw_dice
from rulekit.errors import (
    RuleRuntimeError,
    RuleViolation,
    StepBudgetExceeded,
    error,
)
from rulekit.policy import DecisionRequest, DefaultPolicy, Policy
from rulekit.runtime import GameState, clamp_track, default_for
from rulekit.tables import CompiledTable, LookupMiss
from rulekit.trace import (
    CallEvent,
    CheckEvent,
    DecisionEvent,
    DrawEvent,
    LookupEvent,
    NoteEvent,
    ReturnEvent,
    RollEvent,
    SetEvent,
    Term,
    TotalEvent,
    Trace,
    ValueEvent,
)
from rulekit.values import (
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

DEFAULT_STEP_BUDGET = 200_000
MAX_NESTING = 200  # calls inside calls, each a dozen or so Python frames deep
PYTHON_RECURSION_LIMIT = 12_000  # room for MAX_NESTING calls

_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
}


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


@define
class Frame:
    """The locals of one running procedure, modifier list or table action."""

    name: str
    rule: n.RuleRef | None
    locals: dict[str, Any]


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
        self.dice = dice if dice is not None else SeededDice(None)
        self.policy = policy if policy is not None else DefaultPolicy()
        self.trace = Trace()
        self.max_steps = max_steps
        self.steps = 0
        self.frames: list[Frame] = [Frame("rulebook", None, {})]
        self.depth = 0
        self.ref: n.RuleRef | None = None
        self.consts: dict[str, Any] = {}
        self.entity_count = 0
        self.changed: set[str] = set()  # state variables written since the start
        self.decisions = 0  # decisions made so far in this run
        # Exact enumeration re-runs a procedure once per path of dice; it may remember each
        # decision's default, which the dice thrown before it fully determine.
        self.defaults: DefaultMemo | None = None
        self._provisional_fields = {
            kind.name: {f.name for f in kind.fields if f.provenance is not None}
            for kind in self.book.kinds.values()
        }
        self.state = state if state is not None else self.initial_state()

    # ---- state ---------------------------------------------------------------------------

    def initial_state(self) -> GameState:
        """Every track at its start and every state variable at its initial value."""
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
        call = n.Call(name, tuple(n.Arg(_Given(_frozen(v)), k) for k, v in args.items()))  # type: ignore[arg-type]
        return self.eval(call)

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
        return self._lookup(table, values, table.decl.span)

    def evaluate(self, expr: n.Expr, names: dict[str, Any]) -> Any:
        """Evaluate an expression from outside the rulebook with ``names`` as its locals."""
        self.frames.append(Frame("expression", None, dict(names)))
        try:
            return self.eval(expr)
        finally:
            self.frames.pop()

    def run_sequence(self, name: str | None = None) -> None:
        """One game turn: every segment and phase of the sequence of play, in order."""
        self.steps = 0  # the step budget is per turn
        seq = self.book.sequences.get(name) if name else self.book.sequence
        if seq is None:
            raise RuleRuntimeError(
                [error(f"this rulebook has no sequence of play {name or ''}", None)]
            )
        with self._frame(Frame(seq.name, seq.ref, {})):
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

    # ---- errors and bookkeeping ----------------------------------------------------------

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
                    + (f", rule [{rule.text}]" if rule and rule is not frame.rule else ""),
                )
            ]
        )

    def _step(self, span: n.Span) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            frame = self.frame
            raise StepBudgetExceeded(
                [
                    error(
                        f"stopped after {self.max_steps} steps: the procedure does not finish",
                        span,
                        rule=frame.rule,
                        context=f"in {frame.name}"
                        + (f" [{frame.rule.text}]" if frame.rule else ""),
                        hint="look for a loop that never ends, "
                        "or raise the step budget (--max-steps)",
                    )
                ]
            )

    @contextmanager
    def _frame(self, frame: Frame) -> Iterator[Frame]:
        if len(self.frames) > MAX_NESTING:
            raise StepBudgetExceeded(
                [
                    error(
                        f"calls nest deeper than {MAX_NESTING}: the procedure does not finish",
                        None,
                        rule=frame.rule,
                        context=f"in {frame.name}",
                        hint="look for a procedure that calls itself without end; "
                        "a 'while' loop may say it better",
                    )
                ]
            )
        self.frames.append(frame)
        saved_ref = self.ref
        self.depth += 1
        try:
            yield frame
        finally:
            self.depth -= 1
            self.frames.pop()
            self.ref = saved_ref

    def _text(self, span: n.Span) -> str:
        """The expression as written in the rulebook (for modifier labels)."""
        line = self.book.sources.line(span.file, span.line)
        if line is None or span.end_line != span.line:
            return "modifier"
        return line[span.column - 1 : span.end_column - 1].strip()

    def _where(self, span: n.Span) -> str:
        rule = self.ref or self.frame.rule
        return f"{span}" + (f" [{rule.text}]" if rule else "")

    # ---- statements ----------------------------------------------------------------------

    def _block(self, body: tuple[n.Stmt, ...], inherited: n.RuleRef | None = None) -> None:
        for stmt in body:
            self._exec(stmt, inherited)

    def _check(self, cond: n.Expr, ref: n.RuleRef | None) -> bool:
        """Evaluate a condition; one that cites a rule is shown in the trace."""
        result = self._truth(self.eval(cond))
        if ref is not None:
            self.trace.add(CheckEvent(self.depth, self._text(cond.span), result, ref.text))
        return result

    def _exec(self, stmt: n.Stmt, inherited: n.RuleRef | None = None) -> None:
        """Run one statement; one without a rule reference cites its enclosing branch's."""
        self._step(stmt.span)
        base = inherited or self.frame.rule
        ref = getattr(stmt, "ref", None)
        self.ref = ref or base
        if isinstance(stmt, n.Let):
            value = self.eval(stmt.value)
            self.frame.locals[stmt.name] = value
            if ref is not None and not self._traced_itself(stmt.value):
                self.trace.add(ValueEvent(self.depth, stmt.name, to_json(value), ref.text))
        elif isinstance(stmt, n.Assign):
            self._assign(stmt)
        elif isinstance(stmt, n.Return):
            raise _Return(self.eval(stmt.value) if stmt.value is not None else None)
        elif isinstance(stmt, n.ExprStmt):
            self.eval(stmt.call)
        elif isinstance(stmt, n.If):
            for branch in stmt.branches:
                self.ref = branch.ref or base
                if self._check(branch.cond, branch.ref):
                    self._block(branch.body, branch.ref or inherited)
                    return
            self._block(stmt.otherwise, inherited)
        elif isinstance(stmt, n.While):
            while self._check(stmt.cond, stmt.ref):
                self._step(stmt.span)
                self._block(stmt.body, stmt.ref or inherited)
        elif isinstance(stmt, n.ForEach):
            self.ref = stmt.ref or base
            for value in self._iterate(self.eval(stmt.iterable), stmt.iterable.span):
                self.frame.locals[stmt.var] = value
                self._block(stmt.body, stmt.ref or inherited)
        elif isinstance(stmt, n.Choose):
            self._choose(stmt)
        elif isinstance(stmt, n.Require):
            if not self._truth(self.eval(stmt.cond)):
                rule = stmt.ref or self.frame.rule
                raise RuleViolation(
                    [
                        error(
                            stmt.message + (f" (rule [{rule.text}])" if rule else ""),
                            stmt.span,
                            rule=rule,
                            context=f"in {self.frame.name}",
                        )
                    ]
                )
        elif isinstance(stmt, n.NoteStmt):
            text = self._interpolate(stmt.text, stmt.span)
            self.trace.add(NoteEvent(self.depth, text, _r(stmt.ref or self.frame.rule)))

    def _interpolate(self, text: str, span: n.Span) -> str:
        """Fill in ``{name}`` and ``{name.attr}`` with the values they name."""
        for dotted in placeholders(text):
            head, *attrs = dotted.split(".")
            value = self._name_value(head, span)
            for attr in attrs:
                value = self._attr(value, attr, span)
            text = text.replace("{" + dotted + "}", show(value))
        return text

    def _traced_itself(self, expr: n.Expr) -> bool:
        """Rolls, look-ups, totals and procedure calls already show their value."""
        return isinstance(expr, n.Roll) or (isinstance(expr, n.Call) and expr.func not in BUILTINS)

    def _iterate(self, value: Any, span: n.Span) -> tuple[Any, ...]:
        value = unwrap(value)
        if not isinstance(value, tuple):
            raise self.fail(f"expected a list, got {show(value)}", span)
        return value

    def _choose(self, stmt: n.Choose) -> None:
        options = self._iterate(self.eval(stmt.options), stmt.options.span)
        default = self._default(stmt, options) if stmt.default is not None else None
        self.decisions += 1
        request = DecisionRequest(
            stmt.name, options, default, _r(self.ref), stmt.title, self._where(stmt.span)
        )
        choice, by = self.policy.decide(request)
        index = next((i for i, o in enumerate(options) if o is choice), None)
        if index is None:
            index = next((i for i, o in enumerate(options) if self._eq(choice, o)), None)
        if index is None:
            raise self.fail(f"the policy chose {show(choice)}, which is not an option", stmt.span)
        self.trace.add(
            DecisionEvent(
                self.depth,
                stmt.name,
                [to_json(o) for o in options],
                to_json(choice),
                by,
                _r(self.ref),
                index,
            )
        )
        self.frame.locals[stmt.name] = choice

    def _default(self, stmt: n.Choose, options: tuple[Any, ...]) -> Any:
        assert stmt.default is not None
        memo = self.defaults
        key = memo.key(self.decisions) if memo is not None else None
        if memo is not None and key in memo.known:
            return options[memo.known[key]]
        default = self._suggestion(stmt.default)
        if memo is not None and memo.key(self.decisions) == key:  # threw no dice meanwhile
            index = next((i for i, o in enumerate(options) if o is default), None)
            if index is None:
                index = next((i for i, o in enumerate(options) if self._eq(default, o)), None)
            if index is not None:
                memo.known[key] = index
        return default

    def _suggestion(self, expr: n.Expr) -> Any:
        """A decision's default: the rulebook's advice, worked out off the record."""
        mark = len(self.trace.events)
        try:
            return self.eval(expr)
        finally:
            del self.trace.events[mark:]

    def _assign(self, stmt: n.Assign) -> None:
        value = self.eval(stmt.value)
        head = stmt.target[0]
        locals_ = self.frame.locals
        if len(stmt.target) == 1:
            if head in locals_:
                locals_[head] = self._combine(stmt.op, locals_[head], value, stmt.span)
                return
            if head in self.state.values:
                old = self.state.values[head]
                new = self._combine(stmt.op, old, value, stmt.span)
                track = self.book.tracks.get(head)
                if track is not None:
                    new = clamp_track(unwrap(new), track.low, track.high)
                self.state.values[head] = new
                self.changed.add(head)
                self._record_change(head, old, new)
                return
            locals_[head] = value
            return
        obj = self._name_value(head, stmt.span)
        for attr in stmt.target[1:-1]:
            obj = self._attr(obj, attr, stmt.span)
        attr = stmt.target[-1]
        if not isinstance(obj, Entity):
            raise self.fail(
                f"cannot change '{'.'.join(stmt.target)}': {show(obj)} is not a game piece",
                stmt.span,
            )
        if attr not in obj.attrs:
            raise self.fail(f"a {obj.kind} has no '{attr}'", stmt.span)
        old = obj.attrs[attr]
        new = self._combine(stmt.op, old, value, stmt.span)
        obj.attrs[attr] = new
        self._record_change(f"{obj}.{attr}", old, new)

    def _record_change(self, target: str, old: Any, new: Any) -> None:
        """A state change in the trace; a list change as what was added and removed."""
        if self._same(old, new):
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

    def _same(self, old: Any, new: Any) -> bool:
        return type(old) is type(new) and self._eq(old, new)

    def _combine(self, op: str, old: Any, value: Any, span: n.Span) -> Any:
        if op == "=":
            return unwrap(value) if isinstance(value, RollValue) else value
        return self._arith(op[0], old, value, span)

    # ---- expressions ---------------------------------------------------------------------

    def eval(self, expr: n.Expr) -> Any:
        """The value of an expression (dispatched on the node's type)."""
        return _EVAL[type(expr)](self, expr)

    def _eval_str(self, expr: n.Str) -> Any:
        member = self.c.members.get(id(expr))
        if member is not None:
            return member
        return self._interpolate(expr.value, expr.span) if "{" in expr.value else expr.value

    def _eval_binop(self, expr: n.BinOp) -> Any:
        left, right = self.eval(expr.left), self.eval(expr.right)
        if expr.op == "+" and isinstance(unwrap(left), tuple) and isinstance(unwrap(right), tuple):
            return unwrap(left) + unwrap(right)
        return self._arith(expr.op, left, right, expr.span)

    def _eval_boolop(self, expr: n.BoolOp) -> bool:
        left = self._truth(self.eval(expr.left))
        if expr.op == "and":
            return left and self._truth(self.eval(expr.right))
        return left or self._truth(self.eval(expr.right))

    def _eval_if(self, expr: n.IfExpr) -> Any:
        branch = expr.then if self._truth(self.eval(expr.cond)) else expr.otherwise
        return self.eval(branch)

    def _name_value(self, name: str, span: n.Span, node: n.Name | None = None) -> Any:
        local = self.frames[-1].locals
        if name in local:
            return local[name]
        if name in self.state.values:
            decl = self.book.states.get(name)
            if decl is not None and decl.provenance is not None and name not in self.changed:
                where = f" [{decl.ref.text}]" if decl.ref else ""
                self.trace.used_provisional(f"state {name}{where}")
            return self.state.values[name]
        if name in self.book.consts:
            return self._const(name)
        if node is not None and id(node) in self.c.members:
            return self.c.members[id(node)]
        if name in self.book.markers:
            marker = self.book.markers[name]
            return MarkerValue(marker.name, marker.symbol)
        if name in self.book.enums:
            return tuple(
                self.c.vocab.member_of(name, i) for i in range(len(self.book.enums[name].members))
            )
        raise self.fail(f"'{name}' has no value here", span)

    def _const(self, name: str) -> Any:
        decl = self.book.consts[name]
        if name not in self.consts:
            self.consts[name] = self.eval(decl.value)
        if decl.provenance is not None:
            self.trace.used_provisional(
                f"const {name}" + (f" [{decl.ref.text}]" if decl.ref else "")
            )
        return self.consts[name]

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
                if name in self._provisional_fields.get(obj.kind, ()):
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

    def _truth(self, value: Any) -> bool:
        return bool(unwrap(value))

    def _arith(self, op: str, left: Any, right: Any, span: n.Span) -> Any:
        a, b = unwrap(left), unwrap(right)
        for v in (a, b):
            if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
                raise self.fail(f"'{op}' needs numbers, got {show(v)}", span)
        if op == "/":
            if b == 0:
                raise self.fail("division by zero", span)
            return normalize(Fraction(a) / Fraction(b))
        return normalize(_ARITH[op](a, b))

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

    def _compare(self, expr: n.Compare) -> bool:
        left, right = self.eval(expr.left), self.eval(expr.right)
        if expr.op in ("in", "not in"):
            container = unwrap(right)
            if isinstance(container, RangeValue):
                found = unwrap(left) in container
            elif isinstance(container, tuple):
                found = any(self._eq(left, item) for item in container)
            else:
                raise self.fail(f"'{expr.op}' needs a list, got {show(container)}", expr.right.span)
            return found if expr.op == "in" else not found
        if expr.op == "=":
            return self._eq(left, right)
        if expr.op == "!=":
            return not self._eq(left, right)
        a, b = unwrap(left), unwrap(right)
        if isinstance(a, EnumValue) and isinstance(b, EnumValue) and a.enum == b.enum:
            a, b = a.index, b.index
        ok = all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in (a, b))
        if not ok:
            raise self.fail(f"cannot compare {show(a)} and {show(b)}", expr.span)
        return bool(
            {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[expr.op](
                a, b
            )
        )

    def _comprehend(
        self, expr: n.Expr, var: str, iterable: n.Expr, cond: n.Expr | None
    ) -> list[Any]:
        """``expr for var in iterable if cond``: the loop variable does not leak out."""
        items = self._iterate(self.eval(iterable), iterable.span)
        values = []
        frame = self.frame
        saved = frame.locals.get(var, _MISSING)
        try:
            for item in items:
                frame.locals[var] = item
                if cond is not None and not self._truth(self.eval(cond)):
                    continue
                values.append(self.eval(expr))
        finally:
            if saved is _MISSING:
                frame.locals.pop(var, None)
            else:
                frame.locals[var] = saved
        return values

    def _aggregate(self, expr: n.Aggregate) -> Any:
        values = self._comprehend(expr.expr, expr.var, expr.iterable, expr.cond)
        if expr.func == "count":
            return sum(1 for v in values if self._truth(v))
        if expr.func == "any":
            return any(self._truth(v) for v in values)
        if expr.func == "all":
            return all(self._truth(v) for v in values)
        numbers = [unwrap(v) for v in values]
        if expr.func == "sum":
            return normalize(sum(numbers, 0))
        if not numbers:
            return None
        return max(numbers) if expr.func == "max" else min(numbers)

    def _draw(self, expr: n.Draw) -> Any:
        """Draw without replacement; the dice source picks the position of each item."""
        name = self._text(expr.source.span)
        pool = list(self._iterate(self.eval(expr.source), expr.source.span))
        wanted = 1 if expr.count is None else unwrap(self.eval(expr.count))
        if not isinstance(wanted, int) or wanted < 0:
            raise self.fail(f"cannot draw {show(wanted)} items", expr.span)
        if expr.count is None and not pool:
            raise self.fail(f"cannot draw from {name}: it is empty", expr.span)
        if wanted > len(pool):
            self.trace.add(NoteEvent(self.depth, f"only {len(pool)} left in {name}", _r(self.ref)))
        drawn = []
        for _ in range(min(wanted, len(pool))):
            die = Die(f"draw from {name}", tuple(range(1, len(pool) + 1)), "draw")
            # one item left is no chance at all: no die is thrown for it
            position = 1 if len(pool) == 1 else self.dice.throw(die, self._where(expr.span))
            item = pool.pop(position - 1)
            drawn.append(item)
            self.trace.add(
                DrawEvent(self.depth, name, position, len(pool) + 1, to_json(item), _r(self.ref))
            )
        self._store(expr.source, tuple(pool))
        return drawn[0] if expr.count is None else tuple(drawn)

    def _store(self, target: n.Expr, value: Any) -> None:
        """Write back a pool after a draw (a local, a state variable or an attribute)."""
        if isinstance(target, n.Name):
            if target.id in self.frame.locals:
                self.frame.locals[target.id] = value
            else:
                self.state.values[target.id] = value
            return
        assert isinstance(target, n.Attr)
        obj = self.eval(target.obj)
        if not isinstance(obj, Entity):
            raise self.fail(f"cannot draw from {show(obj)}: not a game piece", target.span)
        obj.attrs[target.name] = value

    # ---- dice ----------------------------------------------------------------------------

    def roll(self, spec: n.DiceSpec, mods: tuple[n.RollMod, ...], span: n.Span) -> RollValue:
        die = self.c.dice[spec.die]
        count = spec.count if isinstance(spec.count, int) else unwrap(self.eval(spec.count))
        if not isinstance(count, int) or count < 1:
            raise self.fail(f"cannot roll {show(count)} dice", spec.span)
        where = self._where(span)
        faces = throw_dice(self.dice, die, count, where)
        if spec.keep == "highest":
            natural = max(faces)
        elif spec.keep == "lowest":
            natural = min(faces)
        else:
            natural = sum(faces)
        terms: list[Term] = []
        for mod in mods:
            terms.extend(self._roll_terms(mod))
        total = normalize(natural + sum((t.value for t in terms), 0))
        shown = (
            str(attrs_evolve(spec, count=count)) if not isinstance(spec.count, int) else str(spec)
        )
        self.trace.add(
            RollEvent(
                self.depth, shown, list(faces), natural, terms, total, _r(self.ref), str(span)
            )
        )
        return RollValue(total, natural, faces)

    def _roll_terms(self, mod: n.RollMod) -> list[Term]:
        value = mod.value
        if isinstance(value, n.Call) and value.func in self.book.modifiers:
            terms, total, clamped = self._modifier_terms(value)
            if clamped:
                # the list's clamp holds inside a roll too: a term brings the sum to the total
                decl = self.book.modifiers[value.func]
                low, high = decl.clamp or (None, None)
                bounds = f"{'' if low is None else low}..{'' if high is None else high}"
                correction = normalize(total - sum((t.value for t in terms), 0))
                terms = [*terms, Term(correction, f"clamp {bounds}", _r(decl.ref))]
            return [Term(mod.sign * t.value, t.label, t.rule, t.provisional) for t in terms]
        amount = unwrap(self.eval(value))
        if isinstance(amount, bool) or not isinstance(amount, (int, Fraction)):
            raise self.fail(f"a roll modifier must be a number, got {show(amount)}", value.span)
        if amount == 0:
            return []
        label = "" if isinstance(value, n.Num) else self._text(value.span)
        return [Term(normalize(mod.sign * amount), label, None)]

    # ---- calls ---------------------------------------------------------------------------

    def _call(self, call: n.Call) -> Any:
        self._step(call.span)
        name = call.func
        if name in self.c.tables:
            return self._table_call(call)
        if name in self.book.modifiers:
            terms, total, clamped = self._modifier_terms(call)
            decl = self.book.modifiers[name]
            self.trace.add(
                TotalEvent(self.depth, name, _r(decl.ref), terms, to_json(total), clamped)
            )
            return total
        if name in self.book.procedures:
            return self._procedure(call)
        if name in self.book.kinds or name in self.book.records:
            return self._construct(call)
        if name in GRAPH_FUNCTIONS:
            return self._graph_call(call)
        if name in ENUM_FUNCTIONS:
            value = unwrap(self.eval(call.args[0].value))
            if not isinstance(value, EnumValue):
                raise self.fail(f"{name}() takes a member of an enum, got {show(value)}", call.span)
            size = len(self.book.enums[value.enum].members)
            if name == "members_of":
                return tuple(self.c.vocab.member_of(value.enum, i) for i in range(size))
            return (
                self.c.vocab.member_of(value.enum, value.index + 1)
                if value.index + 1 < size
                else None
            )
        if name in BUILTINS:
            args = [self.eval(a.value) for a in call.args]
            try:
                return call_builtin(name, args, self.c.rounding)
            except BuiltinError as exc:
                text = str(exc)
                message = text if text.startswith(f"{name}(") else f"{name}(): {text}"
                raise self.fail(message, call.span) from None
        raise self.fail(f"unknown procedure, table or function '{name}'", call.span)

    def _bind(self, call: n.Call, params: tuple[n.Param, ...]) -> dict[str, Any]:
        bound: dict[str, Any] = {}
        for i, arg in enumerate(call.args):
            key = arg.name if arg.name is not None else params[i].name
            bound[key] = self.eval(arg.value)
        for p in params:
            if p.name not in bound:
                if p.default is None:
                    raise self.fail(f"{call.func} needs '{p.name}'", call.span)
                bound[p.name] = _Deferred(p.default)
        return {p.name: self._read_param(p, bound[p.name], call.span) for p in params}

    def _read_param(self, param: n.Param, value: Any, span: n.Span) -> Any:
        if isinstance(value, _Deferred):
            return self.eval(value.expr)
        if isinstance(value, str) and param.type is not None:
            typ = self.c.vocab.type_of(param.type)
            enum = next((o.name for o in _options(typ) if o.__class__.__name__ == "EnumT"), None)
            if enum is not None:
                member = self.c.vocab.enum_value(enum, value)
                if member is None:
                    raise self.fail(f"'{value}' is not a {enum}", span)
                return member
        return value

    def _graph_call(self, call: n.Call) -> Any:
        """Distances and routes over a table of neighbours, traced as one event."""
        graph_name = call.args[0].value.id  # type: ignore[union-attr]
        table = self.c.tables[graph_name]
        first, second = (self.eval(a.value) for a in call.args[1:])
        if call.func == "distance":
            result: Any = graph.distance(table, first, second)
        elif call.func == "route":
            result = graph.route(table, first, second) or ()
        else:
            result = graph.within(table, list(self._iterate(first, call.span)), unwrap(second))
        if table.provisional_cells:
            self.trace.used_provisional(
                f"table {table.name}" + (f" [{table.rule}]" if table.rule else "")
            )
        shown = f"{call.func}({graph_name}, {show(first)}, {show(second)}) = {show(result)}"
        self.trace.add(NoteEvent(self.depth, shown, table.rule))
        return result

    def _construct(self, call: n.Call) -> Entity | RecordValue:
        record = self.book.records.get(call.func)
        decl: n.KindDecl | n.RecordDecl = record or self.book.kinds[call.func]
        params = tuple(n.Param(f.name, f.type, f.default, span=f.span) for f in decl.fields)
        attrs = self._bind(call, params)
        if record is not None:
            return RecordValue(record.name, tuple((f.name, attrs[f.name]) for f in record.fields))
        self.entity_count += 1
        label = str(attrs.get("name") or f"{decl.name} {self.entity_count}")
        return Entity(decl.name, attrs, label)

    def _procedure(self, call: n.Call) -> Any:
        decl = self.book.procedures[call.func]
        args = self._bind(call, decl.params)
        start = len(self.trace.events)
        self.trace.add(
            CallEvent(
                self.depth,
                decl.name,
                _r(decl.ref),
                decl.title,
                {k: to_json(v) for k, v in args.items()},
            )
        )
        result = None
        with self._frame(Frame(f"procedure {decl.name}", decl.ref, dict(args))):
            try:
                self._block(decl.body)
            except _Return as ret:
                result = ret.value
        if start > 0 and not any(isinstance(e, _EFFECTS) for e in self.trace.events[start:]):
            # a pure helper (no roll, row, decision, draw, change or note): not worth a line
            del self.trace.events[start:]
            return result
        self.trace.add(ReturnEvent(self.depth, decl.name, to_json(result)))
        return result

    def _modifier_terms(self, call: n.Call) -> tuple[list[Term], Any, bool]:
        decl = self.book.modifiers[call.func]
        args = self._bind(call, decl.params)
        terms: list[Term] = []
        with self._frame(Frame(f"modifiers {decl.name}", decl.ref, dict(args))):
            for line in decl.lines:
                self.ref = line.ref or decl.ref
                if line.cond is not None and not self._truth(self.eval(line.cond)):
                    continue
                amount = unwrap(self.eval(line.value))
                if line.per is not None:
                    amount = self._arith("*", amount, self.eval(line.per), line.span)
                if isinstance(amount, bool) or not isinstance(amount, (int, Fraction)):
                    raise self.fail(
                        f"a modifier must be a number, got {show(amount)}", line.value.span
                    )
                if amount == 0:
                    continue
                terms.append(Term(normalize(line.sign * amount), self._label(line), _r(line.ref)))
        total = normalize(sum((t.value for t in terms), 0))
        clamped = False
        if decl.clamp is not None:
            low, high = decl.clamp
            bounded = total
            if low is not None and bounded < low:
                bounded = low
            if high is not None and bounded > high:
                bounded = high
            clamped = bounded != total
            total = bounded
        return terms, total, clamped

    def _label(self, line: n.ModLine) -> str:
        if line.label:
            return line.label
        text = self._text(line.value.span)
        if line.per is not None:
            text += f" per {self._text(line.per.span)}"
        if line.cond is not None:
            text += f" if {self._text(line.cond.span)}"
        return text

    def _table_call(self, call: n.Call) -> Any:
        table = self.c.tables[call.func]
        inputs = [d for d in table.dims if d.kind != "roll"]
        given: dict[str, Any] = {}
        roll: Any = None
        position = 0
        for arg in call.args:
            if arg.name == "roll":
                roll = self.eval(arg.value)
            elif arg.name is not None:
                given[arg.name] = self.eval(arg.value)
            else:
                given[inputs[position].name] = self.eval(arg.value)
                position += 1
        values = []
        for dim in table.dims:
            if dim.kind == "roll":
                if roll is None:
                    assert dim.decl.dice is not None
                    roll = self.roll(dim.decl.dice, dim.decl.mods, call.span)
                values.append(roll)
            else:
                values.append(given[dim.name])
        return self._lookup(table, values, call.span)

    def _lookup(self, table: CompiledTable, values: list[Any], span: n.Span) -> Any:
        resolved = []
        for dim, value in zip(table.dims, values, strict=True):
            if isinstance(unwrap(value), str) and dim.type.__class__.__name__ == "EnumT":
                member = self.c.vocab.enum_value(dim.type.name, unwrap(value))  # type: ignore[union-attr]
                value = member if member is not None else value
            resolved.append(value)
        try:
            cell, path = table.lookup(resolved)
        except LookupMiss as miss:
            if miss.dim.kind == "threshold":
                # "the highest entry the value equals or exceeds": below the first, no entry.
                keys = {
                    d.name: to_json(unwrap(v)) for d, v in zip(table.dims, resolved, strict=True)
                }
                self.trace.add(
                    LookupEvent(
                        self.depth,
                        table.name,
                        table.rule,
                        keys,
                        [f"below {miss.keys[0] if miss.keys else 'every line'}"],
                        None,
                        False,
                        str(span),
                    )
                )
                return None
            raise self.fail(
                f"table {table.name} has no row for {miss.dim.name} = {show(unwrap(miss.value))}",
                span,
                hint=f"its {miss.dim.name} rows are: {', '.join(miss.keys)}" if miss.keys else None,
            ) from None
        keys = {d.name: to_json(unwrap(v)) for d, v in zip(table.dims, resolved, strict=True)}
        row = [k.printed for k in path]
        if cell.provisional:
            self.trace.used_provisional(
                f"table {table.name} ({' / '.join(row)})"
                + (f" [{table.rule}]" if table.rule else "")
            )
        self.trace.add(
            LookupEvent(
                self.depth,
                table.name,
                table.rule,
                keys,
                row,
                cell.printed,
                cell.provisional,
                str(span),
            )
        )
        if cell.action is None:
            return cell.value
        action_locals = {
            d.name: v for d, v in zip(table.dims, resolved, strict=True) if d.kind != "roll"
        }
        with self._frame(Frame(f"table {table.name}", table.decl.ref, action_locals)):
            then = self.eval(cell.action)
        return then if cell.value is None else Followed(cell.value, then)


class _Given:
    """A value already read (from the command line or a file), passed as an argument."""

    def __init__(self, value: Any) -> None:
        self.value = value
        self.span = n.NO_SPAN


class _Deferred:
    """A parameter default, evaluated when the call is made."""

    def __init__(self, expr: n.Expr) -> None:
        self.expr = expr


_MISSING = object()

# How each kind of expression is evaluated: one dictionary look-up instead of a chain of tests.
_EVAL: dict[type, Callable[[Interpreter, Any], Any]] = {
    _Given: lambda i, e: e.value,
    n.Num: lambda i, e: e.value,
    n.Str: Interpreter._eval_str,
    n.Bool: lambda i, e: e.value,
    n.NoneLit: lambda i, e: None,
    n.Name: lambda i, e: i._name_value(e.id, e.span, e),
    n.Attr: lambda i, e: i._attr(i.eval(e.obj), e.name, e.span),
    n.ListLit: lambda i, e: tuple(i.eval(x) for x in e.items),
    n.ListComp: lambda i, e: tuple(i._comprehend(e.expr, e.var, e.iterable, e.cond)),
    n.BinOp: Interpreter._eval_binop,
    n.UnaryOp: lambda i, e: i._arith("-", 0, i.eval(e.operand), e.span),
    n.Compare: Interpreter._compare,
    n.BoolOp: Interpreter._eval_boolop,
    n.Not: lambda i, e: not i._truth(i.eval(e.operand)),
    n.IfExpr: Interpreter._eval_if,
    n.Roll: lambda i, e: i.roll(e.dice, e.mods, e.span),
    n.Draw: Interpreter._draw,
    n.Aggregate: Interpreter._aggregate,
    n.Call: Interpreter._call,
}
_EFFECTS = (RollEvent, LookupEvent, DecisionEvent, SetEvent, DrawEvent, NoteEvent, TotalEvent)


def _frozen(value: Any) -> Any:
    """Python lists given by a caller become the interpreter's immutable lists."""
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _r(ref: n.RuleRef | None) -> str | None:
    return ref.text if ref else None


def _options(typ: Any) -> tuple[Any, ...]:
    return typ.options if hasattr(typ, "options") else (typ,)
