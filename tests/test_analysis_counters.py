"""Issue 33 §2: a counter in game state (a round number) does not make the situations
solver run for minutes. One that nothing reads is merged (situations that differ only in
it are one: reach.names_read); one that is read (``--of round``, a result) is named within a
few thousand situations, at the line that counts it up, with a hint that works."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest
from conftest import run_cli

from rulekit.analysis.prob import ask
from rulekit.analysis.situations import solve_by_situations
from rulekit.book.checker import load
from rulekit.errors import InputError

# Each round both throw a d6; the lower loses one; a tie loses nothing (so a duel may last
# any number of rounds: the round number takes ever new values).
DUEL = """rulebook "Counter"
dice d6 = 1..6 [1.0]
state round: int = 0 [1.0] "The round number"
procedure duel(a: int = 3, b: int = 3) -> int [1.0] "A duel, its rounds numbered in the state"
    while a > 0 and b > 0:
        round += 1
        let x = roll d6
        let y = roll d6
        if x > y:
            b -= 1
        elif y > x:
            a -= 1
    return a
procedure duel_counted(a: int = 3, b: int = 3) -> int [1.0] "A duel, its rounds counted"
    let rounds = 0
    while a > 0 and b > 0:
        rounds += 1
        let x = roll d6
        let y = roll d6
        if x > y:
            b -= 1
        elif y > x:
            a -= 1
    return a
"""


@cache
def _left(a: int, b: int) -> dict[int, Fraction]:
    """What ``a`` has left at the end, by recursion (an independent computation): a round
    that decides anything (30 of 36) goes either way alike, ties change nothing."""
    if a == 0 or b == 0:
        return {a: Fraction(1)}
    out: dict[int, Fraction] = {}
    for nxt in (_left(a, b - 1), _left(a - 1, b)):
        for k, p in nxt.items():
            out[k] = out.get(k, Fraction(0)) + p / 2
    return out


@pytest.mark.parametrize("procedure", ["duel", "duel_counted"])
def test_a_counter_nothing_reads_is_merged(
    make_rulebook: Callable[..., Path], procedure: str
) -> None:
    checked = load(str(make_rulebook(DUEL)))
    # (before: a new situation every round, more than the budget)
    dist = solve_by_situations(checked, ask(checked, procedure), max_situations=5_000)
    assert {o.value: o.p for o in dist.outcomes} == _left(3, 3)
    assert dist.situations is not None and dist.situations < 100
    assert dist.unresolved == 0


def test_a_counter_that_is_read_is_named_at_once(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(DUEL)
    result = run_cli("prob", book, "duel", "--of", "round")
    assert result.exit_code == 1, result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"{book / 'rulebook.rk'}:6:9: error: procedure duel [1.0]")
    assert "differ in 'round', which only counts up" in first
    found = int(first.split("situations (")[1].split(" so far")[0].replace(",", ""))
    assert found < 2_000  # not the 200,000 of the budget
    assert "--tolerance 1e-9" in result.stderr and "Traceback" not in result.stderr
    # solved to a tolerance, as the hint says
    solved = run_cli("prob", book, "duel", "--of", "round", "--tolerance", "1e-6", "--json")
    assert solved.exit_code == 0, solved.stderr


def test_advise_names_a_counter_that_is_read(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(DUEL)
    result = run_cli("advise", book, "duel", "--minimize", "round")
    assert result.exit_code == 1, result.stderr
    assert "differ in 'round', which only counts up" in result.stderr
    assert "--decide" in result.stderr  # advise's own hint: it cannot sample


def test_throws_to_six_names_its_counter() -> None:
    battle = load(str(Path(__file__).parent.parent / "examples" / "battle" / "rulebook.rk"))
    with pytest.raises(InputError) as caught:
        solve_by_situations(battle, ask(battle, "throws_to_six"))
    assert "differ in 'throws', which only counts up" in caught.value.diagnostics[0].message
