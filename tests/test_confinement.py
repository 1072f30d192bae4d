"""Issue 37 §2: the files a user was sent (a rulebook, a save, a trace, a study folder, the
parse cache) make rulekit read nothing else. Each case plants a secret outside the rulebook
and checks it is neither read nor printed, and that the error says where and exits 1."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from conftest import RULEBOOKS, run_cli

Make = Callable[..., Path]
HEADER = 'rulebook "Test"\ndice d6 = 1..6\n'
SECRET = "PLANTED-CONTENT = 1\n"  # a line that parses neither as .rk nor as a save
BOOK = HEADER + "state x: int = 0\nprocedure p [1.0]\n    x = roll d6\n"
SCENARIO = '[scenario]\ntitle = "s"\nturns = 1\n'
TURN = 'sequence turn [0.0] "Turn"\n    phase p [1.0]\n'


def fails(result: Result, code: int = 1) -> str:
    text = result.stdout + result.stderr
    assert result.exit_code == code, text
    assert "Traceback" not in text
    assert "PLANTED-CONTENT" not in text  # nothing of the outside file is printed
    return result.stderr


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.rk").write_text(SECRET, encoding="utf-8")
    (outside / "secret.toml").write_text(SECRET, encoding="utf-8")
    (outside / "rulebook.rk").write_text(SECRET, encoding="utf-8")
    return outside


# ---- links out of the rulebook's folder ---------------------------------------------------


def test_a_linked_rulebook_rk_is_refused(tmp_path: Path, secret: Path) -> None:
    book = tmp_path / "book"
    book.mkdir()
    (book / "rulebook.rk").symlink_to(secret / "secret.rk")
    err = fails(run_cli("check", book))
    assert "rulebook.rk: error: 'book/rulebook.rk' is a link to a file outside" in err or (
        "rulebook.rk' is a link to a file outside the rulebook's folder" in err
    )


def test_a_link_inside_the_folder_is_fine(tmp_path: Path) -> None:
    book = tmp_path / "book"
    book.mkdir()
    (book / "main.rk").write_text(HEADER, encoding="utf-8")
    (book / "rulebook.rk").symlink_to(book / "main.rk")
    assert run_cli("check", book).exit_code == 0


def test_a_linked_edition_is_refused(make_rulebook: Make, secret: Path) -> None:
    book = make_rulebook(HEADER)
    (book / "editions").mkdir()
    (book / "editions" / "v.rk").symlink_to(secret / "secret.rk")
    err = fails(run_cli("check", f"{book}@v"))
    assert "v.rk' is a link to a file outside the rulebook's folder" in err


def test_a_linked_scenario_is_refused(make_rulebook: Make, secret: Path) -> None:
    book = make_rulebook(BOOK + TURN)
    (book / "scenarios").mkdir()
    (book / "scenarios" / "s.toml").symlink_to(secret / "secret.toml")
    err = fails(run_cli("check", book))
    assert "s.toml' is a link to a file outside the rulebook's folder" in err
    err = fails(run_cli("run", book, "--scenario", "s"))
    assert "s.toml' is a link to a file outside the rulebook's folder" in err


def test_a_variant_extending_a_linked_folder_is_refused(make_rulebook: Make, secret: Path) -> None:
    book = make_rulebook(HEADER)
    (book / "base").symlink_to(secret, target_is_directory=True)
    (book / "editions").mkdir()
    (book / "editions" / "v.rk").write_text('variant "V" extends "../base"\n', encoding="utf-8")
    err = fails(run_cli("check", f"{book}@v"))
    assert "v.rk:1:1: error: the variant extends '../base', which is outside its rulebook" in err


def test_a_variant_extending_a_folder_whose_rulebook_rk_is_a_link(
    make_rulebook: Make, secret: Path
) -> None:
    book = make_rulebook(HEADER)
    (book / "base").mkdir()
    (book / "base" / "rulebook.rk").symlink_to(secret / "secret.rk")
    (book / "editions").mkdir()
    (book / "editions" / "v.rk").write_text('variant "V" extends "../base"\n', encoding="utf-8")
    err = fails(run_cli("check", f"{book}@v"))
    assert "v.rk:1:1: error: the variant extends '../base', which is outside its rulebook" in err


# ---- a folder named editions/ or variants/ sent as a rulebook ----------------------------


@pytest.mark.parametrize("folder", ["editions", "variants"])
def test_a_rulebook_named_editions_cannot_extend_its_sibling(
    tmp_path: Path, secret: Path, folder: str
) -> None:
    sent = tmp_path / folder
    sent.mkdir()
    (sent / "rulebook.rk").write_text('variant "V" extends "../outside"\n', encoding="utf-8")
    err = fails(run_cli("check", sent))
    assert "rulebook.rk:1:1: error: the variant extends '../outside', which is outside" in err
    err = fails(run_cli("check", sent / "rulebook.rk"))  # named by its file: the same
    assert "which is outside its rulebook" in err


def test_a_variant_file_named_directly_extends_its_rulebook(make_rulebook: Make) -> None:
    # what is allowed: DIR/editions/v.rk extends DIR (..), named as a file or as DIR@v
    book = make_rulebook(HEADER)
    (book / "editions").mkdir()
    (book / "editions" / "v.rk").write_text('variant "V" extends ".."\n', encoding="utf-8")
    assert run_cli("check", book / "editions" / "v.rk").exit_code == 0
    assert run_cli("check", f"{book}@v").exit_code == 0
    (book / "editions" / "w.rk").write_text('variant "W" extends "../../book"\n', encoding="utf-8")
    assert run_cli("check", f"{book}@w").exit_code == 0  # inside, however it is spelled


def test_a_variant_of_a_bundled_rulebook_still_loads() -> None:
    assert run_cli("check", "silent_war@1.1").exit_code == 0


# ---- saves and traces name the rulebook's own scenarios by name -------------------------


@pytest.fixture
def game(make_rulebook: Make, tmp_path: Path) -> tuple[Path, Path, Path]:
    """A rulebook with scenario s, a save and a trace of one game of it."""
    book = make_rulebook(
        BOOK + TURN, **{"scenarios__s.toml": SCENARIO.replace("turns = 1", "turns = 3")}
    )
    save, trace = tmp_path / "game.toml", tmp_path / "game.jsonl"
    ran = run_cli("run", book, "--scenario", "s", "--seed", "3", "--turns", "1", "--save", save)
    assert ran.exit_code == 0, ran.output
    traced = run_cli("run", book, "--scenario", "s", "--seed", "3", "--trace", trace)
    assert traced.exit_code == 0, traced.output
    return book, save, trace


@pytest.mark.parametrize("path", ["../../outside/secret", "/etc/passwd", "OUTSIDE/secret.toml"])
def test_a_save_naming_a_scenario_path_is_refused(
    game: tuple[Path, Path, Path], secret: Path, path: str
) -> None:
    book, save, _ = game
    path = path.replace("OUTSIDE", str(secret))
    text = save.read_text(encoding="utf-8").replace('scenario = "s"', f'scenario = "{path}"')
    save.write_text(text, encoding="utf-8")
    err = fails(run_cli("run", book, "--resume", save, "--turns", "1"))
    assert f"error: '{save}' names the scenario '{path}', which is not one of the rulebook" in err


def test_a_save_of_a_scenario_file_resumes_when_the_user_names_it(
    make_rulebook: Make, tmp_path: Path
) -> None:
    book = make_rulebook(BOOK + TURN)
    scenario = tmp_path / "mine.toml"
    scenario.write_text(SCENARIO.replace("turns = 1", "turns = 3"), encoding="utf-8")
    save = tmp_path / "game.toml"
    ran = run_cli("run", book, "--scenario", scenario, "--turns", "1", "--save", save)
    assert ran.exit_code == 0, ran.output
    err = fails(run_cli("run", book, "--resume", save))
    assert "names the scenario" in err and "--scenario FILE" in err
    assert run_cli("run", book, "--resume", save, "--scenario", scenario).exit_code == 0
    other = tmp_path / "other.toml"
    shutil.copy(scenario, other)
    err = fails(run_cli("run", book, "--resume", save, "--scenario", other))
    assert "--scenario: error: --resume continues a saved game: it has its own scenario" in err


def _header(trace: Path, **changes: object) -> None:
    lines = trace.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0]) | changes
    trace.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")


def test_a_trace_names_its_rulebook_only_for_the_user_to_confirm(
    game: tuple[Path, Path, Path],
) -> None:
    book, _, trace = game
    err = fails(run_cli("replay", trace))
    assert f"RULEBOOK: error: the trace '{trace}' names the rulebook '{book}', which you " in err
    assert f"rulekit replay {trace} --rulebook {book}" in err
    replayed = run_cli("replay", trace, "--rulebook", book)
    assert replayed.exit_code == 0, replayed.output


def test_a_trace_pointing_at_another_rulebook_reads_nothing(
    game: tuple[Path, Path, Path], secret: Path
) -> None:
    _, _, trace = game
    _header(trace, rulebook_path=str(secret), rulebook=str(secret))
    err = fails(run_cli("replay", trace))
    assert "which you did not name" in err


def test_a_trace_of_a_bundled_rulebook_replays_by_itself(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    ran = run_cli("run", RULEBOOKS / "steel_wolves_like", "--seed", "2", "--trace", trace)
    assert ran.exit_code == 0, ran.output
    assert run_cli("replay", trace).exit_code == 0


@pytest.mark.parametrize("path", ["../outside/secret", "OUTSIDE/secret.toml"])
def test_a_trace_naming_a_scenario_path_is_refused(
    game: tuple[Path, Path, Path], secret: Path, path: str
) -> None:
    book, _, trace = game
    path = path.replace("OUTSIDE", str(secret))
    _header(trace, scenario=path)
    err = fails(run_cli("replay", trace, "--rulebook", book))
    assert f"names the scenario '{path}', which is not one of the rulebook's scenarios" in err


def test_a_trace_of_a_resumed_game_reads_only_the_save_beside_it(
    game: tuple[Path, Path, Path], secret: Path, tmp_path: Path
) -> None:
    book, save, _ = game
    trace = tmp_path / "rest.jsonl"
    assert run_cli("run", book, "--resume", save, "--trace", trace).exit_code == 0
    assert run_cli("replay", trace, "--rulebook", book).exit_code == 0  # beside it
    _header(trace, resumed_from=str(secret / "secret.toml"))
    err = fails(run_cli("replay", trace, "--rulebook", book))
    assert "the trace continues the game saved in" in err and "--resumed-from" in err
    assert run_cli("replay", trace, "--rulebook", book, "--resumed-from", save).exit_code == 0


# ---- a play save's rulebook path ----------------------------------------------------------


def test_a_play_save_names_its_rulebook_only_for_the_user_to_confirm(
    make_rulebook: Make, tmp_path: Path, secret: Path
) -> None:
    import tomli_w

    book = make_rulebook(BOOK + TURN, **{"scenarios__s.toml": SCENARIO})
    save = tmp_path / "play.toml"
    data = {
        "rulekit_play": 1,
        "rulebook": str(secret),
        "name": "Test",
        "edition": "",
        "options": [],
        "scenario": "s",
        "seed": 1,
        "turn": 0,
        "ended": "",
        "answers": [],
        "by": [],
    }
    save.write_bytes(tomli_w.dumps(data).encode())
    result = run_cli("play", "--resume", save)
    text = result.stdout + result.stderr
    assert result.exit_code == 1, text
    assert "Traceback" not in text and "PLANTED-CONTENT" not in text
    assert f"names the rulebook '{secret}', which you did not name" in text
    assert book.exists()


@pytest.mark.parametrize("path", ["../../outside/secret", "OUTSIDE/secret.toml"])
def test_a_play_save_naming_a_scenario_path_is_refused(
    make_rulebook: Make, tmp_path: Path, secret: Path, path: str
) -> None:
    import tomli_w

    book = make_rulebook(BOOK + TURN, **{"scenarios__s.toml": SCENARIO})
    path = path.replace("OUTSIDE", str(secret))
    save = tmp_path / "play.toml"
    data = {"rulekit_play": 1, "rulebook": str(book), "name": "Test", "edition": "",
            "options": [], "scenario": path, "seed": 1, "turn": 0, "ended": "",
            "answers": [], "by": []}  # fmt: skip
    save.write_bytes(tomli_w.dumps(data).encode())
    err = fails(run_cli("play", book, "--resume", save))
    assert f"the save '{save}' names the scenario '{path}', which is not one of the" in err


# ---- simulate --out: shards carry the study's hash --------------------------------------


@pytest.fixture
def study(make_rulebook: Make, tmp_path: Path) -> tuple[Path, Path]:
    pytest.importorskip("pyarrow")
    book = make_rulebook(BOOK + TURN, **{"scenarios__s.toml": SCENARIO})
    out = tmp_path / "study"
    ran = run_cli("simulate", book, "--scenario", "s", "--runs", "20", "--shard-size", "10",
                  "--out", out, "--seed", "1", "--json")  # fmt: skip
    assert ran.exit_code == 0, ran.output
    return book, out


def _report(out: Path) -> dict[str, object]:
    result = run_cli("report", out, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_a_shard_of_another_study_is_not_merged(study: tuple[Path, Path], tmp_path: Path) -> None:
    book, out = study
    assert _report(out)["completed"] == 20
    other = tmp_path / "other"  # another study (another seed range, another scenario length)
    ran = run_cli("simulate", book, "--scenario", "s", "--runs", "10", "--shard-size", "10",
                  "--out", other, "--seed", "21", "--turns", "1", "--max-steps", "999")  # fmt: skip
    assert ran.exit_code == 0, ran.output
    planted = sorted(other.glob("shard-*.parquet"))
    assert planted
    for rows in planted:  # seeds 21 on: no shard of the study's own covers them
        shutil.copy(rows, out / rows.name)
        shutil.copy(other / "_meta" / (rows.stem + ".json"), out / "_meta" / (rows.stem + ".json"))
    assert _report(out)["completed"] == 20  # the planted shards' 10 games are not counted


def test_a_planted_shard_summary_is_not_merged(study: tuple[Path, Path]) -> None:
    _, out = study
    summary = sorted((out / "_meta").glob("shard-*.json"))[0]
    data = json.loads(summary.read_text(encoding="utf-8"))
    games = data["games"]
    data["games"] = 1000  # a forged count beside the real rows
    summary.write_text(json.dumps(data), encoding="utf-8")
    assert _report(out)["completed"] == 20 - games


def test_a_planted_shard_is_played_again_on_resuming(study: tuple[Path, Path]) -> None:
    book, out = study
    shards = sorted((out / "_meta").glob("shard-*.json"))
    summary = shards[0]
    data = json.loads(summary.read_text(encoding="utf-8"))
    data.pop("study", None)  # a shard of no study
    summary.write_text(json.dumps(data), encoding="utf-8")
    ran = run_cli("simulate", book, "--scenario", "s", "--runs", "20", "--shard-size", "10",
                  "--out", out, "--seed", "1", "--json")  # fmt: skip
    assert ran.exit_code == 0, ran.output
    # only the genuine ones are taken as finished
    assert json.loads(ran.stdout)["run"]["resumed_shards"] == len(shards) - 1
    assert _report(out)["completed"] == 20


# ---- the parse cache: an entry that does not verify is never trusted ----------------------


def test_a_forged_cache_entry_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rulekit.language import cache
    from rulekit.language.parser import parse

    folder = tmp_path / "cache"
    monkeypatch.setenv("RULEKIT_CACHE", str(folder))
    text = "procedure p -> int [1.0]\n    return 1\n"
    honest = cache.cached_parse(text, "a.rk", parse)
    (entry,) = folder.glob("parse-*.json")
    body = entry.read_bytes().partition(b"\n")[2]
    # whoever can write the folder writes a well-formed entry for the same text, under its
    # key, where the procedure returns 2: without this user's key it does not verify
    entry_data = json.loads(body)
    lie = parse(text.replace("return 1", "return 2"), "a.rk")
    forged = json.dumps(entry_data | {"data": cache.encode_nodes(lie, "a.rk")}).encode()
    assert cache.decode_nodes(json.loads(forged)["data"], "a.rk") == lie != honest
    for first_line in (b"", b"0" * 64, hashlib.sha256(forged).hexdigest().encode()):
        entry.write_bytes(first_line + b"\n" + forged)
        assert cache.cached_parse(text, "a.rk", parse) == honest
    entry.write_bytes(forged)  # an entry of the old format, unsigned
    assert cache.cached_parse(text, "a.rk", parse) == honest


def test_a_cache_copied_from_elsewhere_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rulekit.language import cache
    from rulekit.language.parser import parse

    calls = []

    def counting(text: str, path: str):  # type: ignore[no-untyped-def]
        calls.append(path)
        return parse(text, path)

    text = "const c = 1\n"
    monkeypatch.setenv("RULEKIT_CACHE", str(tmp_path / "one"))
    cache.cached_parse(text, "a.rk", counting)
    cache.cached_parse(text, "a.rk", counting)
    assert len(calls) == 1  # the entry is used where it was written
    shutil.copytree(tmp_path / "one", tmp_path / "two")
    os.chmod(tmp_path / "two", 0o700)
    monkeypatch.setenv("RULEKIT_CACHE", str(tmp_path / "two"))
    cache.cached_parse(text, "a.rk", counting)  # the copy has no key of its own beside it
    assert len(calls) == 2
