"""Questions in ``rulekit play`` name their subject (rulekit.play.screen.with_subject)."""

from __future__ import annotations

import time
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


def test_advise_says_once_and_in_time_why_it_cannot_answer(tmp_path: Path) -> None:
    """Deploying a boat changes no tonnage before the procedure ends: advise says so in one
    line, not "0" for every option; at a combat decision over the path budget it says that,
    within 2 s."""
    child = spawn100(tmp_path, "rulebooks/silent_war", "--seed", "3")
    child.expect(r"\? Deploy Tautog")
    child.expect(PROMPT)
    child.sendline("advise tonnage_sunk")
    child.expect("playing the game again")
    child.expect(r"no advice on tonnage_sunk: every option gives 0 by the end of procedure")
    child.expect(PROMPT)
    assert "#1 no: 0" not in child.before
    child.sendline("advise")  # the same again, now that the look-ahead follows the game
    start = time.monotonic()
    child.expect(r"no advice on tonnage_sunk: every option gives 0")
    assert time.monotonic() - start < 2.5
    child.expect(PROMPT)
    assert "no advice" not in child.before  # said once
    child.sendline("")
    enter_until(child, r"\? Attack Posture for the Re-Attack")
    child.expect(PROMPT)
    child.sendline("advise")
    start = time.monotonic()
    child.expect(r"no advice on tonnage_sunk: (more than \d+ paths|out of time)[^\r\n]*")
    assert time.monotonic() - start < 2.5
    child.expect(PROMPT)
    assert "no advice" not in child.before
    child.sendintr()
    child.expect("interrupted: the game is saved in")
    child.expect(pexpect.EOF)


def test_advise_by_situations_is_stopped_in_time() -> None:
    """The look-ahead by situations keeps no deadline of its own: `advise` stops it by a
    timer, and leaves the timer as it found it."""
    import signal

    from rulekit.play.interactive import _OutOfTime, _within

    before = signal.getsignal(signal.SIGALRM)
    start = time.monotonic()
    with pytest.raises(_OutOfTime), _within(0.1):
        while time.monotonic() - start < 5:
            pass
    assert time.monotonic() - start < 1
    assert signal.getsignal(signal.SIGALRM) == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with _within(0.5):
        pass  # nothing rings after
    time.sleep(0.6)
