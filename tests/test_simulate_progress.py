"""simulate's progress where it is not a terminal (a line every ~10 s), and SIGTERM handled
as Ctrl-C: finished shards kept, the same command resumes, exit 143."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulekit.cli import simulate_cmd
from tests.conftest import ROOT, RULEBOOKS, run_cli

SUB = str(RULEBOOKS / "steel_wolves_like")


def test_a_line_now_and_then_when_stderr_is_not_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(simulate_cmd, "PROGRESS_LINE_SECONDS", 0.0)  # every shard, for the test
    result = run_cli(
        "simulate", SUB, "--runs", "12", "--seed", "0", "--workers", "1", "--shard-size", "4"
    )
    assert result.exit_code == 0, result.stderr
    lines = [x for x in result.stderr.splitlines() if x.startswith("simulate: ")]
    assert [x.split(" games,")[0] for x in lines] == [
        "simulate: 4/12",
        "simulate: 8/12",
        "simulate: 12/12",
    ]
    assert "games/s" in lines[0] and "left" in lines[0]


def test_quiet_with_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simulate_cmd, "PROGRESS_LINE_SECONDS", 0.0)
    result = run_cli("simulate", SUB, "--runs", "4", "--shard-size", "2", "--json")
    assert result.exit_code == 0 and "simulate: " not in result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is POSIX")
def test_sigterm_stops_like_ctrl_c_and_the_study_resumes(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    out = tmp_path / "study"
    command = [
        sys.executable,
        "-m",
        "rulekit",
        "simulate",
        SUB,
        "--runs",
        "100000",
        "--workers",
        "1",
        "--shard-size",
        "20",
        "--out",
        str(out),
    ]
    run = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(out.glob("shard-*.parquet"))) < 2:
        time.sleep(0.2)
    assert len(list(out.glob("shard-*.parquet"))) >= 2, "no shard finished in time"
    run.send_signal(signal.SIGTERM)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 143, stderr
    assert "stopped after" in stderr and "the same command resumes" in stderr
    assert "Traceback" not in stderr
    report = run_cli("report", out)
    assert report.exit_code == 0, report.stderr
    assert "not played yet" in report.stderr
