"""A `simulate --out` study as a data scientist takes it away: a Parquet dataset that pandas,
pyarrow and duckdb read as it is, one schema whatever failed, resumes that check what they
resume, and `rulekit report` without playing again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import RULEBOOKS, run_cli

pa = pytest.importorskip("pyarrow", reason="--out needs pyarrow: pip install -e '.[scale]'")
import pyarrow.dataset  # noqa: E402
import pyarrow.parquet  # noqa: E402

SUB = str(RULEBOOKS / "steel_wolves_like")


def _simulate(out: Path, *more: str, runs: int = 12) -> dict:
    result = run_cli(
        "simulate",
        SUB,
        "--runs",
        str(runs),
        "--seed",
        "0",
        "--workers",
        "1",
        "--out",
        out,
        "--json",
        *more,
    )
    assert result.exit_code in (0, 1), result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("study") / "patrol"
    return out, _simulate(out)


def test_pandas_pyarrow_and_duckdb_read_the_folder_as_it_is(study: tuple[Path, dict]) -> None:
    out, summary = study
    pandas = pytest.importorskip("pandas")
    duckdb = pytest.importorskip("duckdb")
    frame = pandas.read_parquet(out)
    assert len(frame) == 12 and sorted(frame["seed"]) == list(range(12))
    assert frame["ships_sunk"].sum() == pytest.approx(
        next(s["mean"] for s in summary["stats"] if s["name"] == "ships_sunk") * 12
    )
    assert pyarrow.dataset.dataset(out).count_rows() == 12
    rows = duckdb.sql(f"SELECT count(*), sum(ships_sunk) FROM '{out}/*.parquet'").fetchall()
    assert rows[0][0] == 12 and rows[0][1] == frame["ships_sunk"].sum()
    # what is not data is out of the readers' way
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith("shard-")) == ["_meta"]


def test_one_schema_even_when_every_game_of_a_shard_failed(tmp_path: Path) -> None:
    out = tmp_path / "failing"
    summary = _simulate(out, "--max-steps", "1", runs=3)
    assert len(summary["failed"]) == 3
    for shard in out.glob("shard-*.parquet"):
        schema = pyarrow.parquet.read_schema(shard)
        # declared tracks are whole numbers, even in a shard holding only failed games
        assert str(schema.field("ships_sunk").type) == "int64"
        assert str(schema.field("seed").type) == "int64"
        assert str(schema.field("error").type) == "string"


@pytest.mark.parametrize("name", ["study.parquet", "existing-file"])
def test_out_must_be_a_folder(tmp_path: Path, name: str) -> None:
    target = tmp_path / name
    if name == "existing-file":
        target.write_text("mine\n", encoding="utf-8")
    result = run_cli("simulate", SUB, "--runs", "2", "--out", target)
    assert result.exit_code == 1
    assert "Traceback" not in result.stderr
    assert ("not one file" in result.stderr) or ("is a file, not a folder" in result.stderr)
    if name == "existing-file":
        assert target.read_text(encoding="utf-8") == "mine\n"  # nothing the user had is lost
    else:
        assert not target.exists()


@pytest.mark.parametrize(
    ("more", "named"),
    [
        (["--turns", "3"], "--turns"),
        (["--policy", "random"], "policy"),
        (["--max-steps", "5000"], "--max-steps"),
    ],
)
def test_resume_refuses_another_study_naming_what_changed(
    study: tuple[Path, dict], tmp_path: Path, more: list[str], named: str
) -> None:
    out = tmp_path / "copy"
    shutil.copytree(study[0], out)
    result = run_cli("simulate", SUB, "--runs", "12", "--seed", "0", "--out", out, *more)
    assert result.exit_code == 1
    assert "holds another study" in result.stderr and named in result.stderr


def test_resume_refuses_a_changed_rulebook(tmp_path: Path) -> None:
    book = tmp_path / "book"
    shutil.copytree(SUB, book)
    out = tmp_path / "study"
    first = run_cli("simulate", book, "--runs", "2", "--out", out)
    assert first.exit_code == 0, first.stderr
    rk = sorted(book.glob("*.rk"))[0]
    rk.write_text(rk.read_text(encoding="utf-8") + "\n# a comment changes the file\n")
    again = run_cli("simulate", book, "--runs", "2", "--out", out)
    assert again.exit_code == 1 and "rulebook's files" in again.stderr


def test_a_pilot_run_does_not_fix_the_shard_size(tmp_path: Path) -> None:
    out = tmp_path / "pilot"
    pilot = _simulate(out, runs=4)  # 4 games on one worker: shards of one game
    assert pilot["run"]["shard_size"] == 1
    full = _simulate(out, runs=24)  # 24 games: shards of three, the pilot's four kept
    assert full["run"]["shard_size"] == 3 and full["run"]["resumed_shards"] == 4
    names = sorted(p.name for p in out.glob("shard-*.parquet"))
    assert names[:5] == [
        "shard-0000000000-0000000001.parquet",
        "shard-0000000001-0000000002.parquet",
        "shard-0000000002-0000000003.parquet",
        "shard-0000000003-0000000004.parquet",
        "shard-0000000004-0000000006.parquet",  # up to the next multiple of three
    ]
    fresh = _simulate(tmp_path / "fresh", runs=24)
    for key in ("stats", "endings", "failed", "completed"):
        assert full[key] == fresh[key]  # the same games whatever the shards


def test_report_gives_the_summary_without_playing(study: tuple[Path, dict], tmp_path: Path) -> None:
    out, summary = study
    result = run_cli("report", out, "--json", "--csv", tmp_path / "games.csv")
    assert result.exit_code == 0, result.stderr
    reported = json.loads(result.stdout)
    for key in ("stats", "categories", "endings", "groups", "failed", "completed", "runs"):
        assert reported[key] == summary[key], key
    lines = (tmp_path / "games.csv").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 13 and lines[0].startswith("seed,turns,ending,group,error")


def test_report_of_a_partial_study_names_the_seeds_to_play(
    study: tuple[Path, dict], tmp_path: Path
) -> None:
    out = tmp_path / "partial"
    shutil.copytree(study[0], out)
    shards = sorted(out.glob("shard-*.parquet"))
    shards[1].unlink()  # as if stopped before this shard finished
    result = run_cli("report", out)
    assert result.exit_code == 0, result.stderr
    assert "not played yet: seeds" in result.stderr


def test_report_of_a_folder_that_is_no_study(tmp_path: Path) -> None:
    result = run_cli("report", tmp_path)
    assert result.exit_code == 1
    assert "holds no simulation" in result.stderr and "Traceback" not in result.stderr


def test_a_study_written_before_meta_is_moved_in(study: tuple[Path, dict], tmp_path: Path) -> None:
    out = tmp_path / "old"
    shutil.copytree(study[0], out)
    for path in (out / "_meta").iterdir():  # the old layout: JSON beside the Parquet files
        path.rename(out / path.name)
    (out / "_meta").rmdir()
    result = run_cli("report", out, "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["runs"] == 12
    assert not list(out.glob("*.json"))


def test_two_machines_halves_merged_by_copying_files(tmp_path: Path) -> None:
    """docs/studies.md: split the seeds between machines, copy the shards into one folder,
    report: the same summary as the study played in one place."""
    one, two, whole = tmp_path / "a", tmp_path / "b", tmp_path / "whole"
    for out, seed in ((one, "0"), (two, "6")):
        result = run_cli("simulate", SUB, "--runs", "6", "--seed", seed, "--out", out)
        assert result.exit_code == 0, result.stderr
    for path in two.rglob("shard-*"):  # machine b's shards into machine a's folder
        target = one / path.relative_to(two)
        target.write_bytes(path.read_bytes())
    merged = json.loads(run_cli("report", one, "--json").stdout)
    alone = _simulate(whole, runs=12)
    for key in ("stats", "categories", "endings", "failed", "completed", "runs"):
        assert merged[key] == alone[key], key
