"""``rulekit advise`` by situations (rulekit.analysis.advice_situations, the default): runs
that reach the same situation merged, so a whole combat round is advised. Its answers are
checked against the path-by-path engine (an independent enumeration of every path), against
``prob``'s mean where there is no decision, and by hand from the printed charts."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES, RULEBOOKS, run_cli

BOOK = """rulebook "Advice"
dice d6 = 1..6
state score: int = 0
procedure shot -> int [1.0] "Aim, then roll over it"
    choose aim from [1, 2, 3] default 1 [1.1] "Aim"
    let r = roll d6
    return if r.natural > aim then aim else 0
procedure gamble -> int [2.0] "Keep or roll again"
    let r = roll d6
    choose again from [false, true] default false [2.1] "Roll again?"
    if again:
        return roll d6
    return r.natural
procedure rounds -> int [3.0] "Three rounds, a choice in each"
    for each k in range(1, 3):
        choose push from [false, true] default false [3.1] "Push?"
        let r = roll d6
        if push and r >= 4:
            score += 2
        elif not push and r >= 2:
            score += 1
    return score
procedure tie -> int [5.0] "Every option alike"
    choose pick from [1, 2, 3] default 2 [5.1] "pick"
    return 7
procedure reroll -> int [4.0] "Roll until over 3, or stop"
    let r = roll d6
    while r <= 3:
        choose stop from [false, true] default false [4.1] "Stop?"
        if stop:
            return 0
        r = roll d6
    return r
"""


@pytest.fixture
def book(make_rulebook: Callable[..., Path]) -> Path:
    return make_rulebook(BOOK)


def _advise(*args: str) -> dict[str, Any]:
    shown = run_cli("advise", *args, "--json")
    assert shown.exit_code == 0, shown.output
    data: dict[str, Any] = json.loads(shown.stdout)
    return data


def _worths(data: dict[str, Any]) -> list[tuple[str, list[Fraction], str]]:
    """Each decision's name, options' worths and best, in a comparable order."""
    out = [
        (
            d["name"],
            [Fraction(o["value"]["exact"]) for o in d["options"]],
            d["best"],
        )
        for d in data["decisions"]
    ]
    return sorted(out, key=lambda x: (x[0], x[1]))


@pytest.mark.parametrize(
    ("where", "args"),
    [
        ("book", ["shot", "--maximize", "result"]),
        ("book", ["gamble", "--maximize", "result"]),
        ("book", ["gamble", "--minimize", "result"]),
        ("book", ["rounds", "--maximize", "score"]),
        (
            "tutorial",
            ["fire_phase", "--at", "weather=Haze", "--maximize", "if result = sunk then 1 else 0"],
        ),
        (
            "wolves",
            [
                "attack_round",
                "--given",
                str(EXAMPLES / "steel_wolves_like" / "freighter_attack.toml"),
                "--maximize",
                "tonnage_sunk",
            ],
        ),
    ],
)
def test_situations_advise_as_paths_do(book: Path, where: str, args: list[str]) -> None:
    root = {
        "book": str(book),
        "tutorial": str(EXAMPLES / "tutorial"),
        "wolves": str(RULEBOOKS / "steel_wolves_like"),
    }[where]
    by_paths = _advise(root, *args, "--method", "paths")
    by_situations = _advise(root, *args)
    assert by_situations["situations"] is not None and by_paths["situations"] is None
    for key in ("best", "by_default"):
        assert by_situations[key]["exact"] == by_paths[key]["exact"], key
    if args[0] != "rounds":  # decisions met in several rounds merge by situation
        assert _worths(by_situations) == _worths(by_paths)


def test_three_rounds_each_push_only_when_it_pays(book: Path) -> None:
    # A round is worth, pushing, 2 x P(d6 >= 4) = 1, else 1 x P(d6 >= 2) = 5/6: push each
    # round, 3 in all; by default (never push) 3 x 5/6 = 5/2.
    data = _advise(str(book), "rounds", "--maximize", "score")
    assert Fraction(data["best"]["exact"]) == 3
    assert Fraction(data["by_default"]["exact"]) == Fraction(5, 2)
    assert {d["best"] for d in data["decisions"]} == {"yes"}


def test_a_battle_without_decisions_is_worth_its_mean() -> None:
    """No decision: the expected result, as ``prob`` finds it (by its own chain)."""
    battle = str(EXAMPLES / "battle" / "rulebook.rk")
    inputs = ["--at", "attacker=3", "--at", "defender=2"]
    advice = _advise(battle, "battle", *inputs, "--maximize", "result")
    shown = run_cli("prob", battle, "battle", *inputs, "--json")
    assert shown.exit_code == 0, shown.output
    assert advice["best"]["exact"] == json.loads(shown.stdout)["mean"]["p"]
    assert advice["decisions"] == []


def test_a_loop_with_a_decision_is_solved_exactly(book: Path) -> None:
    # reroll: roll until over 3, or stop for 0. Going on, the result is uniform on 4-6: 5.
    # Stopping is worth 0, so to make the most never stop (the default): 5, and the
    # decision is met 1/2 + 1/4 + ... = 1 time on average. To make the least, stop at
    # once: a first roll over 3 gives 15/6 x ... = (4 + 5 + 6) / 6 = 5/2, the rest 0.
    most = _advise(str(book), "reroll", "--maximize", "result")
    assert Fraction(most["best"]["exact"]) == 5 == Fraction(most["by_default"]["exact"])
    # the roll is dead at the decision (`r = roll d6` sets it again before the loop reads
    # it), so every roll of 1-3 meets the decision in one situation, reached 1 time in all
    assert len(most["decisions"]) == 1
    assert sum(Fraction(d["reach"]["exact"]) for d in most["decisions"]) == 1
    for stop in most["decisions"]:
        assert stop["best"] == "no"
        assert [Fraction(o["value"]["exact"]) for o in stop["options"]] == [5, 0]
    least = _advise(str(book), "reroll", "--minimize", "result")
    assert Fraction(least["best"]["exact"]) == Fraction(5, 2)
    assert Fraction(least["by_default"]["exact"]) == 5
    # stopping at once, only the first roll's situations are reached: 1/2 in all
    assert sum(Fraction(d["reach"]["exact"]) for d in least["decisions"]) == Fraction(1, 2)
    for stop in least["decisions"]:
        assert stop["best"] == "yes"
        # going on is worth 15/6 (over 3 at once) + 1/2 x 0 (then stop): 5/2, stopping 0
        values = [Fraction(o["value"]["exact"]) for o in stop["options"]]
        assert values == [Fraction(5, 2), 0]


def test_a_loop_whose_best_play_changes_with_the_round(make_rulebook: Any) -> None:
    # Push on for a gain of 10: each push gains 2 on a d6 of 4-6, nothing on 2-3 (the same
    # situation again: a loop), and loses everything on 1. At 8 pushing is worth 3/4 x 10 =
    # 7.5 < 8: policy iteration must move that decision off its default (push); the worths
    # are checked against a recursion written here.
    root = make_rulebook(
        """rulebook "Push"
dice d6 = 1..6
procedure push_on -> int [1.0]
    let gain = 0
    while gain < 10:
        choose go from [false, true] default true [1.1] "push?"
        if not go:
            return gain
        let r = roll d6
        if r = 1:
            return 0
        if r >= 4:
            gain += 2
    return gain
"""
    )
    data = _advise(str(root), "push_on", "--maximize", "result")

    # worth(g) = max(g, 1/6 x 0 + 2/6 x worth(g) + 3/6 x worth(g + 2)), worth(10) = 10
    def worth(g: int) -> Fraction:
        if g >= 10:
            return Fraction(g)
        going = Fraction(3, 6) * worth(g + 2) / (1 - Fraction(2, 6))
        return max(Fraction(g), going)

    assert Fraction(data["best"]["exact"]) == worth(0)
    assert any(d["best"] == "no" for d in data["decisions"])  # stop at 8
    for d in data["decisions"]:
        values = [Fraction(o["value"]["exact"]) for o in d["options"]]
        assert d["best"] == ("yes" if values[1] >= values[0] else "no")  # a tie: the default


def test_the_spearfish_combat_round_allocation() -> None:
    """[14.15] Spearfish (attack 6, Whitaker +1, Mk-XIV -1) with its column fixed (B): all six
    points on Merchant Ship #1 (2-0, TDC -2, in the adjacent column) is best, as the
    rulebook's default. By hand: attack value 6 against target value 2 (+2 defense, +1
    revealed ASW, -2 TDC, +1 adjacent column) hits on a d10 <= 4 (5/10); the Attack Results
    row 1-4 sinks on 5 or more after the torpedo's -1 (a 6-9: 4/10); the counterattack (5
    against 4: the 1-2 row) damages only on 10 or more, which a d10 with no modifier never
    reaches. So 2 (thousand tons) x 1/2 x 2/5 - 2 x 0 = 2/5."""
    data = _advise(
        str(RULEBOOKS / "silent_war"),
        "combat_round",
        "--given",
        str(EXAMPLES / "silent_war" / "spearfish_14_15.toml"),
        "--decide",
        "column=B",
        "--maximize",
        "tonnage_sunk - 2 * sub.damage",
    )
    assert Fraction(data["best"]["exact"]) == Fraction(2, 5)
    (give,) = data["decisions"]
    assert give["name"] == "give" and give["best"] == "6" and give["default"] == "6"
    assert Fraction(give["options"][6]["value"]["exact"]) == Fraction(2, 5)


def test_the_situation_budget_is_an_error_with_advise_s_own_hint() -> None:
    battle = str(EXAMPLES / "battle" / "rulebook.rk")
    shown = run_cli(
        "advise", battle, "battle", "--at", "attacker=10", "--at", "defender=10",
        "--maximize", "result", "--max-situations", "20",
    )  # fmt: skip
    assert shown.exit_code == 1
    assert "reaches more than 20 situations" in shown.stderr
    # advise cannot sample; it takes --tolerance as prob does (issue 33 §2)
    assert "--decide" in shown.stderr and "--samples" not in shown.stderr
    assert "--tolerance 1e-9" in shown.stderr


EOTS_BASES = """year = 1944
japanese_asp = 3

[[bases]]
name = "Fife"
unit = "Fife"
home_island_ports = 10

[[bases]]
name = "Lockwood (4)"
unit = "Lockwood4"
home_island_ports = 10
"""


def test_eots_which_effect_a_successful_sub_base_takes(tmp_path: Path) -> None:
    """[11.22]/[11.23] Two Sub Bases, each with 10 home island ports in range (SLOC PV =
    round(10 / 5) = 2), in 1944 (SWM 0), Japanese ASP 3. A base succeeds when d10 (0-9) + SWM
    - 2 <= 0: 3/10, or 4/10 once the SWM was reduced. After the first success: reducing the
    ASP leaves 2 (a second success may not reduce it again this turn); reducing the SWM
    leaves 3 - 4/10 = 13/5; neither 3 - 3/10 = 27/10. In all, 3/10 x 2 + 7/10 x (3 - 3/10)
    = 249/100, the rulebook's default (reduce the ASP when it may)."""
    given = tmp_path / "bases.toml"
    given.write_text(EOTS_BASES, encoding="utf-8")
    args = ["submarine_warfare_segment", "--given", str(given), "--minimize", "japanese_asp"]
    data = _advise(str(RULEBOOKS / "eots_submarine_warfare"), *args)
    assert Fraction(data["best"]["exact"]) == Fraction(249, 100)
    assert Fraction(data["by_default"]["exact"]) == Fraction(249, 100)
    by_reach = {Fraction(d["reach"]["exact"]): d for d in data["decisions"]}
    first = by_reach[Fraction(3, 10)]  # the first base succeeds (the runs that did, merged)
    worth = {o["option"]: Fraction(o["value"]["exact"]) for o in first["options"]}
    assert worth == {"reduce_asp": 2, "reduce_swm": Fraction(13, 5), "neither": Fraction(27, 10)}
    assert first["best"] == "reduce_asp"
    # the first fails (7/10), the second succeeds (3/10): the ASP, else it stays at 3
    second = by_reach[Fraction(21, 100)]
    worth = {o["option"]: Fraction(o["value"]["exact"]) for o in second["options"]}
    assert worth == {"reduce_asp": 2, "reduce_swm": 3, "neither": 3}
    paths = _advise(str(RULEBOOKS / "eots_submarine_warfare"), *args, "--method", "paths")
    assert paths["best"] == data["best"]


GATO_NOMI = """campaign_year = 1942

[attacker]
name = "Nomi"
role = "E"
card = "Nomi"
range = 0

[sub]
name = "USS Salmon"
boat = "Salmon"
skill = "Trained"
area = "Solomon Islands"
initiative = "Cautious"
shaken_initiative = "Cautious"
ts = 1
gs = 1
ev = 2
hull = 3
surfaced = false
detected = true
"""


def test_gato_leader_deep_dive_or_ride_out_the_attack(tmp_path: Path) -> None:
    """[§EXAMPLE TURN] "The escort Nomi moves into the same Area as Salmon and attacks. Not
    wanting to Deep Dive again, I decide to try to ride out the attack. Nomi's submerged attack
    rating is 2 Heavy Hits, but Salmon's Evasion rating reduces this to 1 Heavy and 1 Light
    Hit." Expected Hull hits (Flooding counts as one): riding out, the Heavy counter drawn
    from the ten is a Hull or Flooding hit for counters 1, 2, 3 and 9 (4/10), the Light one
    for counter 8 (1/10: the second draw is any counter alike): 1/2. A Deep Dive: a d10
    (1-10) over Evasion 2 floods (8/10), a 10 also holes the hull (1/10): 9/10. Riding it out
    is best, as the rulebook's default (the Hit counters are provisional: cards.rk)."""
    given = tmp_path / "nomi.toml"
    given.write_text(GATO_NOMI, encoding="utf-8")
    args = ["enemy_ship_attack", "--given", str(given), "--minimize", "hull_hits(sub)"]
    data = _advise(str(RULEBOOKS / "gato_leader"), *args)
    (dive,) = data["decisions"]
    worth = {o["option"]: Fraction(o["value"]["exact"]) for o in dive["options"]}
    assert worth == {"no": Fraction(1, 2), "yes": Fraction(9, 10)}
    assert (dive["best"], dive["default"]) == ("no", "no")
    paths = _advise(str(RULEBOOKS / "gato_leader"), *args, "--method", "paths")
    assert paths["best"] == data["best"]


def test_gato_leader_how_many_torpedoes_at_one_target() -> None:
    """USS Salmon's five Ready Torpedoes at the Syoei Maru (1942, two Areas; README). Each
    option's worth is checked against ``prob`` with the decision fixed: path by path (an
    enumeration of every path, nothing merged) for one torpedo, by situations for the
    default, four. All five are best."""
    given = str(EXAMPLES / "gato_leader" / "one_target_attack.toml")
    sunk = "count(s for s in display if s.sunk)"
    gato = str(RULEBOOKS / "gato_leader")
    data = _advise(gato, "submarine_attacks", "--given", given, "--decide", "gun=no",
                   "--maximize", sunk)  # fmt: skip
    torpedoes = next(d for d in data["decisions"] if d["name"] == "torpedoes")
    worth = {o["option"]: Fraction(o["value"]["exact"]) for o in torpedoes["options"]}
    assert (torpedoes["best"], torpedoes["default"]) == ("5", "4")
    assert worth["5"] == max(worth.values()) and list(worth.values()) == sorted(worth.values())
    for k, method in (("1", "paths"), ("4", "situations")):
        shown = run_cli("prob", gato, "submarine_attacks", "--given", given, "--decide",
                        "gun=no", "--decide", f"torpedoes={k}", "--of", sunk, "--method",
                        method, "--max-paths", "200000", "--json")  # fmt: skip
        assert shown.exit_code == 0, shown.output
        assert Fraction(json.loads(shown.stdout)["mean"]["p"]) == worth[k], k
    # one torpedo two Areas away, from the texts (_spread_sinks below): 7/10 run x a d10 of 9-10
    assert worth["1"] == _spread_sinks(1, 2) == Fraction(7, 10) * Fraction(2, 10)


def _spread_sinks(fired: int, at_range: int) -> Fraction:
    """Salmon's spread sinking the Syoei Maru, worked out here from the texts: the 1942 Dud
    column (1 premature, 2-3 all miss, 4-6 one runs, 7-9 half run rounded up, 10 all run),
    the highest of the running d10 + (running - 1) + TS 1 - range, Sunk on 8 or more (the
    card's provisional Hit numbers). A torpedo that circles round hits the Submarine only."""
    sinks = Fraction(0)
    for dud in range(1, 11):
        running = 0 if dud <= 3 else 1 if dud <= 6 else -(-fired // 2) if dud <= 9 else fired
        running = min(running, fired)
        if running == 0:
            continue
        need = 8 - (running - 1) - 1 + at_range  # the highest die needed
        miss_all = Fraction(min(max(need - 1, 0), 10), 10) ** running
        sinks += Fraction(1, 10) * (1 - miss_all)
    return sinks


def test_gato_leader_range_and_torpedoes_over_a_combat_resolution_phase() -> None:
    """USS Salmon, submerged, two Ready Torpedoes, the Syoei Maru three Areas away (README):
    a whole Combat Resolution Phase advised, moving, Lag Movement and the spread. Every
    worth is the chance a spread sinks her at the range it is fired from, worked out from
    the texts (_spread_sinks). Best: move in one Area to range 2 but away from the Convoy
    Wake, then use Speed 0 in Lag Movement, so that the Merchant's Speed carries her two
    Areas on, to range 0; both torpedoes."""
    given = str(EXAMPLES / "gato_leader" / "one_target_approach.toml")
    data = _advise(str(RULEBOOKS / "gato_leader"), "combat_resolution_phase", "--given",
                   given, "--decide", "surfaced=no", "--decide", "zone=Medium Range",
                   "--maximize", "count(s for s in display if s.sunk)")  # fmt: skip
    assert Fraction(data["best"]["exact"]) == _spread_sinks(2, 0) == Fraction(63, 200)
    assert Fraction(data["by_default"]["exact"]) == _spread_sinks(2, 2)
    exit_, areas, to_wake, moved, speed, lag, reload, torpedoes = data["decisions"]
    assert [d["name"] for d in (exit_, moved, lag)] == ["exit", "new_range", "new_range"]

    def worth(d: dict[str, Any]) -> dict[str, Fraction]:
        return {o["option"]: Fraction(o["value"]["exact"]) for o in d["options"]}

    best = _spread_sinks(2, 0)
    assert worth(exit_) == {"no": best, "yes": 0}
    # staying put, Lag Movement brings her to range 2 (the default keeps the range then)
    assert worth(areas) == {"0": _spread_sinks(2, 2), "1": best}
    # 0 Areas from the Convoy Wake, Lag Movement carries her off the display
    assert worth(to_wake) == {"0": 0, "1": _spread_sinks(2, 1), "2": best}
    assert worth(moved) == {str(r): _spread_sinks(2, r - 2) for r in (2, 3, 4)}
    assert worth(speed) == {"0": best, "1": _spread_sinks(2, 1)}
    assert (speed["best"], speed["default"]) == ("0", "1")
    # range 4 is out of torpedo range (3 Areas)
    assert worth(lag) == {**{str(r): _spread_sinks(2, r) for r in range(4)}, "4": 0}
    assert (lag["best"], lag["default"]) == ("0", "2")
    assert worth(reload) == {"no": best, "yes": 0}
    assert worth(torpedoes) == {str(k): _spread_sinks(k, 0) for k in range(3)}
    assert worth(torpedoes)["1"] == Fraction(7, 25)  # 7/10 run x a d10 of 7-10
    assert (torpedoes["best"], torpedoes["default"]) == ("2", "2")


def test_a_tie_goes_to_the_default(book: Path) -> None:
    """Options worth the same: the rulebook's default is the best, not the first."""
    for how in ([], ["--method", "paths"]):
        data = _advise(str(book), "tie", "--maximize", "result", *how)
        (pick,) = data["decisions"]
        assert (pick["best"], pick["default"]) == ("2", "2")


def test_a_loop_the_defaults_never_leave_is_an_error(make_rulebook: Any) -> None:
    root = make_rulebook(
        """rulebook "Forever"
dice d6 = 1..6
procedure forever -> int [1.0]
    let tries = 0
    while true:
        choose stop from [false, true] default false [1.1] "stop?"
        if stop:
            return tries
        let r = roll d6
        if r = 6:
            tries = 1
"""
    )
    shown = run_cli("advise", str(root), "forever", "--maximize", "result")
    assert shown.exit_code == 1 and "Traceback" not in shown.stderr
    assert "can go round for ever" in shown.stderr and "--decide" in shown.stderr
    # with the decision fixed to stop at once, it ends: worth 0
    fixed = _advise(str(root), "forever", "--decide", "stop=yes", "--maximize", "result")
    assert Fraction(fixed["best"]["exact"]) == 0
