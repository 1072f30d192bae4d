"""The story a player reads in ``rulekit play``: each roll told as a verdict, book-keeping
grouped, in the rules' words.

The trace (rulekit.engine.trace) holds every event: ``log all`` shows them. Told to a player,
a stretch of the trace becomes

- a phase of the sequence of play (a call at the turn's top level) as its title and rule;
- each roll as one line, named by the rule it serves (the title of the nearest procedure
  that has one) and said with what it decided, where the trace holds it: the table row it
  read (``ULTRA Table [7.1]: rolled 9: North Pacific``), the condition it was tested against
  (``Endurance Check [14.7]: rolled 5 (natural 6, -1 no enemy contacts); more than 7? no``:
  the other side's value comes from the look-up, total or value just before, when the trace
  has one), or the value it set;
- each note of the rules as written;
- changes of the state grouped, one line per run of changes, each said by the description
  its declaration gives (``Tautog: OpArea sections operating``), never a variable's name;
- look-ups, totals and returns only inside a verdict; checks not tied to a roll left out.

Nothing here reads the rulebook's state: only the events and the declarations' words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from attrs import define, field

from rulekit.engine.trace import (
    CallEvent,
    CheckEvent,
    DrawEvent,
    Event,
    LookupEvent,
    NoteEvent,
    ReturnEvent,
    RollEvent,
    SetEvent,
    TotalEvent,
    ValueEvent,
    show_value,
)
from rulekit.play.story import _COMPUTED

WIDTH = 100  # a grouped line of changes is cut to the screen's width

_OPS = {
    "<=": "{} or less",
    ">=": "{} or more",
    "<": "less than {}",
    ">": "more than {}",
    "!=": "not {}",
    "=": "exactly {}",
}
_COMPARE = re.compile(r"^(?P<left>.+?)\s*(?P<op><=|>=|!=|<|>|=)\s*(?P<right>[^<>=!]+)$")
_CLOSED = -1  # a verdict whose roll's procedure has returned
_LOOKED_UP = " looked up"  # the last number a table gave: (depth, table, value)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


@define
class Answered:
    """A question answered without asking (its only option, ``always``, ``auto``), told in
    the story where it was answered."""

    depth: int
    title: str
    label: str
    by: str


@define
class Words:
    """The rulebook's words for what the trace names: tables by their titles, state
    variables and attributes by their descriptions."""

    tables: dict[str, str] = field(factory=dict)
    states: dict[str, str] = field(factory=dict)
    attrs: dict[str, str] = field(factory=dict)
    # the flags declared with a plain start (``= false``): one set back to it (a flag of one
    # attack round) is book-keeping
    initial: dict[str, Any] = field(factory=dict)

    def of_table(self, name: str) -> str:
        return self.tables.get(name) or spaced(name)

    def name_of(self, name: str) -> str:
        """A state variable or track by its description (``Ships Sunk``)."""
        return self.states.get(name) or spaced(name)

    def of_target(self, target: str) -> tuple[str, str]:
        """(whose, what) of a change: ``Tautog.section`` -> (Tautog, OpArea sections)."""
        head, dot, attr = target.rpartition(".")
        if dot:
            return head, self.attrs.get(attr) or spaced(attr)
        return "", self.states.get(target) or spaced(target)


def spaced(name: str) -> str:
    """An identifier as words: ``tdc_pool`` -> ``tdc pool``."""
    return name.replace("_", " ")


def open_titles(events: Sequence[Event]) -> list[tuple[int, str]]:
    """The titled calls still open at the end of ``events``, outermost first: a stretch of
    the story told from there names its rolls by them."""
    titles: list[tuple[int, str]] = []
    for e in events:
        if isinstance(e, CallEvent):
            while titles and titles[-1][0] >= e.depth:
                titles.pop()
            if e.title or e.rule:
                rule = f" [{e.rule}]" if e.rule else ""
                titles.append((e.depth, f"{e.title or spaced(e.procedure)}{rule}"))
        elif isinstance(e, ReturnEvent):
            while titles and titles[-1][0] >= e.depth:
                titles.pop()
    return titles


def brief(
    events: Sequence[Event | Answered],
    words: Words,
    top: int | None = None,
    width: int = WIDTH,
    titles: Sequence[tuple[int, str]] = (),
    earlier: Sequence[Event | Answered] = (),
    pools: frozenset[str] = frozenset(),
    faces: frozenset[str] = frozenset(),
) -> list[str]:
    """The player's story of ``events`` (see the module docstring). ``top`` is the depth of
    the turn's phases when ``events`` are a stretch of a turn; ``titles`` the titled calls
    open where the stretch begins (:func:`open_titles` of the events before it); ``earlier``
    the turn's events before the stretch (what a change puts back is judged against them);
    ``pools`` the pools the turn draws from (their changes are told by the draws); ``faces``
    how face-down pieces show (a change to one says nothing a player may know)."""
    if not events:
        return []
    first = _first_values([*earlier, *events])
    top = min(e.depth for e in events) if top is None else top
    out: list[str] = []
    opened: list[tuple[int, str]] = list(titles)  # enclosing titled calls: (depth, title)
    titles = opened
    changes: list[SetEvent] = []
    draws: list[tuple[str, str | None]] = []  # (what from where, rule)
    answers: list[Answered] = []
    notes: list[tuple[str, str | None]] = []  # a run of notes of one rule: one line
    recent: dict[str, Any] = {}  # values the trace named lately: totals, values, look-ups
    verdict: list[Any] = []  # the last roll told: its depth, then what it changed

    def flush() -> None:
        if notes:
            rule = f" [{notes[0][1]}]" if notes[0][1] else ""
            said = list(dict.fromkeys(text for text, _ in notes))
            many = f" (x{len(notes)})" if len(said) == 1 and len(notes) > 1 else ""
            out.append(_fit("  " + "; ".join(said), width - len(rule) - len(many)) + many + rule)
            notes.clear()
        if len(verdict) > 1:
            # a verdict may run over the screen's width rather than lose what it decided
            out[-1] = _fit(out[-1] + ": " + "; ".join(verdict[1:]), width + width // 2)
        verdict.clear()
        if answers:
            out.extend(_answers(answers))
            answers.clear()
        if draws:
            out.append(_draws(draws))
            # a draw takes what it draws from its pool: the pool's loss is told by the draw
            changes[:] = [c for c in changes if c.added or not c.removed]
            draws.clear()
        kept = _not_put_back(
            [c for c in changes if c.target not in pools and not _face_down(c, faces)],
            {**first, **words.initial},
        )
        if kept:
            out.append(_changes(kept, words, width))
        changes.clear()

    def label(rule: str | None) -> str:
        if titles:
            return titles[-1][1]
        return f"[{rule}]" if rule else "roll"

    told_by = _told_changes(events)
    i = 0
    while i < len(events):
        e = events[i]
        if isinstance(e, Answered):
            if e.by in ("only option", "always"):
                # no question, or one the player said not to ask: what it set is told by
                # what follows (``log all`` has every decision)
                i += 1
                continue
            if not answers or answers[-1].title != e.title:
                flush()
            answers.append(e)
            i += 1
            continue
        while titles and titles[-1][0] >= e.depth and not isinstance(e, ReturnEvent):
            titles.pop()  # a call cut short (a rule violation): its events are over
        if isinstance(e, (CallEvent, ReturnEvent)) and verdict and e.depth < verdict[0]:
            if isinstance(e, ReturnEvent) and e.depth == verdict[0] - 1 and e.result is not None:
                verdict.append(spaced(show_value(e.result)))  # what its procedure found
            verdict[0] = _CLOSED  # the roll's procedure is over: nothing more it decided
        if isinstance(e, (CallEvent, ReturnEvent)):
            recent.pop(_LOOKED_UP, None)  # a number looked up elsewhere is not this one's
        if isinstance(e, CallEvent):
            rule = f" [{e.rule}]" if e.rule else ""
            if e.title or e.rule:
                titles.append((e.depth, f"{e.title or spaced(e.procedure)}{rule}"))
            if e.depth == top and e.title:
                flush()
                # whom the phase is about (a submarine): its text arguments, as written
                pieces = [v for v in e.args.values() if isinstance(v, str)]
                whom = f": {', '.join(pieces)}" if pieces else ""
                out.append(f"{e.title}{rule}{whom}")
        elif isinstance(e, ReturnEvent):
            while titles and titles[-1][0] >= e.depth:
                titles.pop()
        elif isinstance(e, (TotalEvent, ValueEvent)):
            recent[e.name] = e.total if isinstance(e, TotalEvent) else e.value
        elif isinstance(e, LookupEvent):
            recent[e.table] = e.result
            if isinstance(e.result, int) and not isinstance(e.result, bool):
                recent[_LOOKED_UP] = (e.depth, words.of_table(e.table), e.result)
        elif isinstance(e, SetEvent):
            if i not in told_by:
                changes.append(e)
            elif verdict and verdict[0] == e.depth:
                # a change the roll's own procedure makes right after it: what it decided
                verdict.append(_part(e, words))
        elif isinstance(e, NoteEvent) and e.text.endswith(" set face down"):
            if i in told_by:
                i += 1
                continue
            face_down = e.text.removesuffix(" set face down")
            changes.append(SetEvent(e.depth, face_down, None, "face down", e.rule))
        elif isinstance(e, NoteEvent) and e.text.startswith("drew "):
            draws.append((e.text.removeprefix("drew "), e.rule))  # a face-down draw
        elif isinstance(e, NoteEvent):
            if _COMPUTED.match(e.text) is None:
                text = e.text.removeprefix("segment ")
                if text != e.text:
                    flush()
                    out.append(f"-- {text} [{e.rule}]" if e.rule else f"-- {text}")
                else:
                    if notes and notes[-1][1] != e.rule:
                        flush()
                    if not notes:
                        flush()
                    notes.append((text, e.rule))
        elif isinstance(e, DrawEvent):
            # told together with the others of the same stretch
            draws.append((f"{show_value(e.item)} from {spaced(e.pool)}", e.rule))
        elif isinstance(e, RollEvent):
            flush()
            line, used = _verdict(e, events, i, label(e.rule), words, recent)
            out.append("  " + line)
            verdict.append(e.depth)
            i += used
        i += 1
    flush()
    # a phase with nothing to tell, followed by the next one, is left out
    kept = [
        line
        for k, line in enumerate(out)
        if line.startswith((" ", "--")) or k + 1 == len(out) or out[k + 1].startswith(" ")
    ]
    return _one_line_phases(_joined(_squeeze(_no_echoes(kept)), width), width)


def _first_values(events: Sequence[Event | Answered]) -> dict[str, Any]:
    """Each changed thing's value before its first change in ``events`` (a list's length)."""
    first: dict[str, Any] = {}
    for e in events:
        if isinstance(e, SetEvent) and e.target not in first:
            first[e.target] = e.old
    return first


def _face_down(change: SetEvent, faces: frozenset[str]) -> bool:
    return change.target.rpartition(".")[0] in faces


def _not_put_back(changes: Sequence[SetEvent], first: dict[str, Any]) -> list[SetEvent]:
    """The changes that leave something otherwise than it was before the turn's first change
    of it: book-keeping that puts a thing back (attack points back to 0, a TDC marker back in
    its pool, a unit back in its cup) says nothing a player needs; a piece's value set face
    down says nothing a player may know. A thing's changes go together: kept when its last
    one leaves it changed."""
    last: dict[str, Any] = {}
    for c in changes:
        last[c.target] = c.new
    return [
        c
        for c in changes
        if c.new != "face down" and (c.target not in first or last[c.target] != first[c.target])
    ]


def _no_echoes(lines: list[str]) -> list[str]:
    """A note that only says again what the roll just before decided (``Area Activity: High``
    after ``rolled 8: level High``) left out."""
    out: list[str] = []
    for line in lines:
        text = re.sub(r" \[[^\]]*\]$", "", line.strip())
        said = text.rpartition(": ")[2]
        if out and ": " in text and len(said) > 1 and out[-1].rstrip().endswith(f" {said}"):
            continue
        out.append(line)
    return out


_LABEL = re.compile(r"^  (?P<label>[^\[\]:]+ \[[^\]]+\]): ")


def _joined(lines: list[str], width: int) -> list[str]:
    """Lines that go together told on one: two rolls of one rule in a row (the to-hit roll,
    then the Attack Results Table's: ``Resolving the Attack [14.16]: rolled 1; more than 4
    (difference)? no; then rolled -1 ...``), and a draw with what follows it (the TDC markers
    drawn, then turned up). Not beyond a line and a half."""
    out: list[str] = []
    fresh = False  # the last line is as brief wrote it, not two joined
    for line in lines:
        if out and fresh and out[-1].startswith("  ") and line.startswith("  "):
            prev = out[-1]
            mine, theirs = _LABEL.match(prev), _LABEL.match(line)
            joined = None
            if mine and theirs and mine["label"] == theirs["label"]:
                joined = f"{prev}; then {line[theirs.end() :]}"
            elif prev.startswith("  drew ") and theirs is None and line.endswith("]"):
                joined = f"{prev}; {line.strip()}"  # a note of the rules after the draw
            if joined is not None and len(joined) <= width + width // 2:
                out[-1] = joined
                fresh = False
                continue
        out.append(line)
        fresh = True
    return out


def _one_line_phases(lines: list[str], width: int) -> list[str]:
    """A phase that tells one line, followed by the next phase, on one line: its title and
    that line (``War Event Phase [5.0]: rolled 7; more than 3? yes``)."""
    out: list[str] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        heads = not line.startswith((" ", "--"))
        if heads and k + 2 < len(lines) and lines[k + 1].startswith("  "):
            told = lines[k + 1].strip()
            if not lines[k + 2].startswith(" "):
                title, _, whom = line.partition(": ")
                if told.startswith(title):
                    joined = told
                elif whom and told.startswith(f"{whom} "):  # "...: Pollack" + "Pollack waits"
                    joined = f"{line}{told[len(whom) :]}"
                else:
                    joined = f"{line}: {told}"
                if len(joined) <= width + width // 2:
                    out.append(joined)
                    k += 2
                    continue
        out.append(line)
        k += 1
    return out


def _told_changes(events: Sequence[Event | Answered]) -> set[int]:
    """The changes (their positions) that the story tells otherwise: those of a call that
    also rolls, draws or writes a note of the rules (``revealed Asahi Maru in column A``
    says what ``Asahi Maru.revealed -> yes`` does). A call that only changes the state
    (Prep for Operations, a clean-up) keeps its changes, told as one line."""
    telling: set[int] = set()
    owner: dict[int, int] = {}  # a change -> its innermost call (-1: opened before)
    stack: list[tuple[int, int]] = [(-1, -1)]  # (depth, position) of the open calls
    for i, e in enumerate(events):
        if isinstance(e, Answered):
            continue
        while len(stack) > 1 and stack[-1][0] >= e.depth and not isinstance(e, ReturnEvent):
            stack.pop()
        if isinstance(e, CallEvent):
            stack.append((e.depth, i))
        elif isinstance(e, ReturnEvent):
            while len(stack) > 1 and stack[-1][0] >= e.depth:
                stack.pop()
        elif isinstance(e, SetEvent) or (
            isinstance(e, NoteEvent) and e.text.endswith(" set face down")
        ):
            owner[i] = stack[-1][1]
        elif isinstance(e, (RollEvent, DrawEvent, NoteEvent)):
            if isinstance(e, NoteEvent) and _COMPUTED.match(e.text):
                continue
            telling.update(at for _, at in stack)
    return {i for i, call in owner.items() if call in telling}


def _rolled(e: RollEvent) -> str:
    mods = ", ".join(
        f"{'+' if _positive(t.value) else ''}{show_value(t.value)} {t.label}" for t in e.modifiers
    )
    if not mods:
        return f"rolled {e.total}"
    return f"rolled {e.total} ({e.natural} {mods})"


def _positive(value: Any) -> bool:
    try:
        return bool(value > 0)
    except TypeError:
        return False


def _verdict(
    roll: RollEvent,
    events: Sequence[Event | Answered],
    at: int,
    label: str,
    words: Words,
    recent: dict[str, Any],
) -> tuple[str, int]:
    """One line for a roll and what it decided; how many of the following events it told."""
    said = f"{label}: {_rolled(roll)}"
    for k in range(at + 1, min(at + 4, len(events))):
        nxt = events[k]
        if nxt.depth < roll.depth:
            break
        if isinstance(nxt, LookupEvent):
            recent[nxt.table] = nxt.result
            table = words.of_table(nxt.table)
            return f"{said}: {table} says {show_value(nxt.result)}", k - at
        if isinstance(nxt, CheckEvent):
            return f"{said}; {condition_words(nxt, recent, roll.depth)}", k - at
        if isinstance(nxt, ValueEvent):
            recent[nxt.name] = nxt.value
            return f"{said}: {spaced(nxt.name)} {show_value(nxt.value)}", k - at
        if isinstance(nxt, (CallEvent, SetEvent, NoteEvent, RollEvent, DrawEvent)):
            break
    return said, 0


def condition_words(check: CheckEvent, recent: dict[str, Any], depth: int) -> str:
    """A check in words with its answer: ``more than 7? no``."""
    answer = "yes" if check.result else "no"
    found = _COMPARE.match(check.condition.strip())
    if found is None or " and " in check.condition or " or " in check.condition:
        return f"{_words(check.condition)}? {answer}"
    right = found["right"].strip()
    if right.lstrip("-").isdigit():
        value = right
    elif _NAME.match(right) and right in recent:
        value = f"{show_value(recent[right])} ({spaced(right)})"
    elif _NAME.match(right) and right.rpartition(".")[2] in recent:
        value = f"{show_value(recent[right.rpartition('.')[2]])} ({spaced(right)})"
    elif _NAME.match(right) and "." not in right and recent.get(_LOOKED_UP, (-1,))[0] >= depth:
        # a name the procedure let from the table it just read (``needed``)
        _, table, number = recent[_LOOKED_UP]
        value = f"{spaced(right)} ({table}: {number})"
    else:
        value = _words(right)
    return _OPS[found["op"]].format(value) + f"? {answer}"


def _words(expr: str) -> str:
    """An expression of the rules as words: identifiers spaced, the roll said as such."""
    text = re.sub(r"\broll \d*d\d+\b", "the roll", expr)
    text = re.sub(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)\b", r"\1's \2", text)
    return spaced(text)


def _part(e: SetEvent, words: Words) -> str:
    """One change in the declarations' words: ``Tautog: OpArea sections -> done``."""
    whose, what = words.of_target(e.target)
    if e.added is not None or e.removed is not None:
        moved = [f"+{show_value(x)}" for x in e.added or []]
        moved += [f"-{show_value(x)}" for x in e.removed or []]
        value = " ".join(moved) or show_value(e.new)
    else:
        value = show_value(e.new)
    return f"{whose}: {what} -> {value}" if whose else f"{what}: {value}"


def _changes(changes: Sequence[SetEvent], words: Words, width: int) -> str:
    """A run of changes as one line: who, what and to what, in the declarations' words."""
    parts: list[str] = []
    for e in changes:
        part = _part(e, words)
        if part not in parts:
            parts.append(part)
    return _fit("  " + "; ".join(parts), width, f" ... ({len(changes)} changes)")


def _fit(line: str, width: int, more: str = " ...") -> str:
    """``line`` cut to ``width`` at a ``; `` or ``, ``, saying it was cut."""
    if len(line) <= width:
        return line
    cut = line[: width - len(more)]
    at = max(cut.rfind("; "), cut.rfind(", "))
    return (cut[:at] if at > width // 2 else cut).rstrip("; ,") + more


def _answers(answers: Sequence[Answered]) -> list[str]:
    """A run of answers to the same question as one line: ``Which unit to reveal: a, b
    (always)``."""
    out: list[str] = []
    for by in dict.fromkeys(a.by for a in answers):
        labels = [a.label for a in answers if a.by == by]
        many = f" (x{len(labels)}, {by})" if len(labels) > 1 else f" ({by})"
        out.append(_fit(f"  {answers[0].title}: {', '.join(labels)}", WIDTH - len(many)) + many)
    return out


def _draws(draws: Sequence[tuple[str, str | None]]) -> str:
    """A run of draws as one line: what was drawn from where, alike ones counted."""
    seen: dict[str, int] = {}
    for text, _ in draws:
        seen[text] = seen.get(text, 0) + 1
    rule = f" [{draws[0][1]}]" if draws[0][1] else ""
    told = ", ".join(f"{t} (x{n})" if n > 1 else t for t, n in seen.items())
    return f"  drew {told}{rule}"


def _squeeze(lines: list[str]) -> list[str]:
    """Alike lines in a row told once, with how many times."""
    out: list[str] = []
    last, count = None, 0
    for line in lines:
        if line == last:
            count += 1
            out[-1] = f"{line} (x{count})"
            continue
        out.append(line)
        last, count = line, 1
    return out


def words_of(checked: Any) -> Words:
    """The Words of a checked rulebook."""
    book = checked.book
    tables = {name: decl.title for name, decl in book.tables.items() if decl.title}
    states = {name: decl.title for name, decl in book.states.items() if decl.title}
    states.update({name: decl.title for name, decl in book.tracks.items() if decl.title})
    attrs: dict[str, str] = {}
    for kind in book.kinds.values():
        for f in kind.fields:
            if f.title and f.name not in attrs:
                attrs[f.name] = f.title
    from rulekit.language import nodes as n

    initial: dict[str, Any] = {}
    for name, decl in book.states.items():
        start = decl.initial
        if isinstance(start, n.Bool):  # a flag (a counter set back to 0 may be news)
            initial[name] = start.value
        elif isinstance(start, n.NoneLit):
            initial[name] = None
    return Words(tables, states, attrs, initial)
