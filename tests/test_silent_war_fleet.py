"""Silent War 2.1: the order of battle of the full campaign (issue 11 §2-§3, fleet.rk).

"Every U.S. and many Allied submarines that participated in the Pacific War are represented by
their own playing piece" [2.3 A]: the full campaign plays the historical U.S. Pacific force.
What is checked here is the data's consistency with the rules and with the scenario, never a
provisional number: every boat the list moves is a counter, none enters twice, and the months
the [25.3] example prints hold only the boats it names.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from conftest import RULEBOOKS

from rulekit.book.checker import Checked
from rulekit.play.runner import new_game

SCENARIO = RULEBOOKS / "silent_war" / "scenarios" / "full_campaign.toml"


def entries(book: Checked) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    table = book.tables["reinforcement_list"]
    return [
        (tuple(key.printed for key in k), e) for k, cell in table.iter_cells() for e in cell.printed
    ]


def war_start(path: Path = SCENARIO) -> list[str]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [s["args"]["name"] for s in data["start"] if s["procedure"] == "start_at_base"]


def test_every_boat_the_list_moves_is_a_counter_2_3_a(silent_war: Checked) -> None:
    roster = set(silent_war.tables["sub_roster"].keys(0))
    moved = {e["sub"] for _, e in entries(silent_war)}
    assert moved - roster == set()
    assert set(war_start()) - roster == set()


def test_a_boat_enters_the_full_campaign_once_8_0(silent_war: Checked) -> None:
    received = [e["sub"] for _, e in entries(silent_war) if e["action"] == "Reinforcement"]
    start = war_start()
    assert len(start) == len(set(start))
    assert set(start) & set(received) == set()
    # the whole force: the boats at war start and the boats received make up the counters
    # that are played (the roster holds no boat that never enters)
    roster = set(silent_war.tables["sub_roster"].keys(0))
    assert roster - set(start) - set(received) == set()


def test_the_25_3_months_hold_only_the_boats_the_example_names(silent_war: Checked) -> None:
    # "In December 1943, S-42 ... is withdrawn from active service" and the waiting skipper
    # goes to one of "Redfin, Angler, Flasher, Robalo, Tang, Jack, or Tambor which will be
    # received in January of 1944": no other boat may arrive in between.
    arriving = {
        month: [e["sub"] for k, e in entries(silent_war) if k == month and e["action"] != "Retire"]
        for month in (("1943", "Dec"), ("1944", "Jan"))
    }
    assert arriving[("1943", "Dec")] == []
    assert sorted(arriving[("1944", "Jan")]) == sorted(
        ["Redfin", "Angler", "Flasher", "Robalo", "Tang", "Jack", "Tambor"]
    )


def test_the_force_grows_as_the_war_goes_on(silent_war: Checked) -> None:
    # the structure the calibration relies on: more boats each year, none received after the
    # war's last month on the Turn Record Track (August 1945)
    per_year: dict[int, int] = {}
    for (year, _month), e in entries(silent_war):
        if e["action"] == "Reinforcement":
            per_year[int(year)] = per_year.get(int(year), 0) + 1
    assert sorted(per_year) == [1942, 1943, 1944, 1945]
    assert per_year[1942] < per_year[1943] < per_year[1944]


def test_the_full_campaign_raises_its_own_step_budget(silent_war: Checked) -> None:
    # a Transit Movement Phase moves every boat at sea: more than the default budget
    game = new_game(silent_war, "full_campaign", 1)
    assert game.interp.max_steps == 2_000_000
    assert new_game(silent_war, "short_campaign", 1).interp.max_steps == 200_000
