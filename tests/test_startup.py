"""Start-up: ``rulekit --help`` and ``import rulekit`` import only what they need.

What they import is checked here, not how long they take (times are measured in
bench/bench.py, never asserted): a heavy import that creeps back into cli/main.py or
rulekit/__init__.py fails these tests on any machine.
"""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

# Stages a command loads only when it runs: parsing (lark), printing (rich), the engine.
HEAVY = ("lark", "rich", "attrs", "cattrs", "rulekit.language", "rulekit.book", "rulekit.engine")


def _modules_after(code: str) -> set[str]:
    script = f"{code}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(result.stdout.split())


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_import_rulekit_loads_no_stage() -> None:
    assert _heavy(_modules_after("import rulekit")) == []


def test_help_loads_no_stage() -> None:
    code = (
        "import contextlib, io\n"
        "from rulekit.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])"
    )
    modules = _modules_after(code)
    assert "click" in modules  # the probe ran
    assert _heavy(modules) == []


def test_the_api_is_there_when_asked_for() -> None:
    modules = _modules_after("import rulekit\nrulekit.load")
    assert "rulekit.api" in modules


def test_python_m_rulekit_is_the_command_line() -> None:
    lookup = ["lookup", "rulebooks/silent_war", "7.1", "--at", "war_period=WP3", "--roll", "2"]
    result = subprocess.run(
        [sys.executable, "-m", "rulekit", *lookup],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "Empire Pacific, Bismarck Sea"
    usage = subprocess.run(
        [sys.executable, "-m", "rulekit", "nosuch"], cwd=ROOT, capture_output=True, text=True
    )
    assert usage.returncode == 2
    assert "Usage: rulekit" in usage.stderr
