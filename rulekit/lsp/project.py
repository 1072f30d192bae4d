"""A rulebook as an editor sees it: its files with the unsaved texts of those open, loaded and
checked as ``rulekit check`` does, with the diagnostics of every file and an index of names.

Nothing here knows the protocol. Files are named by their absolute, resolved paths; spans
name files as messages do (relative to the working directory), :func:`file_of` maps back.
A file not open is read from disk once per change of its size or modification time; an open
file is parsed by its :class:`IncrementalParser` (only the declarations edited again).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from attrs import define, field

from rulekit.book.check_memo import CheckMemo
from rulekit.book.checker import Checked, check
from rulekit.book.loader import ENTRY, VARIANT_DIRS, load_rulebook, read_file, shown_path
from rulekit.book.provenance import survey
from rulekit.book.rulebook import Rulebook
from rulekit.errors import Diagnostic, RulekitError, read_text
from rulekit.language import nodes as n
from rulekit.lsp.chunks import IncrementalParser

HINT = "hint"  # the severity of a provisional value (Diagnostic.severity is a word)


def file_of(span_file: str) -> Path:
    """The absolute path of a file named in a span or message."""
    return Path(os.path.abspath(span_file))


def provisional_hints(book: Rulebook) -> list[Diagnostic]:
    """Every provisional value as a hint, those of one line with one reason as one hint (a
    table provisional as a whole has thousands of values)."""
    lines: dict[tuple[str, int, str], list[n.Span]] = {}
    for entry in survey(book):
        for mark in entry.marks:
            key = (mark.span.file, mark.span.line, mark.reason)
            lines.setdefault(key, []).append(mark.span)
    out = []
    for (file, line, reason), spans in lines.items():
        first, last = spans[0], spans[-1]
        span = n.Span(file, line, first.column, last.end_line, last.end_column)
        count = f"{len(spans)} provisional values" if len(spans) > 1 else "provisional"
        out.append(Diagnostic(f"{count}: {reason}", span, HINT))
    return out


def entry_of(path: Path) -> Path:
    """What a file belongs to: a variant file is loaded as itself; another file as the
    rulebook whose directory (or a parent of it) holds ``rulebook.rk``; a file outside any
    rulebook as a rulebook of its own."""
    if path.parent.name in VARIANT_DIRS and (path.parent.parent / ENTRY).is_file():
        return path
    for folder in path.parents:
        if (folder / ENTRY).is_file():
            return folder / ENTRY
    return path


@define
class Analysis:
    """One load and check of a rulebook."""

    entry: Path
    book: Rulebook | None = None  # None when it does not load (a syntax error)
    checked: Checked | None = None
    diagnostics: dict[Path, list[Diagnostic]] = field(factory=dict)
    files: list[Path] = field(factory=list)  # the rulebook's files, entry first
    stamp: tuple[tuple[Path, int], ...] = ()  # the open documents' versions it saw

    def texts(self) -> Iterator[tuple[Path, str]]:
        """Each file of the rulebook with the text it was checked with."""
        if self.book is not None:
            for shown, text in self.book.sources.texts.items():
                yield file_of(shown), text


class Project:
    """Every rulebook the editor has files of, with the documents it has open."""

    def __init__(self) -> None:
        self.open: dict[Path, tuple[int, str]] = {}  # path -> (version, unsaved text)
        self._parsers: dict[tuple[Path, str], IncrementalParser] = {}
        self._disk: dict[Path, tuple[tuple[int, int], str, n.Module]] = {}
        self.analyses: dict[Path, Analysis] = {}  # by entry file
        self.last_good: dict[Path, Analysis] = {}  # the last that loaded, for names
        self.modules: dict[Path, n.Module] = {}  # each file's nodes as last read
        self._memos: dict[Path, CheckMemo] = {}  # by entry: what the last check can lend

    # ---- documents -------------------------------------------------------------------

    def set_text(self, path: Path, version: int, text: str) -> None:
        self.open[path] = (version, text)

    def close(self, path: Path) -> None:
        self.open.pop(path, None)
        for key in [k for k in self._parsers if k[0] == path]:
            del self._parsers[key]

    def text_of(self, path: Path) -> str | None:
        if path in self.open:
            return self.open[path][1]
        try:
            return read_text(path)
        except RulekitError:
            return None

    def _read(self, path: Path, shown: str) -> tuple[str, n.Module]:
        """The loader's reader: the editor's text of an open file, else the disk's."""
        text, module = self._read_file(path, shown)
        self.modules[path] = module
        return text, module

    def parse_alone(self, path: Path) -> list[Diagnostic]:
        """The syntax errors of a file that its rulebook does not include."""
        try:
            self._read(path, shown_path(path))
        except RulekitError as exc:
            return exc.diagnostics
        return []

    def _read_file(self, path: Path, shown: str) -> tuple[str, n.Module]:
        if path in self.open:
            text = self.open[path][1]
            parser = self._parsers.get((path, shown))
            if parser is None:
                parser = self._parsers[(path, shown)] = IncrementalParser(shown)
            return text, parser.parse(text)
        try:
            stat = path.stat()
            key = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            return read_file(path, shown)  # its error, as rulekit check reports it
        kept = self._disk.get(path)
        if kept is not None and kept[0] == key and kept[2].path == shown:
            return kept[1], kept[2]
        text, module = read_file(path, shown)
        self._disk[path] = (key, text, module)
        return text, module

    # ---- analysis --------------------------------------------------------------------

    def _stamp(self) -> tuple[tuple[Path, int], ...]:
        return tuple(sorted((p, v) for p, (v, _) in self.open.items()))

    def analysis(self, path: Path) -> Analysis:
        """The analysis of the rulebook ``path`` belongs to, made again if a document
        changed since."""
        entry = entry_of(path)
        done = self.analyses.get(entry)
        if done is not None and done.stamp == self._stamp() and self._fresh(done):
            return done
        return self.analyse(entry)

    def _fresh(self, done: Analysis) -> bool:
        """No file of it that is not open changed on disk."""
        for file in done.files:
            if file in self.open:
                continue
            kept = self._disk.get(file)
            try:
                stat = file.stat()
            except OSError:
                return False
            if kept is None or kept[0] != (stat.st_mtime_ns, stat.st_size):
                return False
        return True

    def analyse(self, entry: Path) -> Analysis:
        """Load and check the rulebook of ``entry``: every error and warning of ``rulekit
        check`` and every provisional value (as a hint), by file."""
        result = Analysis(entry, stamp=self._stamp())
        self.analyses[entry] = result
        try:
            book = load_rulebook(str(entry), read=self._read)
        except RulekitError as exc:
            result.files = [entry]
            self._place(result, exc.diagnostics)
            return result
        result.book = book
        result.files = [file_of(f) for f in book.files]
        checked = check(book, self._memos.setdefault(entry, CheckMemo()))
        result.checked = checked
        self._place(result, checked.diagnostics)
        self._place(result, provisional_hints(book))
        self.last_good[entry] = result
        return result

    def _place(self, result: Analysis, diags: list[Diagnostic]) -> None:
        for diag in diags:
            span = diag.span
            if span is not None and span != n.NO_SPAN and span.line > 0:
                path = file_of(span.file)
            else:
                path = result.entry  # a problem of the whole rulebook: on its entry file
            result.diagnostics.setdefault(path, []).append(diag)

    def names(self, path: Path) -> Analysis | None:
        """The analysis to look names up in: the current one, else the last that loaded."""
        current = self.analysis(path)
        if current.book is not None:
            return current
        return self.last_good.get(current.entry)
