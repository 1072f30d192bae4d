"""``rulekit lsp``: a language server for rulebook files (pygls, over stdio).

:mod:`rulekit.lsp.chunks` parses an edited file again only where it changed;
:mod:`rulekit.lsp.project` loads and checks a rulebook with the editor's unsaved texts and
indexes its names; :mod:`rulekit.lsp.features` answers hover, definition, references,
completion and symbols from that index; :mod:`rulekit.lsp.server` speaks the protocol.
Only the server module imports pygls (the ``lsp`` extra).
"""
