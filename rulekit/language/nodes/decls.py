"""Declaration nodes: rulebook header, dice, enums, state, tables, modifiers, procedures,
the sequence of play, variants and options; and the parsed file (:class:`Module`)."""

from __future__ import annotations

from attrs import frozen

from rulekit.language.nodes.base import Derived, Provenance, RuleRef, Span, TypeExpr, span_field
from rulekit.language.nodes.exprs import Call, DiceSpec, Expr, RollMod
from rulekit.language.nodes.stmts import Stmt

__all__ = [
    "Cell",
    "CellAction",
    "CellDerived",
    "CellList",
    "CellProvisional",
    "CellRecord",
    "CellText",
    "CellTuple",
    "Change",
    "ConstDecl",
    "Decl",
    "DiceDecl",
    "Dim",
    "EnumDecl",
    "EnumMember",
    "FieldDecl",
    "HiddenDecl",
    "Include",
    "KindDecl",
    "MarkerDecl",
    "ModLine",
    "ModifierChange",
    "ModifiersDecl",
    "Module",
    "OptionDecl",
    "Param",
    "PhaseChange",
    "ProcedureDecl",
    "RecordDecl",
    "Remove",
    "Replace",
    "Rounding",
    "RulebookHeader",
    "SeqFor",
    "SeqItem",
    "SeqPhase",
    "SeqSegment",
    "SequenceDecl",
    "SetCells",
    "SetSetting",
    "StateDecl",
    "TableDecl",
    "TableItem",
    "TableLine",
    "TrackDecl",
    "UseOption",
    "VariantHeader",
    "ViewDecl",
]


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

    ``kind`` is ``faces`` (``low..high``), ``list`` (any faces, ``-1, 0, 1``: ``faces``),
    ``tens_units`` (d66: 11..66) or ``percentile`` (d100 read from two d10 as 01..100,
    where 00 reads 100).
    """

    name: str
    kind: str
    low: int = 0
    high: int = 0
    parts: tuple[str, ...] = ()
    ref: RuleRef | None = None
    title: str | None = None
    faces: tuple[int, ...] = ()
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
    derived: Derived | None = None
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
    derived: Derived | None = None
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
    derived: Derived | None = None
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
    """``~value`` or ``~"why" value``: a value the source does not print, and why."""

    value: Cell
    reason: str | None = None
    span: Span = span_field()


@frozen
class CellDerived:
    """``derived "where" value``: a value the source prints only through a worked example."""

    value: Cell
    cite: str
    span: Span = span_field()


@frozen
class CellAction:
    """``[value] => call``: a cell whose result is followed by an action (a second roll)."""

    value: Cell | None
    call: Call
    span: Span = span_field()


Cell = CellText | CellTuple | CellRecord | CellList | CellProvisional | CellDerived | CellAction


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
    derived: Derived | None = None
    marked: str | None = None  # the reason of each "~" cell that gives none of its own
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


@frozen
class ViewDecl:
    """``view NAME = PROCEDURE``: what a player sees (``rulekit play``).

    ``view status = P`` names the status view; ``view KIND = P`` says how a piece of that
    kind shows in prompts and options (a face-down unit shows its position, not its identity);
    ``view choose D = P`` (``decision``) what the question of the choose named D shows with
    it: each option's odds, or the part of the board it needs.
    """

    name: str
    procedure: str
    ref: RuleRef | None = None
    title: str | None = None
    span: Span = span_field()
    decision: bool = False

    @property
    def key(self) -> str:
        """Its key among the rulebook's views: a decision's is ``choose D`` (a choose may
        share its name with a kind: ``column``)."""
        return f"choose {self.name}" if self.decision else self.name


@frozen
class HiddenDecl:
    """``hidden KIND: A, B unless F`` or ``hidden POOL``: what no player may know.

    For a kind: while a piece's bool attribute ``unless`` is false, its attributes ``attrs``
    are hidden (the front of a face-down counter): every decision policy decides as if they
    held the kind's declared defaults, and ``rulekit play`` does not tell them. For a state
    list (``attrs`` empty): draws from it are face down, so the story does not tell which
    item was drawn nor where it lay (rulekit.engine.hidden).
    """

    name: str
    attrs: tuple[str, ...]
    unless: str | None
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
    | ViewDecl
    | HiddenDecl
)


@frozen
class Module:
    """One parsed ``.rk`` file."""

    path: str
    decls: tuple[Decl, ...]
