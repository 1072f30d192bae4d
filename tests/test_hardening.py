"""Issue 13: every bad input is a clear error (file:line:col or the flag), exit 1 or 2, never a
traceback, a hang or a MemoryError; files a rulebook names stay inside it."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from conftest import RULEBOOKS, run_cli

HEADER = 'rulebook "Test"\ndice d6 = 1..6\ndice d10 = 0..9\n'
Make = Callable[..., Path]


def proc(body: str) -> str:
    return HEADER + "procedure p [1.0]\n" + body


def fails(result: Result, code: int = 1) -> str:
    text = result.stdout + result.stderr
    assert result.exit_code == code, text
    assert "Traceback" not in text
    return result.stderr


def timed(*args: object, limit: float = 20.0) -> Result:
    start = time.monotonic()
    result = run_cli(*(str(a) for a in args))
    assert time.monotonic() - start < limit
    return result


# ---- paths stay inside the rulebook -------------------------------------------------------


def test_a_variant_cannot_extend_a_file_outside(make_rulebook: Make) -> None:
    book = make_rulebook('variant "X" extends "/etc/passwd"\n')
    err = fails(run_cli("check", book))
    assert "rulebook.rk:1:1: error: the variant extends '/etc/passwd', which is outside" in err
    assert "root:" not in err  # the outside file's first line is not printed


def test_a_variant_in_editions_still_extends_its_rulebook(make_rulebook: Make) -> None:
    book = make_rulebook(HEADER)
    (book / "editions").mkdir()
    (book / "editions" / "v.rk").write_text('variant "V" extends ".."\n', encoding="utf-8")
    assert run_cli("check", f"{book}@v").exit_code == 0
    (book / "editions" / "w.rk").write_text('variant "W" extends "../.."\n', encoding="utf-8")
    assert "which is outside its rulebook" in fails(run_cli("check", f"{book}@w"))


@pytest.mark.parametrize("name", ["../../x", "/etc/passwd", "../x.toml", "x.toml", ".hidden"])
def test_the_header_scenario_is_a_name_not_a_path(make_rulebook: Make, name: str) -> None:
    book = make_rulebook(f'rulebook "T" scenario "{name}"\ndice d6 = 1..6\n')
    err = fails(run_cli("check", book))
    assert f"rulebook.rk:1:1: error: scenario '{name}' is not the name of a scenario" in err


def test_an_include_cannot_leave_the_rulebook(make_rulebook: Make) -> None:
    book = make_rulebook(HEADER + 'include "../outside.rk"\n')
    (book.parent / "outside.rk").write_text("const c = 1\n", encoding="utf-8")
    assert "rulebook.rk:4:1: error: include '../outside.rk' leaves" in fails(run_cli("check", book))


# ---- saves leave no temporary files -------------------------------------------------------


def test_a_save_removes_stale_temporary_files_of_its_own(tmp_path: Path) -> None:
    from rulekit.play.saves import TEMP_SUFFIX, remove_stale_temps

    target = tmp_path / "game.toml"
    stale = tmp_path / f".game.toml.abc{TEMP_SUFFIX}"
    fresh = tmp_path / f".game.toml.def{TEMP_SUFFIX}"
    other = tmp_path / f".other.toml.abc{TEMP_SUFFIX}"
    foreign = tmp_path / "notes.pickle"
    for path in (stale, fresh, other, foreign):
        path.write_text("x", encoding="utf-8")
    old = time.time() - 3600
    for path in (stale, other, foreign):
        os.utime(path, (old, old))
    remove_stale_temps(target)
    assert not stale.exists()  # interrupted save of this target
    assert fresh.exists()  # may be another run's save in progress
    assert other.exists() and foreign.exists()  # not ours


def test_a_real_save_leaves_only_the_save(tmp_path: Path) -> None:
    from rulekit.play.saves import TEMP_SUFFIX

    stale = tmp_path / f".g.toml.zz{TEMP_SUFFIX}"
    stale.write_text("half a save", encoding="utf-8")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    save = tmp_path / "g.toml"
    result = run_cli("run", RULEBOOKS / "silent_war", "--seed", "1", "--turns", "1", "--save", save)
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.toml"]


# ---- bounded work and memory --------------------------------------------------------------

BUDGET = "stopped after 200000 steps"


@pytest.mark.parametrize(
    ("body", "message", "where"),
    [
        ("    x = 3\n    while true:\n        x = x * x\n", "more than 1000 digits", ":7:13:"),
        ("    x = 3\n    while true:\n        x = x * x / 7\n", "more than 1000 digits", ":7:"),
        ("    x = 3\n    while true:\n        x += x\n", "more than 1000 digits", ":7:9:"),
        ("    return roll 100000000 d10\n", BUDGET, ":5:17:"),
        ("    return count(range(1, 100000000))\n", BUDGET, ":5:18:"),
        ("    l = [1]\n    while true:\n        l = l + l\n", BUDGET, ":7:13:"),
        ('    s = "ab"\n    while true:\n        s = "{s}{s}"\n', BUDGET, ":7:13:"),
        ("    return count([x for x in range(1, 150000) if x > 0])\n", BUDGET, ":5:"),
    ],
)
def test_work_is_bounded(make_rulebook: Make, body: str, message: str, where: str) -> None:
    book = make_rulebook(proc(body))
    err = fails(timed("resolve", book, "p", "--seed", "1"))
    assert message in err and f"rulebook.rk{where}" in err


def test_the_budget_can_be_raised(make_rulebook: Make) -> None:
    book = make_rulebook(proc("    return count(range(1, 300000))\n"))
    assert BUDGET in fails(run_cli("resolve", book, "p"))
    result = run_cli("resolve", book, "p", "--max-steps", "1000000")
    assert result.exit_code == 0 and "result: 300000" in result.stdout


def test_a_huge_literal_is_a_syntax_error(make_rulebook: Make) -> None:
    book = make_rulebook(proc("    return " + "9" * 4301 + "\n"))
    assert "rulebook.rk:5:12: error: a number of more than 1000 digits" in fails(
        run_cli("check", book)
    )


def test_huge_given_values_are_input_errors(make_rulebook: Make, tmp_path: Path) -> None:
    book = make_rulebook(HEADER + "procedure p(x: int) [1.0]\n    return x\n")
    given = tmp_path / "big.toml"
    given.write_text("x = " + "9" * 5000 + "\n", encoding="utf-8")
    assert "a number of more than 1000 digits" in fails(
        run_cli("resolve", book, "p", "--given", given)
    )
    given.write_text("x = " + "9" * 1500 + "\n", encoding="utf-8")
    assert "a number of more than 1000 digits" in fails(
        run_cli("resolve", book, "p", "--given", given)
    )
    fails(run_cli("resolve", book, "p", "--at", "x=" + "9" * 5000))


def test_a_die_with_too_many_faces(make_rulebook: Make) -> None:
    book = make_rulebook(HEADER + "dice d1000000000 = 1..1000000000\n")
    err = fails(timed("check", book))
    assert "rulebook.rk:4:1: error: die d1000000000 has 1000000000 faces" in err


def test_a_table_on_4d500_is_checked_quickly(make_rulebook: Make) -> None:
    book = make_rulebook(
        HEADER + "dice d500 = 1..500\ntable t [1.0]: roll 4d500 -> int\n    4-1999 | 1\n"
    )
    err = fails(timed("check", book, limit=10))
    assert "no row for roll 2000 of 4d500" in err


# ---- deep input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "where"),
    [
        (
            "".join("    " * (i + 1) + "if true:\n" for i in range(300))
            + "    " * 301
            + "return 1\n",
            ":",
        ),
        ("    return " + "+".join(["1"] * 20000) + "\n", ":5:"),
        ("    return count(" + "[" * 2000 + "]" * 2000 + ")\n", ":5:"),
        ("    return " + "not " * 5000 + "true\n", ":5:"),
    ],
)
def test_deep_input_is_a_clear_error(make_rulebook: Make, body: str, where: str) -> None:
    book = make_rulebook(proc(body))
    for args in (("check", book), ("fmt", "--check", book)):
        err = fails(timed(*args))
        assert "nest deeper than 200" in err and f"rulebook.rk{where}" in err


def test_nesting_within_the_limit_works(make_rulebook: Make) -> None:
    depth = 60
    body = (
        "".join("    " * (i + 1) + "if true:\n" for i in range(depth))
        + "    " * (depth + 1)
        + "return 7\n"
    )
    book = make_rulebook(proc(body))
    result = run_cli("resolve", book, "p")
    assert result.exit_code == 0 and "result: 7" in result.stdout


def test_a_long_include_chain(make_rulebook: Make) -> None:
    files = {f"f{i}.rk": f'include "f{i + 1}.rk"\n' for i in range(400)}
    book = make_rulebook(HEADER + 'include "f0.rk"\n', **files, **{"f400.rk": "const c = 1\n"})
    err = fails(timed("check", book))
    assert "error: files include files more than 50 deep" in err and "f49.rk:1:1" in err


def test_mutual_recursion_has_a_location(make_rulebook: Make) -> None:
    book = make_rulebook(proc("    return q()\nprocedure q [1.1]\n    return p()\n"))
    err = fails(run_cli("resolve", book, "p"))
    assert "rulebook.rk:" in err.splitlines()[0] and "calls nest deeper than 200" in err


# ---- text that is not UTF-8 ---------------------------------------------------------------


def test_non_utf8_rulebook(make_rulebook: Make) -> None:
    book = make_rulebook(HEADER)
    (book / "rulebook.rk").write_bytes(HEADER.encode() + b"const c = \xff\n")
    for args in (("check", book), ("fmt", book)):
        err = fails(run_cli(*args))
        assert "rulebook.rk:4:11: error: byte 0xff is not UTF-8 text" in err


def test_a_bom_is_accepted(make_rulebook: Make) -> None:
    book = make_rulebook(HEADER)
    (book / "rulebook.rk").write_bytes(b"\xef\xbb\xbf" + HEADER.encode() + b"const c = 1\n")
    assert run_cli("check", book).exit_code == 0


def test_non_utf8_toml_files(make_rulebook: Make, tmp_path: Path) -> None:
    book = make_rulebook(HEADER + "procedure p(x: int) [1.0]\n    return x\n")
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"x = 1\n# \xfe\n")
    assert "bad.toml:2:3: error: byte 0xfe is not UTF-8" in fails(
        run_cli("resolve", book, "p", "--given", bad)
    )
    assert "not UTF-8" in fails(run_cli("run", RULEBOOKS / "silent_war", "--resume", bad))
    assert "not UTF-8" in fails(run_cli("replay", bad))
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbfx = 4\n")
    assert "result: 4" in run_cli("resolve", book, "p", "--given", bom).stdout


# ---- tampered saves and traces ------------------------------------------------------------


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("game")
    save, trace = folder / "g.toml", folder / "g.jsonl"
    result = run_cli(
        "run",
        RULEBOOKS / "silent_war",
        "--scenario",
        "patrol",
        "--seed",
        "3",
        "--turns",
        "1",
        "--save",
        save,
        "--trace",
        trace,
    )
    assert result.exit_code == 0, result.stderr
    return save, trace


def _without_faces(line: str) -> str:
    data = json.loads(line)
    if data.get("event") == "roll":
        del data["faces"]
    return json.dumps(data)


def _lines(trace: Path) -> list[str]:
    return trace.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize(
    "tamper",
    [
        lambda ls: [ls[0], "[1, 2]", *ls[1:]],
        lambda ls: [ls[0], "5", *ls[1:]],
        lambda ls: [
            json.dumps({k: v for k, v in json.loads(ls[0]).items() if k != "seed"}),
            *ls[1:],
        ],
        lambda ls: [ls[0], *[x.replace('"faces": [', '"faces": ["x", ') for x in ls[1:]]],
        lambda ls: [ls[0], *[x.replace('"index": ', '"index": 99') for x in ls[1:]]],
        lambda ls: [ls[0], *[_without_faces(line) for line in ls[1:]]],
        lambda ls: [ls[0], *ls[1:-1], "{}"],
    ],
)
def test_a_tampered_trace(
    recorded: tuple[Path, Path], tmp_path: Path, tamper: Callable[[list[str]], list[str]]
) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text("\n".join(tamper(_lines(recorded[1]))) + "\n", encoding="utf-8")
    fails(run_cli("replay", trace))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("seed = ", "seed = 1/0 #"),
        ("dice_state = [", "dice_state = [-5, "),
        ("dice_state = [", 'dice_state = ["x", '),
        ("turn = ", 'turn = "x" #'),
    ],
)
def test_a_tampered_save(recorded: tuple[Path, Path], tmp_path: Path, old: str, new: str) -> None:
    text = recorded[0].read_text(encoding="utf-8")
    assert old in text
    save = tmp_path / "s.toml"
    save.write_text(text.replace(old, new, 1), encoding="utf-8")
    fails(run_cli("run", RULEBOOKS / "silent_war", "--resume", save, "--turns", "1"))


def test_scripted_answers_must_be_a_table(tmp_path: Path) -> None:
    answers = tmp_path / "a.toml"
    answers.write_text("answers = 5\n", encoding="utf-8")
    err = fails(run_cli("run", RULEBOOKS / "silent_war", "--policy", f"scripted:{answers}"))
    assert "answers is not a table of decisions" in err


def test_save_and_trace_paths_are_checked_before_playing(tmp_path: Path) -> None:
    folder = tmp_path / "dir"
    folder.mkdir()
    err = fails(run_cli("run", RULEBOOKS / "silent_war", "--save", folder))
    assert "--save: error: cannot write" in err and "it is a folder" in err
    err = fails(run_cli("run", RULEBOOKS / "silent_war", "--trace", folder))
    assert "--trace: error: cannot write" in err
    assert "turn" not in (run_cli("run", RULEBOOKS / "silent_war", "--save", folder).stdout)


# ---- accepted silently before -------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "row", "message"),
    [
        ("d10", "10", "no roll of d10 reads row '10': it rolls 0-9"),
        ("2d6", "13", "no roll of 2d6 reads row '13'"),
    ],
)
def test_a_row_no_roll_reaches(make_rulebook: Make, dice: str, row: str, message: str) -> None:
    low, high = ("0-9", "10") if dice == "d10" else ("2-12", "13")
    book = make_rulebook(
        HEADER + f"table t [1.0]: roll {dice} -> int\n    {low} | 1\n    {high} | 2\n"
    )
    assert f"rulebook.rk:6:5: error: {message}" in fails(run_cli("check", book))


def test_a_row_for_modified_rolls_given_by_a_caller_is_fine(make_rulebook: Make) -> None:
    book = make_rulebook(
        HEADER
        + "table t [1.0]: roll d6 -> int\n    0 | 0\n    1-6 | 1\n"
        + "procedure p [1.0]\n    return t(roll: roll d6 - 1)\n"
    )
    assert run_cli("check", book).exit_code == 0


def test_unknown_decide_and_probe(make_rulebook: Make) -> None:
    book = make_rulebook(proc("    choose x from [1, 2] default 1 [1.0]\n    return x\n"))
    err = fails(run_cli("resolve", book, "p", "--decide", "nosuch=1"))
    assert "--decide nosuch: error: the rulebook makes no decision 'nosuch'" in err
    assert "its decisions are: x" in err  # nothing close: every decision it makes
    assert "did you mean 'x'?" not in err
    assert "result: 2" in run_cli("resolve", book, "p", "--decide", "x=2").stdout
    fails(run_cli("prob", book, "p", "--decide", "nosuch=1"))


@pytest.mark.parametrize(
    "args",
    [
        ("run", RULEBOOKS / "silent_war", "--turns", "-1"),
        ("simulate", RULEBOOKS / "silent_war", "--runs", "1", "--turns", "-3"),
        ("resolve", RULEBOOKS / "silent_war", "6.0", "--max-steps", "-1"),
        ("run", RULEBOOKS / "silent_war", "--max-steps", "0"),
        ("prob", RULEBOOKS / "silent_war", "6.0", "--max-steps", "-1"),
    ],
)
def test_negative_counts_are_usage_errors(args: tuple[object, ...]) -> None:
    fails(run_cli(*(str(a) for a in args)), 2)


# ---- traces replay from anywhere ----------------------------------------------------------


def test_a_trace_replays_from_another_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copytree(RULEBOOKS / "steel_wolves_like", tmp_path / "a" / "book")
    monkeypatch.chdir(tmp_path / "a")
    result = run_cli("run", "book", "--seed", "2", "--turns", "2", "--trace", "t.jsonl")
    assert result.exit_code == 0, result.stderr
    monkeypatch.chdir(tmp_path / "b")
    # the trace's own rulebook path is not followed unless the user names it (issue 37 §2)
    result = run_cli("replay", "../a/t.jsonl", "--rulebook", "../a/book")
    assert result.exit_code == 0, result.stderr
    assert "replay matches: 2 turn(s)" in result.stdout
    with (tmp_path / "a" / "book" / "patrol.rk").open("a", encoding="utf-8") as handle:
        handle.write("# changed\n")
    err = fails(run_cli("replay", "../a/t.jsonl", "--rulebook", "../a/book"))
    assert "the rulebook changed since the trace was recorded: patrol.rk changed" in err
    assert "tamper" not in err and "changed after it was written" not in err


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (r"^year = \d+$", "year = 'x' is not a int"),
        (r'^enum = "war_period"$', "is no longer a month"),
    ],
)
def test_saved_values_are_checked_against_their_types(
    recorded: tuple[Path, Path], tmp_path: Path, line: str, message: str
) -> None:
    import re

    text = recorded[0].read_text(encoding="utf-8")
    new = 'year = "x"' if line.startswith("^year") else 'enum = "month"'
    changed = re.sub(line, new, text, count=1, flags=re.M)
    assert changed != text
    save = tmp_path / "s.toml"
    save.write_text(changed, encoding="utf-8")
    err = fails(run_cli("run", RULEBOOKS / "silent_war", "--resume", save, "--turns", "1"))
    assert message in err


def test_a_row_with_an_empty_first_cell_of_several(make_rulebook: Make) -> None:
    """Found by bench/fuzz.py: an empty cell has no position to report the row at."""
    book = make_rulebook(HEADER + "table a [1.0]: roll d6 -> int\n    1-3 |  | 2\n    4-6 | 1\n")
    assert "rulebook.rk:5:14: error: several columns, but this table gives a int" in fails(
        run_cli("check", book)
    )


def test_diff_probe_of_an_unknown_name() -> None:
    book = RULEBOOKS / "silent_war"
    err = fails(run_cli("diff", f"{book}@1.1", book, "--probe", "nosuch"))
    assert "nosuch" in err


def test_diff_takes_a_step_budget_and_says_when_it_stopped() -> None:
    from conftest import EXAMPLES, run_cli

    book = EXAMPLES / "tutorial"
    args = ("diff", book, f"{book}@fog_bank", "--probe", "fire_phase", "--at", "weather=Haze")
    result = run_cli(*args, "--max-steps", "3")
    assert "not compared: " in result.output and "stopped after 3 steps" in result.output
    assert "not compared" not in run_cli(*args).output
    assert run_cli(*args, "--max-steps", "-1").exit_code == 2


def test_diff_probe_whose_of_does_not_parse_or_names_nothing() -> None:
    # before: the probe was silently dropped and the diff exited 3 as if compared
    book = RULEBOOKS / "silent_war"
    given = str(RULEBOOKS.parent / "examples" / "silent_war" / "spearfish_14_15.toml")
    base = ("diff", f"{book}@1.1", book, "--probe", "counterattack", "--given", given)
    broken = run_cli(*base, "--of", "result +")
    assert broken.exit_code == 1
    assert "--of:1:8: error: the expression ends too early" in broken.stderr
    assert "    result +\n           ^" in broken.stderr
    unknown = run_cli(*base, "--of", "nosuch.x")
    assert unknown.exit_code == 1
    assert "--of:1:1: error: unknown name 'nosuch'" in unknown.stderr


def test_a_saved_value_of_no_state_variable_is_refused(
    recorded: tuple[Path, Path], tmp_path: Path
) -> None:
    """The engine reads only declared names from the state: a save cannot bring in another
    (one named as a member, Clear, would stand for the member in generated code)."""
    import re

    text = recorded[0].read_text(encoding="utf-8")
    changed = re.sub(r"^(year = \d+)$", r"\1\nclear = 3", text, count=1, flags=re.M)
    assert changed != text
    save = tmp_path / "s.toml"
    save.write_text(changed, encoding="utf-8")
    err = fails(run_cli("run", RULEBOOKS / "silent_war", "--resume", save, "--turns", "1"))
    assert "it has a value for 'clear', which is no state variable or track of it" in err
