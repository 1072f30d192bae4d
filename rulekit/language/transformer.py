"""Builds AST nodes from lark's parse tree: the only place that knows the tree's shape."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, cast

from attrs import evolve
from lark import Token, Transformer, v_args
from lark.tree import Meta

from rulekit.errors import MAX_DIGITS, SyntaxProblem, error
from rulekit.language import nodes as n

_DICE = re.compile(r"([0-9]*)(d(?:[0-9]+|[A-Z][A-Za-z0-9]*))")


def _string(token: Token) -> str:
    body = str(token)[1:-1]
    return re.sub(r"\\(.)", r"\1", body)


def _number(token: Token) -> int | Fraction:
    text = str(token)
    return Fraction(text) if "." in text else int(text)


def _present(children: list[Any], kind: type | tuple[type, ...]) -> list[Any]:
    return [c for c in children if isinstance(c, kind)]


class _Default:
    """A table's ``default`` line while the table is being built."""

    def __init__(self, cell: n.Cell) -> None:
        self.cell = cell


# A die's definition: its kind, the low and high faces, the dice it is made of, its faces.
_DiceDef = tuple[str, int, int, tuple[str, ...], tuple[int, ...]]


class _DiceExtra:
    """``explode N`` or ``reroll A..B`` after a roll's dice, folded into its DiceSpec."""

    def __init__(self, what: str, value: Any) -> None:
        self.what, self.value = what, value


class _Marked:
    """A table's ``marked "why"`` line: the reason of its ``~`` cells that give none."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class _Opt:
    """Optional trailing parts of a declaration line: rule ref, title, provenance."""

    def __init__(self, children: list[Any]) -> None:
        self.ref = next((c for c in children if isinstance(c, n.RuleRef)), None)
        self.prov = next((c for c in children if isinstance(c, n.Provenance)), None)


def _provenance(
    mark: n.Provenance | n.Derived | None,
) -> tuple[n.Provenance | None, n.Derived | None]:
    """The trailing mark of a declaration, as (provisional, derived from an example)."""
    if isinstance(mark, n.Derived):
        return None, mark
    return mark, None


@v_args(meta=True)
class AstBuilder(Transformer[Token, n.Module]):
    """Turns a parse tree of one file into a :class:`rulekit.language.nodes.Module`."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def _span(self, meta: Meta | Token) -> n.Span:
        if isinstance(meta, Token):
            end_line = meta.end_line or meta.line or 0
            end_col = meta.end_column or meta.column or 0
            return n.Span(self.path, meta.line or 0, meta.column or 0, end_line, end_col)
        if getattr(meta, "empty", True):
            return n.NO_SPAN
        return n.Span(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def _number(self, token: Token) -> Any:
        if sum(ch.isdigit() for ch in str(token)) > MAX_DIGITS:
            raise self._fail(f"a number of more than {MAX_DIGITS} digits", token)
        return _number(token)

    def _fail(self, message: str, meta: Meta | Token, hint: str | None = None) -> SyntaxProblem:
        return SyntaxProblem([error(message, self._span(meta), hint=hint)])

    # ---- file and declarations ------------------------------------------------

    def start(self, meta: Meta, c: list[Any]) -> n.Module:
        return n.Module(self.path, tuple(x for x in c if x is not None))

    def rulebook_decl(self, meta: Meta, c: list[Any]) -> n.RulebookHeader:
        edition = _string(c[1]) if c[1] is not None else None
        scenario = _string(c[2]) if c[2] is not None else None
        return n.RulebookHeader(_string(c[0]), edition, scenario, span=self._span(meta))

    def include_decl(self, meta: Meta, c: list[Any]) -> n.Include:
        return n.Include(_string(c[0]), span=self._span(meta))

    def dice_decl(self, meta: Meta, c: list[Any]) -> n.DiceDecl:
        name_tok, (kind, low, high, parts, faces), ref, title = c
        count, name = _DICE.fullmatch(str(name_tok)).groups()  # type: ignore[union-attr]
        if count:
            raise self._fail(
                f"a die's name has no count: write '{name}', not '{name_tok}'", name_tok
            )
        for part in parts:
            if _DICE.fullmatch(part).group(1):  # type: ignore[union-attr]
                raise self._fail(f"'{part}': compose single dice, e.g. d6", meta)
        return n.DiceDecl(
            name, kind, low, high, parts, ref, self._title(title), faces, span=self._span(meta)
        )

    def dice_faces(self, meta: Meta, c: list[Any]) -> _DiceDef:
        return ("faces", c[0], c[1], (), ())

    def dice_tens_units(self, meta: Meta, c: list[Any]) -> _DiceDef:
        return ("tens_units", 0, 0, (str(c[0]), str(c[1])), ())

    def dice_percentile(self, meta: Meta, c: list[Any]) -> _DiceDef:
        return ("percentile", 0, 0, (str(c[0]), str(c[1])), ())

    def dice_list(self, meta: Meta, c: list[Any]) -> _DiceDef:
        faces = tuple(int(x) for x in c)
        return ("list", min(faces), max(faces), (), faces)

    def rounding_decl(self, meta: Meta, c: list[Any]) -> n.Rounding:
        opt = _Opt(c)
        return n.Rounding(str(c[0]), opt.ref, opt.prov, span=self._span(c[0]))

    def enum_inline(self, meta: Meta, c: list[Any]) -> n.EnumDecl:
        members = tuple(_present(c[1:], n.EnumMember))
        title = next((x for x in c[1:] if isinstance(x, Token) and x.type == "STRING"), None)
        return n.EnumDecl(
            str(c[0]), members, _Opt(c).ref, self._title(title), span=self._span(c[0])
        )

    def enum_block(self, meta: Meta, c: list[Any]) -> n.EnumDecl:
        members: list[n.EnumMember] = []
        for line in c[3:]:
            members.extend(line)
        return n.EnumDecl(str(c[0]), tuple(members), c[1], self._title(c[2]), span=self._span(c[0]))

    def enum_line(self, meta: Meta, c: list[Any]) -> list[n.EnumMember]:
        return list(c)

    def enum_member(self, meta: Meta, c: list[Any]) -> n.EnumMember:
        words = [self._word(t) for t in c if t is not None]
        return n.EnumMember(words[0], tuple(words[1:]), span=self._span(meta))

    def _word(self, token: Token) -> str:
        return _string(token) if token.type == "STRING" else str(token)

    def _title(self, token: Token | None) -> str | None:
        return _string(token) if token is not None else None

    def marker_decl(self, meta: Meta, c: list[Any]) -> n.MarkerDecl:
        return n.MarkerDecl(
            str(c[0]), _string(c[1]), c[2], self._title(c[3]), span=self._span(c[0])
        )

    def track_decl(self, meta: Meta, c: list[Any]) -> n.TrackDecl:
        name, low, high, initial, ref, title = c
        return n.TrackDecl(
            str(name), low, high, initial, ref, self._title(title), span=self._span(name)
        )

    def _valued(self, cls: Any, c: list[Any]) -> Any:
        """A state variable, constant or field: name, type, value, rule, title, provenance."""
        name, type_, value, ref, title, mark = c
        prov, derived = _provenance(mark)
        return cls(
            str(name), type_, value, ref, self._title(title), prov, derived, span=self._span(name)
        )

    def state_decl(self, meta: Meta, c: list[Any]) -> n.StateDecl:
        return cast(n.StateDecl, self._valued(n.StateDecl, c))

    def const_decl(self, meta: Meta, c: list[Any]) -> n.ConstDecl:
        return cast(n.ConstDecl, self._valued(n.ConstDecl, c))

    def provenance(self, meta: Meta, c: list[Any]) -> n.Provenance:
        return n.Provenance(_string(c[0]) if c[0] is not None else "")

    def derived(self, meta: Meta, c: list[Any]) -> n.Derived:
        return n.Derived(_string(c[0]), span=self._span(meta))

    def kind_decl(self, meta: Meta, c: list[Any]) -> n.KindDecl:
        fields = tuple(_present(c[3:], n.FieldDecl))
        return n.KindDecl(str(c[0]), fields, c[1], self._title(c[2]), span=self._span(c[0]))

    def field(self, meta: Meta, c: list[Any]) -> n.FieldDecl:
        return cast(n.FieldDecl, self._valued(n.FieldDecl, c))

    def record_decl(self, meta: Meta, c: list[Any]) -> n.RecordDecl:
        fields = tuple(_present(c[1:], n.FieldDecl))
        ref = next((x for x in c if isinstance(x, n.RuleRef)), None)
        title_tok = c[-1] if isinstance(c[-1], Token) and c[-1].type == "STRING" else None
        return n.RecordDecl(str(c[0]), fields, ref, self._title(title_tok), span=self._span(c[0]))

    def record_field(self, meta: Meta, c: list[Any]) -> n.FieldDecl:
        return n.FieldDecl(str(c[0]), c[1], span=self._span(c[0]))

    # ---- types ------------------------------------------------------------------

    def type(self, meta: Meta, c: list[Any]) -> n.TypeExpr:
        if len(c) == 1:
            return c[0]  # type: ignore[no-any-return]
        return n.UnionType(tuple(c), span=self._span(meta))

    def type_name(self, meta: Meta, c: list[Any]) -> n.TypeName:
        return n.TypeName(str(c[0]), span=self._span(c[0]))

    def type_list(self, meta: Meta, c: list[Any]) -> n.ListType:
        return n.ListType(c[0], span=self._span(meta))

    def type_paren(self, meta: Meta, c: list[Any]) -> n.TypeExpr:
        return c[0]  # type: ignore[no-any-return]  # (T or U) is T or U; a union flattens later

    # ---- tables -------------------------------------------------------------------

    def table_decl(self, meta: Meta, c: list[Any]) -> n.TableDecl:
        name, ref, title, dims, result = c[:5]
        prov: n.Provenance | None = None
        derived: n.Derived | None = None
        notes: list[str] = []
        lines: list[n.TableLine] = []
        default: n.Cell | None = None
        marked: str | None = None
        for x in c[5:]:
            if isinstance(x, n.Provenance):
                prov = x
            elif isinstance(x, _Marked):
                marked = x.reason
            elif isinstance(x, n.Derived):
                derived = x
            elif isinstance(x, n.TableLine):
                lines.append(x)
            elif isinstance(x, _Default):
                default = x.cell
            else:
                notes.append(x)
        return n.TableDecl(
            str(name),
            tuple(dims),
            result,
            tuple(lines),
            ref,
            self._title(title),
            prov,
            tuple(notes),
            default,
            derived,
            marked,
            span=self._span(name),
        )

    def dims(self, meta: Meta, c: list[Any]) -> list[n.Dim]:
        return list(c)

    def dim_input(self, meta: Meta, c: list[Any]) -> n.Dim:
        return n.Dim("input", str(c[0]), c[1], span=self._span(meta))

    def dim_threshold(self, meta: Meta, c: list[Any]) -> n.Dim:
        return n.Dim("threshold", str(c[0]), c[1], span=self._span(meta))

    def dim_roll(self, meta: Meta, c: list[Any]) -> n.Dim:
        return n.Dim("roll", "roll", None, c[0], tuple(c[1:]), span=self._span(meta))

    def table_provisional(self, meta: Meta, c: list[Any]) -> n.Provenance:
        return n.Provenance(_string(c[0]) if c[0] is not None else "")

    def table_derived(self, meta: Meta, c: list[Any]) -> n.Derived:
        return n.Derived(_string(c[0]), span=self._span(meta))

    def table_marked(self, meta: Meta, c: list[Any]) -> _Marked:
        return _Marked(_string(c[0]))

    def table_default(self, meta: Meta, c: list[Any]) -> _Default:
        return _Default(c[0])

    def table_note(self, meta: Meta, c: list[Any]) -> str:
        return _string(c[0])

    def table_line(self, meta: Meta, c: list[Any]) -> n.TableLine:
        items = list(c)
        # A trailing "|" leaves an empty last item: it is layout, not a cell.
        if len(items) > 1 and items[-1].key is None and items[-1].value is None:
            items.pop()
        return n.TableLine(tuple(items), span=self._span(meta))

    def item(self, meta: Meta, c: list[Any]) -> n.TableItem:
        first, second = c
        if second is None:
            return n.TableItem(None, first, span=self._span(meta))
        return n.TableItem(first, second, span=self._span(meta))

    def cell_values(self, meta: Meta, c: list[Any]) -> n.Cell:
        if len(c) == 1:
            return c[0]  # type: ignore[no-any-return]
        return n.CellList(tuple(c), span=self._span(meta))

    def cell_action(self, meta: Meta, c: list[Any]) -> n.CellAction:
        return n.CellAction(c[0], c[1], span=self._span(meta))

    def phrase(self, meta: Meta, c: list[Any]) -> n.CellText:
        return n.CellText(" ".join(str(t) for t in c), span=self._span(meta))

    def cell_string(self, meta: Meta, c: list[Any]) -> n.CellText:
        return n.CellText(_string(c[0]), quoted=True, span=self._span(meta))

    def cell_tuple(self, meta: Meta, c: list[Any]) -> n.CellTuple:
        return n.CellTuple(tuple(c), span=self._span(meta))

    def cell_record(self, meta: Meta, c: list[Any]) -> n.CellRecord:
        return n.CellRecord(tuple(c), span=self._span(meta))

    def cell_pair(self, meta: Meta, c: list[Any]) -> tuple[str, n.Cell]:
        return (str(c[0]), c[1])

    def cell_provisional(self, meta: Meta, c: list[Any]) -> n.CellProvisional:
        return n.CellProvisional(c[0], span=self._span(meta))

    def cell_provisional_why(self, meta: Meta, c: list[Any]) -> n.CellProvisional:
        return n.CellProvisional(c[1], _string(c[0]), span=self._span(meta))

    def cell_derived(self, meta: Meta, c: list[Any]) -> n.CellDerived:
        return n.CellDerived(c[1], _string(c[0]), span=self._span(meta))

    # ---- modifiers ------------------------------------------------------------------

    def modifiers_decl(self, meta: Meta, c: list[Any]) -> n.ModifiersDecl:
        name, params, ref, title = c[:4]
        clamp = None
        lines = []
        for x in c[4:]:
            if isinstance(x, n.ModLine):
                lines.append(x)
            else:
                clamp = x
        return n.ModifiersDecl(
            str(name),
            tuple(params or ()),
            tuple(lines),
            clamp,
            ref,
            self._title(title),
            span=self._span(name),
        )

    def modifier_option(self, meta: Meta, c: list[Any]) -> tuple[int | None, int | None]:
        return c[0]  # type: ignore[no-any-return]

    def signed_range(self, meta: Meta, c: list[Any]) -> tuple[int | None, int | None]:
        return (c[0], c[1])

    def mod_line(self, meta: Meta, c: list[Any]) -> n.ModLine:
        sign, value, per, cond, ref, label = c
        return n.ModLine(
            1 if sign == "+" else -1,
            value,
            per,
            cond,
            ref,
            self._title(label),
            span=self._span(meta),
        )

    # ---- procedures -------------------------------------------------------------------

    def procedure_decl(self, meta: Meta, c: list[Any]) -> n.ProcedureDecl:
        name, params, returns, ref, title = c[:5]
        return n.ProcedureDecl(
            str(name),
            tuple(params or ()),
            tuple(c[5:]),
            returns,
            ref,
            self._title(title),
            span=self._span(name),
        )

    def params(self, meta: Meta, c: list[Any]) -> list[n.Param]:
        return [p for p in c if p is not None]

    def param(self, meta: Meta, c: list[Any]) -> n.Param:
        return n.Param(str(c[0]), c[1], c[2], span=self._span(c[0]))

    def let_stmt(self, meta: Meta, c: list[Any]) -> n.Let:
        return n.Let(str(c[0]), c[1], c[2], span=self._span(meta))

    def assign_stmt(self, meta: Meta, c: list[Any]) -> n.Assign:
        return n.Assign(c[0], c[1], c[2], c[3], span=self._span(meta))

    def assign_op(self, meta: Meta, c: list[Any]) -> str:
        return str(c[0])

    def target(self, meta: Meta, c: list[Any]) -> tuple[str, ...]:
        return tuple(str(t) for t in c)

    def return_stmt(self, meta: Meta, c: list[Any]) -> n.Return:
        return n.Return(c[0], c[1], span=self._span(meta))

    def call_stmt(self, meta: Meta, c: list[Any]) -> n.ExprStmt:
        return n.ExprStmt(c[0], c[1], span=self._span(meta))

    def choose_stmt(self, meta: Meta, c: list[Any]) -> n.Choose:
        return n.Choose(str(c[0]), c[1], c[2], c[4], self._title(c[5]), c[3], span=self._span(meta))

    def require_stmt(self, meta: Meta, c: list[Any]) -> n.Require:
        return n.Require(c[0], _string(c[1]), c[2], span=self._span(meta))

    def note_stmt(self, meta: Meta, c: list[Any]) -> n.NoteStmt:
        return n.NoteStmt(_string(c[0]), c[1], span=self._span(meta))

    def pass_stmt(self, meta: Meta, c: list[Any]) -> n.Pass:
        return n.Pass(span=self._span(meta))

    def break_stmt(self, meta: Meta, c: list[Any]) -> n.Break:
        return n.Break(c[0], span=self._span(meta))

    def continue_stmt(self, meta: Meta, c: list[Any]) -> n.Continue:
        return n.Continue(c[0], span=self._span(meta))

    def end_turn_stmt(self, meta: Meta, c: list[Any]) -> n.EndTurn:
        reason = _string(c[0]) if c[0] is not None else None
        return n.EndTurn(reason, c[1], span=self._span(meta))

    def if_stmt(self, meta: Meta, c: list[Any]) -> n.If:
        cond, ref, body = c[:3]
        branches = [n.Branch(cond, body, ref, span=self._span(meta))]
        otherwise: tuple[n.Stmt, ...] = ()
        for x in c[3:]:
            if isinstance(x, n.Branch):
                branches.append(x)
            elif x is not None:
                otherwise = x
        return n.If(tuple(branches), otherwise, span=self._span(meta))

    def elif_clause(self, meta: Meta, c: list[Any]) -> n.Branch:
        return n.Branch(c[0], c[2], c[1], span=self._span(meta))

    def else_clause(self, meta: Meta, c: list[Any]) -> tuple[n.Stmt, ...]:
        return c[0]  # type: ignore[no-any-return]

    def suite(self, meta: Meta, c: list[Any]) -> tuple[n.Stmt, ...]:
        return tuple(c)

    def while_stmt(self, meta: Meta, c: list[Any]) -> n.While:
        return n.While(c[0], c[2], c[1], span=self._span(meta))

    def for_stmt(self, meta: Meta, c: list[Any]) -> n.ForEach:
        return n.ForEach(str(c[0]), c[1], c[3], c[2], span=self._span(meta))

    # ---- sequence of play -------------------------------------------------------------

    def sequence_decl(self, meta: Meta, c: list[Any]) -> n.SequenceDecl:
        name = str(c[0]) if c[0] is not None else "turn"
        return n.SequenceDecl(name, tuple(c[3:]), c[1], self._title(c[2]), span=self._span(meta))

    def seq_segment(self, meta: Meta, c: list[Any]) -> n.SeqSegment:
        return n.SeqSegment(str(c[0]), tuple(c[3:]), c[1], self._title(c[2]), span=self._span(meta))

    def seq_phase(self, meta: Meta, c: list[Any]) -> n.SeqPhase:
        target = c[0]
        if isinstance(target, Token):
            target = n.Call(str(target), (), span=self._span(target))
        return n.SeqPhase(target, c[1], self._title(c[2]), span=self._span(meta))

    def seq_for(self, meta: Meta, c: list[Any]) -> n.SeqFor:
        return n.SeqFor(str(c[0]), c[1], tuple(c[3:]), c[2], span=self._span(meta))

    # ---- variants and optional rules --------------------------------------------------

    def variant_decl(self, meta: Meta, c: list[Any]) -> n.VariantHeader:
        name, base, edition, ref, title = c
        return n.VariantHeader(
            _string(name),
            _string(base),
            _string(edition) if edition is not None else None,
            ref,
            self._title(title),
            span=self._span(meta),
        )

    def option_decl(self, meta: Meta, c: list[Any]) -> n.OptionDecl:
        name, ref, title, *changes = c
        return n.OptionDecl(
            str(name), tuple(changes), ref, self._title(title), span=self._span(name)
        )

    def view_decl(self, meta: Meta, c: list[Any]) -> n.ViewDecl:
        choose, name, procedure, ref, title = c
        return n.ViewDecl(
            str(name),
            str(procedure),
            ref,
            self._title(title),
            span=self._span(meta),
            decision=choose is not None,
        )

    def hidden_decl(self, meta: Meta, c: list[Any]) -> n.HiddenDecl:
        # c: the kind or pool, then the attributes and the "unless" attribute (or a None for
        # each when the optional part is absent), then ref and title
        name, *middle, ref, title = c
        names = [str(x) for x in middle if x is not None]
        attrs, unless = (tuple(names[:-1]), names[-1]) if names else ((), None)
        span = self._span(meta)
        return n.HiddenDecl(str(name), attrs, unless, ref, self._title(title), span=span)

    def replace_change(self, meta: Meta, c: list[Any]) -> n.Replace:
        return n.Replace(c[0], span=self._span(meta))

    def remove_change(self, meta: Meta, c: list[Any]) -> n.Remove:
        return n.Remove(str(c[0]), str(c[1]), c[2], span=self._span(meta))

    def table_key(self, meta: Meta, c: list[Any]) -> str:
        key = c[0]
        if isinstance(key, Token):
            return _string(key) if key.type == "STRING" else str(key)
        return str(key)

    def set_cell(self, meta: Meta, c: list[Any]) -> n.SetCells:
        name, *keys, ref, cell = c
        item = n.TableItem(None, cell, span=cell.span)
        return n.SetCells(str(name), tuple(keys), (item,), False, ref, span=self._span(meta))

    def set_row(self, meta: Meta, c: list[Any]) -> n.SetCells:
        ref = next((x for x in c if isinstance(x, n.RuleRef)), None)
        keys = [x for x in c[1:] if isinstance(x, str)]
        items = [x for x in c[1:] if isinstance(x, n.TableItem)]
        return n.SetCells(str(c[0]), tuple(keys), tuple(items), True, ref, span=self._span(meta))

    def set_const(self, meta: Meta, c: list[Any]) -> n.SetSetting:
        name, value, ref, title, prov = c
        decl = n.ConstDecl(
            str(name), None, value, ref, self._title(title), prov, span=self._span(name)
        )
        return n.SetSetting(decl, span=self._span(meta))

    def set_rounding(self, meta: Meta, c: list[Any]) -> n.SetSetting:
        return n.SetSetting(self.rounding_decl(meta, c), span=self._span(meta))

    def set_dice(self, meta: Meta, c: list[Any]) -> n.SetSetting:
        return n.SetSetting(self.dice_decl(meta, c), span=self._span(meta))

    def add_modifier(self, meta: Meta, c: list[Any]) -> n.ModifierChange:
        lines = tuple(c[1:])
        return n.ModifierChange("add", str(c[0]), None, lines, lines[0].ref, span=self._span(meta))

    def remove_modifier(self, meta: Meta, c: list[Any]) -> n.ModifierChange:
        label, name, ref = c
        return n.ModifierChange("remove", str(name), _string(label), (), ref, span=self._span(meta))

    def change_modifier(self, meta: Meta, c: list[Any]) -> n.ModifierChange:
        label, name, line = c
        return n.ModifierChange(
            "change", str(name), _string(label), (line,), line.ref, span=self._span(meta)
        )

    def remove_phase(self, meta: Meta, c: list[Any]) -> n.PhaseChange:
        return n.PhaseChange("remove", str(c[0]), ref=c[1], span=self._span(meta))

    def insert_phase(self, meta: Meta, c: list[Any]) -> n.PhaseChange:
        target, place, anchor, ref, title = c
        if isinstance(target, Token):
            target = n.Call(str(target), (), span=self._span(target))
        return n.PhaseChange(
            "insert",
            target.func,
            target,
            str(place),
            str(anchor),
            ref,
            self._title(title),
            span=self._span(meta),
        )

    def move_phase(self, meta: Meta, c: list[Any]) -> n.PhaseChange:
        phase, place, anchor, ref = c
        return n.PhaseChange(
            "move", str(phase), None, str(place), str(anchor), ref, span=self._span(meta)
        )

    def use_option(self, meta: Meta, c: list[Any]) -> n.UseOption:
        return n.UseOption(str(c[0]), c[1], span=self._span(meta))

    # ---- expressions ------------------------------------------------------------------

    def if_expr(self, meta: Meta, c: list[Any]) -> n.IfExpr:
        return n.IfExpr(c[0], c[1], c[2], span=self._span(meta))

    def or_op(self, meta: Meta, c: list[Any]) -> n.BoolOp:
        return n.BoolOp("or", c[0], c[1], span=self._span(meta))

    def and_op(self, meta: Meta, c: list[Any]) -> n.BoolOp:
        return n.BoolOp("and", c[0], c[1], span=self._span(meta))

    def not_op(self, meta: Meta, c: list[Any]) -> n.Not:
        return n.Not(c[0], span=self._span(meta))

    def compare(self, meta: Meta, c: list[Any]) -> n.Compare:
        return n.Compare(c[1], c[0], c[2], span=self._span(meta))

    def in_op(self, meta: Meta, c: list[Any]) -> n.Compare:
        return n.Compare("in", c[0], c[1], span=self._span(meta))

    def not_in_op(self, meta: Meta, c: list[Any]) -> n.Compare:
        return n.Compare("not in", c[0], c[1], span=self._span(meta))

    def comp_op(self, meta: Meta, c: list[Any]) -> str:
        return str(c[0])

    def add_op(self, meta: Meta, c: list[Any]) -> str:
        return str(c[0])

    def mul_op(self, meta: Meta, c: list[Any]) -> str:
        return str(c[0])

    def binop(self, meta: Meta, c: list[Any]) -> n.BinOp:
        return n.BinOp(c[1], c[0], c[2], span=self._span(meta))

    def unary_op(self, meta: Meta, c: list[Any]) -> n.Expr:
        if c[0] == "+":
            return c[1]  # type: ignore[no-any-return]
        operand = c[1]
        if isinstance(operand, n.Num):
            return n.Num(-operand.value, span=self._span(meta))
        return n.UnaryOp("-", operand, span=self._span(meta))

    def attr(self, meta: Meta, c: list[Any]) -> n.Attr:
        return n.Attr(c[0], str(c[1]), span=self._span(meta))

    def number(self, meta: Meta, c: list[Any]) -> n.Num:
        return n.Num(self._number(c[0]), span=self._span(c[0]))

    def string(self, meta: Meta, c: list[Any]) -> n.Str:
        return n.Str(_string(c[0]), span=self._span(c[0]))

    def name(self, meta: Meta, c: list[Any]) -> n.Name:
        return n.Name(str(c[0]), span=self._span(c[0]))

    def true(self, meta: Meta, c: list[Any]) -> n.Bool:
        return n.Bool(True, span=self._span(meta))

    def false(self, meta: Meta, c: list[Any]) -> n.Bool:
        return n.Bool(False, span=self._span(meta))

    def none(self, meta: Meta, c: list[Any]) -> n.NoneLit:
        return n.NoneLit(span=self._span(meta))

    def list_lit(self, meta: Meta, c: list[Any]) -> n.ListLit:
        return n.ListLit(tuple(x for x in c if x is not None), span=self._span(meta))

    def list_comp(self, meta: Meta, c: list[Any]) -> n.Expr:
        """``[e for x in xs for y in ys]`` is ``flatten([[e for y in ys] for x in xs])``:
        the last ``for`` varies fastest, as in Python."""
        span = self._span(meta)
        clauses: list[tuple[str, n.Expr, n.Expr | None]] = c[1:]
        var, items, cond = clauses[-1]
        built: n.Expr = n.ListComp(c[0], var, items, cond, span=span)
        for var, items, cond in reversed(clauses[:-1]):
            outer = n.ListComp(built, var, items, cond, span=span)
            built = n.Call("flatten", (n.Arg(outer, span=span),), span=span)
        return built

    def comp_for(self, meta: Meta, c: list[Any]) -> tuple[str, n.Expr, n.Expr | None]:
        return (str(c[0]), c[1], c[2])

    def call(self, meta: Meta, c: list[Any]) -> n.Call:
        return n.Call(str(c[0]), tuple(a for a in c[1:] if a is not None), span=self._span(meta))

    def arg(self, meta: Meta, c: list[Any]) -> n.Arg:
        return n.Arg(c[0], span=self._span(meta))

    def keyword_arg(self, meta: Meta, c: list[Any]) -> n.Arg:
        return n.Arg(c[1], str(c[0]), span=self._span(meta))

    def roll_arg(self, meta: Meta, c: list[Any]) -> n.Arg:
        return n.Arg(c[0], "roll", span=self._span(meta))

    def aggregate(self, meta: Meta, c: list[Any]) -> n.Aggregate:
        func, expr, var, iterable, cond = c
        if str(func) not in ("sum", "count", "max", "min", "any", "all"):
            raise self._fail(
                f"'{func}(... for ...)' is not an aggregate",
                func,
                hint="use sum, count, max, min, any or all",
            )
        return n.Aggregate(str(func), expr, str(var), iterable, cond, span=self._span(meta))

    def draw(self, meta: Meta, c: list[Any]) -> n.Draw:
        return n.Draw(c[1], c[0], span=self._span(meta))

    def roll(self, meta: Meta, c: list[Any]) -> n.Roll:
        spec: n.DiceSpec = c[0]
        mods = []
        for x in c[1:]:
            if isinstance(x, _DiceExtra):
                spec = evolve(spec, **{x.what: x.value})
            else:
                mods.append(x)
        return n.Roll(spec, tuple(mods), span=self._span(meta))

    def dice_explode(self, meta: Meta, c: list[Any]) -> _DiceExtra:
        value = self._number(c[0])
        if not isinstance(value, int):
            raise self._fail("explode takes a whole number of extra dice", c[0])
        return _DiceExtra("explode", value)

    def dice_reroll(self, meta: Meta, c: list[Any]) -> _DiceExtra:
        low, high = c[0], c[1] if c[1] is not None else c[0]
        return _DiceExtra("reroll", (low, high))

    def roll_mod(self, meta: Meta, c: list[Any]) -> n.RollMod:
        return n.RollMod(1 if c[0] == "+" else -1, c[1], span=self._span(meta))

    def _dice(self, token: Token) -> tuple[int | None, str]:
        count, die = _DICE.fullmatch(str(token)).groups()  # type: ignore[union-attr]
        if count and len(count) > MAX_DIGITS:
            raise self._fail(f"a number of more than {MAX_DIGITS} digits", token)
        return (int(count) if count else None), die

    def dice_plain(self, meta: Meta, c: list[Any]) -> n.DiceSpec:
        count, die = self._dice(c[0])
        # "0d6" is no dice at all (an empty roll), as "roll 0 d6" is; "d6" is one die
        return n.DiceSpec(die, 1 if count is None else count, span=self._span(meta))

    def _counted(self, meta: Meta, count: n.Expr | None, token: Token, keep: str) -> n.DiceSpec:
        own, die = self._dice(token)
        if own is not None and count is not None:
            raise self._fail(f"two counts for '{token}'", token)
        value: int | n.Expr = own if own is not None else (count if count is not None else 1)
        if isinstance(value, n.Num) and isinstance(value.value, int):
            value = value.value
        return n.DiceSpec(die, value, keep, span=self._span(meta))

    def dice_counted(self, meta: Meta, c: list[Any]) -> n.DiceSpec:
        return self._counted(meta, c[0], c[1], "sum")

    def dice_highest(self, meta: Meta, c: list[Any]) -> n.DiceSpec:
        return self._counted(meta, c[0], c[1], "highest")

    def dice_lowest(self, meta: Meta, c: list[Any]) -> n.DiceSpec:
        return self._counted(meta, c[0], c[1], "lowest")

    def signed_int(self, meta: Meta, c: list[Any]) -> int:
        value = self._number(c[1])
        if not isinstance(value, int):
            raise self._fail("expected a whole number", c[1])
        return -value if c[0] == "-" else value

    def ref(self, meta: Meta, c: list[Any]) -> n.RuleRef:
        return n.RuleRef(str(c[0])[1:-1].strip())
