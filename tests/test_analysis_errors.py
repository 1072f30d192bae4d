"""Issue 33 §1: an unexpected error inside exact analysis is reported as an error in a
procedure's function is: at the rulebook file, line and rule, whichever method (situations,
the default, or paths) and command (``prob``, ``advise``) ran it, with no Python traceback.
The blocks exact analysis runs between situations are compiled through the same generator
and line map as procedures (rulekit.engine.codegen.compiled)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_cli

from rulekit.engine import codegen_runtime

PUSH = """rulebook "Push"
dice d6 = 1..6 [1.0]
procedure press_on -> int [4.0] "Push on"
    let gain = 0
    while gain < 6:
        choose go from [false, true] default true [4.1] "Push on?"
        if not go:
            return gain
        let r = roll d6
        if r = 1:
            return 0
        gain += min(2, r)
    return gain
"""

COMMANDS = {
    "prob": ("prob", "press_on"),
    "advise": ("advise", "press_on", "--maximize", "result"),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("method", ["situations", "paths"])
def test_a_fault_in_a_runtime_helper_is_reported_at_the_rulebook_line(
    make_rulebook: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    method: str,
) -> None:
    book = make_rulebook(PUSH)
    sane = run_cli(*COMMANDS[command][:1], book, *COMMANDS[command][1:], "--method", method)
    assert sane.exit_code == 0, sane.stderr

    def fault(*args: object) -> object:
        raise KeyError("injected")

    # the helper generated code calls for `min(2, r)` (line 12): blocks and functions alike
    monkeypatch.setitem(codegen_runtime.RUNTIME, "_builtin", fault)
    again = make_rulebook(PUSH + "\n")  # compiled anew, with the fault in its namespace
    result = run_cli(*COMMANDS[command][:1], again, *COMMANDS[command][1:], "--method", method)
    text = result.stdout + result.stderr
    assert "Traceback" not in text
    assert result.exit_code == 70, text  # an internal error (rulekit.cli.internal)
    lines = result.stderr.splitlines()
    assert lines[0] == f"{again / 'rulebook.rk'}:12:9: error: internal error: KeyError: 'injected'"
    assert lines[1].strip() == "gain += min(2, r)"
    assert lines[2].strip().startswith("^")
    assert lines[3] == "  in procedure press_on [4.0]"
    assert lines[4].startswith("  this is a bug in rulekit, not in your input: please report it")
    assert len(lines) == 5
