"""Parsing: rulebook text -> nodes. Lark's exceptions are converted here and nowhere else."""

from __future__ import annotations

import contextlib
import hashlib
import typing
from functools import lru_cache
from importlib.resources import files
from typing import Any, cast

import attrs
import lark
from lark import (
    Lark,
    Token,
    Tree,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)
from lark.exceptions import VisitError
from lark.grammar import Rule
from lark.indenter import DedentError, Indenter
from lark.lark import _LOAD_ALLOWED_OPTIONS
from lark.lexer import TerminalDef

from rulekit.errors import MAX_EXPRESSION_DEPTH, MAX_NESTING_DEPTH, SyntaxProblem, error
from rulekit.language import cache
from rulekit.language import nodes as n
from rulekit.language.transformer import AstBuilder


class RulebookIndenter(Indenter):
    """Python-style blocks; newlines inside brackets do not count."""

    NL_type = "_NL"
    OPEN_PAREN_types = ("LPAR", "LSQB", "LBRACE")  # type: ignore[assignment]
    CLOSE_PAREN_types = ("RPAR", "RSQB", "RBRACE")  # type: ignore[assignment]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4


def grammar_text() -> str:
    return files("rulekit.language").joinpath("grammar.lark").read_text(encoding="utf-8")


_OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "propagate_positions": True,
    "maybe_placeholders": True,
    "start": ["start", "expr"],  # "expr": expressions given on the command line (--of)
}


@lru_cache(maxsize=2)
def build_parser(strict: bool = False) -> Lark:
    """The LALR parser. ``strict`` also proves the grammar free of conflicts (tests).

    Building the LALR tables takes most of a second, so they are kept in rulekit's cache
    folder as JSON (never lark's own ``cache=True``: a pickle at a predictable name in the
    shared temp directory, which anyone could plant).
    """
    text = grammar_text()
    if strict:
        return Lark(text, postlex=RulebookIndenter(), strict=True, **_OPTIONS)
    folder = cache.cache_dir()
    stamp = f"{lark.__version__}\0{sorted(_OPTIONS.items())}\0{text}"
    key = hashlib.sha256(stamp.encode()).hexdigest()
    name = f"grammar-{key}.json"
    if folder is not None:
        saved = cache.read_entry(folder, name, key, cache.decode_plain)
        if saved is not None:
            with contextlib.suppress(Exception):  # anything wrong in it: build anew
                # what lark's standalone parsers load from: plain data, never a pickle;
                # the options lark does not keep (positions, postlex) are given again
                again = {k: v for k, v in _OPTIONS.items() if k in _LOAD_ALLOWED_OPTIONS}
                loaded: Lark = Lark._load_from_dict(  # type: ignore[no-untyped-call]
                    saved["data"], saved["memo"], postlex=RulebookIndenter(), **again
                )
                return loaded
    parser = Lark(text, postlex=RulebookIndenter(), **_OPTIONS)
    if folder is not None:
        data, memo = parser.memo_serialize([TerminalDef, Rule])
        options = {k: v for k, v in data["options"].items() if k not in _LOAD_ALLOWED_OPTIONS}
        with contextlib.suppress(TypeError):
            tables = cache.encode_plain({"data": {**data, "options": options}, "memo": memo})
            cache.write_entry(folder, name, key, tables)
            cache.prune(folder, cache.GRAMMAR, 1)  # older grammars' tables
    return parser


# What a terminal is called in an error message.
_TERMINAL_NAMES = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": 'a quoted string ("...")',
    "DICE": "dice such as d10 or 2d6",
    "REF": "a rule reference such as [14.16]",
    "CELLWORD": "a table cell",
    "_NL": "the end of the line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of the block",
    "$END": "the end of the file",
}


def _describe(terminal: str, parser: Lark) -> str:
    if terminal in _TERMINAL_NAMES:
        return _TERMINAL_NAMES[terminal]
    try:
        pattern = parser.get_terminal(terminal).pattern
    except KeyError:
        return terminal
    return f"'{pattern.value}'" if pattern.type == "str" else terminal


def _expected(names: set[str], parser: Lark) -> str:
    described = sorted({_describe(t, parser) for t in names})
    if len(described) > 8:
        described = [*described[:8], "..."]
    return ", ".join(described)


def _token_text(token: Token) -> str:
    if token.type == "_NL":
        return "end of line"
    if token.type == "_INDENT":
        return "indentation"
    if token.type in ("_DEDENT", "$END"):
        return "end of block"
    return f"'{token}'"


def _convert(exc: UnexpectedInput, path: str, parser: Lark, unit: str = "block") -> SyntaxProblem:
    """The one place where a lark parse exception becomes a rulekit diagnostic."""
    line = getattr(exc, "line", 0) or 0
    column = getattr(exc, "column", 0) or 0
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        if token.type in ("_DEDENT", "$END"):
            message = f"the {unit} ends too early"
        else:
            message = f"unexpected {_token_text(token)}"
        names = set(exc.accepts or exc.expected)
        expected = _expected(names, parser)
        width = len(str(token)) if token.type not in ("_NL", "_INDENT", "_DEDENT") else 1
        span = n.Span(path, line, column, line, column + max(width, 1))
        hint = f"expected {expected}" if expected else None
        if token.type == "_INDENT":
            hint = "this line is indented more than the line before it needs"
        elif names & {"CELLWORD", "VBAR"} and str(token) in ("(", ")", "{", "}", "~"):
            hint = f"to write '{token}' in a table cell, put the cell's text in quotes"
        elif "REF" in names and str(token).startswith("["):
            hint = "a rule reference starts with its number, [14.16]; a rule without one is cited by its heading, [§Torpedo Dud Checks]"  # noqa: E501
        return SyntaxProblem([error(message, span, hint=hint)])
    if isinstance(exc, UnexpectedCharacters):
        char = exc.char
        span = n.Span(path, line, column, line, column + 1)
        expected = _expected(set(exc.allowed or ()), parser)
        hint = f"expected {expected}" if expected else None
        if char == "\t":
            hint = "use spaces for indentation"
        return SyntaxProblem([error(f"unexpected character '{char}'", span, hint=hint)])
    if isinstance(exc, UnexpectedEOF):
        span = n.Span(path, line, column, line, column + 1)
        return SyntaxProblem([error("unexpected end of file", span)])
    return SyntaxProblem([error(str(exc), n.Span(path, line, column, line, column + 1))])


def parse(text: str, path: str) -> n.Module:
    """Parse one file's text into a module of declarations."""
    parser = build_parser()
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = parser.parse(text, start="start")
        not_too_deep(tree, path)
        module: n.Module = AstBuilder(path).transform(tree)
        expressions_not_too_deep(module)
        return module
    except UnexpectedInput as exc:
        raise _convert(exc, path, parser) from None
    except DedentError as exc:
        line = _dedent_line(text, str(exc))
        span = n.Span(path, line, 1, line, 2)
        raise SyntaxProblem(
            [error("this line's indentation matches no enclosing block", span)]
        ) from None
    except VisitError as exc:
        # lark's wrapper never reaches a user: a rulekit error is shown as such, anything
        # else is a bug in the transformer and surfaces as itself
        raise exc.orig_exc from None


def parse_expression(text: str, path: str) -> n.Expr:
    """Parse one expression given outside a rulebook (``--of``); ``path`` names it in errors."""
    parser = build_parser()
    try:
        tree = parser.parse(text, start="expr")
        not_too_deep(tree, path)
        result = cast(n.Expr, AstBuilder(path).transform(tree))
        expressions_not_too_deep(result)
        return result
    except UnexpectedInput as exc:
        raise _convert(exc, path, parser, "expression") from None
    except VisitError as exc:
        raise exc.orig_exc from None


def not_too_deep(tree: Tree[Token], path: str) -> None:
    """Blocks, brackets and operators nested past MAX_NESTING_DEPTH are an error at the
    deepest one: every later stage walks the tree recursively (the bundled rulebooks nest
    16 deep). Measured without recursion, so any depth is measured."""
    stack: list[tuple[Tree[Token], int, Tree[Token]]] = [(tree, 1, tree)]
    while stack:
        node, depth, located = stack.pop()
        if not getattr(node.meta, "empty", True):
            located = node
        if depth > MAX_NESTING_DEPTH:
            meta = located.meta
            line, column = getattr(meta, "line", 1), getattr(meta, "column", 1)
            raise SyntaxProblem(
                [
                    error(
                        f"blocks, brackets or operators nest deeper than {MAX_NESTING_DEPTH}",
                        n.Span(path, line, column, line, column + 1),
                        hint="split it into procedures, constants or shorter expressions",
                    )
                ]
            )
        for child in node.children:
            if isinstance(child, Tree):
                stack.append((child, depth + 1, located))


_EXPRESSIONS = tuple(typing.get_args(n.Expr))
_FIELDS: dict[type, tuple[str, ...]] = {}


def expressions_not_too_deep(tree: object) -> None:
    """Expressions inside expressions past MAX_EXPRESSION_DEPTH are an error at the one too
    deep. The engine runs each expression as generated Python, whose parser refuses more
    than 200 brackets inside one another (an operator or a call brings two to four), so the
    bound is here, before any code is generated: a compile error there would be a crash."""
    stack: list[tuple[object, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, tuple | list):
            stack.extend((item, depth) for item in node)
            continue
        names = _FIELDS.get(type(node))
        if names is None:
            kind = type(node)
            fields = attrs.fields(kind) if attrs.has(kind) else ()
            names = _FIELDS[kind] = tuple(f.name for f in fields if f.name != "span")
        if isinstance(node, _EXPRESSIONS):
            depth += 1
            if depth > MAX_EXPRESSION_DEPTH:
                raise SyntaxProblem(
                    [
                        error(
                            f"expressions nest deeper than {MAX_EXPRESSION_DEPTH}",
                            node.span,
                            hint="split it with let, or into procedures",
                        )
                    ]
                )
        stack.extend((getattr(node, name), depth) for name in names)


def _dedent_line(text: str, message: str) -> int:
    """DedentError carries no position; find the first line dedented to an unknown column."""
    stack = [0]
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip(" \t"))
        if indent > stack[-1]:
            stack.append(indent)
            continue
        while indent < stack[-1]:
            stack.pop()
        if indent != stack[-1]:
            return number
    return 1
