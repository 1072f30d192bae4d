"""``rulekit render``: chart cards written as one HTML page or one Markdown file per rulebook.

The layout is in jinja2 templates (``templates/``); the model they read is
:mod:`rulekit.aids.cards`. The HTML page is self-contained: its CSS is inline and it loads
nothing, so it can be opened, printed or mailed as one file.
"""

from __future__ import annotations

import re
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from rulekit.aids.cards import Deck

FORMATS = {"html": "book.html.j2", "markdown": "book.md.j2"}
SUFFIXES = {"html": ".html", "markdown": ".md"}


def _md(text: object) -> str:
    """Text safe inside a GitHub table cell: pipes escaped, no line breaks, no stray markup."""
    out = str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    return re.sub(r"([*_`<>\[\]])", r"\\\1", out)


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("rulekit.aids", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html.j2",), default=False),
        undefined=StrictUndefined,
        trim_blocks=False,
        keep_trailing_newline=True,
    )
    env.filters["md"] = _md
    return env


def render_text(deck: Deck, fmt: str) -> str:
    """The page of a deck in ``html`` or ``markdown``."""
    return _environment().get_template(FORMATS[fmt]).render(deck=deck)


def file_name(deck: Deck, fmt: str) -> str:
    """``silent_war-2.1.html``: the rulebook, edition, options and variant in the name."""
    parts = [deck.name, deck.edition or "", *deck.options]
    stem = "-".join(re.sub(r"[^A-Za-z0-9.]+", "_", p).strip("_") for p in parts if p)
    return (stem or "rulebook") + SUFFIXES[fmt]


def write(deck: Deck, fmt: str, out_dir: Path) -> Path:
    """Write the page into ``out_dir`` and return its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / file_name(deck, fmt)
    path.write_text(render_text(deck, fmt), encoding="utf-8")
    return path
