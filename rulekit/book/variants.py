"""Variants and optional rules: changes, given as data, applied to a loaded rulebook.

A variant file (``variant "..." extends "PATH"``) and an option block (``option NAME``) hold
the same changes: replace or remove a declaration, set table cells or rows, add, remove or
change a modifier line, remove, insert or move a phase, set a constant, the rounding or a
die, switch on an option. Each change cites its rule. A change aimed at something the base
does not have is an error at the change, with a suggestion.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from attrs import evolve, fields

from rulekit.book.rulebook import DECL_KINDS, Rulebook
from rulekit.errors import Diagnostic, did_you_mean, error
from rulekit.language import nodes as n

# `remove KIND NAME` words -> the rulebook's dictionaries
_REMOVABLE = {
    "table": "tables",
    "procedure": "procedures",
    "modifiers": "modifiers",
    "const": "consts",
    "state": "states",
    "sequence": "sequences",
}


def copy_book(book: Rulebook) -> Rulebook:
    """A rulebook whose dictionaries and lists may change without touching the original."""
    changes: dict[str, Any] = {}
    for attribute in fields(Rulebook):
        value = getattr(book, attribute.name)
        if isinstance(value, dict):
            changes[attribute.name] = {
                k: (list(v) if isinstance(v, list) else v) for k, v in value.items()
            }
        elif isinstance(value, list):
            changes[attribute.name] = list(value)
    return evolve(book, **changes)


class Overlay:
    """Applies changes to one rulebook, collecting every problem before reporting."""

    def __init__(self, book: Rulebook) -> None:
        self.book = book
        self.errors: list[Diagnostic] = []
        self.using: list[str] = []  # options being applied, to stop a cycle

    def apply(self, change: n.Change) -> None:
        if not _cited(change):
            self.errors.append(
                error(
                    "a change cites the rule it comes from",
                    change.span,
                    hint="add a rule reference such as [14.12] to the line",
                )
            )
            return
        if isinstance(change, n.Replace):
            self._replace(change)
        elif isinstance(change, n.Remove):
            self._remove(change)
        elif isinstance(change, n.SetCells):
            self._set_cells(change)
        elif isinstance(change, n.SetSetting):
            self._set(change)
        elif isinstance(change, n.ModifierChange):
            self._modifier(change)
        elif isinstance(change, n.PhaseChange):
            self._phase(change)
        else:
            self.use_option(change.name, change.span)

    def use_option(self, name: str, span: n.Span | None, where: str | None = None) -> None:
        option = self.book.options.get(name)
        if option is None:
            hint = did_you_mean(name, self.book.options) or (
                f"its options are: {', '.join(self.book.options)}"
                if self.book.options
                else "this rulebook offers no options"
            )
            self.errors.append(
                error(f"no option '{name}' in {self.book.name}", span, hint=hint, where=where)
            )
            return
        if name in self.using:
            self.errors.append(error(f"option '{name}' uses itself", span, where=where))
            return
        if name in self.book.options_on:
            return
        self.using.append(name)
        for change in option.changes:
            self.apply(change)
        self.using.pop()
        self.book.options_on.append(name)

    # ---- declarations ---------------------------------------------------------------

    def _missing(self, what: str, name: str, known: Iterable[str], span: n.Span) -> None:
        self.errors.append(
            error(
                f"there is no {what} '{name}' in {self.book.name} to change",
                span,
                hint=did_you_mean(name, known),
            )
        )

    def _replace(self, change: n.Replace) -> None:
        decl = change.decl
        attr = "sequences" if isinstance(decl, n.SequenceDecl) else DECL_KINDS[type(decl)]
        pool = getattr(self.book, attr)
        name = decl.name  # type: ignore[union-attr]
        if name not in pool:
            self._missing(attr.rstrip("s"), name, pool, change.span)
            return
        pool[name] = decl

    def _remove(self, change: n.Remove) -> None:
        pool = getattr(self.book, _REMOVABLE[change.kind])
        if change.name not in pool:
            self._missing(change.kind, change.name, pool, change.span)
            return
        del pool[change.name]

    def _set_cells(self, change: n.SetCells) -> None:
        if change.table not in self.book.tables:
            self._missing("table", change.table, self.book.tables, change.span)
            return
        self.book.patches.setdefault(change.table, []).append(change)

    def _set(self, change: n.SetSetting) -> None:
        decl = change.decl
        if isinstance(decl, n.Rounding):
            self.book.rounding = decl
        elif isinstance(decl, n.DiceDecl):
            if decl.name not in self.book.dice:
                self._missing("die", decl.name, self.book.dice, change.span)
                return
            self.book.dice[decl.name] = decl
        else:
            old = self.book.consts.get(decl.name)
            if old is None:
                self._missing("const", decl.name, self.book.consts, change.span)
                return
            self.book.consts[decl.name] = evolve(
                old,
                value=decl.value,
                ref=decl.ref,
                title=decl.title or old.title,
                provenance=decl.provenance,
            )

    # ---- modifier lines -------------------------------------------------------------

    def _modifier(self, change: n.ModifierChange) -> None:
        decl = self.book.modifiers.get(change.modifiers)
        if decl is None:
            self._missing("modifier list", change.modifiers, self.book.modifiers, change.span)
            return
        lines = list(decl.lines)
        if change.action == "add":
            lines.extend(change.lines)
        else:
            assert change.line is not None
            found = [i for i, line in enumerate(lines) if _names(line, change.line)]
            if len(found) != 1:
                labels = [line.label or (line.ref.text if line.ref else "") for line in lines]
                problem = "no line" if not found else "more than one line"
                self.errors.append(
                    error(
                        f"{problem} '{change.line}' in modifiers {change.modifiers}",
                        change.span,
                        hint=did_you_mean(change.line, labels)
                        or f"its lines are: {', '.join(repr(x) for x in labels)}",
                    )
                )
                return
            if change.action == "remove":
                del lines[found[0]]
            else:
                lines[found[0]] = change.lines[0]
        self.book.modifiers[change.modifiers] = evolve(decl, lines=tuple(lines))

    # ---- the sequence of play -------------------------------------------------------

    def _phase(self, change: n.PhaseChange) -> None:
        phases = sorted(
            {p for seq in self.book.sequences.values() for p in _phase_names(seq.items)}
        )
        wanted = change.anchor if change.action == "insert" else change.phase
        touched = 0
        for name, seq in list(self.book.sequences.items()):
            items = seq.items
            if change.action in ("remove", "move") and change.phase in _phase_names(items):
                moved = _find(items, change.phase)
                items = _without(items, change.phase)
                if change.action == "move":
                    assert moved is not None and change.anchor is not None
                    if change.anchor not in _phase_names(items):
                        self.errors.append(
                            error(
                                f"sequence {name} has no phase '{change.anchor}' to move "
                                f"{change.phase} {change.place}",
                                change.span,
                                hint=did_you_mean(change.anchor, _phase_names(items)),
                            )
                        )
                        return
                    items = _inserted(items, moved, change.anchor, change.place == "before")
                touched += 1
            elif change.action == "insert" and change.anchor in _phase_names(items):
                assert change.call is not None
                phase = n.SeqPhase(change.call, change.ref, change.title, span=change.span)
                items = _inserted(items, phase, change.anchor, change.place == "before")
                touched += 1
            self.book.sequences[name] = evolve(seq, items=items)
        if not touched:
            self.errors.append(
                error(
                    f"no sequence of play has a phase '{wanted}'",
                    change.span,
                    hint=did_you_mean(wanted or "", phases),
                )
            )


def _cited(change: n.Change) -> bool:
    if isinstance(change, n.Replace):
        return getattr(change.decl, "ref", None) is not None
    if isinstance(change, n.SetSetting):
        return change.decl.ref is not None
    if isinstance(change, n.ModifierChange) and change.action != "remove":
        return all(line.ref is not None for line in change.lines)
    return change.ref is not None


def _names(line: n.ModLine, text: str) -> bool:
    return line.label == text or (line.ref is not None and line.ref.text == text)


def _phase_names(items: tuple[n.SeqItem, ...]) -> list[str]:
    out: list[str] = []
    for item in items:
        if isinstance(item, n.SeqPhase):
            out.append(item.call.func)
        else:
            out.extend(_phase_names(item.items))
    return out


def _find(items: tuple[n.SeqItem, ...], phase: str) -> n.SeqPhase | None:
    for item in items:
        if isinstance(item, n.SeqPhase):
            if item.call.func == phase:
                return item
        else:
            found = _find(item.items, phase)
            if found is not None:
                return found
    return None


def _without(items: tuple[n.SeqItem, ...], phase: str) -> tuple[n.SeqItem, ...]:
    out: list[n.SeqItem] = []
    for item in items:
        if isinstance(item, n.SeqPhase):
            if item.call.func != phase:
                out.append(item)
        else:
            out.append(evolve(item, items=_without(item.items, phase)))
    return tuple(out)


def _inserted(
    items: tuple[n.SeqItem, ...], phase: n.SeqPhase, anchor: str, before: bool
) -> tuple[n.SeqItem, ...]:
    out: list[n.SeqItem] = []
    for item in items:
        if isinstance(item, n.SeqPhase):
            if item.call.func == anchor and before:
                out.append(phase)
            out.append(item)
            if item.call.func == anchor and not before:
                out.append(phase)
        else:
            out.append(evolve(item, items=_inserted(item.items, phase, anchor, before)))
    return tuple(out)
