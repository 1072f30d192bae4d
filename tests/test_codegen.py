"""Procedures generated as Python source (rulekit.engine.codegen) against the closures.

One engine: the generated code must write byte-identical JSON traces. Here a sample of
seeds of every bundled scenario; bench/differential.py plays hundreds. The generated engine
is the default; the whole suite also runs under the closures alone (RULEKIT_ENGINE=closures).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import attrs
import pytest
from conftest import EXAMPLES, RULEBOOKS, run_cli

from rulekit.book.checker import Checked, load
from rulekit.engine import codegen
from rulekit.engine.dice import SeededDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.session import resolve
from rulekit.errors import RuleRuntimeError
from rulekit.language import nodes as n
from rulekit.play.differential import engine, played

SCENARIOS = [
    ("silent_war", "short_campaign", 1),
    ("silent_war", "patrol", 2),
    ("gato_leader", None, 2),
    ("attack_sub", None, 2),
    ("eots_submarine_warfare", "campaign_1941", 3),
    ("eots_submarine_warfare", "campaign_1944", 3),
    ("steel_wolves_like", None, 4),
]


@pytest.mark.parametrize(("book", "scenario", "seeds"), SCENARIOS)
def test_generated_games_trace_as_the_closures(book: str, scenario: str | None, seeds: int) -> None:
    checked = load(str(RULEBOOKS / book))
    for seed in range(seeds):
        closures = played(checked, scenario, seed, generated=False)
        generated = played(checked, scenario, seed, generated=True)
        assert closures.count("\n") > 10  # a game was played
        assert generated == closures, f"{book} {scenario} seed {seed}"


def _resolved(checked: Checked, name: str, given: str | None, seed: int, gen: bool) -> str:
    with engine(gen):
        outcome = resolve(checked, name, given=given, seed=seed)
    return json.dumps(outcome.trace.to_json(), sort_keys=True, ensure_ascii=False)


def test_generated_combat_round_traces_as_the_closures(silent_war: Checked) -> None:
    given = str(EXAMPLES / "silent_war" / "spearfish_14_15.toml")
    for seed in range(20):
        closures = _resolved(silent_war, "combat_round", given, seed, False)
        assert _resolved(silent_war, "combat_round", given, seed, True) == closures


def test_the_switch_selects_the_engine(silent_war: Checked) -> None:
    with engine(True):
        interp = Interpreter(silent_war, SeededDice(1))
    interp.call("torpedo_improvement_phase", {})
    assert "torpedo_improvement_phase" in interp.code.generated
    with engine(False):
        other = Interpreter(silent_war, SeededDice(1))
    assert other.code is not interp.code and not other.code.generated


# ---- nothing from a rulebook enters the source but as a repr() or a mangled name -------------

ODD = r"""rulebook "Odd \"names\" \\ é 魚"
dice d6 = 1..6
enum mood = calm "très \"fâché\" \\n {}" [1.0] "titles: \"q\" \\ __import__('os')"
state __import__: int = 0 [1.0] "a state named __import__"
const L = 2 [1.0]
const i = 3 [1.0]
procedure __builtins__(exec: int) -> text [1.0] "a \"title\" with \\ and ü"
    let _t1 = exec + L + i
    __import__ += _t1
    note "é \"quoted\" \\ back {__import__} 魚"
    if __import__ > 100:
        return "big"
    return "x\"y\\z __import__('os').system('echo pwned') {{}} é"
procedure moody(x: mood) -> mood [1.0]
    return x
procedure main -> text [1.0]
    let eval = __builtins__(1)
    let m = moody("très \"fâché\" \\n {}")
    note "mood {m}"
    return eval
"""


def test_odd_names_and_strings_run_and_print_exactly(make_rulebook: Callable[..., Path]) -> None:
    book = str(make_rulebook(ODD))
    outputs = []
    for gen in (False, True):
        with engine(gen):
            result = run_cli("resolve", book, "main", "--seed", "1", "--json")
        assert result.exit_code == 0, result.stdout + result.stderr
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]
    data = json.loads(outputs[1])
    assert data["result"] == "x\"y\\z __import__('os').system('echo pwned') {{}} é"
    notes = [e["text"] for e in data["trace"] if e["event"] == "note"]
    assert notes == ['é "quoted" \\ back 6 魚', 'mood très "fâché" \\n {}']
    assert data["trace"][1]["title"] == 'a "title" with \\ and ü'
    assert data["state"]["__import__"] == 6
    shown = run_cli("compile", book, "__builtins__")
    assert shown.exit_code == 0, shown.stderr
    source = shown.stdout
    assert "def traced__5f__5f_builtins_5f__5f_(i):" in source  # a mangled name
    assert "L['_t1'] = " in source and "'__import__' in L" in source  # repr()'d keys
    returned = "x\"y\\z __import__('os').system('echo pwned') {{}} é"
    assert source.count("pwned") == 1 and repr(returned) in source  # only as a repr()
    assert "rulebook.rk:8" in source


def test_strings_with_newlines_and_quotes_are_constants(silent_war: Checked) -> None:
    """The grammar cannot write a newline in a string; a node made by hand can."""
    evil = "a\nb\"\"\"'''\\ \x00 é 魚 __import__('os').system('x') #"
    decl = silent_war.book.procedures["torpedo_improvement_phase"]
    body = (n.Return(n.ListLit((n.Str(evil), n.Num(1))), span=decl.body[0].span),)
    made = attrs.evolve(decl, body=body)
    with engine(True):
        comp = Interpreter(silent_war).code
    generated = codegen.procedure(comp, made, traced=True)
    assert repr(evil) in generated.source
    assert generated.source.count("\n") == len(generated.spans)
    interp = Interpreter(silent_war)
    assert generated.function(interp) == ((evil, 1),)


def test_generated_source_is_deterministic(silent_war: Checked) -> None:
    decl = silent_war.book.procedures["combat_round"]
    with engine(True):
        comp = Interpreter(silent_war).code
    first = codegen.procedure(comp, decl, traced=True).source
    assert codegen.procedure(comp, decl, traced=True).source == first


# ---- errors point at the rulebook, never at generated code -----------------------------------


def test_errors_in_generated_code_point_at_the_rulebook(
    make_rulebook: Callable[..., Path],
) -> None:
    book = make_rulebook(
        'rulebook "T"\ndice d6 = 1..6\nprocedure p(x: int) [1.0]\n'
        "    let y = x + 1\n    return 6 / (x - 2)\n"
    )
    errors = []
    for gen in (False, True):
        with engine(gen):
            result = run_cli("resolve", str(book), "p", "--at", "x=2")
        assert result.exit_code == 1
        assert "Traceback" not in result.stderr
        errors.append(result.stderr)
    assert errors[0] == errors[1]
    assert "rulebook.rk:5:12: error: division by zero" in errors[1]


def test_an_unexpected_python_error_is_located_in_the_rulebook(
    make_rulebook: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    book = make_rulebook(
        'rulebook "T"\ndice d6 = 1..6\nprocedure p(x: int) [1.0]\n'
        "    let y = x + 1\n    if y > 3 [1.2]:\n        return 1\n    return 2\n"
    )
    checked = load(str(book))

    def broken(*args: object) -> bool:
        raise TypeError("a bug")

    with engine(True):
        interp = Interpreter(checked)
    monkeypatch.setattr(interp, "_order", broken)
    with pytest.raises(RuleRuntimeError) as caught:
        interp.call("p", {"x": Fraction(1, 2)})  # y > 3 asks _order: not two ints
    diagnostic = caught.value.diagnostics[0]
    assert "internal error: TypeError: a bug" in diagnostic.message
    assert diagnostic.span is not None
    assert (diagnostic.span.line, Path(diagnostic.span.file).name) == (5, "rulebook.rk")


def test_compile_names_a_missing_procedure() -> None:
    result = run_cli("compile", str(RULEBOOKS / "silent_war"), "no_such_thing")
    assert result.exit_code == 1
    assert "no procedure named or numbered 'no_such_thing'" in result.stderr
    assert "Traceback" not in result.stderr


def test_compile_prints_traced_and_untraced_code() -> None:
    traced = run_cli("compile", str(RULEBOOKS / "silent_war"), "6.0")
    untraced = run_cli("compile", str(RULEBOOKS / "silent_war"), "6.0", "--untraced")
    assert traced.exit_code == 0 and untraced.exit_code == 0
    assert "def traced_torpedo_5f_improvement_5f_phase(i):" in traced.stdout
    assert "_NoteEvent" in traced.stdout and "_NoteEvent" not in untraced.stdout
    assert "torpedo.rk:19" in traced.stdout
    compile(traced.stdout, "<test>", "exec")  # what is printed is Python


# ---- untraced runs (simulate, prob) end as traced ones ---------------------------------------


@pytest.mark.parametrize("generated", [False, True])
def test_untraced_games_end_as_traced_ones(generated: bool) -> None:
    """simulate and prob run untraced (``interp.muted``): the same dice, decisions, state."""
    from rulekit.play.runner import new_game

    for book, seeds in (("silent_war", 2), ("gato_leader", 2), ("attack_sub", 2)):
        checked = load(str(RULEBOOKS / book))
        for seed in range(seeds):
            ends = []
            for muted in (False, True):
                with engine(generated):
                    game = new_game(checked, None, seed)
                game.interp.muted = muted
                out = io.StringIO()
                result = game.play(trace=out)
                # the same turns, provisional values used (in order) and end: untraced code
                # skips the rows' events and remembers plain procedures' results
                reports = [(r.turn, r.values, r.ended) for r in result.reports]
                used = result.provisional_used
                ends.append((result.ended, result.state_hash, result.turns, reports, used))
                calls = out.getvalue().count('"event": "call"')
                assert (calls == 0) if muted else (calls > 0)
            assert ends[0] == ends[1], f"{book} seed {seed}"
