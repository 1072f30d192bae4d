"""What changed between two rulebooks: in the rules as written, and at the table.

Structural: settings, options, vocabulary, constants, tables (cell by cell), modifier lines,
procedures and the phases of the sequence of play, each with its rule number. Nodes compare
without their source positions, so formatting and comments are not changes.

Behavioural (see :mod:`rulekit.analysis.behaviour`): the outcome distributions before and after of
what changed and can be run without a situation.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from attrs import define, field

from rulekit.book.checker import Checked
from rulekit.book.tables import CompiledTable
from rulekit.language import nodes as n


@define
class CellChange:
    """One table cell before and after (None: not there)."""

    keys: tuple[str, ...]
    old: str | None
    new: str | None


@define
class Change:
    """One difference between the two rulebooks."""

    kind: str  # "setting", "option", "const", "table", "modifiers", "procedure", ...
    name: str
    what: str  # "added", "removed" or "changed"
    rule: str | None = None
    details: list[str] = field(factory=list)
    cells: list[CellChange] = field(factory=list)

    @property
    def title(self) -> str:
        rule = f" [{self.rule}]" if self.rule else ""
        return f"{self.kind} {self.name}{rule}: {self.what}"


# ---- showing declarations as written ----------------------------------------------------


def _text(book: Any, span: n.Span | None) -> str:
    """An expression or one-line declaration as it is written in its file."""
    if span is None or span == n.NO_SPAN:
        return ""
    line = book.sources.line(span.file, span.line) or ""
    if span.end_line == span.line:
        return line[span.column - 1 : span.end_column - 1]
    return line[span.column - 1 :]


def _block(book: Any, span: n.Span) -> list[str]:
    """A block declaration's lines: its first line and everything indented below it."""
    first = book.sources.line(span.file, span.line)
    if first is None:
        return []
    indent = len(first) - len(first.lstrip())
    out = [first.rstrip().removeprefix("replace ")]  # as declared, also when replaced
    number = span.line + 1
    while (line := book.sources.line(span.file, number)) is not None:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        out.append(line.rstrip())
        number += 1
    while out and not out[-1].strip():
        out.pop()
    return out


def _ref(decl: Any) -> str | None:
    ref = getattr(decl, "ref", None)
    return ref.text if ref is not None else None


def _same(a: Any, b: Any) -> bool:
    """Equal in meaning: nodes compare without positions; titles are prose, not rules."""
    return bool(a == b)


# ---- the structural comparison -----------------------------------------------------------


def compare(old: Checked, new: Checked) -> list[Change]:
    """Every structural change from ``old`` to ``new``."""
    a, b = old.book, new.book
    changes: list[Change] = []
    changes += _settings(a, b)
    changes += _options(a, b)
    for kind, attr in (
        ("enum", "enums"),
        ("marker", "markers"),
        ("track", "tracks"),
        ("state", "states"),
        ("kind", "kinds"),
        ("record", "records"),
    ):
        changes += _decls(kind, getattr(a, attr), getattr(b, attr), a, b)
    changes += [c for c in _consts(a, b) if c.name not in switched_consts(a, b)]
    changes += _tables(old, new)
    changes += _modifiers(a, b)
    changes += _decls("procedure", a.procedures, b.procedures, a, b, block=True)
    changes += _sequences(a, b)
    return changes


def _settings(a: Any, b: Any) -> list[Change]:
    out: list[Change] = []
    for name in _union(a.dice, b.dice):
        old, new = a.dice.get(name), b.dice.get(name)
        if not _same(old, new):
            out.append(
                Change(
                    "setting",
                    f"dice {name}",
                    _what(old, new),
                    _ref(new or old),
                    [f"- {_line(a, old)}" if old else "", f"+ {_line(b, new)}" if new else ""],
                )
            )
    ra, rb = a.rounding, b.rounding
    mode_a = ra.mode if ra else "nearest"
    mode_b = rb.mode if rb else "nearest"
    if mode_a != mode_b or (ra and ra.provenance) != (rb and rb.provenance):
        detail = f"{mode_a} -> {mode_b}"
        if rb is not None and rb.provenance is not None:
            detail += f" (provisional: {rb.provenance.reason})"
        out.append(Change("setting", "rounding", "changed", _ref(rb or ra), [detail]))
    return out


def _options(a: Any, b: Any) -> list[Change]:
    out: list[Change] = []
    for name in _union(a.options, b.options):
        old, new = a.options.get(name), b.options.get(name)
        if not _same(old, new):
            out.append(Change("option", name, _what(old, new), _ref(new or old)))
        on_a, on_b = name in a.options_on, name in b.options_on
        if old is not None and new is not None and on_a != on_b:
            state = {True: "on", False: "off"}
            out.append(
                Change(
                    "option",
                    name,
                    "changed",
                    _ref(new),
                    [
                        f"{state[on_a]} -> {state[on_b]}"
                        + (f': "{new.title}"' if new.title else ""),
                        *(
                            f"  {_line(b, c.decl) if isinstance(c, n.SetSetting) else _line(b, c)}"
                            for c in new.changes
                        ),
                    ],
                )
            )
    return out


def switched_consts(a: Any, b: Any) -> set[str]:
    """Constants set by an option switched on in only one of the two: that is the change."""
    names: set[str] = set()
    for name in set(a.options_on) ^ set(b.options_on):
        option = b.options.get(name) or a.options.get(name)
        for change in option.changes if option is not None else ():
            if isinstance(change, n.SetSetting) and isinstance(change.decl, n.ConstDecl):
                names.add(change.decl.name)
    return names


def _consts(a: Any, b: Any) -> list[Change]:
    out: list[Change] = []
    for name in _union(a.consts, b.consts):
        old, new = a.consts.get(name), b.consts.get(name)
        if old is not None and new is not None:
            same_value = _same(old.value, new.value) and _same(old.type, new.type)
            if same_value and old.provenance == new.provenance:
                continue
            detail = f"{_text(a, old.value.span)} -> {_text(b, new.value.span)}"
            if new.provenance is not None:
                detail += f" (provisional: {new.provenance.reason})"
            out.append(Change("const", name, "changed", _ref(new), [detail]))
        elif old is not None or new is not None:
            decl = new or old
            book = b if new is not None else a
            out.append(Change("const", name, _what(old, new), _ref(decl), [_line(book, decl)]))
    return out


def _decls(
    kind: str, olds: dict[str, Any], news: dict[str, Any], a: Any, b: Any, block: bool = False
) -> list[Change]:
    out: list[Change] = []
    for name in _union(olds, news):
        old, new = olds.get(name), news.get(name)
        if _same(old, new):
            continue
        change = Change(kind, name, _what(old, new), _ref(new or old))
        if block:
            before = _block(a, old.span) if old is not None else []
            after = _block(b, new.span) if new is not None else []
            change.details = [
                line
                for line in difflib.unified_diff(before, after, "old", "new", lineterm="", n=1)
                if not line.startswith(("---", "+++"))
            ]
        else:
            change.details = [
                *([f"- {_line(a, old)}"] if old is not None else []),
                *([f"+ {_line(b, new)}"] if new is not None else []),
            ]
        out.append(change)
    return out


def _line(book: Any, decl: Any) -> str:
    return (book.sources.line(decl.span.file, decl.span.line) or "").strip()


# ---- tables ------------------------------------------------------------------------------


def _cells(table: CompiledTable) -> dict[tuple[str, ...], str]:
    return {tuple(k.printed for k in keys): _show_cell(cell) for keys, cell in table.items()}


def _show_cell(cell: Any) -> str:
    from rulekit.engine.values import show

    text = show(cell.value)
    if cell.action is not None:
        text += f" => {cell.action.func}"
    return ("~" if cell.provisional else "") + text


def _tables(old: Checked, new: Checked) -> list[Change]:
    out: list[Change] = []
    a, b = old.book, new.book
    for name in _union(a.tables, b.tables):
        da, db = a.tables.get(name), b.tables.get(name)
        if da is None or db is None:
            out.append(Change("table", name, _what(da, db), _ref(db or da)))
            continue
        change = Change("table", name, "changed", _ref(db))
        if not _same(da.dims, db.dims) or not _same(da.result, db.result):
            change.details.append(f"- {_line(a, da)}")
            change.details.append(f"+ {_line(b, db)}")
        if not _same(da.notes, db.notes):
            change.details.append("notes changed")
        ta, tb = old.tables.get(name), new.tables.get(name)
        if ta is not None and tb is not None:
            ca, cb = _cells(ta), _cells(tb)
            for keys in _union(ca, cb):
                if ca.get(keys) != cb.get(keys):
                    change.cells.append(CellChange(keys, ca.get(keys), cb.get(keys)))
        if change.details or change.cells:
            out.append(change)
    return out


# ---- modifier lists ------------------------------------------------------------------------


def _line_name(line: n.ModLine, book: Any) -> str:
    return line.label or (line.ref.text if line.ref else _text(book, line.span))


def _modifiers(a: Any, b: Any) -> list[Change]:
    out: list[Change] = []
    for name in _union(a.modifiers, b.modifiers):
        old, new = a.modifiers.get(name), b.modifiers.get(name)
        if _same(old, new):
            continue
        change = Change("modifiers", name, _what(old, new), _ref(new or old))
        if old is not None and new is not None:
            if not _same(old.params, new.params) or old.clamp != new.clamp:
                change.details.append(f"- {_line(a, old)}")
                change.details.append(f"+ {_line(b, new)}")
            la = {_line_name(x, a): x for x in old.lines}
            lb = {_line_name(x, b): x for x in new.lines}
            for label in _union(la, lb):
                x, y = la.get(label), lb.get(label)
                if _same(x, y):
                    continue
                if x is not None:
                    change.details.append(f"- {_line(a, x)}")
                if y is not None:
                    change.details.append(f"+ {_line(b, y)}")
        out.append(change)
    return out


# ---- the sequence of play ------------------------------------------------------------------


def _phases(items: tuple[n.SeqItem, ...], path: str = "") -> list[tuple[str, n.SeqPhase]]:
    out: list[tuple[str, n.SeqPhase]] = []
    for item in items:
        if isinstance(item, n.SeqPhase):
            out.append((f"{path}{item.call.func}", item))
        elif isinstance(item, n.SeqSegment):
            out.extend(_phases(item.items, f"{path}{item.name}/"))
        else:
            out.extend(_phases(item.items, path))
    return out


def _sequences(a: Any, b: Any) -> list[Change]:
    out: list[Change] = []
    for name in _union(a.sequences, b.sequences):
        old, new = a.sequences.get(name), b.sequences.get(name)
        if _same(old, new):
            continue
        change = Change("sequence", name, _what(old, new), _ref(new or old))
        if old is not None and new is not None:
            pa, pb = _phases(old.items), _phases(new.items)
            names_a, names_b = [p for p, _ in pa], [p for p, _ in pb]
            matcher = difflib.SequenceMatcher(a=names_a, b=names_b, autojunk=False)
            for op, i1, i2, j1, j2 in matcher.get_opcodes():
                if op in ("delete", "replace"):
                    change.details += [f"- phase {_phase(x)}" for _, x in pa[i1:i2]]
                if op in ("insert", "replace"):
                    change.details += [f"+ phase {_phase(x)}" for _, x in pb[j1:j2]]
                if op == "equal":
                    for (_, x), (_, y) in zip(pa[i1:i2], pb[j1:j2], strict=True):
                        if not _same(x, y):
                            change.details.append(f"~ phase {_phase(x)} -> {_phase(y)}")
        out.append(change)
    return out


def _phase(phase: n.SeqPhase) -> str:
    ref = f" [{phase.ref.text}]" if phase.ref else ""
    return f"{phase.call.func}{ref}"


# ---- helpers --------------------------------------------------------------------------------


def _union(a: Iterable[Any], b: Iterable[Any]) -> list[Any]:
    """Keys of both, in the order of the first then the new ones of the second."""
    seen = dict.fromkeys(a)
    seen.update(dict.fromkeys(b))
    return list(seen)


def _what(old: Any, new: Any) -> str:
    if old is None:
        return "added"
    if new is None:
        return "removed"
    return "changed"
