"""The gaps rulebook authors hit (issue 15): several `for`s in a comprehension, a default of
none, a statement that ends the turn, markers by their printed symbol."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_cli

Make = Callable[..., Path]


def _result(book: Path, name: str, *args: str) -> str:
    shown = run_cli("resolve", book, name, *args)
    assert shown.exit_code == 0, shown.output
    return next(line for line in shown.stdout.splitlines() if line.startswith("result:"))


def test_several_fors_vary_the_last_fastest(make_rulebook: Make) -> None:
    book = make_rulebook(
        'rulebook "L"\ndice d6 = 1..6\n'
        "procedure pairs -> list of int [1.0]\n"
        "    return [x * 10 + y for x in [1, 2] for y in [1, 2, 3] if y != x]\n"
        "procedure filtered -> list of int [1.0]\n"
        "    return [x + y for x in [1, 2, 3] if x != 2 for y in [x, 100]]\n"
        "procedure flat -> list of int [1.0]\n"
        "    return flatten([[1, 2], [], [3]])\n"
    )
    # as Python reads them: [x * 10 + y for x in (1, 2) for y in (1, 2, 3) if y != x]
    assert _result(book, "pairs") == "result: 12, 13, 21, 23"
    assert _result(book, "filtered") == "result: 2, 101, 6, 103"
    assert _result(book, "flat") == "result: 1, 2, 3"


def test_a_default_of_none_is_a_default(make_rulebook: Make) -> None:
    book = make_rulebook(
        'rulebook "L"\ndice d6 = 1..6\n'
        "procedure p -> int or none [1.0]\n"
        '    choose target from [none, 1, 2] default none [1.0] "Attack which target?"\n'
        "    return target\n"
        "procedure q -> int [1.0]\n"
        "    choose c from [1, 2] [1.0]\n"
        "    return c\n"
    )
    assert _result(book, "p") == "result: none"  # before: "has no default"
    assert _result(book, "p", "--decide", "target=2") == "result: 2"
    asked = run_cli("resolve", book, "q")  # no default written: an answer is needed
    assert asked.exit_code == 1
    assert "decision 'c'" in asked.stderr and "has no default" in asked.stderr


def test_a_default_of_none_must_be_an_option_type(make_rulebook: Make) -> None:
    book = make_rulebook(
        'rulebook "L"\ndice d6 = 1..6\nprocedure p -> int [1.0]\n'
        "    choose c from [1, 2] default none [1.0]\n    return c\n"
    )
    shown = run_cli("check", book)
    assert shown.exit_code == 1
    assert "rulebook.rk:4:34: error: the default choice should be int, not none" in shown.stderr


TURNS = """rulebook "L" scenario "s"
dice d6 = 1..6
state log: list of int = []
procedure first_phase [1.0]
    log = log + [1]
    let r = roll d6
    if r.natural = 6:
        end turn "the patrol is cut short" [1.2]
    log = log + [2]
procedure second_phase [1.1]
    log = log + [3]
sequence [1.0]
    phase first_phase
    phase second_phase
"""


def test_end_turn_skips_the_rest_of_the_turn(make_rulebook: Make) -> None:
    book = make_rulebook(
        TURNS,
        **{"scenarios/s.toml": '[scenario]\ntitle = "s"\nturns = 2\nsummary = ["log"]\n'},
    )
    shown = run_cli("run", book, "--dice", "6,2", "--explain")
    assert shown.exit_code == 0, shown.output
    out = shown.stdout
    # turn 1: a 6 ends the turn after the first phase; turn 2 plays both phases
    assert "note [1.2]: the turn ends: the patrol is cut short" in out
    turn1 = out.split("--- turn 2")[0]
    assert "second_phase" not in turn1
    assert "second_phase" in out.split("--- turn 2")[1]
    data = json.loads(run_cli("run", book, "--dice", "6,2", "--json").stdout)
    assert [r["values"]["log"] for r in data["reports"]] == [[1], [1, 1, 2, 3]]


def test_end_turn_outside_a_turn_stops_the_procedure(make_rulebook: Make) -> None:
    book = make_rulebook(TURNS)
    assert _result(book, "first_phase", "--dice", "6") == "result: none"


def test_a_marker_by_its_symbol(make_rulebook: Make) -> None:
    book = make_rulebook(
        'rulebook "L"\ndice d6 = 1..6\nmarker no_roll = "X" [7.2]\n'
        "state dive: int or no_roll = 3\n"
        "procedure p -> bool [1.0]\n"
        '    dive = "X"\n'
        '    return dive = no_roll and "X" = dive and dive = "X"\n'
        "procedure q -> bool [1.0]\n"
        '    return dive = "Y"\n'
    )
    shown = run_cli("check", book)
    # "Y" is no marker: still text, so the comparison is reported as never true
    assert "rulebook.rk:9:12: error: comparing int or no_roll with text is never true" in (
        shown.stderr
    )
    fixed = make_rulebook(
        'rulebook "L"\ndice d6 = 1..6\nmarker no_roll = "X" [7.2]\n'
        "state dive: int or no_roll = 3\n"
        "procedure p -> bool [1.0]\n"
        '    dive = "X"\n'
        '    return dive = no_roll and "X" = dive and dive = "X"\n'
    )
    assert _result(fixed, "p") == "result: yes"


SCENARIO_BOOK = """rulebook "S" scenario "s"
dice d6 = 1..6
state level: int = 0
state name: text = ""
procedure place(who: text) [1.0]
    name = who
procedure phase_one [1.0]
    level += 1
sequence [1.0]
    phase phase_one
"""

SCENARIO = """[scenario]
title = "s"
turns = 1

[state]
level = 3

[provisional]
level = "the scenario book gives the starting level"

[[start]]
procedure = "place"
args = { who = "Ann" }
provisional = "who starts is not printed"
"""


def test_a_scenario_marks_its_own_values(make_rulebook: Make) -> None:
    book = make_rulebook(SCENARIO_BOOK, **{"scenarios/s.toml": SCENARIO})
    checked = run_cli("check", book)
    assert checked.exit_code == 0, checked.output
    assert "scenario s: 2 provisional value(s):" in checked.stdout
    assert "  [state] level (the scenario book gives the starting level)" in checked.stdout
    assert "  [[start]] 1: place (who starts is not printed)" in checked.stdout
    data = json.loads(run_cli("check", book, "--json").stdout)
    assert data["scenarios"][0]["provisional_values"][1] == {
        "what": "[[start]] 1: place",
        "reason": "who starts is not printed",
    }
    ran = run_cli("run", book, "--seed", "1")
    assert "provisional in the scenario: [state] level: the scenario book gives" in ran.stdout
    played = json.loads(run_cli("run", book, "--seed", "1", "--json").stdout)
    assert played["provisional_scenario_values"] == [
        "[state] level: the scenario book gives the starting level",
        "[[start]] 1: place: who starts is not printed",
    ]


def test_a_scenario_mark_must_name_a_value_it_sets(make_rulebook: Make) -> None:
    wrong = SCENARIO.replace('level = "the scenario', 'levle = "the scenario')
    book = make_rulebook(SCENARIO_BOOK, **{"scenarios/s.toml": wrong})
    shown = run_cli("check", book)
    assert shown.exit_code == 1
    assert "s.toml:9:1: error: levle: [provisional] names 'levle', which [state] does not set" in (
        shown.stderr
    )
    assert "did you mean 'level'?" in shown.stderr


def test_a_test_for_none_narrows_the_type(make_rulebook: Make) -> None:
    book = make_rulebook(
        'rulebook "L"\ndice d6 = 1..6\nstate n: int or none = none\n'
        "procedure p(x: int or none) -> bool [1.0]\n"
        "    if x != none:\n"
        '        return x = "a"\n'  # x is an int here: never equal to a text
        '    return x = "b"\n'  # x may be none: the comparison can hold
        "procedure q(x: int or none) -> bool [1.0]\n"
        "    if x = none:\n"
        "        return false\n"
        '    return x = "c"\n'  # below the early return, x is an int
        "procedure r -> bool [1.0]\n"
        "    if n != none:\n"
        "        n = none\n"
        '        return n = "d"\n'  # written again: none again
        "    return true\n"
    )
    shown = run_cli("check", book)
    errors = [line for line in shown.stderr.splitlines() if ": error: " in line]
    assert [e.split("rulebook.rk:")[1] for e in errors] == [
        "6:16: error: comparing int with text is never true",
        "11:12: error: comparing int with text is never true",
    ]


def test_every_command_that_runs_procedures_has_the_budget_it_names(
    make_rulebook: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RULEKIT_PLAY_DIR", str(tmp_path / "play"))
    book = make_rulebook(
        'rulebook "L" scenario "s"\ndice d6 = 1..6\nstate k: int = 0\n'
        "procedure spin [1.0]\n    while true:\n        k += 1\n"
        "sequence [1.0]\n    phase spin\n",
        **{"scenarios/s.toml": '[scenario]\ntitle = "s"\n'},
    )
    for command in (["resolve", book, "spin"], ["prob", book, "spin"], ["run", book]):
        shown = run_cli(*command, "--max-steps", "300")
        assert "stopped after 300 steps" in shown.stderr, command
        assert "(--max-steps)" in shown.stderr
    simulated = run_cli("simulate", book, "--games", "1", "--max-steps", "300")
    assert "stopped after 300 steps" in simulated.stderr
    assert "step budget (--max-steps)" in simulated.stderr
    played = run_cli("play", book, "--seed", "1", "--max-steps", "300")
    assert "stopped after 300 steps" in played.stderr + played.stdout
    for command in ("resolve", "prob", "run", "simulate", "play"):
        assert "--max-steps" in run_cli(command, "--help").stdout, command
