"""Distributions drawn: bars in the terminal (prob, diff), "at least"/"at most", --plot files."""

from __future__ import annotations

import importlib.util
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from rulekit.cli.show import bar
from tests.conftest import RULEBOOKS, run_cli

SW = RULEBOOKS / "silent_war"
SUB = RULEBOOKS / "steel_wolves_like"


def test_bar_lengths_in_eighths() -> None:
    # 1/6 against 5/6 on 24 cells: 24 * 8 / 5 = 38.4 eighths -> 38 = 4 full cells and 6/8
    assert bar(Fraction(1, 6), Fraction(5, 6)).plain == "████▊"
    assert bar(Fraction(5, 6), Fraction(5, 6)).plain == "█" * 24
    assert bar(Fraction(1, 1000), Fraction(1)).plain == "▏"  # never invisible when not 0
    assert bar(0, Fraction(1)).plain == ""


def test_prob_prints_bars_beside_the_numbers() -> None:
    result = run_cli("prob", SUB, "minefield", "--at", "crew=Veteran")
    assert result.exit_code == 0, result.stderr
    assert "│ Safe Passage     │ 5/6 │ 83.33 │ " + "█" * 24 + " │" in result.stdout
    assert "│ Sub Lost to Mine │ 1/6 │ 16.67 │ ████▊" in result.stdout
    assert "at least" not in result.stdout  # texts have no order


def test_prob_at_least_and_at_most_for_ordered_results() -> None:
    # [14.2] row "7 or more": ..3 No Effect | 4-6 Spotted | 7 Damaged | 8-11 Damaged + RTB,
    # on a d10 of 0..9: 4, 3, 1 and 2 faces of 10; the enum's order is No Effect < Spotted < ...
    result = run_cli("prob", SW, "counterattack_table", "--at", "difference=7")
    assert result.exit_code == 0, result.stderr
    lines = {line.split("│")[1].strip(): line for line in result.stdout.splitlines() if "│" in line}
    cells = {k: [c.strip() for c in v.split("│")[2:6]] for k, v in lines.items()}
    assert cells["No Effect"] == ["2/5", "40.00", "100.00", "40.00"]
    assert cells["Spotted"] == ["3/10", "30.00", "60.00", "70.00"]
    assert cells["Damaged"] == ["1/10", "10.00", "30.00", "80.00"]
    assert cells["Damaged + RTB"] == ["1/5", "20.00", "20.00", "100.00"]


# the bars and the plot of `rulekit diff` (Silent War 1.1 -> 2.1) are checked in
# tests/test_variants.py::test_silent_war_diff_snapshot, on the same costly run as its snapshot


needs_matplotlib = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="--plot needs matplotlib: pip install -e '.[plot]' (or '.[test]')",
)


@needs_matplotlib
def test_prob_plot_svg(tmp_path: Path) -> None:
    target = tmp_path / "odds.svg"
    result = run_cli("prob", SW, "counterattack_table", "--at", "difference=7", "--plot", target)
    assert result.exit_code == 0, result.stderr
    svg = target.read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and "<svg" in svg
    for words in ("No Effect", "Damaged + RTB", "40.0%", "10.0%"):
        assert words in svg
    again = tmp_path / "again.svg"
    run_cli("prob", SW, "counterattack_table", "--at", "difference=7", "--plot", again)
    assert again.read_bytes() == target.read_bytes()  # the same drawing, byte for byte


@needs_matplotlib
def test_prob_plot_png_with_json(tmp_path: Path) -> None:
    target = tmp_path / "odds.png"
    result = run_cli("prob", SUB, "minefield", "--plot", target, "--json")
    assert result.exit_code == 0, result.stderr
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result.stdout.lstrip().startswith("{")  # still one JSON document on stdout


@needs_matplotlib
def test_plot_refuses_other_files(tmp_path: Path) -> None:
    result = run_cli("prob", SUB, "minefield", "--plot", tmp_path / "odds.pdf")
    assert result.exit_code == 1
    assert "--plot writes a .svg or .png file" in result.stderr
    assert not (tmp_path / "odds.pdf").exists()


def test_plot_without_matplotlib_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    result = run_cli("prob", SUB, "minefield", "--plot", tmp_path / "odds.svg")
    assert result.exit_code == 1
    assert "--plot needs matplotlib, which is not installed" in result.stderr
    assert "pip install -e '.[plot]'" in result.stderr
    assert "Traceback" not in result.stderr


@needs_matplotlib
def test_histograms_for_simulate(tmp_path: Path) -> None:
    from rulekit.aids.plots import histograms

    path = histograms(
        tmp_path / "sim.svg",
        "200 games",
        {"tonnage_sunk": [1, 2, 2, 3, 3, 3], "turns": [15.5, 12.0, 9.25]},
        {"victory": 120, "draw": 50, "defeat": 30},
    )
    svg = path.read_text(encoding="utf-8")
    assert "tonnage_sunk" in svg and "endings" in svg and "victory" in svg
