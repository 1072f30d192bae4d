"""``--at sub=Spearfish``: a piece or record named by its name or id, held in the situation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli

from rulekit.book.checker import load
from rulekit.engine.session import resolve
from rulekit.engine.values import unwrap
from rulekit.errors import InputError

BOOK = """rulebook "Named"
record ship = id: text, tonnage: int
kind boat
    name: text
    speed: int
state boats: list of boat = [] [1.0]
state targets: list of ship = [] [1.0]
procedure speed_of(b: boat) -> int [2.0]
    return b.speed
procedure tonnage_of(s: ship) -> int [2.1]
    return s.tonnage
"""

GIVEN = """boats = [{ name = "Gar", speed = 3 }, { name = "Spearfish", speed = 4 }]
targets = [{ id = "T1", tonnage = 5000 }, { id = "T2", tonnage = 7000 }]
"""


@pytest.fixture
def named(make_rulebook: Any, tmp_path: Path) -> tuple[Any, str]:
    root = make_rulebook(BOOK)
    given = tmp_path / "given.toml"
    given.write_text(GIVEN, encoding="utf-8")
    return load(str(root)), str(given)


def test_a_piece_by_its_name(named: tuple[Any, str]) -> None:
    checked, given = named
    assert unwrap(resolve(checked, "speed_of", given=given, at=["b=Spearfish"]).result) == 4
    # a different spelling of the case is accepted when it is the only match
    assert unwrap(resolve(checked, "speed_of", given=given, at=["b=gar"]).result) == 3


def test_a_record_by_its_id(named: tuple[Any, str]) -> None:
    checked, given = named
    assert unwrap(resolve(checked, "tonnage_of", given=given, at=["s=T2"]).result) == 7000


def test_an_unknown_name_suggests_the_known_ones(named: tuple[Any, str]) -> None:
    checked, given = named
    with pytest.raises(InputError) as caught:
        resolve(checked, "speed_of", given=given, at=["b=Spearfsh"])
    [diag] = caught.value.diagnostics
    assert diag.message == "b: no boat called 'Spearfsh'"
    assert diag.hint is not None and "Spearfish" in diag.hint


def test_nothing_to_name_says_how_to_give_it(named: tuple[Any, str]) -> None:
    checked, _ = named
    with pytest.raises(InputError) as caught:
        resolve(checked, "speed_of", at=["b=Gar"])
    [diag] = caught.value.diagnostics
    assert "no boat is in the situation to be named" in diag.message


def test_command_line(named: tuple[Any, str], make_rulebook: Any) -> None:
    _, given = named
    root = make_rulebook(BOOK)
    result = run_cli("resolve", root, "speed_of", "--given", given, "--at", "b=Spearfish")
    assert result.exit_code == 0, result.stderr
    assert "4" in result.stdout


def test_a_given_file_names_a_piece_its_own_lists_hold(
    named: tuple[Any, str], tmp_path: Path
) -> None:
    # the name comes first in the file, before the list that holds the piece
    checked, _ = named
    own = tmp_path / "own.toml"
    own.write_text('b = "Spearfish"\n' + GIVEN, encoding="utf-8")
    assert unwrap(resolve(checked, "speed_of", given=str(own)).result) == 4
    given = {"s": "T2", "targets": [{"id": "T1", "tonnage": 5000}, {"id": "T2", "tonnage": 7000}]}
    assert unwrap(resolve(checked, "tonnage_of", given=given).result) == 7000


def test_a_name_the_given_file_does_not_hold_suggests_the_known_ones(
    named: tuple[Any, str], tmp_path: Path
) -> None:
    checked, _ = named
    own = tmp_path / "own.toml"
    own.write_text('b = "Spearfsh"\n' + GIVEN, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        resolve(checked, "speed_of", given=str(own))
    [diag] = caught.value.diagnostics
    assert diag.message == "b: no boat called 'Spearfsh'"
    assert diag.hint is not None and "Spearfish" in diag.hint
    assert diag.span is not None and diag.span.line == 1  # at the name, in the file
    alone = tmp_path / "alone.toml"
    alone.write_text('b = "Gar"\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        resolve(checked, "speed_of", given=str(alone))
    [diag] = caught.value.diagnostics
    assert "no boat is in the situation to be named" in diag.message


def test_the_attack_sub_example_names_its_attacker_in_the_file(tmp_path: Path) -> None:
    # examples/attack_sub/evasion_6_4.toml names the attacker with --at; in the file, the
    # same attack
    example = ROOT / "examples" / "attack_sub" / "evasion_6_4.toml"
    own = tmp_path / "evasion.toml"
    own.write_text('s = "John Rodgers"\n' + example.read_text(encoding="utf-8"), encoding="utf-8")
    book = ROOT / "rulebooks" / "attack_sub"
    by_at = run_cli(
        "resolve",
        book,
        "lockon_attack",
        "--given",
        example,
        "--at",
        "s=John Rodgers",
        "--dice",
        "6,1",
    )
    in_file = run_cli("resolve", book, "lockon_attack", "--given", own, "--dice", "6,1")
    assert by_at.exit_code == 0, by_at.stderr
    assert in_file.exit_code == 0, in_file.stderr
    assert in_file.stdout.replace(str(own), "FILE") == by_at.stdout.replace(str(example), "FILE")
