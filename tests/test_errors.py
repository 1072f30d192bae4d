"""Bad input: every kind gets file:line:col (or the flag), the line, a caret, a hint, exit 1."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import EXAMPLES, RULEBOOKS, run_cli

HEADER = 'rulebook "Test"\ndice d6 = 1..6\ndice d10 = 0..9\n'


def check_fails(book: Path) -> str:
    result = run_cli("check", str(book))
    assert result.exit_code == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    return result.stderr


def test_syntax_error_points_at_the_token(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(
        HEADER
        + "enum war_period = WP1 WP2\ntable t [1.0]: war_period -> int\n    WP1 | 1 | 2 3 )\n"
    )
    err = check_fails(book)
    assert "rulebook.rk:6:19: error: unexpected ')'" in err
    assert "    WP1 | 1 | 2 3 )\n" in err
    assert "                  ^" in err
    assert "put the cell's text in quotes" in err


def test_unknown_name_suggests(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(
        HEADER + "track torpedo -2..2 = -2 [6.0]\nprocedure p [1.0]\n    return torpdo + 1\n"
    )
    err = check_fails(book)
    assert "rulebook.rk:6:12: error: unknown name 'torpdo'" in err
    assert "^~~~~~" in err
    assert "hint: did you mean 'torpedo'?" in err


def test_unknown_table_call_suggests(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(
        HEADER
        + "table ultra [7.1]: roll d6 -> int\n    1-6 | 1\nprocedure p [1.0]\n    return ultar()\n"
    )
    err = check_fails(book)
    assert "unknown procedure, table or function 'ultar'" in err
    assert "did you mean 'ultra'?" in err


def test_type_error(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(
        HEADER
        + "enum posture = cautious standard\nprocedure p(x: posture) [1.0]\n    return x + 1\n"
    )
    err = check_fails(book)
    assert "rulebook.rk:6:12: error: '+' needs numbers, this is posture" in err


def test_misspelled_enum_member_in_a_cell(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(
        HEADER
        + 'enum area = "Sea of Japan" Kuriles\ntable t [7.1]: roll d6 -> area\n'
        + "    1-3 | Sea of Japen\n    4-6 | Kuriles\n"
    )
    err = check_fails(book)
    assert "rulebook.rk:6:11: error: 'Sea of Japen' is not a area" in err
    assert "did you mean 'Sea of Japan'?" in err


def test_table_gap(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(HEADER + "table t [A1]: roll 2d6 -> int\n    2-4 | 1\n    7-12 | 2\n")
    err = check_fails(book)
    assert "rulebook.rk:4:7: error: no row for roll 5-6 of 2d6" in err


def test_table_overlap(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(HEADER + "table t [A1]: roll d10 -> int\n    0-4 | 1\n    3-9 | 2\n")
    err = check_fails(book)
    assert "rulebook.rk:6:5: error: rows '0-4' and '3-9' both cover roll 3-4" in err


def test_modified_roll_without_open_end_warns(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(
        HEADER
        + "modifiers m [A1]\n    +1 if true\n"
        + "table t [A1]: roll d6 + m() -> int\n    1-3 | 1\n    4-6 | 2\n"
    )
    result = run_cli("check", str(book))
    assert result.exit_code == 0
    assert "warning: the roll is modified but no row is open-ended" in result.stderr


def test_duplicate_definition(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(HEADER + "const a = 1\nconst a = 2\n")
    err = check_fails(book)
    assert "rulebook.rk:5:7: error: 'a' is defined twice" in err
    assert "first defined at" in err and "rulebook.rk:4:7" in err


def test_missing_include(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(HEADER + 'include "tabels.rk"\n', **{"tables.rk": "const a = 1\n"})
    err = check_fails(book)
    assert "rulebook.rk:4:1: error: included file 'tabels.rk' does not exist" in err
    assert "did you mean 'tables.rk'?" in err


def test_include_outside_the_rulebook(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(HEADER + 'include "../outside.rk"\n')
    (book.parent / "outside.rk").write_text("const a = 1\n")
    err = check_fails(book)
    assert "error: include '../outside.rk' leaves the rulebook directory" in err


def test_include_cycle(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(
        HEADER + 'include "a.rk"\n', **{"a.rk": 'include "b.rk"\n', "b.rk": 'include "a.rk"\n'}
    )
    err = check_fails(book)
    assert "error: include cycle:" in err
    assert "a.rk -> " in err and "b.rk -> " in err


def test_bad_indentation(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(HEADER + "procedure p [1.0]\n    let a = 1\n  return a\n")
    err = check_fails(book)
    assert "rulebook.rk:6:1: error: this line's indentation matches no enclosing block" in err


def test_check_json_lists_errors(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(HEADER + "procedure p [1.0]\n    return nope\n")
    result = run_cli("check", str(book), "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False
    assert data["errors"] == [
        {
            "file": data["errors"][0]["file"],
            "line": 5,
            "column": 12,
            "message": "unknown name 'nope'",
        }
    ]
    assert data["errors"][0]["file"].endswith("rulebook.rk")


def test_no_rulebook_there() -> None:
    result = run_cli("check", str(RULEBOOKS / "silent_wr"))
    assert result.exit_code == 1
    assert "no rulebook at" in result.stderr and "did you mean" in result.stderr


# ---- command-line values ------------------------------------------------------------------


def test_wrong_at_value_suggests() -> None:
    result = run_cli(
        "lookup", RULEBOOKS / "silent_war", "7.1", "--at", "war_period=WP5", "--roll", "2"
    )
    assert result.exit_code == 1
    assert "--at war_period: error: 'WP5' is not a war_period" in result.stderr
    assert "did you mean 'WP1'?" in result.stderr or "did you mean" in result.stderr


def test_wrong_at_dimension_suggests() -> None:
    result = run_cli(
        "lookup", RULEBOOKS / "silent_war", "7.1", "--at", "warperiod=WP3", "--roll", "2"
    )
    assert result.exit_code == 1
    assert "table ultra has no dimension 'warperiod'" in result.stderr
    assert "did you mean 'war_period'?" in result.stderr


def test_unknown_dimension_with_nothing_close_lists_them() -> None:
    result = run_cli("lookup", RULEBOOKS / "silent_war", "7.1", "--at", "zzz=1", "--roll", "2")
    assert result.exit_code == 1
    assert "its dimensions are: war_period" in result.stderr


def test_roll_without_a_row() -> None:
    result = run_cli("lookup", RULEBOOKS / "steel_wolves_like", "E4", "--roll", "17")
    assert result.exit_code == 1
    assert "--roll: error: table sub_damage has no row for roll = 17" in result.stderr


def test_unknown_table_or_rule() -> None:
    result = run_cli("lookup", RULEBOOKS / "silent_war", "ultr")
    assert result.exit_code == 1
    assert "no table named or numbered 'ultr'" in result.stderr
    assert "did you mean 'ultra'?" in result.stderr


def test_ambiguous_rule_number() -> None:
    result = run_cli("lookup", RULEBOOKS / "silent_war", "7.2")
    assert result.exit_code == 1
    assert "rule 7.2 has several of them" in result.stderr
    assert "weather_formation" in result.stderr and "storm_initial_location" in result.stderr


def test_dice_outside_the_faces() -> None:
    result = run_cli(
        "resolve",
        RULEBOOKS / "silent_war",
        "torpedo_improvement_phase",  # 6.0 is the table now, which throws no die
        "--at",
        "ships_sunk=70",
        "--dice",
        "10",
    )
    assert result.exit_code == 1
    assert "--dice: error: --dice value 10 (number 1) is not a face of d10 (0..9)" in result.stderr


def test_dice_run_out() -> None:
    result = run_cli(
        "resolve",
        RULEBOOKS / "silent_war",
        "attack_round",
        "--given",
        EXAMPLES / "silent_war" / "spearfish_14_15.toml",
        "--dice",
        "1",
    )
    assert result.exit_code == 1
    assert "--dice gave 1 value(s) but the procedure throws another d10" in result.stderr
    assert "give --seed to roll the rest" in result.stderr


def test_dice_not_a_number() -> None:
    result = run_cli("resolve", RULEBOOKS / "silent_war", "6.0", "--dice", "3,x")
    assert result.exit_code == 1
    assert "'x' is not a die result" in result.stderr


def test_given_file_unknown_key(tmp_path: Path) -> None:
    given = tmp_path / "g.toml"
    given.write_text('ships_sunk = 70\nwar_periode = "WP2"\n')
    result = run_cli("resolve", RULEBOOKS / "silent_war", "6.0", "--given", given, "--dice", "1")
    assert result.exit_code == 1
    assert "g.toml:2:1: error: war_periode: 'war_periode' is not an input" in result.stderr
    assert "did you mean 'war_period'?" in result.stderr


def test_given_file_bad_value(tmp_path: Path) -> None:
    given = tmp_path / "g.toml"
    given.write_text('[sub]\nname = "S"\nattack = "six"\n')
    result = run_cli("resolve", RULEBOOKS / "silent_war", "attack_round", "--given", given)
    assert result.exit_code == 1
    assert "g.toml:3:1: error: sub.attack: 'six' is not a whole number" in result.stderr


def test_given_file_not_toml(tmp_path: Path) -> None:
    given = tmp_path / "g.toml"
    given.write_text("ships_sunk = = 3\n")
    result = run_cli("resolve", RULEBOOKS / "silent_war", "6.0", "--given", given)
    assert result.exit_code == 1
    assert "g.toml:1:14: error: not valid TOML" in result.stderr


@pytest.mark.parametrize(
    ("flag", "text", "where"),
    [
        ("--given", "x = [\n", "1:6"),  # unfinished at the end of the file
        ("--resume", "format = 1\nrulebook = = 2\n", "2:12"),
        ("--policy", "ok = 1\nanswer =\n", "2:9"),
    ],
)
def test_every_toml_file_points_at_its_error(
    tmp_path: Path, flag: str, text: str, where: str
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    if flag == "--given":
        args = ("resolve", RULEBOOKS / "silent_war", "6.0", "--given", bad)
    else:
        value = f"scripted:{bad}" if flag == "--policy" else str(bad)
        args = ("run", RULEBOOKS / "silent_war", "--turns", "1", flag, value)
    result = run_cli(*args)
    assert result.exit_code == 1
    assert f"bad.toml:{where}: error: not valid TOML" in result.stderr
    assert "^" in result.stderr


def test_missing_input() -> None:
    result = run_cli("resolve", RULEBOOKS / "silent_war", "attack_round")
    assert result.exit_code == 1
    assert "procedure attack_round needs sub" in result.stderr
    assert "hint: give --at sub=VALUE or put sub in a --given file" in result.stderr


def test_decision_answer_must_be_an_option(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(
        HEADER + "enum posture = cautious standard aggressive\nprocedure p [14.12]\n"
        "    choose posture from posture default standard\n    return posture\n"
    )
    result = run_cli("resolve", book, "p", "--decide", "posture=agressive")
    assert result.exit_code == 1
    assert "'agressive' is not an option of decision 'posture'" in result.stderr
    assert "did you mean 'aggressive'?" in result.stderr


def test_usage_error_is_exit_2() -> None:
    result = run_cli("lookup", RULEBOOKS / "silent_war")
    assert result.exit_code == 2


# ---- runtime ---------------------------------------------------------------------------------


def test_step_budget_stops_a_runaway_procedure(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(
        HEADER + "procedure loop(n: int) [9.9]\n    for each i in range(1, n):\n        loop(n)\n"
    )
    result = run_cli("resolve", book, "loop", "--at", "n=2", "--max-steps", "500")
    assert result.exit_code == 1
    assert "stopped after 500 steps: the procedure does not finish" in result.stderr
    assert "in procedure loop [9.9]" in result.stderr
    assert "Traceback" not in result.stderr


def test_runtime_error_names_the_rule(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(
        HEADER + "table t [7.1]: level: int -> int\n    1-3 | 10\nprocedure p(x: int) [7.0]\n"
        "    let y = t(x) [7.1 B]\n    return y\n"
    )
    result = run_cli("resolve", book, "p", "--at", "x=5")
    assert result.exit_code == 1
    assert "rulebook.rk:7:13: error: table t has no row for level = 5" in result.stderr
    assert "rule [7.1 B]" in result.stderr
    assert "hint: its level rows are: 1-3" in result.stderr


@pytest.mark.parametrize("name", ["silent_war", "steel_wolves_like", "gato_leader"])
def test_bundled_rulebooks_check_clean(name: str) -> None:
    result = run_cli("check", RULEBOOKS / name)
    assert result.exit_code == 0, result.stderr
    assert "error" not in result.stderr
