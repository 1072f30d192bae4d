"""Compiles a checked rulebook into Python closures, each node once.

Walking the AST dispatched on every node's type each time it ran, looked declarations up
by name and re-read the source for labels. Here each node becomes a function
``(interp) -> value``, built on first use and kept with the checked rulebook, so the
dispatch, the look-ups and the labels are settled once. The closures do what the walker
did, in the same order: the same values, trace events, dice throws, decisions and errors.

This module builds expressions; rulekit.engine.compile_calls builds calls (procedures, modifier
lists, tables, rolls) and rulekit.engine.compile_stmts the statements of procedures.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rulekit.book.check_exprs import placeholders
from rulekit.book.checker import Checked
from rulekit.book.tables import CompiledTable
from rulekit.engine import codegen, codegen_mods, codegen_runtime
from rulekit.engine import compile_args as binding
from rulekit.engine import compile_calls as calls
from rulekit.engine import compile_lookups as lookups
from rulekit.engine import compile_stmts as stmts
from rulekit.engine.codegen import Slot
from rulekit.engine.lookups import Lookup, enum_members
from rulekit.engine.procedures import Procedure
from rulekit.engine.reach import contains
from rulekit.engine.runtime import ARITH, ORDER, charge, sized
from rulekit.engine.values import Entity, EnumValue, MarkerValue, normalize, plain, show, truth
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.interpreter import Interpreter

Code = Callable[["Interpreter"], Any]

_COMPILERS: dict[tuple[int, bool], Compiler] = {}
_MISSING = object()
_NONE_TYPE = type(None)
# Values of these types equal one of the same type exactly when ``==`` says so (Interpreter._eq).
_PLAIN_EQ = frozenset({int, str, bool, _NONE_TYPE, EnumValue, Entity})


def compiler_for(checked: Checked, generating: bool | None = None) -> Compiler:
    """The closures of one checked rulebook, shared by every interpreter running it
    (``generating``: the generated engine whatever RULEKIT_ENGINE says)."""
    engine = codegen.enabled() if generating is None else generating
    key = (id(checked), engine)  # each engine its own code, until one is left
    comp = _COMPILERS.get(key)
    if comp is None or comp.owner() is not checked:
        comp = _COMPILERS[key] = Compiler(checked, generating=key[1])
        weakref.finalize(checked, _COMPILERS.pop, key, None)
    return comp


class Compiler:
    """Builds and keeps the closures of one rulebook (not of one game: no state here)."""

    def __init__(self, checked: Checked, generating: bool = False) -> None:
        self.owner = weakref.ref(checked)
        self.book = checked.book
        self.vocab = checked.vocab
        self.tables = checked.tables
        self.dice = checked.dice
        self.members = checked.members
        self.rounding = checked.rounding
        self._nodes: dict[int, tuple[object, Code]] = {}
        self._consts: dict[str, Code] = {}
        self._given: dict[tuple[str, tuple[str, ...]], Code] = {}
        self._lookups: dict[str, binding.LookupCode] = {}
        self.procedures: dict[str, Any] = {}
        self.modifiers: dict[str, binding.ModifierCode] = {}
        self._provisional: dict[str, frozenset[str]] = {}
        # procedures as generated Python source (rulekit.engine.codegen), when switched on
        self.generating = generating
        # each procedure's [traced, untraced] functions, generated on first use
        self.generated: dict[str, list[codegen_runtime.Generated | None]] = {}
        self.locals_of: dict[str, frozenset[str]] = {}  # codegen.may_be_local, by procedure
        # procedures cut into resumable blocks for exact analysis (codegen_blocks)
        self.block_programs: dict[str, Any] = {}
        # generated functions of expressions run in any frame, by node (kept: its id stays
        # its own), constants, the rolls of tables called without one, table look-ups
        self._expressions: dict[int, tuple[object, Code]] = {}
        self._const_sites: dict[str, codegen_runtime.ConstSite] = {}
        self._table_rolls: dict[tuple[str, n.Span], Code] = {}
        self._lookup_objs: dict[str, Lookup] = {}
        fields: dict[str, set[str]] = {}
        for kind in self.book.kinds.values():
            for f in kind.fields:
                if f.provenance is not None:
                    fields.setdefault(f.name, set()).add(kind.name)
        self._provisional = {name: frozenset(kinds) for name, kinds in fields.items()}

    # ---- entry points --------------------------------------------------------------------

    def cached(self, node: Any) -> Code:
        """The closure of a node, built once (the node is kept, so its id stays its own)."""
        if self.generating:
            return self.expression(node)
        hit = self._nodes.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        code = self.expr(node)
        self._nodes[id(node)] = (node, code)
        return code

    def expression(self, node: Any) -> Code:
        """The generated function of an expression run in whatever frame is current."""
        hit = self._expressions.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        code = codegen.expression(self, node).function
        self._expressions[id(node)] = (node, code)
        return code

    def const_site(self, name: str) -> codegen_runtime.ConstSite:
        site = self._const_sites.get(name)
        if site is None:
            site = self._const_sites[name] = codegen_runtime.ConstSite(self, self.book.consts[name])
        return site

    def table_roll(self, table: CompiledTable, span: n.Span) -> Code:
        """The roll a table throws when called at ``span`` without one."""
        key = (table.name, span)
        code = self._table_rolls.get(key)
        if code is None:
            dim = next(d for d in table.dims if d.kind == "roll")
            assert dim.decl.dice is not None
            roll = n.Roll(dim.decl.dice, dim.decl.mods, span=span)
            code = self._table_rolls[key] = codegen.expression(self, roll).function
        return code

    def lookup_of(self, table: CompiledTable) -> Lookup:
        found = self._lookup_objs.get(table.name)
        if found is None:
            found = self._lookup_objs[table.name] = Lookup(table, self)
        return found

    def given_call(self, name: str, keys: tuple[str, ...]) -> Code:
        """``Interpreter.call``: a call of ``name`` whose arguments are ``interp.given``."""
        code = self._given.get((name, keys))
        if code is None:
            args = tuple(n.Arg(Slot(i), key) for i, key in enumerate(keys))  # type: ignore[arg-type]
            call = n.Call(name, args)
            code = self._given[(name, keys)] = (
                codegen.expression(self, call, True).function
                if self.generating
                else self.expr(call)
            )
        return code

    def roll(self, spec: n.DiceSpec, mods: tuple[n.RollMod, ...], span: n.Span) -> Code:
        if self.generating:
            return self.expression(n.Roll(spec, mods, span=span))
        return lookups.roll(self, spec, mods, span)

    def lookup(self, table: CompiledTable) -> binding.LookupCode:
        if self.generating:
            return self.lookup_of(table).run
        code = self._lookups.get(table.name)
        if code is None:
            code = self._lookups[table.name] = lookups.lookup(self, table)
        return code

    def procedure(self, name: str) -> Any:
        code = self.procedures.get(name)
        if code is None:
            make = Procedure if self.generating else calls.Procedure
            code = self.procedures[name] = make(self, self.book.procedures[name])
        return code

    def fallback_value(self, i: Interpreter, name: str, span: n.Span) -> Any:
        """The value of a name that is neither a local nor a state variable."""
        if not self.generating:
            return self.name_fallback(name, span, None)(i)
        book = self.book
        if name in book.consts:
            return codegen_runtime._const(i, self.const_site(name))
        if name in book.markers:
            marker = book.markers[name]
            return MarkerValue(marker.name, marker.symbol)
        if name in book.enums:
            return enum_members(self.vocab, name, len(book.enums[name].members))
        raise i.fail(f"'{name}' has no value here", span)

    def body(self, decl: n.ProcedureDecl) -> stmts.StmtCode:
        """A procedure's body: generated source, or closures (see codegen.enabled)."""
        if self.generating:
            return codegen.procedure_body(self, decl)
        return stmts.block(self, decl.body, None, decl.ref)

    def modifier(self, name: str) -> binding.ModifierCode:
        code = self.modifiers.get(name)
        if code is None:
            decl = self.book.modifiers[name]
            code = self.modifiers[name] = (
                codegen_mods.modifier_list(self, decl).function
                if self.generating
                else lookups.modifier(self, decl)
            )
        return code

    def provisional_kinds(self, attr: str) -> frozenset[str]:
        """The kinds whose attribute ``attr`` is provisional."""
        return self._provisional.get(attr, frozenset())

    def text(self, span: n.Span) -> str:
        """The expression as written in the rulebook (for modifier labels)."""
        line = self.book.sources.line(span.file, span.line)
        if line is None or span.end_line != span.line:
            return "modifier"
        return line[span.column - 1 : span.end_column - 1].strip()

    # ---- expressions ---------------------------------------------------------------------

    def expr(self, e: Any) -> Code:
        build: Callable[[Compiler, Any], Code] = _BUILD[type(e)]
        return build(self, e)

    def cond(self, e: n.Expr) -> Code:
        """A closure giving the truth of ``e`` as a bool."""
        if (
            isinstance(e, n.Attr)
            and isinstance(e.obj, n.Name)
            and not self.provisional_kinds(e.name)
        ):
            return _attr_test(self, e)
        code = self.expr(e)
        if isinstance(e, n.Compare | n.BoolOp | n.Not):
            return code  # already a bool

        def run(i: Interpreter) -> bool:
            value = code(i)
            if value is True or value is False:
                return value
            return truth(value)

        return run

    def fetch(self, e: n.Expr) -> tuple[str | None, Code]:
        """For a name: the name, and where its value is when it is not a local (parents
        read locals themselves, saving a call); else no name, and the expression's code."""
        if isinstance(e, n.Name):
            return e.id, _nonlocal(self, e)
        return None, self.expr(e)

    def name_fallback(self, name: str, span: n.Span, node: n.Name | None) -> Code:
        """A name that is neither a local nor a state variable: a constant, member, marker,
        enum (all its members), or no value at all."""
        book = self.book
        if name in book.consts:
            return self.const(name)
        member = self.members.get(id(node)) if node is not None else None
        if member is not None:
            return lambda i: member
        if name in book.markers:
            marker = book.markers[name]
            return lambda i: MarkerValue(marker.name, marker.symbol)
        if name in book.enums:
            size = len(book.enums[name].members)
            member_of = self.vocab.member_of
            return lambda i: tuple(member_of(name, k) for k in range(size))

        def fail(i: Interpreter) -> Any:
            raise i.fail(f"'{name}' has no value here", span)

        return fail

    def const(self, name: str) -> Code:
        code = self._consts.get(name)
        if code is not None:
            return code
        decl = self.book.consts[name]
        value = self.cached(decl.value)
        note = (
            f"const {name}" + (f" [{decl.ref.text}]" if decl.ref else "")
            if decl.provenance is not None
            else None
        )

        def run(i: Interpreter) -> Any:
            consts = i.consts
            if name not in consts:
                consts[name] = value(i)
            if note is not None:
                i.trace.used_provisional(note)
            return consts[name]

        self._consts[name] = run
        return run

    def interpolate(self, text: str, span: n.Span) -> Callable[[Interpreter], str]:
        """Fill in ``{name}`` and ``{name.attr}`` with the values they name."""
        parts = [(dotted, dotted.split(".")) for dotted in placeholders(text)]

        def run(i: Interpreter) -> str:
            out = text
            for dotted, (head, *attrs) in parts:
                value = i._name_value(head, span)
                for attr in attrs:
                    value = i._attr(value, attr, span)
                out = out.replace("{" + dotted + "}", show(value))
                charge(i, len(out) // 64, span)  # text doubled in a loop must stop
            return out

        return run


def _const(value: Any) -> Code:
    return lambda i: value


def _str(comp: Compiler, e: n.Str) -> Code:
    member = comp.members.get(id(e))
    if member is not None:
        return _const(member)
    if "{" in e.value:
        return comp.interpolate(e.value, e.span)
    return _const(e.value)


def _nonlocal(comp: Compiler, e: n.Name) -> Code:
    """A name's value when it is not a local: a state variable, or else the fallback."""
    name = e.id
    fallback = comp.name_fallback(name, e.span, e)
    decl = comp.book.states.get(name)
    note = (
        f"state {name}" + (f" [{decl.ref.text}]" if decl.ref else "")
        if decl is not None and decl.provenance is not None
        else None
    )

    def run(i: Interpreter) -> Any:
        values = i.state.values
        if name in values:
            if note is not None and name not in i.changed:
                i.trace.used_provisional(note)
            return values[name]
        return fallback(i)

    return run


def _name(comp: Compiler, e: n.Name) -> Code:
    name, other = e.id, _nonlocal(comp, e)
    member = comp.members.get(id(e))
    if member is None or name in comp.book.consts or name in comp.book.states:
        return lambda i: i.locals[name] if name in i.locals else other(i)

    def enum_member(i: Interpreter) -> Any:  # a member, unless a local or state shadows it
        local = i.locals
        if name in local:
            return local[name]
        values = i.state.values
        return other(i) if name in values else member

    return enum_member


def _attr(comp: Compiler, e: n.Attr) -> Code:
    held, obj = comp.fetch(e.obj)
    name, span = e.name, e.span
    kinds = comp.provisional_kinds(name)
    if kinds:

        def provisional(i: Interpreter) -> Any:
            o = i.locals.get(held, _MISSING) if held is not None else _MISSING
            if o is _MISSING:
                o = obj(i)
            if type(o) is Entity:
                attrs = o.attrs
                if name in attrs:
                    if o.kind in kinds:
                        i.trace.used_provisional(f"{o.kind}.{name} of {o}")
                    return attrs[name]
            return i._attr(o, name, span)

        return provisional
    if held is not None:

        def of_name(i: Interpreter) -> Any:
            local = i.locals
            o = local[held] if held in local else obj(i)
            if type(o) is Entity:
                attrs = o.attrs
                if name in attrs:
                    return attrs[name]
            return i._attr(o, name, span)

        return of_name

    def run(i: Interpreter) -> Any:
        o = obj(i)
        if type(o) is Entity:
            attrs = o.attrs
            if name in attrs:
                return attrs[name]
        return i._attr(o, name, span)

    return run


def _attr_test(comp: Compiler, e: n.Attr) -> Code:
    """``piece.flag`` as a condition: the attribute read and its truth in one closure."""
    held, obj = comp.fetch(e.obj)
    name, span = e.name, e.span

    def test(i: Interpreter) -> bool:
        local = i.locals
        o = local[held] if held in local else obj(i)
        value = o.attrs[name] if type(o) is Entity and name in o.attrs else i._attr(o, name, span)
        if value is True or value is False:
            return value
        return truth(value)

    return test


def _list(comp: Compiler, e: n.ListLit) -> Code:
    items = [comp.expr(x) for x in e.items]
    return lambda i: tuple([f(i) for f in items])


def comprehension(
    comp: Compiler, expr: n.Expr, var: str, iterable: n.Expr, cond: n.Expr | None
) -> Callable[[Interpreter], list[Any]]:
    """``expr for var in iterable if cond``: the loop variable does not leak out."""
    source = comp.expr(iterable)
    span = iterable.span
    value = comp.expr(expr)
    keep = comp.cond(cond) if cond is not None else None
    # [u for u in xs if ...]: the item itself, unless the condition may draw from it
    itself = isinstance(expr, n.Name) and expr.id == var and not contains(cond, n.Draw)

    def run(i: Interpreter) -> list[Any]:
        items = plain(source(i))
        if type(items) is not tuple:
            items = i._iterate(items, span)
        charge(i, len(items), span)
        values = []
        local = i.locals
        saved = local.get(var, _MISSING)
        try:
            for item in items:
                local[var] = item
                if keep is not None and not keep(i):
                    continue
                values.append(item if itself else value(i))
        finally:
            if saved is _MISSING:
                local.pop(var, None)
            else:
                local[var] = saved
        return values

    return run


def _listcomp(comp: Compiler, e: n.ListComp) -> Code:
    values = comprehension(comp, e.expr, e.var, e.iterable, e.cond)
    return lambda i: tuple(values(i))


def _aggregate(comp: Compiler, e: n.Aggregate) -> Code:
    values = comprehension(comp, e.expr, e.var, e.iterable, e.cond)
    func = e.func
    if func == "count":

        def count(i: Interpreter) -> int:
            found = 0
            for v in values(i):
                if v is True or (v is not False and truth(v)):
                    found += 1
            return found

        return count
    if func == "any":
        return lambda i: any([v is True or (v is not False and truth(v)) for v in values(i)])
    if func == "all":
        return lambda i: all([v is True or (v is not False and truth(v)) for v in values(i)])

    def run(i: Interpreter) -> Any:
        numbers = [plain(v) for v in values(i)]
        if func == "sum":
            return normalize(sum(numbers, 0))
        if not numbers:
            return None
        return max(numbers) if func == "max" else min(numbers)

    return run


_BIG = 1 << 64  # a result below this in size is certainly not too big (runtime.sized)


def _binop(comp: Compiler, e: n.BinOp) -> Code:
    left, right = comp.expr(e.left), comp.expr(e.right)
    op, span = e.op, e.span

    quick = ARITH.get(op)

    def run(i: Interpreter) -> Any:
        a, b = left(i), right(i)
        if quick is not None and type(a) is int and type(b) is int:
            value = quick(a, b)
            if -_BIG < value < _BIG:
                return value
            return sized(i, value, span)
        if op == "+":
            pa, pb = plain(a), plain(b)
            if isinstance(pa, tuple) and isinstance(pb, tuple):
                charge(i, len(pa) + len(pb), span)
                return pa + pb
        return i._arith(op, a, b, span)

    return run


def _unary(comp: Compiler, e: n.UnaryOp) -> Code:
    operand, span = comp.expr(e.operand), e.span

    def run(i: Interpreter) -> Any:
        v = operand(i)
        if type(v) is int:
            return -v
        return i._arith("-", 0, v, span)  # unary + negates too, as the walker did

    return run


def _constant(comp: Compiler, e: n.Expr) -> tuple[bool, Any]:
    """Whether ``e`` always gives the same value without any effect, and that value."""
    if isinstance(e, n.Num | n.Bool):
        return True, e.value
    if isinstance(e, n.Str):
        member = comp.members.get(id(e))
        if member is not None:
            return True, member
        if "{" not in e.value:
            return True, e.value
    return False, None


def _compare(comp: Compiler, e: n.Compare) -> Code:
    left, right = comp.expr(e.left), comp.expr(e.right)
    op, span = e.op, e.span
    if op in ("in", "not in"):
        right_span = e.right.span
        return lambda i: i._contains(op, left(i), right(i), right_span)
    fixed, k = _constant(comp, e.right)
    if op in ("=", "!="):
        same = op == "="
        # x = none exactly when x (unwrapped) is none: nothing else equals none
        if isinstance(e.right, n.NoneLit):
            return lambda i: (plain(left(i)) is None) is same
        if isinstance(e.left, n.NoneLit):
            return lambda i: (plain(right(i)) is None) is same
        if fixed and type(k) in _PLAIN_EQ:
            kt = type(k)

            def eq_constant(i: Interpreter) -> bool:
                a = left(i)
                if type(a) is kt:
                    return (a == k) is same
                return i._eq(a, k) is same

            return eq_constant

        def eq(i: Interpreter) -> bool:
            a, b = left(i), right(i)
            t = type(a)
            if t is type(b) and t in _PLAIN_EQ:
                return (a == b) is same
            return i._eq(a, b) is same

        return eq
    quick = ORDER.get(op)
    if quick is None:  # not an operator the grammar has: the walker's error
        return lambda i: i._order(op, left(i), right(i), span)
    if fixed and type(k) is int:

        def order_constant(i: Interpreter) -> bool:
            a = left(i)
            if type(a) is int:
                return quick(a, k)
            return i._order(op, a, k, span)

        return order_constant

    def order(i: Interpreter) -> bool:
        a, b = left(i), right(i)
        if type(a) is int and type(b) is int:
            return quick(a, b)
        return i._order(op, a, b, span)

    return order


def _boolop(comp: Compiler, e: n.BoolOp) -> Code:
    left, right = comp.cond(e.left), comp.cond(e.right)
    if e.op == "and":
        return lambda i: left(i) and right(i)
    return lambda i: left(i) or right(i)


def _not(comp: Compiler, e: n.Not) -> Code:
    operand = comp.cond(e.operand)
    return lambda i: not operand(i)


def _if(comp: Compiler, e: n.IfExpr) -> Code:
    cond, then, otherwise = comp.cond(e.cond), comp.expr(e.then), comp.expr(e.otherwise)
    return lambda i: then(i) if cond(i) else otherwise(i)


def _slot(comp: Compiler, e: Slot) -> Code:
    index = e.index
    return lambda i: i.given[index]


_BUILD: dict[type, Callable[[Compiler, Any], Code]] = {
    Slot: _slot,
    n.Num: lambda comp, e: _const(e.value),
    n.Str: _str,
    n.Bool: lambda comp, e: _const(e.value),
    n.NoneLit: lambda comp, e: _const(None),
    n.Name: _name,
    n.Attr: _attr,
    n.ListLit: _list,
    n.ListComp: _listcomp,
    n.BinOp: _binop,
    n.UnaryOp: _unary,
    n.Compare: _compare,
    n.BoolOp: _boolop,
    n.Not: _not,
    n.IfExpr: _if,
    n.Roll: lambda comp, e: lookups.roll(comp, e.dice, e.mods, e.span),
    n.Draw: lookups.draw,
    n.Aggregate: _aggregate,
    n.Call: calls.call,
}
