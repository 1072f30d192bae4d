"""Issue 37 §5: work the fuzzer found running past 5 s has a bound and an error naming it.
``simulate``'s plan of shards: linear in the shards (it was quadratic in the finished ones a
study folder holds) and at most MAX_SHARDS of them, refused before any is made."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from rulekit.errors import InputError
from rulekit.play.simulate import MAX_SHARDS, plan


def _plan_before(
    first: int, games: int, size: int, done: list[tuple[int, int]] | None = None
) -> list[tuple[int, int]]:
    """The plan as it was written before (quadratic): the reference for what it plans."""
    stop = first + games
    kept = sorted((a, b) for a, b in (done or []) if first <= a < b <= stop)
    ranges = []
    start = first
    while start < stop:
        here = next(((a, b) for a, b in kept if a == start), None)
        if here is not None:
            ranges.append(here)
            start = here[1]
            continue
        end = min(stop, (start // size + 1) * size)
        following = [a for a, _ in kept if a > start]
        if following:
            end = min(end, following[0])
        ranges.append((start, end))
        start = end
    return ranges


@settings(max_examples=200, deadline=None)
@given(
    first=st.integers(0, 50),
    games=st.integers(0, 120),
    size=st.integers(1, 30),
    done=st.lists(st.tuples(st.integers(0, 180), st.integers(1, 40)), max_size=12),
)
def test_the_plan_is_the_same_as_before(
    first: int, games: int, size: int, done: list[tuple[int, int]]
) -> None:
    finished = [(a, a + n) for a, n in done]
    assert plan(first, games, size, finished) == _plan_before(first, games, size, finished)


def test_the_plan_is_linear_in_the_finished_shards() -> None:
    finished = [(a, a + 1) for a in range(1, 20_000, 2)]  # 10,000 shards a folder holds
    began = time.monotonic()
    ranges = plan(1, 20_000, 1, finished)
    assert time.monotonic() - began < 2.0  # was 24 s on the shared machine
    assert len(ranges) == 20_000 and ranges[::2] == finished


def test_the_number_of_shards_is_bounded_before_any_is_made() -> None:
    began = time.monotonic()
    with pytest.raises(InputError) as caught:
        plan(1, 10_000_000, 1)  # was 10 million tuples: a minute and gigabytes
    assert time.monotonic() - began < 0.5
    (problem,) = caught.value.diagnostics
    assert problem.where == "--shard-size"
    assert f"more than {MAX_SHARDS:,} shards" in problem.message
    assert problem.hint is not None and "at least 100" in problem.hint
    assert len(plan(1, MAX_SHARDS, 1)) == MAX_SHARDS  # the bound itself is allowed


def test_simulate_refuses_too_many_shards_at_once(make_rulebook: Callable[..., Path]) -> None:
    book = make_rulebook(
        'rulebook "T" scenario "s"\ndice d6 = 1..6\nstate x: int = 0\n'
        'procedure p [1.0]\n    x = roll d6\nsequence turn [0.0] "Turn"\n    phase p [1.0]\n',
        **{"scenarios__s.toml": '[scenario]\ntitle = "s"\nturns = 1\n'},
    )
    began = time.monotonic()
    result = run_cli("simulate", book, "--runs", "5000000", "--shard-size", "2")
    assert time.monotonic() - began < 10.0
    assert result.exit_code == 1, result.output
    assert "--shard-size: error: 5000000 games in shards of 2 make more than" in result.stderr
    assert "Traceback" not in result.output


# ---- large values in exact analysis: within --max-seconds ---------------------------------

BIG = """rulebook "Big"
dice d6 = 1..6
state big: list of int = []
procedure p -> int [1.0]
    big = range(1, 150000)
    let a = roll d6
    let b = roll d6
    let c = roll d6
    big = big + [a]
    return a + b + c
"""


def test_situations_over_a_large_state_keep_to_max_seconds(
    make_rulebook: Callable[..., Path],
) -> None:
    # every situation holds a list of 150,000 numbers (each compared and hashed to merge
    # situations): the analysis stops at its time budget and says which and how to raise it
    book = make_rulebook(BIG)
    began = time.monotonic()
    result = run_cli("prob", book, "p", "--max-seconds", "2")
    took = time.monotonic() - began
    assert result.exit_code == 1, result.output
    assert "--max-seconds: error: procedure p [1.0] took more than 2 s" in result.stderr
    assert "hint: raise --max-seconds" in result.stderr
    assert took < 2 + 3.0  # one situation's work past the deadline at most
