"""The source of generated code and its line map: jinja's CodeGenerator is the model, a
writer of indented lines that notes, for each line, the rulebook span it came from; what it
wrote is compiled once, and an unexpected error in it is located in the rulebook
(rulekit.engine.codegen_runtime.located). rulekit.engine.codegen writes procedures and
expressions with it, rulekit.engine.codegen_blocks exact analysis's resumable blocks."""

from __future__ import annotations

import itertools
import linecache
from collections.abc import Iterator
from typing import Any

from rulekit.engine.codegen_locals import sync
from rulekit.engine.codegen_runtime import BY_FILE, RUNTIME, Generated
from rulekit.language import nodes as n

# ---- the source and its line map ----------------------------------------------------------


class Writer:
    """Indented lines, each with the span it was written for, and the constants they use."""

    def __init__(self, parent: Writer | None = None) -> None:
        self.lines: list[str] = []
        self.spans: list[n.Span | None] = []
        self.level = 0
        self.span: n.Span | None = parent.span if parent is not None else None
        # a helper function's writer shares its procedure's constants and temporaries
        self.names: dict[str, Any] = parent.names if parent is not None else {}
        self._by_id: dict[int, str] = parent._by_id if parent is not None else {}
        self._temps: Iterator[int] = parent._temps if parent is not None else itertools.count(1)
        self.helpers: list[Writer] = parent.helpers if parent is not None else []

    def line(self, text: str) -> None:
        self.lines.append("    " * self.level + text)
        self.spans.append(self.span)

    def const(self, value: Any) -> str:
        """Source for a constant: a literal for str/int/bool/None, else a namespace name."""
        t = type(value)
        if value is None or t is bool or t is int or t is str:
            return repr(value)
        key = id(value)
        name = self._by_id.get(key)
        if name is None:
            name = self._by_id[key] = f"_k{len(self._by_id)}"
            self.names[name] = value
        return name

    def temp(self) -> str:
        return f"_t{next(self._temps)}"

    def helper(self) -> tuple[Writer, str]:
        """A new function written before the procedure's, and its name."""
        sub = Writer(self)
        self.helpers.append(sub)
        return sub, f"_h{len(self.helpers)}"


def finish(w: Writer, fname: str) -> Generated:
    """Compile the function ``fname`` a writer wrote (after its helpers), and keep its map."""
    return compiled(w, fname, fname, {})[0]


def compiled(
    w: Writer, label: str, fname: str, extra: dict[str, Any]
) -> tuple[Generated, dict[str, Any]]:
    """Compile what a writer wrote (its helpers first) with ``extra`` names in its namespace,
    and keep its line map, so that an unexpected error in any of its functions is located in
    the rulebook (codegen_runtime.located): a procedure's function (``fname``), and exact
    analysis's resumable blocks (rulekit.engine.codegen_blocks). The caller keeps the
    Generated alive (BY_FILE holds it weakly), and with it the map."""
    lines = [line for h in w.helpers for line in h.lines] + w.lines
    spans = [span for h in w.helpers for span in h.spans] + w.spans
    source = "\n".join(lines) + "\n"
    namespace: dict[str, Any] = dict(RUNTIME)
    namespace["_sync"] = sync
    namespace.update(extra)
    namespace.update(w.names)
    filename = f"<rulekit {label} {next(_SERIAL)}>"
    exec(compile(source, filename, "exec"), namespace)  # our own text: see the module docstring
    generated = Generated(label, source, tuple(spans), namespace.get(fname, _nothing))
    BY_FILE[filename] = generated
    # a Python traceback through generated code shows its lines (for rulekit's developers)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return generated, namespace


def _nothing(i: Any) -> None:  # the function of a text that defines none (an empty body)
    return None


_SERIAL = itertools.count(1)
