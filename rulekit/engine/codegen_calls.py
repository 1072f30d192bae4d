"""Calls as generated Python source (see rulekit.engine.codegen): a call by what its name
names (a table, modifier list, procedure, kind or record, graph, enum or builtin function),
rolls and draws, and a call's arguments bound to its parameters.

Each does what the rulebook says in its order: a call steps, then evaluates its arguments in
order, then binds them (a text given for an enum parameter read as its member, a missing
argument's default evaluated where the call is made), then runs its callee
(rulekit.engine.codegen_runtime and rulekit.engine.lookups).
"""

from __future__ import annotations

from typing import Any

from rulekit.book.check_exprs import ENUM_FUNCTIONS, GRAPH_FUNCTIONS
from rulekit.engine.builtins import BUILTINS
from rulekit.engine.codegen_runtime import GraphSite, ModifierSite, TableSite
from rulekit.engine.lookups import (
    BuiltinSite,
    DiceSite,
    DrawSite,
    EnumSite,
    enum_param,
    rule_text,
)
from rulekit.language import nodes as n


class Calls:
    """The call half of codegen.Gen, which provides what is declared here."""

    w: Any  # codegen.Writer
    comp: Any  # the program (rulekit.engine.program)
    traced: bool | None
    given: bool  # writing Interpreter.call's call: a procedure's result is never remembered
    py: dict[str, str]  # the locals held in Python variables, by name (codegen.Gen)

    def expr(self, e: Any) -> str:
        raise NotImplementedError

    def call(self, e: n.Call) -> str:
        """A call, by what its name names, in this order of precedence."""
        name, book, comp = e.func, self.comp.book, self.comp
        if name in comp.tables:
            return self._table_call(e)
        if name in book.modifiers:
            return self._modifier_call(e)
        if name in book.procedures:
            return self._procedure_call(e)
        if name in book.kinds or name in book.records:
            return self._construct(e)
        if name in GRAPH_FUNCTIONS:
            return self._graph_call(e)
        if name in ENUM_FUNCTIONS:
            return self._enum_call(e)
        if name in BUILTINS:
            return self._builtin_call(e)
        span = self.w.const(e.span)
        return f"_unknown_call(_stepped(i, {span}), {name!r}, {span})"

    def _is_procedure(self, name: str) -> bool:
        """Whether a call of ``name`` calls a procedure."""
        book = self.comp.book
        return (
            name not in self.comp.tables and name not in book.modifiers and name in book.procedures
        )

    # ---- procedures, modifier lists, tables ----------------------------------------------

    def _procedure_call(self, e: n.Call) -> str:
        """Step, bind the arguments, then run the procedure."""
        comp, w = self.comp, self.w
        decl = comp.book.procedures[e.func]
        args = self._bind(e, decl.params)
        proc = w.const(comp.procedure(e.func))
        step = f"_stepped(i, {w.const(e.span)})"
        if self.traced is False:  # untraced: straight to the run (or its result remembered)
            run = "_run" if comp.procedure(e.func).depth is None else "_remembered"
            return f"{run}({step}, {proc}, {args})"
        invoke = {True: "_call_traced", None: "_call_any"}[self.traced]
        if self.given:
            invoke = "_call_given"
        return f"{invoke}({step}, {proc}, {args})"

    def _modifier_call(self, e: n.Call) -> str:
        """Step, bind, the list's terms and total (its TotalEvent when traced)."""
        comp, w = self.comp, self.w
        decl = comp.book.modifiers[e.func]
        args = self._bind(e, decl.params)
        site = w.const(ModifierSite(comp, decl))
        invoke = {True: "_total_traced", False: "_total_untraced", None: "_total_any"}[self.traced]
        return f"{invoke}(_stepped(i, {w.const(e.span)}), {site}, {args})"

    def _table_call(self, e: n.Call) -> str:
        """Step, the arguments in order, the table's own roll if none was given, then the
        row, found by the values' index once it is known."""
        comp, w = self.comp, self.w
        table = comp.tables[e.func]
        inputs = [d for d in table.dims if d.kind != "roll"]
        keys: list[str | None] = []  # None for the roll
        position = 0
        for k, arg in enumerate(e.args):
            if arg.name == "roll":
                keys.append(None)
            elif arg.name is not None:
                keys.append(arg.name)
            elif position < len(inputs):
                keys.append(inputs[position].name)
                position += 1
            else:  # no step: the arguments so far, then the error
                return self._too_many(e.args[: k + 1], "list index out of range")
        dims: list[int | str | None] = []  # an argument's index, None for the roll, or a
        missing = False  # dimension no argument gives (the error, once its turn comes)
        for dim in table.dims:
            key = None if dim.kind == "roll" else dim.name
            if key is not None and key not in keys:
                dims.append(key)
                missing = True
            else:
                dims.append(len(keys) - 1 - keys[::-1].index(key) if key in keys else None)
        roll_dim = next((d for d in table.dims if d.kind == "roll"), None)
        throw = None
        if roll_dim is not None:
            assert roll_dim.decl.dice is not None
            throw = comp.table_roll(table, e.span)
        rolled = len(keys) - 1 - keys[::-1].index(None) if None in keys else None
        site = TableSite(table, comp.lookup(table), tuple(dims), rolled, throw, e.span)
        given = "(" + "".join(f"{self.expr(a.value)}, " for a in e.args) + ")"
        invoke = "_table_missing" if missing else "_table"
        return f"{invoke}(_stepped(i, {w.const(e.span)}), {w.const(site)}, {given})"

    # ---- builtins, graph and enum functions, constructors --------------------------------

    def _builtin_call(self, e: n.Call) -> str:
        w = self.w
        site = BuiltinSite(e.func, self.comp.rounding, len(e.args) == 1, e.span)
        args = "[" + ", ".join(self.expr(a.value) for a in e.args) + "]"
        return f"_builtin(_stepped(i, {w.const(e.span)}), {w.const(site)}, {args})"

    def _graph_call(self, e: n.Call) -> str:
        comp, w = self.comp, self.w
        step = f"_stepped(i, {w.const(e.span)})"
        first_arg = e.args[0].value if e.args else None
        if len(e.args) != 3 or not isinstance(first_arg, n.Name) or first_arg.id not in comp.tables:
            # no graph table first, or not two more arguments: the error, as it comes
            values = "(" + "".join(f"{self.expr(a.value)}, " for a in e.args[1:4]) + ")"
            odd = f"_graph_odd({step}, {w.const(e)}, {w.const(comp.tables)})"
            return f"_graph_unpack(({odd}, {values})[1])"
        site = w.const(GraphSite(e.func, comp.tables[first_arg.id], e.span))
        first, second = self.expr(e.args[1].value), self.expr(e.args[2].value)
        return f"_graph({step}, {site}, {first}, {second}, {self.traced!r})"

    def _enum_call(self, e: n.Call) -> str:
        comp, w = self.comp, self.w
        site = w.const(EnumSite(e.func, e.span, comp.vocab, comp.book.enums))
        arg = self.expr(e.args[0].value) if e.args else "_NO_ARG"
        return f"_enum_call(_stepped(i, {w.const(e.span)}), {site}, {arg})"

    def _construct(self, e: n.Call) -> str:
        """A record or a game piece: step, then its fields bound as a call's arguments."""
        book, w = self.comp.book, self.w
        record = book.records.get(e.func)
        decl: n.KindDecl | n.RecordDecl = record or book.kinds[e.func]
        params = tuple(n.Param(f.name, f.type, f.default, span=f.span) for f in decl.fields)
        step = f"_stepped(i, {w.const(e.span)})"
        args = self._bind(e, params)
        if record is not None:
            names = w.const(tuple(f.name for f in record.fields))
            return f"_make_record({step}, {decl.name!r}, {names}, {args})"
        return f"_make_entity({step}, {decl.name!r}, {args})"

    # ---- rolls and draws -----------------------------------------------------------------

    def roll(self, e: n.Roll) -> str:
        """Throw the dice (their number evaluated first), then the modifiers' terms in
        order, then the total, traced."""
        comp, w = self.comp, self.w
        spec = e.dice
        site = w.const(DiceSite(comp.dice.get(spec.die), spec, e.span))
        if isinstance(spec.count, int):
            thrown = f"_throw(i, {site}, {spec.count!r})"
        else:
            count = self.expr(spec.count)
            thrown = f"_throw(_rolling(i, {site}), {site}, _plain({count}))"
        terms = "(" + "".join(f"{self._roll_terms(m)}, " for m in e.mods) + ")"
        return f"_rolled(i, {site}, {thrown}, {terms})"

    def _roll_terms(self, mod: n.RollMod) -> str:
        comp, w = self.comp, self.w
        value, sign = mod.value, mod.sign
        if isinstance(value, n.Call) and value.func in comp.book.modifiers:
            decl = comp.book.modifiers[value.func]
            low, high = decl.clamp or (None, None)
            bounds = f"{'' if low is None else low}..{'' if high is None else high}"
            site = w.const(ModifierSite(comp, decl))
            found = f"_terms(i, {site}, {self._bind(value, decl.params)})"  # no step
            return f"_listed_terms({sign!r}, {bounds!r}, {rule_text(decl.ref)!r}, {found})"
        label = "" if isinstance(value, n.Num) else comp.text(value.span)
        span = w.const(value.span)
        return f"_single_term(i, {sign!r}, {w.const(label)}, {span}, {self.expr(value)})"

    def draw(self, e: n.Draw) -> str:
        """The pool, its items, the count, the draw; then the pool left written back to
        where it came from (a piece's attribute: the piece evaluated again)."""
        comp, w = self.comp, self.w
        site = w.const(DrawSite(comp.text(e.source.span), e.span, e.source.span))
        items = f"_iterate(i, {self.expr(e.source)}, {w.const(e.source.span)})"
        count = self.expr(e.count) if e.count is not None else "_NO_ARG"
        drawn = f"_draw(i, {site}, {items}, {count})"
        target = e.source
        if isinstance(target, n.Name) and target.id in self.py:
            # the pool left written back to the local, else to the state variable
            v, t = self.py[target.id], w.temp()
            back = f"i.state.values.__setitem__({target.id!r}, {t}[0])"
            kept = f"(({v} := {t}[0]) if {v} is not _MISSING else {back})"
            return f"(({t} := {drawn}), {kept}, {t}[1])[2]"
        if isinstance(target, n.Name):
            return f"_drawn_from_name(i, {target.id!r}, {drawn})"
        assert isinstance(target, n.Attr)
        piece = self.expr(target.obj)
        return f"_drawn_from_attr(i, {drawn}, {piece}, {target.name!r}, {w.const(target.span)})"

    # ---- arguments -----------------------------------------------------------------------

    def _too_many(self, args: tuple[n.Arg, ...], message: str) -> str:
        values = "(" + "".join(f"{self.expr(a.value)}, " for a in args) + ")"
        return f"_too_many({values}, {message!r})"

    def _bind(self, e: n.Call, params: tuple[n.Param, ...]) -> str:
        """Source of the arguments' dict: the arguments in order, then in the parameters'
        order a text read as an enum member or a default; or, where the call cannot bind,
        the arguments and then the error."""
        w = self.w
        keys: list[str] = []
        for index, arg in enumerate(e.args):
            if arg.name is None and index >= len(params):
                return self._too_many(e.args[:index], "tuple index out of range")
            keys.append(arg.name if arg.name is not None else params[index].name)
        missing = next((p for p in params if p.name not in keys and p.default is None), None)
        if missing is not None:
            evaluated = "(" + "".join(f"{self.expr(a.value)}, " for a in e.args) + ")"
            message = w.const(f"{e.func} needs '{missing.name}'")
            return f"_needs(i, {evaluated}, {message}, {w.const(e.span)})"
        values = [self.expr(a.value) for a in e.args]
        plan: list[tuple[str, int | None, Any]] = []
        for p in params:
            if p.name in keys:
                index = len(keys) - 1 - keys[::-1].index(p.name)  # the last one given wins
                plan.append((p.name, index, enum_param(self.comp.vocab, p, e.span)))
            else:
                plan.append((p.name, None, None))
        given = len(values)  # how many arguments
        in_order = given <= len(plan) and all(
            src == k for k, (_, src, _) in enumerate(plan[:given])
        )
        if in_order and not any(read for _, _, read in plan):
            # the arguments in order, then the defaults (evaluated where the call is made)
            items = [f"{name!r}: {v}" for (name, _, _), v in zip(plan, values, strict=False)]
            items += [f"{p.name!r}: {self.expr(p.default)}" for p in params[given:] if p.default]
            return "{" + ", ".join(items) + "}"
        # the arguments first (there is one at least), then in the parameters' order a text
        # read as a member or a default
        temps = [w.temp() for _ in values]
        first = "(" + "".join(f"({t} := {v}), " for t, v in zip(temps, values, strict=True))
        items = []
        for (name, src, read), p in zip(plan, params, strict=True):
            if src is None:
                assert p.default is not None
                items.append(f"{name!r}: {self.expr(p.default)}")
            elif read is None:
                items.append(f"{name!r}: {temps[src]}")
            else:
                t = temps[src]
                items.append(
                    f"{name!r}: ({t} if type({t}) is not str else {w.const(read)}(i, {t}))"
                )
        return "({" + ", ".join(items) + "} if " + first + ") else None)"
