"""Dice: the faces each rulebook declares, and the one injectable source of randomness."""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from typing import Protocol

from attrs import define, field, frozen

from rulekit.errors import InputError, error


@frozen
class Die:
    """A declared die and the values one throw of it can read.

    ``d10 = 0..9`` (Silent War: zero is zero), ``d10 = 1..10`` (Gato Leader: 0 reads 10),
    ``d66 = tens_units(d6, d6)`` (11..66), ``d100 = percentile(d10, d10)`` (01..100),
    ``dF = -1, 0, 1`` (any faces, in order; a face written twice is twice as likely).
    """

    name: str
    faces: tuple[int, ...]
    kind: str = "faces"

    @property
    def low(self) -> int:
        return self.faces[0]

    @property
    def high(self) -> int:
        return self.faces[-1]

    def describe(self) -> str:
        if self.kind == "faces":
            return f"{self.name} ({self.low}..{self.high})"
        if self.kind == "list":
            return f"{self.name} ({', '.join(str(f) for f in self.faces)})"
        if self.kind == "percentile":
            return f"{self.name} (01..100)"
        return f"{self.name} ({', '.join(str(f) for f in self.faces[:3])}, ..., {self.high})"


def faces_of(kind: str, low: int, high: int, parts: Sequence[Die]) -> tuple[int, ...]:
    if kind == "faces":
        return tuple(range(low, high + 1))
    if kind == "tens_units":
        tens, units = parts
        return tuple(sorted(10 * t + u for t in tens.faces for u in units.faces))
    if kind == "percentile":
        # Each die is read as a digit 0-9 (a 10 face reads 0); "00" reads 100.
        return tuple(range(1, 101))
    raise ValueError(kind)


class DiceSource(Protocol):
    """Where every die result comes from: seeded, forced, or enumerated."""

    def throw(self, die: Die, where: str) -> int:
        """One throw of ``die``; ``where`` says which roll asks (for error messages)."""
        ...


def throw_dice(source: DiceSource, die: Die, count: int, where: str) -> tuple[int, ...]:
    """The faces of one roll of ``count`` alike dice.

    A source may take the dice together (``throw_group``): exact enumeration then walks
    the roll's multisets instead of every ordering of them.
    """
    group = getattr(source, "throw_group", None)
    if group is not None and count > 1:
        return tuple(group(die, count, where))
    return tuple(source.throw(die, where) for _ in range(count))


@define
class SeededDice:
    """Pseudo-random dice from a seed: the same seed gives the same throws."""

    seed: int | None = None
    rng: random.Random = field(init=False)

    def __attrs_post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def throw(self, die: Die, where: str) -> int:
        return die.faces[self.rng.randrange(len(die.faces))]


@define
class ForcedDice:
    """Dice results given in advance (``--dice``), in the order the procedure throws them.

    When they run out, ``then`` (e.g. a seeded source) takes over, or it is an error.
    """

    values: list[int]
    then: DiceSource | None = None
    used: int = 0

    def throw(self, die: Die, where: str) -> int:
        if self.used >= len(self.values):
            if self.then is not None:
                return self.then.throw(die, where)
            raise InputError(
                [
                    error(
                        f"--dice gave {len(self.values)} value(s) but the procedure throws "
                        f"another {die.name} at {where}",
                        where="--dice",
                        hint="add a value, or give --seed to roll the rest",
                    )
                ]
            )
        value = self.values[self.used]
        self.used += 1
        if value not in die.faces:
            raise InputError(
                [
                    error(
                        f"--dice value {value} (number {self.used}) is not a face of "
                        f"{die.describe()}, thrown at {where}",
                        where="--dice",
                    )
                ]
            )
        return value


class DiceNeeded(BaseException):
    """The faces of a keep-highest/lowest roll (or of a sum) were read where only the kept
    value (the total) was thrown (``Unthrown``): exact analysis then throws that roll's
    dice in full. A
    BaseException: nothing in the engine may take it for a rule's error."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


class Unthrown(tuple):  # type: ignore[type-arg]
    """The dice of a roll of which only the kept value (or the total) was thrown (exact
    analysis groups a keep-highest roll by the value kept: six d10 are 10 outcomes, not
    5,005 multisets; 2d6 by its total: 11, not 21). It compares and hashes as that value;
    reading its faces raises DiceNeeded."""

    where: str

    def __new__(cls, kept: int, where: str) -> Unthrown:
        made = super().__new__(cls, (kept,))
        made.where = where
        return made

    def _needed(self, *args: object) -> None:
        raise DiceNeeded(self.where)

    __iter__ = __len__ = __getitem__ = __contains__ = __reversed__ = _needed  # type: ignore[assignment]


@cache
def kept_outcomes(die: Die, count: int, keep: str) -> tuple[tuple[int, int], ...]:
    """The values the highest (or lowest) of ``count`` throws can keep, each with the number
    of ordered throws keeping it, out of ``len(die.faces) ** count``."""
    faces = die.faces
    out = []
    for value in sorted(set(faces)):
        if keep == "highest":
            within, beyond = sum(f <= value for f in faces), sum(f < value for f in faces)
        else:
            within, beyond = sum(f >= value for f in faces), sum(f > value for f in faces)
        ways = within**count - beyond**count
        if ways:
            out.append((value, ways))
    return tuple(out)


@cache
def summed_outcomes(die: Die, count: int) -> tuple[tuple[int, int], ...]:
    """The totals ``count`` throws of ``die`` can make, each with the number of ordered
    throws making it, out of ``len(die.faces) ** count``."""
    ways: dict[int, int] = {0: 1}
    for _ in range(count):
        step: dict[int, int] = {}
        for total, n in ways.items():
            for face in die.faces:
                step[total + face] = step.get(total + face, 0) + n
        ways = step
    return tuple(sorted(ways.items()))
