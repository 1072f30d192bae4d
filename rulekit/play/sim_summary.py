"""Compact, mergeable summaries of many games.

A shard of games becomes a :class:`Partial`: counts, exact sums and sums of squares, a
histogram of every reported value, the endings and the failed seeds. Partials merge by
addition, so the parent holds one summary whatever the number of games, and because every
number in it is exact (integers and fractions, never rounded floats) and every part is a
count, the merged result does not depend on how the seeds were split or in what order the
shards came back.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from fractions import Fraction
from typing import Any

from attrs import define, field

Z95 = 1.959963984540054  # the normal quantile for a two-sided 95% interval
NOT_OVER = "not over"  # a game stopped by --turns before the scenario ended


@define
class Failure:
    """A game that stopped with an error: its seed and where the rulebook failed."""

    seed: int
    location: str  # file:line:col, or "rulekit" for an internal error
    message: str
    rule: str | None = None
    context: str | None = None

    def line(self) -> str:
        rule = f" (rule {self.rule})" if self.rule and self.rule not in self.message else ""
        where = f" ({self.context})" if self.context else ""
        return f"seed {self.seed}: {self.location}: {self.message}{rule}{where}"


def _exact(value: int | float) -> int | Fraction:
    return value if isinstance(value, int) else Fraction(value)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def category(value: Any) -> str:
    """A non-numeric reported value as one histogram key."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


@define
class Track:
    """One reported value over the games of a shard: numbers and other values apart."""

    count: int = 0
    total: int | Fraction = 0
    squares: int | Fraction = 0
    numbers: Counter[int | float] = field(factory=Counter)
    others: Counter[str] = field(factory=Counter)

    def add(self, value: Any) -> None:
        if is_number(value):
            exact = _exact(value)
            self.count += 1
            self.total += exact
            self.squares += exact * exact
            self.numbers[value] += 1
        else:
            self.others[category(value)] += 1

    @classmethod
    def of_counts(cls, counts: Counter[int]) -> Track:
        total = sum(v * c for v, c in counts.items())
        squares = sum(v * v * c for v, c in counts.items())
        return cls(sum(counts.values()), total, squares, Counter(counts))

    def merge(self, other: Track) -> None:
        self.count += other.count
        self.total += other.total
        self.squares += other.squares
        self.numbers.update(other.numbers)
        self.others.update(other.others)


@define
class Partial:
    """The summary of some games; ``merge`` adds another one in."""

    games: int = 0
    names: list[str] = field(factory=list)  # the reported values, in the scenario's order
    tracks: dict[str, Track] = field(factory=dict)
    endings: Counter[str] = field(factory=Counter)
    turns: Counter[int] = field(factory=Counter)
    failures: list[Failure] = field(factory=list)

    def add_game(self, turns: int, ended: str | None, final: dict[str, Any]) -> None:
        self.games += 1
        self.turns[turns] += 1
        self.endings[ended or NOT_OVER] += 1
        for name, value in final.items():
            if name not in self.tracks:
                self.names.append(name)
                self.tracks[name] = Track()
            self.tracks[name].add(value)

    def add_failure(self, failure: Failure) -> None:
        self.games += 1
        self.failures.append(failure)

    def merge(self, other: Partial) -> None:
        self.games += other.games
        for name in other.names:
            if name not in self.tracks:
                self.names.append(name)
                self.tracks[name] = Track()
            self.tracks[name].merge(other.tracks[name])
        self.endings.update(other.endings)
        self.turns.update(other.turns)
        self.failures.extend(other.failures)

    # ---- a plain-JSON form, kept beside each shard written by --out ----------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "names": self.names,
            "tracks": {
                name: {
                    "count": t.count,
                    "total": str(t.total),
                    "squares": str(t.squares),
                    "numbers": [[v, c] for v, c in sorted(t.numbers.items())],
                    "others": dict(sorted(t.others.items())),
                }
                for name, t in self.tracks.items()
            },
            "endings": dict(sorted(self.endings.items())),
            "turns": [[t, c] for t, c in sorted(self.turns.items())],
            "failures": [
                {"seed": f.seed, "location": f.location, "message": f.message}
                | ({"rule": f.rule} if f.rule else {})
                | ({"context": f.context} if f.context else {})
                for f in self.failures
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Partial:
        def number(text: str) -> int | Fraction:
            value = Fraction(text)
            return value.numerator if value.denominator == 1 else value

        tracks = {
            name: Track(
                t["count"],
                number(t["total"]),
                number(t["squares"]),
                Counter({v: c for v, c in t["numbers"]}),
                Counter(t["others"]),
            )
            for name, t in data["tracks"].items()
        }
        return cls(
            data["games"],
            list(data["names"]),
            tracks,
            Counter(data["endings"]),
            Counter({t: c for t, c in data["turns"]}),
            [Failure(**f) for f in data["failures"]],
        )


# ---- the finished report ------------------------------------------------------------------


@define
class Stat:
    """Summary statistics of one numeric reported value over the games that ended."""

    name: str
    count: int
    mean: float
    sd: float
    min: float
    p5: float
    p25: float
    p50: float
    p75: float
    p95: float
    max: float
    histogram: dict[str, int]  # value -> games, in value order


@define
class Share:
    """How many games ended one way, as a share of the games that did not fail."""

    name: str
    count: int
    percent: float
    low: float  # the 95% Wilson score interval, in percent
    high: float


@define
class Category:
    """A reported value that is not a number (a month, an area): its values and counts."""

    name: str
    counts: dict[str, int]


def wilson(count: int, total: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: it stays inside 0..1 and is sound at 0/n."""
    if total == 0:
        return 0.0, 1.0
    p = count / total
    centre = p + z * z / (2 * total)
    spread = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total))
    scale = 1 + z * z / total
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def share(name: str, count: int, total: int) -> Share:
    low, high = wilson(count, total)
    percent = 100 * count / total if total else 0.0
    return Share(name, count, percent, 100 * low, 100 * high)


# the words of a result before its first number: "Adequate Campaign Victory with 31 ..."
_LEADING_WORDS = re.compile(r"^([^\d]*?[^\s\d])\s+(?:with|by|of|in|at|after|and)?\s*(?=[-+]?\d)")


def ending_group(ending: str) -> str:
    """``victory``, ``draw``, ``defeat`` ...: what a victory procedure's text says before its
    first colon ("draw: an unsuccessful patrol"); without a colon, its words before the
    first number ("Adequate Campaign Victory" of "Adequate Campaign Victory with 31 Victory
    Points"); else the whole text."""
    head, colon, _ = ending.partition(":")
    if colon and head.strip():
        return head.strip()
    words = _LEADING_WORDS.match(ending)
    return words.group(1) if words else ending


def percentile(counts: list[tuple[float, int]], total: int, share: float) -> float:
    """The linearly interpolated percentile of sorted (value, count) pairs: the same number
    ``sorted(values)[share * (n - 1)]`` interpolation gives on the values themselves."""
    position = share * (total - 1)
    low = int(position)
    high = min(low + 1, total - 1)

    def at(index: int) -> float:
        seen = 0
        for value, count in counts:
            seen += count
            if index < seen:
                return value
        return counts[-1][0]

    a, b = at(low), at(high)
    return a + (b - a) * (position - low)


def stat(name: str, track: Track) -> Stat:
    n = track.count
    mean = Fraction(track.total) / n
    variance = Fraction(track.squares) / n - mean * mean  # population variance, exact
    counts = sorted(track.numbers.items())
    values = [(float(v), c) for v, c in counts]
    p5, p25, p50, p75, p95 = (percentile(values, n, s) for s in (0.05, 0.25, 0.50, 0.75, 0.95))
    return Stat(
        name,
        n,
        float(mean),
        math.sqrt(variance) if n > 1 else 0.0,
        values[0][0],
        p5,
        p25,
        p50,
        p75,
        p95,
        values[-1][0],
        {str(v): c for v, c in counts},  # str, not a rounded format: one key per value
    )
