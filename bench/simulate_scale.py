"""Simulation at scale, measured (never asserted): `rulekit simulate` as a user runs it.

    python bench/simulate_scale.py                                # the full matrix
    python bench/simulate_scale.py --games 20 --rulebook rulebooks/steel_wolves_like \\
        --scenario patrol                                         # a quick look (the CI's)
    python bench/simulate_scale.py --markdown                     # the table for the docs

The matrix: each number of games (default 200 and 2,000 Silent War short campaigns) with 1
and 2 workers, on local processes (`--scheduler processes`) and on a local Dask cluster
(`--scheduler dask`, its start-up included), all from the same seed. Each configuration is
one `python -m rulekit simulate ... --out DIR --json` in a process of its own, as from a
shell, so each pays what a user pays: the start-up, the rulebook's loading, the workers'.

For each it reports the wall time, games per second, the CPU time of a game (user + system
of the whole process tree, over the games: what a study costs whatever else the machine is
doing), the peak resident memory of the largest process of the run (the command or one of
its workers) and of all of them together (sampled with psutil), the load average around
it, and the ratios between configurations: 2 workers against 1, Dask against local
processes, and the larger study against the smaller (start-up spread over more games).

It also checks determinism: every configuration of one size must write the same games, so
the Parquet datasets (read with pyarrow, rows in seed order) and the `--json` summaries
(less the run's own facts: time, shards, scheduler) must be identical, whatever the
scheduler, the workers and the shard sizes that follow from them. A difference is printed and
makes the exit status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = (("processes", 1), ("processes", 2), ("dask", 1), ("dask", 2))


@dataclass
class Run:
    games: int
    scheduler: str
    workers: int
    seconds: float = 0.0
    cpu: float = 0.0  # user + system, the command and every process under it (sampled)
    peak_mib: float = 0.0  # resident memory of the largest process at its peak
    tree_mib: float = 0.0  # resident memory of the whole tree at its peak
    load: tuple[float, float] = (0.0, 0.0)  # 1-minute load average before and after
    exit_code: int = 0
    failed: int = 0
    shards: int = 0
    out_bytes: int = 0
    identical: bool | None = None  # against the first configuration of the same size
    difference: str = ""
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def name(self) -> str:
        return f"{self.scheduler}, {self.workers} worker{'s' if self.workers > 1 else ''}"


class Sampler:
    """The process tree of a run (the command, its workers, a Dask cluster's nannies and
    workers), sampled every ``every`` seconds with psutil: each process's CPU time as last
    seen, and the peak resident memory of the largest process and of the whole tree.
    Sampling, because a pool's workers need not be waited for by the command (then no
    rusage counts them); it misses at most the last ``every`` seconds of each process."""

    def __init__(self, pid: int, every: float = 0.2) -> None:
        import psutil

        self.root = psutil.Process(pid)
        self.every = every
        self.cpu: dict[tuple[int, float], float] = {}  # (pid, created) -> user + system
        self.largest = 0  # bytes
        self.tree = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        import psutil

        while not self.stop.is_set():
            try:
                procs = [self.root, *self.root.children(recursive=True)]
            except psutil.Error:
                break
            total = 0
            for proc in procs:
                try:
                    with proc.oneshot():
                        times, rss = proc.cpu_times(), proc.memory_info().rss
                        self.cpu[(proc.pid, proc.create_time())] = times.user + times.system
                except psutil.Error:  # ended between the listing and the look
                    continue
                total += rss
                self.largest = max(self.largest, rss)
            self.tree = max(self.tree, total)
            self.stop.wait(self.every)

    def done(self) -> None:
        self.stop.set()
        self.thread.join()


def play(run: Run, rulebook: str, scenario: str | None, seed: int, out: Path) -> Run:
    """One configuration, as a user types it; timed and sampled from outside."""
    command = [sys.executable, "-m", "rulekit", "simulate", rulebook, "--runs", str(run.games)]
    command += ["--seed", str(seed), "--workers", str(run.workers)]
    command += ["--scheduler", run.scheduler, "--out", str(out), "--json"]
    if scenario:
        command += ["--scenario", scenario]
    before = os.getloadavg()[0]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        child = subprocess.Popen(command, stdout=stdout, stderr=stderr, cwd=ROOT)
        sampler = Sampler(child.pid)
        child.wait()
        run.seconds = time.perf_counter() - start
        sampler.done()
        stdout.seek(0)
        stderr.seek(0)
        text, errors = stdout.read().decode(), stderr.read().decode()
    run.load = (before, os.getloadavg()[0])
    run.cpu = sum(sampler.cpu.values())
    run.peak_mib = sampler.largest / 2**20
    run.tree_mib = sampler.tree / 2**20
    run.exit_code = child.returncode
    if run.exit_code not in (0, 1):  # 1: some games failed, listed in the summary
        raise SystemExit(f"{' '.join(command)} exited {run.exit_code}:\n{errors[-2000:]}")
    run.summary = json.loads(text)
    run.failed = len(run.summary.get("failed", []))
    run.shards = int(run.summary.get("run", {}).get("shards", 0))
    run.out_bytes = sum(p.stat().st_size for p in out.glob("*.parquet"))
    return run


def games_of(out: Path) -> Any:
    """The study's games, in seed order, as a pyarrow table."""
    import pyarrow.dataset

    table = pyarrow.dataset.dataset(str(out), format="parquet").to_table()
    return table.sort_by("seed")


def compare(first: Run, first_out: Path, run: Run, out: Path) -> None:
    """The same games and the same summary as the first configuration of this size?"""

    def study(summary: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in summary.items() if k != "run"}  # time, shards, scheduler

    theirs, ours = games_of(first_out), games_of(out)
    problems = []
    if theirs.num_rows != run.games or ours.num_rows != run.games:
        problems.append(f"rows {theirs.num_rows} and {ours.num_rows}, not {run.games}")
    if not ours.equals(theirs):  # same schema, same values, row by row
        if ours.schema != theirs.schema:
            problems.append("the Parquet schemas differ")
        else:
            columns = [c for c in ours.column_names if not ours[c].equals(theirs[c])]
            problems.append(f"Parquet columns differ: {', '.join(columns)}")
    if study(run.summary) != study(first.summary):
        keys = [k for k in study(run.summary) if run.summary[k] != first.summary.get(k)]
        problems.append(f"--json summaries differ in {', '.join(keys)}")
    run.identical = not problems
    run.difference = "; ".join(problems)


def measure(
    sizes: list[int],
    rulebook: str,
    scenario: str | None,
    seed: int,
    configs: tuple[tuple[str, int], ...] = CONFIGS,
    report: Any = None,
    keep: Path | None = None,
) -> list[Run]:
    """Every configuration for every size; the studies are written under ``keep`` (kept)
    or a temporary folder (removed)."""
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="simulate_scale-") as scratch:
        tmp = keep or Path(scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        for games in sizes:
            first: tuple[Run, Path] | None = None
            for scheduler, workers in configs:
                out = tmp / f"{games}-{scheduler}-{workers}"
                if out.exists():  # simulate would resume it: nothing would be measured
                    raise SystemExit(f"{out} exists: give --keep an empty folder")
                run = play(Run(games, scheduler, workers), rulebook, scenario, seed, out)
                if first is None:
                    first, run.identical = (run, out), True
                else:
                    compare(first[0], first[1], run, out)
                runs.append(run)
                if report is not None:
                    report(run)
    return runs


def ratios(runs: list[Run]) -> list[tuple[str, str]]:
    """Wall-time ratios between configurations (games/s of one over the other's)."""
    by = {(r.games, r.scheduler, r.workers): r for r in runs}
    rows = []
    sizes = sorted({r.games for r in runs})
    for games in sizes:
        for scheduler in ("processes", "dask"):
            one, two = by.get((games, scheduler, 1)), by.get((games, scheduler, 2))
            if one and two:
                rows.append(
                    (f"{games} games, {scheduler}: 2 workers / 1", f"{two.rate / one.rate:.2f}")
                )
        for workers in (1, 2):
            proc, dask = by.get((games, "processes", workers)), by.get((games, "dask", workers))
            if proc and dask:
                rows.append(
                    (
                        f"{games} games, {workers} worker(s): Dask / processes",
                        f"{dask.rate / proc.rate:.2f}",
                    )
                )
    if len(sizes) > 1:
        small, large = sizes[0], sizes[-1]
        for scheduler, workers in sorted({(r.scheduler, r.workers) for r in runs}):
            a, b = by.get((small, scheduler, workers)), by.get((large, scheduler, workers))
            if a and b:
                rows.append(
                    (
                        f"{scheduler}, {workers} worker(s): {large} games / {small}",
                        f"{b.rate / a.rate:.2f}",
                    )
                )
    return rows


HEADERS = (
    "games",
    "scheduler, workers",
    "wall s",
    "games/s",
    "CPU s/game",
    "peak MiB: largest / all",
    "load before/after",
    "shards",
    "same games",
)


def cells(run: Run) -> tuple[str, ...]:
    same = "yes" if run.identical else f"NO: {run.difference}"
    failed = f" ({run.failed} failed)" if run.failed else ""
    return (
        f"{run.games:,}{failed}",
        run.name,
        f"{run.seconds:.1f}",
        f"{run.rate:.1f}",
        f"{run.cpu / run.games:.3f}",
        f"{run.peak_mib:.0f} / {run.tree_mib:.0f}",
        f"{run.load[0]:.1f} / {run.load[1]:.1f}",
        str(run.shards),
        same,
    )


def markdown(runs: list[Run]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in runs]
    lines += ["", "| ratio of games/s | value |", "|---|---|"]
    lines += [f"| {what} | {value} |" for what, value in ratios(runs)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games", default="200,2000", help="comma-separated numbers of games (each a study)"
    )
    parser.add_argument("--rulebook", default="rulebooks/silent_war")
    parser.add_argument("--scenario", default="short_campaign", help="'' for the rulebook's")
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed, for all")
    parser.add_argument(
        "--configs",
        default=",".join(f"{s}:{w}" for s, w in CONFIGS),
        help="comma-separated SCHEDULER:WORKERS (default: %(default)s)",
    )
    parser.add_argument("--keep", metavar="DIR", help="keep the studies in DIR")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--json", dest="json_file", help="write the measurements to FILE")
    opts = parser.parse_args(argv)
    sizes = [int(n) for n in opts.games.split(",") if n]
    configs = tuple((c.split(":")[0], int(c.split(":")[1])) for c in opts.configs.split(","))
    try:
        import dask.distributed  # noqa: F401
        import psutil  # noqa: F401  (installed with dask.distributed)
        import pyarrow  # noqa: F401
    except ImportError:
        raise SystemExit("needs the dask extra: pip install -e '.[dask]'") from None
    console = Console(stderr=True)
    console.print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {opts.rulebook} "
        f"{opts.scenario or '(its scenario)'}, games {sizes}, seed {opts.seed}, "
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}"
    )
    runs = measure(
        sizes,
        opts.rulebook,
        opts.scenario or None,
        opts.seed,
        configs,
        report=lambda r: console.print(" | ".join(cells(r))),
        keep=Path(opts.keep) if opts.keep else None,
    )
    if opts.json_file:
        rows = [
            {k: v for k, v in vars(r).items() if k != "summary"} | {"games_per_s": r.rate}
            for r in runs
        ]
        Path(opts.json_file).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    if opts.markdown:
        print(markdown(runs))
    else:
        grid = Table(title=f"rulekit simulate at scale ({os.cpu_count()} cores)")
        for header in HEADERS:
            grid.add_column(header)
        for run in runs:
            grid.add_row(*cells(run))
        Console().print(grid)
        for what, value in ratios(runs):
            Console().print(f"{what}: {value}")
    return 0 if all(r.identical for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
