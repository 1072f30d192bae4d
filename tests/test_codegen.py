"""Procedures generated as Python source (rulekit.engine.codegen): the one engine.

The closures that ran procedures before were compared with the generated code here, trace
for trace (byte-identical JSON on seeds of every bundled scenario, and the Spearfish combat
round), until every node kind was generated; then the closures went. What guards the traces
now: the syrupy snapshots (tests/__snapshots__), the worked examples, the traced-against-
untraced games below (the same dice, decisions, provisional values and end), and the
same game played twice writing the same trace.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import attrs
import pytest
from conftest import RULEBOOKS, run_cli

from rulekit.book.checker import Checked, load
from rulekit.engine import codegen, codegen_runtime
from rulekit.engine.interpreter import Interpreter
from rulekit.errors import RuleRuntimeError
from rulekit.language import nodes as n


def _played(checked: Checked, scenario: str | None, seed: int) -> str:
    """The JSON trace of one game as `rulekit run --trace` writes it, and how it ended."""
    from rulekit.play.runner import new_game

    game = new_game(checked, scenario, seed, "default")
    out = io.StringIO()
    result = game.play(None, trace=out)
    return out.getvalue() + f"end {result.ended} {result.state_hash}\n"


@pytest.mark.parametrize(("book", "scenario"), [("silent_war", "patrol"), ("gato_leader", None)])
def test_a_game_played_again_writes_the_same_trace(book: str, scenario: str | None) -> None:
    checked = load(str(RULEBOOKS / book))
    first = _played(checked, scenario, 1)
    assert first.count("\n") > 10  # a game was played
    assert _played(checked, scenario, 1) == first


def test_generated_functions_call_no_closures(silent_war: Checked) -> None:
    """What generated code holds as constants are values and runtime sites, never a
    function made per node (the closures are gone)."""
    interp = Interpreter(silent_war)
    interp.call("torpedo_improvement_phase", {})
    made = codegen.procedure(interp.code, silent_war.book.procedures["combat_round"], True)
    held = [v for k, v in made.function.__globals__.items() if k.startswith("_k")]
    assert held and not any(getattr(v, "__closure__", None) for v in held)


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
    result = run_cli("resolve", book, "main", "--seed", "1", "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["result"] == "x\"y\\z __import__('os').system('echo pwned') {{}} é"
    notes = [e["text"] for e in data["trace"] if e["event"] == "note"]
    assert notes == ['é "quoted" \\ back 6 魚', 'mood très "fâché" \\n {}']
    assert data["trace"][1]["title"] == 'a "title" with \\ and ü'
    assert data["state"]["__import__"] == 6
    shown = run_cli("compile", book, "__builtins__")
    assert shown.exit_code == 0, shown.stderr
    source = shown.stdout
    assert "def traced__5f__5f_builtins_5f__5f_(i):" in source  # a mangled name
    # locals are Python variables under generated names (a parameter read once on entry)
    assert "L['_t1']" not in source and "L['exec']" in source and "_l2 = " in source
    assert "'__import__' in (" in source  # repr()'d keys
    returned = "x\"y\\z __import__('os').system('echo pwned') {{}} é"
    assert source.count("pwned") == 1 and repr(returned) in source  # only as a repr()
    assert "rulebook.rk:8" in source


def test_strings_with_newlines_and_quotes_are_constants(silent_war: Checked) -> None:
    """The grammar cannot write a newline in a string; a node made by hand can."""
    evil = "a\nb\"\"\"'''\\ \x00 é 魚 __import__('os').system('x') #"
    decl = silent_war.book.procedures["torpedo_improvement_phase"]
    body = (n.Return(n.ListLit((n.Str(evil), n.Num(1))), span=decl.body[0].span),)
    made = attrs.evolve(decl, body=body)
    comp = Interpreter(silent_war).code
    generated = codegen.procedure(comp, made, traced=True)
    assert repr(evil) in generated.source
    assert generated.source.count("\n") == len(generated.spans)
    interp = Interpreter(silent_war)
    assert generated.function(interp) == ((evil, 1),)


def test_generated_source_is_deterministic(silent_war: Checked) -> None:
    decl = silent_war.book.procedures["combat_round"]
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
    result = run_cli("resolve", str(book), "p", "--at", "x=2")
    assert result.exit_code == 1
    assert "Traceback" not in result.stderr
    assert "rulebook.rk:5:12: error: division by zero" in result.stderr


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

    # the runtime's slower path of '>' (generated code calls the runtime, not the interpreter)
    monkeypatch.setitem(codegen_runtime.RUNTIME, "_order_any", broken)
    monkeypatch.setattr(codegen_runtime, "_order_any", broken)
    interp = Interpreter(checked)
    with pytest.raises(RuleRuntimeError) as caught:
        interp.call("p", {"x": Fraction(1, 2)})  # y > 3 asks _order_any: not two ints
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


def test_untraced_games_end_as_traced_ones() -> None:
    """simulate and prob run untraced (``interp.muted``): the same dice, decisions, state."""
    from rulekit.play.runner import new_game

    for book, seeds in (("silent_war", 2), ("gato_leader", 2), ("attack_sub", 2)):
        checked = load(str(RULEBOOKS / book))
        for seed in range(seeds):
            ends = []
            for muted in (False, True):
                game = new_game(checked, None, seed)
                game.interp.mute(muted)
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
