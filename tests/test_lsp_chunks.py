"""The language server's incremental work gives what the whole work gives: a file parsed by
pieces is the file parsed whole (spans included), and a check that reuses an earlier check's
tables and procedures finds what a fresh check finds."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import RULEBOOKS

from rulekit.book.checker import check
from rulekit.errors import SyntaxProblem
from rulekit.language.cache import encode_nodes
from rulekit.language.parser import parse
from rulekit.lsp.chunks import IncrementalParser, split
from rulekit.lsp.project import Project

FILES = sorted(RULEBOOKS.rglob("*.rk"))


def _same(a: object, b: object, path: str) -> bool:
    """Equal nodes with equal spans (spans are outside node equality)."""
    return bool(encode_nodes(a, path) == encode_nodes(b, path))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(RULEBOOKS)))
def test_a_file_parsed_by_pieces_is_the_file_parsed_whole(path: Path) -> None:
    text = path.read_text(encoding="utf-8-sig")
    shown = str(path)
    assert _same(IncrementalParser(shown).parse(text), parse(text, shown), shown)


def test_an_edit_parses_one_piece_again_and_moves_the_others() -> None:
    path = RULEBOOKS / "silent_war" / "combat.rk"
    text = path.read_text(encoding="utf-8")
    parser = IncrementalParser(str(path))
    parser.parse(text)
    assert parser.parsed == len(split(text)) > 20
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("procedure posture_options"))
    lines.insert(at + 1, "    let extra = 1")  # a line more: every later piece moves down
    edited = "\n".join(lines)
    module = parser.parse(edited)
    assert parser.parsed == 1
    assert _same(module, parse(edited, str(path)), str(path))
    parser.parse(edited)
    assert parser.parsed == 0


def test_a_syntax_error_is_the_whole_file_s() -> None:
    path = RULEBOOKS / "silent_war" / "turn.rk"
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("procedure "))
    for broken in ("    let = 1", "    return (1 +", "table t: x -> int"):
        edited = "\n".join([*lines[: at + 1], broken, *lines[at + 1 :]])
        with pytest.raises(SyntaxProblem) as whole:
            parse(edited, str(path))
        parser = IncrementalParser(str(path))
        parser.parse(text)
        with pytest.raises(SyntaxProblem) as pieces:
            parser.parse(edited)
        assert pieces.value.diagnostics == whole.value.diagnostics
        assert [d.span for d in pieces.value.diagnostics] == [
            d.span for d in whole.value.diagnostics
        ]


def test_a_check_reusing_the_last_finds_what_a_fresh_check_finds(tmp_path: Path) -> None:
    root = RULEBOOKS / "silent_war"
    project = Project()
    combat = (root / "combat.rk").resolve()
    bases = (root / "bases.rk").resolve()
    texts = {p: p.read_text(encoding="utf-8") for p in (combat, bases)}
    project.set_text(combat, 1, texts[combat])
    project.set_text(bases, 1, texts[bases])
    first = project.analysis(combat)
    assert first.checked is not None and not first.checked.errors
    edits = [
        (combat, "-> hit_result", "-> counterattack_result"),  # a table's result type
        (combat, "    sub.section = done", "    sub.section = dne"),  # a procedure's body
        (combat, "    standard   | REVEALED SHIPS:", "    standerd   | REVEALED SHIPS:"),  # a row
        (bases, "const tender_capacity_bonus = 1", 'const tender_capacity_bonus = "one"'),
        (bases, "record tender_data = capacity: int,", "record tender_data = capacity: text,"),
    ]
    version = 1
    for path, old, new in edits:
        assert old in texts[path]
        for text in (texts[path].replace(old, new, 1), texts[path]):  # the edit, then undo
            version += 1
            project.set_text(path, version, text)
            done = project.analysis(combat)
            assert done.book is not None and done.checked is not None
            fresh = check(done.book)
            assert done.checked.diagnostics == fresh.diagnostics
            assert [d.span for d in done.checked.diagnostics] == [d.span for d in fresh.diagnostics]
            assert done.checked.provisional == fresh.provisional
            if text != texts[path]:
                assert done.checked.errors, (old, new)


def _row_edits(text: str) -> list[str]:
    """Edits of one row in the middle of a table (of at most four tables of the file): a
    cell changed, the row removed, the row twice."""
    lines = text.split("\n")
    out = []
    tables = [i for i, line in enumerate(lines) if line.startswith("table ")]
    for i in tables[:: max(1, len(tables) // 4)][:4]:
        end = i + 1
        while end < len(lines) and lines[end][:1] in ("", " ", "#"):
            end += 1
        rows = [
            j for j in range(i + 1, end) if "|" in lines[j] and not lines[j].strip().startswith("#")
        ]
        if len(rows) < 3:
            continue
        j = rows[len(rows) // 2]
        cell = lines[j].rsplit("|", 1)
        out.append("\n".join([*lines[:j], cell[0] + "| 7", *lines[j + 1 :]]))
        out.append("\n".join([*lines[:j], *lines[j + 1 :]]))
        out.append("\n".join([*lines[: j + 1], lines[j], *lines[j + 1 :]]))
    return out


@pytest.mark.parametrize(
    "path",
    [p for p in FILES if "\ntable " in p.read_text(encoding="utf-8")],
    ids=lambda p: str(p.relative_to(RULEBOOKS)),
)
def test_a_table_whose_rows_changed_parses_as_the_whole_file(path: Path) -> None:
    # the piece that changed, parsed alone, is what the whole file's parse gives for it
    # (test_a_file_parsed_by_pieces_is_the_file_parsed_whole)
    text = path.read_text(encoding="utf-8-sig")
    shown = str(path)
    parser = IncrementalParser(shown)
    parser.parse(text)
    before = set(p for _, p in split(text))
    for edited in _row_edits(text):
        (line, piece), *_ = [(at, p) for at, p in split(edited) if p not in before]
        try:
            whole = parse("\n" * (line - 1) + piece, shown).decls
        except SyntaxProblem as exc:
            with pytest.raises(SyntaxProblem) as pieces:
                parser.parse(edited)
            assert pieces.value.diagnostics == exc.diagnostics
            continue
        got = parser.parse(edited).decls
        start = next(i for i, d in enumerate(got) if d.span.line >= line)
        assert _same(got[start : start + len(whole)], whole, shown)
        parser.parse(text)  # back, for the next edit


def test_a_row_edit_of_a_long_table_parses_only_that_row() -> None:
    path = RULEBOOKS / "silent_war" / "fleet.rk"
    text = path.read_text(encoding="utf-8")
    parser = IncrementalParser(str(path))
    parser.parse(text)
    lines = text.split("\n")
    row = next(i for i, line in enumerate(lines) if line.startswith("    Sargo "))
    lines[row] = lines[row].replace("~Sargo", "Sargo", 1)
    edited = "\n".join(lines)
    assert parser._rows_changed(30, split(edited)[2][1]) is not None
    assert _same(parser.parse(edited), parse(edited, str(path)), str(path))


def test_half_typed_text_gives_diagnostics_never_an_exception() -> None:
    """What an editor sends while one types: cut files, removed spans, stray characters."""
    import random

    project = Project()
    path = (RULEBOOKS / "silent_war" / "combat.rk").resolve()
    text = path.read_text(encoding="utf-8")
    rng = random.Random(34)
    stray = ["(", ")", ":", "\n", " x", "|", '"', "~", "[", "roll ", "=> ", "\n    ", "\t"]
    for version in range(12):
        cut = rng.randrange(len(text))
        if version % 3 == 0:
            edited = text[:cut]
        elif version % 3 == 1:
            edited = text[:cut] + text[cut + rng.randrange(1, 40) :]
        else:
            edited = text[:cut] + rng.choice(stray) + text[cut:]
        project.set_text(path, version + 2, edited)
        done = project.analysis(path)
        if done.book is None:  # it does not load: its errors say why, with a place
            assert done.diagnostics and all(
                d.span is not None for ds in done.diagnostics.values() for d in ds
            )


def test_a_variant_file_is_checked_as_the_variant_of_its_base() -> None:
    project = Project()
    variant = (RULEBOOKS / "silent_war" / "editions" / "1.1.rk").resolve()
    done = project.analysis(variant)
    assert done.entry == variant and done.checked is not None and not done.checked.errors
    assert (
        variant in done.files and (RULEBOOKS / "silent_war" / "rulebook.rk").resolve() in done.files
    )
    # an unsaved edit of the variant counts
    text = variant.read_text(encoding="utf-8")
    project.set_text(variant, 2, text + "\nset const no_such_constant = 1 [1.0]\n")
    errors = project.analysis(variant).diagnostics.get(variant, [])
    assert any("no_such_constant" in d.message for d in errors)
