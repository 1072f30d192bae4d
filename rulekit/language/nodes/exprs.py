"""Expression nodes: literals, names, calls, operators, rolls, draws and aggregates."""

from __future__ import annotations

from fractions import Fraction

from attrs import frozen

from rulekit.language.nodes.base import Span, span_field

__all__ = [
    "Aggregate",
    "Arg",
    "Attr",
    "BinOp",
    "Bool",
    "BoolOp",
    "Call",
    "Compare",
    "DiceSpec",
    "Draw",
    "Expr",
    "IfExpr",
    "ListComp",
    "ListLit",
    "Name",
    "NoneLit",
    "Not",
    "Num",
    "Roll",
    "RollMod",
    "Str",
    "UnaryOp",
]


# ---- expressions -------------------------------------------------------------


@frozen
class Num:
    """A number literal (int, or an exact fraction for decimals)."""

    value: int | Fraction
    span: Span = span_field()


@frozen
class Str:
    """A quoted string literal."""

    value: str
    span: Span = span_field()


@frozen
class Bool:
    """``true`` or ``false``."""

    value: bool
    span: Span = span_field()


@frozen
class NoneLit:
    """``none``: no value (e.g. a threshold table below its first line)."""

    span: Span = span_field()


@frozen
class Name:
    """A reference to a local, parameter, state, constant, enum member, marker or enum."""

    id: str
    span: Span = span_field()


@frozen
class Attr:
    """``obj.name``: an entity attribute or record field."""

    obj: Expr
    name: str
    span: Span = span_field()


@frozen
class Arg:
    """A call argument; ``name`` is set for keyword arguments (``roll: ...``)."""

    value: Expr
    name: str | None = None
    span: Span = span_field()


@frozen
class Call:
    """A call of a procedure, modifier list, table or builtin function."""

    func: str
    args: tuple[Arg, ...]
    span: Span = span_field()


@frozen
class ListLit:
    """``[a, b, c]``."""

    items: tuple[Expr, ...]
    span: Span = span_field()


@frozen
class ListComp:
    """``[expr for x in xs if cond]``: a new list (selecting pieces, e.g. subs at sea)."""

    expr: Expr
    var: str
    iterable: Expr
    cond: Expr | None = None
    span: Span = span_field()


@frozen
class BinOp:
    """Arithmetic: ``+ - * /``."""

    op: str
    left: Expr
    right: Expr
    span: Span = span_field()


@frozen
class UnaryOp:
    """Unary ``-`` or ``+``."""

    op: str
    operand: Expr
    span: Span = span_field()


@frozen
class Compare:
    """Comparison: ``= != < <= > >= in not_in``."""

    op: str
    left: Expr
    right: Expr
    span: Span = span_field()


@frozen
class BoolOp:
    """``and`` / ``or`` over two operands (short-circuit)."""

    op: str
    left: Expr
    right: Expr
    span: Span = span_field()


@frozen
class Not:
    """``not x``."""

    operand: Expr
    span: Span = span_field()


@frozen
class IfExpr:
    """``if c then a else b``."""

    cond: Expr
    then: Expr
    otherwise: Expr
    span: Span = span_field()


@frozen
class DiceSpec:
    """Which dice a roll throws: ``2d6``, ``n d10``, ``highest of 3 d10``.

    ``die`` is the declared die (``d6``); ``count`` is a literal count or an expression;
    ``keep`` is ``sum``, ``highest`` or ``lowest``.
    """

    die: str
    count: int | Expr = 1
    keep: str = "sum"
    explode: int = 0  # at most this many more dice per die showing its highest face
    reroll: tuple[int, int] | None = None  # faces low..high thrown again, once
    span: Span = span_field()

    def __str__(self) -> str:
        prefix = {"sum": "", "highest": "highest of ", "lowest": "lowest of "}[self.keep]
        if isinstance(self.count, int):
            n = "" if self.count == 1 and self.keep == "sum" else str(self.count)
            sep = " " if self.keep != "sum" and n else ""
            return f"{prefix}{n}{sep}{self.die}{self._extras()}"
        return f"{prefix}n {self.die}{self._extras()}"

    def _extras(self) -> str:
        out = ""  # in the order they apply: re-rolls first
        if self.reroll is not None:
            low, high = self.reroll
            out += f" reroll {low}" + (f"..{high}" if high != low else "")
        return out + (f" explode {self.explode}" if self.explode else "")


@frozen
class RollMod:
    """One signed modifier added to a roll: ``+ torpedo``, ``- 1``, ``+ search_drm(sub)``."""

    sign: int
    value: Expr
    span: Span = span_field()


@frozen
class Roll:
    """``roll DICE [+ mod]...``: throws the dice and adds the modifiers."""

    dice: DiceSpec
    mods: tuple[RollMod, ...] = ()
    span: Span = span_field()


@frozen
class Draw:
    """``draw [n] from pool``: removes random items from a list held in state (a cup, a deck).

    The position drawn comes from the dice source, as a throw of a die with one face per item.
    """

    source: Expr
    count: Expr | None = None
    span: Span = span_field()


@frozen
class Aggregate:
    """``sum(expr for x in xs if cond)``; also count, max, min, any, all."""

    func: str
    expr: Expr
    var: str
    iterable: Expr
    cond: Expr | None = None
    span: Span = span_field()


Expr = (
    Num
    | Str
    | Bool
    | NoneLit
    | Name
    | Attr
    | Call
    | ListLit
    | ListComp
    | BinOp
    | UnaryOp
    | Compare
    | BoolOp
    | Not
    | IfExpr
    | Roll
    | Draw
    | Aggregate
)
