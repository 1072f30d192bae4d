"""The command line: check, tables, lookup, resolve."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rulekit.checker import Checked, check, load
from rulekit.errors import InputError, RulekitError, error
from rulekit.inputs import find_target, parse_dice, split_assignments
from rulekit.interpreter import DEFAULT_STEP_BUDGET
from rulekit.loader import load_rulebook
from rulekit.session import resolve as run_resolve
from rulekit.tables import LookupMiss
from rulekit.trace import render_text
from rulekit.values import show, to_json

F = TypeVar("F", bound=Callable[..., Any])

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def _emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def reports_errors(func: F) -> F:
    """Bad input is reported as file:line:col with the line and a caret, exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except RulekitError as exc:
            err.print(Text(exc.render(getattr(exc, "sources", None))))
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rulekit")
def main() -> None:
    """rulekit: wargame rules as data, executed exactly, explained rule by rule.

    RULEBOOK is a rulebook directory (with a rulebook.rk) or a .rk file.
    """


@main.command("check")
@click.argument("rulebook")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@reports_errors
def check_cmd(rulebook: str, as_json: bool) -> None:
    """Parse and validate a rulebook; count its provisional values."""
    try:
        book = load_rulebook(rulebook)
    except RulekitError as exc:
        if as_json:
            _emit_json(
                {
                    "ok": False,
                    "errors": [d.to_json() for d in exc.diagnostics],
                    "warnings": [],
                    "tables": 0,
                    "procedures": 0,
                    "provisional": 0,
                }
            )
            err.print(Text(exc.render()))
            sys.exit(1)
        raise
    checked = check(book)
    sources = book.sources
    ok = not checked.errors
    if as_json:
        _emit_json(
            {
                "ok": ok,
                "errors": [d.to_json() for d in checked.errors],
                "warnings": [d.to_json() for d in checked.warnings],
                "tables": len(book.tables),
                "procedures": len(book.procedures),
                "provisional": checked.provisional_count,
                "provisional_values": [
                    {
                        "what": p.what,
                        "file": p.span.file,
                        "line": p.span.line,
                        "count": p.count,
                        "reason": p.reason,
                    }
                    for p in checked.provisional
                ],
            }
        )
    else:
        for diag in checked.errors + checked.warnings:
            err.print(Text(RulekitError([diag]).render(sources)))
        _summary(checked, rulebook)
    if not ok:
        sys.exit(1)


def _summary(checked: Checked, arg: str) -> None:
    book = checked.book
    title = f"{book.name} {book.edition}" if book.edition else book.name
    status = "ok" if not checked.errors else f"{len(checked.errors)} error(s)"
    out.print(
        Text(
            f"{arg}: {title}: {status}; {len(book.tables)} tables, "
            f"{len(book.procedures)} procedures, {len(book.modifiers)} modifier lists, "
            f"{len(checked.warnings)} warning(s)"
        )
    )
    if checked.provisional:
        out.print(
            Text(
                f"{checked.provisional_count} provisional value(s) the source does not print, "
                f"in {len(checked.provisional)} place(s):"
            )
        )
        for p in checked.provisional:
            out.print(
                Text(f"  {p.span}: {p.what}: {p.count}" + (f" ({p.reason})" if p.reason else ""))
            )
    else:
        out.print(Text("no provisional values"))


@main.command("tables")
@click.argument("rulebook")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@reports_errors
def tables_cmd(rulebook: str, as_json: bool) -> None:
    """List the tables: rule reference, dice, dimensions, provenance."""
    checked = load(rulebook)
    rows: list[dict[str, Any]] = []
    for table in checked.tables.values():
        decl = table.decl
        roll = next((str(d.dice) for d in decl.dims if d.kind == "roll"), None)
        rows.append(
            {
                "name": table.name,
                "rule": table.rule,
                "title": decl.title,
                "roll": roll,
                "dimensions": [
                    {"name": d.name, "values": table.keys(i)} for i, d in enumerate(table.dims)
                ],
                "provisional": table.provisional_cells,
            }
        )
    if as_json:
        _emit_json(rows)
        return
    grid = Table(title=f"{checked.book.name} tables", show_lines=False)
    for column in ("rule", "name", "title", "roll", "dimensions", "provisional"):
        grid.add_column(column)
    for row in rows:
        dims = " x ".join(f"{d['name']} ({len(d['values'])})" for d in row["dimensions"])
        prov = str(row["provisional"]) if row["provisional"] else ""
        grid.add_row(
            Text(f"[{row['rule']}]" if row["rule"] else ""),
            row["name"],
            row["title"] or "",
            row["roll"] or "",
            dims,
            prov,
        )
    out.print(grid)


@main.command("lookup")
@click.argument("rulebook")
@click.argument("table")
@click.option("--at", "at", multiple=True, metavar="DIM=VALUE", help="A key of the table.")
@click.option("--roll", "roll", type=int, help="The (already modified) roll indexing the table.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@reports_errors
def lookup_cmd(
    rulebook: str, table: str, at: tuple[str, ...], roll: int | None, as_json: bool
) -> None:
    """Look up one cell. TABLE is a name or a rule reference such as 7.1 or E4."""
    checked = load(rulebook)
    target = find_target(checked, table, ("table",))
    compiled = checked.tables[target.name]
    pairs = dict(split_assignments(at, "--at"))
    values: list[Any] = []
    keys: dict[str, Any] = {}
    dims = {d.name for d in compiled.dims if d.kind != "roll"}
    for name in pairs:
        if name not in dims:
            from rulekit.errors import did_you_mean

            raise InputError(
                [
                    error(
                        f"table {target.name} has no dimension '{name}'",
                        where=f"--at {name}",
                        hint=did_you_mean(name, dims)
                        or f"its dimensions are: {', '.join(sorted(dims)) or 'only the roll'}",
                    )
                ]
            )
    for i, dim in enumerate(compiled.dims):
        if dim.kind == "roll":
            if roll is None:
                raise InputError(
                    [
                        error(
                            f"table {target.name} is indexed by a roll of {dim.decl.dice}",
                            where="--roll",
                            hint="give --roll N (the modified roll)",
                        )
                    ]
                )
            values.append(roll)
            keys["roll"] = roll
            continue
        if dim.name not in pairs:
            choices = ", ".join(compiled.keys(i)[:10])
            raise InputError(
                [
                    error(
                        f"table {target.name} needs --at {dim.name}=VALUE",
                        where="--at",
                        hint=f"{dim.name} is one of: {choices}",
                    )
                ]
            )
        text = pairs[dim.name]
        value = _read_key(checked, dim, text, compiled.keys(i))
        values.append(value)
        keys[dim.name] = to_json(value)
    try:
        cell, path = compiled.lookup(values)
    except LookupMiss as miss:
        where = "--roll" if miss.dim.kind == "roll" else f"--at {miss.dim.name}"
        raise InputError(
            [
                error(
                    f"table {target.name} has no row for {miss.dim.name} = {show(miss.value)}",
                    where=where,
                    hint=f"its {miss.dim.name} rows are: {', '.join(miss.keys)}",
                )
            ]
        ) from None
    if as_json:
        data: dict[str, Any] = {
            "table": target.name,
            "rule": compiled.rule,
            "roll": roll,
            "result": cell.printed,
            "row": [k.printed for k in path],
            "provisional": cell.provisional,
        }
        if cell.action is not None:
            data["then"] = cell.action.func
        _emit_json(data)
        return
    title = f' "{compiled.decl.title}"' if compiled.decl.title else ""
    key_text = ", ".join(f"{k}={show(v)}" for k, v in keys.items())
    result = show(cell.value) if cell.value is not None else ""
    if cell.action is not None:
        result += f" => {cell.action.func}"
    mark = "  (provisional: not printed in the rules)" if cell.provisional else ""
    out.print(
        Text(
            f"{target.name} [{compiled.rule}]{title} {key_text} -> row "
            + " / ".join(k.printed for k in path)
        )
    )
    out.print(Text(f"{result}{mark}"))


def _read_key(checked: Checked, dim: Any, text: str, keys: list[str]) -> Any:
    from rulekit.coerce import CoerceError
    from rulekit.errors import did_you_mean

    try:
        return checked.vocab.read(text, dim.type)
    except CoerceError as exc:
        raise InputError(
            [
                error(
                    f"{exc.message} for dimension {dim.name}",
                    where=f"--at {dim.name}",
                    hint=exc.hint or did_you_mean(text, keys),
                )
            ]
        ) from None


@main.command("resolve")
@click.argument("rulebook")
@click.argument("procedure")
@click.option("--given", "given", metavar="FILE.toml", help="Inputs and state from a TOML file.")
@click.option("--at", "at", multiple=True, metavar="NAME=VALUE", help="An input or state value.")
@click.option("--dice", "dice", metavar="N,N,...", help="Force the natural die results, in order.")
@click.option("--seed", "seed", type=int, help="Seed for the dice (after any forced ones).")
@click.option("--decide", "decide", multiple=True, metavar="NAME=VALUE", help="Answer a decision.")
@click.option(
    "--max-steps",
    "max_steps",
    type=int,
    default=DEFAULT_STEP_BUDGET,
    show_default=True,
    help="Stop a procedure that runs longer than this.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@reports_errors
def resolve_cmd(
    rulebook: str,
    procedure: str,
    given: str | None,
    at: tuple[str, ...],
    dice: str | None,
    seed: int | None,
    decide: tuple[str, ...],
    max_steps: int,
    as_json: bool,
) -> None:
    """Run one procedure (or a table with its own roll) and print its trace."""
    checked = load(rulebook)
    try:
        outcome = run_resolve(
            checked,
            procedure,
            given=given,
            at=at,
            dice=parse_dice(dice) if dice is not None else None,
            seed=seed,
            decide=decide,
            max_steps=max_steps,
        )
    except RulekitError as exc:
        exc.sources = checked.book.sources  # type: ignore[attr-defined]
        raise
    target = outcome.target
    if as_json:
        _emit_json(
            {
                "procedure": target.name,
                "kind": target.kind,
                "rule": target.ref.text if target.ref else None,
                "seed": outcome.seed,
                "args": {k: to_json(v) for k, v in outcome.args.items()},
                "result": to_json(outcome.result),
                "trace": outcome.trace.to_json(),
                "state": {k: to_json(v) for k, v in outcome.interpreter.state.values.items()},
                "provisional_used": outcome.trace.provisional_used,
            }
        )
        return
    for line in render_text(outcome.trace):
        out.print(Text(line))
    out.print(Text(f"result: {show(outcome.result)}"))
    if outcome.seed is not None:
        out.print(Text(f"seed: {outcome.seed}"))
    if outcome.trace.provisional_used:
        out.print(Text("used provisional values (not printed in the rules):"))
        for item in outcome.trace.provisional_used:
            out.print(Text(f"  {item}"))


if __name__ == "__main__":  # pragma: no cover
    main()
