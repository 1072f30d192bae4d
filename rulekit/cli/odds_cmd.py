"""`rulekit odds "2d6+1"`: the exact odds of a dice expression, without writing a rulebook.

The expression is the language's own (a roll as it follows ``roll``: ``2d6+1``, ``highest of
3d10``, a comparison ``3d6 >= 12``), with ``roll`` put in front of each dice term and one
shorthand, ``highest N of MdX`` (``lowest``), for the sum of the N highest of M dice
(``sum(x for x in keep_highest(roll MdX, N))``). It becomes the one ``return`` of a generated
procedure in a generated rulebook that declares the dice it names (``dN`` = 1..N, ``dF``,
``d66``, ``d100``), which ``rulekit prob`` then solves exactly.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import click

# a dice term, as the grammar's DICE terminal reads it
_DICE = r"(?<![A-Za-z0-9_])(\d*)d(\d+|[A-Z][A-Za-z0-9]*)(?![A-Za-z0-9_])"
_KEEP = re.compile(r"\b(highest|lowest)\s+(\d+)\s+of\s+" + _DICE)
_ONE = re.compile(r"\b(highest|lowest)\s+of\s+" + _DICE)
_FACES = {"dF": "-1, 0, 1", "d66": "tens_units(d6, d6)", "d100": "1..100"}


def procedure_text(expr: str) -> str:
    """The expression as the language writes it: ``roll`` before each dice term."""
    text = _KEEP.sub(lambda m: f"sum(x for x in keep_{m[1]}(@{m[3]}d{m[4]}, {m[2]}))", expr.strip())
    # \x01 marks dice that already follow a roll's words (`highest of`): no `roll` for them
    text = _ONE.sub(lambda m: f"@{m[1]} of \x01{m[2]}d{m[3]}", text)
    text = re.sub(r"(?<!roll )(?<![@\x01])" + _DICE, lambda m: f"@{m[1]}d{m[2]}", text)
    if text.count("@") > 1:  # two rolls added up: each in brackets, as a roll's modifier
        text = re.sub(r"@(\d*d(?:\d+|[A-Z][A-Za-z0-9]*))", r"(@\1)", text)
    text = re.sub(r"(?<!roll )@", "roll ", text).replace("roll roll ", "roll ")
    return text.replace("@", "").replace("\x01", "")


def rulebook_text(expr: str) -> str:
    """A rulebook with the dice the expression names and one procedure, ``odds``."""
    names = {f"d{m[2]}" for m in re.finditer(_DICE, expr)}
    if "d66" in names:
        names.add("d6")
    lines = ['rulebook "odds"', ""]
    for name in sorted(names, key=lambda d: (d not in _FACES, len(d), d), reverse=True):
        faces = _FACES.get(name) or (f"1..{name[1:]}" if name[1:].isdigit() else None)
        if faces is None:
            raise click.UsageError(f"no faces known for {name}: write a rulebook that has it")
        lines.append(f"dice {name} = {faces}")
    lines += ["", "procedure odds", f"    return {procedure_text(expr)}", ""]
    return "\n".join(lines)


@click.command("odds")
@click.argument("expression")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def odds_cmd(expression: str, as_json: bool) -> None:
    """The exact odds of a dice expression: 2d6+1, highest 3 of 4d6, 3d6 >= 12.

    \b
    Examples:
      rulekit odds "2d6+1"
      rulekit odds "highest 3 of 4d6"
      rulekit odds "3d6 >= 12"
      rulekit odds "roll d6 explode 3" --json
    """
    import json

    import attrs
    from rich.text import Text

    from rulekit.api import load
    from rulekit.cli.show import err, print_distribution
    from rulekit.errors import RulekitError

    dist: Any = None
    with tempfile.TemporaryDirectory(prefix="rulekit-odds-") as folder:
        entry = Path(folder) / "odds.rk"
        entry.write_text(rulebook_text(expression), encoding="utf-8")
        try:
            dist = load(str(entry)).prob("odds")
            dist = attrs.evolve(dist, what=f"odds of {expression.strip()}")
        except RulekitError as exc:
            err.print(Text(exc.render(exc.sources).replace(str(entry), "EXPRESSION")))
            raise SystemExit(1) from None
    if as_json:
        click.echo(json.dumps(dist.to_json(), indent=2, ensure_ascii=False))
        return
    print_distribution(dist)
