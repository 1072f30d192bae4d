"""`rulekit rulebooks` (the rulebooks that come with rulekit, usable by name from any
directory) and `rulekit scenarios RULEBOOK` (a rulebook's scenarios: title, length, default)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click


def _header(folder: Path) -> Any:
    """The ``rulebook "..."`` line of a rulebook's entry file (parsed, not the whole book)."""
    from rulekit.language import nodes as n
    from rulekit.language.cache import cached_parse
    from rulekit.language.parser import parse

    entry = folder / "rulebook.rk"
    module = cached_parse(entry.read_text(encoding="utf-8"), str(entry), parse)
    return next((d for d in module.decls if isinstance(d, n.RulebookHeader)), None)


def register(
    main: click.Group, json_flag: Callable[[Any], Any], reports_errors: Callable[[Any], Any]
) -> None:
    """Add the commands to the group (called once by cli/main.py)."""

    @main.command("rulebooks")
    @json_flag
    @reports_errors
    def rulebooks_cmd(as_json: bool) -> None:
        """List the bundled rulebooks: give one by name (rulekit play silent_war) from any
        directory; a file or folder of that name there wins."""
        from rich.table import Table

        from rulekit import bundled
        from rulekit.cli.show import out

        rows: list[dict[str, Any]] = []
        for name, folder in bundled.rulebooks().items():
            header = _header(folder)
            rows.append(
                {
                    "name": name,
                    "title": header.name if header else "",
                    "edition": header.edition if header else None,
                    "default_scenario": header.scenario if header else None,
                    "kind": folder.parent.name,
                    "path": str(folder),
                }
            )
        if as_json:
            click.echo(__import__("json").dumps(rows, indent=2, ensure_ascii=False))
            return
        table = Table("name", "title", "default scenario", "from")
        for row in rows:
            title = row["title"] + (f", edition {row['edition']}" if row["edition"] else "")
            table.add_row(row["name"], title, row["default_scenario"] or "-", row["kind"] + "/")
        out.print(table)

    @main.command("scenarios")
    @click.argument("rulebook")
    @json_flag
    @reports_errors
    def scenarios_cmd(rulebook: str, as_json: bool) -> None:
        """List a rulebook's scenarios: name, title, turns, the default."""
        from rich.table import Table

        from rulekit.book.checker import load
        from rulekit.cli.show import out
        from rulekit.play.scenario import find_scenario, list_scenarios, load_scenario

        checked = load(rulebook)
        default = checked.book.default_scenario
        rows: list[dict[str, Any]] = []
        for name in list_scenarios(checked):
            info = load_scenario(checked, find_scenario(checked, name)).info
            rows.append(
                {
                    "name": name,
                    "title": info.title,
                    "turns": info.turns,
                    "rule": info.rule,
                    "default": name == default,
                }
            )
        if as_json:
            click.echo(__import__("json").dumps(rows, indent=2, ensure_ascii=False))
            return
        table = Table("scenario", "title", "turns", "default")
        for row in rows:
            table.add_row(
                row["name"], row["title"], str(row["turns"]), "yes" if row["default"] else ""
            )
        out.print(table)
