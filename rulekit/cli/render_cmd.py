"""``rulekit render``: printable chart cards of a rulebook's tables (HTML or Markdown)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click


def _out() -> Any:
    from rulekit.cli.show import out

    return out


def register(
    main: click.Group, options: Callable[[Any], Any], reports_errors: Callable[[Any], Any]
) -> None:
    """Add the command to the group (called once by cli/main.py, with its shared pieces)."""

    @main.command("render")
    @click.argument("rulebook")
    @options
    @click.option(
        "--format",
        "fmt",
        type=click.Choice(["html", "markdown"]),
        default="html",
        show_default=True,
        help="One self-contained HTML page, or GitHub Markdown.",
    )
    @click.option(
        "-o",
        "--out",
        "out_dir",
        default=".",
        show_default=True,
        metavar="DIR",
        help="Write the file into this folder.",
    )
    @click.option(
        "--table",
        "tables",
        multiple=True,
        metavar="NAME_OR_RULE",
        help="Only this table, by name or rule number (repeatable).",
    )
    @reports_errors
    def render_cmd(
        rulebook: str, options: tuple[str, ...], fmt: str, out_dir: str, tables: tuple[str, ...]
    ) -> None:
        """Player aids: every table as a printable chart card, with its modifiers and notes."""
        from rulekit.aids.cards import build_deck
        from rulekit.aids.render import write
        from rulekit.book.checker import load

        deck = build_deck(load(rulebook, options), list(tables))
        path = write(deck, fmt, Path(out_dir))
        _out().print(f"{path}: {len(deck.cards)} chart card(s)", highlight=False)
