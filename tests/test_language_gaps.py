"""Gaps found by rulebooks written outside the project (issue 34 §3), each with its test."""

from __future__ import annotations

import pytest

from rulekit.language import nodes as n
from rulekit.language.parser import parse


@pytest.mark.parametrize("ref", ["B.", "B.2", "A1.", "E4", "14.16 A"])
def test_a_rule_reference_may_be_a_chapter_letter(ref: str) -> None:
    # a rulebook whose chapters are lettered cites "[B.]" as it cites "[A1.]"
    module = parse(f'procedure p -> int [{ref}] "the rule"\n    return 1\n', "t.rk")
    (decl,) = module.decls
    assert isinstance(decl, n.ProcedureDecl)
    assert decl.ref == n.RuleRef(ref) and decl.title == "the rule"


def test_a_chapter_reference_on_a_statement_and_a_table() -> None:
    text = "table t [C.] : x: int -> int\n    1 | 2\nprocedure p -> int\n    return t(1)  [C.3]\n"
    table, proc = parse(text, "t.rk").decls
    assert isinstance(table, n.TableDecl) and table.ref == n.RuleRef("C.")
    assert isinstance(proc, n.ProcedureDecl)
    (ret,) = proc.body
    assert isinstance(ret, n.Return) and ret.ref == n.RuleRef("C.3")
