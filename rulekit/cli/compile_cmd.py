"""``rulekit compile RULEBOOK NAME``: the Python source a procedure runs as, for a reader.

Each line ends with the rulebook line it was generated from (rulekit.engine.codegen).
"""

from __future__ import annotations

import sys

import click


@click.command("compile")
@click.argument("rulebook")
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="NAME",
    help="Switch on an optional rule of the rulebook (repeatable).",
)
@click.argument("name")
@click.option(
    "--untraced", is_flag=True, help="The code run off the record (simulate, prob, defaults)."
)
def compile_cmd(rulebook: str, options: tuple[str, ...], name: str, untraced: bool) -> None:
    """Print the Python source generated for a procedure (by name or rule reference)."""
    from rich.text import Text

    from rulekit.book.checker import load
    from rulekit.book.inputs import find_target
    from rulekit.cli.show import err
    from rulekit.engine import codegen
    from rulekit.engine.interpreter import Interpreter
    from rulekit.errors import RulekitError, located_in

    try:
        checked = load(rulebook, options)
        with located_in(checked.book.sources):
            target = find_target(checked, name, ("procedure",))
    except RulekitError as exc:  # as every command reports bad input (cli.main.reports_errors)
        err.print(Text(exc.render(exc.sources)))
        sys.exit(1)
    comp = Interpreter(checked).code
    traced, off_record = codegen.procedures(comp, checked.book.procedures[target.name])
    click.echo((off_record if untraced else traced).annotated(), nl=False)
