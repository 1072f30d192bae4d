"""``rulekit report DIR``: the summary, CSV and plots of a ``simulate --out`` study, read
from the shards it finished, without playing a game again."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import click


def register(
    main: click.Group, json_flag: Callable[[Any], Any], reports_errors: Callable[[Any], Any]
) -> None:
    """Add the command to the group (called once by cli/main.py)."""

    @main.command("report")
    @click.argument("directory", metavar="DIR")
    @click.option(
        "--csv", "csv_file", type=click.File("w"), metavar="FILE", help="One row per game."
    )
    @click.option("--plot", "plot", metavar="FILE.svg|png|pdf", help="Histograms and endings.")
    @json_flag
    @reports_errors
    def report_cmd(
        directory: str, csv_file: IO[str] | None, plot: str | None, as_json: bool
    ) -> None:
        """Summarise a finished (or partial) `simulate --out DIR` study without playing.

        The same summary as `simulate` prints, from the shards' summaries in DIR/_meta/;
        a study stopped part way is summarised over the games it finished, and the seeds
        still to play are named.

        \b
        Examples (STUDY is the folder of `rulekit simulate ... --out STUDY`):
          rulekit report STUDY
          rulekit report STUDY --csv GAMES.csv --plot STUDY.svg
        """
        from rich.text import Text

        from rulekit.cli.show import err
        from rulekit.cli.simulate_cmd import print_simulation
        from rulekit.play.sim_store import write_csv
        from rulekit.play.simulate import report

        if plot is not None:
            from rulekit.play.sim_plots import need_matplotlib

            need_matplotlib(plot)
        result, done = report(directory)
        if csv_file is not None:
            write_csv(Path(directory), done, csv_file)
        if plot is not None:
            from rulekit.play.sim_plots import plot_simulation

            plot_simulation(result, plot)
        if as_json:
            import cattrs

            click.echo(
                json.dumps(cattrs.Converter().unstructure(result), indent=2, ensure_ascii=False)
            )
        else:
            print_simulation(result)
        missing = result.run.get("missing") or []
        if missing:
            ranges = ", ".join(f"{a}..{b - 1}" for a, b in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            err.print(
                Text(f"not played yet: seeds {ranges}{more} (the same simulate command resumes)")
            )
