"""Monte Carlo over seeds: many games of a scenario, summarized.

Each run is a game with its own seed (seed, seed + 1, ...), so a simulation is repeatable and
its statistics do not depend on how many worker processes shared the work.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from attrs import define

from rulekit.book.checker import Checked, load
from rulekit.play.runner import new_game


@define
class RunOutcome:
    seed: int
    turns: int
    ended: str | None
    final: dict[str, Any]


@define
class Stat:
    """Summary statistics of one final value over all runs."""

    name: str
    mean: float
    sd: float
    min: float
    p5: float
    p25: float
    p50: float
    p75: float
    p95: float
    max: float


@define
class SimulationResult:
    rulebook: str
    scenario: str | None
    runs: int
    first_seed: int
    policy: str
    stats: list[Stat]
    endings: dict[str, int]
    outcomes: list[RunOutcome]


_CHECKED: Checked | None = None


def _init_worker(rulebook: str, options: tuple[str, ...] = ()) -> None:
    global _CHECKED
    _CHECKED = load(rulebook, options)


def _play(job: tuple[str | None, int, str, int | None]) -> RunOutcome:
    scenario, seed, policy, turns = job
    assert _CHECKED is not None
    game = new_game(_CHECKED, scenario, seed, policy)
    game.interp.muted = True  # untraced: a run is summed up by its outcome alone
    result = game.play(turns)
    return RunOutcome(seed, result.turns, result.ended, result.final)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    position = share * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarize(outcomes: list[RunOutcome]) -> tuple[list[Stat], dict[str, int]]:
    names: list[str] = []
    for o in outcomes:
        for name, value in o.final.items():
            if isinstance(value, int | float) and not isinstance(value, bool) and name not in names:
                names.append(name)
    stats = []
    for name in names:
        values = [
            float(o.final[name]) for o in outcomes if isinstance(o.final.get(name), int | float)
        ]
        stats.append(
            Stat(
                name,
                statistics.fmean(values),
                statistics.pstdev(values) if len(values) > 1 else 0.0,
                min(values),
                _percentile(values, 0.05),
                _percentile(values, 0.25),
                _percentile(values, 0.50),
                _percentile(values, 0.75),
                _percentile(values, 0.95),
                max(values),
            )
        )
    endings = Counter(o.ended or "not over" for o in outcomes)
    return stats, dict(sorted(endings.items(), key=lambda kv: (-kv[1], kv[0])))


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
) -> SimulationResult:
    """Play ``runs`` games with seeds seed, seed + 1, ...; ``progress`` hears of each one."""
    jobs = [(scenario, seed + i, policy, turns) for i in range(runs)]
    outcomes: list[RunOutcome] = []
    if workers <= 1:
        _init_worker(rulebook, options)
        for job in jobs:
            outcomes.append(_play(job))
            if progress:
                progress(1)
    else:
        with ProcessPoolExecutor(
            workers, initializer=_init_worker, initargs=(rulebook, options)
        ) as pool:
            futures = [pool.submit(_play, job) for job in jobs]
            for future in as_completed(futures):
                outcomes.append(future.result())
                if progress:
                    progress(1)
    outcomes.sort(key=lambda o: o.seed)
    stats, endings = summarize(outcomes)
    return SimulationResult(rulebook, scenario, runs, seed, policy, stats, endings, outcomes)
