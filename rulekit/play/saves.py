"""Saved games: the whole game state, the dice and the policy, as TOML written atomically.

A value is stored as itself when TOML has it (numbers, text, yes/no) and otherwise as a small
tagged table: ``{none = true}``, ``{enum = "area", member = "Kuriles", printed = "Kurile
Islands"}``, ``{list = [...]}``, ``{ref = 3}`` for a game piece (pieces are stored once, in
``[[entities]]``, so a piece in two lists stays one piece).
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import cattrs
import tomli_w
from attrs import define, field

from rulekit.book import types as t
from rulekit.book.coerce import Vocabulary
from rulekit.book.inputs import read_toml
from rulekit.engine.values import (
    Entity,
    EnumValue,
    Followed,
    MarkerValue,
    RangeValue,
    RecordValue,
    RollValue,
)
from rulekit.errors import InputError, error

SAVE_FORMAT = 1


@define
class SavedEntity:
    """A game piece: its kind, label and attributes (encoded)."""

    id: int
    kind: str
    label: str
    attrs: dict[str, Any]


@define
class SaveFile:
    """Everything needed to continue a game exactly where it stopped."""

    format: int
    rulebook: str
    edition: str
    scenario: str
    title: str
    turn: int
    policy: str
    values: dict[str, Any]
    entities: list[SavedEntity] = field(factory=list)
    seed: int | None = None
    dice_state: list[int] = field(factory=list)
    policy_state: dict[str, Any] = field(factory=dict)
    changed: list[str] = field(factory=list)
    provisional_used: list[str] = field(factory=list)
    entity_count: int = 0
    ended: str = ""
    options: list[str] = field(factory=list)  # optional rules switched on


_converter = cattrs.Converter()


class Encoder:
    """Turns runtime values into TOML-ready data, collecting the game pieces met."""

    def __init__(self) -> None:
        self.ids: dict[int, int] = {}
        self.entities: list[SavedEntity] = []

    def value(self, value: Any) -> Any:
        if isinstance(value, bool | int | str):
            return value
        if value is None:
            return {"none": True}
        if isinstance(value, Fraction):
            return {"fraction": f"{value.numerator}/{value.denominator}"}
        if isinstance(value, EnumValue):
            return {"enum": value.enum, "member": value.member, "printed": value.printed}
        if isinstance(value, MarkerValue):
            return {"marker": value.name, "symbol": value.symbol}
        if isinstance(value, RangeValue):
            return {"range": value.printed, "low": _opt(value.low), "high": _opt(value.high)}
        if isinstance(value, RecordValue):
            return {"record": value.type, "fields": {k: self.value(v) for k, v in value.fields}}
        if isinstance(value, RollValue):
            return value.total
        if isinstance(value, Followed):
            return self.value(value.value)
        if isinstance(value, tuple):
            return {"list": [self.value(v) for v in value]}
        if isinstance(value, Entity):
            return {"ref": self.entity(value)}
        raise TypeError(f"cannot save {value!r}")

    def entity(self, piece: Entity) -> int:
        key = id(piece)
        if key not in self.ids:
            number = len(self.ids) + 1
            self.ids[key] = number
            saved = SavedEntity(number, piece.kind, piece.label, {})
            self.entities.append(saved)
            saved.attrs = {k: self.value(v) for k, v in piece.attrs.items()}
        return self.ids[key]


def _opt(value: int | None) -> Any:
    return {"none": True} if value is None else value


class Decoder:
    """Turns saved data back into runtime values; pieces are rebuilt once and shared."""

    def __init__(self, entities: list[SavedEntity], vocab: Vocabulary) -> None:
        self.saved = {e.id: e for e in entities}
        self.built: dict[int, Entity] = {}
        self.vocab = vocab

    def value(self, data: Any, where: str = "value") -> Any:
        """A saved value; ``where`` is its path in the file (values.odds, entities[3].attrs.x),
        named in the error when it cannot be read."""
        try:
            return self._value(data, where)
        except SavedValueError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError, ZeroDivisionError) as exc:
            # a hand-edited or damaged save: any field may hold anything
            detail = f"no {exc}" if isinstance(exc, KeyError) else str(exc)
            raise SavedValueError(f"{where}: {detail}") from None

    def _value(self, data: Any, where: str) -> Any:
        if isinstance(data, bool | int | str):
            return data
        if isinstance(data, list):  # tolerate plain arrays
            return tuple(self.value(v, f"{where}[{i}]") for i, v in enumerate(data))
        if not isinstance(data, dict):
            raise ValueError(f"unreadable value {data!r}")
        if "none" in data:
            return None
        if "fraction" in data:
            try:
                return Fraction(data["fraction"])
            except ZeroDivisionError:
                raise ValueError(f"{data['fraction']!r} divides by zero") from None
        if "enum" in data:
            member = self.vocab.enum_value(data["enum"], data["member"])
            if member is None:
                raise ValueError(f"{data['member']} is no longer a {data['enum']}")
            return EnumValue(member.enum, member.member, member.index, data.get("printed", ""))
        if "marker" in data:
            return MarkerValue(data["marker"], data["symbol"])
        if "range" in data:
            low = self.value(data["low"], f"{where}.low")
            return RangeValue(low, self.value(data["high"], f"{where}.high"), data["range"])
        if "record" in data:
            fields = data["fields"].items()
            return RecordValue(
                data["record"], tuple((k, self.value(v, f"{where}.fields.{k}")) for k, v in fields)
            )
        if "list" in data:
            return tuple(self.value(v, f"{where}.list[{i}]") for i, v in enumerate(data["list"]))
        if "ref" in data:
            return self.entity(data["ref"])
        raise ValueError(f"unreadable value {data!r}")

    def entity(self, number: int) -> Entity:
        if number not in self.built:
            if number not in self.saved:
                raise ValueError(f"no piece {number!r} among the entities")
            saved = self.saved[number]
            piece = Entity(saved.kind, {}, saved.label)
            self.built[number] = piece
            at = f"entities[id = {number}].attrs"
            piece.attrs.update({k: self.value(v, f"{at}.{k}") for k, v in saved.attrs.items()})
        return self.built[number]


class SavedValueError(ValueError):
    """A saved value that cannot be read, with its path in the file."""


def encode_state(values: dict[str, Any]) -> tuple[dict[str, Any], list[SavedEntity]]:
    encoder = Encoder()
    encoded = {name: encoder.value(value) for name, value in values.items()}
    return encoded, encoder.entities


def state_hash(values: dict[str, Any]) -> str:
    """A fingerprint of a game state: equal states, equal hashes, in any process."""
    encoded, entities = encode_state(values)
    data = {"values": encoded, "entities": [_converter.unstructure(e) for e in entities]}
    text = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


TEMP_SUFFIX = ".rulekit-tmp"
STALE_AFTER = 60.0  # seconds: a save still being written by another run is younger


def remove_stale_temps(target: Path) -> None:
    """Delete what an interrupted save of ``target`` left (killed before its rename): only
    our own temporary files for this target, and only old ones."""
    now = time.time()
    for old in target.parent.glob(f".{glob.escape(target.name)}.*{TEMP_SUFFIX}"):
        try:
            if now - old.stat().st_mtime > STALE_AFTER:
                old.unlink()
        except OSError:
            pass  # gone already, or not ours to delete: the save itself goes on


def write_save(path: str, save: SaveFile) -> None:
    """Write atomically: a temporary file in the same folder, then a rename."""
    data = _converter.unstructure(save)
    text = tomli_w.dumps(_drop_nones(data))
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _drop_nones(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _drop_nones(v) for k, v in data.items() if v is not None}
    if isinstance(data, list):
        return [_drop_nones(v) for v in data]
    return data


def read_save(path: str, rulebook: str, edition: str, options: list[str]) -> SaveFile:
    """Read a save, refusing one from another rulebook, edition, options or newer format."""
    raw, _ = read_toml(path, "--resume")
    version = raw.get("format")
    if not isinstance(version, int):
        raise InputError([error(f"'{path}' is not a rulekit save (no format)", where="--resume")])
    if version > SAVE_FORMAT:
        raise InputError(
            [
                error(
                    f"'{path}' was saved in format {version}; this rulekit reads format "
                    f"{SAVE_FORMAT} and older",
                    where="--resume",
                    hint="upgrade rulekit to load it",
                )
            ]
        )
    if raw.get("rulebook") != rulebook or raw.get("edition", "") != edition:
        raise InputError(
            [
                error(
                    f"'{path}' is a save of {raw.get('rulebook')} {raw.get('edition', '')}, "
                    f"not of {rulebook} {edition}",
                    where="--resume",
                    hint="resume it with the rulebook and edition it was saved with",
                )
            ]
        )
    saved = list(raw.get("options", []))
    if sorted(saved) != sorted(options):
        given = " ".join(f"--option {o}" for o in saved) or "no --option"
        raise InputError(
            [
                error(
                    f"'{path}' was saved with options {', '.join(saved) or 'none'}, "
                    f"not {', '.join(options) or 'none'}",
                    where="--resume",
                    hint=f"resume it with {given}",
                )
            ]
        )
    try:
        return _converter.structure(raw, SaveFile)
    except Exception as exc:
        notes = (
            cattrs.transform_error(exc)
            if isinstance(exc, cattrs.BaseValidationError)
            else [str(exc)]
        )
        raise InputError(
            [error(f"'{path}' is damaged: {'; '.join(notes)}", where="--resume")]
        ) from None


def misfit(value: Any, typ: t.Type, vocab: Vocabulary) -> str | None:
    """Why a saved value is not of its declared type, or None when it may be.

    Lenient where the game itself is (none for a value not yet set, a whole number for a
    number); strict where a hand-edited save would break a rule later (a text for a number,
    a member of another enum, an item of the wrong kind)."""
    value = value.value if isinstance(value, Followed) else value
    if value is None:
        return None
    choices = t.options(typ)
    if len(choices) > 1:
        found = [misfit(value, c, vocab) for c in choices]
        return None if None in found else f"{show_saved(value)} is not a {typ}"
    if isinstance(typ, t.Prim):
        ok = {
            "int": lambda v: type(v) is int,
            "number": lambda v: type(v) is int or isinstance(v, Fraction),
            "text": lambda v: isinstance(v, str),
            "bool": lambda v: isinstance(v, bool),
        }.get(typ.name)
        return None if ok is None or ok(value) else f"{show_saved(value)} is not a {typ}"
    if isinstance(typ, t.EnumT):
        if isinstance(value, EnumValue) and value.enum == typ.name:
            return None
        return f"{show_saved(value)} is not a {typ}"
    if isinstance(typ, t.KindT):
        if isinstance(value, Entity) and value.kind == typ.name:
            return None
        return f"{show_saved(value)} is not a {typ}"
    if isinstance(typ, t.ListT):
        if not isinstance(value, tuple):
            return f"{show_saved(value)} is not a {typ}"
        for item in value:
            problem = misfit(item, typ.item, vocab)
            if problem is not None:
                return problem
    return None


def show_saved(value: Any) -> str:
    text = repr(value) if not isinstance(value, Entity) else f"a {value.kind}"
    return text if len(text) < 60 else text[:57] + "..."
