"""The language server: pygls over stdio, answering from :mod:`rulekit.lsp.project` and
:mod:`rulekit.lsp.features`.

Diagnostics are published for every file of the rulebook an edited file belongs to (an
error in an included file shows in that file), a short pause after the last edit so that
typing does not queue a check per key; requests (hover, definition, ...) check first when
an edit is still waiting, so they never answer from an older text.
"""

from __future__ import annotations

import asyncio
import re
from importlib.metadata import version
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from rulekit.errors import Diagnostic, RulekitError
from rulekit.language import nodes as n
from rulekit.language.fmt import FormatterBug, format_text
from rulekit.lsp import features as f
from rulekit.lsp.project import HINT, Analysis, Project, entry_of, file_of

DEBOUNCE = 0.02  # seconds after an edit before the rulebook is checked again

_SEVERITY = {
    "error": lsp.DiagnosticSeverity.Error,
    "warning": lsp.DiagnosticSeverity.Warning,
    HINT: lsp.DiagnosticSeverity.Hint,
}

_KIND = {
    "table": lsp.CompletionItemKind.Struct,
    "procedure": lsp.CompletionItemKind.Function,
    "modifiers": lsp.CompletionItemKind.Function,
    "const": lsp.CompletionItemKind.Constant,
    "state": lsp.CompletionItemKind.Variable,
    "track": lsp.CompletionItemKind.Variable,
    "enum": lsp.CompletionItemKind.Enum,
    "member": lsp.CompletionItemKind.EnumMember,
    "record": lsp.CompletionItemKind.Class,
    "kind": lsp.CompletionItemKind.Class,
    "marker": lsp.CompletionItemKind.Constant,
    "die": lsp.CompletionItemKind.Value,
    "sequence": lsp.CompletionItemKind.Module,
    "field": lsp.CompletionItemKind.Field,
    "keyword": lsp.CompletionItemKind.Keyword,
    "local": lsp.CompletionItemKind.Variable,
}

_SYMBOL = {
    "table": lsp.SymbolKind.Struct,
    "procedure": lsp.SymbolKind.Function,
    "modifiers": lsp.SymbolKind.Function,
    "const": lsp.SymbolKind.Constant,
    "state": lsp.SymbolKind.Variable,
    "track": lsp.SymbolKind.Variable,
    "enum": lsp.SymbolKind.Enum,
    "member": lsp.SymbolKind.EnumMember,
    "record": lsp.SymbolKind.Class,
    "kind": lsp.SymbolKind.Class,
    "field": lsp.SymbolKind.Field,
    "sequence": lsp.SymbolKind.Module,
    "segment": lsp.SymbolKind.Namespace,
    "phase": lsp.SymbolKind.Event,
    "option": lsp.SymbolKind.Package,
}

_DOT_BEFORE = re.compile(r"(?:([A-Za-z_][A-Za-z0-9_]*)[ \t]*)?\.[ \t]*[A-Za-z0-9_]*$")


def to_range(span: n.Span | None) -> lsp.Range:
    """A span (1-based, end exclusive) as a protocol range (0-based)."""
    if span is None or span == n.NO_SPAN or span.line < 1:
        return lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    end_line, end_column = max(span.end_line, span.line), span.end_column
    if end_line == span.line and end_column <= span.column:
        end_column = span.column + 1
    return lsp.Range(
        lsp.Position(span.line - 1, max(span.column - 1, 0)),
        lsp.Position(end_line - 1, max(end_column - 1, 0)),
    )


def to_diagnostic(diag: Diagnostic) -> lsp.Diagnostic:
    message = diag.message
    if diag.context:
        message += f"\n{diag.context}"
    if diag.hint:
        message += f"\nhint: {diag.hint}"
    if diag.span is None or diag.span == n.NO_SPAN:
        message = f"{diag.location}: {message}"
    return lsp.Diagnostic(
        range=to_range(diag.span),
        message=message,
        severity=_SEVERITY.get(diag.severity, lsp.DiagnosticSeverity.Error),
        source="rulekit",
    )


def path_of(uri: str) -> Path:
    return Path(to_fs_path(uri) or uri).resolve()


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


class RulekitServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("rulekit", version("rulekit"))
        self.project = Project()
        self.pending: dict[Path, asyncio.TimerHandle] = {}  # entry -> the check waiting
        self.published: dict[Path, set[Path]] = {}  # entry -> files with diagnostics shown

    # ---- diagnostics -----------------------------------------------------------------

    def changed(self, path: Path) -> None:
        """An edit: check the rulebook again after a short pause."""
        entry = entry_of(path)
        waiting = self.pending.pop(entry, None)
        if waiting is not None:
            waiting.cancel()
        loop = asyncio.get_running_loop()
        self.pending[entry] = loop.call_later(DEBOUNCE, self.refresh, path)

    def refresh(self, path: Path) -> None:
        entry = entry_of(path)
        self.pending.pop(entry, None)
        try:
            result = self.project.analysis(path)
        except Exception as exc:  # a bug of rulekit: said in the editor, the server goes on
            self.window_show_message(
                lsp.ShowMessageParams(
                    type=lsp.MessageType.Error,
                    message=f"rulekit lsp: checking {path.name} failed: {exc!r}",
                )
            )
            return
        by_file = dict(result.diagnostics)
        for file in self.project.open:
            if entry_of(file) == entry and file not in result.files and result.book is not None:
                by_file.setdefault(file, []).extend(self.project.parse_alone(file))
        shown = {p for p, d in by_file.items() if d}
        for file in self.published.get(entry, set()) | set(result.files) | shown:
            version = self.project.open.get(file, (None, ""))[0]
            self.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(
                    uri=uri_of(file),
                    diagnostics=[to_diagnostic(d) for d in by_file.get(file, [])],
                    version=version,
                )
            )
        self.published[entry] = shown

    def current(self, uri: str) -> tuple[Path, Analysis | None]:
        """The analysis to answer a request from (checked now if an edit waits)."""
        path = path_of(uri)
        waiting = self.pending.get(entry_of(path))
        if waiting is not None:
            waiting.cancel()
            self.refresh(path)
        return path, self.project.names(path)


server = RulekitServer()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RulekitServer, params: lsp.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    path = path_of(doc.uri)
    ls.project.set_text(path, doc.version, doc.text)
    ls.refresh(path)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RulekitServer, params: lsp.DidChangeTextDocumentParams) -> None:
    doc = ls.workspace.get_text_document(params.text_document.uri)  # pygls applied the edits
    path = path_of(doc.uri)
    ls.project.set_text(path, params.text_document.version, doc.source)
    ls.changed(path)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: RulekitServer, params: lsp.DidSaveTextDocumentParams) -> None:
    ls.refresh(path_of(params.text_document.uri))


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RulekitServer, params: lsp.DidCloseTextDocumentParams) -> None:
    path = path_of(params.text_document.uri)
    ls.project.close(path)
    ls.refresh(path)  # the disk's text counts again


# ---- names -----------------------------------------------------------------------------


def _targets(
    ls: RulekitServer, uri: str, position: lsp.Position
) -> tuple[Analysis | None, list[f.Target], f.Word | None]:
    path, result = ls.current(uri)
    text = ls.project.text_of(path)
    if result is None or result.book is None or text is None:
        return result, [], None
    word = f.word_at(text, position.line, position.character)
    if word is None:
        return result, [], None
    return result, f.targets(result.book, word), word


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: RulekitServer, params: lsp.HoverParams) -> lsp.Hover | None:
    result, found, word = _targets(ls, params.text_document.uri, params.position)
    if not found or result is None or result.book is None or word is None:
        return None
    text = "\n\n---\n\n".join(f.hover_text(result.book, t) for t in found[:4])
    return lsp.Hover(
        contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
        range=lsp.Range(lsp.Position(word.line, word.start), lsp.Position(word.line, word.end)),
    )


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def definition(ls: RulekitServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
    result, found, _ = _targets(ls, params.text_document.uri, params.position)
    if not found or result is None or result.book is None:
        return None
    book = result.book
    return [
        lsp.Location(uri_of(file_of(span.file)), to_range(span))
        for span in (f.name_span(t, book) for t in found)
    ]


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
def references(ls: RulekitServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
    result, found, _ = _targets(ls, params.text_document.uri, params.position)
    if not found or result is None or result.book is None:
        return None
    book = result.book
    out: list[lsp.Location] = []
    seen: set[tuple[str, int, int]] = set()
    for target in found:
        decl = f.name_span(target, book)
        for shown, word in f.references(book, target):
            key = (shown, word.line, word.start)
            at_decl = shown == decl.file and word.line + 1 == decl.line
            at_decl = at_decl and word.start + 1 == decl.column
            if key in seen or (at_decl and not params.context.include_declaration):
                continue
            seen.add(key)
            out.append(
                lsp.Location(
                    uri_of(file_of(shown)),
                    lsp.Range(
                        lsp.Position(word.line, word.start), lsp.Position(word.line, word.end)
                    ),
                )
            )
    return out


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
def completion(ls: RulekitServer, params: lsp.CompletionParams) -> lsp.CompletionList | None:
    path, result = ls.current(params.text_document.uri)
    text = ls.project.text_of(path)
    if result is None or result.book is None or text is None:
        return None
    lines = text.split("\n")
    line = lines[params.position.line] if params.position.line < len(lines) else ""
    dot = _DOT_BEFORE.search(line[: params.position.character])
    items = f.completions(result.book, dot is not None, dot.group(1) if dot else None)
    if dot is None:
        module = ls.project.modules.get(path)
        if module is not None:
            local = f.locals_at(module, params.position.line + 1)
            items = [(name, "local", "") for name in dict.fromkeys(local)] + items
    return lsp.CompletionList(
        is_incomplete=False,
        items=[
            lsp.CompletionItem(label=name, kind=_KIND.get(kind), detail=f"{kind} {detail}".strip())
            for name, kind, detail in items
        ],
    )


# ---- formatting and outline --------------------------------------------------------------


@server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: RulekitServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit]:
    path = path_of(params.text_document.uri)
    text = ls.project.text_of(path)
    if text is None:
        return []
    try:
        result = format_text(text, str(path))
    except RulekitError:
        return []  # a file that does not parse is not formatted (its diagnostics say why)
    except FormatterBug as exc:
        ls.window_show_message(
            lsp.ShowMessageParams(type=lsp.MessageType.Error, message=f"rulekit fmt: {exc}")
        )
        return []
    if result == text:
        return []
    lines = text.split("\n")
    end = lsp.Position(len(lines) - 1, len(lines[-1]))
    return [lsp.TextEdit(lsp.Range(lsp.Position(0, 0), end), result)]


def _symbol(item: f.Outline) -> lsp.DocumentSymbol:
    name = to_range(item.span)
    full = name
    if item.end_line > item.span.line:  # the declaration's block, from its keyword
        full = lsp.Range(lsp.Position(name.start.line, 0), lsp.Position(item.end_line, 0))
    return lsp.DocumentSymbol(
        name=item.name,
        kind=_SYMBOL.get(item.kind, lsp.SymbolKind.Object),
        range=full,
        selection_range=name,
        detail=item.detail or item.kind,
        children=[_symbol(c) for c in item.children],
    )


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbols(
    ls: RulekitServer, params: lsp.DocumentSymbolParams
) -> list[lsp.DocumentSymbol]:
    path, _ = ls.current(params.text_document.uri)
    module = ls.project.modules.get(path)
    text = ls.project.text_of(path)
    if module is None or text is None:
        return []
    return [_symbol(item) for item in f.outline(module, text)]


def main() -> None:
    """Serve over stdin and stdout until the editor says exit."""
    server.start_io()
