"""``rulekit render``: chart cards written as one HTML page or one Markdown file per rulebook.

The layout is in jinja2 templates (``templates/``); the model they read is
:mod:`rulekit.aids.cards`. The HTML page is self-contained: its CSS is inline and it loads
nothing, so it can be opened, printed or mailed as one file.
"""

from __future__ import annotations

import re
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from rulekit.aids.cards import Deck

FORMATS = {"html": "book.html.j2", "markdown": "book.md.j2", "pdf": "book.html.j2"}
SUFFIXES = {"html": ".html", "markdown": ".md", "pdf": ".pdf"}


def _md(text: object) -> str:
    """Text safe inside a GitHub table cell: pipes escaped, no line breaks, no stray markup."""
    out = str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    return re.sub(r"([*_`<>\[\]])", r"\\\1", out)


def _css_string(text: object) -> Markup:
    """Text as a CSS string literal, for a ``content:`` inside the page's ``<style>``: quotes,
    backslashes, line breaks and ``<`` escaped as CSS escapes (HTML escaping does not apply
    inside a style element, and ``</style>`` must not end it)."""
    out = ['"']
    for ch in str(text):
        if ch in '"\\<>&' or ord(ch) < 32:
            out.append(f"\\{ord(ch):x} ")
        else:
            out.append(ch)
    out.append('"')
    return Markup("".join(out))


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("rulekit.aids", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html.j2",), default=False),
        undefined=StrictUndefined,
        trim_blocks=False,
        keep_trailing_newline=True,
    )
    env.filters["md"] = _md
    env.filters["css_string"] = _css_string
    return env


def render_text(deck: Deck, fmt: str, paper: str | None = None) -> str:
    """The page of a deck in ``html`` or ``markdown``; ``paper`` (``A4``, ``letter``) fixes the
    printed page size of the HTML (left to the browser's print dialog when none)."""
    return _environment().get_template(FORMATS[fmt]).render(deck=deck, paper=paper)


def file_name(deck: Deck, fmt: str) -> str:
    """``silent_war-2.1.html``: the rulebook, edition, options and variant in the name."""
    parts = [deck.name, deck.edition or "", *deck.options]
    stem = "-".join(re.sub(r"[^A-Za-z0-9.]+", "_", p).strip("_") for p in parts if p)
    return (stem or "rulebook") + SUFFIXES[fmt]


def target(deck: Deck, fmt: str, out: Path) -> Path:
    """Where ``-o`` puts the file: ``out`` itself when it names a file of the format
    (``aids.pdf``), else a file named after the rulebook inside the folder ``out``."""
    if out.suffix.lower() == SUFFIXES[fmt] and not out.is_dir():
        return out
    return out / file_name(deck, fmt)


def write(deck: Deck, fmt: str, out: Path, paper: str | None = None) -> Path:
    """Write the aids as ``fmt`` to ``out`` (a folder, or a file named with the format's
    suffix) and return the path written. ``pdf`` prints the HTML page with headless
    Chromium (:mod:`rulekit.aids.pdf`) on ``paper`` (``a4`` unless given)."""
    path = target(deck, fmt, out)
    if fmt == "pdf":
        from rulekit.aids.pdf import PAPERS, print_pdf

        print_pdf(render_text(deck, fmt, PAPERS[paper or "a4"]), path)
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    css_paper = None if paper is None else {"a4": "A4", "letter": "letter"}[paper]
    path.write_text(render_text(deck, fmt, css_paper), encoding="utf-8")
    return path
