"""The command line: check, tables, lookup, resolve.

Only click is imported up front: each command imports what it needs when it runs, so
``rulekit --help`` (and a mistyped command) answers at once (tests/test_startup.py).
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from rulekit.cli import internal
from rulekit.cli.budget_opts import exact_budgets
from rulekit.cli.play_cmd import turn_steps_option
from rulekit.limits import DEFAULT_STEP_BUDGET

F = TypeVar("F", bound=Callable[..., Any])


def _emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


# bad input: file:line:col, exit 1; a bug of ours: exit 70, never a traceback
reports_errors = internal.reports_errors


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

plot_file = click.option(
    "--plot", "plot", metavar="FILE.svg|png", help="Draw the distribution (needs matplotlib)."
)
max_steps_option = click.option(
    "--max-steps",
    "max_steps",
    type=click.IntRange(min=1),
    default=DEFAULT_STEP_BUDGET,
    show_default=True,
    help="The step budget of a procedure call or turn (time and memory; see docs/rulebooks.md).",
)
option_switches = click.option(
    "--option",
    "options",
    multiple=True,
    metavar="NAME",
    help="Switch on an optional rule of the rulebook (repeatable).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rulekit", prog_name="rulekit")
def main() -> None:
    """rulekit: wargame rules as data, executed exactly, explained rule by rule.

    RULEBOOK is a rulebook directory (with a rulebook.rk), a .rk file, a variant file, or
    DIR@VARIANT for a variant in the rulebook's editions/ or variants/ folder.
    """


@main.command("check")
@click.argument("rulebook")
@option_switches
@click.option(
    "--provenance",
    is_flag=True,
    help="Count the values printed, derived from worked examples and provisional, table by table.",
)
@json_flag
@reports_errors
def check_cmd(rulebook: str, options: tuple[str, ...], provenance: bool, as_json: bool) -> None:
    """Parse and validate a rulebook; count its provisional values.

    \b
    Examples:
      rulekit check rulebooks/silent_war
      rulekit check rulebooks/gato_leader --provenance
      rulekit check rulebooks/attack_sub --json
    """
    from rich.text import Text

    from rulekit.book.checker import check
    from rulekit.book.loader import load_rulebook
    from rulekit.cli.provenance_view import print_provenance, provenance_json
    from rulekit.cli.show import err, options_of, out, print_summary
    from rulekit.errors import RulekitError

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
    scenarios = _scenarios_of(checked) if ok else []
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
                "provenance": provenance_json(book),
                "scenarios": [
                    {
                        "name": s.name,
                        "provisional": s.info.provisional,
                        "provisional_values": [{"what": w, "reason": r} for w, r in s.marks],
                    }
                    for s in scenarios
                ],
            }
        )
    else:
        for diag in checked.errors + checked.warnings:
            err.print(Text(RulekitError([diag]).render(sources)))
        print_summary(checked, rulebook)
        for s in scenarios:
            if s.marks:
                out.print(Text(f"scenario {s.name}: {len(s.marks)} provisional value(s):"))
                for what, why in s.marks:
                    out.print(Text(f"  {what} ({why})"))
        if provenance:
            print_provenance(book, out)
    if not ok:
        sys.exit(1)


def _scenarios_of(checked: Any) -> list[Any]:
    """The rulebook's scenario files, read and checked (a broken one is an error)."""
    from rulekit.play.scenario import find_scenario, list_scenarios, load_scenario

    return [load_scenario(checked, find_scenario(checked, n)) for n in list_scenarios(checked)]


@main.command("tables")
@click.argument("rulebook")
@option_switches
@json_flag
@reports_errors
def tables_cmd(rulebook: str, options: tuple[str, ...], as_json: bool) -> None:
    """List the tables: rule reference, dice, dimensions, provenance."""
    from rich.table import Table
    from rich.text import Text

    from rulekit.book.checker import load
    from rulekit.cli.show import out, print_options

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
    from rich.text import Text

    from rulekit.api import load
    from rulekit.cli.show import out
    from rulekit.engine.values import show

    found = load(rulebook, options).lookup(table, at=list(at), roll=roll)
    if as_json:
        data: dict[str, Any] = {
            "table": found.table,
            "rule": found.rule,
            "roll": roll,
            "result": found.printed,
            "row": found.row,
            "provisional": found.provisional,
        }
        if found.then is not None:
            data["then"] = found.then
        _emit_json(data)
        return
    title = f' "{found.title}"' if found.title else ""
    key_text = ", ".join(f"{k}={show(v)}" for k, v in found.keys.items())
    mark = "  (provisional: not printed in the rules)" if found.provisional else ""
    out.print(
        Text(f"{found.table} [{found.rule}]{title} {key_text} -> row " + " / ".join(found.row))
    )
    out.print(Text(f"{found}{mark}"))


@main.command("resolve")
@click.argument("rulebook")
@option_switches
@click.argument("procedure")
@given_file
@at_values
@click.option("--dice", "dice", metavar="N,N,...", help="Force the natural die results, in order.")
@click.option("--seed", "seed", type=int, help="Seed for the dice (after any forced ones).")
@decide_answers
@max_steps_option
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
    from rich.text import Text

    from rulekit.api import load
    from rulekit.book.inputs import parse_dice
    from rulekit.cli.show import err, out
    from rulekit.engine.trace import render_text
    from rulekit.engine.values import show, to_json

    outcome = load(rulebook, options).resolve(
        procedure,
        given=given,
        at=list(at),
        dice=parse_dice(dice) if dice is not None else None,
        seed=seed,
        decide=list(decide),
        max_steps=max_steps,
    )
    assert outcome.trace is not None  # asked for (the default)
    if outcome.note:  # a chart code numbering a table and procedures: which one ran
        err.print(Text(f"note: {outcome.note}"))
    if as_json:
        _emit_json(
            {
                "procedure": outcome.name,
                "kind": outcome.kind,
                "rule": outcome.rule,
                "seed": outcome.seed,
                "args": {k: to_json(v) for k, v in outcome.args.items()},
                "result": outcome.value,
                "trace": outcome.trace.to_json(),
                "state": outcome.state,
                "provisional_used": outcome.provisional_used,
            }
        )
        return
    for line in render_text(outcome.trace):
        out.print(Text(line))
    out.print(Text(f"result: {show(outcome.result)}"))
    if outcome.seed is not None:
        out.print(Text(f"seed: {outcome.seed}"))
    if outcome.provisional_used:
        out.print(Text("used provisional values (not printed in the rules):"))
        for item in outcome.provisional_used:
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
@exact_budgets
@click.option("--samples", "samples", type=int, help="Estimate from this many seeded runs instead.")
@click.option("--seed", "seed", type=int, default=1, show_default=True, help="Seed for --samples.")
@plot_file
@max_steps_option
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
    method: str,
    max_situations: int,
    tolerance: float,
    max_seconds: float | None,
    samples: int | None,
    seed: int,
    plot: str | None,
    max_steps: int,
    as_json: bool,
) -> None:
    """Exact probabilities of every result of a procedure or table.

    A procedure is solved by its situations: runs that reach the same situation (the
    same place, the same locals still to be read, the same game state) are merged, and
    repeated rounds are solved as a Markov chain, so a battle fought to the end is
    exact. A table is solved over every path of its dice.

    \b
    Examples:
      rulekit prob rulebooks/steel_wolves_like minefield --at crew=Veteran
      rulekit prob examples/battle/rulebook.rk battle --at attacker=10 --at defender=10
      rulekit prob examples/battle/rulebook.rk throws_to_six --tolerance 1e-9
      rulekit prob rulebooks/silent_war combat_round \\
          --given examples/silent_war/spearfish_14_15.toml --of sub.damage
    """
    from rulekit.api import load
    from rulekit.cli.plot_cmd import check_plot_target, plot_distribution
    from rulekit.cli.progress import working
    from rulekit.cli.show import err, print_distribution

    target = check_plot_target(plot) if plot else None
    with working(err, "prob: working out the odds", as_json):
        dist = load(rulebook, options).prob(
            procedure,
            given=given,
            at=list(at),
            decide=list(decide),
            of=of,
            max_paths=max_paths,
            method=method,
            max_situations=max_situations,
            tolerance=tolerance,
            max_seconds=max_seconds,
            samples=samples,
            seed=seed,
            max_steps=max_steps,
        )
    if target is not None:
        plot_distribution(dist, target)
    if dist.note:
        from rich.text import Text

        err.print(Text(f"note: {dist.note}"))
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
@plot_file
@max_steps_option
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
    plot: str | None,
    max_steps: int,
    as_json: bool,
) -> None:
    """What changed from OLD to NEW (rulebooks or variants, e.g. DIR@1.1 DIR).

    Exit code 0: no differences; 3: differences; 1: bad input.
    """
    from rulekit.analysis.behaviour import Behaviour, Probe, compare_behaviour
    from rulekit.analysis.diff import compare
    from rulekit.book.checker import load
    from rulekit.cli.plot_cmd import check_plot_target, plot_comparisons
    from rulekit.cli.show import diff_json, out, print_diff
    from rulekit.errors import located_in

    target = check_plot_target(plot) if plot else None
    before, after = load(old, options), load(new, options)
    changes = compare(before, after)
    wanted = [Probe(p, list(at), given, of, list(decide)) for p in probes]
    behaviour = Behaviour()
    if not structure_only:
        with located_in(after.book.sources):
            behaviour = compare_behaviour(before, after, changes, wanted, seed, list(at), max_steps)
    differs = bool(changes) or any(c.differs for c in behaviour.comparisons)
    if target is not None:
        plot_comparisons(before, after, behaviour, target, [*at, *(f"decide {d}" for d in decide)])
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

    from rich.text import Text

    from rulekit.book.loader import shown_path
    from rulekit.cli.show import out
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
@click.option("--dice", "dice", metavar="N,N,...", help="Force the turns' die results, in order.")
@click.option(
    "--turns", "turns", type=click.IntRange(min=0), help="Play at most this many turns now."
)
@click.option(
    "--policy",
    "policy",
    default=None,
    metavar="P",
    help="default, random, interactive, scripted:FILE.toml or advised:EXPR (at each decision "
    "the option worth the most EXPR; advised:min:EXPR the least; advised:situations:EXPR "
    "also by situations over the path budget)  [default: default]",
)
@click.option("--save", "save", metavar="FILE", help="Save the game when this run stops.")
@click.option("--resume", "resume", metavar="FILE", help="Continue a saved game.")
@click.option(
    "--trace",
    "trace",
    metavar="FILE",
    help="Write every event as JSON lines (FILE.jsonl.gz or .zst: compressed).",
)
@click.option(
    "--explain",
    "explain",
    is_flag=False,
    flag_value="story",
    default=None,
    type=click.Choice(["story", "all"]),
    help="Print every turn's rolls, rows, decisions and changes with their rules; "
    "book-keeping (range and distance look-ups) folded. --explain all: every event.",
)
@turn_steps_option
@json_flag
@reports_errors
def run_cmd(
    rulebook: str,
    options: tuple[str, ...],
    scenario: str | None,
    seed: int | None,
    dice: str | None,
    turns: int | None,
    policy: str | None,
    save: str | None,
    resume: str | None,
    trace: str | None,
    explain: str | None,
    max_steps: int | None,
    as_json: bool,
) -> None:
    """Play a scenario turn after turn through the rulebook's sequence of play."""
    from rich.text import Text

    from rulekit.book.checker import load
    from rulekit.cli.progress import turns_progress
    from rulekit.cli.show import err, explain_turn, print_run
    from rulekit.engine.policy import InteractivePolicy
    from rulekit.engine.trace import render_event
    from rulekit.errors import InputError, error, located_in
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
        game = resume_game(checked, resume, policy, chosen, scenario)
    else:
        game = new_game(checked, scenario, seed, spec, chosen)
    from rulekit.cli.run_dice import force_dice, release_dice

    force_dice(game, dice, seeded=seed is not None or resume is not None)
    holder["game"] = game
    if isinstance(chosen, InteractivePolicy):
        from rulekit.play.screen import Viewer

        chosen.describe = Viewer(checked, game.interp).interpolate
    if max_steps is not None:
        game.interp.set_budget(max_steps)
    if save:
        from rulekit.cli.paths import held_for, save_or_rescue

        held_for(save, "--save")  # writable, one run at a time: before playing, not after
    try:
        from rulekit.play.trace_io import open_sink

        sink = open_sink(trace) if trace else None  # .gz/.zst compressed; closed below
    except OSError as exc:
        raise InputError(
            [error(f"cannot write '{trace}': {exc.strerror}", where="--trace")]
        ) from None
    from rulekit.cli.simulate_cmd import stopped_by_sigterm

    # the game at the end of the last whole turn: what a run stopped mid-turn saves
    kept = [game.save_file()] if save else []
    try:
        with located_in(checked.book.sources), stopped_by_sigterm():
            if sink is not None:
                sink.write(json.dumps(trace_header(game, rulebook, resume), sort_keys=True) + "\n")
            shown = functools.partial(explain_turn, every=explain == "all")
            quiet = as_json or bool(explain) or isinstance(chosen, InteractivePolicy)
            with turns_progress(err, game.turns_left(turns), quiet) as advance:
                each = shown if explain and not as_json else advance

                def turn_end(turn: int, events: list[Any]) -> None:
                    if each is not None:
                        each(turn, events)
                    if kept:
                        kept[0] = game.save_file()

                result = game.play(turns, sink, turn_end)
            if sink is not None:
                write_trace_footer(sink, result)
    except KeyboardInterrupt as stop:
        from rulekit.cli.paths import stopped_run

        stopped_run(stop, game.turn, save, kept[0] if kept else None)
    finally:
        if sink is not None:
            sink.close()
    release_dice(game)
    if save:
        save_or_rescue(save, "--save", game.save)  # a full disk: written elsewhere, said where
    if as_json:
        import cattrs

        _emit_json(cattrs.Converter().unstructure(result))
        return
    print_run(result, save)


from rulekit.cli import simulate_opts  # noqa: E402 - a module of its own

simulate_opts.register(main, option_switches, json_flag, reports_errors)

from rulekit.cli.play_cmd import play_cmd  # noqa: E402 - registered last: a module of its own
from rulekit.cli.procedures_cmd import procedures_cmd  # noqa: E402

main.add_command(play_cmd)
main.add_command(procedures_cmd)

# commands in modules of their own, imported last (they import this module's options)
from rulekit.cli import (  # noqa: E402
    library_cmd,
    odds_cmd,
    plot_cmd,
    render_cmd,
    replay_cmd,
    report_cmd,
)
from rulekit.cli.advise_cmd import advise_cmd  # noqa: E402
from rulekit.cli.compile_cmd import compile_cmd  # noqa: E402
from rulekit.cli.lsp_cmd import lsp_cmd  # noqa: E402 - the language server

render_cmd.register(main, option_switches, reports_errors)
plot_cmd.register(main, reports_errors)
report_cmd.register(main, json_flag, reports_errors)
replay_cmd.register(main, json_flag, reports_errors, _emit_json)
library_cmd.register(main, json_flag, reports_errors)
for command in (compile_cmd, advise_cmd, odds_cmd.odds_cmd, lsp_cmd):
    main.add_command(command)

if __name__ == "__main__":  # pragma: no cover
    main()
