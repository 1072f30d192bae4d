"""The benchmark's hand-written reference must be the same procedure as the rulebook's,
or comparing their speed means nothing: same situations and dice, same outcomes."""

from __future__ import annotations

from collections import Counter
from types import ModuleType
from typing import Any

from conftest import ROOT, bench_module

from rulekit.book.checker import Checked
from rulekit.engine.dice import ForcedDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import DefaultPolicy


def _bench() -> ModuleType:
    return bench_module("bench_main", "bench.py")


def test_reference_agrees_with_the_rulebook(silent_war: Checked) -> None:
    bench = _bench()
    outcomes = set()
    for i, (torpedo, ships) in enumerate(bench.situations(400)):
        for tried in (None, 9, 5):
            die = i % 10
            state = {"torpedo": torpedo, "ships_sunk": ships, "torpedo_line_tried": tried}
            expected = bench.reference_phase(state, lambda d=die: d)
            interp = Interpreter(silent_war, ForcedDice([die]), DefaultPolicy())
            interp.state.values.update(torpedo=torpedo, ships_sunk=ships, torpedo_line_tried=tried)
            result = interp.call("torpedo_improvement_phase", {})
            values = interp.state.values
            assert (str(result), values["torpedo"], values["torpedo_line_tried"]) == (
                expected,
                state["torpedo"],
                state["torpedo_line_tried"],
            ), (torpedo, ships, tried, die)
            outcomes.add(expected)
    assert outcomes == {"improved", "not_improved", "no_attempt"}


def test_the_aa_reference_agrees_with_the_rulebook() -> None:
    # every boat, crew and flag, and every total of 2d6: the same row as the rulebook's
    import itertools
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    from reference_aa import BOATS, CREWS, reference_aa, set_state

    from rulekit.book.checker import load

    wolves = load(str(ROOT / "rulebooks" / "steel_wolves_like"))
    seen = set()
    for boat, crew, one, both, ill in itertools.product(
        BOATS, CREWS, (False, True), (False, True), (False, True)
    ):
        state = {
            "boat": boat,
            "crew": crew,
            "only_one_50_cal": one,
            "both_aa_guns_ok": both,
            "crew_illness": ill,
        }
        for a, b in ((1, 1), (1, 2), (2, 2), (2, 3), (3, 3), (3, 4), (6, 6)):
            interp = Interpreter(wolves, ForcedDice([a, b]), DefaultPolicy())
            set_state(interp, state)
            result = str(interp.lookup("aa_attack", {}))
            assert result == reference_aa(state, lambda s=a + b: s), (state, a, b)
            seen.add(result)
    assert seen == {"Shot Down", "Damaged", "Miss"}


def test_the_calibration_bench_runs_with_small_settings(tmp_path: Any, capsys: Any) -> None:
    # bench/calibration.py plays hundreds of games (README, "The war Silent War gives"); here
    # two short campaigns on one worker, and the full campaign's report on their figures
    import json

    calibration = bench_module("calibration")
    out = tmp_path / "games.json"
    args = ["--scenario", "short_campaign", "--short-games", "2", "--workers", "1"]
    assert calibration.main([*args, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "short campaign: 2 games (15 turns, " in printed and "results [16.1]" in printed
    games = json.loads(out.read_text())
    assert [g["seed"] for g in games] == [0, 1]
    assert all(g["scenario"] == "short_campaign" and 1 <= len(g["by_turn"]) <= 15 for g in games)
    # the figures of a game are the state's: ships and tons never go down from turn to turn
    for g in games:
        pairs = zip(g["by_turn"], g["by_turn"][1:], strict=False)
        assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in pairs)
    # the report is the games' figures: the median of each (worked out here) and the verdict
    # against the record of the whole war (a 15-week campaign is far below it)
    calibration.report_full(games)
    report = capsys.readouterr().out.splitlines()
    for label, key, record in (("ships sunk", "ships_sunk", 1113 + 201),
                               ("tons sunk (thousands)", "tonnage_sunk", 5300)):  # fmt: skip
        figures = [g[key] for g in games]
        assert figures == [g["by_turn"][-1][0 if key == "ships_sunk" else 1] for g in games]
        (line,) = [x for x in report if x.strip().startswith(label)]
        median = (figures[0] + figures[1]) / 2
        within = abs(median - record) <= 0.35 * record
        assert line.split()[len(label.split())] == f"{median:.0f}", line
        assert line.split()[-1] == ("yes" if within else "NO"), line
    results = Counter(str(g["result"]).split(":")[0] for g in games)
    (shown,) = [x for x in report if "results [16.1]" in x]
    assert all(f"{r} {c / 2:.0%}" in shown for r, c in results.items()), shown
