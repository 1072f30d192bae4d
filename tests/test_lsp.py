"""`rulekit lsp` driven as an editor drives it: a server process over stdio, pygls's client.

Each expectation comes from elsewhere than the server: diagnostics from `rulekit check` on
a copy of the rulebook with the edit saved, positions and names from the rulebook's text,
formatting from `rulekit fmt`'s own function. Edits are never saved to the bundled files.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from conftest import RULEBOOKS
from lsp_client import Editor, uri
from lsprotocol import types as lsp

from rulekit.book.checker import check
from rulekit.book.loader import load_rulebook
from rulekit.errors import RulekitError
from rulekit.language.fmt import format_text

SW = RULEBOOKS / "silent_war"


@pytest.fixture(scope="module")
def editor() -> Iterator[Editor]:
    ed = Editor()
    yield ed
    ed.close()


def _find(text: str, pattern: str) -> tuple[int, int]:
    """(line, column), 0-based, of the first match of a regex in a text."""
    match = re.search(pattern, text, re.M)
    assert match is not None, pattern
    before = text[: match.start()]
    return before.count("\n"), match.start() - (before.rfind("\n") + 1)


def _errors(diags: list[lsp.Diagnostic]) -> list[lsp.Diagnostic]:
    return [d for d in diags if d.severity == lsp.DiagnosticSeverity.Error]


def _check_copy(tmp: Path, name: str, edits: dict[str, str]) -> list[tuple[str, int, int, str]]:
    """`rulekit check`'s errors and warnings on a copy of a bundled rulebook with ``edits``
    (file name -> text) saved: (file name, line, column, message)."""
    root = tmp / name
    shutil.copytree(RULEBOOKS / name, root)
    for file, text in edits.items():
        (root / file).write_text(text, encoding="utf-8")
    try:
        diags = check(load_rulebook(str(root))).diagnostics
    except RulekitError as exc:
        diags = exc.diagnostics
    out = []
    for d in diags:
        assert d.span is not None
        out.append((Path(d.span.file).name, d.span.line, d.span.column, d.message))
    return sorted(out)


def _published(editor: Editor, root: Path, severities: set[lsp.DiagnosticSeverity]) -> list:
    out = []
    for doc, diags in editor.diagnostics.items():
        if not doc.startswith(uri(root)):
            continue
        for d in diags:
            if d.severity in severities:
                first = d.message.split("\n")[0]
                out.append(
                    (
                        doc.rsplit("/", 1)[1],
                        d.range.start.line + 1,
                        d.range.start.character + 1,
                        first,
                    )
                )
    return sorted(out)


# ---- diagnostics ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["silent_war", "gato_leader", "attack_sub"])
def test_a_bundled_rulebook_opens_without_errors_and_with_its_provisional_values(
    editor: Editor, name: str
) -> None:
    root = RULEBOOKS / name
    editor.open(root / "rulebook.rk")
    editor.settle(0.2)
    assert _published(editor, root, {lsp.DiagnosticSeverity.Error}) == []
    hints = _published(editor, root, {lsp.DiagnosticSeverity.Hint})
    checked = check(load_rulebook(str(root)))
    # every place `rulekit check` counts provisional values has a hint on its line or inside
    assert checked.provisional and hints
    lines = {(f, line) for f, line, _, _ in hints}
    for item in checked.provisional:
        # its declaration: from its name's line to the next line at column 0
        span = item.span
        source = Path(span.file).read_text(encoding="utf-8").split("\n")
        end = span.line
        while end < len(source) and source[end][:1] in ("", " ", "#"):
            end += 1
        inside = {(Path(span.file).name, x) for x in range(span.line, end + 1)}
        assert lines & inside, item


def test_unsaved_edits_give_the_errors_rulekit_check_gives(editor: Editor, tmp_path: Path) -> None:
    doc = editor.open(SW / "combat.rk")
    text = editor.texts[doc]
    # a misspelt name in a procedure (posture_levels is the procedure)
    line, _ = _find(text, r"procedure posture_options")
    lines = text.split("\n")
    body = line + 1
    lines.insert(body, "    let oops = posture_level + 1")
    edited = "\n".join(lines)
    version = editor.change(doc, edited)
    diags = editor.wait_version(doc, version)
    expected = [e for e in _check_copy(tmp_path, "silent_war", {"combat.rk": edited})]
    assert expected, "the edit must be an error for rulekit check"
    assert (
        _published(editor, SW, {lsp.DiagnosticSeverity.Error, lsp.DiagnosticSeverity.Warning})
        == expected
    )
    error = _errors(diags)[0]
    assert error.range.start.line == body
    assert "posture_level" in error.message and "did you mean" in error.message
    # typing the fix clears it
    version = editor.change(doc, text)
    assert _errors(editor.wait_version(doc, version)) == []


def test_an_edit_in_one_file_shows_errors_in_the_file_that_uses_it(
    editor: Editor, tmp_path: Path
) -> None:
    doc = editor.open(SW / "bases.rk")
    text = editor.texts[doc]
    edited = text.replace("const tender_capacity_bonus", "const tender_capacity_bonuses", 1)
    version = editor.change(doc, edited)
    editor.wait_version(doc, version)
    expected = _check_copy(tmp_path, "silent_war", {"bases.rk": edited})
    assert any("tender_capacity_bonus" in e[3] for e in expected)
    assert (
        _published(editor, SW, {lsp.DiagnosticSeverity.Error, lsp.DiagnosticSeverity.Warning})
        == expected
    )
    version = editor.change(doc, text)
    editor.wait_version(doc, version)
    assert _published(editor, SW, {lsp.DiagnosticSeverity.Error}) == []


def test_a_syntax_error_is_reported_where_rulekit_check_reports_it(
    editor: Editor, tmp_path: Path
) -> None:
    doc = editor.open(SW / "turn.rk")
    text = editor.texts[doc]
    line, _ = _find(text, r"^procedure ")
    lines = text.split("\n")
    lines[line + 1] = lines[line + 1] + " )"
    edited = "\n".join(lines)
    version = editor.change(doc, edited)
    diags = _errors(editor.wait_version(doc, version))
    expected = _check_copy(tmp_path, "silent_war", {"turn.rk": edited})
    assert len(expected) == 1 and expected[0][1] == line + 2
    assert [
        ("turn.rk", d.range.start.line + 1, d.range.start.character + 1, d.message.split("\n")[0])
        for d in diags
    ] == expected
    version = editor.change(doc, text)
    assert _errors(editor.wait_version(doc, version)) == []


def test_an_error_in_an_included_file_shows_in_that_file(editor: Editor, tmp_path: Path) -> None:
    root = tmp_path / "book"
    root.mkdir()
    (root / "rulebook.rk").write_text('rulebook "T"\ninclude "rules.rk"\n', encoding="utf-8")
    (root / "rules.rk").write_text("const a = 1\nconst b = a + c\n", encoding="utf-8")
    editor.open(root / "rulebook.rk")
    rules = uri(root / "rules.rk")
    editor.settle(0.2)
    diags = _errors(editor.diagnostics[rules])
    assert [(d.range.start.line, d.range.start.character) for d in diags] == [(1, 14)]
    assert "'c'" in diags[0].message


# ---- names ------------------------------------------------------------------------------------


def test_hover_on_a_table_shows_its_rule_title_dice_and_rows(editor: Editor) -> None:
    doc = editor.open(SW / "combat.rk")
    text = editor.texts[doc]
    use_line, use_col = _find(text, r"attack_results\(target")
    hover = editor.hover(doc, use_line, use_col + 3)
    assert hover is not None
    value = hover.contents.value
    decl_line, _ = _find(text, r"^table attack_results")
    assert "[14.16 D]" in value and "Attack Results Table" in value
    assert "`tonnage: int x roll d10 -> hit_result`" in value and "dice: d10" in value
    rows = [r for r in text.split("\n")[decl_line + 1 : decl_line + 8] if "|" in r]
    assert rows and all(r in value for r in rows)
    # the declaration itself hovers the same
    at_decl = editor.hover(doc, decl_line, len("table ") + 2)
    assert at_decl is not None and at_decl.contents.value == value


def test_hover_on_a_rolled_table_shows_its_dice(editor: Editor) -> None:
    doc = editor.open(SW / "search.rk")
    text = editor.texts[doc]
    match = re.search(r"^table (\w+).*roll (\d*d\d+)", text, re.M)
    assert match is not None
    line, col = _find(text, rf"^table {match.group(1)}\b")
    hover = editor.hover(doc, line, col + 7)
    assert hover is not None and f"dice: {match.group(2)}" in hover.contents.value


def test_hover_on_a_procedure_shows_its_signature(editor: Editor) -> None:
    doc = editor.open(SW / "combat.rk")
    text = editor.texts[doc]
    line, col = _find(text, r"from posture_options\(sub\)")
    hover = editor.hover(doc, line, col + len("from ") + 2)
    assert hover is not None
    decl_line, _ = _find(text, r"^procedure posture_options")
    assert text.split("\n")[decl_line] in hover.contents.value


def test_hover_on_a_constant_shows_its_value_and_provenance(editor: Editor) -> None:
    doc = editor.open(SW / "bases.rk")
    text = editor.texts[doc]
    line, col = _find(text, r"\+ tender_capacity_bonus")
    value = editor.hover(doc, line, col + 4).contents.value
    assert "const tender_capacity_bonus = 1" in value and "provenance: printed" in value
    line, col = _find(text, r"^const unprinted_arrival_base")
    value = editor.hover(doc, line, col + 8).contents.value
    assert (
        "**provisional**: the Master Submarine Reinforcement list is in the Scenario Book" in value
    )


def test_hover_on_a_record_field(editor: Editor) -> None:
    doc = editor.open(SW / "bases.rk")
    text = editor.texts[doc]
    line, col = _find(text, r"tenders\(name\)\.capacity")
    value = editor.hover(doc, line, col + len("tenders(name).") + 1).contents.value
    assert "field of `tender_data`" in value and "capacity: int" in value


def test_definition_of_a_table_procedure_enum_record_and_constant(editor: Editor) -> None:
    doc = editor.open(SW / "combat.rk")
    text = editor.texts[doc]
    cases = [
        (r"(?<=target, )attack_results\(target", "combat.rk", r"^table (attack_results)"),
        (r"(?<=from )posture_options\(", "combat.rk", r"^procedure (posture_options)"),
    ]
    for use, file, decl in cases:
        line, col = _find(text, use)
        found = editor.definition(doc, line, col + 1)
        target = (SW / file).read_text(encoding="utf-8")
        match = re.search(decl, target, re.M)
        assert match is not None
        dl, _ = _find(target, decl)
        assert [(Path(x.uri).name, x.range.start.line, x.range.start.character) for x in found] == [
            (file, dl, match.start(1) - match.start())
        ]
    # an enum (forces.rk) and a constant (bases.rk), used in other files
    bases = editor.open(SW / "bases.rk")
    btext = editor.texts[bases]
    line, col = _find(btext, r"record tender_data = capacity: int, year: int, month: (month)")
    found = editor.definition(
        bases, line, len("record tender_data = capacity: int, year: int, month: ") + 1
    )
    months = [x for x in found if x.range.start.line >= 0]
    decl_file = next(
        p
        for p in SW.glob("*.rk")
        if re.search(r"^enum month\b", p.read_text(encoding="utf-8"), re.M)
    )
    assert any(Path(x.uri).name == decl_file.name for x in months)
    line, col = _find(btext, r"\+ tender_capacity_bonus")
    found = editor.definition(bases, line, col + 3)
    dl, _ = _find(btext, r"^const tender_capacity_bonus")
    assert [(Path(x.uri).name, x.range.start.line, x.range.start.character) for x in found] == [
        ("bases.rk", dl, 6)
    ]


def test_references_of_a_procedure_across_files(editor: Editor) -> None:
    doc = editor.open(SW / "combat.rk")
    text = editor.texts[doc]
    line, col = _find(text, r"^procedure (posture_options)")
    found = editor.references(doc, line, col + 12)
    expected = set()
    for path in SW.glob("*.rk"):
        for number, src in enumerate(path.read_text(encoding="utf-8").split("\n")):
            code = src.split("#")[0]
            for m in re.finditer(r"(?<![\w.])posture_options\b", code):
                expected.add((path.name, number, m.start()))
    assert {
        (Path(x.uri).name, x.range.start.line, x.range.start.character) for x in found
    } == expected
    assert len(expected) >= 3
    without = editor.references(doc, line, col + 12, declaration=False)
    assert len(without) == len(expected) - 1


def test_completion_offers_names_members_fields_and_keywords(editor: Editor) -> None:
    doc = editor.open(SW / "combat.rk")
    text = editor.texts[doc]
    line, _ = _find(text, r"^procedure posture_options")
    items = editor.completion(doc, line + 1, 4)
    labels = {i.label: i for i in items.items}
    assert labels["attack_posture"].kind == lsp.CompletionItemKind.Struct
    assert labels["posture_options"].kind == lsp.CompletionItemKind.Function
    assert labels["aggressive"].kind == lsp.CompletionItemKind.EnumMember
    assert labels["roll"].kind == lsp.CompletionItemKind.Keyword
    assert labels["sub"].kind == lsp.CompletionItemKind.Variable  # the parameter
    # after "x." the fields
    lines = text.split("\n")
    lines.insert(line + 1, "    let t = tenders(sub.name).")
    version = editor.change(doc, "\n".join(lines))
    editor.wait_version(doc, version)
    items = editor.completion(doc, line + 1, len(lines[line + 1]))
    labels = {i.label: i for i in items.items}
    assert labels["capacity"].kind == lsp.CompletionItemKind.Field
    assert "attack_posture" not in labels
    version = editor.change(doc, text)
    editor.wait_version(doc, version)


def test_formatting_is_rulekit_fmt(editor: Editor, tmp_path: Path) -> None:
    doc = editor.open(SW / "torpedo.rk")
    text = editor.texts[doc]
    assert not editor.formatting(doc)  # the bundled files are formatted
    messy = re.sub(r"^(\w.*?) = ", r"\1   =   ", text, count=3, flags=re.M)
    messy = messy.replace("\n\n", "\n\n\n\n")
    assert messy != text
    version = editor.change(doc, messy)
    editor.wait_version(doc, version)
    edits = editor.formatting(doc)
    assert len(edits) == 1
    assert edits[0].new_text == format_text(messy, str(SW / "torpedo.rk"))
    assert edits[0].range.start == lsp.Position(0, 0)
    version = editor.change(doc, text)
    editor.wait_version(doc, version)


def test_document_symbols_are_the_outline_by_rule_number(editor: Editor) -> None:
    doc = editor.open(SW / "combat.rk")
    text = editor.texts[doc]
    symbols = editor.symbols(doc)
    names = [s.name for s in symbols]
    assert "[14.12] attack_posture" in names and "[14.12] posture_options" in names
    declared = re.findall(
        r"^(?:table|procedure|enum|record|const|modifiers|kind|state) (\w+)", text, re.M
    )
    assert len(symbols) == len(declared)
    table = symbols[names.index("[14.12] attack_posture")]
    line, _ = _find(text, r"^table attack_posture")
    assert table.range.start.line == line and table.kind == lsp.SymbolKind.Struct
    turn = editor.open(SW / "turn.rk")
    seq = [s for s in editor.symbols(turn) if s.kind == lsp.SymbolKind.Module]
    assert seq and seq[0].children  # the sequence of play's segments and phases
