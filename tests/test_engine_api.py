"""The engine's API: no code outside rulekit/engine/ assigns an interpreter's fields (it calls
the interpreter's methods: mute, use_dice, use_policy, set_budget, new_run, resume, ...), and
generated code calls the runtime module, never the interpreter's own underscore methods."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

from rulekit.book.checker import Checked
from rulekit.engine import codegen
from rulekit.engine.dice import ForcedDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.program import program_for
from rulekit.engine.runtime import GameState

RULEKIT = Path(__file__).resolve().parent.parent / "rulekit"


def _annotated_interpreter(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    text = ast.unparse(annotation)
    return "Interpreter" in text


def _interpreters(fn: ast.AST) -> set[str]:
    """The names in ``fn`` that hold an interpreter: parameters annotated Interpreter, names
    bound to Interpreter(...), to something's ``.interp``, or annotated Interpreter."""
    names: set[str] = set()
    if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        args = fn.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            if _annotated_interpreter(arg.annotation):
                names.add(arg.arg)
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and _annotated_interpreter(node.annotation)
        ):
            names.add(node.target.id)
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value:
            value = node.value
            holds = (
                isinstance(value, ast.Call) and ast.unparse(value.func).endswith("Interpreter")
            ) or (isinstance(value, ast.Attribute) and value.attr == "interp")
            if holds:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _is_interpreter(expr: ast.expr, names: set[str]) -> bool:
    if isinstance(expr, ast.Name):
        return expr.id in names
    return isinstance(expr, ast.Attribute) and expr.attr == "interp"


def assignments(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of each assignment to an interpreter's attribute in ``source``."""
    tree = ast.parse(source)
    scopes = [
        tree,
        *(
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        ),
    ]
    seen: set[tuple[int, str]] = set()
    for scope in scopes:
        names = _interpreters(scope)
        for node in ast.walk(scope):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = list(node.targets)
            elif isinstance(node, ast.For | ast.AsyncFor):
                targets = [node.target]
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                targets = [node.optional_vars]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr")
                and node.args
                and _is_interpreter(node.args[0], names)
            ):
                found = (node.lineno, ast.unparse(node))
                if found not in seen:
                    seen.add(found)
                    yield found
            while targets:
                target = targets.pop()
                if isinstance(target, ast.Tuple | ast.List):
                    targets.extend(target.elts)
                elif isinstance(target, ast.Starred):
                    targets.append(target.value)
                elif isinstance(target, ast.Attribute) and _is_interpreter(target.value, names):
                    found = (target.lineno, ast.unparse(target))
                    if found not in seen:
                        seen.add(found)
                        yield found


def test_the_scan_finds_every_kind_of_assignment() -> None:
    # the scan itself: each line below assigns an interpreter's field, and is found
    source = """
def f(interp: Interpreter, game, runner):
    interp.muted = True
    game.interp.max_steps = 3
    i = runner.interp
    i.steps += 1
    i.dice = i.policy = None
    setattr(interp, "ref", None)
    other = Interpreter(checked)
    other.entity_count, x = 2, 3

def g(i: "Interpreter") -> None:
    i.frames[1:] = []  # (a field's contents: not an assignment of the field)
    i.locals = {}

def h(thing):
    thing.muted = True  # not an interpreter
"""
    found = [line for line, _ in assignments(source)]
    assert sorted(found) == [3, 4, 6, 7, 7, 8, 10, 14]


def test_no_code_outside_the_engine_assigns_an_interpreter_field() -> None:
    offenders = []
    for path in sorted(RULEKIT.rglob("*.py")):
        if path.relative_to(RULEKIT).parts[0] == "engine":
            continue
        for line, text in assignments(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(RULEKIT.parent)}:{line}: {text}")
    assert offenders == []


def test_generated_code_calls_no_interpreter_method_of_its_own(silent_war: Checked) -> None:
    code = program_for(silent_war)
    sources = [
        generated.source
        for decl in silent_war.book.procedures.values()
        for generated in codegen.procedures(code, decl)  # traced and untraced
    ]
    assert len(sources) > 100
    # each slower path is a runtime function of the interpreter ("_arith(i, ..."), never
    # one of its methods ("i._arith(...")
    assert any("_arith(i, " in source or "_eq_any(i, " in source for source in sources)
    for source in sources:
        assert "i._" not in source, source


def test_snapshot_and_restore_give_back_the_position(silent_war: Checked) -> None:
    interp = Interpreter(silent_war, ForcedDice([]))
    name = next(iter(interp.state.values))
    before = interp.state.values[name]
    snap = interp.snapshot()
    interp.resume(GameState({**interp.state.values, name: Fraction(1, 3)}), 7)
    assert interp.state.values[name] == Fraction(1, 3)
    assert interp.entity_count == 7
    interp.restore(snap)
    assert interp.state.values[name] == before
    assert interp.entity_count == snap.pieces == 0
    assert interp.state.values is not snap.values  # copied again: restorable many times
