"""The two engines side by side: a game played with procedures as closures and again as
generated source (rulekit.engine.codegen) must write byte-identical JSON traces.

Used by tests/test_codegen.py (a few seeds) and bench/differential.py (hundreds).
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager

from rulekit.book.checker import Checked
from rulekit.play.runner import new_game


@contextmanager
def engine(generated: bool) -> Iterator[None]:
    """Interpreters made inside run procedures as generated source or as closures."""
    saved = os.environ.get("RULEKIT_ENGINE")
    os.environ["RULEKIT_ENGINE"] = "generated" if generated else "closures"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["RULEKIT_ENGINE"]
        else:
            os.environ["RULEKIT_ENGINE"] = saved


def played(
    checked: Checked,
    scenario: str | None,
    seed: int,
    generated: bool,
    turns: int | None = None,
    policy: str = "default",
) -> str:
    """The JSON trace of one game as `rulekit run --trace` writes it, then how it ended (or
    the error that stopped it) and the hash of its final state."""
    with engine(generated):
        game = new_game(checked, scenario, seed, policy)
        out = io.StringIO()
        try:
            result = game.play(turns, trace=out)
        except Exception as exc:  # a rule error must stop both engines the same way
            out.write(f"error {type(exc).__name__}: {exc}\n")
            for event in game.interp.trace.to_json():
                out.write(json.dumps(event, ensure_ascii=False, sort_keys=True) + "\n")
            return out.getvalue()
    out.write(f"end {result.ended} {result.state_hash}\n")
    return out.getvalue()
