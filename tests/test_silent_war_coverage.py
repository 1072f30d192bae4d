"""docs/silent_war_coverage.md is kept honest (issue 11 §1, issue 30 §4): every row has a
status, a quote of the rules text that is found word for word in the text, the `.rk` lines it
cites (checked against the rulebook), and evidence (a test that exists, or a command); every
row that is not faithful says why; a faithful row's evidence is no xfail test, and every
deviation found as an xfail test is a deviation row; every numbered rule of the text has a
row; and the Summary counts the rows, by status and by how they were verified."""

from __future__ import annotations

import ast
import re
from collections import Counter

import pytest
from coverage_doc import (
    BOOK,
    CITE,
    DOC,
    ROOT,
    SEED,
    definitions,
    normalize,
    quotes,
    rows,
    seed_text,
)

STATUSES = ("faithful", "unverified", "deviation", "not applicable")
# how a row was verified: "new test" (third pass, evidence written from the text in this
# pass), "read" (third pass, text, code and the evidence test read by an outside reader),
# "carried" (status carried over from the 2026-11-24 pass; quote and lines added)
PASSES = ("new test", "read", "carried")

# The numbered rules of the Silent War 2.1 text ([1.0]-[29.0]) as its headings print them in
# ../shared/seeds/000_0b28bf2899953500.txt (transcribed; sub-rules included).
RULE_NUMBERS = """
1.0 1.1 2.0 2.1 2.2 2.3 2.4 2.5 3.0 3.1 3.11 3.12 3.13 3.14 3.15 3.2 4.0 5.0 5.1 5.2 6.0
7.0 7.1 7.11 7.12 7.13 7.14 7.2 7.21 7.22 8.0 9.0 10.0 10.1 10.2 10.21 10.3 11.0 12.0 12.1
12.2 13.0 13.1 13.2 13.3 14.0 14.1 14.11 14.12 14.13 14.14 14.15 14.16 14.17 14.2 14.3 14.4
14.41 14.42 14.5 14.6 14.7 14.8 15.0 15.1 15.11 15.2 15.21 15.22 15.23 15.24 15.25 15.26
16.0 16.1 16.2 16.3 17.0 17.1 18.0 18.1 18.11 18.12 18.13 18.14 18.2 19.0 19.1 19.11 19.2
19.21 20.0 20.1 20.2 20.3 20.4 20.5 21.0 21.1 21.11 21.2 21.21 21.22 21.23 21.24 21.3 22.0
22.1 22.2 22.4 23.0 23.1 24.0 24.1 24.11 24.12 24.13 24.14 24.2 24.3 24.31 24.32 24.4 24.41
24.5 24.51 24.52 24.53 24.54 24.55 24.6 24.7 25.0 25.1 25.2 25.3 26.0 27.0 28.0 28.1 28.11
28.12 28.13 28.14 28.2 28.21 28.3 28.4 28.41 28.5 29.0
"""
RULES = RULE_NUMBERS.split()
# evidence that is a command, not a test: `rulekit ...` or `.venv/bin/...` in backticks
COMMAND = re.compile(r"`(?:\.venv/bin/)?(?:rulekit|python)\b[^`]*`")


def named_tests(cell: str) -> list[tuple[str, str]]:
    """(file, function) for every test a cell names: `tests/f.py::name`, then `::other` for
    more of the same file; parametrized ids (`[default-x]`) are left off."""
    found = []
    current = ""
    for match in re.finditer(r"(tests/[\w/]+\.py)?::(\w+)", cell):
        current = match.group(1) or current
        assert current, f"a test without its file: {cell}"
        found.append((current, match.group(2)))
    return found


_sources: dict[str, str] = {}


def source(path: str) -> str:
    if path not in _sources:
        _sources[path] = (ROOT / path).read_text()
    return _sources[path]


_xfails: dict[str, dict[str, bool]] = {}


def is_xfail(path: str, name: str) -> bool:
    """Is the test marked `pytest.mark.xfail` (a decorator of its definition)?"""
    if path not in _xfails:
        _xfails[path] = {
            node.name: any("xfail" in ast.unparse(d) for d in node.decorator_list)
            for node in ast.walk(ast.parse(source(path)))
            if isinstance(node, ast.FunctionDef)
        }
    assert name in _xfails[path], f"{path}::{name} not found"
    return _xfails[path][name]


def status_of(cell: str) -> str:
    return next(s for s in STATUSES if cell.startswith(s))


def test_every_row_has_a_status_a_reason_and_a_pass() -> None:
    for rule, _, _, status, why, _, verified in rows():
        assert status.startswith(STATUSES), f"{rule}: status {status!r}"
        if not status.startswith("faithful") or "(" in status:
            assert why not in ("", "—"), f"{rule} ({status}) says no why"
        assert verified in PASSES, f"{rule}: pass {verified!r}"


def test_every_row_has_evidence_and_every_test_named_exists() -> None:
    for rule, _, _, status, _, evidence, _ in rows():
        tests = named_tests(evidence)
        if not status.startswith("not applicable"):
            assert tests or COMMAND.search(evidence), f"{rule} ({status}) names no evidence"
        for path, name in tests:
            assert re.search(rf"^def {name}\(", source(path), re.M), f"{rule}: {path}::{name}"


def test_a_faithful_row_does_not_rest_on_an_xfail_test() -> None:
    for rule, _, _, status, _, evidence, _ in rows():
        if status.startswith("faithful"):
            failing = [n for p, n in named_tests(evidence) if is_xfail(p, n)]
            assert failing == [], f"{rule} is faithful but its evidence is xfail: {failing}"


def test_every_deviation_found_as_an_xfail_test_has_its_deviation_row() -> None:
    path = "tests/test_silent_war_evidence.py"
    xfails = {n for n in re.findall(r"^def (\w+)\(", source(path), re.M) if is_xfail(path, n)}
    cited = {
        n
        for *_, status, _, evidence, _ in rows()
        if status.startswith("deviation")
        for p, n in named_tests(evidence)
        if p == path
    }
    assert xfails - cited == set()


def test_the_rk_lines_cited_are_the_definitions_named() -> None:
    # after a rulebook change: .venv/bin/python tests/coverage_doc.py --relines
    for rule, _, where, *_ in rows():
        for file, first, last, name in CITE.findall(where):
            found = definitions(file).get(name)
            assert found is not None, f"{rule}: no definition {name} in {file}"
            assert found == (int(first), int(last)), (
                f"{rule}: {file} `{name}` is at lines {found[0]}-{found[1]}, not {first}-{last}"
                " (refresh: .venv/bin/python tests/coverage_doc.py --relines)"
            )


def test_every_name_a_where_cell_gives_is_in_the_rulebook() -> None:
    # the names outside a citation (a field, a state's value) must still be the rulebook's
    words = set(re.findall(r"\w+", "".join(p.read_text() for p in BOOK.glob("*.rk"))))
    for rule, _, where, *_ in rows():
        rest = CITE.sub("", where)
        for name in re.findall(r"`([A-Za-z_]\w*)`", rest):
            assert name in words, f"{rule}: `{name}` is not in rulebooks/silent_war/"


def test_every_row_quotes_the_rules_text() -> None:
    if not SEED.exists():
        pytest.skip(f"the rules text is not beside the repository ({SEED})")
    text = seed_text()
    for rule, cell, *_ in rows():
        pieces = quotes(cell)
        assert pieces, f"{rule}: no quote of the rules text"
        for piece in pieces:
            assert normalize(piece) in text, f"{rule}: not in the rules text: {piece!r}"


def test_every_numbered_rule_has_a_row() -> None:
    covered = {n for cells in rows() for n in re.findall(r"\[(\d+\.\d+)", cells[0])}
    assert [n for n in RULES if n not in covered] == []


def test_the_summary_counts_the_rows() -> None:
    counts: Counter[str] = Counter()
    verified: Counter[str] = Counter()
    provisional = 0
    for _, _, _, status, _, _, how in rows():
        counts[status_of(status)] += 1
        verified[how] += 1
        provisional += status.startswith("faithful") and "provisional data" in status
    text = DOC.read_text()
    summary = (
        f"| faithful | {counts['faithful']} (of which {provisional} with provisional data) |",
        f"| unverified | {counts['unverified']} |",
        f"| deviation | {counts['deviation']} |",
        f"| not applicable | {counts['not applicable']} |",
        f"| **total** | **{len(rows())}** |",
        f"| new test | {verified['new test']} |",
        f"| read | {verified['read']} |",
        f"| carried | {verified['carried']} |",
    )
    for line in summary:
        assert line in text, line
