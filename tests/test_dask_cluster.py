"""A Dask cluster that cannot lose a game: the rulebook travels with each shard to workers
that do not share the client's folders, and a scheduler with no workers is reported."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from rulekit.errors import InputError
from rulekit.play.sim_shard import Shard, pack_rulebook, play_shard, unpack_rulebook
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
