"""Distributions drawn with matplotlib (the optional ``[plot]`` extra): ``--plot FILE``.

:func:`bars` draws labelled probabilities or counts as horizontal bars, one series or
several side by side (``diff``: before and after); :func:`histograms` draws one histogram
per named list of numbers (``simulate``: each reported track). Both write an SVG or PNG
chosen by the file's suffix; the SVG is byte-for-byte the same for the same data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from attrs import define, field

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
    note: str | None = None,
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
    if note:  # below the axes, wrapped to the figure's width
        import textwrap

        ax.annotate(
            "\n".join(textwrap.wrap(note, 100)),
            xy=(0, 0),
            xycoords="axes fraction",
            xytext=(0, -36),
            textcoords="offset points",
            va="top",
            fontsize=7,
            color="#8a5200",
        )
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
        ax.hist(values, bins=bin_edges(values))
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


@define
class Question:
    """A distribution as a picture shows it: the question in the rules' words, the inputs it
    was asked with, how it was found, each result's probability, and the provisional values
    it used. Made from a :class:`~rulekit.analysis.outcomes.Distribution` (``prob --plot``)
    or from the JSON that ``prob --json`` saved (``rulekit plot``)."""

    title: str
    inputs: list[str]
    how: str
    labels: list[str]
    ps: list[Fraction]
    ordered: bool
    provisional: list[str] = field(factory=list)

    @classmethod
    def of(cls, dist: Any) -> Question:
        from rulekit.engine.values import show

        return cls(
            title=dist.title or dist.what,
            inputs=list(dist.inputs),
            how=dist.how(),
            labels=[show(o.value) for o in dist.outcomes],
            ps=[o.p for o in dist.outcomes],
            ordered=dist.ordered,
            provisional=list(dist.provisional_used),
        )

    @classmethod
    def from_json(cls, data: Any, source: str) -> Question:
        """The question a ``prob --json`` document answers; a clear error naming the file
        and the field when it is not one."""

        def bad(what: str) -> InputError:
            return InputError(
                [
                    error(
                        f"{source}: {what}",
                        where="FILE",
                        hint="rulekit plot reads what `rulekit prob ... --json` printed",
                    )
                ]
            )

        if not isinstance(data, dict) or not isinstance(data.get("outcomes"), list):
            raise bad("not a saved `prob --json` result (no list of outcomes)")
        labels, ps = [], []
        for i, o in enumerate(data["outcomes"]):
            try:
                ps.append(Fraction(str(o["p"])))
            except (KeyError, TypeError, ValueError, ZeroDivisionError):
                raise bad(f'outcomes[{i}].p is not a probability such as "7/36"') from None
            if not 0 <= ps[-1] <= 1:
                raise bad(f"outcomes[{i}].p = {o['p']} is not between 0 and 1")
            value = o.get("value")
            labels.append(
                "none"
                if value is None
                else ", ".join(map(str, value))
                if isinstance(value, list)
                else str(value)
            )
        asked = data.get("question")
        question: dict[str, Any] = asked if isinstance(asked, dict) else {}
        numbers = all(
            isinstance(o.get("value"), int | float) and not isinstance(o.get("value"), bool)
            for o in data["outcomes"]
        )
        how = str(question.get("how") or ("exact" if data.get("exact", True) else "sampled"))
        return cls(
            title=str(question.get("title") or data.get("what") or source),
            inputs=[str(x) for x in question.get("inputs", [])],
            how=how,
            labels=labels,
            ps=ps,
            ordered=bool(question.get("ordered", numbers)),
            provisional=[str(x) for x in data.get("provisional_used", [])],
        )


def bin_edges(values: Sequence[float], most: int = 40) -> list[float]:
    """Histogram bins: one per value for a few whole numbers close together (turns, boats
    lost), else at most ``most`` bins of one round width (tonnage: 1,000s of values), edges
    on whole numbers when the values are whole."""
    if not values:
        return [0.0, 1.0]
    low, high = min(values), max(values)
    whole = all(float(v).is_integer() for v in values)
    if whole and high - low + 1 <= most:
        return [v - 0.5 for v in range(int(low), int(high) + 2)]
    if high == low:
        return [low - 0.5, high + 0.5]
    raw = (high - low) / most
    magnitude = 10 ** math.floor(math.log10(raw))
    width = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    if whole:
        width = max(1.0, math.ceil(width))
    start = math.floor(low / width) * width
    edges = [start]
    while edges[-1] <= high:
        edges.append(edges[-1] + width)
    return edges


def distribution(question: Question, path: str | Path) -> Path:
    """``prob --plot`` and ``rulekit plot``: each result's chance exactly and, when results
    are ordered (numbers, or members of one enum), at least and at most; the title names
    the question in the rules' words with its inputs, and a note says when the chances rest
    on values the rules do not print."""
    title = question.title
    if question.inputs:
        title += "\n" + "; ".join(question.inputs)
    title += f"\n({question.how})"
    series: list[tuple[str, Sequence[Fraction | float | None]]] = [("exactly", question.ps)]
    if question.ordered and len(question.ps) > 1:
        at_most: list[Fraction | float | None] = []
        total = Fraction(0)
        for p in question.ps:
            total += p
            at_most.append(total)
        at_least = [sum(question.ps[i:], Fraction(0)) for i in range(len(question.ps))]
        series += [("at least", at_least), ("at most", at_most)]
    note = None
    if question.provisional:
        places = sorted({_place(p) for p in question.provisional})
        note = (
            f"Uses {len(question.provisional)} provisional value(s), not printed in the rules: "
            + ", ".join(places)
        )
    return bars(path, title, question.labels, series, note=note)


def _place(provisional: str) -> str:
    """``table counterattack_table (7 or more / 4-6) [14.2]`` -> its table and rule."""
    head, _, _ = provisional.partition(" (")
    rule = provisional[provisional.rfind(" [") :] if provisional.endswith("]") else ""
    return head + (rule if rule and rule not in head else "")


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
