"""A checked rulebook's generated code, kept with it and shared by every interpreter that
runs it (not one game's: no state here).

Each procedure, modifier list and expression run in whatever frame is current (a phase of
the sequence of play, a table's follow-up action, a constant's value, a call made through
Interpreter.call) becomes generated Python source (rulekit.engine.codegen) on first use.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rulekit.book.checker import Checked
from rulekit.book.tables import CompiledTable
from rulekit.engine import codegen, codegen_mods, codegen_runtime
from rulekit.engine.codegen import Slot
from rulekit.engine.lookups import Lookup, enum_members
from rulekit.engine.procedures import Procedure
from rulekit.engine.values import MarkerValue
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.interpreter import Interpreter

Code = Callable[["Interpreter"], Any]
ModifierCode = Callable[["Interpreter", dict[str, Any]], Any]

_PROGRAMS: dict[int, Program] = {}


def program_for(checked: Checked) -> Program:
    """The generated code of one checked rulebook, shared by every interpreter running it."""
    key = id(checked)
    program = _PROGRAMS.get(key)
    if program is None or program.owner() is not checked:
        program = _PROGRAMS[key] = Program(checked)
        weakref.finalize(checked, _PROGRAMS.pop, key, None)
    return program


class Program:
    """Generates and keeps the functions of one rulebook, each on first use."""

    def __init__(self, checked: Checked) -> None:
        self.owner = weakref.ref(checked)
        self.book = checked.book
        self.vocab = checked.vocab
        self.tables = checked.tables
        self.dice = checked.dice
        self.members = checked.members
        self.rounding = checked.rounding
        self.procedures: dict[str, Procedure] = {}
        self.modifiers: dict[str, ModifierCode] = {}
        # each procedure's [traced, untraced] functions, generated on first use
        self.generated: dict[str, list[codegen_runtime.Generated | None]] = {}
        self.locals_of: dict[str, frozenset[str]] = {}  # codegen.may_be_local, by procedure
        # procedures cut into resumable blocks for exact analysis (codegen_blocks)
        self.block_programs: dict[str, Any] = {}
        # what exact analysis found out about a target: whether it only computes and throws
        self.analysis_facts: dict[Any, Any] = {}
        # expressions run in any frame, by node (kept: its id stays its own), calls made
        # through Interpreter.call, constants, the rolls of tables called without one
        self._expressions: dict[int, tuple[object, Code]] = {}
        self._given: dict[tuple[str, tuple[str, ...]], Code] = {}
        self._const_sites: dict[str, codegen_runtime.ConstSite] = {}
        self._rolls: dict[tuple[int, n.Span], tuple[object, Code]] = {}
        self._table_rolls: dict[tuple[str, n.Span], Code] = {}
        self._lookups: dict[str, Lookup] = {}
        fields: dict[str, set[str]] = {}
        for kind in self.book.kinds.values():
            for f in kind.fields:
                if f.provenance is not None:
                    fields.setdefault(f.name, set()).add(kind.name)
        self._provisional = {name: frozenset(kinds) for name, kinds in fields.items()}

    # ---- what interpreters and generated code ask for ------------------------------------

    def expression(self, node: Any) -> Code:
        """The generated function of an expression run in whatever frame is current."""
        hit = self._expressions.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        code = codegen.expression(self, node).function
        self._expressions[id(node)] = (node, code)
        return code

    def given_call(self, name: str, keys: tuple[str, ...]) -> Code:
        """``Interpreter.call``: a call of ``name`` whose arguments are ``interp.given``."""
        code = self._given.get((name, keys))
        if code is None:
            args = tuple(n.Arg(Slot(i), key) for i, key in enumerate(keys))  # type: ignore[arg-type]
            call = n.Call(name, args)
            code = self._given[(name, keys)] = codegen.expression(self, call, True).function
        return code

    def roll(self, spec: n.DiceSpec, mods: tuple[n.RollMod, ...], span: n.Span) -> Code:
        """A roll of ``spec`` with ``mods``, as written at ``span``."""
        key = (id(spec), span)
        hit = self._rolls.get(key)
        if hit is not None and hit[0] is spec:
            return hit[1]
        code = codegen.expression(self, n.Roll(spec, mods, span=span)).function
        self._rolls[key] = (spec, code)
        return code

    def table_roll(self, table: CompiledTable, span: n.Span) -> Code:
        """The roll a table throws when called at ``span`` without one."""
        key = (table.name, span)
        code = self._table_rolls.get(key)
        if code is None:
            dim = next(d for d in table.dims if d.kind == "roll")
            assert dim.decl.dice is not None
            code = self._table_rolls[key] = self.roll(dim.decl.dice, dim.decl.mods, span)
        return code

    def lookup(self, table: CompiledTable) -> Lookup:
        found = self._lookups.get(table.name)
        if found is None:
            found = self._lookups[table.name] = Lookup(table, self)
        return found

    def const_site(self, name: str) -> codegen_runtime.ConstSite:
        site = self._const_sites.get(name)
        if site is None:
            decl = self.book.consts[name]
            site = self._const_sites[name] = codegen_runtime.ConstSite(self, decl)
        return site

    def procedure(self, name: str) -> Procedure:
        code = self.procedures.get(name)
        if code is None:
            code = self.procedures[name] = Procedure(self, self.book.procedures[name])
        return code

    def body(self, decl: n.ProcedureDecl) -> codegen.Body:
        """A procedure's body: its traced or untraced function, as ``i.muted`` says."""
        return codegen.procedure_body(self, decl)

    def modifier(self, name: str) -> ModifierCode:
        code = self.modifiers.get(name)
        if code is None:
            decl = self.book.modifiers[name]
            code = self.modifiers[name] = codegen_mods.modifier_list(self, decl).function
        return code

    def fallback_value(self, i: Interpreter, name: str, span: n.Span) -> Any:
        """The value of a name that is neither a local nor a state variable: a constant,
        a marker, an enum (all its members), or no value at all."""
        book = self.book
        if name in book.consts:
            return codegen_runtime._const(i, self.const_site(name))
        if name in book.markers:
            marker = book.markers[name]
            return MarkerValue(marker.name, marker.symbol)
        if name in book.enums:
            return enum_members(self.vocab, name, len(book.enums[name].members))
        raise i.fail(f"'{name}' has no value here", span)

    def provisional_kinds(self, attr: str) -> frozenset[str]:
        """The kinds whose attribute ``attr`` is provisional."""
        return self._provisional.get(attr, frozenset())

    def text(self, span: n.Span) -> str:
        """The expression as written in the rulebook (for modifier labels)."""
        line = self.book.sources.line(span.file, span.line)
        if line is None or span.end_line != span.line:
            return "modifier"
        return line[span.column - 1 : span.end_column - 1].strip()
