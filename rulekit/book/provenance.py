"""Provenance, value by value: printed, derived from a worked example, or provisional.

A rulebook's values come from three places. Most are printed in the source's charts and
rules: they are plain data. Some are printed only through a worked example (a card's
rating that an example turn states): those carry ``derived "where"``. The rest the source
does not print at all, yet the game needs them: those are provisional, marked ``~`` (with
``~"why" value`` for a reason of their own) or ``provisional "why"`` on a whole table,
constant, state variable or field.

:func:`survey` counts them declaration by declaration, leaf value by leaf value (each
number or word of a cell, each item of a list or record), and lists every provisional
value with its place and reason, for ``rulekit check --provenance`` and ``--json``.
"""

from __future__ import annotations

from collections.abc import Iterator

from attrs import frozen

from rulekit.book.rulebook import Rulebook
from rulekit.language import nodes as n

PRINTED, DERIVED, PROVISIONAL = "printed", "derived", "provisional"

# The reason given for a value marked only with "~".
UNMARKED_REASON = "not printed in the source (marked ~)"


@frozen
class Mark:
    """One provisional value: where it is, what it is, and why it is not printed."""

    what: str
    span: n.Span
    reason: str


@frozen
class Entry:
    """The provenance of one declaration's values."""

    kind: str  # table, const, state, field
    name: str
    span: n.Span
    printed: int
    derived: int
    provisional: int
    cite: str | None  # the worked example that derived values come from
    marks: tuple[Mark, ...]

    @property
    def total(self) -> int:
        return self.printed + self.derived + self.provisional


def _leaves(
    cell: n.Cell | None, status: str, reason: str, marked: str = UNMARKED_REASON
) -> Iterator[tuple[str, n.Span, str]]:
    """Each leaf value of a cell with its status and reason (for a derived value, the
    example it cites); ``~`` and ``derived`` marks reach inwards. ``marked`` is the reason
    of a ``~`` that gives none (the table's ``marked "why"``)."""
    if cell is None:
        return
    if isinstance(cell, n.CellProvisional):
        yield from _leaves(cell.value, PROVISIONAL, cell.reason or marked, marked)
    elif isinstance(cell, n.CellDerived):
        yield from _leaves(cell.value, DERIVED, cell.cite, marked)
    elif isinstance(cell, n.CellTuple | n.CellList):
        for item in cell.items:
            yield from _leaves(item, status, reason, marked)
    elif isinstance(cell, n.CellRecord):
        for _, item in cell.pairs:
            yield from _leaves(item, status, reason, marked)
    elif isinstance(cell, n.CellAction):
        yield from _leaves(cell.value, status, reason, marked)
    else:
        yield status, cell.span, reason


def _values_of(line: n.TableLine) -> list[n.Cell | None]:
    """The cells of a table line that hold values, not keys.

    A header line (its first cell empty) holds column keys; otherwise a line of several
    items starts with its row key, unless every item is ``key: value``.
    """
    items = list(line.items)
    if items[0].key is None and items[0].value is None:
        return []
    if len(items) > 1 and items[0].key is None:
        items = items[1:]
    return [item.value for item in items]


def _table(decl: n.TableDecl) -> Entry:
    if decl.provenance is not None:
        status, reason = PROVISIONAL, decl.provenance.reason or UNMARKED_REASON
    elif decl.derived is not None:
        status, reason = DERIVED, ""
    else:
        status, reason = PRINTED, ""
    counts = {PRINTED: 0, DERIVED: 0, PROVISIONAL: 0}
    marks: list[Mark] = []
    cites: dict[str, None] = {decl.derived.cite: None} if decl.derived is not None else {}
    cells = [cell for line in decl.lines for cell in _values_of(line)]
    marked = decl.marked or UNMARKED_REASON
    for cell in [*cells, decl.default]:
        for leaf_status, span, why in _leaves(cell, status, reason, marked):
            counts[leaf_status] += 1
            if leaf_status == PROVISIONAL:
                marks.append(Mark(f"table {decl.name}, line {span.line}", span, why))
            elif leaf_status == DERIVED and why:
                cites.setdefault(why)
    cite = "; ".join(cites) or None
    return Entry(
        "table",
        decl.name,
        decl.span,
        counts[PRINTED],
        counts[DERIVED],
        counts[PROVISIONAL],
        cite,
        tuple(marks),
    )


def cell_reasons(decl: n.TableDecl) -> str:
    """The reasons a table's ``~`` cells give, each once ("cells marked ~" when none does)."""
    reasons: dict[str, None] = {}
    for mark in _table(decl).marks:
        reasons.setdefault(mark.reason)
    reasons.pop(UNMARKED_REASON, None)
    return "; ".join(["cells marked ~", *reasons] if reasons else ["cells marked ~"])


def _single(kind: str, name: str, decl: n.ConstDecl | n.StateDecl | n.FieldDecl) -> Entry:
    if decl.provenance is not None:
        mark = Mark(f"{kind} {name}", decl.span, decl.provenance.reason or UNMARKED_REASON)
        return Entry(kind, name, decl.span, 0, 0, 1, None, (mark,))
    if decl.derived is not None:
        return Entry(kind, name, decl.span, 0, 1, 0, decl.derived.cite, ())
    return Entry(kind, name, decl.span, 1, 0, 0, None, ())


def survey(book: Rulebook) -> list[Entry]:
    """Every table, constant, state variable and field of kinds, in the order of the files."""
    entries = [_table(t) for t in book.tables.values()]
    entries += [_single("const", c.name, c) for c in book.consts.values()]
    entries += [_single("state", s.name, s) for s in book.states.values()]
    for kind in book.kinds.values():
        for f in kind.fields:
            if f.default is not None:
                entries.append(_single("field", f"{kind.name}.{f.name}", f))
    return sorted(entries, key=lambda e: (e.span.file, e.span.line, e.span.column))


def totals(entries: list[Entry]) -> dict[str, int]:
    """Values printed, derived and provisional over all the entries."""
    return {
        PRINTED: sum(e.printed for e in entries),
        DERIVED: sum(e.derived for e in entries),
        PROVISIONAL: sum(e.provisional for e in entries),
    }
