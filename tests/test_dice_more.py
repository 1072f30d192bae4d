"""Dice a designer expects (issue 15): exploding, re-rolled, any faces; exact under prob.

Each exact distribution is checked against a brute force written here, die by die, not
against rulekit's own output.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from conftest import cli_json, run_cli

BOOK = """rulebook "Dice"
dice d6 = 1..6
dice dF = -1, 0, 1
dice dA = 2, 3, 3, 4, 4, 5
procedure boom [1.0]
    return roll d6 explode 2
procedure again [1.0]
    return roll d6 reroll 1
procedure fudge [1.0]
    return roll 4 dF
procedure average [1.0]
    return roll 2 dA
procedure both [1.0]
    return roll 2d6 reroll 1..2 explode 1 + 1
procedure seen [1.0]
    let r = roll 2d6 reroll 1 explode 1
    return r.dice
"""

D6 = range(1, 7)


def _exact(book: Path, name: str) -> dict[int, Fraction]:
    data = cli_json("prob", book, name, "--json")
    assert data["exact"] is True
    return {o["value"]: Fraction(o["p"]) for o in data["outcomes"]}


def _weights(paths: Iterator[tuple[int, Fraction]]) -> dict[int, Fraction]:
    out: Counter[int] = Counter()
    for total, weight in paths:
        out[total] += weight  # type: ignore[assignment]
    return dict(out)


def _explode(first: int, limit: int) -> Iterator[tuple[int, Fraction]]:
    """One d6 that adds another die on a 6, at most ``limit`` more."""
    if first != 6 or limit == 0:
        yield first, Fraction(1, 6)
        return
    for nxt in D6:
        for total, weight in _explode(nxt, limit - 1):
            yield first + total, Fraction(1, 6) * weight


@pytest.fixture
def book(make_rulebook: Callable[..., Path]) -> Path:
    return make_rulebook(BOOK)


def test_a_six_rolls_again_and_adds(book: Path) -> None:
    expected = _weights(p for f in D6 for p in _explode(f, 2))
    assert _exact(book, "boom") == expected
    assert expected[18] == Fraction(1, 216)  # 6, 6, 6: the limit stops a fourth die


def test_reroll_ones_once(book: Path) -> None:
    expected: Counter[int] = Counter()
    for f in D6:
        if f == 1:
            for g in D6:  # the new face stands, a 1 too
                expected[g] += Fraction(1, 36)  # type: ignore[assignment]
        else:
            expected[f] += Fraction(1, 6)  # type: ignore[assignment]
    assert _exact(book, "again") == dict(expected)


def test_fudge_and_alike_faces(book: Path) -> None:
    fudge = Counter(sum(t) for t in product((-1, 0, 1), repeat=4))
    assert _exact(book, "fudge") == {k: Fraction(v, 81) for k, v in fudge.items()}
    faces = (2, 3, 3, 4, 4, 5)  # a face written twice is twice as likely
    average = Counter(a + b for a, b in product(faces, repeat=2))
    assert _exact(book, "average") == {k: Fraction(v, 36) for k, v in average.items()}


def test_reroll_then_explode(book: Path) -> None:
    expected: Counter[int] = Counter()
    for a, b in product(D6, repeat=2):
        for faces, weight in _rerolled((a, b)):
            for extra, w2 in _exploded(faces):
                expected[sum(faces) + extra + 1] += Fraction(1, 36) * weight * w2  # type: ignore[assignment]
    assert _exact(book, "both") == dict(expected)


def _rerolled(faces: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    kept = tuple(f for f in faces if f > 2)
    again = len(faces) - len(kept)
    for new in product(D6, repeat=again):
        yield kept + new, Fraction(1, 6**again)


def _exploded(faces: tuple[int, ...]) -> Iterator[tuple[int, Fraction]]:
    sixes = faces.count(6)  # explode 1: one more die per six, which does not explode again
    for new in product(D6, repeat=sixes):
        yield sum(new), Fraction(1, 6**sixes)


def test_the_roll_shows_every_die_thrown(book: Path) -> None:
    # 1 and 6 thrown; the 1 is thrown again (a 4); the 6 explodes (a 2)
    shown = run_cli("resolve", book, "seen", "--dice", "1,6,4,2")
    assert shown.exit_code == 0, shown.output
    assert "result: 6, 4, 2" in shown.stdout
    # the 1 thrown again shows too (issue 34)
    assert (
        "roll 2d6 reroll 1 explode 1 [1.0]: natural 12 (6, 4, 2; rerolled 1) = 12" in shown.stdout
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("roll d6 reroll 7", "no face of d6 (1..6) is in reroll 7..7"),
        ("roll d6 explode 99", "a die explodes at most 20 times, not 99"),
        ("roll 2 dX", "unknown die 'dX'"),
    ],
)
def test_misused_dice_are_errors(
    make_rulebook: Callable[..., Path], line: str, message: str
) -> None:
    root = make_rulebook(f'rulebook "Bad"\ndice d6 = 1..6\nprocedure p [1.0]\n    return {line}\n')
    result = run_cli("check", root)
    assert result.exit_code == 1
    assert message in result.stderr
    assert "rulebook.rk:4:" in result.stderr
