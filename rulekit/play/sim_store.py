"""What a simulation writes: one Parquet file per shard (``--out DIR``), and a CSV of games.

Each finished shard leaves ``shard-START-STOP.parquet`` (one row per game) and, written
last, ``shard-START-STOP.json`` (its compact summary). The JSON file is the mark of a
finished shard: a run given the same directory again reads it instead of playing the shard,
so a long study can be stopped and resumed. Files are written under a temporary name and
renamed, so a run stopped mid-write never leaves half a shard that looks finished.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import IO, Any

from rulekit.errors import InputError, error
from rulekit.play.sim_summary import Partial, category, is_number

MANIFEST = "simulation.json"
FIXED_COLUMNS = ["seed", "turns", "ending", "group", "error"]


def _write_atomically(path: Path, data: bytes) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def need_pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # the submodule is what reads and writes the files
    except ImportError:
        raise InputError(
            [
                error(
                    "--out writes Parquet files, which needs pyarrow, and it is not installed",
                    where="--out",
                    hint="pip install -e '.[scale]'",
                )
            ]
        ) from None
    return pyarrow


class ShardStore:
    """The ``--out`` directory of a simulation."""

    def __init__(
        self,
        directory: str,
        settings: dict[str, Any],
        columns: list[str],
        asked_size: int | None,
        default_size: int,
    ) -> None:
        self.pa = need_pyarrow()
        self.dir = Path(directory)
        self.columns = columns
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except FileExistsError:  # a file of that name, or a folder on its path is one
            raise InputError(
                [
                    error(
                        f"'{directory}' is a file, not a folder",
                        where="--out",
                        hint="--out names a folder for the shards: give a new name",
                    )
                ]
            ) from None
        except OSError as exc:
            raise InputError(
                [error(f"cannot make '{directory}': {exc.strerror or exc}", where="--out")]
            ) from None
        manifest = self.dir / MANIFEST
        self.shard_size = default_size
        if manifest.exists():
            before = json.loads(manifest.read_text(encoding="utf-8"))
            self.shard_size = int(before.get("shard_size", default_size))
            settings = settings | {"shard_size": asked_size or self.shard_size}
            differs = sorted(k for k in settings if before.get(k) != settings[k])
            if differs:
                raise InputError(
                    [
                        error(
                            f"{manifest} holds another simulation (its {', '.join(differs)} "
                            "differ): its shards cannot be resumed by this one",
                            where="--out",
                            hint="give a new directory, or the same settings as before",
                        )
                    ]
                )
        else:
            settings = settings | {"shard_size": self.shard_size}
            text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
            _write_atomically(manifest, text.encode())

    def _name(self, start: int, stop: int) -> str:
        return f"shard-{start:010d}-{stop:010d}"

    def finished(self, start: int, stop: int) -> Partial | None:
        summary = self.dir / (self._name(start, stop) + ".json")
        if not summary.exists() or not summary.with_suffix(".parquet").exists():
            return None
        return Partial.from_json(json.loads(summary.read_text(encoding="utf-8")))

    def write(self, start: int, stop: int, partial: Partial, rows: list[dict[str, Any]]) -> None:
        for stale in self.dir.glob("shard-*"):  # a shorter shard of an earlier, smaller run
            parts = stale.name.split(".")[0].split("-")
            if len(parts) == 3 and stale.name.endswith((".json", ".parquet")):
                a, b = int(parts[1]), int(parts[2])
                if a < stop and start < b and (a, b) != (start, stop):
                    stale.unlink()
        table = self.pa.table({c: _column(self.pa, [r.get(c) for r in rows]) for c in self.columns})
        sink = self.pa.BufferOutputStream()
        self.pa.parquet.write_table(table, sink)
        base = self.dir / self._name(start, stop)
        _write_atomically(base.with_suffix(".parquet"), sink.getvalue().to_pybytes())
        text = json.dumps(partial.to_json(), ensure_ascii=False)
        _write_atomically(base.with_suffix(".json"), text.encode())

    def rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        path = (self.dir / self._name(start, stop)).with_suffix(".parquet")
        rows: list[dict[str, Any]] = self.pa.parquet.read_table(path).to_pylist()
        return rows


def _column(pa: Any, values: list[Any]) -> Any:
    """A Parquet column: integers, numbers, booleans, or text (lists and records as JSON)."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pa.array(values, pa.bool_())
    if present and all(is_number(v) for v in present):
        kind = pa.int64() if all(isinstance(v, int) for v in present) else pa.float64()
        return pa.array(values, kind)
    return pa.array([None if v is None else category(v) for v in values], pa.string())


class CsvSink:
    """``--csv FILE``: one row per game, in seed order."""

    def __init__(self, stream: IO[str], columns: list[str]) -> None:
        self.writer = csv.DictWriter(stream, columns, extrasaction="ignore")
        self.writer.writeheader()

    def write(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            self.writer.writerow({k: _cell(v) for k, v in row.items()})


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if is_number(value):
        return str(value)
    return category(value)
