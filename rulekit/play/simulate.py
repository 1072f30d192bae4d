"""Monte Carlo over seeds: many games of a scenario, summarized as they finish.

Each game has its own seed (seed, seed + 1, ...). The seeds are split into shards (ranges);
a worker plays a shard and returns its compact summary (:mod:`rulekit.play.sim_summary`),
which the parent adds to the total and forgets. So the parent's memory does not grow with
the number of games, and because the summaries are exact and merge by addition, the result
is the same whatever the shard size, the number of workers and the scheduler.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.book.checker import load
from rulekit.play.scenario import find_scenario, load_scenario
from rulekit.play.sim_sched import scheduler_for
from rulekit.play.sim_shard import Shard, ShardResult
from rulekit.play.sim_store import FIXED_COLUMNS, CsvSink, ShardStore
from rulekit.play.sim_summary import (
    Category,
    Failure,
    Partial,
    Share,
    Stat,
    Track,
    ending_group,
    share,
    stat,
)

__all__ = ["Category", "Failure", "Share", "SimulationResult", "Stat", "plan", "simulate"]

MAX_SHARD = 250  # games: a shard of short campaigns takes minutes, and progress stays smooth


@define
class SimulationResult:
    """The summary of a simulation. Every field but ``run`` depends only on the games."""

    rulebook: str
    scenario: str | None
    runs: int
    first_seed: int
    policy: str
    completed: int  # games that ended (or stopped at --turns) without an error
    stats: list[Stat]  # each numeric reported value, in the scenario's order
    categories: list[Category]  # each reported value that is not a number
    constant: dict[str, Any]  # reported values that are the same in every game
    endings: dict[str, int]  # each ending as the victory procedure worded it
    groups: list[Share]  # endings grouped (victory / draw / defeat ...), with 95% CIs
    shares: list[Share]  # each ending with its 95% CI
    turns: Stat | None
    failed: list[Failure]  # in seed order
    run: dict[str, Any] = field(factory=dict)  # shards, played and resumed: not the games'


def default_shard_size(games: int, workers: int) -> int:
    """Several shards per worker, so the workers finish together and progress is smooth."""
    return max(1, min(MAX_SHARD, games // (8 * max(1, workers))))


def plan(first: int, games: int, size: int) -> list[tuple[int, int]]:
    """Seed ranges aligned to multiples of ``size``: a longer run of the same study reuses
    every full shard a shorter one wrote."""
    stop = first + games
    ranges = []
    start = first
    while start < stop:
        end = min(stop, (start // size + 1) * size)
        ranges.append((start, end))
        start = end
    return ranges


def summary_names(rulebook: str, scenario: str | None, options: tuple[str, ...]) -> list[str]:
    """The values the scenario reports (so the columns are known before any game ends)."""
    checked = load(rulebook, options)
    name = scenario or checked.book.default_scenario or ""
    info = load_scenario(checked, find_scenario(checked, name)).info
    return info.summary or list(checked.book.tracks)


def simulate(
    rulebook: str,
    scenario: str | None,
    runs: int,
    seed: int,
    workers: int = 1,
    policy: str = "default",
    turns: int | None = None,
    progress: Callable[[int], None] | None = None,
    options: tuple[str, ...] = (),
    *,
    scheduler: str = "processes",
    shard_size: int | None = None,
    out: str | None = None,
    csv: Any = None,
    resumed: Callable[[int], None] | None = None,
    max_steps: int | None = None,
) -> SimulationResult:
    """Play ``runs`` games with seeds seed, seed + 1, ...; ``progress`` hears of the games
    each finished shard played, ``resumed`` of those read back from ``out``. ``csv`` is an
    open text stream for one row per game."""
    names = summary_names(rulebook, scenario, options)
    columns = FIXED_COLUMNS + [n for n in names if n not in FIXED_COLUMNS]
    settings = {
        "rulebook": str(Path(rulebook)),
        "options": sorted(options),
        "scenario": scenario,
        "policy": policy,
        "turns": turns,
    }
    size = shard_size or default_shard_size(runs, workers)
    store = None
    if out is not None:
        store = ShardStore(out, settings, columns, shard_size, size)
        size = store.shard_size  # a resumed study keeps the shards it started with
    ranges = plan(seed, runs, size)
    sink = CsvSink(csv, columns) if csv is not None else None
    want_rows = store is not None or sink is not None

    total = Partial()
    ready: dict[int, list[dict[str, Any]] | None] = {}  # CSV rows waiting for earlier shards
    written = 0  # shards whose rows went to the CSV

    def flush() -> None:
        nonlocal written
        while sink is not None and written < len(ranges) and ranges[written][0] in ready:
            rows = ready.pop(ranges[written][0])
            if rows is None and store is not None:  # a resumed shard: read back its rows
                rows = store.rows(*ranges[written])
            sink.write(rows or [])
            written += 1

    todo: list[tuple[int, int]] = []
    skipped = 0
    for start, stop in ranges:
        done = store.finished(start, stop) if store is not None else None
        if done is None:
            todo.append((start, stop))
            continue
        total.merge(done)
        skipped += 1
        if sink is not None:
            ready[start] = None
        if resumed:
            resumed(stop - start)
    flush()

    def accept(result: ShardResult) -> None:
        total.merge(result.partial)
        if store is not None:
            store.write(result.start, result.stop, result.partial, result.rows or [])
        if sink is not None:
            ready[result.start] = result.rows
            flush()
        if progress:
            progress(result.stop - result.start)

    if todo:
        runner = scheduler_for(scheduler, workers)
        # Shards in flight plus rows held for the CSV stay under a few per worker. Rows are
        # held only while an earlier shard is still in flight, so the loop always has one
        # to wait for.
        window = 4 * runner.slots
        try:
            queue = iter(todo)
            pending = 0
            exhausted = False
            while pending or not exhausted:
                held = sum(1 for rows in ready.values() if rows is not None)
                while not exhausted and pending + held < window:
                    start_stop = next(queue, None)
                    if start_stop is None:
                        exhausted = True
                        break
                    runner.submit(
                        Shard(
                            rulebook,
                            options,
                            scenario,
                            policy,
                            turns,
                            *start_stop,
                            want_rows,
                            max_steps,
                        )
                    )
                    pending += 1
                if pending:
                    for result in runner.finished():
                        pending -= 1
                        accept(result)
        except BaseException:
            runner.abort()  # stopped (Ctrl-C) or failed: do not wait for shards in flight
            raise
        runner.close()
    run = {"shards": len(ranges), "shard_size": size, "resumed_shards": skipped}
    return finish(total, names, rulebook, scenario, runs, seed, policy, run)


def finish(
    total: Partial,
    names: list[str],
    rulebook: str,
    scenario: str | None,
    runs: int,
    seed: int,
    policy: str,
    run: dict[str, Any],
) -> SimulationResult:
    """The report: statistics, endings grouped with confidence intervals, failed seeds."""
    order = [n for n in names if n in total.tracks]
    order += sorted(n for n in total.tracks if n not in order)
    stats, categories, constant = [], [], {}
    for name in order:
        track = total.tracks[name]
        if track.count:
            stats.append(stat(name, track))
        if track.others:
            categories.append(Category(name, dict(sorted(track.others.items()))))
        if len(track.numbers) + len(track.others) == 1:
            constant[name] = next(iter(track.numbers or track.others))
    completed = total.games - len(total.failures)
    endings = dict(sorted(total.endings.items(), key=lambda kv: (-kv[1], kv[0])))
    grouped: dict[str, int] = {}
    for ending, count in endings.items():
        grouped[ending_group(ending)] = grouped.get(ending_group(ending), 0) + count
    groups = [share(g, c, completed) for g, c in sorted(grouped.items(), key=lambda kv: -kv[1])]
    shares = [share(e, c, completed) for e, c in endings.items()]
    turns = stat("turns", Track.of_counts(total.turns)) if total.turns else None
    failed = sorted(total.failures, key=lambda f: f.seed)
    return SimulationResult(
        rulebook,
        scenario,
        runs,
        seed,
        policy,
        completed,
        stats,
        categories,
        constant,
        endings,
        groups,
        shares,
        turns,
        failed,
        run,
    )


def games_per_second(games: int, seconds: float) -> float:
    return games / seconds if seconds > 0 else math.inf
