"""``rulekit play`` driven through a real terminal (pexpect): what a player sees and types."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parent.parent
RULEKIT = str(Path(sys.executable).with_name("rulekit"))
# a prompt: "> " at the start of a line, after the default in brackets if there is one
PROMPT = r"\r\n(\[[^\r\n]*\] )?> "
TIMEOUT = 30


def spawn(tmp_path: Path, *args: str) -> pexpect.spawn:
    env = dict(os.environ, RULEKIT_PLAY_DIR=str(tmp_path / "play"), COLUMNS="120")
    child = pexpect.spawn(
        RULEKIT, ["play", *args], cwd=str(ROOT), env=env, encoding="utf-8", timeout=TIMEOUT
    )
    return child


def enter_until(child: pexpect.spawn, pattern: str, limit: int = 400) -> re.Match[str]:
    """Take the default at every prompt until ``pattern`` shows."""
    for _ in range(limit):
        if child.expect([pattern, PROMPT]) == 0:
            return child.match  # type: ignore[no-any-return]
        child.sendline("")
    raise AssertionError(f"{pattern!r} did not show in {limit} prompts")


def stop_at_next_prompt(child: pexpect.spawn) -> None:
    """Ctrl-C at the next prompt (not while the game computes): it saves and exits."""
    child.expect(PROMPT)
    child.sendintr()
    child.expect("interrupted: the game is saved in")
    child.expect(pexpect.EOF)


def interrupt_and_resume(child: pexpect.spawn, tmp_path: Path, question: str) -> pexpect.spawn:
    """Ctrl-C at a prompt saves and exits 130; --resume shows the same question again."""
    child.sendintr()
    child.expect("interrupted: the game is saved in")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    again = spawn(tmp_path, "--resume")
    again.expect(r"\(resumed\)")
    again.expect(re.escape(question))
    again.expect(PROMPT)
    return again


def test_silent_war_session(tmp_path: Path) -> None:
    child = spawn(tmp_path, "rulebooks/silent_war", "--seed", "3")
    # the status view at the turn start
    child.expect("=== Turn 1 of 15")
    child.expect(r"Dec 1941, week \d: War Period WP1, torpedo level -2")
    child.expect("ships sunk 0, tonnage sunk 0")
    child.expect(r"Tautog: at Pearl Harbor \(Ready for Sea\), damage 0")
    # a named subject in the prompt
    child.expect(r"\? Deploy Tautog from the Ready for Sea Box\? \[15\.1\]")
    child.expect(r"#1 no   #2 yes \(default\)")
    child.expect(PROMPT)
    child.sendline("?")
    child.expect(r"rule \[15\.1\]: Deployment Transit Movement \(procedure deploy")
    child.expect("undo ")
    child.expect(PROMPT)
    child.sendline("status")
    child.expect("Thresher: at Pearl Harbor")
    child.expect(PROMPT)
    child.sendline("y")  # a unique beginning of "yes"
    child.expect(r"\? Patrol area \(or another Base\) for Tautog to head for \[15\.1\]")
    child.expect(PROMPT)
    child.sendline("Marsh")
    child.expect(r"Tautog: where it is going to patrol -> Marshalls")
    child.expect(r"\? Cautious Transit for Tautog \(move a single OpArea\)\? \[15\.25\]")
    child.expect(PROMPT)
    child.sendline("")  # the default: no
    child.expect(r"\? Deploy Thresher from the Ready for Sea Box\?")
    child.expect(PROMPT)
    # undo: back to the previous decision, the same question again; and again
    child.sendline("undo")
    child.expect(r"\? Cautious Transit for Tautog")
    child.expect(PROMPT)
    child.sendline("undo")
    child.expect(r"\? Patrol area \(or another Base\) for Tautog to head for \[15\.1\]")
    child.expect(PROMPT)
    child.sendline("#18")  # the 18th option
    child.expect(r"Tautog: where it is going to patrol -> Java Sea")
    # face-down units show their column, not what they are
    child = _to_combat(child)
    # a typed number is the value when the options are numbers
    match = enter_until(child, r"\? Attack points for ([^\r\n]*) \[14\.15\]\r\n  #1 0 ")
    target = match.group(1)
    child.expect(PROMPT)
    child.sendline("3")
    child.expect(r"\? ([^\r\n]*)\r\n")
    question = child.match.group(0).strip()
    child.expect(PROMPT)
    child.sendline("log all")  # the story told it in a verdict; the trace has the change
    child.expect(rf"set {re.escape(target.split(' (')[0])}\.points \[14\.15\]: 0 -> 3")
    child.expect(PROMPT)
    child.sendline("save " + str(tmp_path / "mine.toml"))
    child.expect("saved in")
    child.expect(PROMPT)
    again = interrupt_and_resume(child, tmp_path, question)
    again.sendline("quit")
    again.expect(r"save the game before quitting\? \[Y/n\]")
    again.sendline("n")
    again.expect(pexpect.EOF)
    # the explicit save holds the same position
    third = spawn(tmp_path, "--resume", str(tmp_path / "mine.toml"))
    third.expect(re.escape(question))
    third.expect(PROMPT)
    third.sendeof()  # Ctrl-D saves and stops too
    third.expect("interrupted: the game is saved in")
    third.expect(pexpect.EOF)


def _to_combat(child: pexpect.spawn) -> pexpect.spawn:
    enter_until(child, r"\? Which unit to reveal( \([^\r\n]*\))? \[14\.13\]")
    child.expect(r"#1 face-down unit in column [A-D]")
    child.expect(PROMPT)
    child.sendline("")
    return child


def test_value_not_position(tmp_path: Path) -> None:
    """Options that are numbers: "3" is the value 3; "#3" is the third option."""
    child = spawn(tmp_path, "rulebooks/silent_war", "--seed", "3")
    match = enter_until(child, r"\? Attack points for ([^\r\n]*) \[14\.15\]\r\n  #1 0 ")
    target = match.group(1).split(" (")[0]
    child.expect(PROMPT)
    child.sendline("#3")
    child.expect(PROMPT)
    child.sendline("log all")
    child.expect(rf"set {re.escape(target)}\.points \[14\.15\]: 0 -> 2")
    stop_at_next_prompt(child)


@pytest.mark.parametrize(
    ("rulebook", "seed", "status", "first", "named"),
    [
        (
            "rulebooks/gato_leader",
            "3",
            r"USS Salmon \(Trained\): Brisbane; Torpedoes 8 ready / 16 stored",
            r"\? purchase Priority R&R \[§Priority R&R\]",
            r"\? (Torpedo Modification for USS [A-Za-z]+) \[§Torpedo Modifications\]",
        ),
        (
            "rulebooks/steel_wolves_like",
            "1",
            r"torpedoes 24 \(Mk 14\), hull damage 0",
            r"\? how to attack \(or not\) \[E1\]",
            r"\? (torpedoes at [^\r\n]+) \[S1\]",
        ),
    ],
)
def test_other_campaigns(
    tmp_path: Path, rulebook: str, seed: str, status: str, first: str, named: str
) -> None:
    child = spawn(tmp_path, rulebook, "--seed", seed)
    child.expect("=== Turn 1 of")
    child.expect(status)  # the rulebook's status view at the turn start
    enter_until(child, first)
    child.expect(PROMPT)
    child.sendline("help")
    child.expect(r"rule \[")
    child.expect(PROMPT)
    child.sendline("status")
    child.expect(status)
    child.expect(PROMPT)
    child.sendline("")  # the default
    question = enter_until(child, named).group(1)  # a prompt naming its subject
    child.expect(PROMPT)
    child.sendline("undo")  # back to the previous question the player answered
    child.expect(r"undo: back to your previous decision")
    child.expect(r"\? [^\r\n]+")
    child.expect(PROMPT)
    child.sendline("")
    enter_until(child, re.escape(question))
    child.expect(PROMPT)
    child.sendline("save " + str(tmp_path / "game.toml"))
    child.expect("saved in")
    child.expect(PROMPT)
    again = interrupt_and_resume(child, tmp_path, question)
    again.sendintr()
    again.expect(pexpect.EOF)


def test_the_story_never_names_a_face_down_unit(tmp_path: Path) -> None:
    """[14.13] "Japanese units are placed face down": drawn from the War Mix, moved to a
    column, they are told by position until a Reveal turns them face up."""
    child = spawn(tmp_path, "rulebooks/silent_war", "--seed", "3")
    # the Area Activity found (the note saying it again is left out), then the draws
    enter_until(child, r"Search & Contact Phase \[13\.0\]: rolled -?\d+[^\r\n]*: level [A-Za-z ]+")
    told = ""
    while child.expect([r"\? Which unit to reveal( \([^\r\n]*\))? \[14\.13\]", PROMPT]) == 1:
        told += child.before
        child.sendline("")  # the posture, the column: the defaults
    told += child.before
    # a piece drawn is told by its cup, not by where it lay in it ("item 16 of 17" told which
    # of the cup's pieces it was) nor by the column it sat in at an earlier combat
    assert re.search(r"drew face-down piece from cup A( \(x\d+\))?[^\r\n]* \[13\.1 C\]", told)
    assert not re.search(r"draw from eligible.*item \d+ of \d+", told)
    # every unit a War Mix cup can hold, by its printed name (war_mix.rk, [28.3])
    names = ["M 1-3t", "M 4-5t", "M 6t or more", "Asahi Maru", "Kiku Maru", "Diligent Escort"]
    names += ["AO", "AP", "DE", "DD", "CL", "CA", "CV", "BB", "Aircraft"]
    # the named units [2.3 B2], chosen into the cups at random [3.11]
    names += ["Akagi", "Kaga", "Hiryu", "Shokaku", "Asahi", "Izumo", "Akashi", "Erimo", "Iro"]
    leaks = [n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", told)]
    assert leaks == []
    child.expect(PROMPT)
    child.sendline("")
    # once revealed, the unit is told by name
    child.expect(r"revealed ([^\r\n]+) in column [A-D] \[14\.13\]")
    stop_at_next_prompt(child)


def test_patrol_areas_show_distance_and_activity(tmp_path: Path) -> None:
    from conftest import RULEBOOKS

    from rulekit.api import load

    book = load(str(RULEBOOKS / "silent_war"))
    reds = book.lookup("area_activity", at={"area": "Gilberts", "war_period": "WP1"}).printed
    child = spawn(tmp_path, "rulebooks/silent_war", "--seed", "3")
    enter_until(child, r"\? Patrol area \(or another Base\) for Tautog to head for \[15\.1\]")
    child.expect(PROMPT)
    # Tautog is at Pearl Harbor: Hawaiian Islands (1, [15.23]), then Gilberts (2) (map.rk)
    assert f"Gilberts (2 away, {reds.count('red')} red)" in child.before
    assert "Solomons (3 away, 1 red, Narrow)" in child.before
    child.sendline("Gilberts")  # the value as written picks it, the label says more
    child.expect(r"Tautog: where it is going to patrol -> Gilberts")
    stop_at_next_prompt(child)


def test_a_game_saved_by_run_goes_on_in_play(tmp_path: Path) -> None:
    from conftest import run_cli

    save = tmp_path / "run.toml"
    ran = run_cli("run", "rulebooks/silent_war", "--seed", "5", "--turns", "1", "--save", str(save))
    assert ran.exit_code == 0, ran.output
    # without the rulebook, a run save cannot be told apart from another rulebook's
    alone = spawn(tmp_path, "--resume", str(save))
    alone.expect(r"is a save of rulekit run: name its rulebook")
    alone.expect(r"rulekit play RULEBOOK --resume")
    alone.expect(pexpect.EOF)
    child = spawn(tmp_path, "rulebooks/silent_war", "--resume", str(save))
    child.expect("=== Turn 2 of 15")  # where the run stopped
    child.expect(r"\? ([^\r\n]+\[[0-9.]+\])")
    question = child.match.group(1)
    child.expect(PROMPT)
    child.sendintr()
    child.expect("interrupted: the game is saved in")
    child.expect(pexpect.EOF)
    # the autosave holds the run's game: it resumes, to the same question, without the file
    save.unlink()
    again = spawn(tmp_path, "--resume")
    again.expect("=== Turn 2 of 15")
    again.expect(re.escape(f"? {question}"))
    again.expect(PROMPT)
    again.sendintr()
    again.expect(pexpect.EOF)


def test_tdc_markers_are_not_on_screen_until_all_are_placed_14_14(tmp_path: Path) -> None:
    """[14.14] "The player places TDC markers (without examining them) ... Once they are all
    placed, TDC markers may not be moved." [14.15] "The player reveals the TDC markers and
    selects targets for attack": no marker's value shows while they are placed; once all
    are, they are told together and a target shows its marker."""
    child = spawn(tmp_path, "rulebooks/silent_war", "--seed", "3")
    enter_until(child, r"\? Place a TDC marker \([A-Za-z ]+\) on \[14\.14\]")
    told = ""
    while child.expect([r"\? Attack points for ([^\r\n]*) \[14\.15\]", PROMPT]) == 1:
        told += child.before
        child.sendline("")
    told += child.before
    placing, revealed, after = told.partition("the TDC markers are revealed")
    assert revealed, told
    assert not re.search(r"tdc_pool.*item \d+ of \d+", placing)
    assert not re.search(r"\.tdc[^\r\n]*-> ?-?\d", placing)
    assert not re.search(r"TDC -?\d", placing)
    assert re.search(r"TDC -?\d on ", after)
    assert "TDC" in child.match.group(1)  # the question's subject shows its marker
    stop_at_next_prompt(child)
