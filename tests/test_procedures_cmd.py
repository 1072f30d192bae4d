"""``rulekit procedures``: what a designer can call, with rule, parameters and types."""

from __future__ import annotations

from pathlib import Path

from conftest import cli_json, run_cli

GOLDEN = Path(__file__).parent / "golden" / "language"


def test_procedures_json_lists_signatures_rules_and_decisions() -> None:
    rows = {r["name"]: r for r in cli_json("procedures", GOLDEN)}
    search = rows["search"]
    # the fixture: procedure search(bonus: int = 0, crew: level = Trained) -> text [3.0]
    assert (search["kind"], search["rule"], search["title"], search["returns"]) == (
        "procedure",
        "3.0",
        "Search",
        "text",
    )
    assert search["parameters"] == [
        {"name": "bonus", "type": "int", "default": "0"},
        {"name": "crew", "type": "level", "default": "Trained"},
    ]
    assert rows["decide_posture"]["decisions"] == ["p"]
    assert rows["aggregates"]["parameters"] == [
        {"name": "boats", "type": "list of boat", "default": None}
    ]
    drm = rows["search_drm"]
    assert (drm["kind"], drm["rule"], drm["returns"], drm["lines"]) == (
        "modifiers",
        "3.1",
        "int",
        4,
    )


def test_procedures_text_shows_one_line_each() -> None:
    result = run_cli("procedures", GOLDEN)
    assert result.exit_code == 0, result.stderr
    assert "search(bonus: int = 0, crew: level = Trained) -> text" in result.stdout
    assert "search_drm(bonus: int = 0, crew: level = Trained) -> int" in result.stdout


def test_procedures_of_a_broken_rulebook_is_located(tmp_path: Path) -> None:
    (tmp_path / "rulebook.rk").write_text('rulebook "B"\nprocedure p -> nope [1.0]\n    return 1\n')
    result = run_cli("procedures", tmp_path)
    assert result.exit_code == 1
    assert "rulebook.rk:2:" in result.stderr and "Traceback" not in result.stderr
