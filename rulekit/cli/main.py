"""The command line: check, tables, lookup, resolve."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
from rich.table import Table
from rich.text import Text

from rulekit.analysis.prob import DEFAULT_MAX_PATHS
from rulekit.book.checker import Checked, check, load
from rulekit.book.inputs import find_target, parse_dice, split_assignments
from rulekit.book.loader import load_rulebook
from rulekit.book.tables import LookupMiss
from rulekit.cli.compile_cmd import compile_cmd
from rulekit.cli.show import (
    err,
    explain_turn,
    options_of,
    out,
    print_distribution,
    print_options,
    print_run,
    print_summary,
)
from rulekit.engine.interpreter import DEFAULT_STEP_BUDGET
from rulekit.engine.session import resolve as run_resolve
from rulekit.engine.trace import render_text
from rulekit.engine.values import show, to_json
from rulekit.errors import InputError, RulekitError, error, located_in

F = TypeVar("F", bound=Callable[..., Any])


def _emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def reports_errors(func: F) -> F:
    """Bad input is reported as file:line:col with the line and a caret, exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except RulekitError as exc:
            err.print(Text(exc.render(exc.sources)))
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


json_flag = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
given_file = click.option(
    "--given", "given", metavar="FILE.toml", help="Inputs and state from a TOML file."
)
at_values = click.option(
    "--at", "at", multiple=True, metavar="NAME=VALUE", help="An input or state value."
)
decide_answers = click.option(
    "--decide", "decide", multiple=True, metavar="NAME=VALUE", help="Answer a decision."
)

option_switches = click.option(
    "--option",
    "options",
    multiple=True,
    metavar="NAME",
    help="Switch on an optional rule of the rulebook (repeatable).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rulekit")
def main() -> None:
    """rulekit: wargame rules as data, executed exactly, explained rule by rule.

    RULEBOOK is a rulebook directory (with a rulebook.rk), a .rk file, a variant file, or
    DIR@VARIANT for a variant in the rulebook's editions/ or variants/ folder.
    """


@main.command("check")
@click.argument("rulebook")
@option_switches
@json_flag
@reports_errors
def check_cmd(rulebook: str, options: tuple[str, ...], as_json: bool) -> None:
    """Parse and validate a rulebook; count its provisional values."""
    try:
        book = load_rulebook(rulebook, options)
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
                "options": options_of(book),
                "variants": list(book.variants),
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
        print_summary(checked, rulebook)
    if not ok:
        sys.exit(1)


@main.command("tables")
@click.argument("rulebook")
@option_switches
@json_flag
@reports_errors
def tables_cmd(rulebook: str, options: tuple[str, ...], as_json: bool) -> None:
    """List the tables: rule reference, dice, dimensions, provenance."""
    checked = load(rulebook, options)
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
    print_options(checked.book)


@main.command("lookup")
@click.argument("rulebook")
@option_switches
@click.argument("table")
@click.option("--at", "at", multiple=True, metavar="DIM=VALUE", help="A key of the table.")
@click.option("--roll", "roll", type=int, help="The (already modified) roll indexing the table.")
@json_flag
@reports_errors
def lookup_cmd(
    rulebook: str,
    options: tuple[str, ...],
    table: str,
    at: tuple[str, ...],
    roll: int | None,
    as_json: bool,
) -> None:
    """Look up one cell. TABLE is a name or a rule reference such as 7.1 or E4."""
    checked = load(rulebook, options)
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
    from rulekit.book.coerce import CoerceError
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
@option_switches
@click.argument("procedure")
@given_file
@at_values
@click.option("--dice", "dice", metavar="N,N,...", help="Force the natural die results, in order.")
@click.option("--seed", "seed", type=int, help="Seed for the dice (after any forced ones).")
@decide_answers
@click.option(
    "--max-steps",
    "max_steps",
    type=int,
    default=DEFAULT_STEP_BUDGET,
    show_default=True,
    help="Stop a procedure that runs longer than this.",
)
@json_flag
@reports_errors
def resolve_cmd(
    rulebook: str,
    options: tuple[str, ...],
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
    checked = load(rulebook, options)
    with located_in(checked.book.sources):
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


@main.command("prob")
@click.argument("rulebook")
@option_switches
@click.argument("procedure")
@given_file
@at_values
@decide_answers
@click.option(
    "--of", "of", metavar="EXPR", help="Report this expression instead (result, inputs, state)."
)
@click.option(
    "--max-paths",
    "max_paths",
    type=int,
    default=DEFAULT_MAX_PATHS,
    show_default=True,
    help="Give up beyond this many paths of dice.",
)
@click.option("--samples", "samples", type=int, help="Estimate from this many seeded runs instead.")
@click.option("--seed", "seed", type=int, default=1, show_default=True, help="Seed for --samples.")
@json_flag
@reports_errors
def prob_cmd(
    rulebook: str,
    options: tuple[str, ...],
    procedure: str,
    given: str | None,
    at: tuple[str, ...],
    decide: tuple[str, ...],
    of: str | None,
    max_paths: int,
    samples: int | None,
    seed: int,
    as_json: bool,
) -> None:
    """Exact probabilities of every result of a procedure or table (every path of dice)."""
    from rulekit.analysis.prob import ask, exact, sampled

    checked = load(rulebook, options)
    with located_in(checked.book.sources):
        question = ask(checked, procedure, given=given, at=at, decide=decide, of=of)
        if samples is not None:
            if samples < 1:
                raise InputError([error("--samples must be at least 1", where="--samples")])
            dist = sampled(checked, question, samples, seed)
        else:
            dist = exact(checked, question, max_paths)
    if as_json:
        _emit_json(dist.to_json())
        return
    print_distribution(dist)


@main.command("diff")
@click.argument("old")
@click.argument("new")
@option_switches
@click.option("--probe", "probes", multiple=True, metavar="NAME", help="Also compare this.")
@click.option("--given", "given", metavar="FILE.toml", help="Inputs and state for --probe.")
@at_values
@click.option("--decide", "decide", multiple=True, metavar="NAME=VALUE", help="For --probe.")
@click.option("--of", "of", metavar="EXPR", help="Compare this expression of each --probe.")
@click.option("--structure-only", "structure_only", is_flag=True, help="No behaviour.")
@click.option("--seed", "seed", type=int, default=1, show_default=True, help="For sampling.")
@json_flag
@reports_errors
def diff_cmd(
    old: str,
    new: str,
    options: tuple[str, ...],
    probes: tuple[str, ...],
    given: str | None,
    at: tuple[str, ...],
    decide: tuple[str, ...],
    of: str | None,
    structure_only: bool,
    seed: int,
    as_json: bool,
) -> None:
    """What changed from OLD to NEW (rulebooks or variants, e.g. DIR@1.1 DIR).

    Exit code 0: no differences; 3: differences; 1: bad input.
    """
    from rulekit.analysis.behaviour import Behaviour, Probe, compare_behaviour
    from rulekit.analysis.diff import compare
    from rulekit.cli.show import diff_json, print_diff

    before, after = load(old, options), load(new, options)
    changes = compare(before, after)
    wanted = [Probe(p, list(at), given, of, list(decide)) for p in probes]
    behaviour = Behaviour()
    if not structure_only:
        with located_in(after.book.sources):
            behaviour = compare_behaviour(before, after, changes, wanted, seed, list(at))
    differs = bool(changes) or any(c.differs for c in behaviour.comparisons)
    if as_json:
        _emit_json(diff_json(before, after, changes, behaviour, differs))
    else:
        print_diff(out, before, after, changes, behaviour)
    sys.exit(3 if differs else 0)


@main.command("fmt")
@click.argument("rulebook")
@click.option("--check", "check_only", is_flag=True, help="Only report what would change.")
@reports_errors
def fmt_cmd(rulebook: str, check_only: bool) -> None:
    """Rewrite a rulebook's files (and its variants) in the canonical layout.

    Exit code 0: nothing to change (or changed); 3: with --check, files would change.
    """
    from pathlib import Path

    from rulekit.book.loader import shown_path
    from rulekit.language.fmt import format_rulebook

    changed = format_rulebook(Path(rulebook), write=not check_only)
    verb = "would reformat" if check_only else "reformatted"
    for path in changed:
        out.print(Text(f"{verb} {shown_path(path)}"))
    if not changed:
        out.print(Text(f"{rulebook}: already formatted"))
    if check_only and changed:
        sys.exit(3)


@main.command("run")
@click.argument("rulebook")
@option_switches
@click.option(
    "--scenario",
    "scenario",
    metavar="NAME|FILE",
    help="A scenario of the rulebook (default: its own).",
)
@click.option(
    "--seed", "seed", type=int, help="Seed for the dice (one is picked and shown if none)."
)
@click.option("--turns", "turns", type=int, help="Play at most this many turns now.")
@click.option(
    "--policy",
    "policy",
    default=None,
    metavar="P",
    help="default, random, interactive or scripted:FILE.toml  [default: default]",
)
@click.option("--save", "save", metavar="FILE", help="Save the game when this run stops.")
@click.option("--resume", "resume", metavar="FILE", help="Continue a saved game.")
@click.option("--trace", "trace", metavar="FILE", help="Write every event as JSON lines.")
@click.option(
    "--explain", "explain", is_flag=True, help="Print every turn's rolls, rows and rules."
)
@json_flag
@reports_errors
def run_cmd(
    rulebook: str,
    options: tuple[str, ...],
    scenario: str | None,
    seed: int | None,
    turns: int | None,
    policy: str | None,
    save: str | None,
    resume: str | None,
    trace: str | None,
    explain: bool,
    as_json: bool,
) -> None:
    """Play a scenario turn after turn through the rulebook's sequence of play."""
    from rulekit.engine.trace import render_event
    from rulekit.play.runner import (
        make_policy,
        new_game,
        resume_game,
        trace_header,
        write_trace_footer,
    )

    checked = load(rulebook, options)
    holder: dict[str, Any] = {}

    def context() -> list[str]:
        game = holder.get("game")
        return [render_event(e) for e in game.interp.trace.events[-8:]] if game else []

    def ask(prompt: str) -> str:
        err.print(Text(prompt), end="")
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line

    spec = policy or "default"
    chosen = None
    if spec == "interactive":
        chosen = make_policy(spec, seed, ask, lambda text: err.print(Text(text)), context)
    if resume is not None:
        if scenario is not None:
            raise InputError(
                [
                    error(
                        "--resume continues a saved game: it has its own scenario",
                        where="--scenario",
                    )
                ]
            )
        game = resume_game(checked, resume, policy, chosen)
    else:
        game = new_game(checked, scenario, seed, spec, chosen)
    holder["game"] = game
    sink = open(trace, "w", encoding="utf-8") if trace else None  # noqa: SIM115 - closed below
    try:
        with located_in(checked.book.sources):
            if sink is not None:
                sink.write(json.dumps(trace_header(game, rulebook, resume), sort_keys=True) + "\n")
            result = game.play(turns, sink, explain_turn if explain and not as_json else None)
            if sink is not None:
                write_trace_footer(sink, result)
    finally:
        if sink is not None:
            sink.close()
    if save:
        game.save(save)
    if as_json:
        import cattrs

        _emit_json(cattrs.Converter().unstructure(result))
        return
    print_run(result, save)


@main.command("replay")
@click.argument("trace")
@click.option("--rulebook", "rulebook", help="The rulebook, if not where the trace says.")
@json_flag
@reports_errors
def replay_cmd(trace: str, rulebook: str | None, as_json: bool) -> None:
    """Re-run a recorded game from its trace and confirm it ends in the same state."""
    import json as _json

    from rulekit.play.runner import replay

    try:
        with open(trace, encoding="utf-8") as handle:
            header = _json.loads(handle.readline() or "{}")
    except (OSError, ValueError):
        raise InputError([error(f"'{trace}' is not a rulekit trace", where="replay")]) from None
    checked = load(rulebook or header.get("rulebook", ""), header.get("options", []))
    report = replay(checked, trace)
    if as_json:
        _emit_json(
            {
                "ok": True,
                "turns": report.turns,
                "events": report.events,
                "state_hash": report.state_hash,
            }
        )
        return
    out.print(
        Text(
            f"replay matches: {report.turns} turn(s), {report.events} event(s), "
            f"end state {report.state_hash[:16]}"
        )
    )


@main.command("simulate")
@click.argument("rulebook")
@option_switches
@click.option("--runs", "runs", type=click.IntRange(min=1), required=True, help="How many games.")
@click.option(
    "--workers",
    "workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes.",
)
@click.option(
    "--seed", "seed", type=int, default=0, show_default=True, help="Seed of the first game."
)
@click.option(
    "--scenario", "scenario", metavar="NAME|FILE", help="A scenario (default: the rulebook's)."
)
@click.option("--policy", "policy", default="default", show_default=True, help="default or random.")
@click.option("--turns", "turns", type=int, help="Stop each game after this many turns.")
@json_flag
@reports_errors
def simulate_cmd(
    rulebook: str,
    options: tuple[str, ...],
    runs: int,
    workers: int,
    seed: int,
    scenario: str | None,
    policy: str,
    turns: int | None,
    as_json: bool,
) -> None:
    """Monte Carlo: many games over seeds, with summary statistics."""
    from rich.progress import Progress

    from rulekit.play.simulate import simulate

    if policy not in ("default", "random"):
        raise InputError(
            [
                error(
                    f"simulate plays without a player: '{policy}' cannot be used",
                    where="--policy",
                    hint="use default or random",
                )
            ]
        )
    checked = load(rulebook, options)  # check it (and the scenario) before starting workers
    from rulekit.play.scenario import find_scenario

    find_scenario(checked, scenario or checked.book.default_scenario or "")
    with Progress(console=err, transient=True, disable=as_json) as bar:
        task = bar.add_task("simulating", total=runs)
        result = simulate(
            rulebook,
            scenario,
            runs,
            seed,
            workers,
            policy,
            turns,
            lambda n: bar.advance(task, n),
            options,
        )
    if as_json:
        import cattrs

        data = cattrs.Converter().unstructure(result)
        _emit_json(data)
        return
    grid = Table(title=f"{runs} games, seeds {seed}..{seed + runs - 1}")
    for column in ("value", "mean", "sd", "min", "p5", "median", "p95", "max"):
        grid.add_column(column, justify="right" if column != "value" else "left")
    for stat in result.stats:
        grid.add_row(
            stat.name,
            f"{stat.mean:.2f}",
            f"{stat.sd:.2f}",
            f"{stat.min:g}",
            f"{stat.p5:g}",
            f"{stat.p50:g}",
            f"{stat.p95:g}",
            f"{stat.max:g}",
        )
    out.print(grid)
    for ending, count in result.endings.items():
        out.print(Text(f"  {count:>5}  {ending}"))


main.add_command(compile_cmd)  # rulekit.cli.compile_cmd

if __name__ == "__main__":  # pragma: no cover
    main()
