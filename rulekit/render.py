"""How differences between rulebooks are shown: rich text for people, JSON for programs."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from rulekit.behaviour import Behaviour, Comparison
from rulekit.checker import Checked
from rulekit.diff import Change


def _title(checked: Checked) -> str:
    book = checked.book
    return f"{book.name} {book.edition}" if book.edition else book.name


def _p(p: Fraction | None) -> str:
    return "-" if p is None else f"{p} ({float(p) * 100:.1f}%)"


def print_diff(
    out: Console, old: Checked, new: Checked, changes: list[Change], behaviour: Behaviour
) -> None:
    differs = [c for c in behaviour.comparisons if c.differs]
    if not changes and not differs:
        out.print(Text(f"{_title(old)} -> {_title(new)}: no differences"))
        return
    out.print(Text(f"{_title(old)} -> {_title(new)}: {len(changes)} change(s)", style="bold"))
    for change in changes:
        out.print(Text(change.title, style="bold"))
        for line in change.details:
            style = "red" if line.startswith("-") else "green" if line.startswith("+") else ""
            out.print(Text(f"    {line}", style=style))
        if change.cells:
            out.print(_cell_grid(change))
    if behaviour.comparisons:
        out.print(
            Text(
                "behaviour (exact unless marked sampled; from the initial state and --at):",
                style="bold",
            )
        )
        for comparison in behaviour.comparisons:
            _print_comparison(out, comparison)
    for item in behaviour.skipped:
        out.print(Text(f"not compared: {item}"))


def _cell_grid(change: Change) -> Table:
    """Changed cells laid out like the table: first key down, the others across."""
    columns: dict[str, None] = {}
    rows: dict[str, dict[str, str]] = {}
    for cell in change.cells:
        row, column = cell.keys[0], " / ".join(cell.keys[1:]) or "value"
        columns.setdefault(column, None)
        rows.setdefault(row, {})[column] = f"{cell.old or '-'} -> {cell.new or '-'}"
    grid = Table(show_lines=False, box=None, padding=(0, 2, 0, 4))
    grid.add_column("")
    for column in columns:
        grid.add_column(column)
    for row, cells in rows.items():
        grid.add_row(row, *(cells.get(c, "") for c in columns))
    return grid


def _print_comparison(out: Console, c: Comparison) -> None:
    how = "" if c.exact else " (sampled, 95% intervals)"
    if c.provisional:
        how += f" (provisional values used {c.provisional})"
    out.print(Text(f"  {c.probe.label}{how}"))
    if c.note:
        out.print(Text(f"    {c.note}"))
        return
    grid = Table(show_lines=False, box=None, padding=(0, 2, 0, 4))
    for column in ("result", "before", "after"):
        grid.add_column(column)
    for row in c.rows:
        after = _p(row.new) + (f" ±{row.ci * 100:.1f}" if row.ci is not None else "")
        grid.add_row(row.value, _p(row.old), after)
    out.print(grid)
    if c.mean_old is not None and c.mean_new is not None:
        shift = c.mean_new - c.mean_old
        interval = f" ±{c.mean_ci:.3f}" if c.mean_ci is not None else ""
        out.print(
            Text(
                f"    mean {float(c.mean_old):.4f} -> {float(c.mean_new):.4f} "
                f"(shift {float(shift):+.4f}{interval})"
            )
        )


def diff_json(
    old: Checked, new: Checked, changes: list[Change], behaviour: Behaviour, differs: bool
) -> dict[str, Any]:
    def frac(p: Fraction | None) -> str | None:
        return None if p is None else str(p)

    return {
        "old": _title(old),
        "new": _title(new),
        "differs": differs,
        "changes": [
            {
                "kind": c.kind,
                "name": c.name,
                "what": c.what,
                "rule": c.rule,
                "details": c.details,
                "cells": [{"keys": list(x.keys), "old": x.old, "new": x.new} for x in c.cells],
            }
            for c in changes
        ],
        "behaviour": [
            {
                "probe": c.probe.label,
                "exact": c.exact,
                "differs": c.differs,
                "note": c.note or None,
                "provisional": c.provisional or None,
                "outcomes": [
                    {"value": r.value, "old": frac(r.old), "new": frac(r.new), "ci": r.ci}
                    for r in c.rows
                ],
                "mean": None
                if c.mean_old is None or c.mean_new is None
                else {"old": frac(c.mean_old), "new": frac(c.mean_new), "ci": c.mean_ci},
            }
            for c in behaviour.comparisons
        ],
        "not_compared": behaviour.skipped,
    }
