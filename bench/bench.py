"""rulekit benchmarks: measured, never asserted.

    python bench/bench.py            # full settings (about a minute on 2 cores)
    python bench/bench.py --quick    # tiny settings: the test suite runs this to keep it working

Measures
  1. the interpreter against a hand-written Python reference of the same procedure
     (Silent War [6.0] Torpedo Improvement Phase: a table look-up, a roll, state changes;
     the sub-commander [A2] AA attack: a roll, five modifiers, a table; bench/reference_aa.py),
     and one Silent War combat round ([14.15] Spearfish example): `rulekit resolve` of
     combat_round with its --given file, and the procedure call alone (what exact
     enumeration repeats once per dice path), beside a hand-written round
     (bench/reference_combat.py, checked to end in the same state on hundreds of seeds);
  2. loading and checking each bundled rulebook;
  3. seconds per Silent War short campaign and per full default run (`rulekit run
     rulebooks/silent_war`, a fresh process), and the peak memory of a campaign;
  4. `rulekit simulate` throughput with 1 and 2 worker processes;
  5. start-up (`--only startup`): `rulekit --help` against a bare `python -c pass`, and
     loading + checking Silent War in one process: parsing every file (no parse cache),
     and from the parse cache.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the printed tables the reference reads
sys.path.insert(0, str(ROOT / "bench"))  # bench_exact, when this file is imported

from bench_exact import bench_exact  # noqa: E402
from printed import IMPROVEMENT  # noqa: E402
from reference_aa import bench_aa  # noqa: E402
from reference_combat import bench_combat_reference  # noqa: E402

from rulekit.book.checker import Checked, check  # noqa: E402
from rulekit.book.inputs import find_target  # noqa: E402
from rulekit.book.loader import load_rulebook  # noqa: E402
from rulekit.engine.dice import SeededDice  # noqa: E402
from rulekit.engine.interpreter import Interpreter  # noqa: E402
from rulekit.engine.policy import DefaultPolicy  # noqa: E402
from rulekit.engine.session import bind_inputs, resolve  # noqa: E402
from rulekit.play.runner import new_game  # noqa: E402
from rulekit.play.simulate import simulate  # noqa: E402

SW = ROOT / "rulebooks" / "silent_war"
SPEARFISH = ROOT / "examples" / "silent_war" / "spearfish_14_15.toml"

# ---- 1. interpreter vs a hand-written reference ----------------------------------------


def reference_phase(state: dict[str, int | None], roll_d10: Callable[[], int]) -> str:
    """The Torpedo Improvement Phase written by hand, as the rulebook's procedure says."""
    torpedo = state["torpedo"]
    assert torpedo is not None
    if torpedo >= 2:
        return "no_attempt"
    needed = None
    for ships, roll in IMPROVEMENT[torpedo]:
        if state["ships_sunk"] is not None and state["ships_sunk"] >= ships:
            needed = roll
    if needed is None:
        return "no_attempt"
    tried = state["torpedo_line_tried"]
    if tried is not None and needed >= tried:
        return "no_attempt"
    if roll_d10() >= needed:
        state["torpedo"] = torpedo + 1
        state["torpedo_line_tried"] = None
        return "improved"
    state["torpedo_line_tried"] = needed
    return "not_improved"


def situations(n: int) -> list[tuple[int, int]]:
    rng = random.Random(1)
    return [(rng.choice([-2, -1, 0, 1]), rng.randrange(0, 1300)) for _ in range(n)]


def bench_reference(book: Checked, n: int, traced: bool = True) -> tuple[float, float]:
    """Seconds per call of the rulebook's [6.0] procedure (traced, or run off the record as
    simulate and prob may), and of the hand-written reference."""
    cases = situations(n)
    interp = Interpreter(book, SeededDice(5), DefaultPolicy())
    interp.mute(not traced)
    start = time.perf_counter()
    for torpedo, ships in cases:
        interp.state.values.update(torpedo=torpedo, ships_sunk=ships, torpedo_line_tried=None)
        interp.call("torpedo_improvement_phase", {})
        interp.trace.events.clear()
    rulekit = (time.perf_counter() - start) / n
    rng = random.Random(5)
    roll = lambda: rng.randrange(10)  # noqa: E731 - the reference's whole dice source
    start = time.perf_counter()
    for torpedo, ships in cases:
        reference_phase({"torpedo": torpedo, "ships_sunk": ships, "torpedo_line_tried": None}, roll)
    reference = (time.perf_counter() - start) / n
    return rulekit, reference


def bench_combat_round(book: Checked, n: int, traced: bool = True) -> tuple[float, float]:
    """Seconds per combat round over n seeds: the whole resolve, and the call alone."""
    given = str(SPEARFISH)
    resolve(book, "combat_round", given=given, seed=0)  # code generated on first use
    start = time.perf_counter()
    for seed in range(n):
        resolve(book, "combat_round", given=given, seed=seed)
    whole = (time.perf_counter() - start) / n
    target = find_target(book, "combat_round", ("procedure",))
    ready = []
    for seed in range(n):
        interp = Interpreter(book, SeededDice(seed), DefaultPolicy())
        ready.append((interp, bind_inputs(book, target, interp, given, [])))
        interp.mute(not traced)
    start = time.perf_counter()
    for interp, args in ready:
        interp.call("combat_round", args)
    return whole, (time.perf_counter() - start) / n


# ---- 2.-4. loading, runs, memory, simulation -------------------------------------------


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def load_and_check(path: Path) -> Checked:
    return check(load_rulebook(str(path)))


def campaign(book: Checked, seed: int) -> None:
    new_game(book, "short_campaign", seed).play()


def peak_memory(book: Checked) -> float:
    tracemalloc.start()
    campaign(book, 1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def default_run() -> None:
    subprocess.run(
        [sys.executable, "-m", "rulekit.cli.main", "run", str(SW), "--seed", "1"],
        check=True,
        capture_output=True,
    )


# ---- 5. exact probabilities: bench/bench_exact.py ------------------------------------------

ENGINES = (  # (label, traced?)
    ("generated, traced", True),
    ("generated, untraced", False),
)


def bench_interpreter(rows: list[tuple[str, str]], quick: bool) -> None:
    book = load_and_check(SW)
    calls, rounds = (200, 1) if quick else (5_000, 5)
    for label, traced in ENGINES:
        bench_reference(book, 50, traced)  # code generated on first use
        # the best of several rounds: the machine may be busy with other work
        ours, ref = map(
            min,
            zip(*(bench_reference(book, calls, traced) for _ in range(rounds)), strict=True),
        )
        rows.append(
            (f"[6.0] phase, rulekit {label} (per call)", f"{ours * 1e6:.1f} µs = {ours / ref:.0f}x")
        )
    rows.append(("[6.0] phase, hand-written Python (per call)", f"{ref * 1e6:.2f} µs"))
    wolves = load_and_check(ROOT / "rulebooks" / "steel_wolves_like")
    for label, traced in ENGINES:
        bench_aa(wolves, 50, traced)  # code generated on first use
        ours, ref = map(
            min, zip(*(bench_aa(wolves, calls, traced) for _ in range(rounds)), strict=True)
        )
        rows.append(
            (
                f"[A2] AA attack, rulekit {label} (per call)",
                f"{ours * 1e6:.1f} µs = {ours / ref:.0f}x",
            )
        )
    rows.append(("[A2] AA attack, hand-written Python (per call)", f"{ref * 1e6:.2f} µs"))
    for label, traced in ENGINES:
        bench_combat_round(book, 3, traced)
        runs = 10 if quick else 100
        whole, call = map(
            min,
            zip(*(bench_combat_round(book, runs, traced) for _ in range(rounds)), strict=True),
        )
        if traced:
            rows.append((f"combat round, `resolve` with --given, {label}", f"{whole * 1e3:.2f} ms"))
        rows.append((f"  the combat_round call alone, {label}", f"{call * 1e3:.2f} ms"))
    # the call alone against the hand-written round (bench/reference_combat.py), side by side
    runs = 20 if quick else 300
    untraced, traced_call, ref = map(
        min, zip(*(bench_combat_reference(book, runs) for _ in range(rounds)), strict=True)
    )
    for label, ours in (("untraced", untraced), ("traced", traced_call)):
        rows.append(
            (
                f"combat round, the call, rulekit {label}",
                f"{ours * 1e6:.0f} µs = {ours / ref:.1f}x",
            )
        )
    rows.append(("combat round, hand-written Python", f"{ref * 1e6:.0f} µs"))
    for path in sorted((ROOT / "rulebooks").iterdir()):
        if (path / "rulebook.rk").exists():
            with parse_cache("off"):
                cold = timed(lambda p=path: load_and_check(p), 1 if quick else 3)
            with tempfile.TemporaryDirectory() as folder, parse_cache(folder):
                load_and_check(path)  # fills the cache
                warm = timed(lambda p=path: load_and_check(p), 1 if quick else 3)
            rows.append(
                (
                    f"load + check {path.name}, parsing / from the cache",
                    f"{min(cold):.2f} s / {min(warm):.2f} s",
                )
            )


@contextmanager
def parse_cache(setting: str) -> Iterator[None]:
    """RULEKIT_CACHE set to ``setting`` for a while (the parse cache reads it each time)."""
    before = os.environ.get("RULEKIT_CACHE")
    os.environ["RULEKIT_CACHE"] = setting
    try:
        yield
    finally:
        if before is None:
            del os.environ["RULEKIT_CACHE"]
        else:
            os.environ["RULEKIT_CACHE"] = before


def bench_runs(rows: list[tuple[str, str]], quick: bool) -> None:
    book = load_and_check(SW)
    per = [timed(lambda s=s: campaign(book, s), 1)[0] for s in range(1, 3 if quick else 11)]
    mean, worst = statistics.mean(per), max(per)
    rows.append((f"short campaign, {len(per)} seeds", f"mean {mean:.2f} s, max {worst:.2f} s"))
    rows.append(("peak memory of a campaign (tracemalloc)", f"{peak_memory(book):.1f} MiB"))
    full = timed(default_run, 1 if quick else 3)
    rows.append(("`rulekit run rulebooks/silent_war` (process)", f"{min(full):.2f} s"))
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    rows.append(("  its peak resident memory", f"{rss:.0f} MiB"))
    runs = 4 if quick else 40
    for workers in (1, 2):
        start = time.perf_counter()
        simulate(str(SW), "short_campaign", runs, seed=100, workers=workers)
        rate = runs / (time.perf_counter() - start)
        rows.append((f"simulate {runs} campaigns, {workers} worker(s)", f"{rate:.2f} games/s"))


def cpu_timed(fn: Callable[[], object], repeat: int) -> list[float]:
    """CPU seconds of ``fn`` and of the processes it waits for: on a shared machine, wall
    time also counts the other jobs running."""
    times = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.process_time()
        fn()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        children = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        times.append(time.process_time() - start + children)
    return times


def bench_startup(rows: list[tuple[str, str]], quick: bool) -> None:
    """Start-up, side by side: a bare interpreter, `--help`, and Silent War loaded."""
    repeat = 3 if quick else 15
    # as an installed rulekit starts: modules compiled once, read from .pyc files after
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def process(*args: str) -> Callable[[], None]:
        command = [sys.executable, *args]
        subprocess.run(command, check=True, capture_output=True, env=env)  # writes the .pyc
        return lambda: subprocess.run(command, check=True, capture_output=True, env=env)

    bare = statistics.median(cpu_timed(process("-c", "pass"), repeat))
    helped = statistics.median(cpu_timed(process("-m", "rulekit", "--help"), repeat))
    rows.append(("`python -c pass` (process, CPU, median)", f"{bare * 1e3:.0f} ms"))
    rows.append(
        (
            "`rulekit --help` (process, CPU, median)",
            f"{helped * 1e3:.0f} ms (+{(helped - bare) * 1e3:.0f})",
        )
    )
    with tempfile.TemporaryDirectory() as folder, parse_cache(folder):
        load_and_check(SW)  # imports, and the parser's tables built and kept in the folder
        with parse_cache("off"):
            cold = cpu_timed(lambda: load_and_check(SW), 1 if quick else 5)
        warm = cpu_timed(lambda: load_and_check(SW), 1 if quick else 9)
    rows.append(("load + check Silent War in process, parsing (CPU, best)", f"{min(cold):.3f} s"))
    rows.append(("  from the parse cache (CPU, best)", f"{min(warm):.3f} s"))


GROUPS = {
    "interpreter": bench_interpreter,
    "runs": bench_runs,
    "prob": bench_exact,
    "startup": bench_startup,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny settings")
    parser.add_argument("--only", choices=sorted(GROUPS), help="one group of measurements")
    opts = parser.parse_args()
    rows: list[tuple[str, str]] = []
    for name, group in GROUPS.items():
        if opts.only in (None, name):
            gc.collect()  # one group's garbage is not the next one's to collect
            group(rows, opts.quick)
    table = Table(title="rulekit benchmarks" + (" (quick)" if opts.quick else ""))
    table.add_column("what")
    table.add_column("measured", justify="right")
    for what, value in rows:
        table.add_row(what, value)
    Console().print(table)


if __name__ == "__main__":
    main()
