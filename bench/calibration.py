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
- the short campaign against the full campaign's same weeks: the same charts, the same rate;
- the war's shape (issue 30 §3): the tonnage sunk in each year beside the record's, the causes
  of the submarines lost, how the default player spreads its boats (the most boats in one
  OpArea in December 1941) and the most boats waiting for repair at one Base.

    python bench/calibration.py --scenario full_campaign --games 60 --workers 1 --check

`--check` exits 1 when a median is outside the bounds of docs/calibration.md (a bench-only
check: the suite runs this script with two short campaigns only).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulekit.book.checker import Checked, load  # noqa: E402
from rulekit.engine import codegen  # noqa: E402
from rulekit.engine.program import program_for  # noqa: E402
from rulekit.play.runner import new_game  # noqa: E402

# The record (JANAC, "Japanese Naval and Merchant Shipping Losses During World War II by All
# Causes", 1947), as issue 11 cites it; tonnage in thousands, as on the Tonnage Sunk track.
RECORD = {"ships_sunk": 1113 + 201, "tonnage_sunk": 5300, "subs_lost": 52}
TOLERANCE = 0.35
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

# The war's shape (issue 30 §3): Japanese merchant tonnage sunk by U.S. submarines in each
# year, thousands of tons, as JANAC's figures are usually quoted: 1943 about 1.34 million and
# 1944 about 2.7 million (the figures issue 30 gives), 1942 about 0.6-0.7 million and 1945
# about 0.4-0.5 million (the middle of each range is used). Sources differ by up to ~10% (merchant
# ships only or with the naval auxiliaries; JANAC's 1947 tables and the USSBS report "The War
# Against Japanese Transportation", 1947, as tabulated in Blair, "Silent Victory", 1975), which
# is well inside the 35% aimed at. The four years add up to 5.14 million tons, the record's
# 5.3 million with the warships. The 1945 figure covers January to August.
RECORD_BY_YEAR = {1942: 650, 1943: 1340, 1944: 2700, 1945: 450}
# 1945 "far below 1944 (Japan had little shipping left)": at most this share of 1944's tonnage
LAST_YEAR_SHARE = 0.35
# causes of the U.S. submarines lost: the record's 52 boats were lost to enemy action (ships,
# aircraft, mines, submarines) and a few to accidents and groundings; none is put down to
# weather alone. The calibration aims at storms being a small share of the boats lost.
STORM_SHARE = 0.20
# how a commander spreads boats: never more than this many in one OpArea in December 1941
# (today's 38-42 was the default player sending every boat to the busiest OpArea), and a Base
# that never falls keeps no more than this many boats waiting for repair (Repair and Hold)
CROWD_DEC41 = 12
REPAIR_QUEUE = 30

_BOOK: Checked | None = None
RULEBOOK = ROOT / "rulebooks" / "silent_war"

# ---- what a lost submarine was lost to ------------------------------------------------------

# The procedure a loss happens in names its cause: the innermost of these on the call stack
# when sub_sunk [18.1] (or constructive_total_loss [18.12]) changes a boat's status.
CAUSES = (
    ("storm_damage_check", "storm [7.21]"),
    ("transit_event_check", "transit event [19.1]"),
    ("beyond_range", "out of range [15.26]"),
    ("counterattack", "counterattack [14.2]"),
    ("apply_combat_event", "combat event [19.2]"),
    ("sub_vs_sub", "enemy submarine [14.6]"),
    ("search_and_combat", "combat, other"),
    ("pack_search_and_combat", "combat, other"),
)
_LOSSES: list[str] = []  # the causes of this game's losses, in order (one game at a time)


def cause_of_loss(frames: list[str]) -> str:
    """The cause a loss is put down to, from the names of the frames on the call stack
    (outermost first): the innermost procedure of CAUSES, else the innermost procedure."""
    procedures = [f.removeprefix("procedure ") for f in frames if f.startswith("procedure ")]
    for name in reversed(procedures):
        for proc, label in CAUSES:
            if name == proc:
                return label
    return f"other ({procedures[-2] if len(procedures) > 1 else 'unknown'})"


def install_loss_hook(book: Checked) -> None:
    """Record why each submarine is lost, without tracing the game: the untraced functions of
    sub_sunk and constructive_total_loss are wrapped (measurement only; the wrapper changes
    nothing and throws no die). A bench helper: it reads the engine's call frames."""
    program = program_for(book)
    for name in ("sub_sunk", "constructive_total_loss"):
        proc = program.procedure(name)
        if getattr(proc.untraced, "loss_hook", False):
            continue
        run = codegen.generated(program, book.book.procedures[name], False).function

        def hooked(i: Any, run: Any = run, name: str = name) -> Any:
            sub = i.locals.get("sub")
            before = str(sub.attrs["status"]) if sub is not None else ""
            out = run(i)
            if sub is not None and str(sub.attrs["status"]) != before:
                cause = cause_of_loss([f.name for f in i.frames])
                _LOSSES.append(cause if name == "sub_sunk" else "constructive total loss [18.12]")
            return out

        hooked.loss_hook = True  # type: ignore[attr-defined]
        proc.untraced = hooked


def _init(rulebook: str) -> None:
    global _BOOK
    _BOOK = load(rulebook)
    install_loss_hook(_BOOK)


def _date(values: dict[str, Any]) -> str:
    return f"{values['month']} {values['year']}"


def in_each_year(turns: list[tuple[int, int, int]]) -> dict[int, tuple[int, int]]:
    """Ships and tons sunk in each year, from (year the turn was played in, ships sunk after
    it, tons sunk after it) for each turn: a turn's sinkings count in the year of its date
    (Conclude Turn advances the date after them [16.3])."""
    out: dict[int, tuple[int, int]] = {}
    ships_before = tons_before = 0
    for year, ships, tons in turns:
        s, t = out.get(year, (0, 0))
        out[year] = (s + ships - ships_before, t + tons - tons_before)
        ships_before, tons_before = ships, tons
    return out


def _waiting_for_repair(subs: list[Any]) -> int:
    """The most boats in Repair Boxes and the Hold Box at any one Base."""
    at: Counter[str] = Counter()
    for s in subs:
        attrs = s.attrs
        if str(attrs["status"]) == "active" and str(attrs["box"]) in _REPAIR_BOXES:
            at[str(attrs["base"])] += 1
    return max(at.values(), default=0)


_REPAIR_BOXES = frozenset({"Repair 3", "Repair 2", "Repair 1", "Hold"})


def _most_in_one_area(subs: list[Any]) -> int:
    """The most boats at sea in one OpArea."""
    at: Counter[str] = Counter()
    for s in subs:
        attrs = s.attrs
        if str(attrs["status"]) == "active" and attrs["area"] is not None:
            at[str(attrs["area"])] += 1
    return max(at.values(), default=0)


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
    turns: list[tuple[int, int, int]] = []
    crowd_dec41 = crowd = repair_queue = 0
    del _LOSSES[:]
    while game.ended is None:
        played_in, month = int(values["year"]), str(values["month"])
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
        ships, tons = int(values["ships_sunk"]), int(values["tonnage_sunk"])
        by_turn.append((ships, tons))
        turns.append((played_in, ships, tons))
        subs = values["subs"]
        most = _most_in_one_area(subs)
        crowd = max(crowd, most)
        if played_in == 1941 and month == "Dec":
            crowd_dec41 = max(crowd_dec41, most)
        repair_queue = max(repair_queue, _waiting_for_repair(subs))
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
        "in_year": in_each_year(turns),
        "by_turn": by_turn,
        "loss_causes": dict(Counter(_LOSSES)),
        "decommissioned": sum(1 for s in subs if str(s.attrs["status"]) == "decommissioned"),
        "crowd_dec41": crowd_dec41,
        "crowd": crowd,
        "repair_queue": repair_queue,
        "result": game.ended,
        "seconds": time.perf_counter() - start,
    }


def run(
    scenario: str, games: int, workers: int, rulebook: str = str(RULEBOOK), first_seed: int = 0
) -> list[dict[str, Any]]:
    jobs = [(seed, scenario) for seed in range(first_seed, first_seed + games)]
    if workers <= 1:
        _init(rulebook)
        return [play(job) for job in jobs]
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(rulebook,)) as pool:
        return list(pool.map(play, jobs, chunksize=1))


def spread(xs: Sequence[float]) -> str:
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
    for g in games:  # a game read from --json has its years as text
        g["by_year"] = {int(y): v for y, v in g["by_year"].items()}
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


def _year_figure(game: dict[str, Any], year: int) -> int:
    """Tons sunk in one year of a game (thousands); a game's JSON has its years as text."""
    in_year = game["in_year"]
    got = in_year.get(year, in_year.get(str(year)))
    return int(got[1]) if got is not None else 0


def shape_checks(games: list[dict[str, Any]]) -> list[tuple[str, str, bool]]:
    """The bounds of the war's shape (issue 30 §3, docs/calibration.md), each as (what, the
    medians measured against the bound, met or not), over full campaigns."""
    checks: list[tuple[str, str, bool]] = []
    medians = {y: statistics.median(_year_figure(g, y) for g in games) for y in RECORD_BY_YEAR}
    for y, record in RECORD_BY_YEAR.items():
        med = medians[y]
        ok = abs(med - record) <= TOLERANCE * record
        checks.append((f"tons sunk in {y}", f"{med:.0f} against {record} (35%)", ok))
    last, peak = max(RECORD_BY_YEAR), max(RECORD_BY_YEAR, key=RECORD_BY_YEAR.__getitem__)
    share = medians[last] / medians[peak] if medians[peak] else float("inf")
    checks.append(
        (
            f"{last} against {peak}",
            f"{share:.0%} of {peak} (at most {LAST_YEAR_SHARE:.0%})",
            share <= LAST_YEAR_SHARE,
        )
    )
    causes: Counter[str] = Counter()
    for g in games:
        causes.update(g["loss_causes"])
    lost = sum(causes.values())
    storms = sum(c for cause, c in causes.items() if cause.startswith("storm"))
    storm_share = storms / lost if lost else 0.0
    checks.append(
        (
            "boats lost to storms",
            f"{storm_share:.0%} of {lost} (at most {STORM_SHARE:.0%})",
            storm_share <= STORM_SHARE,
        )
    )
    crowd = statistics.median(g["crowd_dec41"] for g in games)
    checks.append(
        (
            "most boats in one OpArea, Dec 1941",
            f"{crowd:.0f} (at most {CROWD_DEC41})",
            crowd <= CROWD_DEC41,
        )
    )
    queue = statistics.median(g["repair_queue"] for g in games)
    checks.append(
        (
            "most boats waiting for repair at a Base",
            f"{queue:.0f} (at most {REPAIR_QUEUE})",
            queue <= REPAIR_QUEUE,
        )
    )
    return checks


def report_shape(games: list[dict[str, Any]]) -> bool:
    """Print the war's shape beside the record; whether every bound is met."""
    print("\n  the war's shape (issue 30 §3), full campaigns:")
    print(f"  {'tons sunk in the year':24}{'median  (10%-90%)':>24}  {'record':>8}  within 35%")
    years = sorted({int(y) for g in games for y in g["in_year"]})
    for y in years:
        xs = [_year_figure(g, y) for g in games]
        record = RECORD_BY_YEAR.get(y)
        if record is None:
            print(f"  {y:<24}{spread(xs):>24}  {'-':>8}")
            continue
        ok = abs(statistics.median(xs) - record) <= TOLERANCE * record
        print(f"  {y:<24}{spread(xs):>24}  {record:>8}  {'yes' if ok else 'NO'}")
    causes: Counter[str] = Counter()
    for g in games:
        causes.update(g["loss_causes"])
    lost = sum(causes.values())
    print(f"  submarines lost, by cause ({lost} in {len(games)} games):")
    for cause, c in causes.most_common():
        print(f"    {cause:40}{c / len(games):6.1f} a game  {c / max(lost, 1):5.0%}")
    scrapped = [g.get("decommissioned", 0) for g in games]
    print(
        f"    {'decommissioned (a fallen Base [21.0])':40}{statistics.mean(scrapped):6.1f} a game"
    )
    print(
        f"  most boats in one OpArea, December 1941   {spread([g['crowd_dec41'] for g in games])}"
    )
    print(f"  most boats in one OpArea, any turn        {spread([g['crowd'] for g in games])}")
    print(
        f"  most boats waiting for repair at a Base   {spread([g['repair_queue'] for g in games])}"
    )
    ok = True
    for what, measured, met in shape_checks(games):
        print(f"  bound: {what:40} {measured:36} {'yes' if met else 'NO'}")
        ok = ok and met
    return ok


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
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when the war's shape is out of its bounds"
    )
    parser.add_argument("--first-seed", type=int, default=0, help="seeds from this one on")
    parser.add_argument(
        "--from-json",
        nargs="+",
        metavar="FILE",
        help="report the games of these --json files (runs played in parts) instead of playing",
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.from_json:
        games = [g for f in args.from_json for g in json.loads(Path(f).read_text())]
        full = [g for g in games if g["scenario"] == "full_campaign"]
        short = [g for g in games if g["scenario"] == "short_campaign"]
    else:
        full = (
            run("full_campaign", args.games, args.workers, args.rulebook, args.first_seed)
            if args.scenario != "short_campaign"
            else []
        )
        short_games = args.games if args.short_games is None else args.short_games
        short = (
            run("short_campaign", short_games, args.workers, args.rulebook, args.first_seed)
            if args.scenario != "full_campaign"
            else []
        )
    print(f"Silent War 2.1 calibration (issue 11 §3), {time.perf_counter() - start:.0f} s")
    shaped = True
    if full:
        report_full(full)
        shaped = report_shape(full)
    if short:
        report_short(short, full)
    if args.json:
        Path(args.json).write_text(json.dumps(full + short, indent=1))
    return 1 if args.check and full and not shaped else 0


if __name__ == "__main__":
    sys.exit(main())
