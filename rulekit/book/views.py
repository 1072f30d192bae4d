"""The checks of ``view`` declarations: what a player of ``rulekit play`` sees.

``view status = P``: P takes no arguments (or only ones with defaults) and returns text or
a list of text, the lines of the status view. ``view board = P``: P takes no arguments and
returns a list of list of text, the board's sections (each its title, then its rows).
``view T = P`` for a kind, enum or record T: P takes one T and returns text, how such a
value shows in prompts and options (a face-down unit shows its position, not its
identity). ``view choose D = P`` for the name D of a ``choose``: P takes the option as its
parameter named D (its other parameters take the deciding procedure's variables of the same
name) and rolls; ``rulekit play`` shows each option's chances of what P returns, by exact
analysis (rulekit.play.odds); or P returns a list of list of text, the part of the board
shown with that question (P's parameters take the deciding procedure's variables of the
same names). ``hidden KIND: A, B unless F``: A and B are attributes of
KIND, F a bool attribute; ``hidden POOL``: POOL a state list.
"""

from __future__ import annotations

from typing import Protocol

from rulekit.book import types as t
from rulekit.book.rulebook import Rulebook
from rulekit.errors import did_you_mean
from rulekit.language import nodes as n

STATUS = "status"
BOARD = "board"


class _Reporter(Protocol):
    book: Rulebook

    def err(self, message: str, span: n.Span | None, hint: str | None = None) -> None: ...

    def type_of(self, texpr: n.TypeExpr) -> t.Type: ...


def check_views(c: _Reporter, decisions: frozenset[str] = frozenset()) -> None:
    """Report a view whose procedure is missing or has the wrong shape; ``decisions``: the
    names of the rulebook's ``choose`` statements (a view of one shows its odds)."""
    book = c.book
    for view in book.views.values():
        proc = book.procedures.get(view.procedure)
        if proc is None:
            c.err(
                f"view {view.name}: there is no procedure '{view.procedure}'",
                view.span,
                hint=did_you_mean(view.procedure, list(book.procedures)),
            )
            continue
        returns = c.type_of(proc.returns) if proc.returns is not None else t.ANY
        required = [p for p in proc.params if p.default is None]
        if view.name == STATUS:
            if required:
                c.err(f"view status: {proc.name} must take no arguments", view.span)
            if not (t.assignable(returns, t.TEXT) or t.assignable(returns, t.ListT(t.TEXT))):
                c.err(f"view status: {proc.name} must return text or list of text", view.span)
            continue
        if view.name == BOARD:
            if required:
                c.err(f"view board: {proc.name} must take no arguments", view.span)
            if not t.assignable(returns, t.ListT(t.ListT(t.TEXT))):
                c.err(f"view board: {proc.name} must return list of list of text", view.span)
            continue
        if view.decision:
            _check_decision_view(c, view, proc, returns, decisions)
            continue
        known = {**book.kinds, **book.enums, **book.records}
        if view.name not in known:
            c.err(
                f"view {view.name}: '{view.name}' is neither 'status', 'board' "
                "nor a kind, enum or record",
                view.span,
                hint=f"a question's view is 'view choose {view.name} = ...'"
                if view.name in decisions
                else did_you_mean(view.name, [STATUS, BOARD, *known]),
            )
            continue
        first = proc.params[0] if proc.params else None
        named = first.type.name if first is not None and isinstance(first.type, n.TypeName) else ""
        if first is None or named != view.name or len(required) > 1:
            c.err(f"view {view.name}: {proc.name} must take one {view.name}", view.span)
        if not t.assignable(returns, t.TEXT):
            c.err(f"view {view.name}: {proc.name} must return text", view.span)


def _check_decision_view(
    c: _Reporter,
    view: n.ViewDecl,
    proc: n.ProcedureDecl,
    returns: t.Type,
    decisions: frozenset[str],
) -> None:
    """``view choose D = P``: D names a choose; P returns board sections (the part of the
    board the question shows), or takes the option as its parameter D (its odds)."""
    if view.name not in decisions:
        c.err(
            f"view choose {view.name}: there is no choose named '{view.name}'",
            view.span,
            hint=did_you_mean(view.name, sorted(decisions)),
        )
        return
    if t.assignable(returns, t.ListT(t.ListT(t.TEXT))):
        return  # the part of the board shown with the question, as `view board` draws it
    if view.name not in {p.name for p in proc.params}:
        c.err(
            f"view choose {view.name}: {proc.name} must take the option as a parameter "
            f"named '{view.name}' (or return list of list of text: the board)",
            view.span,
        )
    if proc.returns is None:
        c.err(f"view choose {view.name}: {proc.name} must return what it decides", view.span)


def check_hidden(c: _Reporter) -> None:
    """Report a ``hidden`` declaration naming what does not exist, or the wrong shapes."""
    book = c.book
    for decl in book.hidden:
        kind = book.kinds.get(decl.name)
        if not decl.attrs:
            state = book.states.get(decl.name)
            if state is None:
                c.err(
                    f"hidden {decl.name}: there is no state variable '{decl.name}'",
                    decl.span,
                    hint=did_you_mean(decl.name, list(book.states))
                    or (f"hidden {decl.name}: ATTR, ... unless ATTR" if kind else None),
                )
            elif not isinstance(c.type_of(state.type), t.ListT):
                c.err(f"hidden {decl.name}: a hidden pool must be a list", decl.span)
            continue
        if kind is None:
            c.err(
                f"hidden {decl.name}: there is no kind '{decl.name}'",
                decl.span,
                hint=did_you_mean(decl.name, list(book.kinds)),
            )
            continue
        fields = {f.name: f for f in kind.fields}
        for attr in (*decl.attrs, decl.unless or ""):
            if attr not in fields:
                c.err(
                    f"hidden {decl.name}: a {decl.name} has no attribute '{attr}'",
                    decl.span,
                    hint=did_you_mean(attr, list(fields)),
                )
        flag = fields.get(decl.unless or "")
        if flag is not None and not t.assignable(c.type_of(flag.type), t.BOOL):
            c.err(f"hidden {decl.name}: '{decl.unless}' must be a bool attribute", decl.span)
        if decl.unless in decl.attrs:
            c.err(f"hidden {decl.name}: '{decl.unless}' cannot hide itself", decl.span)
