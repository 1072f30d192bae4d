"""Exact distributions by situations (rulekit.analysis.situations) against independent
computations: a battle fought to the end solved by a Markov recursion written here, loops
that repeat a situation, loops cut at a tolerance, and the path-by-path enumeration on every
procedure of two rulebooks that it can finish."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import RULEBOOKS, run_cli

from rulekit.analysis.prob import ask, exact
from rulekit.analysis.situations import TooManySituations, solve_by_situations
from rulekit.book.checker import Checked, load
from rulekit.engine.codegen_blocks import blocks
from rulekit.engine.program import program_for
from rulekit.errors import RulekitError

ROOT = Path(__file__).resolve().parent.parent
BATTLE = str(ROOT / "examples" / "battle" / "rulebook.rk")


@pytest.fixture(scope="module")
def battle() -> Checked:
    return load(BATTLE)


def _round(attacking: int, defending: int) -> dict[tuple[int, int], Fraction]:
    """One round by brute force over every ordered throw: (attacker's loss, defender's)."""
    out: dict[tuple[int, int], int] = {}
    for a in itertools.product(range(1, 7), repeat=attacking):
        for d in itertools.product(range(1, 7), repeat=defending):
            pairs = zip(sorted(a, reverse=True), sorted(d, reverse=True), strict=False)
            lost = sum(1 for x, y in pairs if x <= y)  # a tie goes to the defender
            key = (lost, min(attacking, defending) - lost)
            out[key] = out.get(key, 0) + 1
    total = 6 ** (attacking + defending)
    return {k: Fraction(v, total) for k, v in out.items()}


@cache
def _fought_to_the_end(attacker: int, defender: int) -> dict[int, Fraction]:
    """The attacker's armies left, by recursion over the armies of both sides."""
    if attacker == 0 or defender == 0:
        return {attacker: Fraction(1)}
    out: dict[int, Fraction] = {}
    for (lost, won), p in _round(min(3, attacker), min(2, defender)).items():
        for left, q in _fought_to_the_end(attacker - lost, defender - won).items():
            out[left] = out.get(left, Fraction(0)) + p * q
    return out


@pytest.mark.parametrize(("attacker", "defender"), [(3, 2), (5, 3), (6, 4)])
def test_a_battle_fought_to_the_end_is_exact(battle: Checked, attacker: int, defender: int) -> None:
    dist = exact(battle, ask(battle, "battle", at=[f"attacker={attacker}", f"defender={defender}"]))
    assert {o.value: o.p for o in dist.outcomes} == _fought_to_the_end(attacker, defender)
    # about two situations per pair of armies reached (a round's start, its losses),
    # not one per path of dice
    assert dist.situations is not None
    assert dist.situations <= 2 * (attacker + 1) * (defender + 1) < dist.paths
    assert dist.unresolved == 0


def test_paths_alone_cannot_finish_the_battle(battle: Checked) -> None:
    with pytest.raises(RulekitError, match="more than 5000 paths of dice"):
        exact(battle, ask(battle, "battle"), 5_000, method="paths")


def test_a_situation_that_comes_back_is_solved_as_a_chain(battle: Checked) -> None:
    # roll until a six; the die before it is 0 (none) or 1-5, each 1/6 by symmetry
    dist = exact(battle, ask(battle, "before_six"))
    assert {o.value: o.p for o in dist.outcomes} == {k: Fraction(1, 6) for k in range(6)}
    assert dist.unresolved == 0


def test_a_loop_that_never_repeats_is_cut_at_the_tolerance(battle: Checked) -> None:
    dist = solve_by_situations(battle, ask(battle, "throws_to_six"), tolerance=1e-6)
    found = {o.value: o.p for o in dist.outcomes}
    assert sorted(found) == list(range(1, max(found) + 1))
    for throws, p in found.items():  # geometric: five misses in six, then a six
        assert p == Fraction(5, 6) ** (throws - 1) * Fraction(1, 6)
    # what is left: no six in the first max(found) throws; each situation left unexplored is
    # less likely than the tolerance, their sum may be a little more
    assert dist.unresolved == Fraction(5, 6) ** max(found)
    assert 0 < dist.unresolved < Fraction(1, 10**4)
    assert sum(found.values()) + dist.unresolved == 1


def test_without_a_tolerance_the_situation_budget_stops_it(battle: Checked) -> None:
    with pytest.raises(TooManySituations, match="more than 50 situations"):
        solve_by_situations(battle, ask(battle, "throws_to_six"), max_situations=50)


def test_the_command_line_names_the_budgets_and_keeps_fractions() -> None:
    result = run_cli("prob", BATTLE, "throws_to_six", "--max-situations", "50")
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert "--max-situations" in result.stderr and "--tolerance" in result.stderr
    assert "--samples" in result.stderr
    result = run_cli("prob", BATTLE, "throws_to_six", "--tolerance", "1e-4", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    unresolved = Fraction(data["unresolved"]["p"])
    assert 0 < unresolved < Fraction(1, 10**2) and data["situations"] > 1
    assert sum(Fraction(o["p"]) for o in data["outcomes"]) + unresolved == 1
    shown = run_cli("prob", BATTLE, "throws_to_six", "--tolerance", "1e-4")
    assert "unresolved: p = " in shown.stdout and "situation(s)" in shown.stdout


def test_a_battle_of_ten_against_ten_on_the_command_line() -> None:
    # the README's example; the numbers from the recursion above
    at = ("--at", "attacker=10", "--at", "defender=10")
    result = run_cli("prob", BATTLE, "battle", *at, "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    found = {o["value"]: Fraction(o["p"]) for o in data["outcomes"]}
    assert found == _fought_to_the_end(10, 10)
    assert sorted(found) == list(range(11))  # the attacker can end with 0 to 10 armies


@pytest.mark.parametrize("book", ["gato_leader", "attack_sub"])
def test_every_procedure_agrees_with_the_paths_it_can_enumerate(book: str) -> None:
    checked = load(str(RULEBOOKS / book))
    compared = 0
    for name, decl in checked.book.procedures.items():
        if decl.params:
            continue
        try:
            paths = exact(checked, ask(checked, name), 2_000, method="paths")
        except RulekitError:
            continue  # too many paths, or it needs inputs: nothing to compare with
        merged = exact(checked, ask(checked, name))
        assert [(repr(o.value), o.p) for o in merged.outcomes] == [
            (repr(o.value), o.p) for o in paths.outcomes
        ], name
        assert set(merged.provisional_used) == set(paths.provisional_used), name
        compared += 1
    assert compared >= 5


def test_the_combat_round_agrees_with_its_paths(silent_war: Checked) -> None:
    given = str(ROOT / "examples" / "silent_war" / "spearfish_14_15.toml")
    for of in (None, "sub.damage"):
        paths = exact(
            silent_war, ask(silent_war, "combat_round", given=given, of=of), method="paths"
        )
        merged = exact(silent_war, ask(silent_war, "combat_round", given=given, of=of))
        assert merged.outcomes == paths.outcomes
        assert merged.situations is not None and merged.paths < paths.paths


def test_decide_answers_go_in_order_in_every_situation(make_rulebook) -> None:  # type: ignore[no-untyped-def]
    root = make_rulebook(
        """rulebook "twice"
dice d6 = 1..6

procedure twice -> int
    choose first from [1, 2] default 1 "dice first"
    let a = roll first d6
    choose second from [1, 2] default 1 "dice second"
    return a + (roll second d6)
"""
    )
    checked = load(str(root))
    # --decide first=2 --decide second=... : each decision its own answers
    q = ask(checked, "twice", decide=["first=2", "second=2"])
    dist = exact(checked, q)
    assert dist.mean == 14  # four dice
    assert exact(checked, ask(checked, "twice", decide=["first=2"])).mean == Fraction(21, 2)


KEEP_BOOK = """rulebook "keep"
dice d6 = 1..6

procedure lowest_plus_one -> int
    return roll lowest of 4 d6 + 1

procedure sixes -> int
    let r = roll highest of 3 d6
    return count(d for d in r.dice if d = 6)
"""


def test_a_keep_roll_is_thrown_as_the_value_kept(make_rulebook) -> None:  # type: ignore[no-untyped-def]
    checked = load(str(make_rulebook(KEEP_BOOK)))
    dist = exact(checked, ask(checked, "lowest_plus_one"))
    assert dist.paths == 6  # the lowest of four d6 is 1..6: six outcomes, not 126 multisets
    brute: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=4):
        brute[min(faces) + 1] = brute.get(min(faces) + 1, Fraction(0)) + Fraction(1, 6**4)
    assert {o.value: o.p for o in dist.outcomes} == brute


def test_a_keep_roll_whose_faces_are_read_is_thrown_die_by_die(make_rulebook) -> None:  # type: ignore[no-untyped-def]
    checked = load(str(make_rulebook(KEEP_BOOK)))
    dist = exact(checked, ask(checked, "sixes"))
    brute: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=3):
        brute[faces.count(6)] = brute.get(faces.count(6), Fraction(0)) + Fraction(1, 6**3)
    assert {o.value: o.p for o in dist.outcomes} == brute


CALM_BOOK = """rulebook "Calm"
dice d6 = 1..6
procedure draw_on(r: int) -> int [1.1]
    return if r >= 4 then 1 else 0
procedure twice -> int [1.0] "A roll only compared, then a second roll"
    let r = roll d6
    let hit = draw_on(r)
    let more = hit + 1
    let s = roll d6
    return more + (if s = 6 then 10 else 0)
"""


def test_a_run_goes_on_through_calm_statements(make_rulebook) -> None:  # type: ignore[no-untyped-def]
    """After the first roll the two lets only compute: the run goes on through them, and
    the situation before the second roll keeps `more` (two values), not `r` (six)."""
    checked = load(str(make_rulebook(CALM_BOOK)))
    code = blocks(program_for(checked), checked.book.procedures["twice"])
    order = sorted(range(len(code.calm)), key=lambda k: -k)  # blocks are numbered last first
    assert [code.calm[k] for k in order] == [False, True, True, False, True]
    dist = exact(checked, ask(checked, "twice"))
    # the start, and one situation per value of `more` before the second roll
    assert dist.situations == 3
    brute: dict[int, Fraction] = {}
    for r, s in itertools.product(range(1, 7), repeat=2):
        value = (1 if r >= 4 else 0) + 1 + (10 if s == 6 else 0)
        brute[value] = brute.get(value, Fraction(0)) + Fraction(1, 36)
    assert {o.value: o.p for o in dist.outcomes} == brute


def test_the_gato_spread_is_ten_outcomes() -> None:
    gato = load(str(RULEBOOKS / "gato_leader"))
    at = ["fired=6", "year=1943", "skill=0", "target_range=0", "torpedo=mk27"]
    dist = exact(gato, ask(gato, "torpedo_spread", at=at))
    # one run to the return, then its value: keep-highest of six d10 grouped by the value
    # kept (analysis.lift)
    assert dist.paths == 1 + 10
    # the highest of six d10 is v in v^6 - (v-1)^6 of 10^6 throws; +5 for the spread and
    # the Mk 27 (+2) at skill 0 and range 0
    assert {o.value: o.p for o in dist.outcomes} == {
        v + 7: Fraction(v**6 - (v - 1) ** 6, 10**6) for v in range(1, 11)
    }


def test_an_error_in_a_block_names_its_rule(tmp_path: Path) -> None:
    """A block is entered after a situation is restored, whatever rule the last run left in
    force: its statements set their own (generated code elides a reference already set, but
    never across blocks)."""
    book = tmp_path / "refs.rk"
    book.write_text(
        'rulebook "Refs"\ndice d6 = 1..6\n'
        'procedure p(n: int = 0) -> number [1.0] "two statements under one rule"\n'
        "    let a = roll d6\n"
        "    let b = 6 / (n - n)\n"
        "    return a + b\n",
        encoding="utf-8",
    )
    shown = run_cli("prob", str(book), "p")
    assert shown.exit_code == 1
    assert "division by zero" in shown.stderr and "[1.0]" in shown.stderr


NESTED = """rulebook "Nested"
dice d6 = 1..6
state hits: int = 0
procedure hit(need: int) -> int [1.1] "one shot"
    let r = roll d6
    if r >= need:
        hits += 1
        return 1
    return 0
procedure aimed -> int [1.2] "a shot whose aim is chosen"
    choose need from [3, 5] default 3 [1.3] "aim"
    let got = hit(need)
    return got * (need - 2)
procedure countdown(n: int) -> int [1.4] "a shot, then the same again with one fewer"
    if n <= 0:
        return 0
    let first = hit(4)
    let rest = countdown(n - 1)
    return first + rest
procedure volley -> int [1.0] "shots by calls"
    let a = hit(4)
    hit(5)
    let b = aimed()
    let c = countdown(2)
    return a * 100 + b * 10 + c + hits
"""


def test_calls_run_as_blocks_give_what_every_path_gives(tmp_path: Path) -> None:
    """A procedure called as a statement (``let x = p(...)`` or ``p(...)``) that throws dice
    or decides runs as blocks of its own, in its own frame (also when it calls itself):
    the distribution equals path-by-path enumeration's, and situations merge inside calls."""
    book = tmp_path / "nested.rk"
    book.write_text(NESTED, encoding="utf-8")
    checked = load(str(book))
    question = ask(checked, "volley")
    by_paths = exact(checked, question, method="paths")
    by_situations = solve_by_situations(checked, question)
    assert [(o.value, o.p) for o in by_situations.outcomes] == [
        (o.value, o.p) for o in by_paths.outcomes
    ]
    assert by_situations.situations is not None and by_situations.paths < by_paths.paths
    for goal in ("result", "hits"):
        advised = [
            json.loads(
                run_cli("advise", str(book), "volley", "--maximize", goal, *how, "--json").stdout
            )
            for how in ([], ["--method", "paths"])
        ]
        assert advised[0]["best"] == advised[1]["best"] and advised[0]["situations"]


@pytest.mark.parametrize(
    ("body", "context"),
    [
        ("    let r = roll d6\n    return 10 / (r - r)\n", "  in procedure p [1.0]\n"),
        # a value worked out as a distribution (analysis.lift) fails as a run does
        ("    let x = nth([5, 6], roll d6 - 1) [1.2]\n    return x\n", ", rule [1.2]\n"),
    ],
)
def test_a_runtime_error_reads_the_same_by_either_method(
    make_rulebook: Any, body: str, context: str
) -> None:
    # the context line names the procedure and its rule, as a run does, by situations too
    root = make_rulebook('rulebook "Ctx"\ndice d6 = 1..6\nprocedure p -> number [1.0] "p"\n' + body)
    shown = {m: run_cli("prob", str(root), "p", "--method", m) for m in ("situations", "paths")}
    for result in shown.values():
        assert result.exit_code == 1 and "Traceback" not in result.stderr
        assert "  in procedure p [1.0]" in result.stderr and context in result.stderr
    assert shown["situations"].stderr == shown["paths"].stderr
