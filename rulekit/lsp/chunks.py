"""Parsing a file that is being edited again only where it changed.

A rulebook file is a list of top-level declarations, each starting at column 0. The text is
cut before each line that starts a declaration (a line at column 0 that is not a comment,
not inside brackets and not continued by a ``\\``), and each piece is parsed on its own,
preceded by as many newlines as lines come before it, so its spans are those of the whole
file. A piece whose text is unchanged is not parsed again: its nodes are kept, with their
lines moved when lines were added or removed above it.

The grammar parses a file as ``decl*`` and a declaration's block closes at the next line at
column 0, so the pieces' declarations are the file's (``tests/test_lsp_chunks.py`` checks
it, spans included, on every bundled file). Where a piece does not parse, the text from
that piece to the end of the file is parsed in one go: a syntax error is then reported as
``rulekit check`` reports it, and a cut in the wrong place (a column-0 line inside an
unusual construct) costs speed, never correctness.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from rulekit.errors import SyntaxProblem
from rulekit.language import nodes as n
from rulekit.language.parser import parse

# What may hide a bracket or a line end from a plain scan: strings, rule references (the
# grammar's REF: "[19.21 #1]" holds a "#"), comments; then brackets and a trailing backslash
# (a continued line).
REF = r"\[(?:§|[0-9]+(?:\.[0-9]|[A-Za-z])|[A-Z][A-Za-z]?[0-9]|[A-Z]\.)[^\]\n]*\]"
_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*"|' + REF + r"|#[^\n]*|[()\[\]{}]|\\[\t ]*$", re.M)
_OPEN, _CLOSE = "([{", ")]}"


def split(text: str) -> list[tuple[int, str]]:
    """The pieces of ``text``: (the 1-based line each starts on, its text). Comments and
    blank lines before a declaration belong to the piece before it (the first piece
    starts at line 1)."""
    parts = text.split("\n")  # lark counts lines by "\n" only (not str.splitlines)
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    pieces: list[tuple[int, str]] = []
    start, depth, continued = 0, 0, False
    for i, line in enumerate(lines):
        starts = line[:1] not in ("", " ", "\t", "\r", "\n", "#")  # a declaration at column 0
        if i > start and depth == 0 and not continued and starts:
            pieces.append((start + 1, "".join(lines[start:i])))
            start = i
        continued = False
        for match in _SCAN.finditer(line):
            token = match.group()
            if token in _OPEN:
                depth += 1
            elif token in _CLOSE:
                depth = max(0, depth - 1)
            elif token.startswith("\\"):
                continued = True
    if start < len(lines) or not pieces:
        pieces.append((start + 1, "".join(lines[start:])))
    return pieces


_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _fields(kind: type) -> tuple[str, ...] | None:
    names = _FIELDS.get(kind, ())
    if names == ():
        names = tuple(f.name for f in attrs.fields(kind)) if attrs.has(kind) else None
        _FIELDS[kind] = names
    return names


def shift(value: Any, delta: int) -> Any:
    """A node tree with every span moved ``delta`` lines down (up when negative)."""
    kind = type(value)
    if kind is n.Span:
        if value.line == 0:  # NO_SPAN: an item with no place (an empty table cell)
            return value
        return n.Span(
            value.file, value.line + delta, value.column, value.end_line + delta, value.end_column
        )
    if kind is tuple:
        return tuple([shift(v, delta) for v in value])
    names = _fields(kind)
    if names is None:
        return value  # str, int, Fraction, bool, None
    return kind(*[shift(getattr(value, name), delta) for name in names])


class IncrementalParser:
    """One file's parser: ``parse(text)`` gives the module ``rulekit.language.parser.parse``
    gives, parsing only the pieces of the text not seen in the last call."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._pieces: dict[str, tuple[int, tuple[n.Decl, ...]]] = {}
        self.parsed = 0  # pieces parsed by the last call (for tests and the bench)

    def parse(self, text: str) -> n.Module:
        pieces = split(text)
        kept: dict[str, tuple[int, tuple[n.Decl, ...]]] = {}
        decls: list[n.Decl] = []
        self.parsed = 0
        for index, (line, piece) in enumerate(pieces):
            found = self._pieces.get(piece) or kept.get(piece)
            if found is not None:
                at, got = found
                if at != line:
                    got = shift(got, line - at)
            else:
                self.parsed += 1
                try:
                    rows = self._rows_changed(line, piece)
                    if rows is not None:
                        got = rows
                    else:
                        got = parse("\n" * (line - 1) + piece, self.path).decls
                except SyntaxProblem:
                    # the rest of the file in one go: the error as the whole file's parse
                    # reports it, or (a wrong cut) the declarations from here on
                    rest = "".join(p for _, p in pieces[index:])
                    module = parse("\n" * (line - 1) + rest, self.path)
                    self._pieces = kept
                    return n.Module(self.path, (*decls, *module.decls))
            kept[piece] = (line, got)
            decls.extend(got)
        self._pieces = kept
        return n.Module(self.path, tuple(decls))

    def _rows_changed(self, line: int, piece: str) -> tuple[n.Decl, ...] | None:
        """A table whose edit changed only rows (a roster of hundreds of lines is one
        piece): its header and the changed rows are parsed, the other rows kept. None
        when the edit is not of that kind (then the piece is parsed whole)."""
        lines = piece.split("\n")
        if not lines[0].startswith("table "):
            return None
        old = next(
            (
                (at, text, got)
                for text, (at, got) in self._pieces.items()
                if text.split("\n", 1)[0] == lines[0]
                and len(got) == 1
                and isinstance(got[0], n.TableDecl)
            ),
            None,
        )
        if old is None:
            return None
        at, old_text, (decl,) = old
        assert isinstance(decl, n.TableDecl)
        before = old_text.split("\n")
        head = _header_lines(lines)
        if head is None or _header_lines(before) != head:
            return None
        same = 0  # lines alike at the start, then at the end
        while same < min(len(lines), len(before)) and lines[same] == before[same]:
            same += 1
        tail = 0
        while (
            tail < min(len(lines), len(before)) - same
            and lines[len(lines) - 1 - tail] == before[len(before) - 1 - tail]
        ):
            tail += 1
        if same < head:
            return None
        grown = len(lines) - len(before)
        # A row's span ends where the next row starts: the row before the change and the
        # row after it are parsed again too (the one after only to end the changed ones).
        start = next((k for k in range(same - 1, head - 1, -1) if _is_row(lines[k])), same)
        after = next((k for k in range(len(lines) - tail, len(lines)) if _is_row(lines[k])), None)
        stop = len(lines) if after is None else after + 1
        if not _plain_rows(lines, start, stop) or not _plain_rows(before, start, stop - grown):
            return None
        base = shift(decl, line - at) if line != at else decl
        kept_before = [r for r in base.lines if r.span.line - line < start]
        kept_after = (
            []
            if after is None
            else [shift(r, grown) for r in base.lines if r.span.line - line >= after - grown]
        )
        changed = lines[start:stop]
        new_rows: tuple[n.TableLine, ...] = ()
        if any(_is_row(c) for c in changed):
            text = (
                "\n" * (line - 1)
                + "\n".join(lines[:head])
                + "\n" * (start - head + 1)
                + "\n".join(changed)
                + ("\n" if after is not None else "")
            )
            (parsed,) = parse(text, self.path).decls
            assert isinstance(parsed, n.TableDecl)
            new_rows = parsed.lines[:-1] if after is not None else parsed.lines
        rows = (*kept_before, *new_rows, *kept_after)
        if not rows:
            return None  # a table without rows: the whole piece says what is wrong
        return (attrs.evolve(base, lines=rows),)


_OPTIONS = re.compile(r"[ \t]+(provisional|note|default|derived|marked)\b")


def _header_lines(lines: list[str]) -> int | None:
    """How many lines of a table piece come before its first row: the declaration's line
    and its options (comments and blank lines among them); None if that line is continued."""
    if not _plain_rows(lines, 0, 1):
        return None
    count = 1
    while count < len(lines):
        text = lines[count]
        if text.strip() and not text.strip().startswith("#") and not _OPTIONS.match(text):
            break
        count += 1
    return count


def _is_row(text: str) -> bool:
    return bool(text.strip()) and not text.strip().startswith("#")


def _plain_rows(lines: list[str], start: int, end: int) -> bool:
    """Lines ``start``..``end`` (and the line before them) each a whole logical line: no
    bracket left open, no ``\\`` continuing it (then each row is parsed alone)."""
    for text in lines[max(start - 1, 0) : end]:
        depth = 0
        for match in _SCAN.finditer(text):
            token = match.group()
            if token in _OPEN:
                depth += 1
            elif token in _CLOSE:
                depth -= 1
            elif token.startswith("\\"):
                return False
        if depth != 0:
            return False
    return True
