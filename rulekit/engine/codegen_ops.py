"""Operators as generated Python source (see rulekit.engine.codegen): arithmetic and
comparisons, each with a fast path for the commonest values (two ints, a member compared
with a member written in the rulebook) and the interpreter's own way for every other; and a
call's arguments bound to its parameters.
"""

from __future__ import annotations

from typing import Any

from rulekit.engine.codegen_runtime import PLAIN_EQ
from rulekit.engine.runtime import ORDER
from rulekit.engine.values import EnumValue
from rulekit.language import nodes as n


class Operators:
    """The operator half of codegen.Gen, which provides what is declared here."""

    w: Any  # codegen.Writer
    comp: Any  # program.Program
    local: frozenset[str]

    def expr(self, e: Any) -> str:
        raise NotImplementedError

    def _member(self, e: n.Name) -> Any:
        raise NotImplementedError

    def _binop(self, e: n.BinOp) -> str:
        w = self.w
        left, right = self.expr(e.left), self.expr(e.right)
        a, b, span = w.temp(), w.temp(), w.const(e.span)
        op = e.op
        if op in ("+", "-", "*"):
            r = w.temp()
            # a result too big is an error (runtime.sized)
            fast = f"({r} if -_BIG < ({r} := {a} {op} {b}) < _BIG else _sized(i, {r}, {span}))"
            # both sides are evaluated before either is tested: '&' does not short-circuit
            test = f"(type({a} := {left}) is int) & (type({b} := {right}) is int)"
            if op == "+":
                return f"({fast} if {test} else _join_or_arith(i, {a}, {b}, {span}))"
            return f"({fast} if {test} else _arith(i, {op!r}, {a}, {b}, {span}))"
        return f"_arith(i, {op!r}, {left}, {right}, {span})"

    def _constant(self, e: n.Expr) -> tuple[bool, Any]:
        """Whether ``e`` always gives the same value without any effect, and that value
        (an enum member written as a name counts, unless a local may shadow it)."""
        if isinstance(e, n.Num | n.Bool):
            return True, e.value
        if isinstance(e, n.Str):
            member = self.comp.members.get(id(e))
            if member is not None:
                return True, member
            if "{" not in e.value:
                return True, e.value
        if isinstance(e, n.Name) and e.id not in self.local:
            member = self._member(e)
            if member is not None:
                return True, member
        return False, None

    def _members(self, e: n.Expr) -> list[EnumValue] | None:
        """The members of one enum that a list written out holds, when it holds only such."""
        if not isinstance(e, n.ListLit) or not e.items:
            return None
        found = []
        for item in e.items:
            fixed, k = self._constant(item)
            if not fixed or type(k) is not EnumValue:
                return None
            found.append(k)
        return found if len({k.enum for k in found}) == 1 else None

    def _compare(self, e: n.Compare) -> str:
        w = self.w
        op, span = e.op, w.const(e.span)
        if op in ("in", "not in"):
            left, right = self.expr(e.left), self.expr(e.right)
            members = self._members(e.right)
            if members is None:
                return f"_contains(i, {op!r}, {left}, {right}, {w.const(e.right.span)})"
            # a list of members written out: a set of names, unless the value is no member
            t, names, enum = (
                w.temp(),
                w.const(frozenset(m.member for m in members)),
                members[0].enum,
            )
            slow = f"_contains(i, 'in', {t}, {right}, {w.const(e.right.span)})"
            fast = f"({t}.member in {names} and {t}.enum == {enum!r})"
            found = f"({fast} if type({t} := {left}) is _EnumValue else {slow})"
            return found if op == "in" else f"(not {found})"
        fixed, k = self._constant(e.right)
        if op in ("=", "!="):
            same = op == "="
            if isinstance(e.right, n.NoneLit):
                left = self.expr(e.left)
                return f"((_plain({left}) is None) is {same})"
            if isinstance(e.left, n.NoneLit):
                right = self.expr(e.right)
                return f"((_plain({right}) is None) is {same})"
            left = self.expr(e.left)
            if fixed and type(k) is EnumValue:  # EnumValue.__eq__ inline
                t, kk = w.temp(), w.const(k)
                fast = f"({t}.member == {k.member!r} and {t}.enum == {k.enum!r})"
                test = f"type({t} := {left}) is _EnumValue"
                return f"(({fast} if {test} else _eq_any(i, {t}, {kk})) is {same})"
            if fixed and type(k) in PLAIN_EQ:
                t, kk, kt = w.temp(), w.const(k), w.const(type(k))
                return (
                    f"((({t} == {kk}) if type({t} := {left}) is {kt} else _eq_any(i, {t}, {kk})) "
                    f"is {same})"
                )
            right = self.expr(e.right)
            # two members compared inline (both sides evaluated first: '&' does not
            # short-circuit), anything else as _eq compares
            a, b = w.temp(), w.temp()
            test = f"(type({a} := {left}) is _EnumValue) & (type({b} := {right}) is _EnumValue)"
            fast = f"({a}.member == {b}.member and {a}.enum == {b}.enum)"
            return f"(({fast} if {test} else _eq(i, {a}, {b})) is {same})"
        left, right = self.expr(e.left), self.expr(e.right)
        if op not in ORDER:
            return f"_order_any(i, {op!r}, {left}, {right}, {span})"
        sym = op
        a, b = w.temp(), w.temp()
        if fixed and type(k) is int:
            slow = f"_order(i, {op!r}, {a}, {k!r}, {span})"
            return f"({a} {sym} {k!r} if type({a} := {left}) is int else {slow})"
        test = f"(type({a} := {left}) is int) & (type({b} := {right}) is int)"
        return f"({a} {sym} {b} if {test} else _order(i, {op!r}, {a}, {b}, {span}))"
