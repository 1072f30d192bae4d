"""The budgets of exact analysis as one set of options, shared by ``rulekit prob`` and
``rulekit advise`` (rulekit.analysis.budget): the same names, types, defaults and exit
codes on both (a budget below its least is a usage error, exit 2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from rulekit.limits import DEFAULT_MAX_PATHS, DEFAULT_MAX_SITUATIONS

F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS = (
    click.option(
        "--method",
        "method",
        type=click.Choice(["situations", "paths"]),
        default="situations",
        show_default=True,
        help="situations: runs that reach the same situation are merged (rounds, loops); "
        "paths: every path of dice and decisions, one by one.",
    ),
    click.option(
        "--max-paths",
        "max_paths",
        type=click.IntRange(min=1),
        default=DEFAULT_MAX_PATHS,
        show_default=True,
        help="Give up beyond this many paths of dice and decisions (between two situations).",
    ),
    click.option(
        "--max-situations",
        "max_situations",
        type=click.IntRange(min=1),
        default=DEFAULT_MAX_SITUATIONS,
        show_default=True,
        help="Give up beyond this many situations.",
    ),
    click.option(
        "--tolerance",
        "tolerance",
        type=click.FloatRange(min=0, max=1),
        default=0.0,
        show_default=True,
        help="Leave situations less likely than this unexplored (reported as unresolved): "
        "a loop that may go on for ever (roll until a six, push your luck).",
    ),
    click.option(
        "--max-seconds",
        "max_seconds",
        type=click.FloatRange(min=0, min_open=True),
        help="Give up after this many seconds.",
    ),
)


def exact_budgets(func: F) -> F:
    """The budget options (``method``, ``max_paths``, ``max_situations``, ``tolerance``,
    ``max_seconds`` keyword arguments of the command)."""
    for option in reversed(_OPTIONS):
        func = option(func)
    return func
