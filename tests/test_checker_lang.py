"""The designer's gaps in the checker (issue 15): interpolation checked, rule references
without a number, parentheses in types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rulekit.book.checker import load
from rulekit.engine.session import resolve
from rulekit.engine.values import unwrap
from rulekit.errors import RulekitError


def _errors(make_rulebook: Any, text: str) -> list[Any]:
    with pytest.raises(RulekitError) as caught:
        load(str(make_rulebook(text)))
    return list(caught.value.diagnostics)


@pytest.mark.parametrize(
    "line",
    [
        '    note "column {ord(c)}"',
        '    return "{ord(c)}"',
        '    choose d from [x, y] default x [1.0] "pick {c + 1}"',
        '    return "{ c }"',
    ],
)
def test_an_expression_in_braces_is_an_error(make_rulebook: Any, line: str) -> None:
    body = line if "return" in line else line + '\n    return ""'
    text = f'rulebook "I"\nenum col = x y\nprocedure p(c: col) -> text [1.0]\n{body}\n'
    [diag] = _errors(make_rulebook, text)
    assert "cannot be filled in: only {name} or {name.attr} can" in diag.message
    assert diag.span.line == 4
    assert diag.hint is not None and "then write {value}" in diag.hint


def test_unknown_name_in_braces_is_an_error(make_rulebook: Any) -> None:
    text = 'rulebook "I"\nprocedure p(c: int) -> text [1.0]\n    return "{cc} left"\n'
    [diag] = _errors(make_rulebook, text)
    assert diag.message == "unknown name 'cc'"
    assert diag.hint is not None and "'c'" in diag.hint


def test_names_in_braces_still_fill_in(make_rulebook: Any) -> None:
    root = make_rulebook(
        'rulebook "I"\nenum col = x y\nprocedure p(c: col) -> text [1.0]\n'
        '    let n = ord(c)\n    return "{c} is {n}"\n'
    )
    assert unwrap(resolve(load(str(root)), "p", at=["c=y"]).result) == "y is 1"


def test_rule_reference_without_a_number_hints_at_a_heading(make_rulebook: Any) -> None:
    text = 'rulebook "R"\nprocedure p -> int [Torpedo Dud Checks]\n    return 1\n'
    [diag] = _errors(make_rulebook, text)
    assert diag.hint is not None and "[§Torpedo Dud Checks]" in diag.hint
    assert (diag.span.line, diag.span.column) == (2, 20)


def test_parentheses_in_types(make_rulebook: Any) -> None:
    root = make_rulebook(
        'rulebook "T"\nstate xs: list of (int or none) = [1, none] [1.0]\n'
        "procedure p(flag: bool) -> (list of int) or none [1.0]\n"
        "    if flag:\n        return none\n    return [1]\n"
        "procedure q -> list of (int or none) [1.1]\n    return xs\n"
    )
    checked = load(str(root))
    assert unwrap(resolve(checked, "q").result) == (1, None)
    assert unwrap(resolve(checked, "p", at=["flag=true"]).result) is None


def test_parenthesised_union_item_is_not_a_union_of_lists(make_rulebook: Any) -> None:
    # a list of (int or none) is not a (list of int) or none: returning none must fail
    text = 'rulebook "T"\nprocedure p -> list of (int or none) [1.0]\n    return none\n'
    [diag] = _errors(make_rulebook, text)
    assert diag.message == "returns none but the procedure says list of (int or none)"


def test_no_braces_no_check(tmp_path: Path, make_rulebook: Any) -> None:
    # a lone brace is text, not a placeholder: nothing to fill in, nothing to report
    root = make_rulebook('rulebook "B"\nprocedure p -> text [1.0]\n    return "a { b"\n')
    assert unwrap(resolve(load(str(root)), "p").result) == "a { b"


def test_an_error_met_again_where_it_is_used_is_reported_once(make_rulebook: Any) -> None:
    root = make_rulebook(
        'rulebook "dup"\ndice d6 = 1..6\n\n'
        "procedure f(a: roll) -> int [1.0]\n    return 1\n\n"
        "procedure g -> int [1.0]\n    return f(roll 2d6)\n"
    )
    with pytest.raises(RulekitError) as caught:
        load(str(root))
    messages = [d.message for d in caught.value.diagnostics]
    assert messages == ["unknown type 'roll'"]
