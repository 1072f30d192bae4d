"""Reading values written as text (table cells, ``--at``, TOML) against a declared type."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from attrs import define, field

from rulekit.book import types as t
from rulekit.engine.values import EnumValue, MarkerValue, RangeValue, RecordValue
from rulekit.errors import suggest
from rulekit.language import nodes as n


class CoerceError(Exception):
    """A text does not read as the expected type; the caller knows where it was."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


# numbers of at most 1,000 digits (errors.MAX_DIGITS): a longer one reads as no number
_INT = re.compile(r"^([+-]|±)?\s*(\d{1,1000})$")
_DECIMAL = re.compile(r"^([+-])?(\d{1,1000}\.\d{1,1000})$")
_FRACTION = re.compile(r"^([+-])?(\d{1,1000})/(\d{1,1000})$")
_N = r"([+-]?\d{1,1000})"
_RANGES = [
    (re.compile(rf"^{_N}\s*(?:\.\.|-|–|—|to)\s*{_N}$"), "both"),
    (re.compile(rf"^(?:\.\.|≤|<=)\s*{_N}$"), "high"),
    (re.compile(rf"^{_N}\s*or\s+(?:less|lower|fewer)$"), "high"),
    (re.compile(rf"^{_N}\s*(?:\.\.|\+)$"), "low"),
    (re.compile(rf"^(?:≥|>=)\s*{_N}$"), "low"),
    (re.compile(rf"^{_N}\s*or\s+(?:more|greater|higher)$"), "low"),
]


def read_int(text: str) -> int | None:
    m = _INT.match(text.strip())
    if not m:
        return None
    value = int(m.group(2))
    return -value if m.group(1) == "-" else value


def read_number(text: str) -> int | Fraction | None:
    s = text.strip()
    whole = read_int(s)
    if whole is not None:
        return whole
    if s in ("½", "+½"):
        return Fraction(1, 2)
    m = _DECIMAL.match(s) or None
    if m:
        value = Fraction(m.group(2))
        return -value if m.group(1) == "-" else value
    m = _FRACTION.match(s)
    if m and int(m.group(3)) != 0:
        value = Fraction(int(m.group(2)), int(m.group(3)))
        return -value if m.group(1) == "-" else value
    return None


# odds as a Combat Results Table prints them: "3:1", "1:2", "1-2" (attacker to defender)
_ODDS = re.compile(r"^(\d{1,1000})\s*(?::|-|–|—|to)\s*(\d{1,1000})$")


def read_odds(text: str) -> int | Fraction | None:
    """Odds ``A:B`` (or ``A-B``) as the ratio A/B: the threshold an attack of A against a
    defense of B reaches (``3:1`` is 3, ``1:2`` is 1/2)."""
    m = _ODDS.match(text.strip())
    if not m or int(m.group(2)) == 0:
        return None
    ratio = Fraction(int(m.group(1)), int(m.group(2)))
    return ratio.numerator if ratio.denominator == 1 else ratio


def read_range(text: str) -> RangeValue | None:
    s = text.strip()
    single = read_int(s)
    if single is not None:
        return RangeValue(single, single, s)
    for pattern, kind in _RANGES:
        m = pattern.match(s)
        if not m:
            continue
        if kind == "both":
            low, high = int(m.group(1)), int(m.group(2))
            return RangeValue(low, high, s) if low <= high else None
        if kind == "high":
            return RangeValue(None, int(m.group(1)), s)
        return RangeValue(int(m.group(1)), None, s)
    return None


BOOL_WORDS = {"yes": True, "true": True, "no": False, "false": False}


@define
class Vocabulary:
    """The names a rulebook declares that values are read against."""

    enums: dict[str, n.EnumDecl] = field(factory=dict)
    markers: dict[str, n.MarkerDecl] = field(factory=dict)
    records: dict[str, n.RecordDecl] = field(factory=dict)
    kinds: dict[str, n.KindDecl] = field(factory=dict)
    _members: dict[str, dict[str, tuple[str, int]]] = field(factory=dict, init=False)
    # type_of by node: the declarations do not change once the rulebook is loaded
    _types: dict[int, tuple[n.TypeExpr, t.Type]] = field(factory=dict, init=False)

    def members(self, enum: str) -> dict[str, tuple[str, int]]:
        """Printed name or alias -> (member, index) for an enum."""
        if enum not in self._members:
            table: dict[str, tuple[str, int]] = {}
            for i, m in enumerate(self.enums[enum].members):
                table[m.name] = (m.name, i)
                for alias in m.aliases:
                    table[alias] = (m.name, i)
            self._members[enum] = table
        return self._members[enum]

    def enum_value(self, enum: str, text: str) -> EnumValue | None:
        hit = self.members(enum).get(text)
        if hit is None:
            return None
        return EnumValue(enum, hit[0], hit[1], text)

    def member_of(self, enum: str, index: int) -> EnumValue:
        m = self.enums[enum].members[index]
        return EnumValue(enum, m.name, index, m.name)

    def type_of(self, texpr: n.TypeExpr) -> t.Type:
        """Resolve a written type; raises CoerceError for unknown names."""
        hit = self._types.get(id(texpr))
        if hit is not None and hit[0] is texpr:
            return hit[1]
        typ = self._type_of(texpr)
        self._types[id(texpr)] = (texpr, typ)
        return typ

    def _type_of(self, texpr: n.TypeExpr) -> t.Type:
        if isinstance(texpr, n.ListType):
            return t.ListT(self.type_of(texpr.item))
        if isinstance(texpr, n.UnionType):
            return t.union(*(self.type_of(o) for o in texpr.options))
        name = texpr.name
        if name in t.PRIMITIVES:
            return t.PRIMITIVES[name]
        if name in self.enums:
            return t.EnumT(name)
        if name in self.markers:
            return t.MarkerT(name)
        if name in self.records:
            return t.RecordT(name)
        if name in self.kinds:
            return t.KindT(name)
        known = [*t.PRIMITIVES, *self.enums, *self.markers, *self.records, *self.kinds]
        best = suggest(name, known)
        raise CoerceError(f"unknown type '{name}'", f"did you mean '{best}'?" if best else None)

    # ---- reading text ------------------------------------------------------------

    def read(self, text: str, typ: t.Type, *, quoted: bool = False) -> Any:
        """Read ``text`` as a value of ``typ``."""
        if isinstance(typ, t.UnionT):
            # Markers first: "X" is "no roll" before it is the text "X".
            ordered = sorted(typ.options, key=lambda o: not isinstance(o, t.MarkerT))
            problems: list[CoerceError] = []
            for option in ordered:
                try:
                    return self.read(text, option, quoted=quoted)
                except CoerceError as exc:
                    problems.append(exc)
            hint = next((p.hint for p in problems if p.hint), None)
            present = [o for o in typ.options if o != t.NONE]
            if len(present) == 1:
                message = next((p.message for p in problems if p.hint == hint), problems[0].message)
                raise CoerceError(message, hint)
            raise CoerceError(f"'{text}' is not {typ}", hint)
        if typ == t.ANY or typ == t.TEXT:
            return text
        if typ == t.NONE:
            if text.strip().lower() in ("none", "—", "-", ""):
                return None
            raise CoerceError(f"'{text}' is not none")
        if typ in (t.INT, t.ROLL):
            value = read_int(text)
            if value is None:
                raise CoerceError(f"'{text}' is not a whole number")
            return value
        if typ == t.NUMBER:
            number = read_number(text)
            if number is None:
                raise CoerceError(f"'{text}' is not a number")
            return number
        if typ == t.BOOL:
            if text.strip().lower() in BOOL_WORDS:
                return BOOL_WORDS[text.strip().lower()]
            raise CoerceError(f"'{text}' is not yes/no")
        if typ == t.RANGE:
            rng = read_range(text)
            if rng is None:
                raise CoerceError(f"'{text}' is not a range of die results")
            return rng
        if isinstance(typ, t.EnumT):
            member = self.enum_value(typ.name, text)
            if member is None:
                best = suggest(text, self.members(typ.name))
                raise CoerceError(
                    f"'{text}' is not a {typ.name}",
                    f"did you mean '{best}'?"
                    if best
                    else f"a {typ.name} is one of: "
                    + ", ".join(m.name for m in self.enums[typ.name].members[:12]),
                )
            return member
        if isinstance(typ, t.MarkerT):
            marker = self.markers[typ.name]
            if text in (marker.symbol, marker.name):
                return MarkerValue(marker.name, text)
            raise CoerceError(f"'{text}' is not the marker {marker.name} ('{marker.symbol}')")
        if isinstance(typ, t.ListT):
            return (self.read(text, typ.item, quoted=quoted),)
        if isinstance(typ, t.RecordT):
            raise CoerceError(
                f"'{text}' is one value but a {typ.name} has "
                f"{len(self.records[typ.name].fields)} fields",
                "write the fields as separate cells or as (a, b, ...)",
            )
        raise CoerceError(f"'{text}' cannot be read as {typ}")

    def record(self, name: str, items: list[tuple[str | None, Any]], read_item: Any) -> RecordValue:
        """Build a record from positional or named items; ``read_item(item, type)`` reads one."""
        decl = self.records[name]
        fields = [f.name for f in decl.fields]
        values: dict[str, Any] = {}
        positional = [v for k, v in items if k is None]
        named = [(k, v) for k, v in items if k is not None]
        if positional and len(positional) != len(fields):
            raise CoerceError(
                f"a {name} has {len(fields)} fields ({', '.join(fields)}) "
                f"but {len(positional)} values are given"
            )
        for fdecl, item in zip(decl.fields, positional, strict=False):
            values[fdecl.name] = read_item(item, self.type_of(fdecl.type))
        for key, item in named:
            named_field = next((f for f in decl.fields if f.name == key), None)
            if named_field is None:
                best = suggest(key, fields)
                raise CoerceError(
                    f"a {name} has no field '{key}'", f"did you mean '{best}'?" if best else None
                )
            values[key] = read_item(item, self.type_of(named_field.type))
        missing = [f for f in fields if f not in values]
        if missing:
            raise CoerceError(f"a {name} needs {', '.join(missing)}")
        return RecordValue(name, tuple((f, values[f]) for f in fields))
