"""Reading what the user gives: ``--at NAME=VALUE``, ``--given FILE.toml``, ``--dice``, targets."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from attrs import define

from rulekit.book import types as t
from rulekit.book.checker import Checked, decision_names
from rulekit.book.coerce import CoerceError
from rulekit.engine.values import Entity, RecordValue
from rulekit.errors import (
    MAX_BITS,
    MAX_DIGITS,
    InputError,
    did_you_mean,
    did_you_mean_or_list,
    error,
    read_text,
)
from rulekit.language import nodes as n


def split_assignments(items: tuple[str, ...] | list[str], flag: str) -> list[tuple[str, str]]:
    """``["a=1", "b=x"]`` -> pairs; a missing ``=`` is an error naming the flag."""
    out = []
    for item in items:
        if "=" not in item:
            raise InputError(
                [
                    error(
                        f"'{item}' is not NAME=VALUE",
                        where=flag,
                        hint=f"e.g. {flag} war_period=WP3",
                    )
                ]
            )
        name, value = item.split("=", 1)
        out.append((name.strip(), value.strip()))
    return out


Inputs = Mapping[str, Any] | Sequence[str] | None
"""Inputs given as ``{"name": value}`` or as ``["name=value", ...]``."""


def assignments(items: Inputs, flag: str) -> list[tuple[str, Any]]:
    """Inputs as pairs, given either as ``{"name": value}`` (the Python API: values as a
    TOML file would hold them) or as ``["name=value", ...]`` (the command line)."""
    if items is None:
        return []
    if isinstance(items, Mapping):
        out: list[tuple[str, Any]] = []
        for name, value in items.items():
            # a decision answered several times in a row: one pair per answer, in order
            if flag != "--decide":
                out.append((str(name), value))
                continue
            # an answer is matched as text, as a scripted policy file's are; a decision made
            # several times in a row takes a list of answers, used in order
            answers = value if isinstance(value, list | tuple) else [value]
            out.extend((str(name), a if isinstance(a, str) else json.dumps(a)) for a in answers)
        return out
    if isinstance(items, str):  # one "name=value" given bare
        items = [items]
    return list(split_assignments(list(items), flag))


def parse_dice(text: str) -> list[int]:
    values = []
    for part in re.split(r"[,\s]+", text.strip()):
        if not part:
            continue
        try:
            values.append(int(part))
        except ValueError:
            raise InputError(
                [error(f"'{part}' is not a die result", where="--dice", hint="e.g. --dice 3,7,0")]
            ) from None
    return values


@define
class Target:
    """What a command-line name or rule number refers to."""

    kind: str  # "table", "procedure" or "modifiers"
    name: str
    ref: n.RuleRef | None
    note: str | None = None  # why this one, when the rule number names others too


def find_target(checked: Checked, text: str, kinds: tuple[str, ...]) -> Target:
    """A table/procedure by name, or by its rule reference (``7.1``, ``[E4]``, ``14.16 A``)."""
    book = checked.book
    pools: dict[str, dict[str, Any]] = {
        "table": book.tables,
        "procedure": book.procedures,
        "modifiers": book.modifiers,
    }
    for kind in kinds:
        if text in pools[kind]:
            return Target(kind, text, pools[kind][text].ref)
    wanted = text.strip().strip("[]").strip()
    hits = []
    for kind in kinds:
        for name, decl in pools[kind].items():
            ref = decl.ref
            if ref is not None and wanted in (ref.text, ref.number):
                hits.append(Target(kind, name, ref))
    # An exact reference beats a section number; then a table (a chart code such as T3 or
    # 7.1 names the chart, as lookup reads it), then the first kind asked for.
    order = sorted(kinds, key=lambda kind: kind != "table")
    for pool in ([h for h in hits if h.ref is not None and h.ref.text == wanted], hits):
        for kind in order:
            of_kind = [h for h in pool if h.kind == kind]
            if len(of_kind) == 1:
                chosen = of_kind[0]
                others = [f"{h.kind} {h.name}" for h in hits if h is not chosen]
                if others:
                    chosen.note = (
                        f"rule {wanted} is {chosen.kind} {chosen.name}; it also numbers "
                        f"{', '.join(others)}: to run one of those, name it"
                    )
                return chosen
            if of_kind:
                break
    what = " or ".join(kinds)
    if len(hits) > 1:
        names = ", ".join(f"{h.name} [{h.ref.text if h.ref else ''}]" for h in hits)
        raise InputError(
            [
                error(
                    f"rule {wanted} has several of them: {names}",
                    where=text,
                    hint="name the one you mean",
                )
            ]
        )
    known = [name for kind in kinds for name in pools[kind]]
    refs = [decl.ref.number for kind in kinds for decl in pools[kind].values() if decl.ref]
    raise InputError(
        [
            error(
                f"no {what} named or numbered '{text}' in {book.name or 'this rulebook'}",
                where=text,
                hint=did_you_mean(text, known + refs),
            )
        ]
    )


def load_given(path: str) -> tuple[dict[str, Any], str]:
    """Read a ``--given`` TOML file; syntax errors point at file:line:col. A bundled
    example named as the docs name it (``examples/...``) is found from any directory."""
    from rulekit import bundled

    found = bundled.file(path)
    return read_toml(str(found) if found else path, "--given")


def read_toml(path: str, flag: str) -> tuple[dict[str, Any], str]:
    """Read the TOML file a flag names, and its text; syntax errors point at file:line:col."""
    text = read_text(path, path, flag)
    try:
        parsed = _parse(text)
    except RecursionError:
        raise InputError([error("arrays or tables nest too deeply", where=path)]) from None
    except ValueError as exc:
        if not isinstance(exc, tomllib.TOMLDecodeError):  # a number too long to read
            raise InputError(
                [error(f"a number of more than {MAX_DIGITS} digits", where=path)]
            ) from None
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        if match:
            line, col = int(match.group(1)), int(match.group(2))
        else:  # "(at end of document)": just past the last character
            lines = text.splitlines() or [""]
            line, col = len(lines), len(lines[-1]) + 1
        message = re.sub(r"\s*\(at (line|end of document).*\)", "", str(exc))
        raise InputError(
            [error(f"not valid TOML: {message}", n.Span(path, line, col, line, col + 1))]
        ) from None
    if not _small_numbers(parsed):
        raise InputError([error(f"a number of more than {MAX_DIGITS} digits", where=path)])
    return parsed, text


def _small_numbers(value: Any) -> bool:
    """Whether every whole number in a parsed file has at most MAX_DIGITS digits."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, int) and item.bit_length() > MAX_BITS:
            return False
    return True


_PARSED: dict[str, dict[str, Any]] = {}  # by text: the same file is often read many times


def _parse(text: str) -> dict[str, Any]:
    """``tomllib.loads``, remembered by text; each caller gets its own copy."""
    parsed = _PARSED.get(text)
    if parsed is None:
        parsed = tomllib.loads(text)
        if len(_PARSED) >= 64:
            _PARSED.clear()
        _PARSED[text] = parsed
    return _fresh(parsed)  # type: ignore[no-any-return]


def _fresh(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    return value  # str, int, float, bool, dates: immutable


def locate_key(path: str, text: str, dotted: str) -> n.Span | None:
    """Where ``a.b.c`` is written in a TOML file (best effort: the last key's line)."""
    last = dotted.split(".")[-1].split("[")[0]
    pattern = re.compile(rf"^\s*\"?{re.escape(last)}\"?\s*=")
    header = re.compile(rf"^\s*\[+\s*{re.escape(dotted.split('[')[0])}\s*\]+")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line) or header.match(line):
            column = len(line) - len(line.lstrip()) + 1
            return n.Span(path, number, column, number, column + len(last))
    return None


class ValueReader:
    """Turns raw values (TOML or command-line text) into values of declared types."""

    def __init__(
        self,
        checked: Checked,
        evaluate: Callable[[n.Expr], Any],
        source: str,
        text: str | None = None,
        situation: Callable[[], Iterable[Any]] | None = None,
    ) -> None:
        self.c = checked
        self.evaluate = evaluate
        self.source = source
        self.text = text
        self.situation = situation  # the game's values, to find a piece named on the command line

    def problem(self, key: str, message: str, hint: str | None = None) -> InputError:
        span = locate_key(self.source, self.text, key) if self.text is not None else None
        if span is not None:
            return InputError([error(f"{key}: {message}", span, hint=hint)])
        return InputError([error(f"{key}: {message}", where=self.source, hint=hint)])

    def read(self, raw: Any, typ: t.Type, key: str) -> Any:
        vocab = self.c.vocab
        try:
            if isinstance(raw, str) and isinstance(typ, (t.KindT, t.RecordT)):
                return self.named(raw, typ, key)
            if isinstance(typ, t.KindT):
                if not isinstance(raw, dict):
                    raise CoerceError(f"a {typ.name} is given as a table of its attributes")
                return self.entity(raw, typ.name, key)
            if isinstance(typ, t.RecordT):
                if not isinstance(raw, dict):
                    raise CoerceError(f"a {typ.name} is given as a table of its fields")
                return self.record(raw, typ.name, key)
            if isinstance(typ, t.ListT):
                if isinstance(raw, str):  # --at fire=2,2: a list written with commas
                    raw = [part.strip() for part in raw.split(",") if part.strip()]
                if not isinstance(raw, list):
                    raise CoerceError(f"expected a list of {typ.item}")
                return tuple(self.read(item, typ.item, f"{key}[{i}]") for i, item in enumerate(raw))
            if isinstance(raw, bool):
                if typ in (t.BOOL, t.ANY):
                    return raw
                raise CoerceError(f"expected {typ}, got {str(raw).lower()}")
            if isinstance(raw, int):
                if any(o in (t.INT, t.NUMBER, t.ANY) for o in t.options(typ)):
                    return raw
                return vocab.read(str(raw), typ)
            if isinstance(raw, float):
                return vocab.read(repr(raw), typ)
            if isinstance(raw, str):
                return vocab.read(raw, typ)
            raise CoerceError(f"cannot read {raw!r} as {typ}")
        except CoerceError as exc:
            raise self.problem(key, exc.message, exc.hint) from None

    def entity(self, raw: dict[str, Any], kind: str, key: str) -> Entity:
        decl = self.c.book.kinds[kind]
        names = [f.name for f in decl.fields]
        attrs: dict[str, Any] = {}
        for name in raw:
            if name not in names:
                raise self.problem(
                    f"{key}.{name}",
                    f"a {kind} has no attribute '{name}'",
                    did_you_mean(name, names),
                )
        for fdecl in decl.fields:
            ftype = self.c.vocab.type_of(fdecl.type)
            if fdecl.name in raw:
                attrs[fdecl.name] = self.read(raw[fdecl.name], ftype, f"{key}.{fdecl.name}")
            elif fdecl.default is not None:
                attrs[fdecl.name] = self.evaluate(fdecl.default)
            else:
                raise self.problem(key, f"a {kind} needs '{fdecl.name}'")
        label = str(attrs.get("name") or key)
        return Entity(kind, attrs, label)

    def record(self, raw: dict[str, Any], name: str, key: str) -> RecordValue:
        decl = self.c.book.records[name]
        fields = []
        for fdecl in decl.fields:
            if fdecl.name not in raw:
                raise self.problem(key, f"a {name} needs '{fdecl.name}'")
            ftype = self.c.vocab.type_of(fdecl.type)
            fields.append((fdecl.name, self.read(raw[fdecl.name], ftype, f"{key}.{fdecl.name}")))
        return RecordValue(name, tuple(fields))

    def named(self, text: str, typ: t.KindT | t.RecordT, key: str) -> Any:
        """``--at sub=Spearfish``: the piece or record of that name (or id) the situation holds."""
        what = "a table of its attributes" if isinstance(typ, t.KindT) else "a table of its fields"
        held = [v for v in _held(self.situation() if self.situation else ()) if _is_a(v, typ)]
        if not held:
            raise CoerceError(
                f"no {typ.name} is in the situation to be named: give it as {what}",
                hint=f"or put the {typ.name}s in the state first (--given FILE.toml)",
            )
        for exact in (True, False):
            found = [v for v in held if any(_same(text, n, exact) for n in _names(v))]
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise CoerceError(f"several {typ.name}s are called '{text}'")
        names = [n for v in held for n in _names(v)]
        raise CoerceError(f"no {typ.name} called '{text}'", hint=did_you_mean(text, names))


def _held(values: Iterable[Any]) -> Iterator[Any]:
    """Every piece and record in the state, inside lists and pieces' attributes too, once."""
    seen: set[int] = set()
    stack = list(values)
    while stack:
        value = stack.pop(0)
        if isinstance(value, (tuple, list)):
            stack[:0] = list(value)
        elif isinstance(value, (Entity, RecordValue)) and id(value) not in seen:
            seen.add(id(value))
            yield value
            inner = (
                value.attrs.values() if isinstance(value, Entity) else (v for _, v in value.fields)
            )
            stack.extend(inner)


def _is_a(value: Any, typ: t.KindT | t.RecordT) -> bool:
    if isinstance(typ, t.KindT):
        return isinstance(value, Entity) and value.kind == typ.name
    return isinstance(value, RecordValue) and value.type == typ.name


def _names(value: Any) -> list[str]:
    """What a piece or record is called: its label, its name and its id."""
    fields = value.attrs if isinstance(value, Entity) else dict(value.fields)
    names = [str(fields[k]) for k in ("name", "id") if fields.get(k) is not None]
    if isinstance(value, Entity) and value.label and value.label not in names:
        names.insert(0, value.label)
    return names


def _same(given: str, name: str, exact: bool) -> bool:
    return given == name if exact else given.casefold() == name.casefold()


def check_decisions(checked: Checked, pairs: list[tuple[str, str]], flag: str) -> None:
    """Every decision answered in advance is one the rulebook asks (``choose NAME``)."""
    if not pairs:
        return  # nothing to check: the rulebook's whole tree is not walked for nothing
    known = decision_names(checked.book)
    for name, _ in pairs:
        if name not in known:
            raise InputError(
                [
                    error(
                        f"the rulebook makes no decision '{name}'",
                        where=f"{flag} {name}",
                        hint=did_you_mean_or_list(name, known, "decisions"),
                    )
                ]
            )
