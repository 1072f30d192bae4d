"""The TextMate grammar (editors/rulekit.tmLanguage.json) highlights every bundled rulebook:
each token lark's parser sees gets a scope, and the scope fits the token's kind.

The method: each file is tokenized twice, by the parser's own lexer (contextual lexer and
indenter, the tokens `rulekit fmt` works on; comments are inside its newline tokens) and by
textmate-grammar-python, a Python port of VS Code's TextMate engine (vscode-textmate) with
the same regular-expression library (Oniguruma). Every character of every lark token must
carry a scope besides the file's own (``source.rulekit``); strings, comments, numbers,
dice, rule references and keywords must carry theirs. The VS Code extension's copy of the
grammar must be the same file.
"""

from __future__ import annotations

import json
import logging
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

tm = pytest.importorskip("textmate_grammar.parsers.base")

from conftest import ROOT, RULEBOOKS  # noqa: E402

from rulekit.language.fmt import _parse  # noqa: E402  (the parser's own tokens)
from rulekit.language.parser import grammar_text  # noqa: E402

GRAMMAR = ROOT / "editors" / "rulekit.tmLanguage.json"
FILES = sorted(RULEBOOKS.rglob("*.rk")) + sorted((ROOT / "examples").rglob("*.rk"))

# what a token of each lark terminal must be scoped as (a prefix of one of its scopes)
EXPECTED = {
    "STRING": "string.quoted.double",
    "COMMENT": "comment.line",
    "NUMBER": "constant.numeric",
    "DICE": "constant.numeric.dice",
    "REF": "constant.other.reference",
}
KEYWORD_SCOPES = ("storage.type", "keyword.", "constant.language")
ROOT_SCOPE = "source.rulekit"


@cache
def _parser() -> Any:
    logging.getLogger("textmate_grammar").setLevel(logging.ERROR)
    return tm.LanguageParser(json.loads(GRAMMAR.read_text(encoding="utf-8")))


def _scopes(text: str) -> dict[tuple[int, int], list[str]]:
    """The TextMate scopes of each character (0-based line and column)."""
    element = _parser().parse_string(text)
    out: dict[tuple[int, int], list[str]] = {}
    for (line, column), piece, scopes in element.flatten():
        for i in range(len(piece)):
            out[(line, column + i)] = scopes
    return out


def _keywords() -> set[str]:
    """The words the lark grammar spells out, with those of its word terminals."""
    text = grammar_text()
    words = set(re.findall(r'"([a-z_]+)"', text))
    for terminal in ("REMOVABLE", "PLACE"):
        line = next(x for x in text.splitlines() if x.startswith(terminal + ":"))
        words |= set(re.findall(r'"([a-z_]+)"', line))
    return words


def _tokens(text: str, path: str) -> list[tuple[str, int, int, str]]:
    """lark's tokens of a file: (terminal, 1-based line, 1-based column, text); the comments
    inside its newline tokens as COMMENT tokens."""
    _, tokens = _parse(text, path)
    out = []
    for tok in tokens:
        if tok.type in ("_INDENT", "_DEDENT", "$END"):
            continue
        if tok.type == "_NL":
            offset = tok.start_pos or 0
            for match in re.finditer(r"#[^\n]*", str(tok)):
                before = text[: offset + match.start()]
                line = before.count("\n") + 1
                column = len(before) - (before.rfind("\n") + 1) + 1
                out.append(("COMMENT", line, column, match.group()))
            continue
        out.append((tok.type, tok.line or 0, tok.column or 0, str(tok)))
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_lark_token_of_a_bundled_file_is_scoped(path: Path) -> None:
    text = path.read_text(encoding="utf-8-sig")
    scopes = _scopes(text)
    keywords = _keywords()
    problems = []
    for kind, line, column, token in _tokens(text, str(path)):
        for i, char in enumerate(token):
            if char.isspace():
                continue  # a cell of several words holds spaces
            found = scopes.get((line - 1, column - 1 + i), [ROOT_SCOPE])
            if found[-1] == ROOT_SCOPE:
                problems.append(f"{line}:{column + i} {kind} {token!r}: no scope")
                break
            want = EXPECTED.get(kind)
            if kind in ("NAME", "CELLWORD") or kind.startswith("__ANON"):
                want = None
            elif token in keywords and not any(s.startswith(KEYWORD_SCOPES) for s in found):
                problems.append(f"{line}:{column} keyword {token!r} is {found}")
                break
            if want is not None and not any(s.startswith(want) for s in found):
                problems.append(f"{line}:{column} {kind} {token!r} is {found}, not {want}")
                break
    assert problems == []


def test_every_keyword_of_the_grammar_is_highlighted_as_one() -> None:
    keywords = _keywords()
    assert {"table", "roll", "at_least", "before", "procedure", "none"} <= keywords
    text = "\n".join(f"    {word}" for word in sorted(keywords)) + "\n"
    scopes = _scopes(text)
    wrong = [
        word
        for number, word in enumerate(sorted(keywords))
        if not any(s.startswith(KEYWORD_SCOPES) for s in scopes.get((number, 4), []))
    ]
    assert wrong == []


def test_the_grammar_marks_what_the_language_distinguishes() -> None:
    text = (
        'table t [14.16 A] "T": at_least x: int x roll 2d6 - 1 -> text  # note\n'
        '    procedure p(a: int) -> bool [B.] "say {a}"\n'
    )
    scopes = _scopes(text)

    def at(line: int, word: str) -> list[str]:
        return scopes[(line, text.split("\n")[line].index(word))]

    assert "entity.name.function.rulekit" in at(0, "t [")
    assert "constant.other.reference.rule.rulekit" in at(0, "[14.16 A]")
    assert "constant.numeric.dice.rulekit" in at(0, "2d6")
    assert "comment.line.number-sign.rulekit" in at(0, "# note")
    assert "constant.other.reference.rule.rulekit" in at(1, "[B.]")
    assert "variable.other.placeholder.rulekit" in at(1, "{a}")


def test_the_vscode_extension_uses_the_grammar_and_starts_rulekit_lsp() -> None:
    ext = ROOT / "editors" / "vscode"
    package = json.loads((ext / "package.json").read_text(encoding="utf-8"))
    (grammar,) = package["contributes"]["grammars"]
    assert (ext / grammar["path"]).read_bytes() == GRAMMAR.read_bytes()
    assert grammar["scopeName"] == "source.rulekit"
    (language,) = package["contributes"]["languages"]
    assert language["extensions"] == [".rk"]
    assert json.loads((ext / language["configuration"]).read_text(encoding="utf-8"))
    assert "vscode-languageclient" in package["dependencies"]
    script = (ext / package["main"]).read_text(encoding="utf-8")
    assert '"lsp"' in script and "rulekit" in script
