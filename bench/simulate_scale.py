"""Simulation at scale, measured (never asserted).

    python bench/simulate_scale.py                      # about 10 minutes on 2 idle cores
    python bench/simulate_scale.py --games 10 --memory 200,1000   # a quick look

Measures
  1. games per second of `simulate` on Silent War short campaigns with 1 and 2 local worker
     processes and on a local Dask cluster of 2 workers (its start-up included), all on this
     machine's cores, and the CPU time of a game (what a study costs whatever the load);
  2. the parent's memory while 2 local workers play a growing number of games (default
     1,000 and 20,000 Steel Wolves patrols, a short game, so the bookkeeping of the parent is
     what grows if anything does): the peak of the parent's Python allocations
     (tracemalloc) and its resident memory. The summaries are exact and merged as shards
     finish, so both stay flat.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulekit.play.simulate import simulate  # noqa: E402

SW = str(ROOT / "rulebooks" / "silent_war")
WOLVES = str(ROOT / "rulebooks" / "steel_wolves_like")


def rss_mib() -> float:
    """The parent's resident memory now (Linux /proc), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def throughput(rows: list[tuple[str, str]], games: int, scenario: str) -> None:
    runs = [("processes", 1), ("processes", 2), ("dask", 2)]
    for scheduler, workers in runs:
        if scheduler == "dask":
            try:
                import dask.distributed  # noqa: F401
            except ImportError:
                rows.append(("local Dask cluster", "skipped: pip install -e '.[dask]'"))
                continue
        start, cpu = time.perf_counter(), time.process_time()
        result = simulate(SW, scenario, games, 100, workers, scheduler=scheduler, shard_size=1)
        seconds = time.perf_counter() - start
        what = f"{games} {scenario} games, {scheduler}, {workers} worker(s)"
        failed = f", {len(result.failed)} failed" if result.failed else ""
        rows.append((what, f"{games / seconds:.2f} games/s ({seconds:.1f} s{failed})"))
        if workers == 1:  # played in this process: its CPU time is the games' cost
            per_game = (time.process_time() - cpu) / games
            rows.append(
                (
                    "  CPU time per game, and a 1,000,000-game study",
                    f"{per_game:.2f} s; {per_game * 1e6 / 3600:.0f} CPU-hours",
                )
            )


def memory(rows: list[tuple[str, str]], sizes: list[int]) -> None:
    for games in sizes:
        before = rss_mib()
        tracemalloc.start()
        start = time.perf_counter()
        result = simulate(WOLVES, "patrol", games, 0, 2)
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rows.append(
            (
                f"parent memory, {games} patrols, 2 workers",
                f"peak allocations {peak / 2**20:.2f} MiB, resident {rss_mib():.0f} MiB "
                f"(+{rss_mib() - before:.1f}), {games / seconds:.0f} games/s, "
                f"{len(result.failed)} failed",
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="short campaigns per setting")
    parser.add_argument("--scenario", default="short_campaign", help="a Silent War scenario")
    parser.add_argument(
        "--memory", default="1000,20000", help="comma-separated game counts for the memory run"
    )
    opts = parser.parse_args()
    rows: list[tuple[str, str]] = []
    throughput(rows, opts.games, opts.scenario)
    memory(rows, [int(n) for n in opts.memory.split(",") if n])
    grid = Table(title=f"rulekit simulate at scale ({os.cpu_count()} cores)")
    grid.add_column("measure")
    grid.add_column("result")
    for row in rows:
        grid.add_row(*row)
    Console().print(grid)


if __name__ == "__main__":
    main()
