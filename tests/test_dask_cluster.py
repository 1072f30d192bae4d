"""A Dask cluster that cannot lose a game: the rulebook travels with each shard to workers
that do not share the client's folders, and a scheduler with no workers is reported."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import attrs
import pytest

from rulekit.errors import InputError
from rulekit.play.sim_shard import Shard, pack_rulebook, play_shard, unpack_rulebook
from rulekit.play.sim_summary import Partial
from rulekit.play.simulate import simulate
from tests.conftest import RULEBOOKS

SUB = str(RULEBOOKS / "steel_wolves_like")


def test_a_shipped_rulebook_plays_where_its_path_does_not_exist() -> None:
    shipped = pack_rulebook(SUB)
    assert any(name == "rulebook.rk" for name, _ in shipped.files)
    assert any(name.endswith(".toml") for name, _ in shipped.files)
    here = play_shard(Shard(SUB, (), None, "default", None, 0, 3, False))
    away = play_shard(
        Shard("/nowhere/at/all", (), None, "default", None, 0, 3, False, None, shipped)
    )
    assert away.partial.to_json() == here.partial.to_json()


def test_a_variant_travels_with_the_rulebook_it_extends() -> None:
    from rulekit.book.checker import load

    shipped = pack_rulebook(str(RULEBOOKS / "silent_war") + "@1.1")
    assert shipped.arg == "@1.1"
    assert load(unpack_rulebook(shipped)).book.edition == "1.1"


def test_shards_in_threads_of_one_worker_take_turns() -> None:
    # `dask worker` runs one thread per core unless told --nthreads 1: three shards loading
    # the rulebook at once in one process failed with syntax errors that are not in it
    import threading

    from rulekit.play import sim_shard

    shipped = pack_rulebook(SUB)
    alone = play_shard(Shard(SUB, (), None, "default", None, 0, 6, False)).partial.to_json()
    for _ in range(3):
        sim_shard._LOADED.clear()  # every thread loads the rulebook, as a fresh worker does
        results: list[object] = []

        def play(start: int, results: list[object]) -> None:
            try:
                shard = Shard(SUB, (), None, "default", None, start, start + 2, False)
                results.append(play_shard(attrs.evolve(shard, shipped=shipped)).partial)
            except Exception as exc:
                results.append(exc)

        threads = [threading.Thread(target=play, args=(start, results)) for start in (0, 2, 4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not [r for r in results if isinstance(r, Exception)], results
        merged = Partial()
        for partial in results:
            merged.merge(partial)  # type: ignore[arg-type]
        assert merged.to_json() == alone


@pytest.fixture
def cluster() -> object:
    distributed = pytest.importorskip("distributed", reason="pip install -e '.[dask]'")
    import logging

    local = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.CRITICAL,
    )
    yield local
    local.close()


def test_tcp_scheduler_plays_a_relative_rulebook_path_its_workers_cannot_see(
    cluster: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(SUB, tmp_path / "mybook")
    monkeypatch.chdir(tmp_path)  # the client's folder; the workers started elsewhere
    address = cluster.scheduler_address  # type: ignore[attr-defined]
    remote = simulate("mybook", None, 6, seed=0, scheduler=address, shard_size=2)
    local = simulate(SUB, None, 6, seed=0)
    assert remote.failed == [] and remote.completed == 6
    assert remote.stats == local.stats and remote.endings == local.endings


def test_a_scheduler_without_workers_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    distributed = pytest.importorskip("distributed", reason="pip install -e '.[dask]'")
    import logging

    from rulekit.play import sim_sched

    monkeypatch.setattr(sim_sched, "NO_WORKERS_SECONDS", 1.0)
    empty = distributed.LocalCluster(
        n_workers=0, host="127.0.0.1", dashboard_address=None, silence_logs=logging.CRITICAL
    )
    try:
        began = time.monotonic()
        with pytest.raises(InputError, match="has no workers"):
            simulate(SUB, None, 2, seed=0, scheduler=empty.scheduler_address)
        assert time.monotonic() - began < 20
    finally:
        empty.close()


def test_the_shard_size_follows_the_clusters_size(tmp_path: Path) -> None:
    # a cluster of 3 slots (one worker of 3 threads, cheap to start), joined with no
    # --workers: the default shards are cut for 3 slots (48 games // (8 x 3) = 2 a shard),
    # not for the one local worker --workers defaults to (48 // 8 = 6), which would keep
    # most of a large cluster idle
    distributed = pytest.importorskip("distributed", reason="pip install -e '.[dask]'")
    import logging

    wide = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=3,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.CRITICAL,
    )
    try:
        address = wide.scheduler_address
        result = simulate(SUB, None, 48, seed=0, scheduler=address)
        assert result.run["shard_size"] == 2 and result.run["shards"] == 24
        assert result.completed == 48 and result.failed == []
        given = simulate(SUB, None, 48, seed=0, scheduler=address, shard_size=12)
        assert given.run["shards"] == 4  # --shard-size is kept as given
        # all done in --out: read back, nothing to cut or play
        study = tmp_path / "study"
        simulate(SUB, None, 48, seed=0, scheduler=address, out=str(study))
        again = simulate(SUB, None, 48, seed=0, scheduler=address, out=str(study))
        assert again.run["resumed_shards"] == again.run["shards"] == 24
        assert again.stats == result.stats
    finally:
        wide.close()
