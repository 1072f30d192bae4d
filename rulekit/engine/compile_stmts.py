"""Closures for the statements of a procedure body (see rulekit.engine.compiler).

A statement's closure returns None, or a 1-tuple holding the procedure's result when a
``return`` ran: no exception needed to leave the body. Which rule each statement cites is
known when it is built: its own, else its enclosing branch's, else its procedure's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rulekit.engine.builtins import BUILTINS
from rulekit.engine.policy import DecisionRequest
from rulekit.engine.reach import may_decide, pure
from rulekit.engine.runtime import Memo, TurnEnded, clamp_track, sized
from rulekit.engine.trace import CheckEvent, DecisionEvent, NoteEvent, ValueEvent
from rulekit.engine.values import (
    Entity,
    EnumValue,
    RollValue,
    one_of_a_kind,
    parts,
    plain,
    show,
    to_json,
)
from rulekit.errors import RuleViolation, error
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.compiler import Code, Compiler
    from rulekit.engine.interpreter import Interpreter

StmtCode = Callable[["Interpreter"], "tuple[Any] | None"]
Combine = Callable[["Interpreter", Any, Any], Any]
_NONE_TYPE = type(None)
_PLAIN_EQ = frozenset({int, str, bool, _NONE_TYPE, EnumValue, Entity})


def block(
    comp: Compiler, body: tuple[n.Stmt, ...], inherited: n.RuleRef | None, rule: n.RuleRef | None
) -> StmtCode:
    """Statements in order; ``rule`` is the procedure's, ``inherited`` the branch's."""
    codes = [statement(comp, s, inherited, rule) for s in body]
    if not codes:
        return lambda i: None
    if len(codes) == 1:
        return codes[0]
    if len(codes) == 2:
        first, second = codes

        def two(i: Interpreter) -> tuple[Any] | None:
            out = first(i)
            return out if out is not None else second(i)

        return two

    def run(i: Interpreter) -> tuple[Any] | None:
        for code in codes:
            out = code(i)
            if out is not None:
                return out
        return None

    return run


def statement(
    comp: Compiler, stmt: n.Stmt, inherited: n.RuleRef | None, rule: n.RuleRef | None
) -> StmtCode:
    base = inherited or rule
    own: n.RuleRef | None = getattr(stmt, "ref", None)
    here = own or base  # the rule a statement without a reference cites
    if isinstance(stmt, n.Let):
        return _let(comp, stmt, here)
    if isinstance(stmt, n.Assign):
        return _assign(comp, stmt, here)
    if isinstance(stmt, n.Return):
        return _return(comp, stmt, here)
    if isinstance(stmt, n.ExprStmt):
        return _expr_stmt(comp, stmt, here)
    if isinstance(stmt, n.If):
        return _if(comp, stmt, here, base, inherited, rule)
    if isinstance(stmt, n.While):
        return _while(comp, stmt, here, inherited, rule)
    if isinstance(stmt, n.ForEach):
        return _for_each(comp, stmt, here, inherited, rule)
    if isinstance(stmt, n.Choose):
        return _choose(comp, stmt, here)
    if isinstance(stmt, n.Require):
        return _require(comp, stmt, here, stmt.ref or rule)
    if isinstance(stmt, n.NoteStmt):
        return _note(comp, stmt, here, stmt.ref or rule)
    if isinstance(stmt, n.EndTurn):
        return _end_turn(stmt, here, stmt.ref or rule)
    span = stmt.span

    def skip(i: Interpreter) -> None:  # pass
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        i.ref = here

    return skip


def check(comp: Compiler, cond: n.Expr, ref: n.RuleRef | None) -> Callable[[Interpreter], bool]:
    """A condition; one that cites a rule is shown in the trace."""
    code = comp.cond(cond)
    if ref is None:
        return code
    text, rule = comp.text(cond.span), ref.text

    def traced(i: Interpreter) -> bool:
        result: bool = code(i)
        if not i.muted:
            i.trace.events.append(CheckEvent(i.depth, text, result, rule))
        return result

    return traced


def _traced_itself(expr: n.Expr) -> bool:
    """Rolls, look-ups, totals and procedure calls already show their value."""
    return isinstance(expr, n.Roll) or (isinstance(expr, n.Call) and expr.func not in BUILTINS)


def _let(comp: Compiler, stmt: n.Let, here: n.RuleRef | None) -> StmtCode:
    value, name, span = comp.expr(stmt.value), stmt.name, stmt.span
    rule = stmt.ref.text if stmt.ref is not None and not _traced_itself(stmt.value) else None

    def run(i: Interpreter) -> None:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        i.ref = here
        v = value(i)
        i.locals[name] = v
        if rule is not None and not i.muted:
            i.trace.events.append(ValueEvent(i.depth, name, to_json(v), rule))

    return run


def _return(comp: Compiler, stmt: n.Return, here: n.RuleRef | None) -> StmtCode:
    value = comp.expr(stmt.value) if stmt.value is not None else None
    span = stmt.span

    def run(i: Interpreter) -> tuple[Any]:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        i.ref = here
        return (value(i) if value is not None else None,)

    return run


def _expr_stmt(comp: Compiler, stmt: n.ExprStmt, here: n.RuleRef | None) -> StmtCode:
    code, span = comp.expr(stmt.call), stmt.span

    def run(i: Interpreter) -> None:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        i.ref = here
        code(i)

    return run


def _if(
    comp: Compiler,
    stmt: n.If,
    here: n.RuleRef | None,
    base: n.RuleRef | None,
    inherited: n.RuleRef | None,
    rule: n.RuleRef | None,
) -> StmtCode:
    branches = [
        (
            b.ref or base,
            check(comp, b.cond, b.ref),
            block(comp, b.body, b.ref or inherited, rule),
        )
        for b in stmt.branches
    ]
    otherwise = block(comp, stmt.otherwise, inherited, rule)
    span = stmt.span
    if len(branches) == 1:
        ((ref, cond, body),) = branches

        def one(i: Interpreter) -> tuple[Any] | None:
            i.steps += 1
            if i.steps > i.max_steps:
                raise i.over_budget(span)
            i.ref = ref  # the branch's (set after the statement's, which it replaces)
            return body(i) if cond(i) else otherwise(i)

        return one

    def run(i: Interpreter) -> tuple[Any] | None:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        i.ref = here
        for ref, cond, body in branches:
            i.ref = ref
            if cond(i):
                return body(i)
        return otherwise(i)

    return run


def _while(
    comp: Compiler,
    stmt: n.While,
    here: n.RuleRef | None,
    inherited: n.RuleRef | None,
    rule: n.RuleRef | None,
) -> StmtCode:
    cond = check(comp, stmt.cond, stmt.ref)
    body = block(comp, stmt.body, stmt.ref or inherited, rule)
    span = stmt.span

    def run(i: Interpreter) -> tuple[Any] | None:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        i.ref = here
        while cond(i):
            i.steps += 1
            if i.steps > i.max_steps:
                raise i.over_budget(span)
            out = body(i)
            if out is not None:
                return out
        return None

    return run


def _for_each(
    comp: Compiler,
    stmt: n.ForEach,
    here: n.RuleRef | None,
    inherited: n.RuleRef | None,
    rule: n.RuleRef | None,
) -> StmtCode:
    source, span, var = comp.expr(stmt.iterable), stmt.iterable.span, stmt.var
    body = block(comp, stmt.body, stmt.ref or inherited, rule)
    stmt_span = stmt.span

    def run(i: Interpreter) -> tuple[Any] | None:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(stmt_span)
        i.ref = here
        for value in i._iterate(source(i), span):
            i.locals[var] = value
            out = body(i)
            if out is not None:
                return out
        return None

    return run


def _suggestion(comp: Compiler, expr: n.Expr) -> Code:
    """A decision's default: the rulebook's advice, worked out off the record.

    Its events are dropped, so they are not even made, unless it may ask the policy (which
    may show the trace while it decides). When it can only compute, the procedures it calls
    remember their results by arguments (as Interpreter.memo says)."""
    code = comp.expr(expr)
    mute = not may_decide(comp.book, comp.tables, expr)
    remember = pure(comp.book, comp.tables, expr)

    def run(i: Interpreter) -> Any:
        mark, steps = len(i.trace.events), i.steps
        muted, memo = i.muted, i.memo
        i.muted = muted or mute
        i.memo = Memo() if remember else None
        try:
            value = code(i)
            if i.memo is not None and i.memo.reused and _repeats(value):
                # an object given again (where the walker made a new one) may be what the
                # advice holds twice, and a policy's pick is found among options by
                # identity: work it out again, remembering nothing
                i.steps, i.memo = steps, None
                value = code(i)
            return value
        finally:
            i.muted, i.memo = muted, memo
            del i.trace.events[mark:]

    return run


def _repeats(value: Any) -> bool:
    """Whether the same object is twice in ``value`` (a game piece, a text, none, yes/no or
    a small int aside: the walker gave those again too). Objects made while a default is
    worked out show their identity nowhere else: nothing else keeps them."""
    seen: set[int] = set()
    for part in parts(value):
        if not one_of_a_kind(part):
            if id(part) in seen:
                return True
            seen.add(id(part))
    return False


def _default(i: Interpreter, default_of: Code, options: tuple[Any, ...]) -> Any:
    """The default, or the one an earlier run found after the same dice (Interpreter.defaults)."""
    memo = i.defaults
    if memo is None:
        return default_of(i)
    key = memo.key(i.decisions)
    if key in memo.known:
        return options[memo.known[key]]
    default = default_of(i)
    if memo.key(i.decisions) == key:  # threw no dice meanwhile
        index = next((k for k, o in enumerate(options) if o is default), None)
        if index is None:
            index = next((k for k, o in enumerate(options) if i._eq(default, o)), None)
        if index is not None:
            memo.known[key] = index
    return default


def decided(
    i: Interpreter,
    name: str,
    title: str | None,
    span: n.Span,
    options: tuple[Any, ...],
    default: Any,
    suggested: bool,
) -> None:
    """A decision asked of the policy (both engines): the choice checked against the
    options, its event when traced, the local set."""
    i.decisions += 1
    rule = i.ref.text if i.ref else None
    request = DecisionRequest(name, options, default, rule, title, i._where(span), suggested)
    choice, by = i.policy.decide(request)
    index = next((k for k, o in enumerate(options) if o is choice), None)
    if index is None:
        index = next((k for k, o in enumerate(options) if i._eq(choice, o)), None)
    if index is None:
        raise i.fail(f"the policy chose {show(choice)}, which is not an option", span)
    if not i.muted:  # off the record: nobody reads the decision's event
        options_shown = [to_json(o) for o in options]
        i.trace.events.append(
            DecisionEvent(i.depth, name, options_shown, to_json(choice), by, rule, index)
        )
    i.locals[name] = choice


def _choose(comp: Compiler, stmt: n.Choose, here: n.RuleRef | None) -> StmtCode:
    options_of, options_span = comp.expr(stmt.options), stmt.options.span
    default_of = _suggestion(comp, stmt.default) if stmt.default is not None else None
    name, title, span = stmt.name, stmt.title, stmt.span

    def run(i: Interpreter) -> None:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        i.ref = here
        options = i._iterate(options_of(i), options_span)
        default = _default(i, default_of, options) if default_of is not None else None
        decided(i, name, title, span, options, default, default_of is not None)

    return run


def _require(
    comp: Compiler, stmt: n.Require, here: n.RuleRef | None, rule: n.RuleRef | None
) -> StmtCode:
    cond, span = comp.cond(stmt.cond), stmt.span
    message = stmt.message + (f" (rule [{rule.text}])" if rule else "")

    def run(i: Interpreter) -> None:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        i.ref = here
        if not cond(i):
            raise RuleViolation([error(message, span, rule=rule, context=f"in {i.frame.name}")])

    return run


def _note(
    comp: Compiler, stmt: n.NoteStmt, here: n.RuleRef | None, rule: n.RuleRef | None
) -> StmtCode:
    text, cited = comp.interpolate(stmt.text, stmt.span), rule.text if rule else None
    span = stmt.span

    def run(i: Interpreter) -> None:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        i.ref = here
        shown = text(i)
        if not i.muted:
            i.trace.events.append(NoteEvent(i.depth, shown, cited))

    return run


# ---- assignments ---------------------------------------------------------------------------


_BIG = 1 << 64  # a result below this in size is certainly not too big (runtime.sized)


def _combine(op: str, span: n.Span) -> Combine:
    if op == "=":
        return lambda i, old, value: value.total if type(value) is RollValue else value
    sign = op[0]

    def arith(i: Interpreter, old: Any, value: Any) -> Any:
        if type(old) is int and type(value) is int and sign in "+-":
            result = old + value if sign == "+" else old - value
            if -_BIG < result < _BIG:
                return result
            return sized(i, result, span)  # `x += x` in a loop: as `x = x + x`
        return i._arith(sign, old, value, span)

    return arith


def _assign(comp: Compiler, stmt: n.Assign, here: n.RuleRef | None) -> StmtCode:
    value_of, span, target = comp.expr(stmt.value), stmt.span, stmt.target
    combine = _combine(stmt.op, span)
    head = target[0]
    if len(target) == 1:
        track = comp.book.tracks.get(head)

        def variable(i: Interpreter) -> None:
            i.steps += 1
            if i.steps > i.max_steps:
                raise i.over_budget(span)
            i.ref = here
            value = value_of(i)
            local = i.locals
            if head in local:
                local[head] = combine(i, local[head], value)
                return
            values = i.state.values
            if head in values:
                old = values[head]
                new = combine(i, old, value)
                if track is not None:
                    new = clamp_track(plain(new), track.low, track.high)
                values[head] = new
                i.changed.add(head)
                i._record_change(head, old, new)
                return
            local[head] = value

        return variable
    path, attr = target[1:-1], target[-1]
    dotted = ".".join(target)

    def attribute(i: Interpreter) -> None:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        i.ref = here
        value = value_of(i)
        local = i.locals
        obj = local[head] if head in local else i._name_value(head, span)
        for name in path:
            obj = i._attr(obj, name, span)
        if not isinstance(obj, Entity):
            raise i.fail(f"cannot change '{dotted}': {show(obj)} is not a game piece", span)
        attrs = obj.attrs
        if attr not in attrs:
            raise i.fail(f"a {obj.kind} has no '{attr}'", span)
        old = attrs[attr]
        new = combine(i, old, value)
        attrs[attr] = new
        t = type(old)
        if t is type(new) and t in _PLAIN_EQ and old == new:
            return  # unchanged: nothing to trace
        i._record_change(f"{obj}.{attr}", old, new)

    return attribute


def _end_turn(stmt: n.EndTurn, here: n.RuleRef | None, rule: n.RuleRef | None) -> StmtCode:
    span, cited = stmt.span, rule.text if rule else None
    text = "the turn ends" + (f": {stmt.reason}" if stmt.reason else "")

    def run(i: Interpreter) -> None:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        i.ref = here
        if not i.muted:
            i.trace.events.append(NoteEvent(i.depth, text, cited))
        raise TurnEnded

    return run
