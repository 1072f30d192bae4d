"""The ``simulate`` command's options; what it does is in :mod:`rulekit.cli.simulate_cmd`,
imported only when it runs, so that ``rulekit --help`` stays light."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from rulekit.cli.play_cmd import turn_steps_option
from rulekit.limits import MAX_RUNS

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def register(
    main: click.Group, option_switches: Decorator, json_flag: Decorator, reports: Decorator
) -> None:
    """Add the ``simulate`` command to the command group."""

    @main.command("simulate")
    @click.argument("rulebook")
    @option_switches
    @click.option(
        "--runs",
        "--games",
        "runs",
        type=click.IntRange(min=1, max=MAX_RUNS),
        required=True,
        help="How many games.",
    )
    @click.option(
        "--workers",
        "workers",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help="Worker processes (local ones, or of the local Dask cluster).",
    )
    @click.option(
        "--seed", "seed", type=int, default=0, show_default=True, help="Seed of the first game."
    )
    @click.option(
        "--scenario", "scenario", metavar="NAME|FILE", help="A scenario (default: the rulebook's)."
    )
    @click.option(
        "--policy",
        "policy",
        default="default",
        show_default=True,
        help="default, random or advised:EXPR (the option worth the most EXPR, "
        "advised:min:EXPR the least, advised:situations:EXPR also by situations over the "
        "path budget).",
    )
    @click.option(
        "--turns",
        "turns",
        type=click.IntRange(min=0),
        help="Stop each game after this many turns.",
    )
    @click.option(
        "--scheduler",
        "scheduler",
        default="processes",
        show_default=True,
        metavar="processes|dask|tcp://HOST:PORT",
        help="Local processes, a local Dask cluster, or an existing Dask scheduler.",
    )
    @click.option("--shard-size", "shard_size", type=click.IntRange(min=1), help="Games per shard.")
    @click.option(
        "--out", "out_dir", metavar="DIR", help="One Parquet file per shard; resumes a run."
    )
    @click.option(
        "--csv", "csv_file", type=click.File("w"), metavar="FILE", help="One row per game."
    )
    @click.option("--plot", "plot", metavar="FILE.svg|png", help="Histograms and endings.")
    @turn_steps_option
    @json_flag
    @reports
    def simulate_cmd(**kwargs: Any) -> None:
        """Monte Carlo: many games over seeds, with summary statistics (exit 1 if a game
        failed: its seed and error are listed and the other games still count)."""
        from rulekit.cli.simulate_cmd import run_simulate  # the rest loads only when run

        run_simulate(**kwargs)
