"""An editor for tests: starts ``rulekit lsp`` as a process and talks to it over stdio with
pygls's own client, as an editor does; each call waits for its answer (or notification)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path


def uri(path: Path) -> str:
    return from_fs_path(str(path.resolve())) or path.resolve().as_uri()


class Editor:
    """A synchronous face on an asynchronous client (tests are plain functions)."""

    def __init__(self, cwd: Path | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.client = LanguageClient("rulekit-tests", "1")
        self.diagnostics: dict[str, list[lsp.Diagnostic]] = {}
        self.versions: dict[str, int | None] = {}
        self.published: list[tuple[float, str, int | None]] = []
        self.texts: dict[str, str] = {}
        self.version: dict[str, int] = {}

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: lsp.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = params.diagnostics
            self.versions[params.uri] = params.version
            self.published.append((time.perf_counter(), params.uri, params.version))

        self.run(
            self.client.start_io(sys.executable, "-m", "rulekit", "lsp", cwd=str(cwd or Path.cwd()))
        )
        self.run(
            self.client.initialize_async(
                lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), process_id=None)
            )
        )
        self.client.initialized(lsp.InitializedParams())

    def run(self, job: Any, timeout: float = 60) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(job, timeout))

    def close(self) -> None:
        self.run(self.client.shutdown_async(None))
        self.client.exit(None)
        self.run(self.client.stop())
        self.loop.close()

    # ---- documents -------------------------------------------------------------------

    def open(self, path: Path, text: str | None = None) -> str:
        doc = uri(path)
        self.texts[doc] = text if text is not None else path.read_text(encoding="utf-8")
        self.version[doc] = 1
        self.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(doc, "rulekit", 1, self.texts[doc]))
        )
        self.wait_version(doc, 1)
        return doc

    def change(self, doc: str, text: str) -> int:
        """Replace the document's text (unsaved), as one edit of the whole text."""
        self.version[doc] += 1
        lines = self.texts[doc].split("\n")
        whole = lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines) - 1, len(lines[-1])))
        self.texts[doc] = text
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(self.version[doc], doc),
                [lsp.TextDocumentContentChangePartial(range=whole, text=text)],
            )
        )
        return self.version[doc]

    def edit_line(self, doc: str, line: int, new: str) -> int:
        """Replace one line (0-based) by an edit of that line only, as typing does."""
        self.version[doc] += 1
        lines = self.texts[doc].split("\n")
        old = lines[line]
        lines[line] = new
        self.texts[doc] = "\n".join(lines)
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(self.version[doc], doc),
                [
                    lsp.TextDocumentContentChangePartial(
                        range=lsp.Range(lsp.Position(line, 0), lsp.Position(line, len(old))),
                        text=new,
                    )
                ],
            )
        )
        return self.version[doc]

    def wait_version(self, doc: str, version: int, timeout: float = 60) -> list[lsp.Diagnostic]:
        """The diagnostics published for ``doc`` at ``version`` (waits for them)."""

        async def wait() -> None:
            while self.versions.get(doc, None) != version or doc not in self.diagnostics:
                await asyncio.sleep(0.005)

        self.run(wait(), timeout)
        return self.diagnostics[doc]

    def settle(self, seconds: float = 0.3) -> None:
        self.run(asyncio.sleep(seconds))

    # ---- requests --------------------------------------------------------------------

    def pos(self, doc: str, line: int, character: int) -> lsp.TextDocumentPositionParams:
        return lsp.TextDocumentPositionParams(
            lsp.TextDocumentIdentifier(doc), lsp.Position(line, character)
        )

    def hover(self, doc: str, line: int, character: int) -> lsp.Hover | None:
        return self.run(
            self.client.text_document_hover_async(
                lsp.HoverParams(lsp.TextDocumentIdentifier(doc), lsp.Position(line, character))
            )
        )

    def definition(self, doc: str, line: int, character: int) -> Any:
        return self.run(
            self.client.text_document_definition_async(
                lsp.DefinitionParams(lsp.TextDocumentIdentifier(doc), lsp.Position(line, character))
            )
        )

    def references(self, doc: str, line: int, character: int, declaration: bool = True) -> Any:
        return self.run(
            self.client.text_document_references_async(
                lsp.ReferenceParams(
                    text_document=lsp.TextDocumentIdentifier(doc),
                    position=lsp.Position(line, character),
                    context=lsp.ReferenceContext(include_declaration=declaration),
                )
            )
        )

    def completion(self, doc: str, line: int, character: int) -> Any:
        return self.run(
            self.client.text_document_completion_async(
                lsp.CompletionParams(lsp.TextDocumentIdentifier(doc), lsp.Position(line, character))
            )
        )

    def formatting(self, doc: str) -> Any:
        return self.run(
            self.client.text_document_formatting_async(
                lsp.DocumentFormattingParams(
                    lsp.TextDocumentIdentifier(doc),
                    lsp.FormattingOptions(tab_size=4, insert_spaces=True),
                )
            )
        )

    def symbols(self, doc: str) -> Any:
        return self.run(
            self.client.text_document_document_symbol_async(
                lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(doc))
            )
        )
