"""Issue 37 §3: SIGTERM (a batch system's stop, `kill`) during `rulekit run --save` and
`rulekit play` keeps the finished work, saved atomically, says so in one line and exits
143, never with a traceback. Real processes, stopped by a real signal."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULEKIT = str(Path(sys.executable).with_name("rulekit"))

# the first turn is quick; each turn after it counts to five million (seconds), so the
# signal comes while turn 2 is being played and turn 1 is the last whole turn
SLOW = """rulebook "Slow"
dice d6 = 1..6
state x: int = 0
state work_size: int = 5000000
procedure work [1.0]
    let i = 0
    if x > 0:
        while i < work_size:
            i = i + 1
    let r = roll d6
    x = x + r
sequence turn [0.0] "Turn"
    phase work [1.0]
"""
SCENARIO = '[scenario]\ntitle = "s"\nturns = 50\nmax_steps = 20000000\n'
QUICK = SCENARIO + "[state]\nwork_size = 0\n"  # the same game, every turn quick


@pytest.fixture
def slow(tmp_path: Path) -> Path:
    book = tmp_path / "book"
    (book / "scenarios").mkdir(parents=True)
    (book / "rulebook.rk").write_text(SLOW, encoding="utf-8")
    (book / "scenarios" / "s.toml").write_text(SCENARIO, encoding="utf-8")
    (book / "scenarios" / "quick.toml").write_text(QUICK, encoding="utf-8")
    return book


def _run_until_turn_2(*args: str) -> tuple[int, str, str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    child = subprocess.Popen(
        [RULEKIT, "run", *args, "--scenario", "s", "--seed", "1", "--explain"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    seen = []
    for line in child.stdout:  # the story of turn 1, told when it ends
        seen.append(line)
        if line.startswith("  < work"):
            break
    time.sleep(0.5)  # turn 1's save kept; turn 2 counts for seconds
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=60)
    return child.returncode, "".join(seen) + out, err


def test_sigterm_during_run_saves_the_last_whole_turn(slow: Path, tmp_path: Path) -> None:
    save = tmp_path / "game.toml"
    code, out, err = _run_until_turn_2(str(slow), "--save", str(save))
    assert code == 143, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        f"stopped (SIGTERM) in turn 2: the game is saved in {save} as it was after turn 1"
    )
    rolled = re.search(r"set x \[1\.0\]: 0 -> (\d)", out)
    assert rolled is not None
    data = tomllib.loads(save.read_text(encoding="utf-8"))  # whole, not half-written
    assert data["turn"] == 1
    assert data["values"]["x"] == int(rolled.group(1))  # turn 1's roll, not turn 2's
    assert not list(tmp_path.glob(".game.toml*"))  # no temporary file or lock left


def test_sigterm_during_run_without_save_says_nothing_is_kept(slow: Path) -> None:
    code, _, err = _run_until_turn_2(str(slow))
    assert code == 143 and "Traceback" not in err
    assert "stopped (SIGTERM) in turn 2: nothing is saved" in err


def test_the_saved_turn_resumes(slow: Path, tmp_path: Path) -> None:
    save = tmp_path / "game.toml"
    code, _, _ = _run_until_turn_2(str(slow), "--save", str(save))
    assert code == 143
    # resumed (its turns made quick: the counting throws no dice), the game goes on from
    # turn 1 as the uninterrupted game does
    import json

    from conftest import run_cli

    text = save.read_text(encoding="utf-8")
    assert "work_size = 5000000" in text
    save.write_text(text.replace("work_size = 5000000", "work_size = 0"), encoding="utf-8")
    whole = run_cli("run", slow, "--scenario", "quick", "--seed", "1", "--turns", "2", "--json")
    resumed = run_cli("run", slow, "--resume", save, "--turns", "1", "--json")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["turns"] == 2
    assert json.loads(resumed.stdout)["state_hash"] == json.loads(whole.stdout)["state_hash"]


def test_sigterm_at_a_play_prompt_saves_and_exits_143(tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, RULEKIT_PLAY_DIR=str(tmp_path / "play"), COLUMNS="120")
    child = pexpect.spawn(
        RULEKIT,
        ["play", "rulebooks/silent_war", "--seed", "5"],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=60,
    )
    child.expect(r"\? ([^\r\n]+\[[0-9.]+\])")
    question = child.match.group(1)
    child.expect(r"\r\n(\[[^\r\n]*\] )?> ")
    child.kill(signal.SIGTERM)
    child.expect("interrupted: the game is saved in")
    child.expect(pexpect.EOF)
    child.close()
    assert "Traceback" not in (child.before or "")
    assert child.exitstatus == 143
    again = pexpect.spawn(
        RULEKIT, ["play", "--resume"], cwd=str(ROOT), env=env, encoding="utf-8", timeout=60
    )
    again.expect(re.escape(question))  # the game goes on where it stopped
    again.expect(r"\r\n(\[[^\r\n]*\] )?> ")
    again.sendintr()
    again.expect(pexpect.EOF)
