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
        type=click.Choice(["html", "markdown", "pdf"]),
        default="html",
        show_default=True,
        help="One self-contained HTML page, GitHub Markdown, or a PDF to print (printed "
        "from the HTML page by headless Chromium: apt-get install chromium).",
    )
    @click.option(
        "--paper",
        type=click.Choice(["a4", "letter"], case_sensitive=False),
        default=None,
        help="Page size of the PDF (default a4), or of the HTML page when printed.",
    )
    @click.option(
        "-o",
        "--out",
        "out_dir",
        default=".",
        show_default=True,
        metavar="DIR_OR_FILE",
        help="Write into this folder (the file named after the rulebook), or to this file "
        "when it ends in the format's suffix (.html, .md, .pdf).",
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
        rulebook: str,
        options: tuple[str, ...],
        fmt: str,
        paper: str | None,
        out_dir: str,
        tables: tuple[str, ...],
    ) -> None:
        """Player aids: every table as a printable chart card, with its modifiers and notes.

        \b
        Examples:
          rulekit render rulebooks/silent_war -o /tmp/aids/
          rulekit render rulebooks/silent_war@1.1 --format markdown --table 14.2 -o /tmp/aids/
          rulekit render rulebooks/silent_war --format pdf --paper letter -o AIDS.pdf
        """
        from rulekit.aids.cards import build_deck
        from rulekit.aids.render import write
        from rulekit.book.checker import load

        deck = build_deck(load(rulebook, options), list(tables))
        path = write(deck, fmt, Path(out_dir), paper.lower() if paper else None)
        _out().print(f"{path}: {len(deck.cards)} chart card(s)", highlight=False)
