"""What running an expression may lead to, following calls through the rulebook.

A decision's default is worked out off the record (its events are dropped afterwards), so
it can run without writing events at all, unless it may itself ask the policy: a policy
may look at the trace while it decides. A quiet procedure (a pure helper: no dice, no
decision, no change, no row, no note) leaves no line in the trace when it returns, so
its events need not be made either.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rulekit.book.check_exprs import ENUM_FUNCTIONS, GRAPH_FUNCTIONS
from rulekit.book.rulebook import Rulebook
from rulekit.book.tables import CompiledTable
from rulekit.engine.builtins import BUILTINS
from rulekit.language import nodes as n


def _children(node: Any) -> Iterator[Any]:
    for field in getattr(type(node), "__attrs_attrs__", ()):
        value = getattr(node, field.name)
        if isinstance(value, tuple):
            stack = list(value)
            while stack:
                item = stack.pop()
                if isinstance(item, tuple):
                    stack.extend(item)
                else:
                    yield item
        elif hasattr(type(value), "__attrs_attrs__"):
            yield value


def children(node: Any) -> Iterator[Any]:
    """The nodes directly inside a node (its fields, tuples flattened): for walks outside
    this module (rulekit.analysis.lift)."""
    return _children(node)


def _callee(book: Rulebook, tables: dict[str, CompiledTable], name: str) -> list[Any]:
    """The nodes a call of ``name`` runs: a body, modifier lines, cell actions, defaults."""
    if name in tables:
        table = tables[name]
        actions = [cell.action for _, cell in table.iter_cells() if cell.action is not None]
        if table.default is not None and table.default.action is not None:
            actions.append(table.default.action)
        return [*actions, *table.decl.dims]
    if name in book.modifiers:
        mods = book.modifiers[name]
        return [*mods.lines, *mods.params]
    if name in book.procedures:
        proc = book.procedures[name]
        return [*proc.body, *proc.params]
    decl = book.records.get(name) or book.kinds.get(name)
    return list(decl.fields) if decl is not None else []


def _reaches(
    book: Rulebook, tables: dict[str, CompiledTable], roots: list[Any], found: Any
) -> bool:
    """Whether a node for which ``found`` holds may run from ``roots``, following calls."""
    seen: set[str] = set()
    stack: list[Any] = list(roots)
    while stack:
        node = stack.pop()
        if found(node):
            return True
        if isinstance(node, n.Call) and node.func not in seen:
            seen.add(node.func)
            stack.extend(_callee(book, tables, node.func))
        stack.extend(_children(node))
    return False


def may_decide(book: Rulebook, tables: dict[str, CompiledTable], expr: n.Expr) -> bool:
    """Whether evaluating ``expr`` may run a ``choose`` (and so consult the policy)."""
    return _reaches(book, tables, [expr], lambda node: isinstance(node, n.Choose))


def calls_a_procedure(book: Rulebook, tables: dict[str, CompiledTable], expr: n.Expr) -> bool:
    """Whether evaluating ``expr`` may call a procedure (following calls)."""
    return _reaches(
        book, tables, [expr], lambda node: isinstance(node, n.Call) and node.func in book.procedures
    )


def branches(book: Rulebook, tables: dict[str, CompiledTable], name: str) -> bool:
    """Whether a call of procedure ``name`` may throw dice or ask a decision (following
    the calls it makes; a table with dice of its own throws them)."""
    return _reaches(book, tables, _callee(book, tables, name), _branch_point)


def _branch_point(node: Any) -> bool:
    if isinstance(node, n.Roll | n.Draw | n.Choose):
        return True
    return isinstance(node, n.Dim) and node.dice is not None


def throws(book: Rulebook, tables: dict[str, CompiledTable], expr: n.Expr) -> bool:
    """Whether evaluating ``expr`` may throw dice, draw or decide (following calls)."""
    return _reaches(book, tables, [expr], _branch_point)


def contains(expr: n.Expr | None, kind: type) -> bool:
    """Whether ``expr`` has a node of ``kind`` (not following calls)."""
    stack: list[Any] = [expr] if expr is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, kind):
            return True
        stack.extend(_children(node))
    return False


def quiet(book: Rulebook, tables: dict[str, CompiledTable], name: str) -> bool:
    """Whether procedure ``name`` can only compute: it throws no dice, asks no decision,
    changes nothing, looks up no row, totals no modifier list, writes no note, makes no
    game piece and evaluates no constant that could (following the calls it makes)."""
    seen: set[tuple[str, str]] = {("call", name)}
    proc = book.procedures[name]
    stack: list[Any] = [*proc.body, *proc.params]
    while stack:
        node = stack.pop()
        if isinstance(node, n.Roll | n.Draw | n.Choose | n.NoteStmt | n.EndTurn):
            return False
        if isinstance(node, n.Str) and "{" in node.value:
            return False  # a placeholder may name a constant
        if isinstance(node, n.Assign) and (
            len(node.target) > 1 or node.target[0] in book.states or node.target[0] in book.tracks
        ):
            return False
        if isinstance(node, n.Name) and _first_reading_steps(book, node.id):
            return False  # read again after a failure, it would take fewer steps
        if isinstance(node, n.Call) and ("call", node.func) not in seen:
            seen.add(("call", node.func))
            func = node.func
            if func in tables or func in book.modifiers or func in book.kinds:
                return False
            if func in book.procedures or func in book.records:
                stack.extend(_callee(book, tables, func))
            elif func not in ENUM_FUNCTIONS and func not in BUILTINS:
                return False  # a graph function notes its result
        stack.extend(_children(node))
    return True


def pure(
    book: Rulebook, tables: dict[str, CompiledTable], expr: n.Expr, dice: bool = False
) -> bool:
    """Whether evaluating ``expr`` can only compute (and throw dice, with ``dice``),
    following the calls it makes (bodies, modifier lines, tables' dimensions and follow-up
    actions) and the values of the constants it may read first: no draw, decision or
    ``end turn``, no dice unless allowed, no change to a
    state variable, track or game piece, no new game piece. While it runs nothing the game
    holds changes, so a procedure called again with the same arguments gives the same
    result in as many steps (rulekit.engine.memo). Its notes are never recorded: a default
    that decides nothing runs muted, and a default's events are dropped anyway."""
    from rulekit.book.check_exprs import placeholders

    seen: set[str] = set()
    stack: list[Any] = [expr]

    def read(name: str) -> None:
        if name in book.consts and f"const {name}" not in seen:
            seen.add(f"const {name}")
            stack.append(book.consts[name].value)

    while stack:
        node = stack.pop()
        if isinstance(node, n.Draw | n.Choose | n.EndTurn):
            return False
        if not dice and (
            isinstance(node, n.Roll) or (isinstance(node, n.Dim) and node.dice is not None)
        ):
            return False  # a throw, or a table that throws its own dice
        if isinstance(node, n.Assign) and (
            len(node.target) > 1 or node.target[0] in book.states or node.target[0] in book.tracks
        ):
            return False
        if isinstance(node, n.Name):
            read(node.id)
        elif isinstance(node, n.Str) and "{" in node.value:
            for dotted in placeholders(node.value):
                read(dotted.split(".")[0])
        elif isinstance(node, n.Call) and node.func not in seen:
            seen.add(node.func)
            func = node.func
            known = func in tables or func in book.modifiers or func in book.procedures
            if not known and func in book.kinds and func not in book.records:
                return False  # a new game piece is numbered
            stack.extend(_callee(book, tables, func))
        stack.extend(_children(node))
    return True


def _first_reading_steps(book: Rulebook, name: str) -> bool:
    """Whether reading constant ``name`` the first time makes calls (which count steps)."""
    seen: set[str] = set()
    stack: list[Any] = [name]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if node in book.consts and node not in seen:
                seen.add(node)
                stack.append(book.consts[node].value)
            continue
        if isinstance(node, n.Call) or (isinstance(node, n.Str) and "{" in node.value):
            return True
        if isinstance(node, n.Name):
            stack.append(node.id)
        stack.extend(_children(node))
    return False


def _literal(expr: n.Expr) -> bool:
    """Whether ``expr`` is written with literals only (no name, call or placeholder)."""
    stack: list[Any] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, n.Name | n.Call | n.Roll | n.Draw | n.Aggregate | n.ListComp):
            return False
        if isinstance(node, n.Str) and "{" in node.value:
            return False
        stack.extend(_children(node))
    return True


def names_reached(book: Rulebook, tables: dict[str, CompiledTable], roots: list[Any]) -> set[str]:
    """Every name the nodes may mention, following calls: identifiers, targets of
    assignments, the ``{x}`` of texts (an over-estimate: any text field of a node counts)."""
    return _mentioned(book, tables, roots, False)


def names_read(book: Rulebook, tables: dict[str, CompiledTable], roots: list[Any]) -> set[str]:
    """Every name the nodes may read, following calls: as names_reached, but the name a
    ``let`` binds and the variable an assignment writes (``x = ...``, ``x += ...``; not the
    piece of ``p.x = ...``) are not reads. A variable reached but not read only counts
    (a round number): nothing it holds can change what happens (exact analysis merges
    situations that differ only in it)."""
    return _mentioned(book, tables, roots, True)


def _mentioned(
    book: Rulebook, tables: dict[str, CompiledTable], roots: list[Any], reads_only: bool
) -> set[str]:
    from rulekit.book.check_exprs import placeholders

    seen: set[str] = set()
    found: set[str] = set()
    stack: list[Any] = list(roots)
    while stack:
        node = stack.pop()
        for field in getattr(type(node), "__attrs_attrs__", ()):
            if reads_only and _writes(node, field.name):
                continue
            value = getattr(node, field.name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, str):
                    found.add(item)
                    if "{" in item:
                        found.update(p.split(".")[0] for p in placeholders(item))
        if isinstance(node, n.Call) and node.func not in seen:
            seen.add(node.func)
            stack.extend(_callee(book, tables, node.func))
        stack.extend(_children(node))
    return found


def counters(
    book: Rulebook, tables: dict[str, CompiledTable], roots: list[Any]
) -> dict[str, n.Span]:
    """The variables the nodes only ever count up with (every assignment to one is ``x +=
    N`` with a positive number N, following calls), each with its first such assignment:
    a round number. Where one is read, nothing may merge the situations it tells apart."""
    seen: set[str] = set()
    found: dict[str, n.Span] = {}
    other: set[str] = set()
    stack: list[Any] = list(roots)
    while stack:
        node = stack.pop()
        if isinstance(node, n.Assign) and len(node.target) == 1:
            name, value = node.target[0], node.value
            up = isinstance(value, n.Num) and (
                (node.op == "+=" and value.value > 0) or (node.op == "-=" and value.value < 0)
            )
            if up:
                found.setdefault(name, node.span)
            else:
                other.add(name)
        if isinstance(node, n.Call) and node.func not in seen:
            seen.add(node.func)
            stack.extend(_callee(book, tables, node.func))
        stack.extend(_children(node))
    return {name: span for name, span in found.items() if name not in other}


def _writes(node: Any, field: str) -> bool:
    """Whether a node's field names what it binds or writes, not what it reads."""
    if isinstance(node, n.Let):
        return field == "name"
    return isinstance(node, n.Assign) and field == "target" and len(node.target) == 1


_PLAIN_RESULTS = frozenset({"int", "bool", "none"})


def _value_type(typ: Any, results: bool) -> bool:
    """Whether values of ``typ`` are plain and immutable (ints, bools, members...): a call's
    arguments of such types fully say what it can read. A result may not be a member or a
    text: one given as an argument could come back worded otherwise than a fresh run's.
    Not both an int and a bool: 1 and true would be the same argument."""
    from rulekit.book import types as t

    options = typ.options if isinstance(typ, t.UnionT) else (typ,)
    names = {o.name for o in options if isinstance(o, t.Prim)}
    if {"int", "bool"} <= names:
        return False
    allowed = _PLAIN_RESULTS if results else _PLAIN_RESULTS | {"text"}
    return all(
        (isinstance(o, t.Prim) and o.name in allowed)
        or (isinstance(o, t.EnumT) and not results)
        or (isinstance(o, t.ListT) and not results and _value_type(o.item, False))
        for o in options
    )


def remembered_depth(
    book: Rulebook, tables: dict[str, CompiledTable], type_of: Any, name: str
) -> tuple[int, tuple[str, ...]] | None:
    """How deep the calls of procedure ``name`` nest, and the state variables and tracks it
    reads, when its result may be remembered for the rest of the game by its arguments and
    the values of those: its arguments, those values and its result are plain values (an
    int, a member, a list of members...), it reads no game piece (none can reach it), throws
    no dice, asks nothing, changes and makes nothing (following its calls; tables with no
    dice or follow-up of their own). None when it may not be remembered, or calls itself."""
    depth: dict[str, int] = {}
    reads: set[str] = set()

    def walk(proc_name: str, path: tuple[str, ...]) -> int | None:
        if proc_name in path:
            return None  # recursion: its depth depends on its arguments
        if proc_name in depth:
            return depth[proc_name]
        decl = book.procedures[proc_name]
        if decl.returns is None or not _value_type(type_of(decl.returns), True):
            return None
        if any(p.type is None or not _value_type(type_of(p.type), False) for p in decl.params):
            return None
        deepest = 0
        stack: list[Any] = [*decl.body, *decl.params]
        while stack:
            node = stack.pop()
            if isinstance(node, n.Roll | n.Draw | n.Choose | n.NoteStmt | n.EndTurn):
                return None
            if isinstance(node, n.Str) and "{" in node.value:
                return None
            if isinstance(node, n.Assign) and (
                len(node.target) > 1
                or node.target[0] in book.states
                or node.target[0] in book.tracks
            ):
                return None
            if isinstance(node, n.Name) and node.id in book.states:
                state = book.states[node.id]
                if state.provenance is not None:
                    return None  # noted as used only while the game has not set it
                if not _value_type(type_of(state.type), False):
                    return None
                reads.add(node.id)
            elif isinstance(node, n.Name) and node.id in book.tracks:
                reads.add(node.id)
            elif (
                isinstance(node, n.Name)
                and node.id in book.consts
                and not _literal(book.consts[node.id].value)
            ):
                return None
            if isinstance(node, n.Call):
                func = node.func
                if func in tables:
                    if not _fixed_table(tables[func]):
                        return None
                elif func in book.procedures:
                    inner = walk(func, (*path, proc_name))
                    if inner is None:
                        return None
                    deepest = max(deepest, inner + 1)
                elif (
                    func not in BUILTINS
                    and func not in ENUM_FUNCTIONS
                    and func not in GRAPH_FUNCTIONS
                ):
                    return None  # modifier lists, game pieces, records: not followed
            stack.extend(_children(node))
        depth[proc_name] = deepest
        return deepest

    found = walk(name, ())
    if found is None or not costly(book, tables, name):
        return None
    return found, tuple(sorted(reads))


def costly(book: Rulebook, tables: dict[str, CompiledTable], name: str) -> bool:
    """Whether a call of procedure ``name`` may cost more than looking its result up: it
    loops, calls or looks something up (a few comparisons cost less than the look-up)."""
    stack: list[Any] = list(book.procedures[name].body)
    while stack:
        node = stack.pop()
        if isinstance(node, n.ForEach | n.While | n.ListComp | n.Aggregate):
            return True
        if isinstance(node, n.Call) and (
            node.func in book.procedures or node.func in tables or node.func in GRAPH_FUNCTIONS
        ):
            return True
        stack.extend(_children(node))
    return False


def _fixed_table(table: CompiledTable) -> bool:
    """Whether a look-up in ``table`` gives the same for the same keys: no dice of its own,
    no follow-up action (a graph's search trees are kept with it, the same either way)."""
    if any(d.kind == "roll" for d in table.decl.dims):
        return False
    if table.default is not None and table.default.action is not None:
        return False
    return all(cell.action is None for _, cell in table.iter_cells())
