"""--scheduler processes: a worker that dies (killed, out of memory) loses nothing: the pool
is started again and the shards it held are played again; the finished ones are kept."""

from __future__ import annotations

import os
import signal
import time

import pytest

from rulekit.errors import InputError
from rulekit.play import sim_sched
from rulekit.play.sim_sched import InProcess, Processes
from rulekit.play.sim_shard import Shard
from tests.conftest import RULEBOOKS

SW = str(RULEBOOKS / "silent_war")


def _shards(size: int = 6, count: int = 8) -> list[Shard]:
    """Silent War short campaigns (about 0.1 s each, untraced): enough that a worker is
    still busy when the test kills it."""
    starts = range(0, size * count, size)
    return [Shard(SW, (), "short_campaign", "default", None, a, a + size, False) for a in starts]


def _all(scheduler: object, shards: list[Shard], kill_after: float | None = None) -> dict:
    for shard in shards:
        scheduler.submit(shard)  # type: ignore[attr-defined]
    if kill_after is not None:
        time.sleep(kill_after)  # the workers are busy with their first shards
        pids = list(scheduler.pool._processes)  # type: ignore[attr-defined]
        os.kill(pids[0], signal.SIGKILL)
    got = {}
    while len(got) < len(shards):
        for result in scheduler.finished():  # type: ignore[attr-defined]
            got[result.start] = result.partial.to_json()
    scheduler.close()  # type: ignore[attr-defined]
    return got


def test_a_dead_workers_shards_are_played_again() -> None:
    alone = _all(InProcess(), _shards())
    pool = Processes(2)
    again = _all(pool, _shards(), kill_after=1.5)
    assert again == alone  # every shard, the same games, none lost or counted twice
    assert pool.retried  # the kill did take a shard down with it


def test_a_shard_that_kills_its_worker_every_time_is_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sim_sched, "SHARD_RETRIES", 0)
    pool = Processes(1)
    with pytest.raises(InputError, match=r"a worker died playing seeds 0\.\.39"):
        _all(pool, _shards(size=40, count=1), kill_after=1.0)
    pool.abort()
