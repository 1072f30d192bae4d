"""What no player may know: the rulebook's ``hidden`` declarations (docs/LANGUAGE.md,
"Hidden information").

``hidden KIND: A, B unless F``: while a piece's bool attribute F is false, what its
attributes A and B say is the front of a face-down counter. A decision is made on what the
deciding side can see: while the rulebook's default (its advice) is worked out, and while a
look-ahead copies the game (rulekit.analysis.advised), each hidden attribute of a face-down
piece reads as the value its kind declares by default, the same for every piece of that kind,
so nothing decided before a piece is turned up depends on what it is. The game itself always
runs on the truth: the mask is put on for the advice and taken off after it.

``hidden POOL``: draws from the state list POOL are face down: ``rulekit play`` tells that a
piece was drawn, not which one nor where it lay (rulekit.play.screen).

Where pieces are looked for: the state variables whose declared type can hold a hidden kind
(directly, in a list, or in a record's field) and the deciding procedure's locals. A piece
held only inside another piece's attribute is not looked for.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rulekit.engine.reach import _children, names_reached
from rulekit.engine.values import Entity, RecordValue
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.book.checker import Checked
    from rulekit.engine.interpreter import Interpreter

_NAMES = re.compile(r"name='([A-Za-z_][A-Za-z_0-9]*)'")
_NO_DEFAULT = object()


class Secrets:
    """The hidden declarations of one checked rulebook, ready to mask a game's pieces."""

    def __init__(self, checked: Checked) -> None:
        book = checked.book
        self.rules: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        self.pools: frozenset[str] = frozenset(d.name for d in book.hidden if not d.attrs)
        for decl in book.hidden:
            if decl.attrs and decl.unless is not None:
                self.rules.setdefault(decl.name, []).append((decl.unless, decl.attrs))
        # each hidden attribute's declared default: what a face-down piece is taken to say
        self._defaults: dict[tuple[str, str], n.Expr | None] = {}
        for kind in self.rules:
            for f in book.kinds[kind].fields:
                self._defaults[(kind, f.name)] = f.default
        self._unknown: dict[tuple[str, str], Any] = {}
        self.holders: tuple[str, ...] = tuple(
            name for name, decl in book.states.items() if self._can_hold(book, decl.type, set())
        )
        self._depth: dict[int, int] = {}
        self._checked = checked
        self._names = frozenset(a for attrs in self.flags().values() for a in attrs)
        self._chooses: dict[n.Span, n.Choose] | None = None
        self._plans: dict[Any, tuple[str, ...] | None] = {}  # by choose site (plan)

    def plan(self, site: Any) -> tuple[str, ...] | None:
        """For the ``choose`` at ``site`` (a ChooseSite): None when its default cannot read a
        hidden attribute (no mask needed), else the state variables holding pieces that it
        may reach (the deciding procedure's locals are looked at too). Found by the names
        the default mentions, following the procedures, modifier lists and tables it calls:
        masking every face-down piece in every cup at every decision would cost a game's
        time."""
        if site in self._plans:
            return self._plans[site]
        if self._chooses is None:
            book = self._checked.book
            roots: list[Any] = [node for p in book.procedures.values() for node in p.body]
            for table in self._checked.tables.values():
                roots.extend(c.action for _, c in table.iter_cells() if c.action is not None)
            self._chooses = {}
            while roots:
                node = roots.pop()
                if isinstance(node, n.Choose):
                    self._chooses[node.span] = node
                roots.extend(_children(node))
        choose = self._chooses.get(getattr(site, "span", None))  # type: ignore[arg-type]
        plan: tuple[str, ...] | None = self.holders  # not found: all, to be safe
        if choose is not None and choose.default is not None:
            names = names_reached(self._checked.book, self._checked.tables, [choose.default])
            plan = tuple(h for h in self.holders if h in names) if names & self._names else None
        self._plans[site] = plan
        return plan

    @property
    def active(self) -> bool:
        return bool(self.rules)

    def flags(self) -> dict[str, frozenset[str]]:
        """Each ``unless`` attribute, with the attributes it hides (of any kind)."""
        out: dict[str, set[str]] = {}
        for rules in self.rules.values():
            for unless, attrs in rules:
                out.setdefault(unless, set()).update(attrs)
        return {k: frozenset(v) for k, v in out.items()}

    def attrs_of(self, kind: str) -> frozenset[str]:
        """Every attribute of ``kind`` that some declaration hides."""
        return frozenset(a for _, attrs in self.rules.get(kind, ()) for a in attrs)

    def _can_hold(self, book: Any, typ: n.TypeExpr, seen: set[str]) -> bool:
        for name in _NAMES.findall(repr(typ)):
            if name in self.rules:
                return True
            record = book.records.get(name)
            if record is not None and name not in seen:
                seen.add(name)
                if any(self._can_hold(book, f.type, seen) for f in record.fields):
                    return True
        return False

    def hidden_of(self, piece: Entity) -> tuple[str, ...]:
        """The attributes of ``piece`` hidden now (none when it is face up)."""
        out: list[str] = []
        for unless, attrs in self.rules.get(piece.kind, ()):
            if not piece.attrs.get(unless):
                out.extend(a for a in attrs if a not in out)
        return tuple(out)

    def pieces(
        self, values: dict[str, Any], local: dict[str, Any], holders: tuple[str, ...] | None = None
    ) -> list[Entity]:
        """The pieces of hidden kinds the state (its ``holders``, all by default) and the
        locals hold, each once."""
        found: dict[int, Entity] = {}
        names = self.holders if holders is None else holders
        stack: list[Any] = [values.get(name) for name in names]
        stack.extend(local.values())
        while stack:
            value = stack.pop()
            t = type(value)
            if t is tuple:
                stack.extend(value)
            elif t is Entity:
                if value.kind in self.rules:
                    found.setdefault(id(value), value)
            elif t is RecordValue:
                stack.extend(v for _, v in value.fields)
        return list(found.values())

    def face_down(
        self, i: Interpreter, holders: tuple[str, ...] | None = None
    ) -> list[tuple[Entity, tuple[str, ...]]]:
        """Each piece with hidden attributes now, and which."""
        out = []
        for piece in self.pieces(i.state.values, i.locals, holders):
            attrs = self.hidden_of(piece)
            if attrs:
                out.append((piece, attrs))
        return out

    def unknown(self, i: Interpreter, kind: str, attr: str) -> Any:
        """What a face-down piece of ``kind`` is taken to say for ``attr``: its declared
        default (none when it declares none)."""
        key = (kind, attr)
        if key not in self._unknown:
            expr = self._defaults.get(key)
            self._unknown[key] = None if expr is None else i.evaluate(expr, {})
        return self._unknown[key]

    def hide(self, i: Interpreter, piece: Entity, attrs: tuple[str, ...]) -> None:
        """Write the unknown values over ``piece``'s ``attrs`` (a copy's, in a look-ahead)."""
        for attr in attrs:
            piece.attrs[attr] = self.unknown(i, piece.kind, attr)

    @contextmanager
    def masked(self, i: Interpreter, holders: tuple[str, ...] | None = None) -> Iterator[None]:
        """The face-down pieces of the game read as their kinds' defaults while the block
        runs; the truth is put back after (re-entrant: the outermost mask puts it back)."""
        key = id(i)
        depth = self._depth.get(key, 0)
        if depth or not self.rules:
            self._depth[key] = depth + 1
            try:
                yield
            finally:
                self._depth[key] = depth
            return
        saved: list[tuple[Entity, str, Any]] = []
        for piece, attrs in self.face_down(i, holders):
            for attr in attrs:
                saved.append((piece, attr, piece.attrs.get(attr, _NO_DEFAULT)))
        self._depth[key] = 1
        try:
            for piece, attr, _ in saved:
                piece.attrs[attr] = self.unknown(i, piece.kind, attr)
            yield
        finally:
            self._depth.pop(key, None)
            for piece, attr, value in reversed(saved):
                if value is _NO_DEFAULT:
                    piece.attrs.pop(attr, None)
                else:
                    piece.attrs[attr] = value


# by the rulebook's id, with a weak reference to tell a reused id from the same rulebook
_SECRETS: dict[int, tuple[weakref.ref[Any], Secrets]] = {}


def secrets_of(checked: Checked) -> Secrets:
    """The rulebook's hidden declarations, read once per checked rulebook."""
    book = checked.book
    entry = _SECRETS.get(id(book))
    if entry is None or entry[0]() is not book:
        for key in [k for k, (ref, _) in _SECRETS.items() if ref() is None]:
            del _SECRETS[key]
        entry = _SECRETS[id(book)] = (weakref.ref(book), Secrets(checked))
    return entry[1]


@contextmanager
def masked(i: Interpreter, site: Any = None) -> Iterator[None]:
    """``i``'s face-down pieces as their kinds' defaults while the block runs: the advice of
    the ``choose`` at ``site`` (all of them without one) is worked out on what is seen."""
    secrets = secrets_of(i.c)
    if not secrets.rules:
        yield
        return
    holders = secrets.plan(site) if site is not None else secrets.holders
    if holders is None:
        yield
        return
    with secrets.masked(i, holders):
        yield


def pieces_copied(i: Interpreter, local: dict[str, Any], memo: dict[int, Any]) -> dict[int, Any]:
    """After a copy of ``i``'s game (values.clone with ``memo``): each piece of a hidden kind
    by the id of the game's piece, its copy, so that a look-ahead started from the copy later
    can hide what is face down by then (``hide_copies``)."""
    secrets = secrets_of(i.c)
    if not secrets.rules:
        return {}
    return {id(p): memo[id(p)] for p in secrets.pieces(i.state.values, local) if id(p) in memo}


def hide_copies(i: Interpreter, copies: dict[int, Any], memo: dict[int, Any] | None) -> None:
    """In a copy of ``i``'s game, each piece face down in the game now reads as its kind's
    defaults: a look-ahead averages over the dice, never over the truth of a hidden piece.
    ``copies``: the game's pieces' copies by id (pieces_copied), or, with ``memo`` None, the
    memo of values.clone itself; ``memo``: a second copy's memo, from those copies."""
    secrets = secrets_of(i.c)
    if not secrets.rules:
        return
    for piece, attrs in secrets.face_down(i):
        copy = copies.get(id(piece))
        if memo is not None and copy is not None:
            copy = memo.get(id(copy))
        if type(copy) is Entity and copy.kind == piece.kind:
            secrets.hide(i, copy, attrs)
