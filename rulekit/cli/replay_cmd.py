"""``rulekit replay TRACE``: re-run a recorded game and confirm it ends in the same state. The
trace's own rulebook path is followed only for rulekit's own rulebooks or when the user
names or confirms it (cli/paths.py traced_rulebook)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click


def register(
    main: click.Group,
    json_flag: Callable[[Any], Any],
    reports_errors: Callable[[Any], Any],
    _emit_json: Callable[[Any], None],
) -> None:
    """Add the command to the group (called once by cli/main.py)."""

    @main.command("replay")
    @click.argument("trace")
    @click.option(
        "--rulebook",
        "rulebook",
        help="The rulebook it was recorded with (a trace's own rulebook path is followed "
        "only for rulekit's rulebooks, or when you confirm it).",
    )
    @click.option(
        "--scenario",
        "scenario",
        metavar="FILE",
        help="The scenario file, when the game was played from a file outside the rulebook.",
    )
    @click.option(
        "--resumed-from",
        "resumed_from",
        metavar="FILE",
        help="The save the game was resumed from, if it is not beside the trace.",
    )
    @json_flag
    @reports_errors
    def replay_cmd(
        trace: str,
        rulebook: str | None,
        scenario: str | None,
        resumed_from: str | None,
        as_json: bool,
    ) -> None:
        """Re-run a recorded game from its trace and confirm it ends in the same state."""
        import json as _json

        from rich.text import Text

        from rulekit.book.checker import load
        from rulekit.cli.paths import traced_rulebook
        from rulekit.cli.show import out
        from rulekit.errors import InputError, error
        from rulekit.play.runner import replay
        from rulekit.play.trace_io import read_trace_text

        first = (read_trace_text(trace).splitlines() or ["{}"])[0]
        try:
            header = _json.loads(first)
        except (ValueError, RecursionError):
            header = None
        if not isinstance(header, dict):
            raise InputError([error(f"'{trace}' is not a rulekit trace", where="replay")])
        options = header.get("options", [])
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            # found by bench/fuzz.py: a number or nested lists where the option names go
            raise InputError(
                [
                    error(
                        f"'{trace}' is damaged: its options are not a list of option names",
                        where="replay",
                        hint="it was changed after rulekit wrote it",
                    )
                ]
            )
        rulebook = rulebook or traced_rulebook(header, trace)
        checked = load(rulebook, options)
        report = replay(checked, trace, scenario, resumed_from)
        if as_json:
            _emit_json(
                {
                    "ok": True,
                    "turns": report.turns,
                    "events": report.events,
                    "state_hash": report.state_hash,
                }
            )
            return
        out.print(
            Text(
                f"replay matches: {report.turns} turn(s), {report.events} event(s), "
                f"end state {report.state_hash[:16]}"
            )
        )
