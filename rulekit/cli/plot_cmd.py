"""``--plot FILE`` of ``prob`` and ``diff``: the drawing itself is in rulekit.aids.plots.

What was written is said on stderr, so ``--json`` still prints one document on stdout.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any


def _err() -> Any:
    from rulekit.cli.show import err

    return err


def check_plot_target(path: str) -> Path:
    """Refuse a bad suffix, or a missing matplotlib, before any work is done."""
    from rulekit.aids.plots import check_target

    return check_target(path)


def plot_distribution(dist: Any, target: Path) -> None:
    from rulekit.aids.plots import distribution

    _err().print(f"plot: {distribution(dist, target)}", highlight=False)


def plot_comparisons(before: Any, after: Any, behaviour: Any, target: Path) -> None:
    """Before and after bars for every compared result; a note when nothing was compared."""
    from rulekit.aids.plots import comparisons

    rows: list[tuple[str, Fraction | None, Fraction | None]] = []
    for c in behaviour.comparisons:
        rows += [(f"{c.probe.label}: {r.value}", r.old, r.new) for r in c.rows]
    if not rows:
        _err().print("plot: no distributions were compared, nothing drawn", highlight=False)
        return

    def title(checked: Any) -> str:
        book = checked.book
        return f"{book.name} {book.edition}" if book.edition else book.name

    drawn = comparisons(rows, f"{title(before)} -> {title(after)}", target)
    _err().print(f"plot: {drawn}", highlight=False)
