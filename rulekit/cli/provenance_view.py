"""`rulekit check --provenance`: how much of a rulebook is the publisher's and how much ours."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from rulekit.book.provenance import Entry, survey, totals
from rulekit.book.rulebook import Rulebook


def provenance_json(book: Rulebook) -> dict[str, Any]:
    """Counts per declaration and every provisional value with its place and reason."""
    entries = survey(book)
    return {
        "totals": totals(entries),
        "declarations": [
            {
                "kind": e.kind,
                "name": e.name,
                "file": e.span.file,
                "line": e.span.line,
                "printed": e.printed,
                "derived": e.derived,
                "provisional": e.provisional,
                "derived_from": e.cite,
            }
            for e in entries
        ],
        "provisional_each": [
            {
                "what": m.what,
                "file": m.span.file,
                "line": m.span.line,
                "column": m.span.column,
                "reason": m.reason,
            }
            for e in entries
            for m in e.marks
        ],
    }


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def _reasons(entry: Entry) -> str:
    seen: dict[str, None] = {}
    for mark in entry.marks:
        seen.setdefault(mark.reason)
    parts = [f"from {entry.cite}"] if entry.cite else []
    return "; ".join([*parts, *seen])


def print_provenance(book: Rulebook, out: Console) -> None:
    """A table of tables: values printed, derived and provisional; the rest summed up."""
    entries = survey(book)
    sums = totals(entries)
    whole = sum(sums.values())
    title = f"{book.name} {book.edition}" if book.edition else book.name
    out.print(
        Text(
            f"{title}: {whole} values: {sums['printed']} printed "
            f"({_percent(sums['printed'], whole)}), {sums['derived']} derived from worked "
            f"examples ({_percent(sums['derived'], whole)}), {sums['provisional']} provisional "
            f"({_percent(sums['provisional'], whole)})"
        )
    )
    grid = Table("table", "values", "printed", "derived", "provisional", "where from / why")
    for e in entries:
        if e.kind == "table":
            grid.add_row(
                e.name,
                str(e.total),
                str(e.printed),
                str(e.derived),
                str(e.provisional),
                _reasons(e),
            )
    out.print(grid)
    for kind in ("const", "state", "field"):
        some = [e for e in entries if e.kind == kind]
        if some:
            part = totals(some)
            out.print(
                Text(
                    f"{kind}s: {len(some)}: {part['printed']} printed, {part['derived']} "
                    f"derived, {part['provisional']} provisional"
                )
            )
