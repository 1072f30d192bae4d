"""Procedures generated as Python source, one function per procedure and trace mode.

A procedure's body becomes the text of one Python function (jinja's CodeGenerator is the
model: a writer of indented lines that notes, for each line, the node it came from), compiled
once per checked rulebook (rulekit.engine.program keeps them). It does what the rulebook
says, in its order: values, steps, rule references, trace events, dice throws, decisions and
errors. An expression run in whatever frame is current (a phase of the sequence of play, a
table's follow-up action, a constant's value) is a function of its own (``expression``).

The trace is chosen when the code is generated: each procedure has a traced function (its
check, value and note events written) and an untraced one (run while ``i.muted``: working out
a decision's default, a quiet helper). Nothing from a rulebook enters the source except as
the ``repr()`` of a str, int or bool, or as a constant held in the function's namespace under
a generated name (``_k3``); rulebook names never become identifiers. Every line knows the
rulebook span it came from (``Generated.where``).
Calls are written by rulekit.engine.codegen_calls, operators by rulekit.engine.codegen_ops;
what the generated code calls is in rulekit.engine.codegen_runtime and its companions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rulekit.book.check_exprs import placeholders
from rulekit.engine.builtins import BUILTINS
from rulekit.engine.codegen_calls import Calls
from rulekit.engine.codegen_locals import Locals, may_be_local
from rulekit.engine.codegen_ops import Operators
from rulekit.engine.codegen_runtime import (
    AGGREGATES,
    Generated,
    ReturnGuard,
    RollSite,
    located,
    mangle,
    return_guard,
)
from rulekit.engine.codegen_writer import Writer, finish
from rulekit.engine.decisions import ChooseSite
from rulekit.engine.reach import calls_a_procedure, contains, may_decide, pure
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.interpreter import Interpreter
    from rulekit.engine.program import Program

Body = Callable[["Interpreter"], "tuple[Any] | None"]


class Slot:
    """An argument given by the caller of Interpreter.call: the n-th of ``interp.given``."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.span = n.NO_SPAN


class _EveryName(frozenset[str]):
    """The names that may be locals where any may be (an expression run in whatever frame
    is current: a phase of the sequence of play, a table's action, a constant's value)."""

    def __contains__(self, name: object) -> bool:
        return True


EVERY_NAME = _EveryName()


# ---- procedures ---------------------------------------------------------------------------


def procedure(comp: Program, decl: n.ProcedureDecl, traced: bool) -> Generated:
    """The body of a procedure as one function ``(i) -> None | (result,)``."""
    gen = Gen(comp, traced, _may_be_local(comp, decl), frozenset(p.name for p in decl.params))
    gen.guard = return_guard(comp, decl)
    fname = f"{'traced' if traced else 'untraced'}_{mangle(decl.name)}"
    w = gen.w
    w.span = decl.span
    w.line(f"def {fname}(i):")
    w.level += 1
    w.line("L = i.locals")
    gen.python_locals(decl)
    gen.block(decl.body, None, decl.ref)
    if gen.guard is not None and not _leaves(decl.body):
        w.line(f"_none_returned(i, {w.const(gen.guard)}, None)")
    w.line("return None")
    if not any(_USES_L.search(line) for line in w.lines[2:]):
        del w.lines[1], w.spans[1]  # nothing reads the dict of locals
    return finish(w, fname)


def expression(comp: Program, e: Any, given: bool = False) -> Generated:
    """An expression as a function ``(i) -> value`` run in the current frame, traced or not
    as ``i.muted`` says (``given``: Interpreter.call's call, with the arguments it was given)."""
    gen = Gen(comp, None, EVERY_NAME)
    gen.given = given
    w = gen.w
    w.span = getattr(e, "span", None)
    w.line("def expression(i):")
    w.level += 1
    w.line("L = i.locals")
    w.line(f"return {gen.expr(e)}")
    return finish(w, "expression")


_USES_L = re.compile(r"\bL\b")
_UNKNOWN = object()
# statements after which i.ref still holds what their step set (calls restore it)
_STRAIGHT = (n.Let, n.Return, n.ExprStmt, n.Require, n.NoteStmt, n.Pass, n.Assign)


def _leaves(body: tuple[n.Stmt, ...]) -> bool:
    """Whether a body certainly ends by leaving the function (its last statement returns)."""
    return bool(body) and isinstance(body[-1], n.Return)


class Gen(Operators, Calls, Locals):
    """Writes the statements and expressions of one procedure."""

    w: Writer
    comp: Program

    def __init__(
        self,
        comp: Program,
        traced: bool | None,
        local: frozenset[str],
        params: frozenset[str] = frozenset(),
    ) -> None:
        self.comp = comp
        self.traced = traced
        self.local = local  # the names that may be locals of the procedure
        # names certainly among its locals here, read without a test: its parameters
        # (bound on entry), then what a statement binds for the statements after it in the
        # same block (a local is never unbound: a comprehension restores what it hides)
        self.known: set[str] = set(params)
        self.tracking = True  # codegen_blocks: a block is entered from anywhere, knowing none
        self.w = Writer()
        # the rule reference i.ref certainly holds here, if known: a call restores it, so
        # in straight-line code only a statement citing another rule needs to set it again
        self.ref_held: n.RuleRef | object | None = _UNKNOWN
        # names certainly holding a Python variable of the function being written: a
        # comprehension's item (nothing in it can rebind it but a draw)
        self.bound: dict[str, str] = {}
        self.given = False
        # set for a procedure whose declared result cannot be none: its returns check it
        self.guard: ReturnGuard | None = None
        # the locals held in Python variables of the function being written (a procedure's
        # traced or untraced one), by name; the others are read and written in ``L``
        self.py: dict[str, str] = {}

    # ---- statements ----------------------------------------------------------------------

    def forget_ref(self) -> None:
        """What follows may be entered with any rule reference in i.ref (a new function)."""
        self.ref_held = _UNKNOWN

    def block(
        self,
        body: tuple[n.Stmt, ...],
        inherited: n.RuleRef | None,
        rule: n.RuleRef | None,
        entered_with: n.RuleRef | object | None = _UNKNOWN,
    ) -> None:
        """A nested body: what it binds is known only inside it (it may not run). It is
        entered with ``entered_with`` in i.ref (a branch: its condition's), else with any
        (a loop's body begins again after its end)."""
        if not body:
            self.w.line("pass")
        self.ref_held = entered_with
        known = set(self.known)
        for s in body:
            self.statement(s, inherited, rule)
            if not isinstance(s, _STRAIGHT) and not isinstance(s, n.If):
                self.ref_held = _UNKNOWN  # loops, decisions, helpers (an if: see _if)
        self.known = known

    def _bound_here(self, name: str) -> None:
        """``name`` is certainly a local from here on (in this block)."""
        if self.tracking:
            self.known.add(name)

    def _step(self, span: n.Span, ref: n.RuleRef | None) -> None:
        w = self.w
        w.line("i.steps += 1")
        w.line(f"if i.steps > i.max_steps: raise i.over_budget({w.const(span)})")
        if ref is not self.ref_held:
            w.line(f"i.ref = {w.const(ref)}")
            self.ref_held = ref

    def statement(self, s: n.Stmt, inherited: n.RuleRef | None, rule: n.RuleRef | None) -> None:
        w = self.w
        w.span = s.span
        base = inherited or rule
        own: n.RuleRef | None = getattr(s, "ref", None)
        here = own or base
        if isinstance(s, n.Let):
            self._step(s.span, here)
            value = self.expr(s.value)
            shown = s.ref is not None and not _traced_itself(s.value)
            if shown and self.traced:
                assert s.ref is not None
                t = w.temp()
                w.line(f"{self._target(s.name)} = {t} = {value}")
                w.line(
                    f"i.trace.events.append(_ValueEvent(i.depth, {s.name!r}, _to_json({t}), "
                    f"{s.ref.text!r}))"
                )
            else:
                w.line(f"{self._target(s.name)} = {value}")
            self._bound_here(s.name)
        elif isinstance(s, n.Return):
            self._step(s.span, here)
            w.line(f"return ({self.returned(s)},)")
        elif isinstance(s, n.ExprStmt):
            self._step(s.span, here)
            w.line(self.expr(s.call))
        elif isinstance(s, n.If):
            self._if(s, here, base, inherited, rule)
        elif isinstance(s, n.While):
            self._step(s.span, here)
            w.line(f"while {self.check(s.cond, s.ref)}:")
            w.level += 1
            w.line("i.steps += 1")
            w.line(f"if i.steps > i.max_steps: raise i.over_budget({w.const(s.span)})")
            self.block(s.body, s.ref or inherited, rule)
            w.level -= 1
        elif isinstance(s, n.ForEach):
            self._step(s.span, here)
            t = w.temp()
            source = self.expr(s.iterable)
            w.line(f"for {t} in _iterate(i, {source}, {w.const(s.iterable.span)}):")
            w.level += 1
            w.line(f"{self._target(s.var)} = {t}")
            known = set(self.known)
            self._bound_here(s.var)
            self.block(s.body, s.ref or inherited, rule)
            self.known = known
            w.level -= 1
        elif isinstance(s, n.Require):
            cited = s.ref or rule
            self._step(s.span, here)
            message = s.message + (f" (rule [{cited.text}])" if cited else "")
            w.line(f"if not {self.cond(s.cond)}:")
            w.line(f"    _violate(i, {message!r}, {w.const(s.span)}, {w.const(cited)})")
        elif isinstance(s, n.NoteStmt):
            cited = s.ref or rule
            self._step(s.span, here)
            text = self.interpolate(s.text, s.span)
            if self.traced:
                c = cited.text if cited else None
                w.line(f"i.trace.events.append(_NoteEvent(i.depth, {text}, {c!r}))")
            elif placeholders(s.text):
                w.line(text)  # what it reads may be provisional, and so noted
            # (untraced, a text with nothing to fill in builds nothing)
        elif isinstance(s, n.Pass):
            self._step(s.span, here)
        elif isinstance(s, n.Break | n.Continue):
            self._step(s.span, here)
            if self.traced and s.ref is not None:  # one citing its rule shows in the trace
                said = "the loop ends" if isinstance(s, n.Break) else "on to the next round"
                w.line(f"i.trace.events.append(_NoteEvent(i.depth, {said!r}, {s.ref.text!r}))")
            w.line("break" if isinstance(s, n.Break) else "continue")
        elif isinstance(s, n.Assign) and len(s.target) == 1:
            self._step(s.span, here)
            self._assign_variable(s)
        elif isinstance(s, n.Assign):
            self._step(s.span, here)
            value, head, span = self.expr(s.value), s.target[0], w.const(s.span)
            obj = f"_name_value(i, {head!r}, {span})"
            if head in self.known:
                obj = self._local(head)
            elif head in self.local:
                obj = self._local(head, obj)
            for name in s.target[1:-1]:
                obj = f"_attr_any(i, {obj}, {name!r}, {span})"
            w.line(f"_assign_attr(i, {value}, {obj}, {w.const(s.target)}, {s.op!r}, {span})")
        elif isinstance(s, n.Choose):
            self._step(s.span, here)
            self._choose(s)
            self._bound_here(s.name)
        elif isinstance(s, n.EndTurn):
            cited = s.ref or rule
            self._step(s.span, here)
            text = "the turn ends" + (f": {s.reason}" if s.reason else "")
            if self.traced:
                c = cited.text if cited else None
                w.line(f"i.trace.events.append(_NoteEvent(i.depth, {w.const(text)}, {c!r}))")
            w.line("raise _TurnEnded")
        else:  # a statement that does nothing but its step
            self._step(s.span, here)

    def returned(self, s: n.Return) -> str:
        """Source for a ``return``'s value, a none checked against the declared result."""
        value = self.expr(s.value) if s.value is not None else "None"
        if self.guard is None or isinstance(s.value, n.Num | n.Bool | n.Roll):
            return value
        t, w = self.w.temp(), self.w
        none = f"_none_returned(i, {w.const(self.guard)}, {w.const(s.span)})"
        return f"({t} if ({t} := {value}) is not None else {none})"

    def _choose(self, s: n.Choose) -> None:
        """A decision; its default is worked out off the record by a helper function that
        asks ``i.muted`` (it may run traced or not)."""
        w, comp = self.w, self.comp
        default = None
        if s.default is not None:
            outer, traced = self.w, self.traced
            sub, default = outer.helper()
            sub.line(f"def {default}(i):")
            sub.line("    L = i.locals")
            self.w, self.traced, bound, self.bound = sub, None, self.bound, {}
            py, self.py = self.py, {}  # another function: it reads the locals in L
            try:
                sub.line(f"    return {self.expr(s.default)}")
            finally:
                self.w, self.traced, self.bound, self.py = outer, traced, bound, py
            mute = not may_decide(comp.book, comp.tables, s.default)
            # a memo for a default that only computes and calls a procedure (engine.memo)
            remember = pure(comp.book, comp.tables, s.default) and calls_a_procedure(
                comp.book, comp.tables, s.default
            )
            sub.line(f"{default}_default = _Suggestion({default}, {mute!r}, {remember!r})")
            default = f"{default}_default"
        site = w.const(ChooseSite(s.name, s.title, s.span, s.options.span))
        side = "" if s.side is None else f", {self.expr(s.side)}"  # whose decision it is
        if not self.py:
            w.line(f"_choose(i, {site}, {self.expr(s.options)}, {default or 'None'}{side})")
            return
        # the default, the policy (a player's prompt, a view) and the choice read and
        # write the locals in L: written there first, read back after
        t = w.temp()
        w.line(f"{t} = {self.expr(s.options)}")
        w.line(self._synced())
        w.line(f"_choose(i, {site}, {t}, {default or 'None'}{side})")
        if s.default is not None and contains(s.default, n.Draw):  # a pool drawn from
            w.line("(" + ", ".join(self._reread()) + ")")
        elif s.name in self.py:
            w.line(f"{self.py[s.name]} = L[{s.name!r}]")

    def _assign_variable(self, s: n.Assign) -> None:
        """``x = v``, ``x += v``: a local, else a state variable (a track clamped to its
        ends, the change traced), else a new local."""
        w, head = self.w, s.target[0]
        value, old, new, values = w.temp(), w.temp(), w.temp(), w.temp()
        w.line(f"{value} = {self.expr(s.value)}")
        if s.op == "=":
            combined = f"({value}.total if type({value}) is _RollValue else {value})"
        else:
            sign, span = s.op[0], w.const(s.span)
            r = w.temp()
            fast = (
                f"({r} if -_BIG < ({r} := {old} {sign} {value}) < _BIG else _sized(i, {r}, {span}))"
                if sign in "+-"
                else None
            )
            slow = f"_arith(i, {sign!r}, {old}, {value}, {span})"
            combined = (
                f"({fast} if type({old}) is int and type({value}) is int else {slow})"
                if fast is not None
                else slow
            )
        local, bound = self._target(head), self._is_bound(head)
        if head in self.known:  # certainly a local
            w.line(f"{old} = {local}")
            w.line(f"{local} = {combined}")
            return
        if head not in self.comp.book.states and head not in self.comp.book.tracks:
            # a local: the state holds no other names (see _member); one from here on
            self._bound_here(head)
            w.line(f"if {bound}:")
            w.line(f"    {old} = {local}")
            w.line(f"    {local} = {combined}")
            w.line("else:")
            w.line(f"    {local} = {value}")
            return
        # certainly the state variable (may_be_local) unless it may be a local: the state
        # always holds it
        certain = head not in self.local
        if certain:
            w.line(f"{values} = i.state.values")
        else:
            w.line(f"if {bound}:")
            w.line(f"    {old} = {local}")
            w.line(f"    {local} = {combined}")
            w.line(f"elif {head!r} in ({values} := i.state.values):")
            w.level += 1
        w.line(f"{old} = {values}[{head!r}]")
        w.line(f"{new} = {combined}")
        track = self.comp.book.tracks.get(head)
        if track is not None:
            w.line(f"{new} = _clamp(_plain({new}), {track.low!r}, {track.high!r})")
        w.line(f"{values}[{head!r}] = {new}")
        w.line(f"i.changed.add({head!r})")
        w.line(f"_record_change(i, {head!r}, {old}, {new})")
        if not certain:
            w.level -= 1
            w.line("else:")
            w.line(f"    {local} = {value}")

    def _if(
        self,
        s: n.If,
        here: n.RuleRef | None,
        base: n.RuleRef | None,
        inherited: n.RuleRef | None,
        rule: n.RuleRef | None,
    ) -> None:
        w = self.w
        w.line("i.steps += 1")
        w.line(f"if i.steps > i.max_steps: raise i.over_budget({w.const(s.span)})")
        # i.ref as each way out leaves it: each branch's end, and, with no otherwise, the
        # last condition's (a branch that returns leaves no way out). A condition's calls
        # restore i.ref, so it holds the condition's own rule in the branch and after.
        held, ends = self.ref_held, []
        opened = 0
        for k, b in enumerate(s.branches):
            w.span = b.span
            cited = b.ref or base
            if cited is not held:
                w.line(f"i.ref = {w.const(cited)}")
            held = cited
            w.line(f"if {self.check(b.cond, b.ref)}:")
            w.level += 1
            self.block(b.body, b.ref or inherited, rule, cited)
            if not _leaves(b.body):
                ends.append(self.ref_held)
            w.level -= 1
            if k < len(s.branches) - 1 or s.otherwise:
                w.line("else:")
                w.level += 1
                opened += 1
        if s.otherwise:
            self.block(s.otherwise, inherited, rule, held)
            if not _leaves(s.otherwise):
                ends.append(self.ref_held)
        else:
            ends.append(held)
        w.level -= opened
        first = ends[0] if ends else _UNKNOWN
        self.ref_held = first if all(e is first for e in ends) else _UNKNOWN

    def check(self, cond: n.Expr, ref: n.RuleRef | None) -> str:
        """A condition; one that cites a rule is shown in the (traced) trace."""
        code = self.cond(cond)
        if ref is None or not self.traced:
            return code
        return f"_check(i, {code}, {self.comp.text(cond.span)!r}, {ref.text!r})"

    # ---- expressions ---------------------------------------------------------------------

    def cond(self, e: n.Expr) -> str:
        """Source giving the truth of ``e`` as a bool."""
        code = self.expr(e)
        if isinstance(e, n.Compare | n.BoolOp | n.Not):
            return code
        return f"_cond({code})"

    def expr(self, e: Any) -> str:
        w = self.w
        if isinstance(e, n.Num | n.Bool):
            return w.const(e.value)
        if isinstance(e, n.NoneLit):
            return "None"
        if isinstance(e, n.Str):
            member = self.comp.members.get(id(e))
            if member is not None:
                return w.const(member)
            if "{" in e.value:
                return self.interpolate(e.value, e.span)
            return w.const(e.value)
        if isinstance(e, n.Roll):
            if not _one_die(e):
                return self.roll(e)
            site = RollSite(self.comp.dice.get(e.dice.die), str(e.dice), e.span)
            return f"_roll1(i, {w.const(site)})"
        if isinstance(e, n.Draw):
            return self.draw(e)
        if isinstance(e, n.Name):
            return self._name(e)
        if isinstance(e, n.Attr):
            return self._attr(e)
        if isinstance(e, n.ListLit):
            items = [self.expr(x) for x in e.items]
            return "(" + "".join(f"{x}, " for x in items) + ")"
        if isinstance(e, n.BoolOp):
            return f"({self.cond(e.left)} {e.op} {self.cond(e.right)})"
        if isinstance(e, n.Not):
            return f"(not {self.cond(e.operand)})"
        if isinstance(e, n.IfExpr):
            cond, then = self.cond(e.cond), self.expr(e.then)
            return f"({then} if {cond} else {self.expr(e.otherwise)})"
        if isinstance(e, n.UnaryOp):
            t, operand = w.temp(), self.expr(e.operand)
            slow = f"_arith(i, '-', 0, {t}, {w.const(e.span)})"  # unary + negates too
            return f"(-{t} if type({t} := {operand}) is int else {slow})"
        if isinstance(e, n.BinOp):
            return self._binop(e)
        if isinstance(e, n.Compare):
            return self._compare(e)
        if isinstance(e, n.ListComp):
            return f"tuple({self._comprehension(e.expr, e.var, e.iterable, e.cond)})"
        if isinstance(e, n.Aggregate) and e.func in AGGREGATES:
            values = self._comprehension(e.expr, e.var, e.iterable, e.cond)
            return f"_{e.func}({values})"
        if isinstance(e, n.Call):
            return self.call(e)
        if isinstance(e, Slot):  # an argument given to Interpreter.call
            return f"i.given[{e.index!r}]"
        raise TypeError(f"no code for {type(e).__name__}")

    def interpolate(self, text: str, span: n.Span) -> str:
        """``{name}`` and ``{name.attr}`` filled in with the values they name, in order
        (a name is read as Interpreter._name_value reads it); each replacement charged."""
        comp, w = self.comp, self.w
        parts = []
        for dotted in placeholders(text):
            head, *attrs = dotted.split(".")
            decl = comp.book.states.get(head)
            note = (
                f"state {head}" + (f" [{decl.ref.text}]" if decl.ref else "")
                if decl is not None and decl.provenance is not None
                else None
            )
            fallback = self._fallback(head, span, None)
            noted = f"_state_noted(i, {head!r}, {w.const(note)})"
            value = f"({noted} if {head!r} in i.state.values else {fallback})"
            if head in self.known:
                value = self._local(head)
            elif head in self.local:
                value = self._local(head, value)
            for attr in attrs:
                value = f"_attr_any(i, {value}, {attr!r}, {w.const(span)})"
            parts.append(f"({w.const('{' + dotted + '}')}, _show({value})), ")
        return f"_fill(i, {w.const(span)}, {w.const(text)}, ({''.join(parts)}))"

    def _comprehension(self, expr: n.Expr, var: str, iterable: n.Expr, cond: n.Expr | None) -> str:
        """``expr for var in iterable if cond`` as a helper function giving a list; the
        loop variable does not leak out."""
        outer = self.w
        sub, name = outer.helper()
        sub.line(f"def {name}(i, L):")
        sub.level += 1
        py, inner = self.py, {}
        drew = any(contains(x, n.Draw) for x in (expr, iterable, cond) if x is not None)
        if py and drew:  # a draw may change a local: the helper reads and writes them in L
            call = f"({name}(i, {self._synced()}), {', '.join(self._reread())})[0]"
        elif py:  # the locals it reads given as arguments (the item hides its own name)
            inner = {k: py[k] for k in self._passed((expr, iterable, cond)) if k != var}
            sub.lines[-1] = f"def {name}(i, L{''.join(', ' + v for v in inner.values())}):"
            call = f"{name}(i, L{''.join(', ' + v for v in inner.values())})"
        else:
            call = f"{name}(i, L)"
        self.w, bound, self.bound = sub, self.bound, {}  # another function: no outer variable
        self.py = inner
        try:
            items = sub.temp()
            sub.line(f"{items} = _plain({self.expr(iterable)})")
            sub.line(f"if type({items}) is not tuple:")
            sub.line(f"    {items} = _iterate(i, {items}, {sub.const(iterable.span)})")
            sub.line(f"_charge(i, len({items}), {sub.const(iterable.span)})")  # a step per item
            saved, item, values = sub.temp(), sub.temp(), sub.temp()
            sub.line(f"{values} = []")
            sub.line(f"{saved} = L.get({var!r}, _MISSING)")
            sub.line("try:")
            sub.line(f"    for {item} in {items}:")
            sub.level += 2
            sub.line(f"L[{var!r}] = {item}")
            if not contains(cond, n.Draw) and not contains(expr, n.Draw):
                self.bound = {var: item}
            if cond is not None:
                sub.line(f"if not {self.cond(cond)}:")
                sub.line("    continue")
            # the item itself, unless the condition may draw from it
            itself = isinstance(expr, n.Name) and expr.id == var and not contains(cond, n.Draw)
            sub.line(f"{values}.append({item if itself else self.expr(expr)})")
            sub.level -= 2
            sub.line("finally:")
            sub.line(f"    if {saved} is _MISSING:")
            sub.line(f"        L.pop({var!r}, None)")
            sub.line("    else:")
            sub.line(f"        L[{var!r}] = {saved}")
            sub.line(f"return {values}")
        finally:
            self.w, self.bound, self.py = outer, bound, py
        return call

    def _name(self, e: n.Name) -> str:
        name = e.id
        if name in self.bound:
            return self.bound[name]
        if name in self.known:
            return self._local(name)
        member = self._member(e)  # an enum member, unless a local shadows it
        value = self._nonlocal(e) if member is None else self.w.const(member)
        if name not in self.local:
            return f"({value})"
        return self._local(name, value)

    def _member(self, e: n.Name) -> Any:
        """The enum member a name stands for when nothing else can be read by that name but
        a local: no constant, state variable or track has it (the state holds exactly those:
        a scenario, ``--at`` or a save cannot add others). None otherwise."""
        book = self.comp.book
        name = e.id
        if name in book.consts or name in book.states or name in book.tracks:
            return None
        return self.comp.members.get(id(e))

    def _nonlocal(self, e: n.Name) -> str:
        """A name that is not a local: a state variable (a provisional one noted), else a
        constant, member, marker, enum, or no value at all."""
        comp, w = self.comp, self.w
        name = e.id
        decl = comp.book.states.get(name)
        fallback = self._fallback(name, e.span, e)
        if decl is None and name not in comp.book.tracks:
            return fallback  # the state holds no other names (see _member)
        if decl is not None and decl.provenance is not None:
            note = w.const(f"state {name}" + (f" [{decl.ref.text}]" if decl.ref else ""))
            return (
                f"(_state_noted(i, {name!r}, {note}) if {name!r} in i.state.values else {fallback})"
            )
        t = w.temp()
        return f"({t}[{name!r}] if {name!r} in ({t} := i.state.values) else {fallback})"

    def _fallback(self, name: str, span: n.Span, node: n.Name | None) -> str:
        """A name that is neither a local nor a state variable: a constant, member (of a
        name written in the rulebook), marker, enum (all its members), or no value."""
        comp, w = self.comp, self.w
        book = comp.book
        if name in book.consts:
            const = comp.const_site(name)
            site = w.const(const)
            if const.note is None:
                c = w.temp()
                return f"({c}[{name!r}] if {name!r} in ({c} := i.consts) else _const(i, {site}))"
            return f"_const(i, {site})"
        member = comp.members.get(id(node)) if node is not None else None
        if member is not None:
            return w.const(member)
        if name in book.markers:
            marker = book.markers[name]
            return f"_MarkerValue({w.const(marker.name)}, {w.const(marker.symbol)})"
        if name in book.enums:
            size = len(book.enums[name].members)
            return f"_enum_members({w.const(comp.vocab)}, {name!r}, {size!r})"
        return f"_no_value(i, {name!r}, {w.const(span)})"

    def _attr(self, e: n.Attr) -> str:
        comp, w = self.comp, self.w
        if isinstance(e.obj, n.Name) and e.obj.id in self.bound:
            obj = self.bound[e.obj.id]
        elif isinstance(e.obj, n.Name) and e.obj.id in self.known:
            obj = self._local(e.obj.id)
        elif isinstance(e.obj, n.Name):  # a local, else a state variable, constant...
            h = e.obj.id
            elsewhere = self._nonlocal(e.obj)
            obj = self._local(h, elsewhere) if h in self.local else f"({elsewhere})"
        else:
            obj = self.expr(e.obj)
        t, a = w.temp(), e.name
        kinds = comp.provisional_kinds(a)
        if kinds:  # read from a piece of these kinds, it is noted
            return f"_attr_noted(i, {obj}, {a!r}, {w.const(kinds)}, {w.const(e.span)})"
        return (
            f"({t}.attrs[{a!r}] if type({t} := {obj}) is _Entity and {a!r} in {t}.attrs "
            f"else _attr_any(i, {t}, {a!r}, {w.const(e.span)}))"
        )


def _traced_itself(expr: n.Expr) -> bool:
    """Rolls, look-ups, totals and procedure calls already show their value."""
    return isinstance(expr, n.Roll) or (isinstance(expr, n.Call) and expr.func not in BUILTINS)


def _one_die(e: n.Roll) -> bool:
    """A roll of one die, no modifier, reroll or explosion (codegen_runtime._roll1)."""
    spec = e.dice
    return spec.count == 1 and not e.mods and spec.reroll is None and not spec.explode


def _may_be_local(comp: Program, decl: n.ProcedureDecl) -> frozenset[str]:
    """may_be_local, worked out once per procedure (both its functions need it)."""
    known = comp.locals_of.get(decl.name)
    if known is None:
        known = comp.locals_of[decl.name] = may_be_local(decl.params, decl.body, comp.book)
    return known


def procedures(comp: Program, decl: n.ProcedureDecl) -> tuple[Generated, Generated]:
    """A procedure's traced and untraced functions, generated once per checked rulebook."""
    return generated(comp, decl, True), generated(comp, decl, False)


def generated(comp: Program, decl: n.ProcedureDecl, traced: bool) -> Generated:
    """One of a procedure's functions, generated on first use: a game played on the record
    never needs most untraced ones, and compiling source is most of what generating costs."""
    both = comp.generated.get(decl.name)
    if both is None:
        both = comp.generated[decl.name] = [None, None]
    k = 0 if traced else 1
    made = both[k]
    if made is None:
        made = both[k] = procedure(comp, decl, traced)
    return made


def procedure_body(comp: Program, decl: n.ProcedureDecl) -> Body:
    """A procedure's body: its traced function, or its untraced one while ``i.muted``; each
    generated the first time it is needed."""
    proc = comp.procedures.get(decl.name)
    run_traced: Body | None = None
    run_untraced: Body | None = None

    def body(i: Interpreter) -> tuple[Any] | None:
        nonlocal run_traced, run_untraced
        try:
            if i.muted:
                if run_untraced is None:
                    run_untraced = generated(comp, decl, False).function
                    if proc is not None:  # what codegen_runtime._run calls, sparing body()
                        proc.untraced = run_untraced
                return run_untraced(i)
            if run_traced is None:
                run_traced = generated(comp, decl, True).function
            return run_traced(i)
        except Exception as exc:
            error = located(i, exc)
            if error is None:
                raise
            raise error from exc

    return body
