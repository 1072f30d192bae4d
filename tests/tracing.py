"""Reading a resolution's trace and state in tests: events by kind and fields, its text.

pytest puts tests/ on sys.path (rootdir, prepend import mode), so test files import these
with `from tracing import events, one`.
"""

from __future__ import annotations

from typing import Any

from rulekit.engine.session import Outcome
from rulekit.engine.trace import Trace, render_text


def find(trace: Trace, kind: str, **match: Any) -> list[Any]:
    """The events of a trace of this kind (`roll`, `lookup`, ...) whose fields equal `match`."""
    found = [e for e in trace.events if e.event == kind]
    return [e for e in found if all(getattr(e, k) == v for k, v in match.items())]


def events(outcome: Outcome, kind: str, **match: Any) -> list[Any]:
    """The outcome's events of this kind whose fields equal `match`, in trace order."""
    return find(outcome.trace, kind, **match)


def one(outcome: Outcome, kind: str, **match: Any) -> Any:
    """The one event of this kind whose fields equal `match`; fails if there are 0 or 2+."""
    found = events(outcome, kind, **match)
    assert len(found) == 1, found
    return found[0]


def rolls(outcome: Outcome, rule: str | None = None) -> list[Any]:
    """The outcome's rolls, or only those made under `rule` (e.g. "14.16 C")."""
    return [e for e in events(outcome, "roll") if rule is None or e.rule == rule]


def trace_text(outcome: Outcome) -> str:
    """The outcome's whole trace rendered as text, as snapshots keep it."""
    return "\n".join(render_text(outcome.trace))


def state(outcome: Outcome) -> dict[str, Any]:
    """The interpreter's global state after the resolution."""
    return outcome.interpreter.state.values
