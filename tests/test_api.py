"""The public Python API: docs/API.md's examples run as written, and what they leave out."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
from conftest import ROOT

import rulekit
from rulekit.errors import InputError, RulebookInvalid

SPEARFISH = ROOT / "examples" / "silent_war" / "spearfish_14_15.toml"


def test_the_documented_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the examples name rulebooks from the project's root
    failed, tried = doctest.testfile(
        str(ROOT / "docs" / "API.md"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS,
        raise_on_error=False,
    )
    assert tried >= 15
    assert failed == 0


@pytest.fixture(scope="module")
def book() -> rulekit.Book:
    return rulekit.load(ROOT / "rulebooks" / "silent_war")


def test_given_as_a_dict_or_a_file_alike(book: rulekit.Book) -> None:
    import tomllib

    situation = tomllib.loads(SPEARFISH.read_text(encoding="utf-8"))
    from_file = book.resolve("attack_round", given=SPEARFISH, dice=[1, 5, 1, 5])
    from_dict = book.resolve("attack_round", given=situation, dice=[1, 5, 1, 5])
    assert from_file.trace is not None and from_dict.trace is not None
    assert from_dict.trace.to_json() == from_file.trace.to_json()
    # [14.16]: both to-hit rolls are 1, "equal to or less than 1": two hits, then chart D
    assert from_dict.value == ["damaged", "damaged"]


def test_inputs_as_python_values_or_command_line_text_alike(book: rulekit.Book) -> None:
    typed = book.resolve("torpedo_improvement_phase", at={"ships_sunk": 70}, dice=[6])
    text = book.resolve("torpedo_improvement_phase", at=["ships_sunk=70"], dice=[6])
    # [6.0] "The player reaches 70 ships sunk ... The die roll is '6' ... (a '9' is required)"
    assert typed.value == text.value == "not_improved"
    assert typed.state == text.state


def test_a_seed_is_reported_and_repeats(book: rulekit.Book) -> None:
    first = book.resolve("counterattack", given=str(SPEARFISH))
    assert first.seed is not None
    again = book.resolve("counterattack", given=str(SPEARFISH), seed=first.seed, trace=False)
    assert again.trace is None and again.value == first.value
    with pytest.raises(ValueError):
        again.explain()


def test_answers_as_python_values_are_read_as_their_text() -> None:
    from rulekit.book.inputs import assignments

    answers = assignments({"unflip": True, "to_reveal": ["Merchant Ship #1", 2]}, "--decide")
    assert answers == [("unflip", "true"), ("to_reveal", "Merchant Ship #1"), ("to_reveal", "2")]
    assert assignments(["unflip=true"], "--decide") == [("unflip", "true")]
    assert assignments({"fire": [2, 2]}, "--at") == [("fire", [2, 2])]  # a list input


def test_bad_input_raises_the_command_lines_error(book: rulekit.Book) -> None:
    with pytest.raises(InputError) as caught:
        book.lookup("7.1", at={"war_period": "WP3"})
    assert "--roll" in caught.value.render()
    with pytest.raises(InputError, match="no dimension 'nosuch'"):
        book.lookup("7.1", at={"nosuch": 1}, roll=2)
    with pytest.raises(InputError, match="'nosuch' is not an input"):
        book.resolve("torpedo_improvement_phase", at={"nosuch": 1}, dice=[1])


def test_a_rulebook_with_errors_does_not_load(tmp_path: Path) -> None:
    bad = tmp_path / "bad.rk"
    bad.write_text('rulebook "Bad"\n\nconst x = nosuch [1.0] "X"\n', encoding="utf-8")
    with pytest.raises(RulebookInvalid):
        rulekit.load(bad)


def test_options_switch_on_optional_rules() -> None:
    plain = rulekit.load(ROOT / "rulebooks" / "silent_war")
    option = next(iter(plain.checked.book.options))
    switched = rulekit.load(ROOT / "rulebooks" / "silent_war", options=[option])
    assert option in switched.checked.book.options_on
    assert option not in plain.checked.book.options_on
