"""``--plot FILE`` of ``prob`` and ``diff``: the drawing itself is in rulekit.aids.plots.

What was written is said on stderr, so ``--json`` still prints one document on stdout.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import click


def _err() -> Any:
    from rulekit.cli.show import err

    return err


def check_plot_target(path: str) -> Path:
    """Refuse a bad suffix, or a missing matplotlib, before any work is done."""
    from rulekit.aids.plots import check_target

    return check_target(path)


def plot_distribution(dist: Any, target: Path) -> None:
    from rulekit.aids.plots import Question, distribution

    _err().print(f"plot: {distribution(Question.of(dist), target)}", highlight=False)


def plot_comparisons(
    before: Any, after: Any, behaviour: Any, target: Path, inputs: list[str] | None = None
) -> None:
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

    heading = f"{title(before)} -> {title(after)}"
    if inputs:
        heading += "\n" + "; ".join(inputs)
    drawn = comparisons(rows, heading, target)
    _err().print(f"plot: {drawn}", highlight=False)


def register(main: click.Group, reports_errors: Callable[[Any], Any]) -> None:
    """Add ``rulekit plot`` to the group (called once by cli/main.py)."""

    @main.command("plot")
    @click.argument("result", metavar="RESULT.json")
    @click.option(
        "-o",
        "--out",
        "target",
        required=True,
        metavar="FILE.svg|png",
        help="The picture to write.",
    )
    @reports_errors
    def plot_cmd(result: str, target: str) -> None:
        """Draw a saved `rulekit prob --json` result, without running it again.

        The picture is the one `prob --plot` draws: the question in the rules' words and
        its inputs, each result exactly and (for ordered results) at least and at most,
        and a note when the chances rest on provisional values. Save a result first with
        `rulekit prob ... --json > RESULT.json`.

        \b
        Examples:
          rulekit plot RESULT.json -o ODDS.svg
        """
        import json

        from rulekit.aids.plots import Question, check_target, distribution
        from rulekit.errors import InputError, error

        path = check_target(target)
        try:
            data = json.loads(Path(result).read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(
                [error(f"cannot read '{result}': {exc.strerror}", where="RESULT.json")]
            ) from None
        except (UnicodeDecodeError, ValueError) as exc:
            raise InputError(
                [error(f"'{result}' is not JSON: {exc}", where="RESULT.json")]
            ) from None
        _err().print(
            f"plot: {distribution(Question.from_json(data, result), path)}", highlight=False
        )
