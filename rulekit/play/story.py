"""What a reader sees of a turn: the trace with its book-keeping folded.

A game's trace holds every event, and most of them are book-keeping: a procedure that
measures a distance or a range, reads a table without a roll and changes nothing. Such a
call tells a player nothing the next line does not, so :func:`fold` leaves it out. What
counts as book-keeping is decided from the trace alone, the same way for every rulebook: a
call is book-keeping when nothing under it rolls, draws, decides, changes the state or
writes a note of the rules (a graph function's note of the distance it found does not
count). A phase of the sequence of play (a call at the turn's top level) is never left
out: when it is book-keeping it shows as one line with its result, so a phase that does
nothing is still seen to have happened.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from attrs import evolve

from rulekit.book.check_exprs import GRAPH_FUNCTIONS
from rulekit.engine.trace import (
    CallEvent,
    DecisionEvent,
    DrawEvent,
    Event,
    NoteEvent,
    ReturnEvent,
    RollEvent,
    SetEvent,
)

# Events a player must see: chance, choices, changes and what the rules say in words.
_MATTERS = (RollEvent, DrawEvent, DecisionEvent, SetEvent, NoteEvent)
# ... except the note a graph function writes of what it found (``distance(g, a, b) = 3``).
_COMPUTED = re.compile(rf"^({'|'.join(GRAPH_FUNCTIONS)})\(")


def _tells(e: Event) -> bool:
    if isinstance(e, NoteEvent):
        return _COMPUTED.match(e.text) is None
    return isinstance(e, _MATTERS)


def _matters(events: Sequence[Event], call_at: int) -> tuple[bool, int]:
    """Whether the call opened at ``call_at`` has an event that matters, and where it closes.

    The close is the index of its :class:`ReturnEvent` (or the end of the events, for a call
    that a rule violation cut short).
    """
    depth = events[call_at].depth
    found = False
    for i in range(call_at + 1, len(events)):
        e = events[i]
        if e.depth == depth and isinstance(e, ReturnEvent):
            return found, i
        found = found or _tells(e)
    return found, len(events) - 1


def fold(events: Sequence[Event], top: int | None = None) -> list[Event]:
    """The events of a turn with book-keeping calls left out (see the module docstring).

    ``top`` is the depth of the turn's phases, when ``events`` are only a stretch of the turn
    (``rulekit play`` tells the story between two decisions): a book-keeping call deeper
    than that is left out, not shown as a phase's one line."""
    if not events:
        return []
    top = min(e.depth for e in events) if top is None else top
    out: list[Event] = []
    i = 0
    while i < len(events):
        e = events[i]
        if not isinstance(e, CallEvent):
            out.append(e)
            i += 1
            continue
        matters, close = _matters(events, i)
        if matters:
            out.append(e)
            i += 1
            continue
        ret = events[close]
        if e.depth == top and isinstance(ret, ReturnEvent):
            out.append(evolve(ret, procedure=_label(e)))  # one line: "< phase [rule] -> result"
        i = close + 1
    return out


def _label(call: CallEvent) -> str:
    rule = f" [{call.rule}]" if call.rule else ""
    title = f' "{call.title}"' if call.title else ""
    return f"{call.procedure}{rule}{title}"
