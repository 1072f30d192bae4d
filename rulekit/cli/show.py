"""How results are shown: rich text for people (JSON is built where the data is)."""

from __future__ import annotations

import sys
from fractions import Fraction
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from rulekit.analysis.behaviour import Behaviour, Comparison
from rulekit.analysis.diff import Change
from rulekit.book.checker import Checked
from rulekit.engine.values import show

# Output to a file or pipe is not squeezed into 80 columns.
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, highlight=False, soft_wrap=True)


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
    for column in ("result", "before", "", "after", ""):
        grid.add_column(column)
    top = max([r.old or 0 for r in c.rows] + [r.new or 0 for r in c.rows] + [Fraction(0)])
    for row in c.rows:
        after = _p(row.new) + (f" ±{row.ci * 100:.1f}" if row.ci is not None else "")
        old_bar, new_bar = bar(row.old or 0, top, "red", 12), bar(row.new or 0, top, "green", 12)
        grid.add_row(row.value, _p(row.old), old_bar, after, new_bar)
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


# ---- check, tables, run --------------------------------------------------------------------


def options_of(book: Any) -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "rule": option.ref.text if option.ref else None,
            "title": option.title,
            "on": name in book.options_on,
        }
        for name, option in book.options.items()
    ]


def print_options(book: Any) -> None:
    for option in options_of(book):
        rule = f" [{option['rule']}]" if option["rule"] else ""
        title = f' "{option["title"]}"' if option["title"] else ""
        state = "on" if option["on"] else f"off (--option {option['name']})"
        out.print(Text(f"option {option['name']}{rule}{title}: {state}"))


def print_summary(checked: Checked, arg: str) -> None:
    book = checked.book
    title = f"{book.name} {book.edition}" if book.edition else book.name
    status = "ok" if not checked.errors else f"{len(checked.errors)} error(s)"
    out.print(
        Text(
            f"{arg}: {title}: {status}; {len(book.tables)} tables, "
            f"{len(book.procedures)} procedures, {len(book.modifiers)} modifier lists, "
            f"{len(checked.warnings)} warning(s)"
        )
    )
    print_options(book)
    if checked.provisional:
        out.print(
            Text(
                f"{checked.provisional_count} provisional value(s) the source does not print, "
                f"in {len(checked.provisional)} place(s):"
            )
        )
        for p in checked.provisional:
            out.print(
                Text(f"  {p.span}: {p.what}: {p.count}" + (f" ({p.reason})" if p.reason else ""))
            )
    else:
        out.print(Text("no provisional values"))


def explain_turn(turn: int, events: list[Any], every: bool = False) -> None:
    """A turn's events, book-keeping folded (rulekit.play.story) unless ``every``."""
    from rulekit.engine.trace import render_event
    from rulekit.play.story import fold

    out.print(Text(f"--- turn {turn}", style="bold"))
    for e in events if every else fold(events):
        out.print(Text(render_event(e)))


def print_run(result: Any, save: str | None) -> None:
    book = f"{result.rulebook} {result.edition}" if result.edition else result.rulebook
    out.print(Text(f"{result.title} ({book})"))
    if result.provisional_scenario:
        out.print(Text(f"provisional scenario: {result.provisional_scenario}"))
    for value in result.provisional_scenario_values:
        out.print(Text(f"provisional in the scenario: {value}"))
    if result.reports:
        names = list(result.reports[0].values)
        grid = Table(show_lines=False, caption="state at the end of each turn")
        grid.add_column("turn", justify="right")
        for name in names:
            grid.add_column(name)
        for report in result.reports:
            grid.add_row(str(report.turn), *(show_json(report.values[n]) for n in names))
        out.print(grid)
    out.print(Text(f"turns played: {result.played} (turn {result.turns} of the scenario)"))
    for name, value in result.final.items():
        out.print(Text(f"  {name}: {show_json(value)}"))
    out.print(Text(f"result: {result.ended or 'not over yet'}"))
    out.print(Text(f"seed: {result.seed}"))
    if result.provisional_used:
        out.print(
            Text(
                f"used {len(result.provisional_used)} provisional value(s) "
                "not printed in the rules:"
            )
        )
        for place, count in grouped(result.provisional_used):
            out.print(Text(f"  {place}: {count}"))
    if save:
        out.print(Text(f"saved to {save}"))


def grouped(items: list[str]) -> list[tuple[str, int]]:
    """ "table war_mix (WP1 / AO) [3.11]" and the like, counted per table."""
    counts: dict[str, int] = {}
    for item in items:
        key = item
        if " (" in item:  # a table cell: count it under its table
            rule = item[item.rfind(" [") :] if item.endswith("]") else ""
            key = item.split(" (")[0] + rule
        counts[key] = counts.get(key, 0) + 1
    return list(counts.items())


BAR_WIDTH = 24
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(
    value: Fraction | float, top: Fraction | float, style: str = "cyan", width: int = BAR_WIDTH
) -> Text:
    """A horizontal bar of ``value`` against the largest value ``top`` (eighths of a cell)."""
    if top <= 0 or value <= 0:
        return Text("")
    eighths = max(1, round(float(value) / float(top) * width * 8))
    full, part = divmod(eighths, 8)
    return Text("█" * full + (_EIGHTHS[part] if part else ""), style=style)


def ordered_results(outcomes: list[Any]) -> bool:
    """Results that can be "at least" or "at most": all numbers, or members of one enum."""
    from rulekit.analysis.outcomes import Distribution

    return Distribution("", list(outcomes), 0).ordered


def show_json(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(show_json(v) for v in value)
    if value is None:
        return "none"
    return str(value)


def print_distribution(dist: Any) -> None:
    """``rulekit prob``: each result with its probability, the mean, provisional values."""
    how = dist.how()
    grid = Table(title=f"{dist.what} ({how})")
    grid.add_column("result")
    grid.add_column("p" if dist.exact else "frequency", justify="right")
    grid.add_column("%", justify="right")
    ordered = ordered_results(dist.outcomes)
    if ordered:
        grid.add_column("at least %", justify="right")
        grid.add_column("at most %", justify="right")
    grid.add_column("")
    top = max([o.p for o in dist.outcomes] + [Fraction(0)])
    total = Fraction(0)
    for i, o in enumerate(dist.outcomes):
        cells = [show(o.value), str(o.p), f"{float(o.p) * 100:.2f}"]
        total += o.p
        if ordered:  # the outcomes come sorted (analysis.prob orders them)
            at_least = sum((x.p for x in dist.outcomes[i:]), Fraction(0))
            cells += [f"{float(at_least) * 100:.2f}", f"{float(total) * 100:.2f}"]
        grid.add_row(*cells, bar(o.p, top))
    out.print(grid)
    mean = dist.mean
    if mean is not None:
        out.print(Text(f"mean: {mean} = {float(mean):.4f}"))
    if dist.unresolved:
        out.print(
            Text(
                f"unresolved: p = {float(dist.unresolved):.3g} (situations "
                "less likely than --tolerance were not explored; the mean counts only the "
                "results shown)"
            )
        )
    if dist.provisional_used:
        out.print(Text("used provisional values (not printed in the rules):"))
        for place, count in grouped(dist.provisional_used):
            out.print(Text(f"  {place}: {count}"))
