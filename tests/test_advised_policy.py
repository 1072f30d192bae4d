"""``--policy advised:EXPR`` (issue 14 §2): at each decision, the option worth the most EXPR.

The game below is small enough to work every expected value out by hand; each is in the
comment beside the assert.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES, run_cli

from rulekit.analysis.advised import AdvisedPolicy, make_advised
from rulekit.book.checker import load
from rulekit.play.runner import new_game

BOOK = """rulebook "Aim" edition "1" scenario "range"
dice d6 = 1..6
state score: int = 0
state misses: int = 0
state wind: int = 0

procedure shoot [1.0] "Shoot"
    wind = roll d6                                                      [1.1]
    choose aim from [1, 2, 3] default 1 [1.2] "How far to aim"
    if roll d6 >= wind + aim [1.3]:
        score += aim
        choose again from [false, true] default false [1.4] "Shoot again?"
        if again:
            if roll d6 >= 4 [1.5]:
                score += 2
            else:
                score -= 1
    else:
        misses += 1

procedure later [3.0] "A decision after the dice"
    choose stake from [1, 2] default 1 [3.1] "Stake"
    let a = roll d6
    let b = roll d6
    choose bonus from [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] default 1 [3.2] "Bonus"
    score += stake * (a + b) + bonus

procedure risky [4.0] "A path that breaks a rule"
    choose careful from [true, false] default true [4.1] "Careful?"
    let r = roll d6
    require careful or r < 6 else "a reckless 6 breaks the rule"
    score += 1

procedure wild [2.0] "Four dice after the decision"
    choose bet from [1, 2] default 1 [2.1] "Bet"
    let a = roll d6
    let b = roll d6
    let c = roll d6
    let d = roll d6
    score += bet * (a + b + c + d)

procedure streak [7.0] "Six dice added up after the decision"
    choose bet from [1, 2] default 1 [7.1] "Bet"
    let total = 0
    for each k in range(1, 6):
        total += roll d6
    score += bet * total

sequence turn [0.0] "Turn"
    phase shoot [1.0]
"""

SCENARIO = """[scenario]
title = "The range"
turns = 3
summary = ["score", "misses"]
"""


@pytest.fixture
def book(make_rulebook: Callable[..., Path]) -> Path:
    return make_rulebook(BOOK, **{"scenarios__range.toml": SCENARIO})


def _decisions(trace: Path) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return [e for e in events if e.get("event") == "decision"]


def _run(book: Path, tmp_path: Path, policy: str, *more: str) -> list[dict[str, Any]]:
    trace = tmp_path / "trace.jsonl"
    result = run_cli("run", book, "--policy", policy, "--trace", trace, *more)
    assert result.exit_code == 0, result.output
    return _decisions(trace)


@pytest.mark.parametrize(
    ("wind", "aim", "by"),
    [
        # aim a after wind w hits when a d6 >= w + a, (7 - w - a) / 6 of the time, and
        # scores a; then a second shot is worth 2 * 1/2 - 1 * 1/2 = +1/2, so at its best it
        # is taken: a hit is worth a + 1/2, and aim a (a + 1/2) * (7 - w - a) / 6.
        # wind 1: 1.5*5/6 = 1.25, 2.5*4/6 = 1.667, 3.5*3/6 = 1.75 -> aim 3
        (1, 3, "advised: worth 1.75, the default 1.25"),
        # wind 3: 1.5*3/6 = 0.75, 2.5*2/6 = 0.8333, 3.5*1/6 = 0.5833 -> aim 2
        (3, 2, "advised: worth 0.8333, the default 0.75"),
        # wind 5: 1.5*1/6 = 0.25, 0, 0 -> the default, aim 1
        (5, 1, "advised: worth 0.25"),
    ],
)
def test_the_option_worth_most_after_the_dice_already_thrown(
    book: Path, tmp_path: Path, wind: int, aim: int, by: str
) -> None:
    decisions = _run(
        book, tmp_path, "advised:score", "--turns", "1", "--dice", str(wind), "--seed", "1"
    )
    assert decisions[0]["name"] == "aim"
    assert decisions[0]["choice"] == aim
    assert decisions[0]["by"] == by


def test_a_later_decision_is_advised_when_it_is_reached(book: Path, tmp_path: Path) -> None:
    # wind 1, aim 3 (above), the shot hits (6 >= 4): score 3. Shooting again is worth
    # 3 + 2 * 3/6 - 1 * 3/6 = 3.5 against 3: taken although the rulebook's default is no
    decisions = _run(
        book, tmp_path, "advised:score", "--turns", "1", "--dice", "1,6,2", "--seed", "1"
    )
    again = decisions[1]
    assert again["name"] == "again" and again["choice"] is True
    assert again["by"] == "advised: worth 3.5, the default 3"


def test_minimizing_takes_the_other_end(book: Path, tmp_path: Path) -> None:
    # the fewest points: aim 3 after wind 5 scores nothing (a d6 never reaches 8)
    decisions = _run(
        book, tmp_path, "advised:min:score", "--turns", "1", "--dice", "5", "--seed", "1"
    )
    assert decisions[0]["choice"] == 2  # 2 and 3 are both worth 0; the earlier is taken
    # misses counted: every option of aim after wind 5 but 1 misses for sure
    decisions = _run(book, tmp_path, "advised:misses", "--turns", "1", "--dice", "5", "--seed", "1")
    assert (
        decisions[0]["choice"] == 2 and decisions[0]["by"] == "advised: worth 1, the default 0.8333"
    )


def _decided(checked: Any, policy: AdvisedPolicy, procedure: str, *names: str) -> list[Any]:
    game = new_game(checked, None, 1, f"advised:{policy.goal}", policy)
    game.interp.call(procedure, {})
    return [e for e in game.interp.trace.events if getattr(e, "name", "") in names]


def test_over_the_path_budget_a_decision_is_looked_ahead_by_situations(book: Path) -> None:
    checked = load(str(book))
    # bet b is worth b x 6 x 3.5: 42 against 21. Path by path that is 2 x 6^6 runs, over the
    # budget of 1,000; from where the game stands, by situations (the bet and the running
    # total of the dice thrown so far), a few hundred
    deep = AdvisedPolicy(checked, "score", max_situations=1_000)
    (bet,) = _decided(checked, deep, "streak", "bet")
    assert bet.choice == 2 and bet.by == "advised: worth 42, the default 21"
    # unless asked for (advised:situations:EXPR), over the path budget is the default
    (bet,) = _decided(checked, AdvisedPolicy(checked, "score"), "streak", "bet")
    assert bet.choice == 1 and bet.by == "advised: default, more than 1000 paths"


def test_advised_situations_on_the_command_line(book: Path, tmp_path: Path) -> None:
    checked = load(str(book))
    policy = make_advised(checked, "advised:situations:min:score")
    assert policy.max_situations > 0 and policy.worth.minimize
    (bet,) = _decided(checked, policy, "streak", "bet")
    assert bet.choice == 1 and bet.by == "advised: worth 21"  # the least: bet 1
    # the run's own phase, shoot, is small enough to go path by path as before
    decisions = _run(book, tmp_path, "advised:situations:score", "--seed", "1", "--turns", "2")
    assert decisions and all(d["by"].startswith("advised: ") for d in decisions)


def test_over_the_path_budget_the_default_is_taken(book: Path) -> None:
    checked = load(str(book))
    # 2 options x 6^4 paths of dice is more than the budget of 1,000 runs, and the four
    # dice, each kept in its own local, make more than the 1,000 situations allowed
    (decision,) = _decided(checked, AdvisedPolicy(checked, "score"), "wild", "bet")
    assert decision.choice == 1
    assert decision.by == "advised: default, more than 1000 paths"
    small = AdvisedPolicy(checked, "score", max_paths=3_000)
    (decision,) = _decided(checked, small, "wild", "bet")
    assert decision.choice == 2  # worth 2 * 4 * 3.5 = 28 against 14
    assert decision.by == "advised: worth 28, the default 14"


def test_over_the_budget_with_later_decisions_at_their_best_they_stay_at_defaults(
    book: Path,
) -> None:
    checked = load(str(book))
    # 2 stakes x 36 dice x 10 bonuses = 720 runs at their best, over a budget of 100; with
    # the bonus at its default 1, 72 runs: stake s is worth 7s + 1
    policy = AdvisedPolicy(checked, "score", max_paths=100)
    stake, bonus = _decided(checked, policy, "later", "stake", "bonus")
    assert stake.choice == 2
    assert stake.by == "advised: worth 15, the default 8 (later decisions at their defaults)"
    # the bonus, once the dice are thrown: 10 runs, and 10 is worth the most
    assert bonus.choice == 10


def test_a_look_ahead_that_breaks_a_rule_leaves_the_default(book: Path) -> None:
    # a path of the replay (not careful, then a 6) stops on the rulebook's `require`: the
    # options cannot be valued, the game takes the default and goes on
    checked = load(str(book))
    game = new_game(checked, None, 1, "advised:score", AdvisedPolicy(checked, "score"))
    game.interp.call("risky", {})
    (careful,) = [e for e in game.interp.trace.events if getattr(e, "name", "") == "careful"]
    assert careful.choice is True
    assert (
        careful.by == "advised: default, a run stopped: a reckless 6 breaks the rule (rule [4.0])"
    )
    assert game.interp.state.values["score"] == 1


def test_a_saved_advised_game_goes_on_as_if_never_stopped(book: Path, tmp_path: Path) -> None:
    whole = run_cli("run", book, "--policy", "advised:score", "--seed", "4", "--json")
    assert whole.exit_code == 0, whole.output
    save = tmp_path / "game.json"
    first = run_cli(
        "run", book, "--policy", "advised:score", "--seed", "4", "--turns", "1", "--save", save
    )
    assert first.exit_code == 0, first.output
    rest = run_cli("run", book, "--resume", save, "--json")
    assert rest.exit_code == 0, rest.output
    assert json.loads(rest.stdout)["final"] == json.loads(whole.stdout)["final"]


def test_a_trace_of_an_advised_game_replays(book: Path, tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    ran = run_cli("run", book, "--policy", "advised:score", "--seed", "8", "--trace", trace)
    assert ran.exit_code == 0, ran.output
    replayed = run_cli("replay", trace, "--rulebook", book)
    assert replayed.exit_code == 0, replayed.output


def test_simulate_plays_advised(book: Path) -> None:
    advised = run_cli("simulate", book, "--runs", "20", "--policy", "advised:score", "--json")
    default = run_cli("simulate", book, "--runs", "20", "--json")
    assert advised.exit_code == 0 and default.exit_code == 0, advised.output + default.output

    def mean(out: str) -> float:
        (score,) = [s for s in json.loads(out)["stats"] if s["name"] == "score"]
        return float(score["mean"])

    assert mean(advised.stdout) > mean(default.stdout)


@pytest.mark.parametrize(
    ("goal", "message"),
    [
        ("advised:", "advised: needs a goal"),
        ("advised:score +", "the expression ends too early"),
        ("advised:sub.damage", "unknown name 'sub'"),
        # shoot returns nothing: its result is no number (the policy's option, not advise's)
        (
            "advised:result",
            "--policy: error: result gives none, not a number, after procedure 'shoot'",
        ),
    ],
)
def test_a_goal_that_cannot_be_read_is_an_error(book: Path, goal: str, message: str) -> None:
    result = run_cli("run", book, "--policy", goal, "--turns", "1")
    assert result.exit_code == 1
    assert message in result.stderr and "Traceback" not in result.stderr


def test_the_tutorial_game_advised(tmp_path: Path) -> None:
    # Harbour Raid [3.2]: the nearest range is the best for sinking raiders, the farthest
    # for sparing them
    for goal, aim in (("advised:ships_sunk", 1), ("advised:min:ships_sunk", 3)):
        decisions = _run(EXAMPLES / "tutorial", tmp_path, goal, "--seed", "2", "--turns", "2")
        assert {d["choice"] for d in decisions} == {aim}


def test_the_python_api_plays_advised_as_the_command_line(book: Path) -> None:
    import rulekit

    played = rulekit.load(book).play(seed=6, policy="advised:score")
    ran = run_cli("run", book, "--seed", "6", "--policy", "advised:score", "--json")
    assert ran.exit_code == 0, ran.output
    assert played.final == json.loads(ran.stdout)["final"]


def _play(book: Path, answers: list[str], seed: int = 1) -> list[str]:
    from rulekit.play.interactive import PlaySession, start_save

    checked = load(str(book))
    lines: list[str] = []
    given = iter(answers)

    def read(prompt: str) -> str:
        try:
            return next(given)
        except StopIteration:
            raise EOFError from None

    session = PlaySession(checked, start_save(checked, str(book), None, seed), read, lines.append)
    session.run()
    return lines


def test_advise_at_a_play_prompt(book: Path, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("RULEKIT_PLAY_DIR", str(tmp_path / "play"))
    # seed 1 throws a wind of 2 first: aim a hits on a d6 >= 2 + a, (5 - a) / 6 of the
    # time, and a hit is worth a + 1/2 with the second shot at its best (as above):
    # 1.5*4/6 = 1, 2.5*3/6 = 1.25, 3.5*2/6 = 1.167
    lines = _play(book, ["advise score", "advise min:score", "advise misses +", "3"])
    shown = "\n".join(lines)
    assert "expected score (most is best; later decisions at their best):" in shown
    assert "  #1 1: 1" in lines and "  #2 2: 1.25  <- advised" in lines
    assert "  #3 3: 1.167" in lines
    # the least: the second shot at its best is then not taken, a hit is worth a:
    # 4/6, 6/6, 6/6
    assert "  #1 1: 0.6667  <- advised" in lines
    assert "the expression ends too early" in shown
    # the first `advise` plays the game again to follow its procedures; once
    assert shown.count("advise: playing the game again") == 1
    assert "Traceback" not in shown
