"""What a player of ``rulekit play`` sees: the story in plain lines, views and prompts.

Nothing here decides or rolls. The rulebook says what a player sees (``view`` declarations,
docs/LANGUAGE.md): the status view, and how a piece of a kind shows in prompts, so that a
face-down unit shows its position, not its identity. Views run on a side interpreter that
shares the game's state but has no dice and no player: a view that rolled or asked would be
an error in the rulebook, reported as a line of the view, not as a crash of the game.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rulekit.book.check_exprs import placeholders
from rulekit.book.checker import Checked
from rulekit.book.views import BOARD, STATUS
from rulekit.engine.dice import ForcedDice
from rulekit.engine.hidden import secrets_of
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import DecisionRequest, DefaultPolicy
from rulekit.engine.trace import (
    CallEvent,
    CheckEvent,
    DecisionEvent,
    DrawEvent,
    Event,
    NoteEvent,
    ReturnEvent,
    SetEvent,
    render_event,
    show_value,
)
from rulekit.engine.values import Entity, EnumValue, RecordValue, show
from rulekit.errors import RulekitError
from rulekit.language.parser import parse_expression
from rulekit.play.story import _COMPUTED, fold

COMMANDS = (
    ("VALUE", "answer by value, or by a unique beginning of one"),
    ("#N", "the N-th option"),
    ("Enter", "the default, shown in brackets"),
    ("? / help", "the rule's number and title, and what each option means"),
    ("status", "the situation (the rulebook's status view)"),
    ("board", "the board (the rulebook's board view)"),
    ("log [all]", "this turn so far (all: with the book-keeping)"),
    ("save [FILE]", "save the game (default: the autosave file)"),
    ("undo", "back to your previous decision"),
    ("auto", "take the defaults for the rest of this phase"),
    ("always [NAME]", "this question (or NAME) answered by its default from now on"),
    ("ask [NAME]", "list the questions set to always; ask NAME again"),
    ("advise EXPR", "each option's expected EXPR (min:EXPR: the least is best)"),
    ("quit", "stop (offers to save)"),
)


class Viewer:
    """The rulebook's views of one game's state."""

    def __init__(self, checked: Checked, game_interp: Interpreter) -> None:
        self.checked = checked
        self.views = checked.book.views
        self.game = game_interp
        # No dice, no player: a view only reads the state it shares with the game.
        self.side = Interpreter(checked, ForcedDice([]), DefaultPolicy(), game_interp.state)
        self._exprs: dict[str, Any] = {}
        self._busy = False  # a view running: the pieces it writes show by their labels
        self.secrets = secrets_of(checked)
        self._faces_down: set[str] = set()  # how face-down pieces were written

    def _call(self, procedure: str, args: dict[str, Any]) -> Any:
        try:
            return self.side.call(procedure, args)
        except RulekitError as exc:
            return f"(view {procedure} failed: {exc.diagnostics[0].message})"
        finally:
            self.side.trace.events.clear()

    def status(self) -> list[str]:
        """The status view's lines (none when the rulebook declares no status view)."""
        view = self.views.get(STATUS)
        if view is None:
            return []
        value = self._call(view.procedure, {})
        lines = value if isinstance(value, (list, tuple)) else [value]
        return [show(line) if not isinstance(line, str) else line for line in lines]

    def board(self) -> list[list[str]] | None:
        """The board view's sections, each its title then its rows (None when the rulebook
        declares no board view; a view that failed is one section saying so)."""
        view = self.views.get(BOARD)
        if view is None:
            return None
        value = self._call(view.procedure, {})
        if isinstance(value, str):
            return [[value]]
        return [
            [section] if isinstance(section, str) else [show(x) for x in section]
            for section in value
        ]

    def board_for(self, decision: str) -> list[list[str]] | None:
        """The part of the board a question shows with it: the sections of the rulebook's
        ``view choose D = P`` for the decision's name D when P returns them (its parameters take
        the deciding procedure's variables of the same names); None when it has none."""
        book = self.checked.book
        view = self.views.get(f"choose {decision}")
        if view is None:
            return None
        proc = book.procedures.get(view.procedure)
        if proc is None or decision in {p.name for p in proc.params}:
            return None  # an odds view (rulekit.play.odds)
        here = self.game.locals
        args = {p.name: here[p.name] for p in proc.params if p.name in here}
        if any(p.default is None and p.name not in args for p in proc.params):
            return None
        value = self._call(view.procedure, args)
        if isinstance(value, str):
            return [[value]]
        if not isinstance(value, (list, tuple)) or not all(
            isinstance(x, (list, tuple)) for x in value
        ):
            return None
        return [[show(x) for x in section] for section in value]

    def _kind_of(self, value: Any) -> str | None:
        if isinstance(value, Entity):
            return value.kind
        if isinstance(value, EnumValue):
            return value.enum
        if isinstance(value, RecordValue):
            return value.type
        return None

    def label(self, value: Any) -> str:
        """How a value shows to the player: through its kind's view, if it has one.

        A view's first parameter takes the value; each other one (they have defaults) takes
        the deciding procedure's variable of the same name when it has one, so that a patrol
        area can show its distance from the submarine the decision is about."""
        kind = self._kind_of(value)
        view = self.views.get(kind) if kind else None
        if view is None or self._busy:
            return show(value)
        proc = self.checked.book.procedures[view.procedure]
        args = {proc.params[0].name: value}
        here = self.game.locals
        for param in proc.params[1:]:
            if param.name in here:
                args[param.name] = here[param.name]
        self._busy = True
        try:
            shown = self._call(view.procedure, args)
        finally:
            self._busy = False
        return shown if isinstance(shown, str) else show(shown)

    def face(self, piece: Entity) -> str:
        """A game piece as the story writes it: by its label, unless its view hides that
        (a face-down unit: "face-down unit in column A", until it is revealed)."""
        label = piece.label or piece.kind
        if self._busy or piece.kind not in self.views:
            return label
        shown = self.label(piece)
        if label in shown:
            return label
        self._faces_down.add(shown)
        return shown

    def conceal(self, events: Sequence[Event]) -> list[Event]:
        """``events`` as the player may read them (the rulebook's ``hidden`` declarations,
        rulekit.engine.hidden): a draw of a face-down piece, or from a hidden pool, says
        neither which item nor where it lay in the pool; a hidden attribute of a piece still
        face down shows no value."""
        secrets = self.secrets
        secret_sets: set[str] = set()
        if secrets.active:
            for piece, attrs in secrets.face_down(self.game):
                shown = self.face(piece)
                secret_sets.update(f"{shown}.{attr}" for attr in attrs)
            # an attribute set while hidden, its piece turned up later in these events (TDC
            # markers placed, then revealed together): hidden when it was set
            flags = secrets.flags()
            for e in reversed(events):
                if not isinstance(e, SetEvent) or e.added is not None:
                    continue
                head, _, attr = e.target.rpartition(".")
                if attr in flags and e.new is True:
                    secret_sets.update(f"{head}.{a}" for a in flags[attr])
        out: list[Event] = []
        for e in events:
            if isinstance(e, DrawEvent) and (
                e.pool in secrets.pools or (isinstance(e.item, str) and e.item in self._faces_down)
            ):
                pool = self.checked.book.states.get(e.pool)
                named = pool.title if pool is not None and pool.title else e.pool.replace("_", " ")
                what = f"one of the {named}" if e.pool in secrets.pools else e.item
                out.append(NoteEvent(e.depth, f"drew {what}", e.rule))
            elif isinstance(e, SetEvent) and e.target in secret_sets and e.added is None:
                out.append(NoteEvent(e.depth, f"{e.target} set face down", e.rule))
            else:
                out.append(e)
        return out

    @property
    def faces_down(self) -> frozenset[str]:
        """How the face-down pieces met so far were written (``face-down unit in column A``)."""
        return frozenset(self._faces_down)

    def interpolate(self, text: str) -> str:
        """A prompt with its ``{name}`` / ``{name.attr}`` filled from the deciding procedure:
        a whole piece shows through its view (face down stays face down)."""
        out = text
        for dotted in placeholders(text):
            expr = self._exprs.get(dotted)
            if expr is None:
                expr = self._exprs[dotted] = parse_expression(dotted, "<prompt>")
            try:
                value = self.side.evaluate(expr, dict(self.game.locals))
            except RulekitError:
                continue
            finally:
                self.side.trace.events.clear()
            shown = self.label(value) if "." not in dotted else show(value)
            out = out.replace("{" + dotted + "}", shown)
        return out


BOARD_WIDTH = 100  # the board fits a terminal of 100 columns


def board_lines(sections: Sequence[Sequence[str]], width: int = BOARD_WIDTH) -> list[str]:
    """The board drawn with rich: one framed table per section, its title on the frame, a
    row's `` | `` parts in columns. No colour: the frames and the words carry it all."""
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, force_terminal=False)
    for section in sections:
        if not section:
            continue
        title, rows = section[0], [_cells(r) for r in section[1:]]
        columns = max((len(r) for r in rows), default=1)
        table = Table(
            show_header=False,
            box=box.SQUARE,
            expand=False,
            pad_edge=True,
        )
        for _ in range(columns):
            table.add_column(overflow="fold")
        for row in rows:
            table.add_row(*row, *([""] * (columns - len(row))))
        console.print(Text(title))
        console.print(table)
    return [line.rstrip() for line in out.getvalue().rstrip("\n").split("\n")]


def _cells(row: str) -> list[str]:
    cells = [c.strip() for c in row.split(" | ")]
    while len(cells) > 1 and not cells[-1]:
        cells.pop()  # an empty last column (no marker here) draws nothing
    return cells


def with_subject(viewer: Viewer, text: str) -> str:
    """A question's text naming what it is about: a text without ``{placeholders}`` gets the
    pieces the deciding procedure is handling (its parameters and loop variables that are
    pieces, through their views), so that "Torpedoes fired at this target" asked for two
    ships reads "Torpedoes fired at this target (USS Salmon, Maru 4)" and then "(USS Salmon,
    Maru 7)"."""
    if placeholders(text):
        return viewer.interpolate(text)
    named = []
    for value in viewer.game.locals.values():
        if isinstance(value, Entity):
            shown = viewer.label(value) + _ordinal(viewer, value)
            if shown not in text and shown not in named:
                named.append(shown)
    return f"{text} ({', '.join(named[:3])})" if named else text


def _ordinal(viewer: Viewer, piece: Entity) -> str:
    """`` (k)`` when other pieces of the list that holds ``piece`` (the display, a column)
    show alike (two face-down escorts at one range): its place among them, in the list's
    order, the order they were placed in and the options are listed in; else nothing."""
    shown = viewer.label(piece)
    for value in viewer.game.state.values.values():
        if isinstance(value, (list, tuple)) and any(x is piece for x in value):
            alike = [x for x in value if isinstance(x, Entity) and viewer.label(x) == shown]
            if len(alike) > 1:
                place = next(k for k, x in enumerate(alike, start=1) if x is piece)
                return f" ({place})"
            return ""
    return ""


def option_labels(viewer: Viewer, options: Sequence[Any]) -> list[str]:
    """One label per option; alike labels (two face-down units in a column) are numbered."""
    labels = [viewer.label(o) for o in options]
    for text in set(labels):
        same = [i for i, x in enumerate(labels) if x == text]
        if len(same) > 1:
            for k, i in enumerate(same, start=1):
                labels[i] = f"{text} ({k})"
    return labels


def prompt_lines(
    title: str, request: DecisionRequest, labels: list[str], odds: Sequence[str] = ()
) -> list[str]:
    """The question and its options: ``#N label``, the default marked; ``odds``, when given,
    one per option (what its roll needs and its chances: rulekit.play.odds), each option
    then on a line of its own."""
    rule = f" [{request.rule}]" if request.rule else ""
    lines = [f"? {title}{rule}"]
    default = default_index(request)
    marked = [
        f"#{k} {x}" + (" (default)" if k - 1 == default else "") for k, x in enumerate(labels, 1)
    ]
    if odds:
        lines.extend(f"  {m}: {said}" for m, said in zip(marked, odds, strict=True))
        return lines
    if len(labels) <= 8 and sum(len(m) + 3 for m in marked) <= 76:
        lines.append("  " + "   ".join(marked))
    else:
        lines.extend(f"  {m}" for m in marked)
    return lines


def default_index(request: DecisionRequest) -> int | None:
    """The position of the rulebook's default among the options, if it has one."""
    return request.default_position


def help_lines(
    checked: Checked,
    interp: Interpreter,
    request: DecisionRequest,
    labels: list[str],
    fill: Callable[[str], str] = str,
    odds: Sequence[str] = (),
) -> list[str]:
    """The rule behind a decision, what its options are, and the commands; ``fill`` puts
    the values into the question's ``{placeholders}``, as the prompt shows it; ``odds``:
    each option's chances, as the prompt showed them."""
    frame = interp.frame
    name = frame.name.split(" ")[-1]  # "procedure deploy"
    proc = checked.book.procedures.get(name)
    out = []
    rule = request.rule or (proc.ref.text if proc is not None and proc.ref else None)
    where = f"rule [{rule}]" if rule else "no rule number"
    title = proc.title if proc is not None and proc.title else name
    out.append(f"{where}: {title} (procedure {name}, decision '{request.name}')")
    out.append(f"  {fill(request.title or request.name)}")
    default = default_index(request)
    for k, (label, option) in enumerate(zip(labels, request.options, strict=True), start=1):
        note = _meaning(option)
        mark = "  <- the rulebook's default (its advice)" if k - 1 == default else ""
        chance = f": {odds[k - 1]}" if odds else ""
        out.append(f"  #{k} {label}{note}{chance}{mark}")
    out.append("commands:")
    out.extend(f"  {name:<12} {what}" for name, what in COMMANDS)
    return out


def _meaning(option: Any) -> str:
    if isinstance(option, bool):
        return " (the question's answer is yes)" if option else " (the answer is no)"
    if isinstance(option, EnumValue) and option.printed and option.printed != option.member:
        return f" ({option.printed})"
    return ""


def story(
    events: Sequence[Event], every: bool = False, decisions: bool = True, top: int | None = None
) -> list[str]:
    """The story of ``events`` in plain lines: book-keeping folded and conditions left out,
    unless ``every``. ``top`` is the depth of the turn's phases when ``events`` are a stretch
    of a turn (see :func:`fold`)."""
    if every:
        return [render_event(e) for e in events]
    shown = _with_their_calls(fold(events, top), top)
    if not shown:
        return []
    top = min(e.depth for e in shown)
    out = []
    for e in shown:
        pad = "  " * min(max(e.depth - top, 0), 4)
        if isinstance(e, DecisionEvent) and not decisions:
            continue  # the player was there: told when taken
        line = _plain(e)
        if line is not None:
            out.append(pad + line)
    return out


def _with_their_calls(shown: list[Event], top: int | None) -> list[Event]:
    """Leave out a return whose call is not in the story (it opened in an earlier stretch and
    was folded there): ``unit_transit_movement -> 1`` alone says nothing to a player. A
    phase's one line (a folded call at the phase depth) stays."""
    if not shown:
        return shown
    phases = min(e.depth for e in shown) if top is None else top
    open_calls: list[int] = []
    kept: list[Event] = []
    for e in shown:
        if isinstance(e, CallEvent):
            open_calls.append(e.depth)
        elif isinstance(e, ReturnEvent):
            if open_calls and open_calls[-1] == e.depth:
                open_calls.pop()
            elif e.depth != phases:
                continue
        kept.append(e)
    return kept


def _plain(e: Event) -> str | None:
    if isinstance(e, CheckEvent):
        return None  # a condition tested: the next line says what followed
    if isinstance(e, CallEvent):
        if not e.title and not e.rule:
            return None
        rule = f" [{e.rule}]" if e.rule else ""
        args = ", ".join(show_value(v) for v in e.args.values())
        return f"{e.title or e.procedure}{rule}" + (f": {args}" if args else "")
    if isinstance(e, ReturnEvent):
        if e.result is None:
            return None
        return f"{e.procedure.split(' ')[0]} -> {show_value(e.result)}"
    if isinstance(e, NoteEvent):
        if _COMPUTED.match(e.text):
            return None  # a distance a graph function found: book-keeping
        rule = f" [{e.rule}]" if e.rule else ""
        text = e.text.removeprefix("segment ")
        return f"-- {text}{rule}" if text != e.text else f"{text}{rule}"
    if isinstance(e, DecisionEvent):
        rule = f" [{e.rule}]" if e.rule else ""
        return f"decided {e.name}{rule}: {show_value(e.choice)} ({e.by})"
    return render_event(e).strip()
