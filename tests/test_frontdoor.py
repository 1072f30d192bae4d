"""What a newcomer types first: `rulekit odds`, `rulekit rulebooks`, `rulekit scenarios`,
`rulekit --version`, and a bundled rulebook given by name from any directory."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import ROOT, run_cli


def _odds(expr: str) -> dict[object, Fraction]:
    result = run_cli("odds", expr, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    return {o["value"]: Fraction(o["p"]) for o in data["outcomes"]}


def _count(outcomes: list[object]) -> dict[object, Fraction]:
    out: dict[object, Fraction] = {}
    for value in outcomes:
        out[value] = out.get(value, Fraction(0)) + Fraction(1, len(outcomes))
    return out


D6 = range(1, 7)


def test_odds_of_a_sum_with_a_modifier() -> None:
    assert _odds("2d6+1") == _count([a + b + 1 for a, b in itertools.product(D6, D6)])


def test_odds_of_the_highest_three_of_four_dice() -> None:
    expected = _count([sum(sorted(r)[1:]) for r in itertools.product(D6, repeat=4)])
    assert _odds("highest 3 of 4d6") == expected


def test_odds_of_a_comparison() -> None:
    hits = sum(1 for r in itertools.product(D6, repeat=3) if sum(r) >= 12)
    assert _odds("3d6 >= 12") == {True: Fraction(hits, 216), False: Fraction(216 - hits, 216)}


def test_odds_of_two_rolls_added_and_of_the_highest_die() -> None:
    d4 = range(1, 5)
    assert _odds("2d6 + 1d4") == _count([a + b + c for a, b, c in itertools.product(D6, D6, d4)])
    d10 = range(1, 11)
    assert _odds("highest of 3d10") == _count([max(r) for r in itertools.product(d10, repeat=3)])


def test_odds_in_the_terminal_has_bars() -> None:
    result = run_cli("odds", "2d6")
    assert result.exit_code == 0
    assert "1/6" in result.output and "█" in result.output


def test_odds_of_a_bad_expression_is_an_error_not_a_traceback() -> None:
    result = run_cli("odds", "2d6 +")
    assert result.exit_code == 1
    assert "error: unexpected end of line" in result.output


def test_version() -> None:
    result = run_cli("--version")
    assert result.exit_code == 0 and "rulekit, version" in result.output


def test_rulebooks_lists_the_bundled_ones() -> None:
    result = run_cli("rulebooks", "--json")
    names = {r["name"]: r for r in json.loads(result.stdout)}
    assert {"silent_war", "gato_leader", "attack_sub", "tutorial"} <= set(names)
    assert names["silent_war"]["default_scenario"] == "short_campaign"


def test_scenarios_lists_title_length_and_default() -> None:
    result = run_cli("scenarios", "rulebooks/silent_war", "--json")
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert rows["full_campaign"]["turns"] == 179
    assert rows["short_campaign"]["default"] and not rows["patrol"]["default"]


def test_a_bundled_rulebook_by_name_from_another_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("lookup", "silent_war", "7.1", "--at", "war_period=WP3", "--roll", "2")
    assert result.exit_code == 0, result.output
    assert "Empire Pacific, Bismarck Sea" in result.output
    # an example file named as the docs name it, and a variant of a rulebook by name
    given = run_cli(
        "prob", "silent_war", "counterattack", "--given", "examples/silent_war/spearfish_14_15.toml"
    )
    assert given.exit_code == 0, given.output
    assert run_cli("tables", "silent_war@1.1").exit_code == 0


def test_a_path_wins_over_a_bundled_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine = tmp_path / "silent_war"
    mine.mkdir()
    (mine / "rulebook.rk").write_text(
        'rulebook "Mine"\n\ndice d6 = 1..6\n\nprocedure p\n    return roll d6\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    result = run_cli("procedures", "silent_war", "--json")
    assert result.exit_code == 0, result.output
    assert "combat_round" not in result.output and '"p"' in result.output


def test_a_misspelt_name_suggests_the_bundled_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("tables", "silent_wr")
    assert result.exit_code == 1
    assert "silent_war" in result.output


def test_the_clone_is_where_the_bundled_rulebooks_come_from_in_development() -> None:
    from rulekit import bundled

    assert bundled.root() in (ROOT, ROOT / "rulekit" / "_bundled")


def test_progress_of_turns_only_on_a_terminal_and_not_when_quiet() -> None:
    import io

    from rich.console import Console

    from rulekit.cli.progress import turns_progress

    piped = Console(file=io.StringIO())
    with turns_progress(piped, 15, quiet=False) as advance:
        assert advance is None
    terminal = Console(file=io.StringIO(), force_terminal=True)
    with turns_progress(terminal, 15, quiet=True) as advance:
        assert advance is None
    with turns_progress(terminal, 3, quiet=False) as advance:
        assert advance is not None
        for turn in range(3):
            advance(turn, [])
    assert "3/3" in terminal.file.getvalue()  # type: ignore[attr-defined]


def test_run_prints_no_progress_when_stderr_is_not_a_terminal() -> None:
    result = run_cli("run", "tutorial", "--seed", "2")
    assert result.exit_code == 0
    assert result.stderr == ""


def _play(tmp_path: Path, answers: str) -> str:
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "rulekit", "play", "rulebooks/silent_war", "--seed", "3"],
        input=answers,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "RULEKIT_PLAY_DIR": str(tmp_path)},
        timeout=300,
        check=False,
    )
    return done.stdout


def test_play_help_shows_the_question_filled_in(tmp_path: Path) -> None:
    printed = _play(tmp_path, "?\n")
    help_start = printed.index("rule [15.1]: Deployment Transit Movement")
    assert "  Deploy Tautog from the Ready for Sea Box?" in printed[help_start:]
    assert "{sub.name}" not in printed


def test_play_story_has_no_internal_lines(tmp_path: Path) -> None:
    printed = _play(tmp_path, "\n" * 60)
    assert "Resolving the Attack [14.16]" in printed  # far enough into the turn
    # a return whose call was folded (book-keeping), or a distance look-up, told alone
    for internal in ("unit_transit_movement -> ", "base_distance -> "):
        assert internal not in printed, internal


def test_a_spinner_while_prob_or_advise_works_only_on_a_terminal() -> None:
    import io

    from rich.console import Console

    from rulekit.cli.progress import working

    piped = Console(file=io.StringIO())
    with working(piped, "prob: working out the odds", quiet=False):
        pass
    assert piped.file.getvalue() == ""  # type: ignore[attr-defined]
    terminal = Console(file=io.StringIO(), force_terminal=True)
    with working(terminal, "prob: working out the odds", quiet=True):
        pass
    assert terminal.file.getvalue() == ""  # type: ignore[attr-defined]
    with working(terminal, "prob: working out the odds", quiet=False):
        pass
    assert "prob: working out the odds" in terminal.file.getvalue()  # type: ignore[attr-defined]
