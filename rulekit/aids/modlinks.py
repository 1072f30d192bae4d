"""Which modifier lists belong beside which table on a chart card.

A printed chart shows its die-roll modifiers next to it. The data does not say so in one
place, so each list is attached by what the rules do with it, strongest reason first:

1. the table's own roll adds it (``roll 2d6 + aircraft_drm()``);
2. a procedure rolls on the table with a roll that adds it, written in the call
   (``attack_results(t, roll: roll d10 + to_hit_drm(...))``) or through a ``let`` holding
   the roll that the call then uses;
3. it is declared under the table's very rule reference (``fire_drm [S1]`` beside the
   Fire Chart ``[S1]``; ``search_drm [13.1 A]`` is not put beside ``[13.1 B]``).

Each attachment keeps its reason, which the card prints under the box.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from attrs import frozen

from rulekit.book.rulebook import Rulebook
from rulekit.language import nodes as n


@frozen
class Link:
    """A modifier list attached to a table, and why."""

    modifiers: str
    how: str


def _children(node: Any) -> Iterator[Any]:
    """The attrs nodes directly inside a node (tuples flattened)."""
    for f in getattr(type(node), "__attrs_attrs__", ()):
        value = getattr(node, f.name)
        stack = list(value) if isinstance(value, tuple) else [value]
        while stack:
            item = stack.pop(0)
            if isinstance(item, tuple):
                stack[0:0] = list(item)
            elif hasattr(type(item), "__attrs_attrs__"):
                yield item


def _walk(node: Any) -> Iterator[Any]:
    if isinstance(node, tuple):  # a body: its statements
        for item in node:
            yield from _walk(item)
        return
    yield node
    for child in _children(node):
        yield from _walk(child)


def _mods_in(rolls: list[n.RollMod], book: Rulebook) -> list[str]:
    """Modifier lists called in the modifiers of a roll, in order."""
    found: list[str] = []
    for mod in rolls:
        for node in _walk(mod.value):
            if isinstance(node, n.Call) and node.func in book.modifiers and node.func not in found:
                found.append(node.func)
    return found


def _roll_mods(expr: Any, lets: dict[str, n.Expr], book: Rulebook) -> list[str]:
    """Modifier lists added to any roll in an expression, following local ``let`` names."""
    found: list[str] = []
    for node in _walk(expr):
        if isinstance(node, n.Roll):
            found += [m for m in _mods_in(list(node.mods), book) if m not in found]
        elif isinstance(node, n.Name) and node.id in lets:
            target = lets.pop(node.id)  # popped: a let read twice is followed once
            found += [m for m in _roll_mods(target, lets, book) if m not in found]
    return found


def _lets(body: tuple[n.Stmt, ...]) -> dict[str, n.Expr]:
    lets: dict[str, n.Expr] = {}
    for node in _walk(body):
        if isinstance(node, n.Let):
            lets.setdefault(node.name, node.value)
    return lets


def _ref(ref: n.RuleRef | None) -> str:
    return f" [{ref.text}]" if ref else ""


def modifier_links(book: Rulebook) -> dict[str, list[Link]]:
    """For each table name, the modifier lists printed beside it, each with its reason."""
    links: dict[str, list[Link]] = {name: [] for name in book.tables}

    def add(table: str, mods: str, how: str) -> None:
        if all(link.modifiers != mods for link in links[table]):
            links[table].append(Link(mods, how))

    for name, table in book.tables.items():
        for dim in table.dims:
            if dim.kind == "roll":
                for mods in _mods_in(list(dim.mods), book):
                    add(name, mods, "added to the table's own roll")
    for proc in book.procedures.values():
        for node in _walk(proc.body):
            if not (isinstance(node, n.Call) and node.func in book.tables):
                continue
            for arg in node.args:
                for mods in _roll_mods(arg.value, _lets(proc.body), book):
                    add(
                        node.func,
                        mods,
                        # the procedure by its title, as a player knows it, not its code
                        f"added to the roll that {_procedure(proc)}{_ref(proc.ref)} "
                        "makes on this table",
                    )
    for name, table in book.tables.items():
        if table.ref is None:
            continue
        for decl in book.modifiers.values():
            if decl.ref is not None and decl.ref.text == table.ref.text:
                add(name, decl.name, f"declared under the same rule [{table.ref.text}]")
    return links


def _procedure(proc: n.ProcedureDecl) -> str:
    """A procedure as a card names it: its title, else its name in words."""
    return proc.title or "procedure " + proc.name.replace("_", " ")
