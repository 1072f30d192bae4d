"""Tables: reading a chart's lines against its dimensions and result type, and looking up.

A table's lines keep the printed wording. Here each key is read as the dimension expects
(a die range such as ``2-4`` or ``..1``, a war period, a ships-sunk threshold) and each cell
as the result type expects (a list of areas, a number or ``X``, a record of three columns).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from attrs import define, field, frozen

from rulekit.book import types as t
from rulekit.book.coerce import CoerceError, Vocabulary, read_odds, read_range
from rulekit.engine.dice import Die
from rulekit.engine.values import is_number, to_json, unwrap
from rulekit.errors import Diagnostic, did_you_mean, error, warning
from rulekit.language import nodes as n


@frozen
class Key:
    """One key of a dimension as printed, and what it matches."""

    printed: str
    kind: str  # "exact", "range" or "threshold"
    value: Any = None
    # a threshold's low end may be a fraction (odds of 1:2 are 1/2)
    low: int | Fraction | None = None
    high: int | None = None
    span: n.Span = field(default=n.NO_SPAN, eq=False)

    def matches(self, value: Any) -> bool:
        v = unwrap(value)
        if self.kind == "range":
            if not isinstance(v, int) or isinstance(v, bool):
                return False
            return (self.low is None or v >= self.low) and (self.high is None or v <= self.high)
        return bool(v == self.value)


@frozen
class Cell:
    """A looked-up value: as read, as printed, its provenance, and a follow-up action."""

    value: Any
    printed: Any
    provisional: bool = False
    action: n.Call | None = None
    span: n.Span = field(default=n.NO_SPAN, eq=False)


@define
class Node:
    """The keys of one dimension, each leading to the next dimension or to a cell."""

    dim: int
    entries: list[tuple[Key, Node | Cell]] = field(factory=list)
    _exact: dict[Any, tuple[Key, Node | Cell]] | None = field(default=None, init=False)
    # What an int found among ranges or thresholds, found once (a patch calls forget()).
    _ints: dict[tuple[int, bool], tuple[Key, Node | Cell] | None] = field(factory=dict, init=False)

    def forget(self) -> None:
        """Drop what look-ups remembered: the entries have changed (a variant's patch)."""
        self._exact = None
        self._ints.clear()

    def find(self, value: Any, threshold: bool) -> tuple[Key, Node | Cell] | None:
        v = unwrap(value)
        if type(v) is int:
            ints = self._ints
            key = (v, threshold)
            if key in ints:
                return ints[key]
            hit = ints[key] = self._find(v, threshold)
            return hit
        return self._find(v, threshold)

    def _find(self, v: Any, threshold: bool) -> tuple[Key, Node | Cell] | None:
        if not threshold and self.entries and self.entries[0][0].kind == "exact":
            if self._exact is None:  # built on first use: exact keys by value
                self._exact = {}
                for key, child in self.entries:
                    self._exact.setdefault(key.value, (key, child))
            try:
                return self._exact.get(v)
            except TypeError:  # an unhashable value matches no key
                return None
        if threshold:
            best: tuple[Key, Node | Cell] | None = None
            for key, child in self.entries:
                # a fraction reaches a threshold as a whole number does (odds of 8 1/2
                # to 4 are the 2:1 column)
                reached = is_number(v) and key.low is not None and key.low <= v
                if reached and (best is None or (best[0].low or 0) < (key.low or 0)):
                    best = (key, child)
            return best
        for key, child in self.entries:
            if key.matches(v):
                return key, child
        return None


@frozen
class TableDim:
    """A dimension with its resolved key type and, for a roll, its die."""

    name: str
    kind: str
    type: t.Type
    decl: n.Dim
    die: Die | None = None


class LookupMiss(Exception):
    """No key of a dimension matches the value given."""

    def __init__(self, dim: TableDim, value: Any, keys: list[str]) -> None:
        super().__init__(dim.name)
        self.dim = dim
        self.value = value
        self.keys = keys


@define
class CompiledTable:
    """A table ready for look-ups."""

    decl: n.TableDecl
    dims: list[TableDim]
    root: Node
    cells: int = 0
    provisional_cells: int = 0
    default: Cell | None = None
    # Search trees of a graph table by start node (rulekit.book.graph): tables never change.
    trees: dict[Any, dict[Any, Any]] = field(factory=dict, eq=False, repr=False)

    @property
    def name(self) -> str:
        return self.decl.name

    def recount(self) -> None:
        """Count the cells and provisional cells again (after a variant set some)."""
        cells = [c for _, c in self.items()]
        self.cells = len(cells)
        self.provisional_cells = sum(c.provisional for c in cells)

    def items(self) -> list[tuple[tuple[Key, ...], Cell]]:
        """Every cell with the keys leading to it, in table order."""
        out: list[tuple[tuple[Key, ...], Cell]] = []

        def walk(node: Node, keys: tuple[Key, ...]) -> None:
            for key, child in node.entries:
                if isinstance(child, Node):
                    walk(child, (*keys, key))
                else:
                    out.append(((*keys, key), child))

        walk(self.root, ())
        return out

    @property
    def rule(self) -> str | None:
        return self.decl.ref.text if self.decl.ref else None

    def lookup(self, values: list[Any]) -> tuple[Cell, list[Key]]:
        node: Node | Cell = self.root
        path: list[Key] = []
        for dim, value in zip(self.dims, values, strict=True):
            assert isinstance(node, Node)
            hit = node.find(value, dim.kind == "threshold")
            if hit is None:
                if self.default is not None and dim.kind != "roll":
                    return self.default, path  # a blank box of the chart
                raise LookupMiss(dim, value, [k.printed for k, _ in node.entries])
            path.append(hit[0])
            node = hit[1]
        assert isinstance(node, Cell)
        return node, path

    def keys(self, dim: int) -> list[str]:
        """The printed keys of a dimension, in the order they first appear."""
        seen: dict[str, None] = {}

        def walk(node: Node) -> None:
            for key, child in node.entries:
                if node.dim == dim:
                    seen.setdefault(key.printed, None)
                elif isinstance(child, Node):
                    walk(child)

        walk(self.root)
        return list(seen)

    def iter_cells(self) -> Iterator[tuple[list[Key], Cell]]:
        def walk(node: Node, path: list[Key]) -> Iterator[tuple[list[Key], Cell]]:
            for key, child in node.entries:
                if isinstance(child, Node):
                    yield from walk(child, [*path, key])
                else:
                    yield [*path, key], child

        yield from walk(self.root, [])


def _ident(key: Key) -> Any:
    """What ``_same`` compares, as a dictionary key (None when it cannot be hashed)."""
    if key.kind != "exact":
        return (key.kind, key.low, key.high)
    try:
        hash(key.value)
    except TypeError:
        return None
    return ("exact", key.value)


def _same(a: Key, b: Key) -> bool:
    """Two keys name the same entry (an alias and its member are the same key)."""
    if a.kind != b.kind:
        return False
    if a.kind == "exact":
        return bool(a.value == b.value)
    return (a.low, a.high) == (b.low, b.high)


# ---- reading lines ---------------------------------------------------------------


class _Problem(Exception):
    def __init__(self, diag: Diagnostic) -> None:
        super().__init__(diag.message)
        self.diag = diag


def _text(cell: n.Cell | None) -> str | None:
    return cell.text if isinstance(cell, n.CellText) else None


def is_header(line: n.TableLine, dims: list[n.Dim]) -> bool:
    """A header line starts with an empty cell or one naming a dimension (``roll | 0 | 1``)."""
    first = line.items[0]
    if first.key is None and first.value is None:
        return True
    return first.key is None and _text(first.value) in {d.name for d in dims}


class TableReader:
    """Reads one table declaration against the rulebook's vocabulary."""

    def __init__(self, decl: n.TableDecl, dims: list[TableDim], result: t.Type, vocab: Vocabulary):
        self.decl = decl
        self.dims = dims
        self.result = result
        self.vocab = vocab
        self.diags: list[Diagnostic] = []
        # by node: (entries indexed, key identity -> entry, walk instead, the node kept alive)
        self._index: dict[int, tuple[int, dict[Any, Node | Cell], bool, Node]] = {}
        self.cells = 0
        self.provisional = 0
        self._dim_decls = [d.decl for d in dims]

    def fail(self, message: str, span: n.Span, hint: str | None = None) -> _Problem:
        return _Problem(error(message, span, hint=hint))

    def read(self) -> CompiledTable:
        root = Node(0)
        for keys, item in self._layout():
            try:
                self._insert(root, keys, item)
            except _Problem as p:
                self.diags.append(p.diag)
        table = CompiledTable(self.decl, self.dims, root, self.cells, self.provisional)
        if self.decl.default is not None:
            try:
                table.default = self.cell(self.decl.default, t.union(self.result, t.NONE))
            except _Problem as p:
                self.diags.append(p.diag)
        return table

    # A table body is a list of (key cells, value item) pairs, whatever the layout.
    def _layout(self) -> Iterator[tuple[list[n.Cell], Any]]:
        arity = len(self.dims)
        lines = self.decl.lines
        if arity == 1:
            for line in lines:
                try:
                    yield from self._line_1d(line)
                except _Problem as p:
                    self.diags.append(p.diag)
            return
        if any(is_header(line, self._dim_decls) for line in lines):
            yield from self._grid(lines)
        else:
            for line in lines:
                try:
                    yield from self._ragged(line)
                except _Problem as p:
                    self.diags.append(p.diag)

    def _line_1d(self, line: n.TableLine) -> Iterator[tuple[list[n.Cell], Any]]:
        keyed = [i for i in line.items if i.key is not None]
        if keyed and len(keyed) == len(line.items):
            for item in line.items:
                assert item.key is not None
                yield [item.key], item.value
            return
        if keyed:
            raise self.fail(
                "this line mixes 'key: value' items with plain cells",
                line.span,
                hint="write 'key | value' or 'key: value | key: value'",
            )
        first, rest = line.items[0], line.items[1:]
        if first.value is None:
            raise self.fail("this line has no key", line.span)
        if not rest:
            raise self.fail(
                f"'{_text(first.value) or 'this key'}' has no value",
                line.span,
                hint="write 'key | value'",
            )
        if len(rest) == 1:
            yield [first.value], rest[0].value
        else:
            yield [first.value], [i.value for i in rest]

    def _grid(self, lines: tuple[n.TableLine, ...]) -> Iterator[tuple[list[n.Cell], Any]]:
        """Rows give one key per leading dimension; the header gives the last one's keys."""
        lead = len(self.dims) - 1
        columns: list[n.Cell | None] | None = None
        for line in lines:
            if is_header(line, self._dim_decls):
                columns = [i.value for i in line.items[lead:]]
                continue
            if columns is None:
                self.diags.append(error("a row before the header line", line.span))
                continue
            keys = [i.value for i in line.items[:lead] if i.value is not None]
            cells = line.items[lead:]
            if len(keys) < lead:
                self.diags.append(error(f"this row needs {lead} key(s) first", line.span))
                continue
            if len(cells) != len(columns):
                self.diags.append(
                    error(
                        f"this row has {len(cells)} cells "
                        f"but the header has {len(columns)} columns",
                        line.span,
                    )
                )
                continue
            for col, item in zip(columns, cells, strict=True):
                if col is None:
                    self.diags.append(error("a header column has no key", line.span))
                    break
                if item.key is not None:
                    self.diags.append(error("'key: value' inside a grid row", item.span))
                    continue
                if item.value is None:
                    continue  # a blank cell: no entry
                yield [*keys, col], item.value

    def _ragged(self, line: n.TableLine) -> Iterator[tuple[list[n.Cell], Any]]:
        """Rows give one key per leading dimension, then ``key: value`` for the last."""
        lead = len(self.dims) - 1
        keys, rest = line.items[:lead], line.items[lead:]
        if len(keys) < lead or any(k.value is None or k.key is not None for k in keys):
            example = " | ".join(d.name.upper() for d in self.dims[:-1])
            raise self.fail(
                f"each line starts with its {lead} row key(s)",
                line.span,
                hint=f"e.g. '{example} | {self.dims[-1].name}: value | ...', or add a header line",
            )
        for item in rest:
            if item.key is None:
                raise self.fail(
                    "expected 'key: value' after the row key(s)",
                    item.span,
                    hint="or start the table with a header line naming the columns",
                )
            row: list[n.Cell] = [k.value for k in keys if k.value is not None]
            yield [*row, item.key], item.value

    # ---- keys and cells -----------------------------------------------------------

    def _key(self, dim: TableDim, cell: n.Cell) -> Key:
        if not isinstance(cell, n.CellText):
            raise self.fail("a key is a single value", cell.span)
        text = cell.text
        try:
            if dim.kind in ("roll",) or (dim.kind == "input" and t.is_numeric(dim.type)):
                rng = read_range(text)
                if rng is None:
                    printed_odds = ":" in text and read_odds(text) is not None
                    raise CoerceError(
                        f"'{text}' is not a die result or range",
                        f"odds are thresholds: declare the dimension 'at_least {dim.name}: "
                        f"number'; a key and its value are written '{text.replace(':', ': ')}'"
                        if printed_odds
                        else "write e.g. 5, 2-4, 1 or less, 5 or more, ..1, 5..",
                    )
                return Key(text, "range", None, rng.low, rng.high, span=cell.span)
            if dim.kind == "threshold":
                # "the highest entry the value equals or exceeds": any number, 1/2 too, and
                # odds as printed (3:1 is 3, 1-2 is 1/2)
                odds = read_odds(text)
                value = odds if odds is not None else self.vocab.read(text, t.NUMBER)
                return Key(text, "threshold", value, value, None, span=cell.span)
            value = self.vocab.read(text, dim.type, quoted=cell.quoted)
            return Key(text, "exact", value, span=cell.span)
        except CoerceError as exc:
            raise self.fail(
                f"{exc.message} (dimension '{dim.name}')", cell.span, exc.hint
            ) from None

    def cell(self, item: Any, typ: t.Type, provisional: bool = False) -> Cell:
        if isinstance(item, list):  # several cells of a row: a record, column by column
            # an empty cell (None) has no span: the row's first written cell, or the table
            where = next((c.span for c in item if c is not None), self.decl.span)
            record = self._record_type(typ, where)
            try:
                value = self._record(record, [(None, c) for c in item])
            except CoerceError as exc:  # too many or too few columns, an empty one: the row's
                raise self.fail(exc.message, where, exc.hint) from None
            marked = provisional or any(self._has_mark(c) for c in item)
            return Cell(value, to_json(value), marked, span=where)
        if isinstance(item, n.CellProvisional):
            return self.cell(item.value, typ, True)
        if isinstance(item, n.CellDerived):
            return self.cell(item.value, typ, provisional)
        if isinstance(item, n.CellAction):
            if item.value is None:
                return Cell(None, None, provisional, item.call, span=item.span)
            inner = self.cell(item.value, typ, provisional)
            return Cell(inner.value, inner.printed, inner.provisional, item.call, span=item.span)
        value = self._value(item, typ)
        marked = provisional or self._has_mark(item)
        return Cell(value, to_json(value), marked, span=item.span)

    def _has_mark(self, item: n.Cell) -> bool:
        if isinstance(item, n.CellProvisional):
            return True
        if isinstance(item, n.CellDerived):
            return self._has_mark(item.value)
        if isinstance(item, (n.CellList, n.CellTuple)):
            return any(self._has_mark(i) for i in item.items)
        if isinstance(item, n.CellRecord):
            return any(self._has_mark(v) for _, v in item.pairs)
        return False

    def _value(self, item: n.Cell | None, typ: t.Type) -> Any:
        if item is None:  # an empty column of a record's row: it has no span, the row has
            raise CoerceError("a column of this row is empty", "write — for none")
        try:
            if isinstance(item, n.CellProvisional | n.CellDerived):
                return self._value(item.value, typ)
            if isinstance(item, n.CellText):
                return self.vocab.read(item.text, typ, quoted=item.quoted)
            if isinstance(item, n.CellList):
                list_t = next((o for o in t.options(typ) if isinstance(o, t.ListT)), None)
                if list_t is None:
                    raise CoerceError(
                        f"several values in one cell, but this table gives a {typ}",
                        "quote the text if the comma is part of it",
                    )
                return tuple(self._value(i, list_t.item) for i in item.items)
            listed = t.as_list(typ)
            if isinstance(item, (n.CellTuple, n.CellRecord)) and listed is not None:
                return (self._value(item, listed.item),)  # one record in a list cell
            if isinstance(item, n.CellTuple):
                record = self._record_type(typ, item.span)
                return self._record(record, [(None, c) for c in item.items])
            if isinstance(item, n.CellRecord):
                record = self._record_type(typ, item.span)
                return self._record(record, list(item.pairs))
        except CoerceError as exc:
            raise self.fail(exc.message, item.span, exc.hint) from None
        raise self.fail("this cell cannot be read", item.span)

    def _record_type(self, typ: t.Type, span: n.Span) -> str:
        for o in t.options(typ):
            if isinstance(o, t.RecordT):
                return o.name
        raise self.fail(
            f"several columns, but this table gives a {typ}",
            span,
            hint="declare a record type for the columns",
        )

    def _record(self, name: str, items: list[tuple[str | None, n.Cell]]) -> Any:
        return self.vocab.record(name, items, self._value)

    def _insert(self, root: Node, key_cells: list[n.Cell], item: Any) -> None:
        keys = [self._key(dim, c) for dim, c in zip(self.dims, key_cells, strict=True)]
        cell = self.cell(item, self.result, self.decl.provenance is not None)
        node = root
        for depth, key in enumerate(keys):
            last = depth == len(keys) - 1
            existing = self._find(node, key)
            if last:
                if existing is not None:
                    raise self.fail(
                        f"'{key.printed}' appears twice" + self._where(keys[:-1]), key.span
                    )
                self._append(node, key, cell)
                self.cells += 1
                self.provisional += cell.provisional
            else:
                if existing is None:
                    existing = Node(depth + 1)
                    self._append(node, key, existing)
                assert isinstance(existing, Node)
                node = existing

    def _find(self, node: Node, key: Key) -> Node | Cell | None:
        """The entry of ``node`` under the same key (``_same``), found by its identity in an
        index of the node's entries, not by a walk over them: a table of 100,000 rows is
        read in linear time. The index is rebuilt when the entries changed behind it."""
        ident = _ident(key)
        index = self._index.get(id(node))
        if index is None or index[0] != len(node.entries):
            table: dict[Any, Node | Cell] = {}
            walk = False  # a key that cannot be hashed: every look-up walks, as before
            for k, c in node.entries:
                found = _ident(k)
                walk = walk or found is None
                if found is not None:
                    table.setdefault(found, c)
            index = self._index[id(node)] = (len(node.entries), table, walk, node)
        if ident is None or index[2]:
            return next((c for k, c in node.entries if _same(k, key)), None)
        return index[1].get(ident)

    def _append(self, node: Node, key: Key, child: Node | Cell) -> None:
        node.entries.append((key, child))
        index = self._index.get(id(node))
        if index is not None and index[0] == len(node.entries) - 1:
            ident = _ident(key)
            if ident is not None:
                index[1].setdefault(ident, child)
            walk = index[2] or ident is None
            self._index[id(node)] = (len(node.entries), index[1], walk, node)

    def _where(self, keys: list[Key]) -> str:
        return f" in row '{keys[0].printed}'" if keys else ""

    # ---- changes from variants and options ----------------------------------------------

    def patch(self, table: CompiledTable, change: n.SetCells) -> None:
        """Set the cells a ``set cell`` / ``set row`` change names, keeping the keys."""
        try:
            self._patch(table, change)
        except _Problem as p:
            self.diags.append(p.diag)

    def _patch(self, table: CompiledTable, change: n.SetCells) -> None:
        want = len(self.dims) - (1 if change.row else 0)
        if len(change.keys) != want or want == 0:
            what = "row" if change.row else "cell"
            raise self.fail(
                f"a {what} of table {table.name} is named by {want or 'no'} key(s), "
                f"got {len(change.keys)}",
                change.span,
                hint=f"its dimensions are: {', '.join(d.name for d in self.dims)}",
            )
        node: Node = table.root
        for depth, text in enumerate(change.keys):
            entry = self._entry(node, depth, text, change.span)
            if depth == len(self.dims) - 1:  # a single cell
                node.entries[entry] = (node.entries[entry][0], self._new_cell(change.cells[0]))
                node.forget()
                return
            child = node.entries[entry][1]
            assert isinstance(child, Node)
            node = child
        if len(change.cells) != len(node.entries):
            columns = ", ".join(k.printed for k, _ in node.entries)
            raise self.fail(
                f"row has {len(node.entries)} cell(s) ({columns}); the change gives "
                f"{len(change.cells)}",
                change.span,
            )
        node.entries[:] = [
            (key, self._new_cell(item))
            for (key, _), item in zip(node.entries, change.cells, strict=True)
        ]
        node.forget()

    def _entry(self, node: Node, depth: int, text: str, span: n.Span) -> int:
        for i, (key, _) in enumerate(node.entries):
            if key.printed == text:
                return i
        try:
            wanted = self._key(self.dims[depth], n.CellText(text, span=span))
        except _Problem:
            wanted = None
        for i, (key, _) in enumerate(node.entries):
            if wanted is not None and _same(key, wanted):
                return i
        keys = [k.printed for k, _ in node.entries]
        raise self.fail(
            f"table {self.decl.name} has no {self.dims[depth].name} '{text}'",
            span,
            hint=did_you_mean(text, keys) or f"its keys are: {', '.join(keys)}",
        )

    def _new_cell(self, item: n.TableItem) -> Cell:
        if item.value is None:
            raise self.fail("an empty cell", item.span)
        return self.cell(item.value, self.result)


# ---- coverage -------------------------------------------------------------------


def _runs(values: list[int]) -> str:
    """[1, 2, 3, 7] -> '1-3, 7'."""
    runs: list[list[int]] = []
    for v in sorted(values):
        if runs and v == runs[-1][-1] + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _rows_by_result(keys: list[Key], values: list[int]) -> Iterator[tuple[int, list[int]]]:
    """Each of the sorted ``values`` with the indexes of the keys matching it, in key order:
    range keys by a sweep over their low ends (a heap of the open ones by their high ends),
    any other key as itself."""
    ranges = sorted(
        (k.low if k.low is not None else values[0], i)
        for i, k in enumerate(keys)
        if k.kind == "range"
    )
    others = [i for i, k in enumerate(keys) if k.kind != "range"]
    open_rows: list[tuple[float, int]] = []
    at = 0
    for v in values:
        while at < len(ranges) and ranges[at][0] <= v:
            i = ranges[at][1]
            high = keys[i].high
            heapq.heappush(open_rows, (high if high is not None else math.inf, i))
            at += 1
        while open_rows and open_rows[0][0] < v:
            heapq.heappop(open_rows)
        hits = [i for _, i in open_rows] + [i for i in others if keys[i].matches(v)]
        yield v, sorted(hits)


def coverage(
    table: CompiledTable,
    naturals: dict[int, set[int] | None],
    given_rolls: Callable[[], bool] = lambda: True,
) -> list[Diagnostic]:
    """Gaps and overlaps of every roll dimension against the rolls its dice can make; when
    ``given_rolls()`` is False (no caller passes the table a roll), rows no roll can reach.
    It is asked only for a row no roll reaches: it walks the whole rulebook."""
    diags: list[Diagnostic] = []

    def visit(node: Node, where: str) -> None:
        dim = table.dims[node.dim]
        values = naturals.get(node.dim)
        if dim.kind == "roll" and values:
            keys = [k for k, _ in node.entries]
            # One pass over the dice's results, in order, with the rows open at each (a sweep:
            # 10,000 rows of a d10000 cost 10,000 steps, not 10,000 x 10,000 matches)
            gaps: list[int] = []
            shared: dict[tuple[int, int], list[int]] = {}
            reached: set[int] = set()
            for v, hits in _rows_by_result(keys, sorted(values)):
                reached.update(hits)
                if not hits:
                    gaps.append(v)
                for j in hits[1:]:
                    shared.setdefault((hits[0], j), []).append(v)
            unreached = [
                key
                for i, key in enumerate(keys)
                if i not in reached and key.low is not None and key.high is not None
            ]
            # with no modifier and no roll given, a table reads only what the dice show
            lowest, highest = min(values), max(values)
            beyond = [
                key
                for i, key in enumerate(keys)
                if i in reached
                and (
                    (key.low is not None and key.low < lowest)
                    or (key.high is not None and key.high > highest)
                )
            ]
            if beyond and not dim.decl.mods and not given_rolls():
                for key in beyond:  # part of the row is past the faces: a misprint or wrong die
                    diags.append(
                        error(
                            f"row '{key.printed}' goes beyond the rolls of {dim.decl.dice}"
                            f"{where}: it rolls {_runs(sorted(values))}",
                            key.span,
                            hint="a modified roll may go beyond the dice; this one is not "
                            "modified, and no call gives the table a roll",
                        )
                    )
            if unreached and not dim.decl.mods and not given_rolls():
                for key in unreached:
                    diags.append(
                        error(
                            f"no roll of {dim.decl.dice} reads row '{key.printed}'{where}: "
                            f"it rolls {_runs(sorted(values))}",
                            key.span,
                            hint="a row no roll can reach is a misprint or a wrong die",
                        )
                    )
            if gaps:
                diags.append(
                    error(
                        f"no row for roll {_runs(gaps)} of {dim.decl.dice}{where}",
                        table.decl.span,
                        hint="every result the dice can roll needs a row",
                    )
                )
            for (i, j), both in sorted(shared.items()):
                a, b = keys[i], keys[j]
                diags.append(
                    error(
                        f"rows '{a.printed}' and '{b.printed}' both cover roll "
                        f"{_runs(both)}{where}",
                        b.span,
                    )
                )
            if dim.decl.mods and keys:
                lows = [k.low for k in keys]
                highs = [k.high for k in keys]
                if None not in lows and None not in highs:
                    diags.append(
                        warning(
                            f"the roll is modified but no row is open-ended{where}",
                            table.decl.span,
                            hint=f"write e.g. '..{min(values)}' or '{max(values)}..' "
                            "for modified rolls beyond the dice",
                        )
                    )
        for key, child in node.entries:
            if isinstance(child, Node):
                visit(child, f" (row '{key.printed}')")

    visit(table.root, "")
    return diags
