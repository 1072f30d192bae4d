"""Chart cards: a model of each table as the printed chart shows it, for the templates.

The model follows the table's lines as written, so a card keeps the source's layout: a
grid's header lines each start a block (the Encounter Chart prints two blocks of five
areas), ``key: value`` lines become strips of boxes (the Weather table's two rows of
months), one-dimensional tables list their rows, and rows of ``key: value`` items after
row keys (thresholds, ranges per row) keep their pairs in order. Keys and cells keep the
printed wording; nothing here is computed from the rules.
"""

from __future__ import annotations

import re

from attrs import define, field

from rulekit.aids.modlinks import modifier_links
from rulekit.book.checker import Checked

# the reader's own test of a header line, so a card's blocks start where the reader's do
from rulekit.book.tables import is_header
from rulekit.errors import InputError, Sources, did_you_mean, error
from rulekit.language import nodes as n

# "[E3]" or "[14.16 D]" inside a printed cell: a reference to another chart
_REF = re.compile(r"\[([^\[\]]+)\]")
# Print layout of long blocks (Block.chunks): a block of more rows than SHORT_ROWS is cut
# into runs side by side; a run has at most LONG_ROWS rows; PAGE_CHARS is about how many
# characters of 7.5pt table text fit across the printed width of A4 (and Letter).
SHORT_ROWS = 30
LONG_ROWS = 46
PAGE_CHARS = 110
# About how many lines of a chart a printed page holds (A4 or Letter, 6.5-7.5 pt): a card
# longer than that cannot be kept on one page and is printed across pages, between rows.
PAGE_LINES = 72


@define
class Segment:
    """A piece of a cell's text, linked to another card when it names that table.

    ``kind`` is ``label`` for the name of a record's field (printed small before its value)
    and ``break`` for the line break between the records of a list: a cell holding three
    boats' arrivals prints three lines, not one run of tuples."""

    text: str
    href: str | None = None
    kind: str | None = None


@define
class CellView:
    """One box of a chart: its words (in linked segments), provisional or not."""

    segments: list[Segment]
    provisional: bool = False
    note: int | None = None  # the footnote number giving the reason for a provisional value
    head: bool = False  # a key (row or column header), not a result

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.segments)


@define
class Block:
    """A printed block of the chart: a header row (maybe none) and rows of boxes.

    ``kind`` is ``grid`` (header + rows), ``strip`` (keys over values) or ``pairs``
    (row keys, then ``key: value`` boxes)."""

    kind: str
    header: list[CellView] | None
    rows: list[list[CellView]]

    @property
    def width(self) -> int:
        return max([len(self.header or [])] + [len(r) for r in self.rows])

    def chunks(self) -> list[list[list[CellView]]]:
        """The rows in even runs, printed side by side (each with the header again), so a
        long roster fits on one page: as many runs across as the page is wide for them,
        and more lines of runs only when a run would be longer than a page."""
        rows = self.rows
        if len(rows) <= SHORT_ROWS:
            return [rows]
        across = max(1, PAGE_CHARS // max(1, self.chars()))
        count = across * -(-len(rows) // (across * LONG_ROWS))
        count = min(count, -(-len(rows) // 8))  # runs of at least 8 rows
        size = -(-len(rows) // count)
        return [rows[i : i + size] for i in range(0, len(rows), size)]

    def lines(self) -> int:
        """About how many printed lines the block takes, its runs side by side (a row as
        long as several page widths wraps onto several lines)."""
        runs = self.chunks()
        across = max(1, PAGE_CHARS // max(1, self.chars())) if len(runs) > 1 else 1
        per_run = [sum(_row_lines(r) for r in run) for run in runs]
        return sum(max(per_run[i : i + across]) for i in range(0, len(per_run), across))

    def chars(self) -> int:
        """About how many characters wide the block is: its widest box in each column."""
        widths: dict[int, int] = {}
        for row in [self.header or [], *self.rows]:
            for i, c in enumerate(row):
                widths[i] = max(widths.get(i, 0), len(c.text) + 2)
        return sum(widths.values())


def _row_lines(row: list[CellView]) -> int:
    """The printed lines of a row: one, or more when its text is wider than the page."""
    return max(1, -(-sum(len(c.text) + 2 for c in row) // PAGE_CHARS))


@define
class ModLineView:
    value: str
    condition: str
    rule: str | None


@define
class ModBox:
    """A modifier list printed beside a chart."""

    name: str
    title: str | None
    rule: str | None
    how: str
    lines: list[ModLineView]
    clamp: str | None = None
    anchor: str = ""


@define
class Footnote:
    number: int
    text: str


@define
class Card:
    """A table as a chart card."""

    name: str
    anchor: str
    title: str
    rule: str | None
    roll: str | None
    dims: list[str]
    blocks: list[Block]
    modifiers: list[ModBox]
    notes: list[str]
    footnotes: list[Footnote] = field(factory=list)
    default: str | None = None
    provisional_cells: int = 0
    cells: int = 0

    @property
    def rows(self) -> int:
        return sum(len(b.rows) for b in self.blocks)

    @property
    def width(self) -> int:
        """Boxes across the widest block: wide grids are laid out sideways in print."""
        return max([b.width for b in self.blocks] + [0])

    @property
    def paged(self) -> bool:
        """Too long for one printed page (a roster of every submarine of a war): printed
        across pages, breaking between rows, each run of rows with its header."""
        return sum(b.lines() for b in self.blocks) > PAGE_LINES


@define
class Deck:
    """Every card of a rulebook, with what the page footer says."""

    name: str
    edition: str | None
    options: list[str]
    variants: list[str]
    cards: list[Card]
    provisional_reasons: int = 0

    @property
    def footer(self) -> str:
        parts = [self.name + (f", edition {self.edition}" if self.edition else "")]
        parts.append("options: " + (", ".join(self.options) if self.options else "none"))
        parts.append("variant: " + (" + ".join(self.variants) if self.variants else "none"))
        return "; ".join(parts)

    @property
    def index(self) -> list[Card]:
        """The cards by rule number, as a player looks a chart up."""
        return sorted(self.cards, key=lambda c: rule_key(c.rule))


def rule_key(rule: str | None) -> tuple[object, ...]:
    """Sort ``2.1`` < ``7.1`` < ``14.16 D`` < ``A1`` < ``E10`` < ``§...``: numbers as numbers."""
    if rule is None:
        return ((2, ""),)
    parts = re.split(r"(\d+)", rule)
    key: list[object] = [(1 if rule.startswith("§") else 0, "")]
    for part in parts:
        key.append((0, int(part)) if part.isdigit() else (1, part))
    return tuple(key)


class _CardBuilder:
    """Builds the card of one table; footnotes are numbered per card."""

    def __init__(self, checked: Checked, name: str, refs: dict[str, str]) -> None:
        self.checked = checked
        self.book = checked.book
        self.table = checked.tables[name]
        self.decl = self.table.decl
        self.refs = refs
        self.footnotes: list[Footnote] = []
        self.whole = self.decl.provenance is not None
        self.members = {m.name for e in self.book.enums.values() for m in e.members}

    # ---- cells ------------------------------------------------------------------------

    def note_for(self, span: n.Span) -> int:
        """The footnote for a provisional value: the table's reason, or where it is marked."""
        if self.decl.provenance is not None:
            text = f"Not printed in the rules: {self.decl.provenance.reason}"
        else:
            text = (
                "Not printed in the rules: a value supplied so the game runs "
                f"(marked ~ in the data, {_short(span.file)})"
            )
        for note in self.footnotes:
            if note.text == text:
                return note.number
        self.footnotes.append(Footnote(len(self.footnotes) + 1, text))
        return self.footnotes[-1].number

    def segments(self, text: str) -> list[Segment]:
        """Split printed words so that ``[E3]`` links to the card of rule E3."""
        out: list[Segment] = []
        at = 0
        for match in _REF.finditer(text):
            target = self.refs.get(match.group(1).strip())
            if target is None or target == self.decl.name:
                continue
            if match.start() > at:
                out.append(Segment(text[at : match.start()]))
            out.append(Segment(match.group(0), "#" + anchor_of(target)))
            at = match.end()
        if at < len(text) or not out:
            out.append(Segment(text[at:]))
        return out

    @property
    def anchor(self) -> str:
        return anchor_of(self.decl.name)

    def words(
        self, cell: n.Cell | None, held: n.TypeExpr | None = None
    ) -> tuple[list[Segment], bool]:
        """A cell's printed words and whether it holds a value the source does not print.

        ``held`` is the type the cell holds, where the card knows it (a table's result): a
        record prints as labelled fields, a list of records one record a line, an enum
        member in words (``task_force_only`` -> ``task force only``)."""
        if cell is None:
            return [Segment("")], False
        if isinstance(cell, n.CellText):
            # an enum member in words, also where the card does not know the type (a row's
            # key, ``all_miss`` on Gato Leader's Torpedo Dud table)
            if self.enum_of(held) is not None or cell.text in self.members:
                return [Segment(_spoken_name(cell.text))], False
            return self.segments(cell.text), False
        segs: list[Segment]
        if isinstance(cell, n.CellProvisional):
            segs, _ = self.words(cell.value, held)
            return segs, True
        if isinstance(cell, n.CellDerived):  # the publisher's value, read off an example
            return self.words(cell.value, held)
        record = self.record_of(held)
        if isinstance(cell, n.CellTuple) and record is not None:
            return self.record_words(cell, record)
        if isinstance(held, n.ListType) and not isinstance(cell, n.CellList):
            return self.words(cell, held.item)  # a list of one, written without brackets
        if (
            isinstance(cell, n.CellList)
            and isinstance(held, n.ListType)
            and self.record_of(held.item) is not None
        ):
            segs, marked = [], False
            for i, item in enumerate(cell.items):
                inner, mark = self.words(item, held.item)
                segs += ([Segment("\n", kind="break")] if i else []) + inner
                marked = marked or mark
            return segs, marked
        if isinstance(cell, (n.CellList, n.CellTuple)):
            segs = [Segment("(")] if isinstance(cell, n.CellTuple) else []
            marked = False
            for i, item in enumerate(cell.items):
                if i:
                    segs.append(Segment(", "))
                inner, mark = self.words(item)
                segs += inner
                marked = marked or mark
            if isinstance(cell, n.CellTuple):
                segs.append(Segment(")"))
            return segs, marked
        if isinstance(cell, n.CellRecord):
            segs = [Segment("{")]
            marked = False
            for i, (key, value) in enumerate(cell.pairs):
                inner, mark = self.words(value)
                segs += [Segment(", " if i else ""), Segment(f"{key}: "), *inner]
                marked = marked or mark
            return [*segs, Segment("}")], marked
        # a cell followed by an action: the printed result, then where to go next
        segs, marked = self.words(cell.value) if cell.value is not None else ([], False)
        return [*segs, Segment(" ⇒ "), *self.action(cell.call)], marked

    def record_of(self, held: n.TypeExpr | None) -> n.RecordDecl | None:
        if isinstance(held, n.UnionType):  # ``hits or none``: a Gato Leader card's attack
            found = [self.record_of(o) for o in held.options]
            return next((r for r in found if r is not None), None)
        if isinstance(held, n.TypeName):
            return self.book.records.get(held.name)
        return None

    def record_list(self, held: n.TypeExpr) -> bool:
        """Whether a box holds a list of records (several arrivals, several events)."""
        return isinstance(held, n.ListType) and self.record_of(held.item) is not None

    def enum_of(self, held: n.TypeExpr | None) -> n.EnumDecl | None:
        if isinstance(held, n.UnionType):  # ``war_event_kind or none``
            found = [self.enum_of(o) for o in held.options]
            return next((e for e in found if e is not None), None)
        if isinstance(held, n.TypeName):
            return self.book.enums.get(held.name)
        return None

    def record_words(self, cell: n.CellTuple, record: n.RecordDecl) -> tuple[list[Segment], bool]:
        """A record as a player reads it off a card: its first field as the name, then each
        other field labelled (``kind`` ``base active``, ``at`` ``Fremantle``); a field that is
        empty (``—``, ``none``) is left out, since the printed chart leaves that box blank."""
        segs: list[Segment] = []
        marked = False
        for i, (decl, item) in enumerate(zip(record.fields, cell.items, strict=False)):
            inner, mark = self.words(item, decl.type)
            marked = marked or mark
            text = "".join(s.text for s in inner).strip()
            if i and text in ("", "—", "-", "none"):
                continue
            if i:
                segs.append(Segment(" · " if segs else ""))
                segs.append(
                    Segment((decl.title or decl.name.replace("_", " ")) + " ", kind="label")
                )
            segs += inner
        return segs, marked

    def action(self, call: n.Call) -> list[Segment]:
        """A follow-up roll: linked to the chart it rolls on when there is one."""
        proc = self.book.procedures.get(call.func)
        target = call.func if call.func in self.book.tables else None
        if target is None and proc is not None and proc.ref is not None:
            target = self.refs.get(proc.ref.text) or self.refs.get(proc.ref.number)
        ref = proc.ref if proc is not None else None
        label = (proc.title if proc is not None and proc.title else _spoken_name(call.func)) + (
            f" [{ref.text}]" if ref is not None else ""
        )
        if target is not None and target != self.decl.name:
            return [Segment(label, "#" + anchor_of(target))]
        return [Segment(label)]

    def view(self, cell: n.Cell | None, head: bool = False) -> CellView:
        segs, marked = self.words(cell, None if head else self.decl.result)
        if head and isinstance(cell, n.CellText):
            segs = [Segment(open_range(cell.text))] if open_range(cell.text) != cell.text else segs
        marked = marked or (self.whole and not head and cell is not None)
        note = self.note_for(cell.span if cell is not None else self.decl.span) if marked else None
        return CellView(segs, marked, note, head)

    def items(self, line: n.TableLine, head: bool = False) -> list[CellView]:
        return [self.view(item.value, head) for item in line.items]

    # ---- layout -----------------------------------------------------------------------

    def blocks(self) -> list[Block]:
        decl = self.decl
        arity = len(decl.dims)
        blocks: list[Block] = []
        roll_dim = next((d for d in decl.dims if d.kind == "roll"), None)
        roll_dice = str(roll_dim.dice) if roll_dim is not None and roll_dim.dice else None
        if arity > 1 and any(is_header(line, list(decl.dims)) for line in decl.lines):
            for line in decl.lines:
                if is_header(line, list(decl.dims)):
                    heads = self.items(line, head=True)
                    if roll_dice and heads and heads[0].text == "roll":
                        heads[0] = CellView([Segment(roll_dice)], head=True)  # the dice, as printed
                    blocks.append(Block("grid", heads, []))
                elif blocks:
                    lead = arity - 1
                    row = [self.view(i.value, head=k < lead) for k, i in enumerate(line.items)]
                    blocks[-1].rows.append(row)
            return blocks
        header = self.list_header() if arity == 1 else None
        for line in decl.lines:
            keyed = any(item.key is not None for item in line.items)
            if keyed and arity == 1:  # key: value | key: value ... a strip of boxes
                keys = [self.view(i.key, head=True) for i in line.items]
                values = [self.view(i.value) for i in line.items]
                blocks.append(Block("strip", keys, [values]))
                continue
            if keyed and arity > 1 and self.record_list(decl.result):
                # boxes that hold lists (a month's arrivals: a dozen boats) read as one row
                # per box, keys first, instead of a grid of tall narrow columns
                lead = arity - 1
                keys = [self.view(i.value, head=True) for i in line.items[:lead]]
                if not blocks or blocks[-1].kind != "grid":
                    heads = [CellView([Segment(self.dim_head(d))], head=True) for d in decl.dims]
                    blocks.append(
                        Block("grid", [*heads, CellView([Segment("result")], head=True)], [])
                    )
                for item in line.items[lead:]:
                    row = [*keys, self.view(item.key, head=True), self.view(item.value)]
                    blocks[-1].rows.append(row)
                continue
            if keyed:  # row keys, then key: value items
                lead = arity - 1
                row = [self.view(i.value, head=True) for i in line.items[:lead]]
                for item in line.items[lead:]:
                    key, value = self.view(item.key, head=True), self.view(item.value)
                    pair = CellView(
                        [*key.segments, Segment(": "), *value.segments],
                        value.provisional,
                        value.note,
                    )
                    row.append(pair)
                if not blocks or blocks[-1].kind != "pairs":
                    blocks.append(Block("pairs", self.pairs_header(), []))
                last = blocks[-1].rows[-1] if blocks[-1].rows else None
                if last is not None and [c.text for c in last[:lead]] == [
                    c.text for c in row[:lead]
                ]:  # the same row keys again (one line per pair): one printed row
                    last += row[lead:]
                else:
                    blocks[-1].rows.append(row)
                continue
            row = [self.view(i.value, head=k == 0) for k, i in enumerate(line.items)]
            if not blocks or blocks[-1].kind != "grid":
                blocks.append(Block("grid", header, []))
            blocks[-1].rows.append(row)
        return blocks

    def pairs_header(self) -> list[CellView]:
        """Heads of rows of ``key: value`` boxes: the row keys' names, then what a box holds."""
        dims = self.decl.dims
        heads = [self.dim_head(d) for d in dims[:-1]]
        heads.append(f"{self.dim_head(dims[-1])}: result")
        return [CellView([Segment(h)], head=True) for h in heads]

    def dim_head(self, dim: n.Dim) -> str:
        if dim.kind == "roll" and dim.dice is not None:
            return str(dim.dice)
        return dim.name.replace("_", " ")

    def list_header(self) -> list[CellView]:
        """Column heads of a one-dimensional list: the key, then the result's fields."""
        first = self.dim_head(self.decl.dims[0])
        result = self.decl.result
        heads = [first]
        record = self.book.records.get(result.name) if isinstance(result, n.TypeName) else None
        widest = max((len(line.items) for line in self.decl.lines), default=2)
        if record is not None and widest > 2:
            heads += [f.title or f.name.replace("_", " ") for f in record.fields][: widest - 1]
        else:
            heads.append("result")
        return [CellView([Segment(h)], head=True) for h in heads]

    # ---- the card ---------------------------------------------------------------------

    def card(self, links: list[tuple[str, str]]) -> Card:
        decl = self.decl
        roll_dim = next((d for d in decl.dims if d.kind == "roll"), None)
        blocks = self.blocks()
        default = None
        if decl.default is not None:
            default = "".join(s.text for s in self.words(decl.default)[0])
        return Card(
            name=decl.name,
            anchor=self.anchor,
            title=decl.title or decl.name.replace("_", " ").title(),
            rule=decl.ref.text if decl.ref else None,
            roll=self.roll_text(roll_dim) if roll_dim is not None else None,
            dims=[self.dim_text(d) for d in decl.dims],
            blocks=blocks,
            modifiers=[self.mod_box(name, how) for name, how in links],
            notes=list(decl.notes),
            footnotes=self.footnotes,
            default=default,
            provisional_cells=self.table.provisional_cells,
            cells=self.table.cells,
        )

    def roll_text(self, dim: n.Dim) -> str:
        assert dim.dice is not None
        die = self.book.dice.get(dim.dice.die)
        faces = ""
        # which faces a single die shows matters (Silent War's d10 is 0-9, Gato Leader's 1-10)
        if die is not None and die.kind == "faces" and dim.dice.count == 1:
            faces = f" ({die.low}-{die.high})"
        text = f"Roll {dim.dice}{faces}"
        for mod in dim.mods:
            sign = "+" if mod.sign > 0 else "-"
            text += f" {sign} {self.added(mod.value)}"
        return text

    def added(self, value: n.Expr) -> str:
        """What a roll adds, in a chart's words: a modifier list by its title (the box
        beside the chart, "Roll 2d6 + Die Roll Modifiers"), anything else as _spoken says
        it, never the rulebook's code (``aircraft_drm()``)."""
        if isinstance(value, n.Call) and not value.args and value.func in self.book.modifiers:
            return self.book.modifiers[value.func].title or _spoken_name(value.func)
        return _spoken(value, self.book.sources)

    def dim_text(self, dim: n.Dim) -> str:
        if dim.kind == "roll":
            return f"roll {dim.dice}"
        if dim.kind == "threshold":
            return f"{dim.name} (the highest entry reached)"
        return dim.name

    def mod_box(self, name: str, how: str) -> ModBox:
        mods = self.book.modifiers[name]
        lines = []
        src = self.book.sources
        for line in mods.lines:
            value = ("+" if line.sign > 0 else "-") + _spoken(line.value, src)
            if line.label:  # the printed words say when (and "each ..." for a per line)
                cond = line.label
            else:  # no printed words: the condition as the rulebook writes it
                parts = []
                if line.per is not None:
                    parts.append("per " + source_text(src, line.per.span))
                if line.cond is not None:
                    parts.append("if " + source_text(src, line.cond.span))
                cond = ", ".join(parts) or "always"
            # a line under the list's own rule does not repeat it
            rule = line.ref.text if line.ref and line.ref != mods.ref else None
            lines.append(ModLineView(value, cond, rule))
        clamp = None
        if mods.clamp is not None:
            low, high = mods.clamp
            clamp = f"total limited to {'' if low is None else low}..{'' if high is None else high}"
        return ModBox(
            name=name,
            title=mods.title,
            rule=mods.ref.text if mods.ref else None,
            how=how,
            lines=lines,
            clamp=clamp,
            anchor=f"m-{name}",
        )


def _spoken_name(name: str) -> str:
    """An identifier as words: ``task_force_only`` -> ``task force only``."""
    return name.replace("_", " ")


def _spoken(expr: n.Expr, sources: Sources) -> str:
    """A modifier's value as a player reads it on a card: a number as printed, otherwise
    the quantity in words (``count(pack)`` -> ``the number of pack``, ``sub.tactical`` ->
    ``sub's tactical``), never the rulebook's code."""
    if isinstance(expr, n.Num):
        return source_text(sources, expr.span)
    if isinstance(expr, n.Name):
        return _spoken_name(expr.id)
    if isinstance(expr, n.Attr):
        return f"{_spoken(expr.obj, sources)}'s {_spoken_name(expr.name)}"
    if isinstance(expr, n.Call):
        args = [_spoken(a.value, sources) for a in expr.args]
        if expr.func in ("count", "len") and len(args) == 1:
            return f"the number of {args[0]}"
        what = _spoken_name(expr.func)
        return f"{what} ({', '.join(args)})" if args else what
    if isinstance(expr, n.BinOp) and expr.op in ("+", "-", "*"):
        word = {"+": "plus", "-": "minus", "*": "times"}[expr.op]
        return f"{_spoken(expr.left, sources)} {word} {_spoken(expr.right, sources)}"
    return source_text(sources, expr.span)


def anchor_of(table: str) -> str:
    return f"t-{table}"


def _short(path: str) -> str:
    parts = path.replace("\\", "/").split("/")
    return "/".join(parts[-2:])


_OPEN_BELOW = re.compile(r"\.\.\s*(-?\d+)")
_OPEN_ABOVE = re.compile(r"(-?\d+)\s*\.\.")


def open_range(key: str) -> str:
    """A key written as an open range, in the words a chart prints: ``..1`` is "1 or less",
    ``5..`` is "5 or more" (a year, "1942 or earlier"). Anything else is kept as written."""
    key = key.strip()
    for pattern, low, high in ((_OPEN_BELOW, "less", "earlier"), (_OPEN_ABOVE, "more", "later")):
        if (m := pattern.fullmatch(key)) is not None:
            number = int(m.group(1))
            return f"{number} or {high if 1000 <= number <= 9999 else low}"
    return key


def source_text(sources: Sources, span: n.Span) -> str:
    """The text of a node as written in its file (expressions keep the author's words)."""
    if span.line <= 0:
        return ""
    lines = []
    for number in range(span.line, span.end_line + 1):
        text = sources.line(span.file, number) or ""
        start = span.column - 1 if number == span.line else 0
        end = span.end_column - 1 if number == span.end_line else len(text)
        lines.append(text[start:end].strip())
    return " ".join(part for part in lines if part)


def _ref_index(checked: Checked) -> dict[str, str]:
    """Rule references to the table printed under them (the first one, as the index shows)."""
    refs: dict[str, str] = {}
    for name, table in checked.book.tables.items():
        if table.ref is not None:
            refs.setdefault(table.ref.text, name)
            refs.setdefault(table.ref.number, name)
    return refs


def select(checked: Checked, wanted: list[str]) -> list[str]:
    """The tables asked for by name or rule number (all of them when none is asked)."""
    tables = checked.book.tables
    if not wanted:
        return list(tables)
    chosen: list[str] = []
    for want in wanted:
        # a name or a whole rule reference first ("14.2" is the Counterattack Table, not
        # also "14.2 A3"); then every table under that rule number ("E1": all of [E1])
        hits = [
            name
            for name, decl in tables.items()
            if name == want or (decl.ref is not None and want == decl.ref.text)
        ] or [
            name
            for name, decl in tables.items()
            if decl.ref is not None and want == decl.ref.number
        ]
        if not hits:
            candidates = list(tables) + [d.ref.text for d in tables.values() if d.ref]
            raise InputError(
                [
                    error(
                        f"no table named or numbered '{want}'",
                        where="--table",
                        hint=did_you_mean(want, candidates),
                    )
                ]
            )
        chosen += [h for h in hits if h not in chosen]
    return chosen


def build_deck(checked: Checked, wanted: list[str] | None = None) -> Deck:
    """The cards of the tables asked for, each with its modifier boxes and footnotes."""
    book = checked.book
    links = modifier_links(book)
    refs = _ref_index(checked)
    cards = []
    for name in select(checked, wanted or []):
        pairs = [(link.modifiers, link.how) for link in links[name]]
        cards.append(_CardBuilder(checked, name, refs).card(pairs))
    return Deck(
        name=book.name,
        edition=book.edition,
        options=list(book.options_on),
        variants=list(book.variants),
        cards=cards,
    )
