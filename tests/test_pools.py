"""Dice pools compared (issue 15): sorted, n-th highest/lowest, keep N of M, pairs, max_by,
low/high of a range. Forced dice give hand-worked results; `prob` is checked against brute force.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rulekit.analysis.prob import ask, exact
from rulekit.book.checker import Checked, load
from rulekit.engine.session import resolve
from rulekit.engine.values import unwrap
from rulekit.errors import RulekitError

POOLS = """rulebook "Pools"
dice d6 = 1..6
record unit = name: text, strength: int, tag: text
kind boat
    name: text
    speed: int

procedure risk -> int [1.0] "attacker's losses: 3 dice against 2, ties to the defender"
    let a = roll 3 d6
    let d = roll 2 d6
    return count(p for p in pairs(sorted_desc(a), sorted_desc(d)) if first(p) <= last(p))

procedure defender_losses(a: int, d: int) -> int [1.1]
    let att = roll a d6
    let dfn = roll d d6
    return count(p for p in pairs(sorted_desc(att), sorted_desc(dfn)) if first(p) > last(p))

procedure best_three_of_four -> int [2.0]
    return sum(x for x in keep_highest(roll 4 d6, 3))

procedure worst_two -> list of int [2.1]
    return keep_lowest(roll 4 d6, 2)

procedure second_highest -> int [2.2]
    return nth_highest(roll 3 d6, 2)

procedure lowest -> int [2.3]
    return nth_lowest(roll 3 d6, 1)

procedure ordering -> list of int [3.0]
    let xs = [3, 1, 2, 1]
    return sorted(xs) + sorted_desc(xs)

procedure strongest -> text [4.0]
    let a = unit(name: "A", strength: 2, tag: "x")
    let us = [a, unit(name: "B", strength: 5, tag: "y"), unit(name: "C", strength: 5, tag: "z")]
    let most = max_name(us)
    let least = min_name(us)
    return "{most} {least}"

procedure max_name(us: list of unit) -> text [4.1]
    let u = max_by(us, "strength")
    return u.name

procedure min_name(us: list of unit) -> text [4.2]
    let u = min_by(us, "strength")
    return u.name

procedure fastest -> text [4.3]
    let bs = [boat(name: "Gar", speed: 3), boat(name: "Tang", speed: 4)]
    let b = max_by(bs, "speed")
    return b.name

procedure ends(r: range) -> list of int or none [5.0]
    return [low(r), high(r)]
"""


@pytest.fixture(scope="module")
def pools(tmp_path_factory: pytest.TempPathFactory) -> Checked:
    root = tmp_path_factory.mktemp("pools")
    (root / "rulebook.rk").write_text(POOLS, encoding="utf-8")
    return load(str(root))


def run(book: Checked, name: str, dice: list[int] | None = None, at: list[str] = []) -> Any:  # noqa: B006
    return unwrap(resolve(book, name, dice=dice, at=at).result)


@pytest.mark.parametrize(
    ("dice", "losses"),
    [
        # attacker 6 3 1 against 5 4: 6>5 wins, 3<=4 loses -> 1 lost
        ([6, 3, 1, 5, 4], 1),
        # attacker 2 2 2 against 2 1: 2<=2 loses (ties to the defender), 2>1 wins -> 1
        ([2, 2, 2, 2, 1], 1),
        # attacker 6 6 1 against 1 1: both won -> 0
        ([1, 6, 6, 1, 1], 0),
        # attacker 3 2 1 against 6 6 -> 2
        ([1, 2, 3, 6, 6], 2),
    ],
)
def test_risk_battle_forced(pools: Checked, dice: list[int], losses: int) -> None:
    assert run(pools, "risk", dice) == losses


def _brute_risk() -> dict[int, Fraction]:
    counts: Counter[int] = Counter()
    for faces in itertools.product(range(1, 7), repeat=5):
        a = sorted(faces[:3], reverse=True)
        d = sorted(faces[3:], reverse=True)
        counts[sum(1 for x, y in zip(a, d, strict=False) if x <= y)] += 1
    return {k: Fraction(v, 6**5) for k, v in counts.items()}


def test_risk_battle_exact_agrees_with_brute_force(pools: Checked) -> None:
    dist = exact(pools, ask(pools, "risk"))
    got = {o.value: o.p for o in dist.outcomes}
    assert got == _brute_risk()
    # the well-known Risk figures for 3 against 2: 2890/7776, 2611/7776, 2275/7776
    assert got == {0: Fraction(2890, 7776), 1: Fraction(2611, 7776), 2: Fraction(2275, 7776)}


def test_pairs_stop_at_the_shorter_pool(pools: Checked) -> None:
    # 1 die (4) against 2 (3, 2): only 4 against the defender's highest, 3 -> 1 lost
    assert run(pools, "defender_losses", [4, 3, 2], ["a=1", "d=2"]) == 1
    # 4 against 6, 3: 4 <= 6 -> none lost (the defender's 3 is never compared)
    assert run(pools, "defender_losses", [4, 6, 3], ["a=1", "d=2"]) == 0


def test_keep_highest_three_of_four(pools: Checked) -> None:
    assert run(pools, "best_three_of_four", [1, 5, 3, 6]) == 14  # 6 + 5 + 3
    dist = exact(pools, ask(pools, "best_three_of_four"))
    counts: Counter[int] = Counter(
        sum(sorted(f)[1:]) for f in itertools.product(range(1, 7), repeat=4)
    )
    assert {o.value: o.p for o in dist.outcomes} == {
        k: Fraction(v, 6**4) for k, v in counts.items()
    }


def test_keep_lowest_nth(pools: Checked) -> None:
    assert run(pools, "worst_two", [4, 2, 6, 1]) == (1, 2)
    assert run(pools, "second_highest", [2, 6, 4]) == 4
    assert run(pools, "lowest", [5, 3, 4]) == 3


def test_sorted_both_ways_keeps_duplicates(pools: Checked) -> None:
    assert run(pools, "ordering") == (1, 1, 2, 3, 3, 2, 1, 1)


def test_max_by_min_by_records_and_pieces(pools: Checked) -> None:
    # B and C tie at 5: the first in the list wins
    assert run(pools, "strongest") == "B A"
    assert run(pools, "fastest") == "Tang"


@pytest.mark.parametrize(("given", "expected"), [("2-4", (2, 4)), ("5+", (5, None))])
def test_low_high_of_a_range(pools: Checked, given: str, expected: tuple[Any, ...]) -> None:
    assert run(pools, "ends", at=[f"r={given}"]) == expected


def test_nth_beyond_the_pool_is_an_error(pools: Checked, tmp_path: Path) -> None:
    root = tmp_path / "b"
    root.mkdir()
    (root / "rulebook.rk").write_text(
        'rulebook "P"\ndice d6 = 1..6\nprocedure p -> int [1.0]\n'
        "    return nth_highest(roll 2 d6, 3)\n",
        encoding="utf-8",
    )
    with pytest.raises(RulekitError) as caught:
        resolve(load(str(root)), "p", dice=[1, 2])
    assert "nth_highest(): there is no 3th of 2" in str(caught.value.diagnostics[0].message)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("    return nth_highest(3, 1)", "nth_highest() takes a list or a roll, not int"),
        ('    return nth_highest([1], "a")', "takes a whole number of items, not text"),
        ('    let u = max_by(us, "strenth")\n    return 0', "a unit has no 'strenth'"),
        ('    let u = max_by(us, "tag")\n    return 0', "max_by() compares numbers; 'tag' is text"),
        ("    let u = max_by(us, 1)\n    return 0", 'max_by(list, "field") names the field'),
        ("    return low(3)", "low() takes a range, not int"),
    ],
)
def test_checker_rejects_bad_arguments(tmp_path: Path, body: str, message: str) -> None:
    root = tmp_path / "b"
    root.mkdir()
    (root / "rulebook.rk").write_text(
        'rulebook "P"\nrecord unit = name: text, strength: int, tag: text\n'
        f"procedure p(us: list of unit) -> int [1.0]\n{body}\n",
        encoding="utf-8",
    )
    with pytest.raises(RulekitError) as caught:
        load(str(root))
    assert any(message in d.message for d in caught.value.diagnostics), caught.value.diagnostics


def test_fudge_die_as_a_range_of_faces_exact_against_brute_force(tmp_path: Path) -> None:
    # a Fudge die (-1, 0, +1) is a die of three faces from -1; four of them summed
    root = tmp_path / "f"
    root.mkdir()
    (root / "rulebook.rk").write_text(
        'rulebook "F"\ndice d3 = -1..1 [1.0] "a Fudge die"\n'
        "procedure fudge -> int [1.0]\n    return roll 4 d3\n",
        encoding="utf-8",
    )
    book = load(str(root))
    dist = exact(book, ask(book, "fudge"))
    counts: Counter[int] = Counter(sum(f) for f in itertools.product((-1, 0, 1), repeat=4))
    assert {o.value: o.p for o in dist.outcomes} == {k: Fraction(v, 81) for k, v in counts.items()}
