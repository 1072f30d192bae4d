"""``rulekit procedures``: the procedures and modifier lists a designer can call, with their
rule, parameters and types (what ``resolve``, ``prob`` and ``--at`` accept)."""

from __future__ import annotations

import json
import sys
from typing import Any

import attrs
import click
from rich.table import Table
from rich.text import Text

from rulekit.book.checker import Checked, load
from rulekit.cli.show import out
from rulekit.errors import RulekitError
from rulekit.language import nodes as n


def _source(checked: Checked, expr: Any) -> str:
    """An expression as the rulebook writes it (a default value)."""
    span = expr.span
    line = checked.book.sources.line(span.file, span.line)
    if line is None or span.end_line != span.line:
        return "..."
    return line[span.column - 1 : span.end_column - 1].strip()


def _type(checked: Checked, texpr: n.TypeExpr | None) -> str:
    return "any" if texpr is None else str(checked.vocab.type_of(texpr))


def _params(checked: Checked, params: tuple[n.Param, ...]) -> list[dict[str, Any]]:
    return [
        {
            "name": p.name,
            "type": _type(checked, p.type),
            "default": None if p.default is None else _source(checked, p.default),
        }
        for p in params
    ]


def _decisions(node: Any, found: list[str]) -> list[str]:
    """The names of the ``choose`` statements in a body, in order (for ``--decide``)."""
    if isinstance(node, n.Choose) and node.name not in found:
        found.append(node.name)
    if isinstance(node, tuple):
        for item in node:
            _decisions(item, found)
    elif attrs.has(type(node)):
        for f in attrs.fields(type(node)):
            if f.name != "span":
                _decisions(getattr(node, f.name), found)
    return found


def describe(checked: Checked) -> list[dict[str, Any]]:
    """Every procedure and modifier list, in the order the rulebook declares them."""
    rows: list[dict[str, Any]] = []
    book = checked.book
    for proc in book.procedures.values():
        rows.append(
            {
                "kind": "procedure",
                "name": proc.name,
                "rule": proc.ref.text if proc.ref else None,
                "title": proc.title,
                "parameters": _params(checked, proc.params),
                "returns": None if proc.returns is None else _type(checked, proc.returns),
                "decisions": _decisions(proc.body, []),
                "file": proc.span.file,
                "line": proc.span.line,
            }
        )
    for mods in book.modifiers.values():
        rows.append(
            {
                "kind": "modifiers",
                "name": mods.name,
                "rule": mods.ref.text if mods.ref else None,
                "title": mods.title,
                "parameters": _params(checked, mods.params),
                "returns": "int",
                "lines": len(mods.lines),
                "file": mods.span.file,
                "line": mods.span.line,
            }
        )
    return rows


def _signature(row: dict[str, Any]) -> str:
    parts = []
    for p in row["parameters"]:
        default = f" = {p['default']}" if p["default"] is not None else ""
        parts.append(f"{p['name']}: {p['type']}{default}")
    returns = f" -> {row['returns']}" if row["returns"] else ""
    return f"{row['name']}({', '.join(parts)}){returns}"


def show_procedures(rulebook: str, options: tuple[str, ...], as_json: bool) -> None:
    """List the procedures and modifier lists: rule, parameters and their types, result,
    decisions (the names --decide answers)."""
    try:
        checked = load(rulebook, options)
    except RulekitError as exc:  # file:line:col, the line, a caret; exit 1
        click.echo(exc.render(exc.sources), err=True)
        sys.exit(1)
    rows = describe(checked)
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    grid = Table(title=f"{checked.book.name} procedures and modifier lists", show_lines=False)
    for column in ("rule", "kind", "signature", "title", "decisions"):
        grid.add_column(column)
    for row in rows:
        decided = ", ".join(row.get("decisions", []))
        grid.add_row(
            Text(f"[{row['rule']}]" if row["rule"] else ""),
            row["kind"],
            Text(_signature(row)),
            row["title"] or "",
            decided,
        )
    out.print(grid)
