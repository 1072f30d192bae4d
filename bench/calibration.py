"""Silent War 2.1: does the war the provisional charts give look like the real one? (issue 11 §3)

    python bench/calibration.py                       # 500 full + 500 short campaigns, 2 workers
    python bench/calibration.py --games 20            # a quick look while tuning
    python bench/calibration.py --games 300 --short-games 500
    python bench/calibration.py --scenario short_campaign --games 200
    python bench/calibration.py --json results.json   # every game's figures, for a plot
    python bench/calibration.py --rulebook /tmp/sw --games 30   # a changed copy, while tuning

Measured, never asserted. Each game is played untraced under the default decision policy (seeds
0, 1, ...). Printed, with the median and the 10th-90th percentile spread over the games:

- the whole war against the record: US submarines sank about 1,113 merchant and 201 naval
  vessels, about 5.3 million tons (JANAC, 1947); the goal is a median within 35% of both;
- the rules' own scale: the month the torpedo first improves ([6.0]: the first roll at 70 ships
  sunk; the Mk-XIV worked "21 months after the start of the war", i.e. in 1943) and its level at
  the end of 1943, the months the War Periods change [17.0];
- the cost: submarines lost (the record: 52 U.S. submarines lost in the war);
- the short campaign against the full campaign's same weeks: the same charts, the same rate.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulekit.book.checker import Checked, load  # noqa: E402
from rulekit.play.runner import new_game  # noqa: E402

# The record (JANAC, "Japanese Naval and Merchant Shipping Losses During World War II by All
# Causes", 1947), as issue 11 cites it; tonnage in thousands, as on the Tonnage Sunk track.
RECORD = {"ships_sunk": 1113 + 201, "tonnage_sunk": 5300, "subs_lost": 52}
TOLERANCE = 0.35
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

_BOOK: Checked | None = None
RULEBOOK = ROOT / "rulebooks" / "silent_war"


def _init(rulebook: str) -> None:
    global _BOOK
    _BOOK = load(rulebook)


def _date(values: dict[str, Any]) -> str:
    return f"{values['month']} {values['year']}"


def play(job: tuple[int, str]) -> dict[str, Any]:
    """One game: its end figures, the date of each torpedo step and War Period, by year."""
    seed, scenario = job
    assert _BOOK is not None
    start = time.perf_counter()
    game = new_game(_BOOK, scenario, seed, "default")
    game.interp.mute(True)  # untraced: the figures are read from the state
    values = game.interp.state.values
    torpedo, period, year = values["torpedo"], values["war_period"], values["year"]
    torpedo_steps: list[tuple[int, str]] = []
    periods: list[tuple[str, str]] = []
    by_year: dict[int, tuple[int, int]] = {}
    by_turn: list[tuple[int, int]] = []
    while game.ended is None:
        game.play(1)
        if values["torpedo"] != torpedo:
            torpedo = values["torpedo"]
            torpedo_steps.append((int(torpedo), _date(values)))
        if values["war_period"] != period:
            period = values["war_period"]
            periods.append((str(period), _date(values)))
        if values["year"] != year:
            by_year[int(year)] = (int(values["ships_sunk"]), int(values["tonnage_sunk"]))
            year = values["year"]
        by_turn.append((int(values["ships_sunk"]), int(values["tonnage_sunk"])))
    subs = values["subs"]
    lost = sum(1 for s in subs if str(s.attrs["status"]) in ("sunk", "constructive_total_loss"))
    return {
        "seed": seed,
        "scenario": scenario,
        "ships_sunk": int(values["ships_sunk"]),
        "tonnage_sunk": int(values["tonnage_sunk"]),
        "subs_lost": lost,
        "subs": len(subs),
        "torpedo": int(values["torpedo"]),
        "torpedo_steps": torpedo_steps,
        "war_periods": periods,
        "by_year": by_year,
        "by_turn": by_turn,
        "result": game.ended,
        "seconds": time.perf_counter() - start,
    }


def run(
    scenario: str, games: int, workers: int, rulebook: str = str(RULEBOOK)
) -> list[dict[str, Any]]:
    jobs = [(seed, scenario) for seed in range(games)]
    if workers <= 1:
        _init(rulebook)
        return [play(job) for job in jobs]
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(rulebook,)) as pool:
        return list(pool.map(play, jobs, chunksize=1))


def spread(xs: list[float]) -> str:
    """Median and the 10th-90th percentile range."""
    if not xs:
        return "-"
    xs = sorted(xs)
    lo, hi = xs[int(0.1 * (len(xs) - 1))], xs[int(0.9 * (len(xs) - 1))]
    return f"{statistics.median(xs):>8.0f}  ({lo:.0f}-{hi:.0f})"


def month_index(date: str) -> int:
    month, year = date.split()
    return MONTHS.index(month) + 12 * int(year)


def median_month(dates: list[str]) -> str:
    if not dates:
        return "never"
    idx = int(statistics.median_low([month_index(d) for d in dates]))
    return f"{MONTHS[idx % 12]} {idx // 12}"


def report_full(games: list[dict[str, Any]]) -> None:
    n = len(games)
    seconds = statistics.mean(g["seconds"] for g in games)
    print(f"\nfull campaign: {n} games, default policy, {seconds:.1f} s a game")
    print(f"  {'':24}{'median  (10%-90%)':>24}  {'record':>8}  within 35%")
    for key, label in (
        ("ships_sunk", "ships sunk"),
        ("tonnage_sunk", "tons sunk (thousands)"),
        ("subs_lost", "submarines lost"),
    ):
        xs = [g[key] for g in games]
        med = statistics.median(xs)
        ok = abs(med - RECORD[key]) <= TOLERANCE * RECORD[key]
        print(f"  {label:24}{spread(xs):>24}  {RECORD[key]:>8}  {'yes' if ok else 'NO'}")
    years = sorted({y for g in games for y in g["by_year"]})
    print("  by the end of the year (ships, tons):")
    for y in years:
        ships = [g["by_year"][y][0] for g in games if y in g["by_year"]]
        tons = [g["by_year"][y][1] for g in games if y in g["by_year"]]
        print(f"    {y}: {spread(ships)} ships {spread(tons)} thousand tons")
    print("  torpedo [6.0] (starts at -2):")
    for level in (-1, 0, 1, 2):
        dates = [d for g in games for lv, d in g["torpedo_steps"] if lv == level]
        share = len(dates) / n
        print(f"    reaches {level:+d} in {share:5.0%} of games, median {median_month(dates)}")
    end43 = Counter(_level_at(g, "Dec 1943") for g in games)
    print(
        "    level at the end of 1943: "
        + ", ".join(f"{lv:+d}: {c / n:.0%}" for lv, c in sorted(end43.items()))
    )
    print("  War Periods [17.0]:")
    for wp in ("WP2", "WP3", "WP4"):
        dates = [d for g in games for p, d in g["war_periods"] if p == wp]
        print(f"    {wp} in {len(dates) / n:5.0%} of games, median {median_month(dates)}")
    results = Counter(str(g["result"]).split(":")[0] for g in games)
    print("  results [16.1]: " + ", ".join(f"{r} {c / n:.0%}" for r, c in results.most_common()))


def _level_at(game: dict[str, Any], date: str) -> int:
    level = -2
    for lv, d in game["torpedo_steps"]:
        if month_index(d) <= month_index(date):
            level = lv
    return level


def report_short(short: list[dict[str, Any]], full: list[dict[str, Any]]) -> None:
    turns = max(len(g["by_turn"]) for g in short)
    boats = statistics.median(g["subs"] for g in short)
    print(f"\nshort campaign: {len(short)} games ({turns} turns, {boats:.0f} boats)")
    for i, label in ((0, "ships sunk"), (1, "tons sunk (thousands)")):
        xs = [g["by_turn"][-1][i] for g in short]
        print(f"  {label:24}{spread(xs):>24}", end="")
        same = [g["by_turn"][min(turns, len(g["by_turn"])) - 1][i] for g in full]
        print(f"   full campaign, same weeks: {spread(same)}" if full else "")
    results = Counter(str(g["result"]).split(":")[0] for g in short)
    print(
        "  results [16.1]: "
        + ", ".join(f"{r} {c / len(short):.0%}" for r, c in results.most_common())
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=500, help="full campaigns (default 500)")
    parser.add_argument("--short-games", type=int, help="short campaigns (default: as --games)")
    parser.add_argument(
        "--scenario", choices=["full_campaign", "short_campaign", "both"], default="both"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", metavar="FILE", help="write every game's figures here")
    parser.add_argument(
        "--rulebook", default=str(RULEBOOK), help="a variant of Silent War to try (a copy)"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    full = (
        run("full_campaign", args.games, args.workers, args.rulebook)
        if args.scenario != "short_campaign"
        else []
    )
    short_games = args.games if args.short_games is None else args.short_games
    short = (
        run("short_campaign", short_games, args.workers, args.rulebook)
        if args.scenario != "full_campaign"
        else []
    )
    print(f"Silent War 2.1 calibration (issue 11 §3), {time.perf_counter() - start:.0f} s")
    if full:
        report_full(full)
    if short:
        report_short(short, full)
    if args.json:
        Path(args.json).write_text(json.dumps(full + short, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
