"""The trace of a resolution: every roll, modifier, table row, decision and state change.

Events hold JSON-ready values (strings, numbers, lists, objects), so a trace serializes
with cattrs as it is and renders the same way every time.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import cattrs
from attrs import define, field, frozen


@frozen
class Term:
    """One modifier applied to a roll or a total, with its rule reference."""

    value: Any
    label: str
    rule: str | None = None
    provisional: bool = False


@frozen
class CallEvent:
    depth: int
    procedure: str
    rule: str | None
    title: str | None
    args: dict[str, Any]
    event: str = "call"


@frozen
class ReturnEvent:
    depth: int
    procedure: str
    result: Any
    event: str = "return"


@frozen
class RollEvent:
    depth: int
    dice: str
    faces: list[int]
    natural: int
    modifiers: list[Term]
    total: int
    rule: str | None
    at: str
    # every die thrown, in the order thrown, when a reroll threw some again (else empty):
    # ``faces`` are those that stand
    thrown: list[int] = field(factory=list)
    event: str = "roll"


@frozen
class DrawEvent:
    depth: int
    pool: str
    position: int
    of: int
    item: Any
    rule: str | None
    event: str = "draw"


@frozen
class TotalEvent:
    depth: int
    name: str
    rule: str | None
    terms: list[Term]
    total: Any
    clamped: bool = False
    event: str = "total"


@frozen
class LookupEvent:
    depth: int
    table: str
    rule: str | None
    keys: dict[str, Any]
    row: list[str]
    result: Any
    provisional: bool
    at: str
    event: str = "lookup"


@frozen
class DecisionEvent:
    depth: int
    name: str
    options: list[Any]
    choice: Any
    by: str
    rule: str | None
    index: int = 0  # the position of the choice among the options (replays use it)
    event: str = "decision"


@frozen
class SetEvent:
    """A state change; for a list (a cup, a pool) what was added and removed."""

    depth: int
    target: str
    old: Any
    new: Any
    rule: str | None
    added: list[Any] | None = None
    removed: list[Any] | None = None
    event: str = "set"


@frozen
class ValueEvent:
    depth: int
    name: str
    value: Any
    rule: str | None
    event: str = "value"


@frozen
class CheckEvent:
    depth: int
    condition: str
    result: bool
    rule: str | None
    event: str = "check"


@frozen
class NoteEvent:
    depth: int
    text: str
    rule: str | None = None
    event: str = "note"


Event = (
    CallEvent
    | ReturnEvent
    | RollEvent
    | DrawEvent
    | TotalEvent
    | LookupEvent
    | DecisionEvent
    | SetEvent
    | ValueEvent
    | CheckEvent
    | NoteEvent
)

_converter = cattrs.Converter()


@define
class Trace:
    """Events in the order they happened, and the provisional values that were used."""

    events: list[Event] = field(factory=list)
    provisional_used: list[str] = field(factory=list)
    # the same, as a set: a look-up of a provisional cell asks on every use (a campaign, 10^6)
    _used: set[str] = field(factory=set, init=False, eq=False, repr=False)

    def add(self, event: Event) -> None:
        self.events.append(event)

    def used_provisional(self, what: str) -> None:
        if what not in self._used:
            self._used.add(what)
            self.provisional_used.append(what)

    def begin_noting(self) -> tuple[set[str], list[str]]:
        """Start listing every provisional value used, even those used before, until
        ``end_noting`` (given what this returned) adds them to those used before."""
        before = self._used, self.provisional_used
        self._used, self.provisional_used = set(), []
        return before

    def end_noting(self, before: tuple[set[str], list[str]]) -> tuple[str, ...]:
        """The provisional values used since ``begin_noting``, in order, now noted."""
        noted = tuple(self.provisional_used)
        self._used, self.provisional_used = before
        for what in noted:
            self.used_provisional(what)
        return noted

    def to_json(self) -> list[dict[str, Any]]:
        out = []
        for e in self.events:
            data = _converter.unstructure(e)
            kind = data.pop("event")
            if kind == "roll" and not data["thrown"]:
                del data["thrown"]  # no die thrown again: the faces are every die
            out.append({"event": kind, **data})
        return out


def _ref(rule: str | None) -> str:
    return f" [{rule}]" if rule else ""


def _signed(value: Any) -> str:
    text = str(value)
    return text if text.startswith("-") else f"+{text}"


def _terms(terms: list[Term]) -> str:
    parts = []
    for term in terms:
        mark = " (provisional)" if term.provisional else ""
        label = f" {term.label}" if term.label else ""
        parts.append(f"{_signed(term.value)}{label}{_ref(term.rule)}{mark}")
    return ", ".join(parts)


def show_value(value: Any) -> str:
    """A JSON-ready value of a trace event as the text trace shows it."""
    if isinstance(value, list):
        return ", ".join(show_value(v) for v in value) if value else "(none)"
    if isinstance(value, dict):
        return "(" + ", ".join(f"{k}: {show_value(v)}" for k, v in value.items()) + ")"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def render_event(e: Event) -> str:
    """One line of the human-readable trace."""
    pad = "  " * e.depth
    if isinstance(e, CallEvent):
        args = ", ".join(f"{k}={show_value(v)}" for k, v in e.args.items())
        title = f' "{e.title}"' if e.title else ""
        return f"{pad}> {e.procedure}{_ref(e.rule)}{title}" + (f"  {args}" if args else "")
    if isinstance(e, ReturnEvent):
        return f"{pad}< {e.procedure} -> {show_value(e.result)}"
    if isinstance(e, RollEvent):
        dice = f" ({', '.join(str(f) for f in e.faces)})" if len(e.faces) > 1 else ""
        if e.thrown:  # the dice a reroll threw again, with what they showed
            gone = Counter(e.thrown) - Counter(e.faces)
            again = ", ".join(str(f) for f in sorted(gone.elements()))
            dice = f" ({', '.join(str(f) for f in e.faces)}; rerolled {again})"
        mods = f" {_terms(e.modifiers)}" if e.modifiers else ""
        return f"{pad}roll {e.dice}{_ref(e.rule)}: natural {e.natural}{dice}{mods} = {e.total}"
    if isinstance(e, DrawEvent):
        item = show_value(e.item)
        return f"{pad}draw from {e.pool}{_ref(e.rule)}: item {e.position} of {e.of}: {item}"
    if isinstance(e, TotalEvent):
        clamp = " (clamped)" if e.clamped else ""
        terms = _terms(e.terms) or "no terms"
        return f"{pad}{e.name}{_ref(e.rule)} = {show_value(e.total)}{clamp}: {terms}"
    if isinstance(e, LookupEvent):
        keys = ", ".join(f"{k}={show_value(v)}" for k, v in e.keys.items())
        mark = "  (provisional)" if e.provisional else ""
        row = " / ".join(e.row)
        return f"{pad}{e.table}{_ref(e.rule)} {keys} -> row {row}: {show_value(e.result)}{mark}"
    if isinstance(e, DecisionEvent):
        options = ", ".join(show_value(o) for o in e.options)
        choice = show_value(e.choice)
        return f"{pad}decide {e.name}{_ref(e.rule)}: {choice} ({e.by}; options {options})"
    if isinstance(e, ValueEvent):
        return f"{pad}{e.name}{_ref(e.rule)} = {show_value(e.value)}"
    if isinstance(e, CheckEvent):
        return f"{pad}check{_ref(e.rule)}: {e.condition}: {'yes' if e.result else 'no'}"
    if isinstance(e, SetEvent):
        if e.added is not None or e.removed is not None:
            parts = []
            if e.added:
                parts.append(f"+ {show_value(e.added)}")
            if e.removed:
                parts.append(f"- {show_value(e.removed)}")
            return f"{pad}set {e.target}{_ref(e.rule)}: {'; '.join(parts) or 'reordered'}"
        return f"{pad}set {e.target}{_ref(e.rule)}: {show_value(e.old)} -> {show_value(e.new)}"
    return f"{pad}note{_ref(e.rule)}: {e.text}"


def render_text(trace: Trace) -> list[str]:
    return [render_event(e) for e in trace.events]
