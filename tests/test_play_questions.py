"""Questions in ``rulekit play`` name their subject (rulekit.play.screen.with_subject)."""

from __future__ import annotations

from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

from test_play import PROMPT, enter_until  # noqa: E402
from test_play_board import spawn100  # noqa: E402


def test_two_questions_about_two_ships_are_told_apart(tmp_path: Path) -> None:
    """Gato Leader asks "Torpedoes fired at this target" once per ship in range: the
    question names the submarine and the ship, so two of them read differently."""
    child = spawn100(tmp_path, "rulebooks/gato_leader", "--seed", "3")
    asked = r"\? Torpedoes fired at this target \(([^\r\n]+)\) \["
    first = enter_until(child, asked).group(1)
    child.expect(PROMPT)
    child.sendline("")
    second = enter_until(child, asked).group(1)
    assert first.startswith("USS ") and second.startswith("USS ")
    assert first != second, (first, second)  # the same submarine, two ships
    assert first.split(", ")[0] == second.split(", ")[0]
    # two face-down escorts at one range show alike: their places on the display part them
    assert first.endswith(" (1)") and second.endswith(" (2)"), (first, second)
    assert "Maru" not in first + second  # and nothing face down is named
    child.expect(PROMPT)
    child.sendintr()
    child.expect("interrupted: the game is saved in")
    child.expect(pexpect.EOF)


def test_a_question_naming_its_subject_is_left_as_written(tmp_path: Path) -> None:
    child = spawn100(tmp_path, "rulebooks/silent_war", "--seed", "3")
    child.expect(r"\? Deploy Tautog from the Ready for Sea Box\? \[15\.1\]")
    child.expect(PROMPT)
    child.sendintr()
    child.expect(pexpect.EOF)
