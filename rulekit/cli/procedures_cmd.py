"""`rulekit procedures`: what a rulebook can resolve. The work is in
:mod:`rulekit.cli.procedures_view`, imported only when the command runs."""

from __future__ import annotations

import click


@click.command("procedures")
@click.argument("rulebook")
@click.option("--option", "options", multiple=True, metavar="NAME", help="An optional rule.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def procedures_cmd(rulebook: str, options: tuple[str, ...], as_json: bool) -> None:
    """List the procedures and modifier lists: rule, parameters, types and decisions."""
    from rulekit.cli.procedures_view import show_procedures

    show_procedures(rulebook, options, as_json)
