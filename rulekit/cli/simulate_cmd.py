"""``rulekit simulate``: many games over seeds, summarized; sharded, resumable, on Dask."""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import IO, Any

import click
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from rulekit.cli.show import err, out
from rulekit.errors import InputError, error
from rulekit.play.sim_summary import ending_group

# How often a run whose stderr is not a terminal says how far it is (a line, not a bar).
PROGRESS_LINE_SECONDS = 10.0


class Terminated(KeyboardInterrupt):
    """SIGTERM (a batch system's stop, `kill`), handled as Ctrl-C is: what finished is kept."""


@contextlib.contextmanager
def stopped_by_sigterm() -> Iterator[list[Terminated]]:
    """While a simulation (a run, a game of play) runs, SIGTERM stops it as Ctrl-C does
    (shards in flight given up, finished ones kept in --out, the cursor restored), then the
    old handler comes back. The list given holds the Terminated raised, for a caller that
    catches it (play does) and still has to exit 143."""
    raised: list[Terminated] = []

    def stop(signum: int, frame: Any) -> None:
        raised.append(Terminated())
        raise raised[-1]

    if threading.current_thread() is not threading.main_thread():
        yield raised  # signals are the main thread's; a run in a thread (tests) keeps them
        return
    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield raised
    finally:
        signal.signal(signal.SIGTERM, before)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _check_policy(policy: str) -> None:
    if policy not in ("default", "random") and not policy.startswith("advised:"):
        raise InputError(
            [
                error(
                    f"simulate plays without a player: '{policy}' cannot be used",
                    where="--policy",
                    hint="use default, random or advised:EXPR",
                )
            ]
        )


def _check_extras(scheduler: str, out_dir: str | None, plot: str | None) -> None:
    """Missing optional packages are reported before any game is played."""
    from rulekit.play.sim_sched import need_distributed, scheduler_for
    from rulekit.play.sim_store import need_pyarrow

    if scheduler != "processes":
        if scheduler != "dask" and not scheduler.startswith("tcp://"):
            scheduler_for(scheduler, 1)  # reports the unknown name
        need_distributed()
    if out_dir is not None:
        from rulekit.play.sim_store import check_out_dir

        check_out_dir(out_dir)
        need_pyarrow()
    if plot is not None:
        from rulekit.play.sim_plots import need_matplotlib

        need_matplotlib(plot)


def run_simulate(
    rulebook: str,
    options: tuple[str, ...],
    runs: int,
    workers: int,
    seed: int,
    scenario: str | None,
    policy: str,
    turns: int | None,
    scheduler: str,
    shard_size: int | None,
    out_dir: str | None,
    csv_file: IO[str] | None,
    plot: str | None,
    as_json: bool,
    max_steps: int | None = None,
) -> None:
    from rulekit.book.checker import load
    from rulekit.play.scenario import find_scenario
    from rulekit.play.simulate import simulate

    _check_policy(policy)
    checked = load(rulebook, options)  # check it (and the scenario) before starting workers
    find_scenario(checked, scenario or checked.book.default_scenario or "")
    if policy.startswith("advised:"):
        from rulekit.analysis.advised import make_advised

        make_advised(checked, policy)  # a goal that does not parse: before any game
    _check_extras(scheduler, out_dir, plot)
    played = 0
    done = 0  # played or read back from --out
    began = time.perf_counter()
    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    ]
    # not a terminal (a log, a batch job): a plain line now and then instead of a bar
    quiet_lines = as_json or err.is_terminal
    last_line = began
    with Progress(
        *columns, console=err, transient=True, disable=as_json or not err.is_terminal
    ) as bar:
        task = bar.add_task("simulating", total=runs, rate="")

        def line_now_and_then() -> None:
            nonlocal last_line
            now = time.perf_counter()
            if quiet_lines or now - last_line < PROGRESS_LINE_SECONDS:
                return
            last_line = now
            rate = played / max(now - began, 1e-9)
            left = f", about {_duration((runs - done) / rate)} left" if rate > 0 else ""
            err.print(Text(f"simulate: {done:,}/{runs:,} games, {rate:.2f} games/s{left}"))

        def progress(games: int) -> None:
            nonlocal played, done
            played += games
            done += games
            rate = played / max(time.perf_counter() - began, 1e-9)
            bar.update(task, advance=games, rate=f"{rate:.2f} games/s")
            line_now_and_then()

        def resumed(games: int) -> None:
            nonlocal done
            done += games
            bar.update(task, advance=games)

        try:
            with stopped_by_sigterm():
                result = simulate(
                    rulebook,
                    scenario,
                    runs,
                    seed,
                    workers,
                    policy,
                    turns,
                    progress,
                    options,
                    scheduler=scheduler,
                    shard_size=shard_size,
                    out=out_dir,
                    csv=csv_file,
                    resumed=resumed,
                    max_steps=max_steps,
                )
        except KeyboardInterrupt as stop:
            bar.stop()  # the bar's line goes and the cursor comes back
            again = f"; the same command resumes from {out_dir}" if out_dir else ""
            err.print(Text(f"stopped after {played} game(s){again}"))
            sys.exit(143 if isinstance(stop, Terminated) else 130)
    seconds = time.perf_counter() - began
    result.run |= {"played": played, "seconds": round(seconds, 3), "scheduler": scheduler}
    if plot is not None:
        from rulekit.play.sim_plots import plot_simulation

        plot_simulation(result, plot)
    if as_json:
        import cattrs

        click.echo(json.dumps(cattrs.Converter().unstructure(result), indent=2, ensure_ascii=False))
    else:
        print_simulation(result)
    if result.failed:
        sys.exit(1)


DETAILS = 6  # the most frequent endings shown under each group


def _pct(value: float) -> str:
    return f"{value:.1f}"


def _share_cells(item: Any) -> tuple[str, str, str]:
    return str(item.count), _pct(item.percent), f"{_pct(item.low)}–{_pct(item.high)}"


def print_simulation(result: Any) -> None:
    first, last = result.first_seed, result.first_seed + result.runs - 1
    run = result.run
    rate = run.get("played", 0) / run["seconds"] if run.get("seconds") else 0.0
    resumed = f", {run['resumed_shards']} shard(s) resumed" if run.get("resumed_shards") else ""
    # a report of a saved study played nothing now: no rate to give
    how = f" ({rate:.2f} games/s{resumed})" if "seconds" in run else ""
    out.print(
        Text(
            f"{result.runs} games, seeds {first}..{last}: {result.completed} played, "
            f"{len(result.failed)} failed{how}"
        )
    )
    endings = Table(title="endings (95% confidence intervals)", title_justify="left")
    for column in ("ending", "games", "%", "95% CI"):
        endings.add_column(column, justify="left" if column == "ending" else "right")
    for group in result.groups:
        details = [e for e in result.shares if ending_group(e.name) == group.name]
        label = details[0].name if len(details) == 1 else group.name  # one way to end: say it
        endings.add_row(Text(label, style="bold"), *_share_cells(group))
        if len(details) == 1:
            continue
        for item in details[:DETAILS]:
            detail = item.name.removeprefix(group.name + ":").strip()
            endings.add_row(f"  {detail}", *_share_cells(item))
        if len(details) > DETAILS:
            rest = sum(item.count for item in details[DETAILS:])
            endings.add_row(f"  {len(details) - DETAILS} other endings (see --json)", str(rest))
    out.print(endings)
    varying = [s for s in result.stats if s.name not in result.constant]
    if varying:
        grid = Table(title="reported values", title_justify="left")
        for column in ("value", "mean", "sd", "min", "p5", "median", "p95", "max"):
            grid.add_column(column, justify="right" if column != "value" else "left")
        for s in varying:
            grid.add_row(
                s.name,
                f"{s.mean:.2f}",
                f"{s.sd:.2f}",
                f"{s.min:g}",
                f"{s.p5:g}",
                f"{s.p50:g}",
                f"{s.p95:g}",
                f"{s.max:g}",
            )
        out.print(grid)
    for category in result.categories:
        if category.name in result.constant:
            continue
        total = sum(category.counts.values())
        ranked = sorted(category.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        shown = ", ".join(f"{k} {100 * c / total:.0f}%" for k, c in ranked[:6])
        more = f", {len(ranked) - 6} more" if len(ranked) > 6 else ""
        out.print(Text(f"{category.name}: {shown}{more}"))
    if result.constant:
        same = ", ".join(f"{k} = {v}" for k, v in result.constant.items())
        out.print(Text(f"the same in every game: {same}"))
    if result.failed:
        seeds = ", ".join(str(f.seed) for f in result.failed)
        err.print(Text(f"{len(result.failed)} game(s) failed, seeds: {seeds}"))
        for failure in result.failed[:20]:
            err.print(Text(f"  {failure.line()}"))
        if len(result.failed) > 20:
            err.print(Text(f"  ... and {len(result.failed) - 20} more (see --json)"))
        if any("steps: the procedure does not finish" in f.line() for f in result.failed):
            err.print(
                Text(
                    "  hint: look for a loop that never ends, or raise each game's step "
                    "budget (--max-steps)"
                )
            )


Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]
