"""The generic runner: default runs, determinism, saves and resumes, replays, policies,
simulation, and that the runner itself knows nothing about any game."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, RULEBOOKS, run_cli

from rulekit.book.checker import Checked
from rulekit.errors import InputError
from rulekit.play.runner import new_game, replay, resume_game, trace_header, write_trace_footer
from rulekit.play.saves import SAVE_FORMAT, state_hash
from rulekit.play.simulate import simulate

SW = str(RULEBOOKS / "silent_war")


def play_to_end(book: Checked, scenario: str, seed: int) -> str:
    game = new_game(book, scenario, seed)
    return game.play().state_hash


def test_default_run_finishes_and_its_summary(snapshot: Any) -> None:
    # with no options: the rulebook's default scenario (the short campaign), to its end
    result = run_cli("run", SW, "--seed", "11")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "Short Campaign" in text
    assert "result: " in text and "not over yet" not in text
    assert "seed: 11" in text
    assert "provisional value(s) not printed in the rules" in text
    assert text == snapshot


def test_run_json_reports_the_final_result() -> None:
    data = json.loads(run_cli("run", SW, "--scenario", "patrol", "--seed", "3", "--json").stdout)
    assert set(data["final"]) == {"month", "year", "ships_sunk", "tonnage_sunk", "subs_lost"}
    assert data["ended"] and data["turns"] >= 1
    assert data["provisional_scenario"].startswith("the Scenario Book is not in the rules")
    assert any("table area_activity" in p for p in data["provisional_used"])
    assert len(data["reports"]) == data["turns"]


def test_same_seed_same_trace_bytes(tmp_path: Path) -> None:
    paths = []
    for i in range(2):
        path = tmp_path / f"t{i}.jsonl"
        assert (
            run_cli("run", SW, "--scenario", "patrol", "--seed", "5", "--trace", path).exit_code
            == 0
        )
        paths.append(path)
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_same_seed_same_trace_across_processes(tmp_path: Path) -> None:
    outputs = []
    for hashseed in ("0", "12345"):
        path = tmp_path / f"p{hashseed}.jsonl"
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        code = subprocess.run(
            [
                sys.executable,
                "-m",
                "rulekit.cli.main",
                "run",
                SW,
                "--scenario",
                "patrol",
                "--seed",
                "9",
                "--trace",
                str(path),
                "--json",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        assert code.returncode == 0, code.stderr
        outputs.append((path.read_bytes(), code.stdout))
    assert outputs[0] == outputs[1]


def test_save_after_every_turn_and_resume(silent_war: Checked, tmp_path: Path) -> None:
    whole = new_game(silent_war, "patrol", 2).play()  # a seed whose patrol lasts 3+ turns
    assert whole.turns >= 3
    for k in range(1, whole.turns):
        first = new_game(silent_war, "patrol", 2)
        first.play(k)
        save = tmp_path / f"turn{k}.toml"
        first.save(str(save))
        resumed = resume_game(silent_war, str(save))
        assert resumed.turn == k
        end = resumed.play()
        assert end.state_hash == whole.state_hash, k
        assert end.turns == whole.turns and end.ended == whole.ended


def test_a_save_keeps_shared_pieces_shared(silent_war: Checked, tmp_path: Path) -> None:
    game = new_game(silent_war, "short_campaign", 2)
    game.play(1)
    game.save(str(tmp_path / "s.toml"))
    resumed = resume_game(silent_war, str(tmp_path / "s.toml"))
    subs = resumed.interp.state.values["subs"]
    assert len({id(s) for s in subs}) == len(subs) == 9
    assert state_hash(resumed.interp.state.values) == state_hash(game.interp.state.values)


def test_save_is_atomic_and_checked(silent_war: Checked, tmp_path: Path) -> None:
    game = new_game(silent_war, "patrol", 1)
    path = tmp_path / "save.toml"
    game.save(str(path))
    assert [p.name for p in tmp_path.iterdir()] == ["save.toml"]  # no temporary file left
    text = path.read_text()
    other = tmp_path / "other.toml"
    other.write_text(text.replace('edition = "2.1"', 'edition = "1.1"'))
    with pytest.raises(InputError) as caught:
        resume_game(silent_war, str(other))
    assert (
        "is a save of Silent War 1.1, not of Silent War 2.1" in caught.value.diagnostics[0].message
    )
    newer = tmp_path / "newer.toml"
    newer.write_text(text.replace(f"format = {SAVE_FORMAT}", f"format = {SAVE_FORMAT + 1}"))
    with pytest.raises(InputError) as caught:
        resume_game(silent_war, str(newer))
    assert "was saved in format 2" in caught.value.diagnostics[0].message


def test_replay_confirms_and_tampering_is_found(silent_war: Checked, tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    assert run_cli("run", SW, "--scenario", "patrol", "--seed", "6", "--trace", path).exit_code == 0
    result = run_cli("replay", path)
    assert result.exit_code == 0, result.stderr
    assert "replay matches" in result.stdout
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        data = json.loads(line)
        if data.get("event") == "roll" and i > len(lines) // 3:
            data["faces"] = [(data["faces"][0] + 5) % 10, *data["faces"][1:]]
            lines[i] = json.dumps(data, sort_keys=True)
            break
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(lines) + "\n")
    result = run_cli("replay", tampered)
    assert result.exit_code == 1
    assert "the trace does not match the game" in result.stderr or "differs" in result.stderr


def test_replay_of_a_resumed_game(silent_war: Checked, tmp_path: Path) -> None:
    save = tmp_path / "s.toml"
    assert (
        run_cli(
            "run", SW, "--scenario", "patrol", "--seed", "8", "--turns", "2", "--save", save
        ).exit_code
        == 0
    )
    trace = tmp_path / "rest.jsonl"
    assert run_cli("run", SW, "--resume", save, "--trace", trace).exit_code == 0
    assert replay(silent_war, str(trace)).turns >= 3


def test_interactive_policy_reads_stdin_and_asks_again() -> None:
    from click.testing import CliRunner

    from rulekit.cli.main import main

    # the patrol's first decision is "move_to": answer nonsense, then a number
    answers = "not an option\n1\n" + "\n" * 400
    result = CliRunner().invoke(
        main,
        [
            "run",
            SW,
            "--scenario",
            "patrol",
            "--seed",
            "2",
            "--turns",
            "1",
            "--policy",
            "interactive",
        ],
        input=answers,
    )
    assert result.exit_code == 0, result.stderr
    # the prompt names the boat: placeholders filled from the deciding procedure
    assert "decision move_to [12.0]: Patrol Move for Spearfish from" in result.stderr
    assert "{sub." not in result.stderr
    assert "'not an option' is not an option of decision 'move_to'" in result.stderr
    assert "1) East China Sea" in result.stderr


def test_scripted_policy_needs_every_answer(tmp_path: Path) -> None:
    script = tmp_path / "answers.toml"
    args = ("run", SW, "--scenario", "patrol", "--seed", "2", "--turns", "1")
    script.write_text('move_to = ["East China Sea"]\n')
    result = run_cli(*args, "--policy", f"scripted:{script}")
    assert result.exit_code == 1
    assert "the script has no answer for decision 'bypass' [13.1]" in result.stderr
    script.write_text('move_to = ["Sea of Japen"]\n')
    result = run_cli(*args, "--policy", f"scripted:{script}")
    assert result.exit_code == 1
    assert "'Sea of Japen' is not an option of decision 'move_to' [12.0]" in result.stderr


def test_random_policy_is_seeded() -> None:
    args = ("run", SW, "--scenario", "patrol", "--seed", "2", "--policy", "random", "--json")
    first, second = run_cli(*args), run_cli(*args)
    assert first.exit_code == 0 and first.stdout == second.stdout


def test_bad_scenario_names_file_key_and_line(tmp_path: Path) -> None:
    scenario = tmp_path / "bad.toml"
    scenario.write_text('[scenario]\ntitle = "Bad"\nturns = 2\n\n[state]\nyeer = 1942\n')
    result = run_cli("run", SW, "--scenario", scenario)
    assert result.exit_code == 1
    assert "bad.toml:6:1: error: yeer: 'yeer' is not a state variable or track" in result.stderr
    assert "did you mean 'year'?" in result.stderr
    scenario.write_text(
        '[scenario]\ntitle = "Bad"\n\n[[start]]\nprocedure = "start_at_sea"\n'
        'args = { name = "Nemo", at = "East China Sea" }\n'
    )
    result = run_cli("run", SW, "--scenario", scenario)
    assert result.exit_code == 1
    # the unknown submarine: reported at the scenario's [[start]] entry that names it
    assert (
        "bad.toml:6:1: error: [[start]] start_at_sea: table sub_roster has no row for "
        "name = Nemo" in result.stderr
    )
    assert "its name rows are: Spearfish, Sargo" in result.stderr
    scenario.write_text('[scenario]\ntitle = "Bad"\nturns = "two"\n')
    result = run_cli("run", SW, "--scenario", scenario)
    assert result.exit_code == 1
    assert "bad.toml:3:1: error: turns: invalid value for type, expected int" in result.stderr
    scenario.write_text("[scenario]\nturns = 2\n")
    result = run_cli("run", SW, "--scenario", scenario)
    assert "bad.toml:1:1: error: scenario: [scenario] needs 'title'" in result.stderr
    scenario.write_text('[scenario]\ntitle = "Bad"\n\n[state]\nmonth = "Jum"\n')
    result = run_cli("run", SW, "--scenario", scenario)
    assert "bad.toml:5:1: error: month: 'Jum' is not a month" in result.stderr
    assert "did you mean 'Jun'?" in result.stderr
    assert run_cli("run", SW, "--scenario", "patrl").stderr.count("did you mean 'patrol'?") == 1


def test_unknown_policy() -> None:
    result = run_cli("run", SW, "--scenario", "patrol", "--policy", "clever")
    assert result.exit_code == 1 and "unknown policy 'clever'" in result.stderr


def test_simulate_same_statistics_with_one_or_two_workers(silent_war: Checked) -> None:
    one = simulate(SW, "patrol", 4, seed=100, workers=1)
    two = simulate(SW, "patrol", 4, seed=100, workers=2, shard_size=1)
    assert one.stats == two.stats and one.endings == two.endings
    ships = next(s for s in one.stats if s.name == "ships_sunk")
    values = [new_game(silent_war, "patrol", s).play().final["ships_sunk"] for s in range(100, 104)]
    assert ships.mean == sum(values) / len(values)
    assert ships.min == min(values) and ships.max == max(values)


def test_simulate_cli_json() -> None:
    result = run_cli("simulate", SW, "--scenario", "patrol", "--runs", "3", "--seed", "7", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["runs"] == 3 and sum(data["endings"].values()) == 3
    assert {s["name"] for s in data["stats"]} >= {"ships_sunk", "tonnage_sunk", "subs_lost"}


def test_the_runner_has_no_game_specific_code() -> None:
    words = re.compile(
        r"submarine|silent|torpedo|war_period|ultra|convoy|gato|escort|ships_sunk", re.I
    )
    for module in ("runner.py", "scenario.py", "saves.py", "simulate.py"):
        text = (ROOT / "rulekit" / "play" / module).read_text()
        assert not words.search(text), (module, words.search(text))


def test_trace_header_and_footer(silent_war: Checked, tmp_path: Path) -> None:
    game = new_game(silent_war, "patrol", 1)
    path = tmp_path / "t.jsonl"
    with path.open("w") as sink:
        sink.write(json.dumps(trace_header(game, SW, None)) + "\n")
        write_trace_footer(sink, game.play(1, sink))
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[0]["rulekit_trace"] == 1 and lines[0]["seed"] == 1
    assert lines[1] == {"event": "turn", "turn": 1}
    assert lines[-1]["end"] is True and lines[-1]["turns"] == 1


def test_explain_shows_every_turn_rule_by_rule() -> None:
    result = run_cli("run", SW, "--scenario", "patrol", "--seed", "25", "--explain")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert text.startswith("--- turn 1\n")
    # seed 25: in turn 7 a Diligent Escort is revealed; the crash dive [28.2] fails (a 5) and
    # its counterattack (7, no modifier) spots Spearfish
    turn7 = text[text.index("--- turn 7\n") : text.index("--- turn 8\n")]
    assert "roll d10 [28.2]: natural 5 = 5\n" in turn7
    assert "< crash_dive -> no" in turn7
    assert "roll d10 [14.13]: natural 7 = 7\n" in turn7
    assert "diligent_escort_table [14.13] roll=7 -> row 6-7: Spotted  (provisional)" in turn7
    assert "set Spearfish.spotted [23.0]: no -> yes" in turn7
    assert text.index("--- turn 1") < text.index("--- turn 7") < text.index("turns played:")


def test_when_the_turns_run_out_the_scenario_names_the_result(tmp_path: Path) -> None:
    result = run_cli("run", SW, "--seed", "3", "--json")  # a seed that plays every turn
    data = json.loads(result.stdout)
    assert data["turns"] == 15  # December week 2 to March week 4, 1941-42
    assert data["ended"].startswith("draw: the campaign ends with ")
    assert data["ended"].endswith(f"{data['final']['tonnage_sunk']} of 35 thousand tons sunk")


def test_the_sub_commander_patrol_runs_through_the_same_runner() -> None:
    data = json.loads(
        run_cli("run", str(RULEBOOKS / "steel_wolves_like"), "--seed", "4", "--json").stdout
    )
    assert data["rulebook"] == "Sub-commander patrol tables"
    assert data["ended"] and data["turns"] >= 1
    assert any("travel box" in p or "table" in p for p in data["provisional_used"])


def test_a_scenario_sets_its_step_budget_and_max_steps_overrides_it(tmp_path: Path) -> None:
    scenario = tmp_path / "budget.toml"
    scenario.write_text('[scenario]\ntitle = "Budget"\nturns = 1\nmax_steps = 0\n')
    result = run_cli("run", SW, "--scenario", scenario)
    assert result.exit_code == 1
    assert "budget.toml:4:1: error: max_steps: a step budget is between 1 and" in result.stderr
    # the full campaign raises its own budget (a phase moves the whole force); a budget given
    # on the command line is the one that counts
    result = run_cli("run", SW, "--scenario", "full_campaign", "--turns", "1", "--max-steps", "50")
    assert result.exit_code == 1
    assert "stopped after 50 steps" in result.stderr
    result = run_cli("run", SW, "--scenario", "full_campaign", "--turns", "1", "--seed", "1")
    assert result.exit_code == 0, result.stderr
