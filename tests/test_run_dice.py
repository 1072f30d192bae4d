"""``rulekit run --dice``: a whole game's die results forced, in order."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import RULEBOOKS, run_cli

BOOK = RULEBOOKS / "attack_sub"
PATROL = (RULEBOOKS / "silent_war", "--scenario", "patrol")  # its set-up throws no dice


def _faces(trace: Path) -> list[int]:
    """Every throw of the dice a recorded game made, as replay reads them."""
    faces: list[int] = []
    for line in trace.read_text(encoding="utf-8").splitlines()[1:]:
        data = json.loads(line)
        if data.get("event") == "roll":
            faces.extend(data["faces"])
        elif data.get("event") == "draw" and data.get("of", 0) > 1:
            faces.append(data["position"])
    return faces


def test_forced_dice_replay_a_seeded_game(tmp_path: Path) -> None:
    trace = tmp_path / "seeded.jsonl"
    seeded = run_cli("run", *PATROL, "--seed", "7", "--turns", "2", "--json", "--trace", trace)
    assert seeded.exit_code == 0, seeded.stderr
    faces = _faces(trace)
    assert len(faces) > 5
    # --dice forces the turns' throws; the set-up still draws from the seed (sorting the War
    # Mix draws the Diligent Escorts [3.11]), so the seed stays 7
    given = ",".join(map(str, faces))
    forced = run_cli("run", *PATROL, "--seed", "7", "--dice", given, "--turns", "2", "--json")
    assert forced.exit_code == 0, forced.stderr
    assert json.loads(forced.stdout)["state_hash"] == json.loads(seeded.stdout)["state_hash"]
    # the first throw is the Area Activity roll [13.1 A], a d10: another face, another game
    first = next(
        json.loads(line)
        for line in trace.read_text(encoding="utf-8").splitlines()[1:]
        if json.loads(line).get("event") in ("roll", "draw")
    )
    assert (first["event"], first["dice"], first["rule"]) == ("roll", "d10", "13.1 A")
    changed = str((faces[0] + 5) % 10)  # then the seed's dice, one throw behind
    other = run_cli("run", *PATROL, "--seed", "7", "--dice", changed, "--turns", "2", "--json")
    assert other.exit_code == 0, other.stderr
    assert json.loads(other.stdout)["state_hash"] != json.loads(seeded.stdout)["state_hash"]


def test_forced_dice_running_out_is_an_error_without_a_seed(tmp_path: Path) -> None:
    trace = tmp_path / "seeded.jsonl"
    assert run_cli("run", BOOK, "--seed", "7", "--turns", "2", "--trace", trace).exit_code == 0
    short = ",".join(map(str, _faces(trace)[:3]))
    result = run_cli("run", BOOK, "--dice", short, "--turns", "2")
    assert result.exit_code == 1
    assert "--dice gave 3 value(s) but the procedure throws another" in result.stderr
    assert "Traceback" not in result.stderr


def test_unused_forced_dice_are_reported_and_a_save_resumes_on_the_seed(tmp_path: Path) -> None:
    save = tmp_path / "g.toml"
    result = run_cli("run", BOOK, "--seed", "7", "--dice", "1", "--turns", "0", "--save", save)
    assert result.exit_code == 0, result.stderr
    assert "note: --dice: 1 value(s) not used" in result.stderr
    assert run_cli("run", BOOK, "--resume", save, "--turns", "1").exit_code == 0
