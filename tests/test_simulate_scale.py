"""bench/simulate_scale.py, the CI's small setting: `rulekit simulate` run as a user runs it,
on local processes and a real local Dask cluster, timed, and the studies compared."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import RULEBOOKS, bench_module

pytest.importorskip("dask.distributed")
pytest.importorskip("pyarrow")


def test_the_scale_bench_measures_and_checks_determinism(tmp_path: Path) -> None:
    import pyarrow.compute
    import pyarrow.parquet

    scale = bench_module("simulate_scale")
    configs = (("processes", 1), ("processes", 2), ("dask", 2))
    runs = scale.measure(
        [20], str(RULEBOOKS / "steel_wolves_like"), "patrol", 7, configs, keep=tmp_path
    )
    assert [(r.scheduler, r.workers) for r in runs] == list(configs)
    for run in runs:
        assert run.exit_code == 0 and run.failed == 0
        assert run.summary["completed"] == 20 and run.summary["first_seed"] == 7
        assert run.summary["run"]["scheduler"] == run.scheduler
        assert run.seconds > 0 and run.cpu > 0 and run.peak_mib > 10
        if run.workers > 1:  # the workers were seen, not only the command that started them
            assert run.tree_mib > run.peak_mib + 10
        assert run.identical, run.difference  # the same 20 games whatever ran them
    # one worker plays its shards one after the other; two share them out: other shard sizes,
    # so the files differ and only their games are the same
    assert runs[0].shards != runs[1].shards
    study = scale.games_of(tmp_path / "20-processes-1")
    assert study.num_rows == 20 and study["seed"].to_pylist() == list(range(7, 27))
    rows = scale.markdown(runs).splitlines()
    assert len([r for r in rows if r.startswith("| 20 |")]) == 3
    assert any("processes: 2 workers / 1" in r for r in rows)
    assert any("2 worker(s): Dask / processes" in r for r in rows)

    # the check can fail: one game's ending changed in one shard of a copy of the study
    import shutil

    changed = tmp_path / "changed"
    shutil.copytree(tmp_path / "20-dask-2", changed)
    shard = sorted(changed.glob("shard-*.parquet"))[0]
    table = pyarrow.parquet.read_table(shard)
    column = table.schema.get_field_index("turns")
    turns: Any = pyarrow.compute.add(table["turns"], 1)
    pyarrow.parquet.write_table(table.set_column(column, "turns", turns), shard)
    again = scale.Run(20, "dask", 2, summary=runs[2].summary)
    scale.compare(runs[0], tmp_path / "20-processes-1", again, changed)
    assert again.identical is False and "Parquet columns differ: turns" in again.difference
    other = scale.Run(20, "dask", 2, summary=dict(runs[2].summary, completed=19))
    scale.compare(runs[0], tmp_path / "20-processes-1", other, tmp_path / "20-dask-2")
    assert other.identical is False and "summaries differ in completed" in other.difference
