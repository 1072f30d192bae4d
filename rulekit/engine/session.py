"""One resolution of a procedure or table: inputs bound, dice and policy set up, run traced."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from attrs import define

from rulekit.book import types as t
from rulekit.book.checker import Checked
from rulekit.book.inputs import (
    Inputs,
    Target,
    ValueReader,
    assignments,
    check_decisions,
    find_target,
    load_given,
)
from rulekit.engine.dice import DiceSource, ForcedDice, SeededDice
from rulekit.engine.interpreter import DEFAULT_STEP_BUDGET, Interpreter
from rulekit.engine.policy import DefaultPolicy, Policy, ScriptedPolicy
from rulekit.engine.trace import Trace
from rulekit.errors import InputError, did_you_mean, error


@define
class Outcome:
    """What a resolution produced."""

    target: Target
    args: dict[str, Any]
    result: Any
    trace: Trace
    interpreter: Interpreter
    seed: int | None


def input_slots(checked: Checked, target: Target) -> dict[str, t.Type]:
    """The inputs a target takes: parameters, or a table's non-roll dimensions (for
    rulekit.analysis.prob)."""
    return _slots(checked, target)


def _slots(checked: Checked, target: Target) -> dict[str, t.Type]:
    """The inputs a target takes: parameters, or a table's non-roll dimensions."""
    book = checked.book
    if target.kind == "table":
        table = checked.tables[target.name]
        return {d.name: d.type for d in table.dims if d.kind != "roll"}
    decl = (
        book.procedures[target.name] if target.kind == "procedure" else book.modifiers[target.name]
    )
    return {
        p.name: checked.vocab.type_of(p.type) if p.type is not None else t.ANY for p in decl.params
    }


def _required(checked: Checked, target: Target) -> list[str]:
    if target.kind == "table":
        return list(_slots(checked, target))
    book = checked.book
    decl = (
        book.procedures[target.name] if target.kind == "procedure" else book.modifiers[target.name]
    )
    return [p.name for p in decl.params if p.default is None]


def _names_a_piece(raw: Any, typ: t.Type | None) -> bool:
    """Whether a given value names pieces or records (``s = "John Rodgers"``, a list of
    names) rather than giving them: it is read as ValueReader.read reads a name."""
    if isinstance(typ, t.ListT):
        typ = typ.item
        if isinstance(raw, list):
            return isinstance(typ, (t.KindT, t.RecordT)) and any(isinstance(r, str) for r in raw)
    return isinstance(raw, str) and isinstance(typ, (t.KindT, t.RecordT))


def bind_inputs(
    checked: Checked,
    target: Target,
    interp: Interpreter,
    given_path: str | Mapping[str, Any] | None,
    at: list[tuple[str, Any]],
) -> dict[str, Any]:
    """Read ``--given`` (a TOML file, or a dict of the same shape) and ``--at`` into the
    target's arguments and the game state."""
    slots = _slots(checked, target)
    state_types = {name: checked.globals[name] for name in interp.state.values}
    args: dict[str, Any] = {}
    sources: list[tuple[str, Any, ValueReader]] = []
    situation = interp.state.values.values  # a piece may be named: --at sub=Spearfish
    given: list[tuple[str, Any]] = []
    if isinstance(given_path, Mapping):
        reader = ValueReader(checked, interp.eval, "given", None, situation)
        given = list(given_path.items())
    elif given_path is not None:
        raw, text = load_given(given_path)
        reader = ValueReader(checked, interp.eval, given_path, text, situation)
        given = list(raw.items())
    # a piece the file names (s = "John Rodgers") is found once the file's other values are
    # in the state, as --at finds it: it may be one of the file's own lists
    given.sort(
        key=lambda item: _names_a_piece(item[1], slots.get(item[0], state_types.get(item[0])))
    )
    sources.extend((key, value, reader) for key, value in given)
    for name, value in at:
        sources.append(
            (name, value, ValueReader(checked, interp.eval, f"--at {name}", None, situation))
        )
    for key, raw_value, reader in sources:
        if key in slots:
            args[key] = reader.read(raw_value, slots[key], key)
        elif key in state_types:
            value = reader.read(raw_value, state_types[key], key)
            track = checked.book.tracks.get(key)
            if track is not None and (
                value < track.low or (track.high is not None and value > track.high)
            ):
                raise reader.problem(key, f"track {key} runs from {track.low} to {track.high}")
            interp.state.values[key] = value
        else:
            known = [*slots, *state_types]
            raise reader.problem(
                key,
                f"'{key}' is not an input of {target.kind} {target.name} nor a state variable",
                did_you_mean(key, known)
                or (f"its inputs are: {', '.join(slots)}" if slots else None),
            )
    missing = [name for name in _required(checked, target) if name not in args]
    if missing:
        raise InputError(
            [
                error(
                    f"{target.kind} {target.name} needs {', '.join(missing)}",
                    where="--given" if given_path else "--at",
                    hint=f"give --at {missing[0]}=VALUE or put {missing[0]} in a --given file",
                )
            ]
        )
    return args


def make_dice(dice: list[int] | None, seed: int | None) -> tuple[DiceSource, int | None]:
    """Forced dice first (then the seed, if any), or seeded dice; a seed is picked if none."""
    if dice is not None:
        return ForcedDice(list(dice), SeededDice(seed) if seed is not None else None), seed
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    return SeededDice(seed), seed


def make_policy(decide: list[tuple[str, str]]) -> Policy:
    answers: dict[str, list[str]] = {}
    for name, value in decide:
        answers.setdefault(name, []).append(value)
    return ScriptedPolicy(answers, DefaultPolicy()) if answers else DefaultPolicy()


def resolve(
    checked: Checked,
    name: str,
    *,
    given: str | Mapping[str, Any] | None = None,
    at: Inputs = (),
    dice: list[int] | None = None,
    seed: int | None = None,
    decide: Inputs = (),
    max_steps: int = DEFAULT_STEP_BUDGET,
) -> Outcome:
    """Run one procedure (or a table with its own roll) as ``rulekit resolve`` does."""
    target = find_target(checked, name, ("procedure", "table", "modifiers"))
    source, used_seed = make_dice(dice, seed)
    decisions = assignments(decide, "--decide")
    check_decisions(checked, decisions, "--decide")
    policy = make_policy(decisions)
    interp = Interpreter(checked, source, policy, max_steps=max_steps)
    args = bind_inputs(checked, target, interp, given, assignments(at, "--at"))
    if target.kind == "table":
        result = interp.lookup(target.name, args)
    else:
        result = interp.call(target.name, args)
    return Outcome(target, args, result, interp.trace, interp, used_seed)
