"""Silent War 2.1: many campaigns under the invariant checker (issue 11 §4). Measured, not asserted.

    python bench/campaigns.py                                  # 2,000 short campaigns per policy
    python bench/campaigns.py --games 50                       # a small sample
    python bench/campaigns.py --scenario full_campaign --games 200
    python bench/campaigns.py --turns 115                      # play on past the victory check
    python bench/campaigns.py --policy default --seeds 14,119  # these seeds again

Each game is played turn by turn with the checks of tests/test_silent_war_invariants.py after
every turn, under the default and the random decision policy (seeds 0, 1, ...). It prints, per
policy, how many games broke a rule (the rulebook stopped the game: a `require` failed or the
interpreter gave up) and how many games breached each invariant, with the first example.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from test_silent_war_invariants import INVARIANTS, Report, play_checked  # noqa: E402

from rulekit.book.checker import Checked, load  # noqa: E402

_BOOK: Checked | None = None


def _init() -> None:
    global _BOOK
    _BOOK = load(str(ROOT / "rulebooks" / "silent_war"))


def _play(job: tuple[int, str, str, int | None]) -> Report:
    seed, policy, scenario, turns = job
    assert _BOOK is not None
    return play_checked(_BOOK, seed, policy, scenario, turns)


def run(
    seeds: list[int], policy: str, scenario: str, turns: int | None, workers: int
) -> list[Report]:
    jobs = [(seed, policy, scenario, turns) for seed in seeds]
    if workers <= 1:
        _init()
        return [_play(job) for job in jobs]
    with ProcessPoolExecutor(workers, initializer=_init) as pool:
        return list(pool.map(_play, jobs, chunksize=8))


def report(policy: str, reports: list[Report], seconds: float) -> int:
    """Print one policy's counts; the number of games with any breach."""
    games: Counter[str] = Counter()
    breaches: Counter[str] = Counter()
    first: dict[str, str] = {}
    for r in reports:
        broken = r.broken()
        breaches += broken
        for name in broken:
            games[name] += 1
            if name not in first:
                turn, _, what = next(b for b in r.breaches if b[1] == name)
                first[name] = f"seed {r.seed} turn {turn}: {what}"
    turns = sum(r.turns for r in reports)
    bad = sum(1 for r in reports if r.breaches)
    print(f"\n{policy} policy: {len(reports)} games, {turns} turns, {seconds:.1f} s")
    print(f"  broken rules (game stopped): {games['game_runs']} games")
    print(f"  games with any invariant failure: {bad}")
    for name in INVARIANTS:
        if name == "game_runs":
            continue
        line = f"  {name:22} {games[name]:6} games {breaches[name]:8} breaches"
        print(line + (f"   e.g. {first[name]}" if name in first else ""))
    if "game_runs" in first:
        print(f"  first broken rule: {first['game_runs']}")
    if bad:
        seeds = ",".join(str(r.seed) for r in reports if r.breaches)
        print(f"  seeds with a breach (again: --policy {policy} --seeds {seeds})")
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per policy")
    parser.add_argument("--scenario", default="short_campaign")
    parser.add_argument("--turns", type=int, default=None, help="play this many turns")
    parser.add_argument("--policy", choices=["default", "random", "both"], default="both")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--seeds", default=None, metavar="A,B,...", help="these seeds only (instead of --games)"
    )
    args = parser.parse_args(argv)
    seeds = (
        [int(x) for x in args.seeds.split(",") if x.strip()]
        if args.seeds
        else list(range(args.games))
    )
    policies = ["default", "random"] if args.policy == "both" else [args.policy]
    print(f"Silent War 2.1, {args.scenario}: invariants checked after every turn")
    bad = 0
    for policy in policies:
        start = time.perf_counter()
        reports = run(seeds, policy, args.scenario, args.turns, args.workers)
        bad += report(policy, reports, time.perf_counter() - start)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
