"""Distributions drawn with matplotlib (the optional ``[plot]`` extra): ``--plot FILE``.

:func:`bars` draws labelled probabilities or counts as horizontal bars, one series or
several side by side (``diff``: before and after); :func:`histograms` draws one histogram
per named list of numbers (``simulate``: each reported track). Both write an SVG or PNG
chosen by the file's suffix; the SVG is byte-for-byte the same for the same data.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from rulekit.errors import InputError, error

SUFFIXES = (".svg", ".png")
INSTALL = "pip install -e '.[plot]'  (or: pip install matplotlib)"


def check_target(path: str) -> Path:
    """The file to write, refused early when its suffix is not one we draw."""
    target = Path(path)
    if target.suffix.lower() not in SUFFIXES:
        raise InputError(
            [
                error(
                    f"cannot draw '{path}': --plot writes a .svg or .png file",
                    where="--plot",
                    hint="e.g. --plot odds.svg",
                )
            ]
        )
    _pyplot()
    return target


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise InputError(
            [
                error(
                    "--plot needs matplotlib, which is not installed",
                    where="--plot",
                    hint=INSTALL,
                )
            ]
        ) from None
    matplotlib.use("Agg")  # files only: never a window
    matplotlib.rcParams["svg.hashsalt"] = "rulekit"  # the same ids in every drawing
    matplotlib.rcParams["svg.fonttype"] = "none"  # words stay text: small, searchable
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = {"Date": None} if path.suffix.lower() == ".svg" else {}
    fig.savefig(path, metadata=metadata, dpi=120, bbox_inches="tight")
    _pyplot().close(fig)
    return path


def _percent(value: Fraction | float) -> float:
    return float(value) * 100


def bars(
    path: str | Path,
    title: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[Fraction | float | None]]],
    *,
    unit: str = "%",
) -> Path:
    """Horizontal bars, one group per label and one bar per series in each group.

    Values are probabilities (drawn as percentages, ``unit="%"``) or plain numbers such as
    counts (``unit=""``); ``None`` is a result a series does not have (no bar)."""
    plt = _pyplot()
    target = Path(path)
    count = max(1, len(series))
    height = 0.8 / count
    fig, ax = plt.subplots(figsize=(7.5, max(1.8, 0.32 * len(labels) * count + 1.0)))
    for k, (name, values) in enumerate(series):
        shown = [0.0 if v is None else (_percent(v) if unit == "%" else float(v)) for v in values]
        ys = [i + (k - (count - 1) / 2) * height for i in range(len(labels))]
        drawn = ax.barh(ys, shown, height=height * 0.95, label=name if name else None)
        ax.bar_label(
            drawn,
            labels=[
                "" if v is None else f"{x:.1f}{unit}" for v, x in zip(values, shown, strict=True)
            ],
            padding=2,
            fontsize=8,
        )
    ax.set_yticks(range(len(labels)), [str(label) for label in labels])
    ax.invert_yaxis()  # the first result on top, as in the terminal
    ax.set_xlabel("probability (%)" if unit == "%" else "count")
    ax.margins(x=0.15)
    ax.set_title(title, fontsize=10)
    if count > 1:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    return _save(fig, target)


def histograms(
    path: str | Path,
    title: str,
    tracks: dict[str, Sequence[float]],
    endings: dict[str, int] | None = None,
) -> Path:
    """One histogram per named track (the values of a track over the games) and, when
    given, the endings as a bar chart of counts."""
    plt = _pyplot()
    panels = len(tracks) + (1 if endings else 0)
    fig, axes = plt.subplots(panels, 1, figsize=(7.5, 2.2 * max(1, panels)), squeeze=False)
    for ax, (name, values) in zip(axes[:, 0], tracks.items(), strict=False):
        distinct = sorted(set(values))
        if distinct and all(float(v).is_integer() for v in distinct) and len(distinct) <= 60:
            edges = [v - 0.5 for v in range(int(distinct[0]), int(distinct[-1]) + 2)]
            ax.hist(values, bins=edges)
        else:
            ax.hist(values, bins=30)
        ax.set_title(name, fontsize=9)
        ax.set_ylabel("games")
    if endings:
        ax = axes[-1, 0]
        names = list(endings)
        ax.barh(range(len(names)), [endings[n] for n in names])
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        ax.set_xlabel("games")
        ax.set_title("endings", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return _save(fig, Path(path))


def distribution(dist: Any, path: str | Path) -> Path:
    """``prob --plot``: each result's probability (a Distribution of rulekit.analysis.prob)."""
    from rulekit.engine.values import show

    how = dist.how()
    labels = [show(o.value) for o in dist.outcomes]
    return bars(path, f"{dist.what} ({how})", labels, [("", [o.p for o in dist.outcomes])])


def comparisons(
    rows: Sequence[tuple[str, Fraction | None, Fraction | None]], title: str, path: str | Path
) -> Path:
    """``diff --plot``: before and after side by side for each (probe: result) row."""
    labels = [label for label, _, _ in rows]
    return bars(
        path,
        title,
        labels,
        [("before", [old for _, old, _ in rows]), ("after", [new for _, _, new in rows])],
    )
