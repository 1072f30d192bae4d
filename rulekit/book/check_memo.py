"""What a check of a rulebook keeps for the next check of an edited version of it.

The language server checks the rulebook on every edit; most declarations are the same
objects as at the last check (rulekit.lsp.chunks keeps the nodes of what did not change), so
a table's or procedure's check is used again when the declaration and everything its check
reads are the same as then. tests/test_lsp_chunks.py checks that a check with a memo finds
what a fresh check finds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attrs import define, field

from rulekit.book.tables import CompiledTable
from rulekit.errors import Diagnostic
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.book.checker import Checker


@define
class ProvisionalItem:
    """A place where the rulebook supplies values the source text does not print."""

    what: str
    span: n.Span
    count: int
    reason: str = ""


@define
class TableMemo:
    """A table's check, and what it read: its declaration (by identity) and the rest."""

    decl: n.TableDecl
    actions: bool  # whether a cell calls a table or procedure
    key: tuple[object, ...]
    table: CompiledTable | None
    diags: list[Diagnostic]
    provisional: list[ProvisionalItem]


@define
class ProcedureMemo:
    """A procedure's check, and what it read."""

    decl: n.ProcedureDecl
    env: object
    diags: list[Diagnostic]


@define
class CheckMemo:
    """What a check of a rulebook can keep for the next check of an edited version of it
    (the language server checks on every edit). Declarations are held by identity: an
    unchanged file or declaration keeps its node objects (rulekit.lsp.chunks), and a kept
    result is used only when every declaration it may depend on is the same object."""

    tables: dict[str, TableMemo] = field(factory=dict)
    procedures: dict[str, ProcedureMemo] = field(factory=dict)
    calls: dict[int, tuple[object, list[tuple[str, bool, int]]]] = field(factory=dict)


def check_tables(checker: Checker, memo: CheckMemo) -> None:
    """``Checker._tables`` with a memo: a table is checked again only when it or what it
    reads is not the same object as in the memo."""
    book = checker.book
    # what a table's check reads besides the table: the vocabulary, dice and globals
    env = tuple(
        id(d)
        for kind in (book.dice, book.enums, book.markers, book.records, book.kinds)
        for d in kind.values()
    ) + tuple(id(d) for kind in (book.tracks, book.states, book.consts) for d in kind.values())
    # a cell's action (``=> t(x)``) calls tables and procedures: those tables also
    # read every declaration that can be called
    callable_ = tuple(
        id(d) for kind in (book.tables, book.procedures, book.modifiers) for d in kind.values()
    )
    checker._env = env
    kept: dict[str, TableMemo] = {}
    for decl in book.tables.values():
        hit = memo.tables.get(decl.name)
        same = hit is not None and hit.decl is decl
        actions = hit.actions if hit is not None and same else checker.has_actions(decl)
        key = (
            env,
            tuple(id(p) for p in book.patches.get(decl.name, ())),
            checker._is_given_rolls(decl.name),
            callable_ if actions else (),
        )
        if hit is not None and same and hit.key == key:
            if hit.table is not None:
                checker.tables[decl.name] = hit.table
            checker.diags.extend(hit.diags)
            checker.provisional.extend(hit.provisional)
        else:
            diags, provisional = len(checker.diags), len(checker.provisional)
            checker._table(decl)
            hit = TableMemo(
                decl,
                actions,
                key,
                checker.tables.get(decl.name),
                checker.diags[diags:],
                checker.provisional[provisional:],
            )
        kept[decl.name] = hit
        # what a call of the table reads of it (check_exprs._table_call)
        checker._table_sigs.append((decl.name, decl.dims, decl.result, decl.default, actions))
    memo.tables = kept


def check_procedures(checker: Checker, memo: CheckMemo) -> None:
    """``Checker._procedures`` with a memo (after :func:`check_tables`)."""
    book = checker.book
    # what a procedure's check reads besides its own body: the declarations the
    # tables read, and the signatures of what it can call (tables included)
    env = (
        checker._env,
        checker._table_sigs,
        [(m.name, m.params) for m in book.modifiers.values()],
        [(p.name, p.params, p.returns) for p in book.procedures.values()],
    )
    kept: dict[str, ProcedureMemo] = {}
    for proc in book.procedures.values():
        hit = memo.procedures.get(proc.name)
        if hit is not None and hit.decl is proc and hit.env == env:
            checker.diags.extend(hit.diags)
        else:
            diags = len(checker.diags)
            checker._procedure(proc)
            hit = ProcedureMemo(proc, env, checker.diags[diags:])
        kept[proc.name] = hit
    memo.procedures = kept
