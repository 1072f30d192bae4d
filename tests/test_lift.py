"""One run per class of outcomes (rulekit.analysis.lift): a ``let`` whose value throws dice
is worked out as a distribution, and the rest of the procedure runs once per distinct
value. Each answer here is checked against the path-by-path enumeration or a computation
written in the test; the counts of runs against the combinations worked out by hand."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from conftest import run_cli
from test_situations import _fought_to_the_end

from rulekit.analysis.prob import ask, exact
from rulekit.book.checker import Checked, load
from rulekit.engine.codegen_blocks import blocks
from rulekit.engine.program import program_for

ROOT = Path(__file__).resolve().parent.parent
BATTLE = str(ROOT / "examples" / "battle" / "rulebook.rk")


def _book(make_rulebook: Any, text: str) -> Checked:
    return load(str(make_rulebook(text)))


def _same(checked: Checked, name: str, **kw: Any) -> Any:
    """The distribution by situations, after checking it against every path of dice."""
    merged = exact(checked, ask(checked, name, **kw))
    paths = exact(checked, ask(checked, name, **kw), method="paths")
    assert [(repr(o.value), o.p) for o in merged.outcomes] == [
        (repr(o.value), o.p) for o in paths.outcomes
    ]
    assert set(merged.provisional_used) == set(paths.provisional_used)
    return merged


def test_a_battle_round_runs_once_per_pair_of_rolls_not_per_situation() -> None:
    battle = load(BATTLE)
    dist = exact(battle, ask(battle, "battle", at=["attacker=3", "defender=2"]))
    # the rounds' losses worked out once for each pair of rolls: 3 d6 against 2 d6 is 56
    # multisets x 21 = 1,176 applications of attacker_losses, and 2 against 2, 1 against 2,
    # 3 against 1, ... are fewer; path by path each situation would run all of its own
    assert dist.paths < 3_000
    assert {o.value: o.p for o in dist.outcomes} == _fought_to_the_end(3, 2)


def test_the_ten_against_ten_battle_is_a_few_thousand_runs() -> None:
    battle = load(BATTLE)
    dist = exact(battle, ask(battle, "battle", at=["attacker=10", "defender=10"]))
    # 1,176 + 336 + 441 + 126 + 126 + 36 + 21 ... pairs of rolls, each worked out once,
    # plus the rolls themselves: far from the 111,373 runs the paths between situations took
    assert dist.paths < 5_000
    assert sum(o.p for o in dist.outcomes) == 1


def test_only_values_that_can_only_compute_are_lifted(make_rulebook: Any) -> None:
    checked = _book(
        make_rulebook,
        """rulebook "Lifts"
dice d6 = 1..6
state s: int = 0
procedure bump -> int [1.0]
    s += 1
    return roll d6
procedure p -> int [2.0]
    let a = roll d6 + 1
    let b = max(roll d6, a)
    let c = bump()
    let d = a + 1
    choose e from [1, 2] default 1 "pick"
    let f = roll e d6
    return a + b + c + d + f
""",
    )
    program = blocks(program_for(checked), checked.book.procedures["p"])
    lifted = {lift.name or lift.kind for lift in program.lifts.values()}
    # c changes the state (and runs as blocks of its own); d throws nothing; e decides;
    # the return throws nothing
    assert lifted == {"a", "b", "f"}


def test_pieces_alike_in_every_field_stay_two_outcomes(make_rulebook: Any) -> None:
    checked = _book(
        make_rulebook,
        """rulebook "Twins"
dice d2 = 0..1
kind ship
    hits: int
state fleet: list of ship = [] [1.0]
procedure p -> int [2.0]
    fleet = [ship(hits: 0), ship(hits: 0)]
    let target = nth(fleet, roll d2)
    target.hits += 1
    return first(fleet).hits * 10 + last(fleet).hits
""",
    )
    dist = _same(checked, "p")
    assert {o.value: o.p for o in dist.outcomes} == {1: Fraction(1, 2), 10: Fraction(1, 2)}


def test_a_table_and_a_modifier_total_merge_by_value(make_rulebook: Any) -> None:
    checked = _book(
        make_rulebook,
        """rulebook "Rows"
dice d6 = 1..6
table t [1.0]: roll 2d6 -> text
    2-6  | low
    7    | ~"not printed" middle
    8-12 | high
modifiers m(x: int) [1.1]
    +1 if x >= 4 [1.1 A]
procedure p -> text [2.0]
    let row = t(roll: roll 2d6)
    let shift = (roll d6) + m(roll d6)
    return "{row} {shift}"
""",
    )
    dist = _same(checked, "p")
    assert dist.provisional_used  # the ~ cell, noted as a run notes it
    # 2d6 is 21 multisets, each looked up once: three rows; d6 + m(d6) is 6 x 6 pairs,
    # each applied once; the rest runs once per (row, total): 3 x 8
    assert dist.paths <= 21 + 3 + 6 + 6 + 36 + 3 + 1 + 3 * 8
    rows = {"low": Fraction(15, 36), "middle": Fraction(6, 36), "high": Fraction(15, 36)}
    shifts: dict[int, Fraction] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            shifts[a + (b >= 4)] = shifts.get(a + (b >= 4), Fraction(0)) + Fraction(1, 36)
    want = {f"{r} {k}": p * q for r, p in rows.items() for k, q in shifts.items()}
    assert {o.value: o.p for o in dist.outcomes} == want


def test_a_keep_roll_whose_faces_are_read_in_a_lifted_value(make_rulebook: Any) -> None:
    checked = _book(
        make_rulebook,
        """rulebook "Faces"
dice d6 = 1..6
procedure p -> int [2.0]
    let r = roll highest of 2 d6
    let low = min(r.dice) + r
    return low
""",
    )
    dist = _same(checked, "p")
    want: dict[int, Fraction] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            want[min(a, b) + max(a, b)] = want.get(min(a, b) + max(a, b), 0) + Fraction(1, 36)
    assert {o.value: o.p for o in dist.outcomes} == want


def test_too_many_combinations_is_the_paths_budget(make_rulebook: Any) -> None:
    root = make_rulebook(
        """rulebook "Wide"
dice d6 = 1..6
procedure p -> int [2.0]
    let a = max(roll d6, roll d6, roll d6, roll d6)
    return a
"""
    )
    result = run_cli("prob", str(root), "p", "--max-paths", "100")
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert "has more than 100 paths of dice" in result.stderr and "--samples" in result.stderr
    assert run_cli("prob", str(root), "p").exit_code == 0


def test_a_sum_is_thrown_as_its_total_and_die_by_die_where_its_faces_are_read(
    make_rulebook: Any,
) -> None:
    checked = _book(
        make_rulebook,
        """rulebook "Sums"
dice d6 = 1..6
procedure total -> int [1.0]
    return roll 2d6
procedure spread -> int [2.0]
    let r = roll 2d6
    return max(r.dice) - min(r.dice)
""",
    )
    total = _same(checked, "total")
    assert total.paths == 11  # 2..12, not the 21 multisets
    assert {o.value: o.p for o in total.outcomes} == {
        k: Fraction(6 - abs(k - 7), 36) for k in range(2, 13)
    }
    spread = _same(checked, "spread")
    assert {o.value: o.p for o in spread.outcomes} == {
        0: Fraction(6, 36),
        **{k: Fraction(2 * (6 - k), 36) for k in range(1, 6)},
    }


def test_an_if_and_a_while_branch_once_per_way_taken(make_rulebook: Any) -> None:
    checked = _book(
        make_rulebook,
        """rulebook "Ways"
dice d6 = 1..6
procedure until_six -> int [1.0]
    let n = 0
    while roll d6 < 6:
        n += 1
        if n >= 3:
            return n
    return n
procedure pick -> text [2.0]
    if roll d6 = 6:
        return "six"
    elif roll d6 >= 4:
        return "high"
    return "low"
""",
    )
    for name in ("until_six", "pick"):
        program = blocks(program_for(checked), checked.book.procedures[name])
        assert "branch" in {lift.kind for lift in program.lifts.values()}
    until = _same(checked, "until_six")
    p = Fraction(5, 6)  # a throw under 6
    assert {o.value: o.p for o in until.outcomes} == {
        0: 1 - p,
        1: p * (1 - p),
        2: p**2 * (1 - p),
        3: p**3,
    }
    pick = _same(checked, "pick")
    assert {o.value: o.p for o in pick.outcomes} == {
        "six": Fraction(1, 6),
        "high": Fraction(5, 12),
        "low": Fraction(5, 12),
    }
    # the if's rolls, 1 path on a six and 5 x 6 otherwise (the elif's die thrown only
    # then), make three ways: a run after it for each
    assert pick.paths == 1 + 5 * 6 + 3


def test_a_roll_with_more_outcomes_than_the_budget_is_refused_before_they_are_made(
    make_rulebook: Any,
) -> None:
    # 25 d10 whose faces are read: 52,451,256 multisets, refused before any is made (a
    # gigabyte and minutes otherwise); their total alone is 226 outcomes and fine
    root = make_rulebook(
        """rulebook "Big"
dice d10 = 1..10
procedure total -> int [1.0]
    return roll 25 d10
procedure top -> int [2.0]
    let r = roll 25 d10
    return max(r.dice)
"""
    )
    for method in ("situations", "paths"):
        shown = run_cli("prob", str(root), "top", "--method", method)
        assert shown.exit_code == 1 and "Traceback" not in shown.stderr
        assert "a roll of 25 d10 has 52,451,256 outcomes" in shown.stderr
        assert "--max-paths" in shown.stderr and "--samples" in shown.stderr
    shown = run_cli("advise", str(root), "top", "--maximize", "result")
    assert shown.exit_code == 1 and "52,451,256 outcomes" in shown.stderr
    total = run_cli("prob", str(root), "total", "--json")
    assert total.exit_code == 0 and len(json.loads(total.stdout)["outcomes"]) == 226
