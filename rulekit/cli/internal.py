"""The command line's last guards (``reports_errors``): input too deep or too large for the
limits that should have come first, and any other exception, a bug of ours, reported as an
internal error (where in the rulebook, and a request to report it), never a traceback."""

from __future__ import annotations

import functools
import sys
import traceback
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

INTERNAL_ERROR = 70  # EX_SOFTWARE (sysexits.h): rulekit itself failed, not the input
REPORT_IT = (
    "this is a bug in rulekit, not in your input: please report it to rulekit's "
    "maintainers, with the command line and the files it read"
)

F = TypeVar("F", bound=Callable[..., Any])


def reports_errors(func: F) -> F:
    """Bad input is reported as file:line:col with the line and a caret, exit code 1; an
    unexpected error of ours at the rulebook line it ran (InternalRuleError: in a procedure's
    function or exact analysis's blocks) the same way, with a request to report it, exit 70;
    any other exception as ``last_guard`` says."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from rich.text import Text

        from rulekit.cli.show import err
        from rulekit.errors import InternalRuleError, RulekitError

        try:
            return func(*args, **kwargs)
        except InternalRuleError as exc:
            err.print(Text(exc.render(exc.sources)))
            err.print(Text(f"  {REPORT_IT}"))
            sys.exit(INTERNAL_ERROR)
        except RulekitError as exc:
            err.print(Text(exc.render(exc.sources)))
            sys.exit(1)
        except Exception as exc:  # the last guards: never a traceback
            last_guard(exc)

    return wrapper  # type: ignore[return-value]


def last_guard(exc: Exception) -> NoReturn:
    """Report ``exc`` on the error stream and exit: 1 for input too deep or too large, 70
    (an internal error) for anything else; click's own usage errors go on to click."""
    if isinstance(exc, click.ClickException):
        raise exc
    from rich.text import Text

    from rulekit.cli.show import err

    if isinstance(exc, RecursionError | MemoryError):
        # the limits (errors.MAX_*) and the step budget should have come first
        what = "nests too deeply" if isinstance(exc, RecursionError) else "needs too much memory"
        err.print(Text(f"rulekit: error: the input {what} to be worked through"))
        sys.exit(1)
    err.print(Text(internal_error(exc)))
    sys.exit(INTERNAL_ERROR)


def internal_error(exc: BaseException) -> str:
    """The message of an unexpected exception: what it was, the rulebook procedure running
    when it happened (the innermost interpreter on the stack), and a request to report it."""
    lines = [f"rulekit: internal error: {type(exc).__name__}: {exc}"]
    for frame, _ in reversed(list(traceback.walk_tb(exc.__traceback__))):
        where = _rulebook_place(list(frame.f_locals.values()))
        if where is not None:
            lines.append(f"  while running {where}")
            break
    lines.append(f"  {REPORT_IT}")
    return "\n".join(lines)


def _rulebook_place(values: list[Any]) -> str | None:
    """``procedure NAME [rule] (file:line:col)`` of an interpreter among ``values``."""
    for value in values:
        frames, book = getattr(value, "frames", None), getattr(value, "book", None)
        if not (isinstance(frames, list) and frames and book is not None):
            continue
        for running in reversed(frames):  # frames are named "procedure NAME", "table NAME"
            kind, _, name = str(getattr(running, "name", "")).partition(" ")
            decls = getattr(book, {"procedure": "procedures", "table": "tables"}.get(kind, ""), {})
            decl = decls.get(name) if isinstance(decls, dict) else None
            if decl is not None:
                rule = f" {decl.ref}" if getattr(decl, "ref", None) is not None else ""
                span = decl.span
                return f"{kind} {name}{rule} ({span.file}:{span.line}:{span.column})"
    return None
