"""What the editor asks of a rulebook's names: where one is declared, where it is used, what
it is (hover), what may be written here (completion), and a file's outline.

Names are found in the text with one scan that skips strings and comments; a name after a
``.`` is a field (or a member of the enum before the dot), any other is a declaration of the
rulebook (table, procedure, modifiers, constant, state, track, enum, record, kind, marker,
die, sequence) or an enum member. Local names are offered by completion, not resolved.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from attrs import frozen

from rulekit.book.rulebook import Rulebook
from rulekit.language import nodes as n
from rulekit.language.parser import grammar_text
from rulekit.lsp.chunks import REF

# Strings, rule references and comments (skipped), else a name with the dot before it if
# any; leading digits are a dice count (the d6 of 2d6).
_WORDS = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|'
    + REF
    + r"|#[^\n]*|(\.[ \t]*)?(?<![A-Za-z0-9_])[0-9]*([A-Za-z_][A-Za-z0-9_]*)"
)

# Declarations by kind, as the rulebook keeps them.
KINDS = (
    "tables",
    "procedures",
    "modifiers",
    "consts",
    "states",
    "tracks",
    "enums",
    "records",
    "kinds",
    "markers",
    "dice",
    "sequences",
)


@frozen
class Word:
    """A name in a file: where, and whether a ``.`` comes before it (and what precedes it)."""

    name: str
    line: int  # 0-based
    start: int  # 0-based columns, end exclusive
    end: int
    dotted: bool
    before: str | None  # the name before the dot, when there is one


def words(text: str) -> Iterator[Word]:
    """Every name of a text outside strings and comments."""
    line, line_start = 0, 0
    last: tuple[int, str] | None = None  # end offset and text of the previous name
    for match in _WORDS.finditer(text):
        name = match.group(2)
        if name is None:
            last = None
            continue
        begin = match.start(2)
        while True:
            nl = text.find("\n", line_start, begin)
            if nl < 0:
                break
            line, line_start = line + 1, nl + 1
        dotted = match.group(1) is not None
        before = last[1] if dotted and last is not None and last[0] == match.start(1) else None
        yield Word(name, line, begin - line_start, match.end(2) - line_start, dotted, before)
        last = (match.end(2), name)


def word_at(text: str, line: int, character: int) -> Word | None:
    """The name at a position (0-based), if the position is on one."""
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        return None
    for word in words(lines[line]):
        if word.start <= character <= word.end:
            return Word(word.name, line, word.start, word.end, word.dotted, word.before)
    return None


# ---- what a name is ---------------------------------------------------------------------------


@frozen
class Target:
    """A declared thing a name can mean."""

    kind: str  # "table", "procedure", ..., "member", "field"
    name: str
    decl: object
    owner: object | None = None  # the enum of a member, the record or kind of a field

    @property
    def span(self) -> n.Span:
        span: n.Span = getattr(self.decl, "span", n.NO_SPAN)
        return span


def _singular(kind: str) -> str:
    return {"dice": "die", "modifiers": "modifiers"}.get(kind, kind.rstrip("s"))


def targets(book: Rulebook, word: Word) -> list[Target]:
    """What ``word`` may mean in ``book`` (several when kinds share a name)."""
    found: list[Target] = []
    if word.dotted:
        enum = book.enums.get(word.before or "")
        if enum is not None:
            found += [
                Target("member", m.name, m, enum) for m in enum.members if m.name == word.name
            ]
        for owner in _owners(book):
            fields = [x for x in owner.fields if x.name == word.name]
            found += [Target("field", x.name, x, owner) for x in fields]
        return found
    for kind in KINDS:
        decl = getattr(book, kind).get(word.name)
        if decl is not None:
            found.append(Target(_singular(kind), word.name, decl))
    for enum in book.enums.values():
        for member in enum.members:
            if word.name in (member.name, *member.aliases):
                found.append(Target("member", member.name, member, enum))
    return found


def _owners(book: Rulebook) -> list[n.RecordDecl | n.KindDecl]:
    """The records and kinds: what has fields."""
    return [*book.records.values(), *book.kinds.values()]


def name_span(target: Target, book: Rulebook) -> n.Span:
    """Where the name itself is written in its declaration (the span starts at a keyword)."""
    span = target.span
    text = book.sources.line(span.file, span.line)
    if text is not None:
        found = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(target.name)}(?![A-Za-z0-9_])").search(
            text, max(span.column - 1, 0)
        )
        if found is not None:
            return n.Span(span.file, span.line, found.start() + 1, span.line, found.end() + 1)
    return n.Span(span.file, span.line, span.column, span.line, span.column + 1)


def references(book: Rulebook, target: Target) -> Iterator[tuple[str, Word]]:
    """Every use of a target in the rulebook's files (its declaration too): (file, word)."""
    owner_name = getattr(target.owner, "name", None)
    for shown, text in book.sources.texts.items():
        for word in words(text):
            if word.name != target.name:
                continue
            if target.kind == "field":
                if word.dotted or _is_decl_of(word, shown, target):
                    yield shown, word
            elif target.kind == "member":
                if not word.dotted or word.before == owner_name:
                    yield shown, word
            elif not word.dotted:
                yield shown, word


def _is_decl_of(word: Word, shown: str, target: Target) -> bool:
    span = target.span
    return span.file == shown and span.line == word.line + 1 and span.column == word.start + 1


# ---- hover -------------------------------------------------------------------------------------

MAX_ROWS = 14  # lines of a table (or modifiers) shown in a hover


def decl_end(lines: list[str], line: int) -> int:
    """The last line (1-based) of the declaration starting on ``line``: a declaration's
    span is its name's, its block runs to the next line at column 0 (comments and blank
    lines at its end are not its own)."""
    end = line
    while end < len(lines) and (lines[end][:1] in ("", " ", "\t", "#", "\r")):
        end += 1
    while end > line and lines[end - 1].strip()[:1] in ("", "#"):
        end -= 1
    return end


def _lines(book: Rulebook, span: n.Span) -> list[str]:
    """The source lines of the declaration whose name is at ``span``."""
    text = book.sources.texts.get(span.file)
    if text is None:
        return [book.sources.line(span.file, span.line) or ""]
    lines = text.split("\n")
    return lines[span.line - 1 : decl_end(lines, span.line)]


def _comments_above(book: Rulebook, span: n.Span) -> list[str]:
    """The comment lines right above a declaration: its documentation."""
    out: list[str] = []
    number = span.line - 1
    while number >= 1:
        text = (book.sources.line(span.file, number) or "").strip()
        if not text.startswith("#"):
            break
        out.insert(0, text.lstrip("#").strip())
        number -= 1
    return out


def _head(ref: n.RuleRef | None, title: str | None) -> str:
    parts = [f"[{ref.text}]" if ref else "", f"*{title}*" if title else ""]
    return " ".join(p for p in parts if p)


def _provenance(decl: object) -> str:
    prov = getattr(decl, "provenance", None)
    derived = getattr(decl, "derived", None)
    if prov is not None:
        return f"**provisional**: {prov.reason or 'not printed in the source'}"
    if derived is not None:
        return f"derived from a worked example: {derived.cite}"
    return "printed"


def _code(lines: list[str]) -> str:
    return "```rulekit\n" + "\n".join(lines) + "\n```"


def hover_text(book: Rulebook, target: Target) -> str:
    """Markdown for a hover on a name."""
    decl = target.decl
    span = target.span
    source = _lines(book, span)
    first = source[:1]
    out: list[str] = []
    if isinstance(decl, n.TableDecl):
        out.append(f"**table** `{decl.name}` {_head(decl.ref, decl.title)}".rstrip())
        dims = " x ".join(_dim(d) for d in decl.dims)
        out.append(f"`{dims} -> {_type(decl.result)}`")
        dice = [str(d.dice) for d in decl.dims if d.dice is not None]
        if dice:
            out.append("dice: " + ", ".join(dice))
        if decl.provenance is not None:
            out.append(_provenance(decl))
        body = source[1:]
        shown = body[:MAX_ROWS]
        if len(body) > MAX_ROWS:
            shown.append(f"... {len(body) - MAX_ROWS} more lines")
        out.append(_code(shown))
    elif isinstance(decl, n.ProcedureDecl | n.ModifiersDecl):
        word = "procedure" if isinstance(decl, n.ProcedureDecl) else "modifiers"
        out.append(_code(first))
        head = _head(decl.ref, decl.title)
        if head:
            out.append(head)
        if isinstance(decl, n.ModifiersDecl):
            out.append(_code(source[1 : MAX_ROWS + 1]))
        doc = _comments_above(book, span)
        if doc:
            out.append("\n".join(doc))
        out.append(f"{word} `{decl.name}`, {span}")
    elif isinstance(decl, n.ConstDecl | n.StateDecl | n.TrackDecl):
        out.append(_code(source[:3]))
        out.append(_head(decl.ref, decl.title))
        if not isinstance(decl, n.TrackDecl):
            out.append(f"provenance: {_provenance(decl)}")
    elif isinstance(decl, n.FieldDecl):
        owner = getattr(target.owner, "name", "?")
        out.append(f"field of `{owner}`")
        out.append(_code([f"{decl.name}: {_type(decl.type)}"]))
        if decl.default is not None:
            out.append("default: `" + _span_text(book, decl.default.span) + "`")
        out.append(_head(decl.ref, decl.title))
        out.append(f"provenance: {_provenance(decl)}")
    elif isinstance(decl, n.EnumMember):
        enum = target.owner
        assert isinstance(enum, n.EnumDecl)
        index = [m.name for m in enum.members].index(decl.name) + 1
        out.append(f"member {index} of {len(enum.members)} of enum `{enum.name}`")
        if decl.aliases:
            out.append("also printed as: " + ", ".join(decl.aliases))
    elif isinstance(decl, n.EnumDecl):
        out.append(f"**enum** `{decl.name}` {_head(decl.ref, decl.title)}".rstrip())
        out.append(", ".join(m.name for m in decl.members))
    elif isinstance(decl, n.RecordDecl | n.KindDecl):
        word = "record" if isinstance(decl, n.RecordDecl) else "kind"
        out.append(f"**{word}** `{decl.name}` {_head(decl.ref, decl.title)}".rstrip())
        out.append(_code([f"{f.name}: {_type(f.type)}" for f in decl.fields]))
    else:
        out.append(_code(source[:MAX_ROWS]))
    return "\n\n".join(p for p in out if p)


def _span_text(book: Rulebook, span: n.Span) -> str:
    if span.line != span.end_line:
        return (book.sources.line(span.file, span.line) or "")[span.column - 1 :].strip()
    return (book.sources.line(span.file, span.line) or "")[span.column - 1 : span.end_column - 1]


def _type(t: n.TypeExpr) -> str:
    if isinstance(t, n.TypeName):
        return t.name
    if isinstance(t, n.ListType):
        return f"list of {_type(t.item)}"
    return " or ".join(_type(o) for o in t.options)


def _dim(d: n.Dim) -> str:
    if d.kind == "roll":
        return f"roll {d.dice}"
    prefix = "at_least " if d.kind == "threshold" else ""
    return prefix + d.name + (f": {_type(d.type)}" if d.type is not None else "")


# ---- completion ---------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def keywords() -> tuple[str, ...]:
    """The words the grammar spells out ("table", "roll", "at_least", ...)."""
    found = re.findall(r'"([a-z_]+)"', grammar_text())
    return tuple(sorted(set(found)))


def locals_at(module: n.Module, line: int) -> list[str]:
    """Parameters and local names of the procedure or modifiers around a line (1-based)."""
    starts = [getattr(d, "span", n.NO_SPAN).line for d in module.decls]
    for i, decl in enumerate(module.decls):
        if not isinstance(decl, n.ProcedureDecl | n.ModifiersDecl):
            continue
        end = starts[i + 1] if i + 1 < len(starts) else line + 1
        if not decl.span.line <= line < end:
            continue
        names = [p.name for p in decl.params]
        if isinstance(decl, n.ProcedureDecl):
            names += _bound(decl.body)
        return names
    return []


def _bound(body: tuple[n.Stmt, ...]) -> list[str]:
    out: list[str] = []
    for stmt in body:
        if isinstance(stmt, n.Let | n.Choose):
            out.append(stmt.name)
        elif isinstance(stmt, n.Assign) and len(stmt.target) == 1:
            out.append(stmt.target[0])
        elif isinstance(stmt, n.ForEach):
            out += [stmt.var, *_bound(stmt.body)]
        elif isinstance(stmt, n.While):
            out += _bound(stmt.body)
        elif isinstance(stmt, n.If):
            for branch in stmt.branches:
                out += _bound(branch.body)
            out += _bound(stmt.otherwise)
    return out


def completions(book: Rulebook, dotted: bool, before: str | None) -> list[tuple[str, str, str]]:
    """(name, kind, detail) of what may be written: after a dot, fields (and the members of
    an enum named before it); else declarations, enum members and keywords."""
    out: list[tuple[str, str, str]] = []
    if dotted:
        enum = book.enums.get(before or "")
        if enum is not None:
            out += [(m.name, "member", f"enum {enum.name}") for m in enum.members]
        seen: set[str] = set()
        for owner in _owners(book):
            for f in owner.fields:
                if f.name not in seen:
                    seen.add(f.name)
                    out.append((f.name, "field", f"{owner.name}.{f.name}: {_type(f.type)}"))
        return out
    for kind in KINDS:
        for name, decl in getattr(book, kind).items():
            title = getattr(decl, "title", None) or ""
            out.append((name, _singular(kind), title))
    for enum in book.enums.values():
        out += [(m.name, "member", f"enum {enum.name}") for m in enum.members]
    out += [(word, "keyword", "") for word in keywords()]
    return out


# ---- outline -------------------------------------------------------------------------------------


@frozen
class Outline:
    """One entry of a file's outline."""

    name: str  # the rule number first ("[14.16] attack"), so the outline reads by rule
    kind: str
    detail: str
    span: n.Span  # of its name
    children: tuple[Outline, ...] = ()
    end_line: int = 0  # the last line of a declaration's block


def _label(name: str, ref: n.RuleRef | None) -> str:
    return f"[{ref.text}] {name}" if ref is not None else name


def outline(module: n.Module, text: str) -> list[Outline]:
    """The declarations of a file, with sequences' segments and phases, kinds' and records'
    fields and enums' members inside."""
    lines = text.split("\n")
    out = []
    for decl in module.decls:
        item = _outline_decl(decl)
        if item is not None:
            end = decl_end(lines, item.span.line)
            out.append(Outline(item.name, item.kind, item.detail, item.span, item.children, end))
    return out


def _outline_decl(decl: object) -> Outline | None:
    kind = type(decl).__name__.removesuffix("Decl").lower()
    name = getattr(decl, "name", None)
    span: n.Span = getattr(decl, "span", n.NO_SPAN)
    ref = getattr(decl, "ref", None)
    title = getattr(decl, "title", None) or ""
    children: tuple[Outline, ...] = ()
    if isinstance(decl, n.SequenceDecl):
        children = tuple(_seq(i) for i in decl.items)
        name = name or "sequence"
    elif isinstance(decl, n.KindDecl | n.RecordDecl):
        children = tuple(
            Outline(_label(f.name, f.ref), "field", _type(f.type), f.span) for f in decl.fields
        )
    elif isinstance(decl, n.EnumDecl):
        children = tuple(Outline(m.name, "member", "", m.span) for m in decl.members)
    elif isinstance(decl, n.OptionDecl):
        kind = "option"
    elif isinstance(decl, n.RulebookHeader | n.VariantHeader):
        kind = "rulebook" if isinstance(decl, n.RulebookHeader) else "variant"
    elif isinstance(decl, n.Replace):
        inner = _outline_decl(decl.decl)
        if inner is None:
            return None
        return Outline(inner.name, inner.kind, "replace " + inner.detail, span, inner.children)
    if not isinstance(name, str):
        return None
    return Outline(_label(name, ref), kind, title, span, children)


def _seq(item: n.SeqItem) -> Outline:
    if isinstance(item, n.SeqPhase):
        return Outline(_label(item.call.func, item.ref), "phase", item.title or "", item.span)
    if isinstance(item, n.SeqSegment):
        inner = tuple(_seq(i) for i in item.items)
        return Outline(_label(item.name, item.ref), "segment", item.title or "", item.span, inner)
    inner = tuple(_seq(i) for i in item.items)
    return Outline(_label(f"for each {item.var}", item.ref), "for", "", item.span, inner)
