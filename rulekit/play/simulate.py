"""Monte Carlo over seeds: many games of a scenario, summarized as they finish.

Each game has its own seed (seed, seed + 1, ...). The seeds are split into shards (ranges);
a worker plays a shard and returns its compact summary (:mod:`rulekit.play.sim_summary`),
which the parent adds to the total and forgets. So the parent's memory does not grow with
the number of games, and because the summaries are exact and merge by addition, the result
is the same whatever the shard size, the number of workers and the scheduler.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.book.checker import load
from rulekit.errors import InputError, error
from rulekit.play.scenario import find_scenario, load_scenario
from rulekit.play.sim_sched import scheduler_for
from rulekit.play.sim_shard import Shard, ShardResult, pack_rulebook
from rulekit.play.sim_store import FIXED_COLUMNS, META, CsvSink, ShardStore, shard_range
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


MAX_SHARDS = 100_000  # a plan's shards: each is a task, a file and a summary to merge


def plan(
    first: int, games: int, size: int, done: list[tuple[int, int]] | None = None
) -> list[tuple[int, int]]:
    """Seed ranges aligned to multiples of ``size``: a longer run of the same study reuses
    every full shard a shorter one wrote. ``done`` are the shards a study already finished,
    of whatever size: each that lies inside the games is kept as it is, and only the games
    between them are cut anew (so a pilot run's small shards, or a run on more workers, do
    not fix the size of the shards still to play). Linear in the shards, and at most
    MAX_SHARDS of them (an error naming --shard-size), before any is made."""
    stop = first + games
    if (games + size - 1) // size > MAX_SHARDS:
        raise _too_many_shards(games, size)
    kept = sorted((a, b) for a, b in (done or []) if first <= a < b <= stop)
    ranges: list[tuple[int, int]] = []
    start, k = first, 0
    while start < stop:
        while k < len(kept) and kept[k][0] < start:
            k += 1  # a finished shard overlapping one already planned
        if k < len(kept) and kept[k][0] == start:
            ranges.append(kept[k])
            start = kept[k][1]
            k += 1
        else:
            end = min(stop, (start // size + 1) * size)
            if k < len(kept):
                end = min(end, kept[k][0])
            ranges.append((start, end))
            start = end
        if len(ranges) > MAX_SHARDS:
            raise _too_many_shards(games, size)
    return ranges


def _too_many_shards(games: int, size: int) -> InputError:
    return InputError(
        [
            error(
                f"{games} games in shards of {size} make more than {MAX_SHARDS:,} shards, "
                "the bound of one run",
                where="--shard-size",
                hint=f"give a larger --shard-size (at least {-(-games // MAX_SHARDS)}), "
                "or fewer --runs",
            )
        ]
    )


def study(
    rulebook: str, scenario: str | None, options: tuple[str, ...]
) -> tuple[list[str], dict[str, str], str]:
    """The values the scenario reports, every column's Parquet type, and a hash of the
    rulebook's files (what a resumed study must share with the one it resumes)."""
    import hashlib

    from rulekit.play.runner import fingerprint
    from rulekit.play.sim_store import column_types

    checked = load(rulebook, options)
    name = scenario or checked.book.default_scenario or ""
    info = load_scenario(checked, find_scenario(checked, name)).info
    names = info.summary or list(checked.book.tracks)
    columns = FIXED_COLUMNS + [n for n in names if n not in FIXED_COLUMNS]
    files = json.dumps(fingerprint(checked), sort_keys=True).encode()
    return names, column_types(checked, columns), hashlib.sha256(files).hexdigest()[:16]


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
    names, types, digest = study(rulebook, scenario, options)
    columns = list(types)
    settings = {
        "rulebook": str(Path(rulebook)),
        "rulebook_hash": digest,
        "options": sorted(options),
        "scenario": scenario,
        "policy": policy,
        "turns": turns,
        "max_steps": max_steps,
        "names": names,
        "asked": {"first_seed": seed, "runs": runs},  # what report counts as still to play
    }
    store = None
    if out is not None:
        store = ShardStore(out, settings, types)
    finished = store.finished_ranges() if store is not None else None
    size = shard_size or default_shard_size(runs, workers)
    ranges = plan(seed, runs, size, finished)
    runner = None
    if shard_size is None and scheduler.startswith("tcp://") and set(ranges) - set(finished or []):
        # an existing cluster's size is its own, not --workers' (1 unless given): asked
        # before the games still to play are cut into shards, so that all its workers work
        runner = scheduler_for(scheduler, workers)
        size = default_shard_size(runs, runner.slots)
        ranges = plan(seed, runs, size, finished)
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

    # workers of a remote cluster may not see the client's folders: the rulebook travels
    shipped = pack_rulebook(rulebook) if scheduler.startswith("tcp://") else None
    if todo:
        runner = runner or scheduler_for(scheduler, workers)
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
                            shipped,
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


def report(directory: str) -> tuple[SimulationResult, list[tuple[int, int]]]:
    """The summary of the study in ``directory`` (``simulate --out``) from the shards it
    finished, without playing a game, and the seed ranges it is missing between them."""
    from rulekit.play.sim_store import read_manifest, study_hash, verified

    store_dir = Path(directory)
    manifest = read_manifest(store_dir)
    study = study_hash(manifest)
    total = Partial()
    done = []
    for summary in sorted((store_dir / META).glob("shard-*.json")):
        shard = shard_range(summary.name)
        partial = verified(store_dir, summary, study) if shard is not None else None
        if shard is None or partial is None:
            continue  # not this study's, or changed since it was written: not merged
        total.merge(partial)
        done.append(shard)
    if not done:
        raise InputError([error(f"{directory} holds no finished shard yet", where="DIR")])
    recorded = manifest.get("asked")
    asked: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    first, last = done[0][0], max(b for _, b in done)
    try:
        first = min(first, int(asked["first_seed"]))
        last = max(last, int(asked["first_seed"]) + int(asked["runs"]))
    except (KeyError, TypeError, ValueError):
        pass  # a study written before it recorded what was asked: its shards' range
    missing = []
    at = first
    for a, b in [*done, (last, last)]:
        if a > at:
            missing.append((at, a))
        at = max(at, b)
    names = [str(x) for x in manifest.get("names", [])]
    result = finish(
        total,
        names,
        str(manifest.get("rulebook", "")),
        manifest.get("scenario"),
        last - first,
        first,
        str(manifest.get("policy", "default")),
        {"shards": len(done), "missing": [list(m) for m in missing]},
    )
    return result, done


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
