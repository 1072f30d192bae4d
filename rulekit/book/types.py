"""Static types used by the checker and to read values from the command line and files."""

from __future__ import annotations

from attrs import frozen


@frozen
class Prim:
    """A built-in type: int, number, text, bool, none, roll, any."""

    name: str

    def __str__(self) -> str:
        return self.name


@frozen
class EnumT:
    """Members of a declared enum."""

    name: str

    def __str__(self) -> str:
        return self.name


@frozen
class MarkerT:
    """A declared marker (``X``, ``•``)."""

    name: str

    def __str__(self) -> str:
        return self.name


@frozen
class KindT:
    """An entity of a declared kind."""

    name: str

    def __str__(self) -> str:
        return self.name


@frozen
class RecordT:
    """A value of a declared record type."""

    name: str

    def __str__(self) -> str:
        return self.name


@frozen
class ListT:
    """``list of T``."""

    item: Type

    def __str__(self) -> str:
        # list of (int or none) is not (list of int) or none
        item = f"({self.item})" if isinstance(self.item, UnionT) else str(self.item)
        return f"list of {item}"


@frozen
class UnionT:
    """``T or U``."""

    options: tuple[Type, ...]

    def __str__(self) -> str:
        return " or ".join(str(o) for o in self.options)


Type = Prim | EnumT | MarkerT | KindT | RecordT | ListT | UnionT

INT = Prim("int")
NUMBER = Prim("number")
TEXT = Prim("text")
BOOL = Prim("bool")
NONE = Prim("none")
ROLL = Prim("roll")
ANY = Prim("any")
RANGE = Prim("range")
TABLE = Prim("table")  # a table passed as a value (a graph for distance/route/within)

PRIMITIVES = {t.name: t for t in (INT, NUMBER, TEXT, BOOL, NONE, ANY, RANGE)}


def options(t: Type) -> tuple[Type, ...]:
    return t.options if isinstance(t, UnionT) else (t,)


def union(*types: Type) -> Type:
    """The smallest union holding all of ``types`` (any absorbs everything)."""
    flat: list[Type] = []
    for t in types:
        for o in options(t):
            if o == ANY:
                return ANY
            if o not in flat:
                flat.append(o)
    if INT in flat and NUMBER in flat:
        flat.remove(INT)
    return flat[0] if len(flat) == 1 else UnionT(tuple(flat))


def allows_none(t: Type) -> bool:
    """Whether a value declared ``t`` may be none (``T or none``, ``none``, ``any``)."""
    return any(o in (NONE, ANY) for o in options(t))


def is_numeric(t: Type) -> bool:
    """Numbers, rolls, and "int or none" (a none met at run time is reported there)."""
    present = [o for o in options(t) if o != NONE and not isinstance(o, MarkerT)] or [NONE]
    return all(o in (INT, NUMBER, ROLL, ANY) for o in present)


def numeric_part(t: Type) -> Type:
    """``int or none`` / ``int or X`` -> ``int``: what arithmetic on it gives."""
    present = [o for o in options(t) if o != NONE and not isinstance(o, MarkerT)]
    return union(*present) if present else t


def as_list(t: Type) -> ListT | None:
    """The list type of ``t``: a list, or a union of lists (and none)."""
    if isinstance(t, ListT):
        return t
    lists = [o for o in options(t) if isinstance(o, ListT)]
    others = [o for o in options(t) if not isinstance(o, ListT) and o != NONE]
    if lists and not others:
        return ListT(union(*(x.item for x in lists)))
    return None


def assignable(src: Type, dst: Type) -> bool:
    """Can a value of type ``src`` be used where ``dst`` is expected?"""
    if src == ANY or dst == ANY:
        return True
    if isinstance(src, UnionT):
        # "T or none" is accepted where T is wanted: a none met at run time is reported there
        present = [o for o in src.options if o != NONE] or [NONE]
        return all(assignable(o, dst) for o in present)
    if isinstance(dst, UnionT):
        return any(assignable(src, o) for o in dst.options)
    if src == dst:
        return True
    if src in (INT, ROLL) and dst in (INT, NUMBER):
        return True
    if isinstance(src, ListT) and isinstance(dst, ListT):
        return assignable(src.item, dst.item)
    return False


def comparable(a: Type, b: Type) -> bool:
    """Can values of these types be compared for equality without it being a mistake?"""
    if a in (ANY, NONE) or b in (ANY, NONE):
        return True
    if is_numeric(a) and is_numeric(b):
        return True
    return (
        assignable(a, b)
        or assignable(b, a)
        or any(comparable(x, y) for x in options(a) for y in options(b) if (x, y) != (a, b))
    )
