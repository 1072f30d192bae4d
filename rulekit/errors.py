"""The one error hierarchy of rulekit, and how errors are shown.

Every problem with user input (a rulebook, a given file, a command-line value) becomes a
:class:`Diagnostic`: where it is (``file:line:col`` or the flag), what is wrong, what was
expected, and a suggestion where one exists. Nothing here knows about lark.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from attrs import define, field, frozen

from rulekit.language.nodes import NO_SPAN, RuleRef, Span

# Limits on what a rulebook or an input may ask for, so that bad input is an error with its
# line rather than a hang, a MemoryError or a RecursionError. The step budget (--max-steps)
# bounds the work of one procedure call or turn; these bound the size of one thing.
MAX_DIGITS = 1000  # digits of a whole number (Python refuses to print 4,300)
MAX_BITS = 3322  # the bits of a 1,000-digit number
MAX_DIE_FACES = 10_000  # faces of a declared die
MAX_NESTING_DEPTH = 200  # blocks, brackets and operators inside one another in a file
MAX_EXPRESSION_DEPTH = 50  # expressions inside expressions (generated Python nests 3 a level)
MAX_INCLUDE_DEPTH = 50  # files including files (variants extending variants)


@frozen
class Diagnostic:
    """One error or warning, with where it is and how to fix it."""

    message: str
    span: Span | None = None
    severity: str = "error"
    hint: str | None = None
    where: str | None = None  # a flag or "file: key" when there is no source span
    rule: RuleRef | None = None
    context: str | None = None  # e.g. "in procedure attack [14.16]"

    @property
    def location(self) -> str:
        if self.span is not None and self.span != NO_SPAN:
            return str(self.span)
        return self.where or "rulekit"

    def to_json(self) -> dict[str, object]:
        span = self.span if self.span is not None and self.span != NO_SPAN else None
        out: dict[str, object] = {
            "file": span.file if span else self.where,
            "line": span.line if span else None,
            "column": span.column if span else None,
            "message": self.message,
        }
        if self.hint:
            out["hint"] = self.hint
        if self.rule:
            out["rule"] = self.rule.text
        return out


@define
class Sources:
    """The text of every file read, so diagnostics can quote the offending line."""

    texts: dict[str, str] = field(factory=dict)
    _lines: dict[str, list[str]] = field(factory=dict)

    def add(self, path: str, text: str) -> None:
        self.texts[path] = text
        self._lines.pop(path, None)

    def line(self, path: str, number: int) -> str | None:
        lines = self._lines.get(path)
        if lines is None:
            text = self.texts.get(path)
            if text is None:
                try:
                    # a line quoted in an error: bytes that are not UTF-8 are shown replaced
                    text = Path(path).read_bytes().decode("utf-8-sig", errors="replace")
                except OSError:
                    return None
            lines = self._lines[path] = text.splitlines()
        if 1 <= number <= len(lines):
            return lines[number - 1]
        return None


def format_diagnostic(diag: Diagnostic, sources: Sources | None = None) -> str:
    """``path:line:col: error: message``, the source line, a caret, then hints."""
    out = [f"{diag.location}: {diag.severity}: {diag.message}"]
    span = diag.span
    if span is not None and span != NO_SPAN and span.line > 0:
        text = (sources or Sources()).line(span.file, span.line)
        if text is not None:
            width = 1
            if span.end_line == span.line and span.end_column > span.column:
                width = span.end_column - span.column
            out.append(f"    {text}")
            out.append("    " + " " * (span.column - 1) + "^" + "~" * (width - 1))
    if diag.context:
        out.append(f"  {diag.context}")
    if diag.hint:
        out.append(f"  hint: {diag.hint}")
    return "\n".join(out)


def suggest(name: str, candidates: Iterable[str]) -> str | None:
    """The closest known name to ``name``, for a "did you mean" hint."""
    if not isinstance(name, str):
        return None  # a number or a boolean where a name belongs (a file's value): no hint
    pool = sorted(c for c in set(candidates) if isinstance(c, str))
    lowered = {c.lower(): c for c in pool}
    if name.lower() in lowered and lowered[name.lower()] != name:
        return lowered[name.lower()]
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if not close:
        close_l = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
        close = [lowered[c] for c in close_l]
    return close[0] if close else None


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    best = suggest(name, candidates)
    return f"did you mean '{best}'?" if best else None


def did_you_mean_or_list(name: str, known: Iterable[str], what: str, empty: str = "none") -> str:
    """A "did you mean" hint, or when nothing is close, every known name: "its WHAT are: …"."""
    pool = sorted(set(known))
    return did_you_mean(name, pool) or f"its {what} are: {', '.join(pool) or empty}"


class RulekitError(Exception):
    """Base of every error rulekit reports to a user (exit code 1)."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        self.sources: Sources | None = None  # the rulebook's files, to quote its lines
        super().__init__("\n".join(d.message for d in diagnostics))

    def render(self, sources: Sources | None = None) -> str:
        return "\n".join(format_diagnostic(d, sources) for d in self.diagnostics)


@contextmanager
def located_in(sources: Sources) -> Iterator[None]:
    """Errors raised inside quote the rulebook lines they point at from ``sources``."""
    try:
        yield
    except RulekitError as exc:
        exc.sources = sources
        raise


class SyntaxProblem(RulekitError):
    """A rulebook file does not parse."""


class RulebookInvalid(RulekitError):
    """A rulebook parses but the checker found errors (names, types, tables, includes)."""


class InputError(RulekitError):
    """A command-line value, ``--given`` file or scenario is wrong."""


class RuleRuntimeError(RulekitError):
    """A procedure failed while running: it points at the rulebook line and rule."""


class InternalRuleError(RuleRuntimeError):
    """An unexpected Python error in rulekit's own code, located at the rulebook line it ran
    (a bug of rulekit's, not of the input: the command line exits 70, rulekit.cli.internal)."""


class RuleViolation(RuleRuntimeError):
    """The situation given breaks a rule (a ``require`` failed)."""


class StepBudgetExceeded(RuleRuntimeError):
    """A procedure ran longer than the step budget allows."""


def error(
    message: str,
    span: Span | None = None,
    *,
    hint: str | None = None,
    where: str | None = None,
    rule: RuleRef | None = None,
    context: str | None = None,
) -> Diagnostic:
    return Diagnostic(message, span, "error", hint, where, rule, context)


def warning(message: str, span: Span | None = None, *, hint: str | None = None) -> Diagnostic:
    return Diagnostic(message, span, "warning", hint)


def input_error(message: str, where: str, hint: str | None = None) -> InputError:
    return InputError([error(message, where=where, hint=hint)])


def read_text(path: str | Path, shown: str | None = None, where: str | None = None) -> str:
    """A user's file as text: UTF-8 (a leading byte-order mark is dropped), or an error at the
    line and column of the first byte that is not UTF-8, never a UnicodeDecodeError."""
    name = shown if shown is not None else str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise input_error(f"cannot read '{name}': {exc.strerror or exc}", where or name) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        span = Span(name, line, column, line, column + 1)
        raise InputError(
            [
                error(
                    f"byte 0x{data[exc.start]:02x} is not UTF-8 text",
                    span,
                    hint="save the file as UTF-8",
                )
            ]
        ) from None
