"""Hardening, round 3 (issue 37): the fuzzer's uncaught exceptions, each a clear error at its
place; every method of ``prob`` within --max-seconds; sampling bounded."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from conftest import ROOT, run_cli

from rulekit.errors import MAX_EXPRESSION_DEPTH, suggest

Make = Callable[..., Path]
HEADER = 'rulebook "Test"\ndice d6 = 1..6\n'
BATTLE = ROOT / "examples" / "battle" / "rulebook.rk"


def fails(result: Result, code: int = 1) -> str:
    text = result.stdout + result.stderr
    assert result.exit_code == code, text
    assert "Traceback" not in text
    return result.stderr


# ---- scenarios: [[start]] entries of the wrong kind -------------------------------------------

BOOK = HEADER + "state x: int = 0\nprocedure setup(a: int = 1) [1.0]\n    x = a\n"


@pytest.mark.parametrize(
    ("entry", "where", "message"),
    [
        ('procedure = ["setup"]', ":5:1:", "procedure: give the procedure's name, as text"),
        ("procedure = { a = 1 }", ":5:1:", "procedure: give the procedure's name, as text"),
        ("procedure = 3", ":5:1:", "procedure: give the procedure's name, as text"),
        ("procedure = true", ":5:1:", "procedure: give the procedure's name, as text"),
        ('procedure = "setup"\nargs = 3', ":6:1:", "args: give the arguments as a table"),
        ('procedure = "setup"\nargs = [1, 2]', ":6:1:", "args: give the arguments as a table"),
    ],
)
def test_a_start_entry_of_the_wrong_kind_is_an_error(
    make_rulebook: Make, entry: str, where: str, message: str
) -> None:
    scenario = f'[scenario]\ntitle = "s"\nturns = 1\n[[start]]\n{entry}\n'
    book = make_rulebook(BOOK, **{"scenarios__s.toml": scenario})
    err = fails(run_cli("check", book))
    assert f"s.toml{where} error: {message}" in err


def test_suggest_gives_no_hint_for_a_number_or_a_boolean() -> None:
    assert suggest(3, ["a", "b"]) is None  # type: ignore[arg-type]
    assert suggest(True, ["True", "true"]) is None  # type: ignore[arg-type]
    assert suggest("Setup", ["setup"]) == "setup"


# ---- includes, tables ------------------------------------------------------------------------


def test_an_include_whose_name_is_too_long_is_an_error(make_rulebook: Make) -> None:
    book = make_rulebook(HEADER + 'include "' + "a" * 300 + '.rk"\n')
    err = fails(run_cli("check", book))
    assert "rulebook.rk:3:1: error: cannot read included file: File name too long" in err


RECORD = HEADER + "record pair = a: int, b: int\ntable t [1.0]: roll d6 -> pair\n    1-3 | 5 | 6\n"


def test_an_empty_column_of_a_record_row_is_an_error(make_rulebook: Make) -> None:
    err = fails(run_cli("check", make_rulebook(RECORD + "    4-6 |  | 7\n")))
    assert "rulebook.rk:6:14: error: a column of this row is empty" in err
    assert "hint: write — for none" in err


def test_a_record_row_with_too_many_columns_is_an_error(make_rulebook: Make) -> None:
    err = fails(run_cli("check", make_rulebook(RECORD + "    4-6 | 7 | 8 | 9\n")))
    assert "rulebook.rk:6:11: error: a pair has 2 fields (a, b) but 3 values are given" in err


# ---- deep nesting: bounded before any Python is generated ------------------------------------


@pytest.mark.parametrize(
    ("left", "right", "levels"),
    [
        ("(x + ", ")", 1),  # 70 of these made generated code Python refuses to compile
        ("(x * ", ")", 1),
        ("-(x + ", ")", 2),
        ("max(x, x + ", ")", 2),
        ("(if x > 1 then x else x + ", ")", 2),
        ("count([x, ", "]) + 0", 3),
    ],
)
def test_deeply_nested_expressions_are_an_error_not_a_crash(
    make_rulebook: Make, left: str, right: str, levels: int
) -> None:
    def book(k: int) -> Path:
        body = "    let x = 2\n    return " + left * k + "x" + right * k + "\n"
        return make_rulebook(HEADER + "procedure p [1.0]\n" + body)

    deepest = (MAX_EXPRESSION_DEPTH - 1) // levels  # k of these, and the innermost x
    assert run_cli("resolve", book(deepest), "p", "--seed", "1").exit_code == 0
    err = fails(run_cli("resolve", book(deepest + 1), "p", "--seed", "1"))
    assert f"error: expressions nest deeper than {MAX_EXPRESSION_DEPTH}" in err
    assert "rulebook.rk:5:" in err


def test_a_deep_of_expression_is_an_error(make_rulebook: Make) -> None:
    book = make_rulebook(HEADER + "procedure p -> int [1.0]\n    return roll d6\n")
    of = "(result + " * 70 + "1" + ")" * 70
    err = fails(run_cli("prob", book, "p", "--of", of))
    assert "--of:1:" in err and f"expressions nest deeper than {MAX_EXPRESSION_DEPTH}" in err


# ---- prob: every method within --max-seconds; sampling bounded -------------------------------


def test_max_seconds_holds_path_by_path() -> None:
    # issue 37: still running after 40 s
    start = time.monotonic()
    args = ("prob", BATTLE, "press_on", "--method", "paths", "--max-seconds", "1")
    err = fails(run_cli(*args))
    assert time.monotonic() - start < 10
    assert "--max-seconds: error: procedure press_on [4.0] took more than 1 s (" in err
    assert "paths)" in err and "--samples" in err


def test_max_seconds_holds_for_samples() -> None:
    start = time.monotonic()
    args = ("prob", BATTLE, "press_on", "--samples", "50000000", "--max-seconds", "1")
    err = fails(run_cli(*args))
    assert time.monotonic() - start < 10
    assert "took more than 1 s (" in err and "samples)" in err
    assert "take fewer --samples" in err


def test_samples_have_an_upper_bound() -> None:
    start = time.monotonic()
    err = fails(run_cli("prob", BATTLE, "press_on", "--samples", str(10**20)))
    assert time.monotonic() - start < 5
    assert "--samples: error: --samples must be between 1 and 100,000,000" in err


def test_sampling_reports_its_progress() -> None:
    from rulekit.api import load

    seen: list[int] = []
    dist = load(str(BATTLE)).prob("press_on", samples=2500, progress=seen.append)
    assert seen == [0, 1000, 2000] and dist.samples == 2500


# ---- bad input (issue 37 §1) -------------------------------------------------------------------

D10 = 'rulebook "Test"\ndice d10 = 0..9\n'


@pytest.mark.parametrize(
    ("rows", "row", "where"),
    [
        ("    0-7 | 1\n    8-12 | 2\n", "8-12", ":5:5:"),
        ("    -3..2 | 1\n    3-9 | 2\n", "-3..2", ":4:5:"),
    ],
)
def test_a_row_beyond_the_faces_is_an_error(
    make_rulebook: Make, rows: str, row: str, where: str
) -> None:
    book = make_rulebook(D10 + "table t [1.0]: roll d10 -> int\n" + rows)
    err = fails(run_cli("check", book))
    assert f"rulebook.rk{where} error: row '{row}' goes beyond the rolls of d10" in err
    assert "it rolls 0-9" in err


def test_a_row_beyond_the_faces_of_a_modified_roll_is_allowed(make_rulebook: Make) -> None:
    # the rulebook says so: a call gives the table a roll, which a modifier can take past 9
    proc = "procedure p -> int [2.0]\n    return t(roll: roll d10 + 3)\n"
    book = make_rulebook(D10 + proc + "table t [1.0]: roll d10 -> int\n    0-7 | 1\n    8-12 | 2\n")
    result = run_cli("check", book)
    assert result.exit_code == 0, result.stderr


def test_a_save_field_is_validated_with_its_path(tmp_path: Path) -> None:
    from test_simulate import COIN, FLIPS

    book = tmp_path / "coin"
    (book / "scenarios").mkdir(parents=True)
    (book / "rulebook.rk").write_text(COIN, encoding="utf-8")
    (book / "scenarios" / "flips.toml").write_text(FLIPS, encoding="utf-8")
    save = tmp_path / "g.toml"
    played = run_cli("run", book, "--seed", "1", "--turns", "1", "--save", save)
    assert played.exit_code in (0, 1), played.stderr
    text = save.read_text(encoding="utf-8")
    for value, message in (
        ('{ fraction = "1/0" }', "values.score: '1/0' divides by zero"),
        ('{ list = [1, { fraction = "x" }] }', "values.score.list[1]: Invalid literal"),
        ("{ ref = 99 }", "values.score: no piece 99 among the entities"),
    ):
        changed = re.sub(r"^score = \d+$", f"score = {value}", text, count=1, flags=re.M)
        assert changed != text
        save.write_text(changed, encoding="utf-8")
        err = fails(run_cli("run", book, "--resume", save, "--turns", "1"))
        assert f"'{save}' does not fit this rulebook: {message}" in err


def test_simulate_out_naming_a_file_is_an_error(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from test_simulate import COIN, FLIPS

    book = tmp_path / "coin"
    (book / "scenarios").mkdir(parents=True)
    (book / "rulebook.rk").write_text(COIN, encoding="utf-8")
    (book / "scenarios" / "flips.toml").write_text(FLIPS, encoding="utf-8")
    taken = tmp_path / "taken"
    taken.write_text("mine\n", encoding="utf-8")
    err = fails(run_cli("simulate", book, "--runs", "2", "--out", taken))
    assert f"--out: error: '{taken}' is a file, not a folder" in err
    assert taken.read_text(encoding="utf-8") == "mine\n"
    usage = run_cli("simulate", book, "--runs", str(10**20))
    assert usage.exit_code == 2 and "1<=x<=10000000" in usage.stderr


def test_an_internal_error_is_a_message_with_the_rulebook_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fault injected into exact analysis by situations (the default): exit 70, the
    rulebook line and procedure running (issue 33 §1), a request to report it, no traceback."""
    from rulekit.analysis import lift

    def fault(*args: object, **kwargs: object) -> None:
        raise KeyError("injected")

    monkeypatch.setattr(lift.SituationDice, "throw_summed", fault)
    monkeypatch.setattr(lift.SituationDice, "throw_kept", fault)
    result = run_cli("prob", BATTLE, "battle", "--at", "attacker=2", "--at", "defender=1")
    err = fails(result, 70)
    assert err.splitlines()[0].endswith(
        "rulebook.rk:13:9: error: internal error: KeyError: 'injected'"
    )
    assert "  in procedure battle [1.0]\n" in err
    assert "this is a bug in rulekit, not in your input: please report it" in err


# ---- faults at --save (issue 37 §3) ------------------------------------------------------------


def _coin(tmp_path: Path) -> Path:
    from test_simulate import COIN, FLIPS

    book = tmp_path / "coin"
    (book / "scenarios").mkdir(parents=True, exist_ok=True)
    (book / "rulebook.rk").write_text(COIN, encoding="utf-8")
    (book / "scenarios" / "flips.toml").write_text(FLIPS, encoding="utf-8")
    return book


def test_a_second_run_saving_to_the_same_file_refuses(tmp_path: Path) -> None:
    from rulekit.cli.paths import held

    book, save = _coin(tmp_path), tmp_path / "g.toml"
    with held(str(save), "--save"):  # the first run, still playing
        err = fails(run_cli("run", book, "--seed", "2", "--turns", "1", "--save", save))
        assert f"--save: error: another rulekit run is saving to '{save}'" in err
        assert not save.exists()
    played = run_cli("run", book, "--seed", "2", "--turns", "1", "--save", save)
    assert played.exit_code == 0, played.stderr
    assert save.exists()


def test_a_full_disk_at_save_keeps_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from rulekit.play import runner

    book, save = _coin(tmp_path), tmp_path / "g.toml"
    real = runner.write_save

    def full(path: str, data: object) -> None:
        if path == str(save):
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "write_save", full)
    err = fails(run_cli("run", book, "--seed", "2", "--turns", "1", "--save", save))
    match = re.search(r"cannot write '.*g\.toml': No space left on device; the game is saved "
                      r"in '([^']+)' instead", err)  # fmt: skip
    assert match is not None, err
    rescued = Path(match.group(1))
    try:
        assert not save.exists() and "turn = 1" in rescued.read_text(encoding="utf-8")
        again = run_cli("run", book, "--resume", rescued, "--turns", "1")
        assert again.exit_code == 0, again.stderr
    finally:
        rescued.unlink()


# ---- work bounds (issue 37 §3) -----------------------------------------------------------------


def test_checking_table_rows_is_not_quadratic(make_rulebook: Make) -> None:
    # 10,000 rows of a d10000 took 80 s (each row compared with every row before it, and
    # every face with every row); in linear time it is a few seconds, parse included
    rows = "".join(f"    {i} | {i % 7}\n" for i in range(1, 10_001))
    big = make_rulebook('rulebook "T"\ndice d10000 = 1..10000\ntable t [1.0]: roll d10000 -> int\n'
                        + rows + "    10000 | 1\n")  # fmt: skip
    start = time.process_time()  # the work done, not the wait on a busy machine
    err = fails(run_cli("check", big))
    assert time.process_time() - start < 10
    # and a row twice is still found, at its place
    assert "rulebook.rk:10004:5: error: '10000' appears twice" in err


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid``, from /proc (Linux)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, todo = [], [pid]
    while todo:
        below = [p for p, q in parents.items() if q == todo[-1]]
        todo.pop()
        found += below
        todo += below
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_process_pool_workers_end_with_their_run(tmp_path: Path) -> None:
    """A `simulate --scheduler processes` killed outright (SIGKILL: no handler runs) left
    its worker processes running forever; each now watches its run and ends with it."""
    import signal
    import subprocess
    import sys

    book = _coin(tmp_path)
    (book / "rulebook.rk").write_text(  # games slow enough to be killed in the middle
        (book / "rulebook.rk")
        .read_text(encoding="utf-8")
        .replace(
            "    let r = roll d10\n", "    let r = roll d10\n    let w = count(range(1, 150000))\n"
        ),
        encoding="utf-8",
    )
    args = ["simulate", str(book), "--runs", "100000", "--workers", "2",
            "--scheduler", "processes", "--max-steps", "1000000"]  # fmt: skip
    run = subprocess.Popen(
        [sys.executable, "-m", "rulekit", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 20
        while len(_descendants(run.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        workers = _descendants(run.pid)
        assert len(workers) >= 3, workers  # the fork server and two workers, at least
        time.sleep(1)
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_running(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [w for w in workers if _running(w)] == []
    finally:
        if run.poll() is None:
            run.kill()
        for pid in workers:  # this test's own processes, left by a failure: ended here
            if _running(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_tens_units_die_is_bounded_before_its_faces_are_made(make_rulebook: Make) -> None:
    # two 10,000-face dice read as tens and units: 10^8 faces took 3.9 GB at `check`
    for part, many in (("d101 = 1..101", "10,201"), ("d10000 = 1..10000", "100,000,000")):
        book = make_rulebook(f'rulebook "T"\ndice {part}\ndice d99 = tens_units('
                             + part.split()[0] + ", " + part.split()[0] + ")\n")  # fmt: skip
        start = time.monotonic()
        err = fails(run_cli("check", book))
        assert time.monotonic() - start < 10
        assert (
            f"rulebook.rk:3:1: error: die d99 has {many} faces: rulekit's dice have at most" in err
        )


def test_three_dice_of_10000_faces_keep_to_max_seconds(make_rulebook: Make) -> None:
    book = make_rulebook('rulebook "T"\ndice d10000 = 1..10000\nprocedure p -> int [1.0]\n'
                         "    return (roll d10000) + (roll d10000) * (roll d10000)\n")  # fmt: skip
    start = time.monotonic()
    err = fails(run_cli("prob", book, "p", "--max-seconds", "2", "--max-paths", "10000000000"))
    assert time.monotonic() - start < 15
    assert "--max-seconds" in err or "--max-paths" in err or "--max-situations" in err
