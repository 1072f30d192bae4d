"""Gato Leader's Torpedo Dud table: its year columns as printed."""

from __future__ import annotations

import pytest

from rulekit.book.checker import Checked
from rulekit.engine.session import resolve

# The printed chart, column by column: the die rolls giving each result line
# (premature / all miss / one runs / half run / all run), N/A = cannot happen.
DUD = {
    "1942": {
        "premature": [1],
        "all_miss": [2, 3],
        "one_runs": [4, 5, 6],
        "half_run": [7, 8, 9],
        "all_run": [10],
    },
    "1943": {"all_miss": [1], "one_runs": [2, 3], "half_run": [4, 5, 6], "all_run": [7, 8, 9, 10]},
    "1944-45": {"all_miss": [1], "one_runs": [2], "half_run": [3], "all_run": list(range(4, 11))},
}


@pytest.mark.parametrize("year", list(DUD))
def test_torpedo_dud_columns(gato: Checked, year: str) -> None:
    table = gato.tables["torpedo_dud"]
    column = gato.vocab.read(year, table.dims[0].type)
    for result, rolls in DUD[year].items():
        for roll in rolls:
            assert table.lookup([column, roll])[0].printed == result, (year, roll)


@pytest.mark.parametrize(
    ("year", "modified", "column"),
    [
        (1942, False, "1942"),
        (1943, False, "1943"),
        (1944, False, "1944-45"),
        (1945, False, "1944-45"),
        (1942, True, "1943"),
        (1943, True, "1944-45"),
    ],
)
def test_torpedo_modification_uses_the_next_column(
    gato: Checked, year: int, modified: bool, column: str
) -> None:
    outcome = resolve(
        gato, "dud_column_for", at=[f"year={year}", f"modified={'yes' if modified else 'no'}"]
    )
    assert str(outcome.result) == column


@pytest.mark.parametrize(
    ("fired", "dud", "running"),
    [
        (6, "half_run", 3),
        (5, "half_run", 3),
        (1, "half_run", 1),
        (6, "one_runs", 1),
        (6, "all_run", 6),
        (4, "all_miss", 0),
        (4, "premature", 0),
    ],
)
def test_running_torpedoes(gato: Checked, fired: int, dud: str, running: int) -> None:
    assert resolve(gato, "running_torpedoes", at=[f"fired={fired}", f"dud={dud}"]).result == running


def test_spread_bonus_is_running_minus_one(gato: Checked) -> None:
    # "If you fire 3 Torpedoes at one ship and they all run correctly, you gain +2 modifier"
    outcome = resolve(
        gato,
        "torpedo_spread",
        at=["fired=3", "year=1944", "skill=0", "target_range=0"],
        dice=[10, 3, 1, 2],
    )
    roll = [e for e in outcome.trace.events if e.event == "roll"][-1]
    assert roll.faces == [3, 1, 2] and roll.natural == 3
    assert [(t.value, t.rule) for t in roll.modifiers] == [(2, "§Torpedo Spread")]
