"""Source spans, rule references, provenance and type expressions: what every node carries."""

from __future__ import annotations

from attrs import field, frozen

__all__ = [
    "NO_SPAN",
    "Derived",
    "ListType",
    "Provenance",
    "RuleRef",
    "Span",
    "TypeExpr",
    "TypeName",
    "UnionType",
    "span_field",
]


@frozen
class Span:
    """Where a node starts and ends in a rulebook file (1-based lines and columns)."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NO_SPAN = Span("<builtin>", 0, 0, 0, 0)


def span_field() -> Span:
    return field(default=NO_SPAN, eq=False, hash=False, repr=False)


@frozen
class RuleRef:
    """A rule reference such as ``[14.16 A]`` or ``[E4]``; ``text`` is without brackets."""

    text: str

    @property
    def number(self) -> str:
        """The addressable part: ``14.16`` of ``14.16 A``, ``E4`` of ``E4``.

        A section cited by its heading (``§Torpedo Dud Checks``, for rules without
        numbers) is addressed by the whole heading.
        """
        if self.text.startswith("§"):
            return self.text
        return self.text.split()[0].rstrip(",") if self.text else ""

    def __str__(self) -> str:
        return f"[{self.text}]"


@frozen
class Provenance:
    """Marks a value the source text does not print (``provisional "why"``)."""

    reason: str = ""


@frozen
class Derived:
    """Marks values the source prints only through a worked example (``derived "where"``).

    Not provisional: the number is the publisher's, read off an example rather than a chart.
    """

    cite: str
    span: Span = span_field()


# ---- types -------------------------------------------------------------------


@frozen
class TypeName:
    """A named type: ``int``, ``number``, ``text``, ``bool``, an enum, kind, record or marker."""

    name: str
    span: Span = span_field()


@frozen
class ListType:
    """``list of T``."""

    item: TypeExpr
    span: Span = span_field()


@frozen
class UnionType:
    """``T or U``: e.g. ``int or no_roll``."""

    options: tuple[TypeExpr, ...]
    span: Span = span_field()


TypeExpr = TypeName | ListType | UnionType
