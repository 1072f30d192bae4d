"""``rulekit fmt``: rewrite rulebook files in one canonical layout.

The formatter works on the parser's own tokens (lark's contextual lexer and the
indenter), one logical line at a time, and never reorders anything. The layout:

- Indentation: 4 spaces per block level. A full-line comment takes the level of the
  block its source indentation falls in (the nearest open block at or left of it).
- Tokens: one space between tokens, none inside brackets, none before ``,`` ``:`` and
  closing brackets, none around ``.`` and ``..`` (``0..9``, ``-2..+2``), none after a unary
  sign or ``~``, none between a name and its ``(``.
- Comments are kept word for word (trailing whitespace removed). An end-of-line comment
  keeps its column (moved along with its line's indentation) when the code still leaves
  two spaces before it, otherwise it follows the code after two spaces.
- Blank lines: runs collapse to one; none at the start or end of a file, which ends with
  a single newline.
- Tables: the ``|`` of a table's lines line up. Each column is as wide as its widest
  cell; a column (not the first) whose cells are all plain numbers is right-aligned, any
  other is left-aligned. A line whose first cell is empty (a header) starts with ``|`` and
  its later separators line up with the others.
- Trailing annotations (a rule reference, then a title and/or ``provisional "why"``) that
  the source sets apart from the code by two or more spaces are aligned; one written after
  a single space stays there. Statements of procedures and sequences put them at column
  81 (the code padded to 80 characters), or two spaces after longer code. Other lines
  (modifier lines, kind fields, enum lines, declarations) align them per group of
  consecutive lines in one block (a blank line ends a group): two spaces after the widest
  code of the group; code wider than 78 characters takes no part and gets two spaces.
- A logical line that spans several physical lines (``\\`` continuations, brackets left
  open across lines) is kept as written, only moved with its new indentation.

Widths count characters (``—``, ``•``, ``½`` are one each). ``format_text`` checks its own
work: the result must parse to nodes equal to the original's and be left as it is by a
second pass, else :class:`FormatterBug` is raised and nothing is written.
"""

from __future__ import annotations

import itertools
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lark import Token
from lark.exceptions import VisitError

from rulekit.book.loader import ENTRY, VARIANT_DIRS, resolve_rulebook_path, shown_path
from rulekit.errors import Diagnostic, SyntaxProblem, read_text
from rulekit.language import nodes as n
from rulekit.language.parser import build_parser, not_too_deep, parse
from rulekit.language.transformer import AstBuilder

MARGIN = 80  # statements' annotations start here (0-based column), list groups stay within
INDENT = "    "

_WORDS = {"NAME", "NUMBER", "STRING", "REF", "DICE", "CELLWORD", "ODDS"}
_OPEN = {"(", "[", "{"}
_CLOSE = {")", "]", "}"}
_VALUES = {"true", "false", "none"}
_PAREN_KEYWORDS = {"tens_units", "percentile"}  # dice_def: written like calls
# A table line starting with one of these words is an option, not a row; a row key cannot be
# one of them (the grammar reads the word as the option's keyword).
_TABLE_OPTIONS = {"provisional", "note", "default", "derived", "marked"}
_NUMBER = re.compile(r"~?[+\-±]?[0-9]+(\.[0-9]+)?")  # a plain number, maybe signed or provisional

_Gap = tuple[int, str] | None  # a full-line comment (source column, text) or a blank line


class FormatterBug(RuntimeError):
    """The formatter's output would not mean what the input meant: a bug, not user error."""


@dataclass
class _Line:
    """One logical line: its tokens, and what surrounds it in the source."""

    level: int
    tokens: list[Token]
    col: int  # source column of the first token (0-based)
    multiline: bool  # spans several physical lines
    before: list[_Gap]  # blank lines and comments above it
    comment: tuple[int, str] | None = None  # end-of-line comment: source column, text
    parent: int = -1  # index of the line opening its block
    kind: str = "list"  # table | option | modifier | statement | list
    opens: bool = False  # the next line is inside its block
    out: list[str] = field(default_factory=list)  # rendered physical lines


# ---- tokens -> logical lines -----------------------------------------------------------


def _parse(text: str, path: str) -> tuple[n.Module, list[Token]]:
    """Parse like :func:`rulekit.language.parser.parse`, also returning the tokens the parser saw
    (contextual lexer and indenter: _NL tokens hold the comments and blank lines)."""
    interactive = build_parser().parse_interactive(text, start="start")
    try:
        tokens = list(interactive.iter_parse())
        end = Token.new_borrow_pos("$END", "", tokens[-1]) if tokens else Token("$END", "")
        tree = interactive.feed_token(end)
        not_too_deep(tree, path)
        return AstBuilder(path).transform(tree), tokens
    except VisitError as exc:
        raise exc.orig_exc from None
    except Exception:
        parse(text, path)  # raises the SyntaxProblem the parser reports for this text
        raise


def _split_nl(tok: Token) -> tuple[str | None, list[_Gap]]:
    """An _NL token: the comment it starts with (if any), then blank and comment lines."""
    segments = tok.value.split("\n")
    first = segments[0].rstrip()
    gaps: list[_Gap] = []
    for seg in segments[1:-1]:
        body = seg.strip()
        gaps.append((len(seg) - len(seg.lstrip(" \t")), body) if body else None)
    return (first or None), gaps


def _logical_lines(text: str, tokens: list[Token]) -> tuple[list[_Line], list[_Gap]]:
    """Group the tokens into logical lines; return them and the gaps after the last."""
    lines: list[_Line] = []
    level = 0
    current: list[Token] = []
    pending: list[_Gap] = []
    for tok in tokens:
        if tok.type in ("_INDENT", "_DEDENT"):
            level += 1 if tok.type == "_INDENT" else -1
        elif tok.type == "_NL":
            first, gaps = _split_nl(tok)
            if current:
                line = _finish(text, current, level, pending)
                lines.append(line)
                current, pending = [], []
                if first and tok.line == line.tokens[-1].end_line:
                    line.comment = (_col(tok), first)
                    first = None
            if first:
                pending.append((_col(tok), first))
            pending.extend(gaps)
        else:
            current.append(tok)
    if current:
        lines.append(_finish(text, current, level, pending))
        pending = []
    return lines, pending


def _col(tok: Token) -> int:
    """A token's source column, 0-based."""
    return (tok.column or 1) - 1


def _finish(text: str, tokens: list[Token], level: int, before: list[_Gap]) -> _Line:
    start, end = tokens[0].start_pos or 0, tokens[-1].end_pos or 0
    return _Line(level, tokens, _col(tokens[0]), "\n" in text[start:end], before)


def _classify(lines: list[_Line]) -> None:
    """Set each line's parent (the line opening its block) and kind."""
    openers: list[int] = []
    for i, line in enumerate(lines):
        del openers[line.level :]
        if openers:
            line.parent = openers[-1]
            line.kind = _kind(line, lines[line.parent], lines[openers[0]])
            lines[line.parent].opens = True
        openers.append(i)


def _kind(line: _Line, parent: _Line, decl: _Line) -> str:
    keyword, opener = _punct(line.tokens[0]), parent.tokens[0].value
    if opener == "table" and parent is decl:
        return "option" if keyword in _TABLE_OPTIONS else "table"
    if opener == "modifiers" and parent is decl and keyword != "clamp":
        return "modifier"
    if decl.tokens[0].value in ("procedure", "sequence"):
        return "statement"
    return "list"


# ---- spacing -------------------------------------------------------------------------------


def _punct(tok: Token) -> str:
    """The token's text when it is punctuation or a keyword, else ''."""
    return "" if tok.type in _WORDS else str(tok.value)


def _ends_operand(tok: Token) -> bool:
    p = _punct(tok)
    return not p or p in _CLOSE or p in _VALUES


def _unary(tokens: list[Token], i: int) -> bool:
    """Is tokens[i] a sign (``-1``, ``-2..+2``) rather than a binary ``+``/``-``?"""
    if _punct(tokens[i]) not in ("+", "-"):
        return False
    if i == 0 or not _ends_operand(tokens[i - 1]) or _punct(tokens[i - 1]) == "..":
        return True
    ahead = tokens[i + 1 : i + 3]
    return len(ahead) == 2 and ahead[0].type == "NUMBER" and _punct(ahead[1]) == ".."


def _space(tokens: list[Token], i: int) -> str:
    """The space to write before tokens[i]."""
    prev, cur = _punct(tokens[i - 1]), _punct(tokens[i])
    if prev in _OPEN or prev in (".", "~") or cur in _CLOSE or cur in (",", ":", "."):
        return ""
    if _unary(tokens, i - 1):
        return ""
    if cur == "..":
        return "" if tokens[i - 1].type == "NUMBER" else " "
    if prev == "..":
        return "" if tokens[i].type == "NUMBER" or _unary(tokens, i) else " "
    if cur == "(" and (tokens[i - 1].type == "NAME" or prev in _PAREN_KEYWORDS):
        return ""
    return " "


def _render_from(tokens: list[Token], start: int, end: int) -> str:
    """Tokens start..end of a line, spaced as they are in the whole line."""
    return "".join(
        (_space(tokens, i) if i > start else "") + tokens[i].value for i in range(start, end)
    )


# ---- single lines, annotations -------------------------------------------------------------


def _annotation(tokens: list[Token]) -> int:
    """Where a trailing ``[ref] ["title"] [provisional ["why"]]`` starts, or -1."""
    refs = [i for i, t in enumerate(tokens) if t.type == "REF"]
    if not refs or refs[-1] == 0:
        return -1
    rest = tokens[refs[-1] + 1 :]
    return refs[-1] if all(t.type == "STRING" or t.value == "provisional" for t in rest) else -1


def _apart(tokens: list[Token], i: int) -> bool:
    """Is tokens[i] set apart from the one before by two or more spaces?"""
    return (tokens[i].start_pos or 0) - (tokens[i - 1].end_pos or 0) >= 2


def _verbatim(text: str, line: _Line) -> list[str]:
    """A line spanning several physical lines: as written, moved with its indentation."""
    start, end = line.tokens[0].start_pos or 0, line.tokens[-1].end_pos or 0
    first, *rest = text[start:end].split("\n")
    delta = line.level * len(INDENT) - line.col
    out = [INDENT * line.level + first.rstrip()]
    for phys in rest:
        phys = phys.rstrip()
        lead = len(phys) - len(phys.lstrip(" "))
        out.append(" " * max(lead + delta, 0) + phys.lstrip(" ") if phys else "")
    return out


def _render_lines(text: str, lines: list[_Line]) -> None:
    """Render every line that is not a table row; align annotations afterwards."""
    for line in lines:
        if line.multiline:
            line.out = _verbatim(text, line)
        elif line.kind != "table":
            line.out = [INDENT * line.level + _render_from(line.tokens, 0, len(line.tokens))]
    _align_annotations(lines)


@dataclass
class _Note:
    line: _Line
    code: str  # the line up to its trailing annotation, indented
    note: str  # the annotation
    apart: bool  # written two or more spaces after the code


def _note(line: _Line) -> _Note | None:
    skip = line.multiline or line.kind == "table" or (line.opens and line.kind != "statement")
    at = -1 if skip else _annotation(line.tokens)
    if at < 0:
        return None
    code = INDENT * line.level + _render_from(line.tokens, 0, at)
    note = _render_from(line.tokens, at, len(line.tokens))
    return _Note(line, code, note, _apart(line.tokens, at))


def _notes(lines: list[_Line]) -> Iterator[list[_Note]]:
    """Lines with trailing annotations, grouped for alignment: each statement on its own,
    other lines by block and kind (a blank line ends a group)."""
    group: list[_Note] = []
    key: tuple[int, int, str] | None = None
    for line in lines:
        note = _note(line)
        if line.kind == "statement":
            yield [note] if note is not None else []
            continue
        here = (line.parent, line.level, line.kind)
        if here != key or None in line.before:
            yield group
            group, key = [], here
        if note is not None:
            group.append(note)
    yield group


def _align_annotations(lines: list[_Line]) -> None:
    """Align a group's annotations when one of them is written apart (see the docstring)."""
    for group in _notes(lines):
        if not any(g.apart for g in group):
            continue
        fitting = [len(g.code) + 2 for g in group if len(g.code) + 2 <= MARGIN]
        column = MARGIN if group[0].line.kind == "statement" else max(fitting, default=0)
        for g in group:
            g.line.out = [g.code.ljust(max(column, len(g.code) + 2)) + g.note]


# ---- tables ---------------------------------------------------------------------------------


def _cells(tokens: list[Token]) -> list[str]:
    """A table line's items, split at its ``|``, each rendered on its own."""
    cuts = [-1, *(i for i, t in enumerate(tokens) if t.type == "VBAR"), len(tokens)]
    return [_render_from(tokens, a + 1, b) for a, b in itertools.pairwise(cuts)]


def _tables(lines: list[_Line]) -> Iterator[list[_Line]]:
    """The rows of each table, in order."""
    rows: list[_Line] = []
    for line in lines:
        if rows and (line.kind != "table" or line.parent != rows[0].parent):
            yield rows
            rows = []
        if line.kind == "table":
            rows.append(line)
    if rows:
        yield rows


def _align_table(rows: list[_Line]) -> None:
    if any(r.multiline for r in rows):  # kept as written (_verbatim); the rest not aligned
        for row in rows:
            if not row.multiline:
                row.out = [INDENT * row.level + " | ".join(_cells(row.tokens)).strip()]
        return
    grid = [_cells(r.tokens) for r in rows]
    ncols = max(len(cells) for cells in grid)
    widths = [max((len(c[i]) for c in grid if i < len(c)), default=0) for i in range(ncols)]
    right = [i > 0 and _numeric(grid, i) for i in range(ncols)]
    for row, cells in zip(rows, grid, strict=True):
        padded = [
            c.rjust(widths[i]) if right[i] else c.ljust(widths[i]) for i, c in enumerate(cells)
        ]
        body = " | ".join(padded)
        if not cells[0] and len(cells) > 1:  # a header: "|" first, the rest still in line
            body = "|" + " " * (widths[0] + 2 if widths[0] else 1) + " | ".join(padded[1:])
        row.out = [(INDENT * row.level + body).rstrip()]


def _numeric(grid: list[list[str]], col: int) -> bool:
    cells = [c[col] for c in grid if col < len(c) and c[col]]
    return bool(cells) and all(_NUMBER.fullmatch(c) for c in cells)


# ---- assembling the file ---------------------------------------------------------------------


def _comment_level(cols: list[int], col: int) -> int:
    """The block a full-line comment at ``col`` belongs to, given the open blocks' columns."""
    level = 0
    for i, c in enumerate(cols):
        if c <= col:
            level = i
    return level


def _with_comment(line: _Line) -> list[str]:
    """The rendered line with its end-of-line comment: at its column, moved with the line's
    indentation, if the code leaves two spaces before it; else two spaces after the code."""
    if line.comment is None:
        return line.out
    col, body = line.comment
    col += line.level * len(INDENT) - line.col
    last = line.out[-1]
    return [*line.out[:-1], last.ljust(max(col, len(last) + 2)) + body]


def _gaps(gaps: list[_Gap], cols: list[int]) -> list[str]:
    return ["" if g is None else INDENT * _comment_level(cols, g[0]) + g[1] for g in gaps]


def _assemble(lines: list[_Line], tail: list[_Gap]) -> str:
    out: list[str] = []
    cols: list[int] = []  # source columns of the blocks open at the previous line
    for line in lines:
        # comments above a line belong to a block open before it, or to the one it opens
        out += _gaps(line.before, [*cols, line.col] if line.level == len(cols) else cols)
        cols = [*cols[: line.level], line.col]
        out += _with_comment(line)
    out += _gaps(tail, cols)
    return _tidy(out)


def _tidy(out: list[str]) -> str:
    """Collapse blank runs, drop blank lines at both ends, end with one newline."""
    kept: list[str] = []
    for text in out:
        text = text.rstrip()
        if text or (kept and kept[-1]):
            kept.append(text)
    while kept and not kept[-1]:
        kept.pop()
    return "\n".join(kept) + "\n" if kept else ""


def _layout(text: str, tokens: list[Token]) -> str:
    lines, tail = _logical_lines(text, tokens)
    _classify(lines)
    _render_lines(text, lines)
    for rows in _tables(lines):
        _align_table(rows)
    return _assemble(lines, tail)


# ---- public API ----------------------------------------------------------------------------


def format_text(text: str, path: str) -> str:
    """One file's text in canonical layout. Raises SyntaxProblem if it does not parse.

    The result is checked before it is returned: it must parse to nodes equal to the
    original's and be its own layout (formatting it again changes nothing); if not, that
    is a formatter bug (:class:`FormatterBug`), never a changed rulebook.
    """
    return _format(text, path)[0]


def _format(text: str, path: str) -> tuple[str, n.Module]:
    """The formatted text, and the nodes of the file (for its includes)."""
    if not text.endswith("\n"):
        text += "\n"
    before, tokens = _parse(text, path)
    result = _layout(text, tokens)
    try:
        after, again = _parse(result, path)
    except SyntaxProblem as exc:
        raise FormatterBug(f"{path}: the formatted text does not parse: {exc}") from exc
    if after != before:
        raise FormatterBug(f"{path}: formatting would change the rulebook's meaning")
    if _layout(result, again) != result:
        raise FormatterBug(f"{path}: formatting the formatted text changes it again")
    return result, before


def format_rulebook(root: Path, write: bool) -> list[Path]:
    """Format a rulebook's files (its entry, transitively the files it includes inside its
    directory, and its variants in editions/ and variants/); return those whose text
    changes.

    Every file is formatted before any is written: syntax errors are raised together (one
    SyntaxProblem) and then no file is touched. With ``write``, each changed file is
    replaced atomically (a temporary file in the same directory, then ``os.replace``).
    """
    base, entry = resolve_rulebook_path(str(root))
    changed: dict[Path, str] = {}
    problems: list[Diagnostic] = []
    todo, seen = [entry], set[Path]()
    if entry.name == ENTRY:  # a rulebook directory: its variants too
        todo += sorted(p.resolve() for d in VARIANT_DIRS for p in (base / d).glob("*.rk"))
    while todo:
        path = todo.pop(0)
        if path in seen or not path.is_file() or not path.is_relative_to(base):
            continue  # a missing or outside include is the checker's to report
        seen.add(path)
        text = read_text(path, shown_path(path))
        try:
            result, module = _format(text, shown_path(path))
        except SyntaxProblem as exc:
            problems += exc.diagnostics
            continue
        todo += [(path.parent / d.path).resolve() for d in _includes(module)]
        if result != text:
            changed[path] = result
    if problems:
        raise SyntaxProblem(problems)
    if write:
        for path, result in changed.items():
            _write_atomically(path, result)
    return list(changed)


def _includes(module: n.Module) -> list[n.Include]:
    return [d for d in module.decls if isinstance(d, n.Include)]


def _write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
