"""Pictures that explain: the plot names the question in the rules' words with its inputs,
draws exactly / at least / at most, marks provisional values; `rulekit plot` redraws a saved
`prob --json` result; simulate's histograms are binned."""

from __future__ import annotations

import importlib.util
import json
from itertools import pairwise
from pathlib import Path

import pytest

from rulekit.aids.plots import bin_edges
from tests.conftest import RULEBOOKS, run_cli

SW = RULEBOOKS / "silent_war"

needs_matplotlib = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="--plot needs matplotlib: pip install -e '.[plot]' (or '.[test]')",
)


def test_saved_json_names_the_question_and_its_inputs() -> None:
    result = run_cli("prob", SW, "counterattack_table", "--at", "difference=7", "--json")
    assert result.exit_code == 0, result.stderr
    question = json.loads(result.stdout)["question"]
    # the table's title and rule as the rulebook declares them ([14.2] "Counterattack Table")
    assert question["title"] == "[14.2] Counterattack Table"
    assert question["inputs"] == ["difference = 7"]
    assert question["ordered"] is True  # No Effect < Spotted < Damaged < Damaged + RTB


@needs_matplotlib
def test_prob_plot_title_inputs_cumulative_bars_and_provisional_note(tmp_path: Path) -> None:
    target = tmp_path / "odds.svg"
    result = run_cli("prob", SW, "counterattack_table", "--at", "difference=7", "--plot", target)
    assert result.exit_code == 0, result.stderr
    svg = target.read_text(encoding="utf-8")
    for words in ("[14.2] Counterattack Table", "difference = 7", "exactly", "at least", "at most"):
        assert words in svg, words
    # at least Spotted = 30% + 10% + 20% = 60%; at most Damaged = 40% + 30% + 10% = 80% (the
    # row "7 or more" of [14.2] on a d10 read 0-9: 4, 3, 1 and 2 faces of 10)
    assert "60.0%" in svg and "80.0%" in svg
    assert "provisional value(s), not printed in the rules" in svg


@needs_matplotlib
def test_plot_redraws_a_saved_result_byte_for_byte(tmp_path: Path) -> None:
    saved = tmp_path / "odds.json"
    result = run_cli("prob", SW, "counterattack_table", "--at", "difference=7", "--json")
    saved.write_text(result.stdout, encoding="utf-8")
    direct, again = tmp_path / "direct.svg", tmp_path / "again.svg"
    run_cli("prob", SW, "counterattack_table", "--at", "difference=7", "--plot", direct)
    drawn = run_cli("plot", saved, "-o", again)
    assert drawn.exit_code == 0, drawn.stderr
    assert again.read_bytes() == direct.read_bytes()


@needs_matplotlib
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not JSON"),
        ('{"what": "x"}', "no list of outcomes"),
        ('{"outcomes": [{"value": 1, "p": "1/0"}]}', "outcomes[0].p is not a probability"),
        ('{"outcomes": [{"value": 1, "p": "3/2"}]}', "is not between 0 and 1"),
    ],
)
def test_plot_of_a_bad_file_is_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    saved = tmp_path / "bad.json"
    saved.write_text(content, encoding="utf-8")
    result = run_cli("plot", saved, "-o", tmp_path / "x.svg")
    assert result.exit_code == 1
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "x.svg").exists()


@needs_matplotlib
def test_diff_plot_title_names_the_inputs(tmp_path: Path) -> None:
    target = tmp_path / "diff.svg"
    result = run_cli(
        "diff",
        f"{SW}@1.1",
        SW,
        "--probe",
        "counterattack_table",
        "--at",
        "difference=7",
        "--plot",
        target,
    )
    assert result.exit_code == 3, result.stderr
    assert "difference=7" in target.read_text(encoding="utf-8")


def test_histogram_bins() -> None:
    # a few whole numbers close together: one bin per value, centred on it
    assert bin_edges([1, 2, 2, 5]) == [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]
    # tonnage over thousands of distinct values: at most 40 bins of one round width
    tonnage = [float(v) for v in range(0, 5_300_000, 977)]
    edges = bin_edges(tonnage)
    widths = {round(b - a, 6) for a, b in pairwise(edges)}
    assert len(edges) - 1 <= 41 and len(widths) == 1
    assert edges[0] <= min(tonnage) and edges[-1] > max(tonnage)
    assert widths == {200_000.0}  # 5.3 million / 40 = 132,500 -> the next round width
