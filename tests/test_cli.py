"""The command-line contract of PRODUCT.md: check, tables, lookup, resolve, with --json."""

from __future__ import annotations

import json

from conftest import EXAMPLES, RULEBOOKS, cli_json, run_cli

SW = str(RULEBOOKS / "silent_war")
SPEARFISH = str(EXAMPLES / "silent_war" / "spearfish_14_15.toml")


def silent_war_tables() -> list[str]:
    """Table names declared in the Silent War files, read from the text itself."""
    import re

    found = []
    for path in sorted((RULEBOOKS / "silent_war").glob("*.rk")):
        found += re.findall(r"^table (\w+)", path.read_text(encoding="utf-8"), flags=re.M)
    return found


def test_check_json_shape() -> None:
    data = cli_json("check", SW)
    assert set(data) >= {"ok", "errors", "warnings", "tables", "procedures", "provisional"}
    assert data["ok"] is True and data["errors"] == []
    assert data["tables"] == len(silent_war_tables())
    assert data["provisional"] == sum(p["count"] for p in data["provisional_values"]) > 0
    places = {p["what"] for p in data["provisional_values"]}
    assert {"table attack_results", "table counterattack_table", "table area_activity"} <= places


def test_check_text_summarizes_provisional_places() -> None:
    result = run_cli("check", SW)
    assert result.exit_code == 0
    assert "Silent War 2.1: ok" in result.stdout
    assert "provisional value(s) the source does not print" in result.stdout
    assert "combat.rk" in result.stdout and "table counterattack_table" in result.stdout


def test_tables_json_shape() -> None:
    tables = cli_json("tables", SW)
    ultra = next(t for t in tables if t["name"] == "ultra")
    assert ultra == {
        "name": "ultra",
        "rule": "7.1",
        "title": "ULTRA Table",
        "roll": "d10",
        "dimensions": [
            {"name": "war_period", "values": ["WP1", "WP2", "WP3", "WP4"]},
            {"name": "roll", "values": [str(i) for i in range(10)]},
        ],
        "provisional": 0,
    }
    formation = next(t for t in tables if t["name"] == "weather_formation")
    assert formation["roll"] is None
    assert formation["dimensions"][0]["values"][:3] == ["Jan", "Feb", "Mar"]
    attack = next(t for t in tables if t["name"] == "attack_results")
    assert attack["provisional"] == 18


def test_tables_text() -> None:
    result = run_cli("tables", SW)
    assert result.exit_code == 0
    assert "ultra" in result.stdout and "[7.1]" in result.stdout


def test_lookup_by_rule_reference_json() -> None:
    # the issue's own example: rulekit lookup rulebooks/silent_war 7.1 --at war_period=WP3 --roll 2
    data = cli_json("lookup", SW, "7.1", "--at", "war_period=WP3", "--roll", "2")
    assert data["table"] == "ultra" and data["rule"] == "7.1" and data["roll"] == 2
    assert data["result"] == ["Empire Pacific", "Bismarck Sea"]


def test_lookup_cell_kinds_json() -> None:
    assert cli_json("lookup", SW, "weather_formation", "--at", "month=Sep")["result"] == 3
    assert cli_json("lookup", SW, "weather_formation", "--at", "month=Feb")["result"] == "X"
    record = cli_json("lookup", RULEBOOKS / "steel_wolves_like", "T3", "--roll", "20")["result"]
    assert record == {"tonnage": 62300, "type": "BB", "name": "Yamato", "fast": "*", "hits": 7}
    assert (
        cli_json("lookup", RULEBOOKS / "steel_wolves_like", "[E4]", "--roll", "63")["result"]
        == "Fwd Torp EVEN"
    )


def test_lookup_text() -> None:
    result = run_cli("lookup", SW, "ultra", "--at", "war_period=WP3", "--roll", "4")
    assert result.exit_code == 0
    assert "Kuriles, Carolines" in result.stdout


def test_lookup_marks_provisional() -> None:
    data = cli_json("lookup", SW, "attack_results", "--at", "tonnage=3", "--roll", "9")
    assert data["provisional"] is True
    text = run_cli("lookup", SW, "attack_results", "--at", "tonnage=3", "--roll", "9").stdout
    assert "provisional" in text


def test_resolve_json_trace() -> None:
    data = cli_json("resolve", SW, "counterattack", "--given", SPEARFISH, "--dice", "7")
    assert data["procedure"] == "counterattack" and data["rule"] == "14.2"
    assert data["result"] == "Spotted"
    kinds = {e["event"] for e in data["trace"]}
    assert {"call", "total", "lookup", "roll", "set", "return"} <= kinds
    roll = next(e for e in data["trace"] if e["event"] == "roll")
    assert roll["dice"] == "d10" and roll["natural"] == 7 and roll["total"] == 7
    assert roll["rule"] == "14.2 C"
    total = next(
        e for e in data["trace"] if e["event"] == "total" and e["name"] == "japanese_value"
    )
    assert [(t["value"], t["rule"]) for t in total["terms"]] == [
        (1, "14.2 A1"),
        (3, "14.2 A2"),
        (1, "14.2 A3"),
    ]
    assert any("counterattack_table" in p for p in data["provisional_used"])


def test_resolve_decision_in_trace() -> None:
    data = cli_json(
        "resolve", RULEBOOKS / "steel_wolves_like", "A1", "--at", "crew=Elite", "--dice", "2,2"
    )
    roll = data["trace"][0]
    assert roll["natural"] == 4 and roll["total"] == 5
    assert data["result"] == "Successful Crash Dive (no air attack)"


def test_resolve_is_byte_identical_for_a_seed() -> None:
    args = ("resolve", SW, "attack_round", "--given", SPEARFISH, "--seed", "99", "--json")
    first, second = run_cli(*args), run_cli(*args)
    assert first.exit_code == 0
    assert first.stdout == second.stdout
    assert json.loads(first.stdout)["seed"] == 99


def test_resolve_text_prints_result_and_provisional_use() -> None:
    result = run_cli("resolve", SW, "attack_round", "--given", SPEARFISH, "--dice", "1,5,1,5")
    assert result.exit_code == 0
    assert "result: damaged, damaged" in result.stdout
    assert "used provisional values" in result.stdout


def test_version_and_help() -> None:
    assert run_cli("--version").exit_code == 0
    help_text = run_cli("--help").stdout
    for command in ("check", "tables", "lookup", "resolve"):
        assert command in help_text
