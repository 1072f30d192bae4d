"""AST nodes of a rulebook.

Every node is a frozen attrs class. Source spans are kept out of equality and hashing
(``field(eq=False)``) so that reformatting a rulebook does not change its meaning.
"""

from __future__ import annotations

from fractions import Fraction

from attrs import field, frozen


@frozen
class Span:
    """Where a node starts and ends in a rulebook file (1-based lines and columns)."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NO_SPAN = Span("<builtin>", 0, 0, 0, 0)


def span_field() -> Span:
    return field(default=NO_SPAN, eq=False, hash=False, repr=False)


@frozen
class RuleRef:
    """A rule reference such as ``[14.16 A]`` or ``[E4]``; ``text`` is without brackets."""

    text: str

    @property
    def number(self) -> str:
        """The addressable part: ``14.16`` of ``14.16 A``, ``E4`` of ``E4``.

        A section cited by its heading (``§Torpedo Dud Checks``, for rules without
        numbers) is addressed by the whole heading.
        """
        if self.text.startswith("§"):
            return self.text
        return self.text.split()[0].rstrip(",") if self.text else ""

    def __str__(self) -> str:
        return f"[{self.text}]"


@frozen
class Provenance:
    """Marks a value the source text does not print (``provisional "why"``)."""

    reason: str = ""


# ---- types -------------------------------------------------------------------


@frozen
class TypeName:
    """A named type: ``int``, ``number``, ``text``, ``bool``, an enum, kind, record or marker."""

    name: str
    span: Span = span_field()


@frozen
class ListType:
    """``list of T``."""

    item: TypeExpr
    span: Span = span_field()


@frozen
class UnionType:
    """``T or U``: e.g. ``int or no_roll``."""

    options: tuple[TypeExpr, ...]
    span: Span = span_field()


TypeExpr = TypeName | ListType | UnionType


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
    span: Span = span_field()

    def __str__(self) -> str:
        prefix = {"sum": "", "highest": "highest of ", "lowest": "lowest of "}[self.keep]
        if isinstance(self.count, int):
            n = "" if self.count == 1 and self.keep == "sum" else str(self.count)
            sep = " " if self.keep != "sum" and n else ""
            return f"{prefix}{n}{sep}{self.die}"
        return f"{prefix}n {self.die}"


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
    """``choose name from options [default d]``: a decision handed to the policy."""

    name: str
    options: Expr
    default: Expr | None = None
    ref: RuleRef | None = None
    title: str | None = None
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
class Pass:
    """``pass``: nothing to do."""

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


Stmt = Let | Assign | Return | ExprStmt | Choose | Require | NoteStmt | Pass | If | ForEach | While


# ---- declarations --------------------------------------------------------------


@frozen
class RulebookHeader:
    """``rulebook "Name" edition "2.1"``."""

    name: str
    edition: str | None = None
    scenario: str | None = None  # the scenario `rulekit run` plays by default
    span: Span = span_field()


@frozen
class Include:
    """``include "file.rk"``: another file inside the rulebook directory."""

    path: str
    span: Span = span_field()


@frozen
class DiceDecl:
    """A die and its faces.

    ``kind`` is ``faces`` (``low..high``), ``tens_units`` (d66: 11..66) or ``percentile``
    (d100 read from two d10 as 01..100, where 00 reads 100).
    """

    name: str
    kind: str
    low: int = 0
    high: int = 0
    parts: tuple[str, ...] = ()
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


@frozen
class Rounding:
    """``rounding up|down|nearest``: how ``rounded(x)`` treats fractions."""

    mode: str
    ref: RuleRef | None = None
    provenance: Provenance | None = None
    span: Span = span_field()


@frozen
class EnumMember:
    """An enum member as printed, with printed aliases (``"East China Sea" aka "E. China Sea"``)."""

    name: str
    aliases: tuple[str, ...] = ()
    span: Span = span_field()


@frozen
class EnumDecl:
    """An ordered set of names (war periods, areas, postures)."""

    name: str
    members: tuple[EnumMember, ...]
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


@frozen
class MarkerDecl:
    """A printed marker such as ``X`` (no roll) or ``•`` (no draw)."""

    name: str
    symbol: str
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


@frozen
class TrackDecl:
    """A numbered track on the board: an int state variable with bounds."""

    name: str
    low: int
    high: int | None
    initial: Expr | None = None
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


@frozen
class StateDecl:
    """A typed game-state variable; ``provisional`` when its initial value is not printed."""

    name: str
    type: TypeExpr
    initial: Expr | None = None
    ref: RuleRef | None = None
    title: str | None = None
    provenance: Provenance | None = None
    span: Span = span_field()


@frozen
class ConstDecl:
    """A named constant (a setting a variant may change)."""

    name: str
    type: TypeExpr | None
    value: Expr
    ref: RuleRef | None = None
    title: str | None = None
    provenance: Provenance | None = None
    span: Span = span_field()


@frozen
class FieldDecl:
    """An attribute of a kind or a field of a record."""

    name: str
    type: TypeExpr
    default: Expr | None = None
    ref: RuleRef | None = None
    title: str | None = None
    provenance: Provenance | None = None
    span: Span = span_field()


@frozen
class KindDecl:
    """A kind of game entity (a submarine, a ship) and its attributes."""

    name: str
    fields: tuple[FieldDecl, ...]
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


@frozen
class RecordDecl:
    """A record type: the columns of a multi-column chart row."""

    name: str
    fields: tuple[FieldDecl, ...]
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


# ---- table cells -------------------------------------------------------------


@frozen
class CellText:
    """A cell's words as printed; ``quoted`` when written as a string."""

    text: str
    quoted: bool = False
    span: Span = span_field()


@frozen
class CellTuple:
    """``(a, b, c)``: a record given positionally."""

    items: tuple[Cell, ...]
    span: Span = span_field()


@frozen
class CellRecord:
    """``{field: value, ...}``."""

    pairs: tuple[tuple[str, Cell], ...]
    span: Span = span_field()


@frozen
class CellList:
    """``a, b``: several values in one cell."""

    items: tuple[Cell, ...]
    span: Span = span_field()


@frozen
class CellProvisional:
    """``~value``: a value the source does not print."""

    value: Cell
    span: Span = span_field()


@frozen
class CellAction:
    """``[value] => call``: a cell whose result is followed by an action (a second roll)."""

    value: Cell | None
    call: Call
    span: Span = span_field()


Cell = CellText | CellTuple | CellRecord | CellList | CellProvisional | CellAction


@frozen
class TableItem:
    """One ``|``-separated item of a table line: a cell, or ``key: cell``."""

    key: Cell | None
    value: Cell | None
    span: Span = span_field()


@frozen
class TableLine:
    """One line of a table body, as written."""

    items: tuple[TableItem, ...]
    span: Span = span_field()


@frozen
class Dim:
    """A table dimension.

    ``kind`` is ``input`` (looked up by a value), ``threshold`` (the highest key the value
    equals or exceeds) or ``roll`` (the table's own dice, with modifiers).
    """

    kind: str
    name: str
    type: TypeExpr | None = None
    dice: DiceSpec | None = None
    mods: tuple[RollMod, ...] = ()
    span: Span = span_field()


@frozen
class TableDecl:
    """A chart: dimensions, result type, and its lines as printed."""

    name: str
    dims: tuple[Dim, ...]
    result: TypeExpr
    lines: tuple[TableLine, ...]
    ref: RuleRef | None = None
    title: str | None = None
    provenance: Provenance | None = None
    notes: tuple[str, ...] = ()
    default: Cell | None = None
    span: Span = span_field()


# ---- modifiers, procedures, sequence --------------------------------------------


@frozen
class Param:
    """A parameter of a procedure or modifier list."""

    name: str
    type: TypeExpr | None = None
    default: Expr | None = None
    span: Span = span_field()


@frozen
class ModLine:
    """One modifier: ``+1 if cond [ref] "label"``, ``-congregating_risk(area)``, ``+1 per x``."""

    sign: int
    value: Expr
    per: Expr | None = None
    cond: Expr | None = None
    ref: RuleRef | None = None
    label: str | None = None
    span: Span = span_field()


@frozen
class ModifiersDecl:
    """A list of cumulative modifiers; its value is their sum, clamped if asked."""

    name: str
    params: tuple[Param, ...]
    lines: tuple[ModLine, ...]
    clamp: tuple[int | None, int | None] | None = None
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


@frozen
class ProcedureDecl:
    """A procedure of the rules: statements run by the interpreter."""

    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    returns: TypeExpr | None = None
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


@frozen
class SeqPhase:
    """A phase of the sequence of play: a procedure call."""

    call: Call
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


@frozen
class SeqFor:
    """``for each x in xs:`` inside the sequence of play (per-unit loops)."""

    var: str
    iterable: Expr
    items: tuple[SeqItem, ...]
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class SeqSegment:
    """A segment of the sequence of play, holding phases."""

    name: str
    items: tuple[SeqItem, ...]
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


SeqItem = SeqPhase | SeqFor | SeqSegment


@frozen
class SequenceDecl:
    """The sequence of play: segments and phases of one game turn."""

    name: str
    items: tuple[SeqItem, ...]
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


# ---- variants and optional rules -------------------------------------------------


@frozen
class VariantHeader:
    """``variant "Name" extends "PATH" edition "1.1"``: a file of changes to another rulebook."""

    name: str
    base: str  # a rulebook directory or another variant file, relative to this file
    edition: str | None = None
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


@frozen
class Replace:
    """``replace <declaration>``: the declaration of the same kind and name is replaced."""

    decl: Decl
    span: Span = span_field()


@frozen
class Remove:
    """``remove table|procedure|... NAME``."""

    kind: str
    name: str
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class SetCells:
    """``set cell t(k1, k2) = v`` or ``set row t(k1) = v | v | ...``: cells of a table,
    addressed by the keys as printed; a row gives the cells of its last dimension in order."""

    table: str
    keys: tuple[str, ...]
    cells: tuple[TableItem, ...]
    row: bool = False
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class SetSetting:
    """``set const|rounding|dice ...``: a new value for a setting of the rulebook."""

    decl: ConstDecl | Rounding | DiceDecl
    span: Span = span_field()


@frozen
class ModifierChange:
    """``add modifier to``, ``remove modifier "label" from``, ``change modifier "label" in``;
    a line is named by its label or its rule reference."""

    action: str  # "add", "remove" or "change"
    modifiers: str
    line: str | None = None
    lines: tuple[ModLine, ...] = ()
    ref: RuleRef | None = None
    span: Span = span_field()


@frozen
class PhaseChange:
    """``remove phase p``, ``insert phase p before|after q``, ``move phase p before|after q``
    in every sequence of play that has the phase (or, when inserting, the anchor)."""

    action: str  # "remove", "insert" or "move"
    phase: str
    call: Call | None = None
    place: str | None = None  # "before" or "after"
    anchor: str | None = None
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


@frozen
class UseOption:
    """``use option NAME``: a variant switches on an optional rule of its base."""

    name: str
    ref: RuleRef | None = None
    span: Span = span_field()


Change = Replace | Remove | SetCells | SetSetting | ModifierChange | PhaseChange | UseOption


@frozen
class OptionDecl:
    """``option NAME [ref] "title"`` with a block of changes: an optional rule."""

    name: str
    changes: tuple[Change, ...]
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()


Decl = (
    RulebookHeader
    | Include
    | DiceDecl
    | Rounding
    | EnumDecl
    | MarkerDecl
    | TrackDecl
    | StateDecl
    | ConstDecl
    | KindDecl
    | RecordDecl
    | TableDecl
    | ModifiersDecl
    | ProcedureDecl
    | SequenceDecl
    | VariantHeader
    | OptionDecl
    | Replace
    | Remove
    | SetCells
    | SetSetting
    | ModifierChange
    | PhaseChange
    | UseOption
)


@frozen
class Module:
    """One parsed ``.rk`` file."""

    path: str
    decls: tuple[Decl, ...]
