"""``simulate --plot``: a histogram of each reported value and the endings as a bar chart.

matplotlib is an optional extra (``pip install -e '.[plot]'``); the figure is drawn from
the simulation's exact histograms, so a plot of a million games needs no per-game data.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rulekit.errors import InputError, error

if TYPE_CHECKING:
    from rulekit.play.simulate import SimulationResult

FORMATS = (".svg", ".png", ".pdf")


def need_matplotlib(path: str) -> Any:
    """pyplot on the file-only backend; a clear message if matplotlib or the format is wrong."""
    if Path(path).suffix.lower() not in FORMATS:
        raise InputError(
            [
                error(
                    f"cannot tell the picture format of '{path}'",
                    where="--plot",
                    hint="name a .svg, .png or .pdf file",
                )
            ]
        )
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display: the picture goes to a file
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError(
            [
                error(
                    "--plot draws with matplotlib, and it is not installed",
                    where="--plot",
                    hint="pip install -e '.[plot]'",
                )
            ]
        ) from None
    return plt


def plot_simulation(result: SimulationResult, path: str) -> None:
    plt = need_matplotlib(path)
    from matplotlib import ticker

    from rulekit.aids.plots import bin_edges

    varying = [s for s in result.stats if s.name not in result.constant]
    categories = [c for c in result.categories if c.name not in result.constant]
    panels = 1 + len(varying) + len(categories)
    columns = 2 if panels > 1 else 1
    rows = math.ceil(panels / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(6 * columns, 3.2 * rows), squeeze=False)
    cells = [ax for row in axes for ax in row]
    last = result.first_seed + result.runs - 1
    book = Path(result.rulebook).name
    what = f"{book}, {result.scenario}" if result.scenario else book
    figure.suptitle(f"{what}: {result.runs} games, seeds {result.first_seed}..{last}")

    ax = cells[0]
    names = [g.name for g in result.groups]
    shares = [g.percent for g in result.groups]
    errors = [
        [g.percent - g.low for g in result.groups],
        [g.high - g.percent for g in result.groups],
    ]
    ax.barh(names, shares, xerr=errors, color="#4c72b0", capsize=3)
    ax.invert_yaxis()
    ax.set_xlabel("% of games (bars: 95% confidence interval)")
    ax.set_title("endings")

    for ax, s in zip(cells[1:], varying, strict=False):
        values = [float(v) for v in s.histogram]
        counts = list(s.histogram.values())
        # the exact histogram's values weighted by their games, in bins: a bar per value
        # only for a few whole numbers close together (tonnage has thousands of values)
        ax.hist(values, bins=bin_edges(values), weights=counts, color="#55a868")
        ax.axvline(s.mean, color="#c44e52", linestyle="--", label=f"mean {s.mean:.2f}")
        ax.set_title(s.name)
        ax.set_ylabel("games")
        ax.yaxis.set_major_locator(ticker.MaxNLocator(integer=True))
        if all(float(v).is_integer() for v in values):
            ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
        ax.legend(loc="upper right", fontsize="small")

    for ax, c in zip(cells[1 + len(varying) :], categories, strict=False):
        ranked = sorted(c.counts.items(), key=lambda kv: (-kv[1], kv[0]))[:15]
        ax.barh([k for k, _ in ranked], [v for _, v in ranked], color="#8172b2")
        ax.invert_yaxis()
        ax.set_title(c.name)
        ax.set_xlabel("games")

    for ax in cells[panels:]:
        ax.set_visible(False)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
