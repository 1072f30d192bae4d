"""What a simulation writes: a Parquet dataset (``--out DIR``), and a CSV of games.

``DIR`` is a Parquet dataset as pandas, pyarrow and duckdb read a folder: one file per shard,
``shard-START-STOP.parquet`` (one row per game), all with one schema, the study's. What is
not data lives in ``DIR/_meta/`` (a folder whose name starts with ``_``, which Parquet
readers skip): ``simulation.json`` (what the study is: rulebook and its hash, options,
scenario, policy, turns, step budget, the columns and their types) and, written last for
each shard, ``shard-START-STOP.json`` (its compact summary). That JSON file is the mark of a
finished shard: a run given the same directory again reads it instead of playing the shard,
so a long study can be stopped and resumed, and ``rulekit report DIR`` summarises it without
playing. Files are written under a temporary name and renamed, so a run stopped mid-write
never leaves half a shard that looks finished.

A shard's summary carries the study's hash (of its settings: rulebook files, options,
scenario, policy, turns, step budget, columns) and the hash of its Parquet file: a shard of
another study copied in, a summary edited by hand, or rows swapped under it do not verify,
and are neither merged by ``report`` nor taken as finished on resuming (they are played
again and replaced).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

from rulekit.errors import InputError, error
from rulekit.play.sim_summary import Partial, category, is_number

META = "_meta"
MANIFEST = "simulation.json"
FIXED_COLUMNS = ["seed", "turns", "ending", "group", "error"]
# The Parquet type of each fixed column; a reported value's comes from its declaration
FIXED_TYPES = {"seed": "int64", "turns": "int64", "ending": "string", "group": "string"}
FIXED_TYPES["error"] = "string"
# What the settings of a study are called when one differs on resuming
# (not the rulebook's path: the same files named from another folder are the same study)
SETTING_WORDS = {
    "rulebook_hash": "rulebook's files (their hash)",
    "options": "options",
    "scenario": "scenario",
    "policy": "policy",
    "turns": "--turns",
    "max_steps": "--max-steps",
    "columns": "reported values",
}


def study_hash(settings: dict[str, Any]) -> str:
    """What a study is, as a hash: the settings a resumed run must share (SETTING_WORDS)."""
    what = {k: settings.get(k) for k in SETTING_WORDS}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def verified(directory: Path, summary: Path, study: str) -> Partial | None:
    """A finished shard's summary, when it is this study's and its rows are the ones it was
    written with; None for anything else (a planted or foreign shard is not merged)."""
    rows = directory / (summary.stem + ".parquet")
    try:
        data = json.loads(summary.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("study") != study:
        return None
    if data.get("rows") is None or data.get("rows") != _digest(rows):
        return None
    body = {k: v for k, v in data.items() if k not in ("study", "rows", "check")}
    if data.get("check") != _check(study, body):
        return None
    try:
        return Partial.from_json(body)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def _check(study: str, body: dict[str, Any]) -> str:
    """The hash of a summary's counts under its study: counts edited by hand do not match."""
    text = json.dumps(body, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256((study + text).encode()).hexdigest()


def _write_atomically(path: Path, data: bytes) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def check_out_dir(directory: str) -> Path:
    """``--out`` names a folder (the study's dataset): a file, or a name ending in
    ``.parquet``, is refused before any game is played."""
    path = Path(directory)
    if path.suffix.lower() in (".parquet", ".pq"):
        raise InputError(
            [
                error(
                    f"--out {directory}: a study is a folder of Parquet files (one per shard), "
                    "not one file",
                    where="--out",
                    hint=f"give a folder, e.g. --out {path.with_suffix('')}/ ; "
                    "pandas.read_parquet(folder) reads it as one table",
                )
            ]
        )
    if path.exists() and not path.is_dir():
        raise InputError(
            [
                error(
                    f"'{directory}' is a file, not a folder",
                    where="--out",
                    hint="--out names a folder for the shards: give a new name, or the folder "
                    "of the study to resume",
                )
            ]
        )
    return path


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


def shard_name(start: int, stop: int) -> str:
    return f"shard-{start:010d}-{stop:010d}"


def shard_range(name: str) -> tuple[int, int] | None:
    """``shard-0000000001-0000000101.json`` -> (1, 101); None for any other name."""
    parts = name.split(".")[0].split("-")
    if len(parts) != 3 or parts[0] != "shard" or not all(p.isdigit() for p in parts[1:]):
        return None
    return int(parts[1]), int(parts[2])


def _migrate(directory: Path, meta: Path) -> None:
    """A study written before ``_meta/`` kept its JSON files beside the Parquet files (so
    pandas could not read the folder): move them in."""
    old = directory / MANIFEST
    if not old.exists():
        return
    meta.mkdir(exist_ok=True)
    for path in directory.glob("shard-*.json"):
        os.replace(path, meta / path.name)
    os.replace(old, meta / MANIFEST)


def read_manifest(directory: Path) -> dict[str, Any]:
    """What a study is, from its ``_meta/simulation.json``; a clear error when it is not a
    study's folder."""
    meta = directory / META
    _migrate(directory, meta)
    path = meta / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(
            [
                error(
                    f"{directory} holds no simulation (no {META}/{MANIFEST})",
                    where="DIR",
                    hint="give the folder a `rulekit simulate ... --out DIR` wrote",
                )
            ]
        ) from None
    except (OSError, ValueError) as exc:
        raise InputError([error(f"cannot read {path}: {exc}", where="DIR")]) from None
    if not isinstance(data, dict):
        raise InputError([error(f"{path} is not a study's description", where="DIR")])
    return data


class ShardStore:
    """The ``--out`` directory of a simulation."""

    def __init__(self, directory: str, settings: dict[str, Any], types: dict[str, str]) -> None:
        self.pa = need_pyarrow()
        self.dir = check_out_dir(directory)
        self.meta = self.dir / META
        self.types = types
        self.columns = list(types)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except FileExistsError:  # a folder on its path is a file
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
        _migrate(self.dir, self.meta)
        self.meta.mkdir(exist_ok=True)
        manifest = self.meta / MANIFEST
        settings = settings | {"columns": types}
        if manifest.exists():
            before = read_manifest(self.dir)
            differs = [k for k in SETTING_WORDS if k in settings and before.get(k) != settings[k]]
            if differs:
                what = ", ".join(
                    f"{SETTING_WORDS[k]} ({_shown(before.get(k))} -> {_shown(settings[k])})"
                    for k in differs
                )
                raise InputError(
                    [
                        error(
                            f"{self.dir} holds another study: its {what} differ, so its "
                            "shards cannot be resumed by this one",
                            where="--out",
                            hint="give a new folder, or the same settings as before",
                        )
                    ]
                )
        text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
        _write_atomically(manifest, text.encode())
        self.study = study_hash(settings)

    def finished_ranges(self) -> list[tuple[int, int]]:
        """The seed ranges of every finished shard (its summary and its rows), in order."""
        found = []
        for summary in self.meta.glob("shard-*.json"):
            at = shard_range(summary.name)
            if at is not None and verified(self.dir, summary, self.study) is not None:
                found.append(at)
        return sorted(found)

    def finished(self, start: int, stop: int) -> Partial | None:
        return verified(self.dir, self.meta / (shard_name(start, stop) + ".json"), self.study)

    def write(self, start: int, stop: int, partial: Partial, rows: list[dict[str, Any]]) -> None:
        for stale in [*self.dir.glob("shard-*"), *self.meta.glob("shard-*")]:
            at = shard_range(stale.name)  # a shard overlapping this one, of an earlier run
            if at is not None and at[0] < stop and start < at[1] and at != (start, stop):
                stale.unlink(missing_ok=True)
        schema = self.pa.schema([(c, _TYPES[self.types[c]](self.pa)) for c in self.columns])
        table = self.pa.table(
            {c: _values(self.types[c], [r.get(c) for r in rows], c) for c in self.columns},
            schema=schema,
        )
        sink = self.pa.BufferOutputStream()
        self.pa.parquet.write_table(table, sink)
        base = shard_name(start, stop)
        data = sink.getvalue().to_pybytes()
        _write_atomically(self.dir / (base + ".parquet"), data)
        body = partial.to_json()
        signed = body | {
            "study": self.study,
            "rows": hashlib.sha256(data).hexdigest(),
            "check": _check(self.study, body),
        }
        text = json.dumps(signed, ensure_ascii=False)
        _write_atomically(self.meta / (base + ".json"), text.encode())

    def rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        path = self.dir / (shard_name(start, stop) + ".parquet")
        rows: list[dict[str, Any]] = self.pa.parquet.read_table(path).to_pylist()
        return rows


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 40 else text[:37] + "..."


_TYPES = {
    "int64": lambda pa: pa.int64(),
    "float64": lambda pa: pa.float64(),
    "bool": lambda pa: pa.bool_(),
    "string": lambda pa: pa.string(),
}


def _values(kind: str, values: list[Any], column: str) -> list[Any]:
    """A column's values as its declared type: numbers stay numbers in every shard (a shard
    whose games all failed has only nulls, still typed), anything else is text (lists and
    records as JSON)."""
    if kind == "string":
        return [None if v is None else category(v) for v in values]
    if kind == "bool":
        if all(v is None or isinstance(v, bool) for v in values):
            return values
    elif kind == "int64":
        if all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in values):
            return values
    elif all(v is None or is_number(v) or isinstance(v, Fraction) for v in values):
        return [None if v is None else float(v) for v in values]
    wrong = next(v for v in values if v is not None)
    raise ValueError(f"column {column} is declared {kind} but a game reported {wrong!r}")


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


def column_types(checked: Any, names: list[str]) -> dict[str, str]:
    """Each column's Parquet type, from the rulebook: the fixed columns, then each reported
    value as its track or state variable is declared (a track is a whole number; ``number``
    a float; anything else, or a value the rulebook does not declare, text)."""
    from rulekit.language import nodes as n

    types = dict(FIXED_TYPES)
    book = checked.book
    for name in names:
        if name in types:
            continue
        kind = "string"
        if name in book.tracks:
            kind = "int64"
        elif name in book.states and isinstance(book.states[name].type, n.TypeName):
            kind = {"int": "int64", "number": "float64", "bool": "bool"}.get(
                book.states[name].type.name, "string"
            )
        types[name] = kind
    return types


def write_csv(directory: Path, done: list[tuple[int, int]], stream: IO[str]) -> None:
    """``report --csv``: one row per game of the study's finished shards, in seed order."""
    pa = need_pyarrow()
    columns = list(read_manifest(directory).get("columns", {})) or FIXED_COLUMNS
    sink = CsvSink(stream, columns)
    for start, stop in done:
        sink.write(
            pa.parquet.read_table(directory / (shard_name(start, stop) + ".parquet")).to_pylist()
        )
