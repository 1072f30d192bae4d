"""``rulekit advise``: the best decision at every point of a procedure (rulekit.analysis.advice)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import click

from rulekit.cli.budget_opts import exact_budgets
from rulekit.cli.internal import reports_errors
from rulekit.limits import DEFAULT_STEP_BUDGET

SHOWN = 12  # decisions printed; --json has them all


@click.command("advise")
@click.argument("rulebook")
@click.argument("procedure")
@click.option("--option", "options", multiple=True, metavar="NAME", help="An optional rule.")
@click.option("--maximize", metavar="EXPR", help="What to make as large as possible ('result').")
@click.option("--minimize", metavar="EXPR", help="What to make as small as possible.")
@click.option("--given", type=click.Path(dir_okay=False), help="Inputs and state (TOML).")
@click.option("--at", "at", multiple=True, metavar="NAME=VALUE", help="An input or state value.")
@click.option(
    "--decide", "decide", multiple=True, metavar="NAME=VALUE", help="Fix a decision: not advised."
)
@exact_budgets
@click.option(
    "--max-steps",
    type=click.IntRange(min=1),
    default=DEFAULT_STEP_BUDGET,
    show_default=True,
    help="The step budget of each run.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@reports_errors
def advise_cmd(
    rulebook: str,
    procedure: str,
    options: tuple[str, ...],
    maximize: str | None,
    minimize: str | None,
    given: str | None,
    at: tuple[str, ...],
    decide: tuple[str, ...],
    method: str,
    max_paths: int,
    max_situations: int,
    tolerance: float,
    max_seconds: float | None,
    max_steps: int,
    as_json: bool,
) -> None:
    """The best decisions of a procedure, exactly: each decision reached, every option's
    expected value, the best, and how much better it is than the rulebook's default.

    \b
    Examples:
      rulekit advise examples/tutorial fire_phase --at weather=Haze \\
          --maximize "if result = sunk then 1 else 0"
      rulekit advise rulebooks/silent_war combat_round --decide column=B \\
          --given examples/silent_war/spearfish_14_15.toml --minimize sub.damage

    By situations (the default), runs that reach the same situation are merged, so a
    whole combat is solved, and a loop with decisions in it is solved exactly as a Markov
    decision process (policy iteration); --method paths enumerates every path of dice and
    decisions instead (within --max-paths; fix some decisions with --decide).
    """
    from rich.text import Text

    from rulekit.analysis.advice import advise
    from rulekit.analysis.prob import ask
    from rulekit.book.checker import load
    from rulekit.book.inputs import assignments
    from rulekit.cli.show import err, out
    from rulekit.errors import located_in

    if (maximize is None) == (minimize is None):
        raise click.UsageError("give one of --maximize EXPR or --minimize EXPR")
    goal = maximize if maximize is not None else minimize
    assert goal is not None
    from rulekit.cli.progress import working

    checked = load(rulebook, list(options))
    with located_in(checked.book.sources), working(err, "advise: working it out", as_json):
        question = ask(checked, procedure, given=given, at=at, decide=decide, of=goal)
        answered = {name for name, _ in assignments(decide, "--decide")}
        wanted = f"{'maximize' if maximize else 'minimize'} {goal}"
        if method == "situations" and question.target.kind == "procedure":
            from rulekit.analysis.advice_situations import advise_by_situations

            advice = advise_by_situations(
                checked,
                question,
                wanted,
                minimize is not None,
                answered,
                max_paths,
                max_steps,
                max_situations,
                tolerance=tolerance,
                max_seconds=max_seconds,
            )
        else:
            advice = advise(
                checked,
                question,
                wanted,
                minimize is not None,
                answered,
                max_paths,
                max_steps,
                max_seconds=max_seconds,
            )
    if as_json:
        click.echo(json.dumps(_json(advice), indent=2, ensure_ascii=False))
        return
    what = advice.what.split(", of: ")[0]
    how = (
        f"{advice.paths} path(s)"
        if advice.situations is None
        else f"{advice.situations} situation(s), {advice.paths} run(s) between them"
    )
    out.print(Text(f"{what}: {advice.goal} ({how})"))
    out.print(Text(f"  with the best decisions: {_num(advice.best)}"))
    out.print(Text(f"  with the rulebook's defaults: {_num(advice.by_default)}"))
    if advice.unresolved is not None:
        out.print(
            Text(
                f"  situations less likely than --tolerance {tolerance:g} left unexplored, "
                f"worth 0 (reached {advice.unresolved:.3g} at most)"
            )
        )
    if not advice.decisions:
        out.print(Text("no decision to advise"))
    for d in advice.decisions[:SHOWN]:
        rule = f" [{d.rule}]" if d.rule else ""
        before = ", ".join(d.before) if d.before else "first"
        out.print(Text(f"decision {d.name}{rule} after: {before} (reached {_pct(d.reach)})"))
        for k, option in enumerate(d.options):
            marks = [m for m, on in (("best", k == d.best), ("default", k == d.default)) if on]
            tag = f"  <- {', '.join(marks)}" if marks else ""
            out.print(Text(f"    {option.label:<20} {_num(option.value)}{tag}"))
        if d.gain:
            out.print(Text(f"    the best is {_num(d.gain)} better than the default"))
    if len(advice.decisions) > SHOWN:
        out.print(Text(f"... and {len(advice.decisions) - SHOWN} more decision(s) (see --json)"))


def _num(x: Fraction) -> str:
    return f"{float(x):.4f}" + (f" ({x})" if x.denominator != 1 else "")


def _pct(p: Fraction) -> str:
    return f"{float(p) * 100:.1f}%"


def _json(advice: Any) -> dict[str, Any]:
    def frac(x: Fraction | None) -> Any:
        return None if x is None else {"exact": str(x), "float": float(x)}

    return {
        "what": advice.what,
        "goal": advice.goal,
        "paths": advice.paths,
        "situations": advice.situations,
        "unresolved": advice.unresolved,
        "best": frac(advice.best),
        "by_default": frac(advice.by_default),
        "decisions": [
            {
                "name": d.name,
                "rule": d.rule,
                "after": d.before,
                "reach": frac(d.reach),
                "options": [{"option": o.label, "value": frac(o.value)} for o in d.options],
                "best": d.options[d.best].label,
                "default": None if d.default is None else d.options[d.default].label,
                "gain": frac(d.gain),
            }
            for d in advice.decisions
        ],
    }
