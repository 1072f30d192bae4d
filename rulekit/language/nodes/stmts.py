"""Statement nodes: the bodies of procedures."""

from __future__ import annotations

from attrs import frozen

from rulekit.language.nodes.base import RuleRef, Span, span_field
from rulekit.language.nodes.exprs import Call, Expr

__all__ = [
    "Assign",
    "Branch",
    "Break",
    "Choose",
    "Continue",
    "EndTurn",
    "ExprStmt",
    "ForEach",
    "If",
    "Let",
    "NoteStmt",
    "Pass",
    "Require",
    "Return",
    "Stmt",
    "While",
]


# ---- statements --------------------------------------------------------------


@frozen
class Let:
    """``let name = expr``: a local value."""

    name: str
    value: Expr
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class Assign:
    """``target = expr`` / ``+=`` / ``-=``: writes a local, a state variable or an attribute."""

    target: tuple[str, ...]
    op: str
    value: Expr
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class Return:
    """``return [expr]``: the procedure's outcome."""

    value: Expr | None
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class ExprStmt:
    """A call made for its effects."""

    call: Call
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class Choose:
    """``choose name from options [default d] [by side]``: a decision handed to the policy;
    ``side`` (any value: a player's number, an enum member) says whose it is (``advise``
    maximises the goal for one side and, zero-sum, minimises it for the others)."""

    name: str
    options: Expr
    default: Expr | None = None
    ref: RuleRef | None = None
    title: str | None = None
    side: Expr | None = None
    span: Span = span_field()


@frozen
class Require:
    """``require cond else "message"``: the situation breaks a rule (bad input)."""

    cond: Expr
    message: str
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class NoteStmt:
    """``note "text"``: a line in the trace."""

    text: str
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class EndTurn:
    """``end turn ["why"] [ref]``: the rest of this turn's sequence of play is skipped (a
    patrol cut short, a game over mid-turn); called outside a turn, the procedure stops."""

    reason: str | None = None
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class Pass:
    """``pass``: nothing to do."""

    span: Span = span_field()


@frozen
class Break:
    """``break [ref]``: leave the innermost ``while`` or ``for each`` now."""

    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class Continue:
    """``continue [ref]``: go on with the innermost loop's next round (its test again)."""

    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class Branch:
    """One ``if``/``elif`` arm."""

    cond: Expr
    body: tuple[Stmt, ...]
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class If:
    """``if``/``elif``/``else``."""

    branches: tuple[Branch, ...]
    otherwise: tuple[Stmt, ...] = ()
    span: Span = span_field()


@frozen
class ForEach:
    """``for each x in xs: ...``."""

    var: str
    iterable: Expr
    body: tuple[Stmt, ...]
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class While:
    """``while cond: ...``: repeats while the condition holds (the step budget bounds it)."""

    cond: Expr
    body: tuple[Stmt, ...]
    ref: RuleRef | None = None
    span: Span = span_field()


Stmt = (
    Let
    | Assign
    | Return
    | ExprStmt
    | Choose
    | Require
    | NoteStmt
    | Pass
    | Break
    | Continue
    | EndTurn
    | If
    | ForEach
    | While
)
