"""Progress of a long command on a terminal: turns played, for `rulekit run` (the full
campaign plays for half a minute). Shown on stderr only when stderr is a terminal and the
output is not JSON or the turn-by-turn story, so pipes, files and tests see nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console


@contextmanager
def turns_progress(
    console: Console, total: int, quiet: bool
) -> Iterator[Callable[[int, list[Any]], None] | None]:
    """A callback for each turn played (``Game.play``'s per-turn hook), or None when quiet."""
    if quiet or total <= 1 or not console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "turns",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,  # gone when the game ends: the result is what stays on the screen
    ) as bar:
        task = bar.add_task("turns", total=total)
        yield lambda _turn, _events: bar.advance(task)


@contextmanager
def working(console: Console, what: str, quiet: bool) -> Iterator[None]:
    """A spinner with the time taken while a long question is worked out (``prob``,
    ``advise``: a whole combat can take a minute), on a terminal only."""
    if quiet or not console.is_terminal:
        yield
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(), TextColumn(what), TimeElapsedColumn(), console=console, transient=True
    ) as bar:
        bar.add_task(what, total=None)
        yield
