"""``rulekit procedures``: what a designer can call, with rule, parameters and types."""

from __future__ import annotations

from pathlib import Path

from conftest import RULEBOOKS, cli_json, run_cli

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


def test_a_chart_code_naming_a_table_and_procedures_takes_the_table() -> None:
    # [7.1] numbers the ULTRA Table and the procedures ultra_roll and intelligence_phase
    book = RULEBOOKS / "silent_war"
    result = run_cli("resolve", book, "7.1", "--at", "war_period=WP2", "--dice", "3")
    assert result.exit_code == 0, result.stderr
    # the printed ULTRA Table [7.1], WP2 row, roll 3
    assert "result: S. China Sea 2, Banda Sea" in result.stdout
    assert "note: rule 7.1 is table ultra; it also numbers procedure ultra_roll" in result.stderr
    prob = run_cli("prob", book, "6.0", "--at", "torpedo=-2", "--at", "ships_sunk=70")
    assert prob.exit_code == 0, prob.stderr
    assert "table torpedo_improvement [6.0]" in prob.stdout
    assert "procedure torpedo_improvement_phase: to run one of those, name it" in prob.stderr
    # a name is never ambiguous: the procedure runs and no note is printed
    named = run_cli("resolve", book, "torpedo_improvement_phase", "--dice", "3")
    assert named.exit_code == 0 and "note: rule" not in named.stderr
