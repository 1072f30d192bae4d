"""The generic scenario runner: turn after turn through a rulebook's sequence of play.

It knows nothing about any particular game: the scenario says where to start, which
sequence a turn runs, how many turns and which procedure decides victory; the rulebook does
the rest. Saves, traces and replays make every run repeatable.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import cattrs
from attrs import define, field

from rulekit.book.checker import Checked
from rulekit.book.inputs import read_toml
from rulekit.book.loader import plain_name
from rulekit.engine.dice import ForcedDice, SeededDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import (
    DefaultPolicy,
    InteractivePolicy,
    Policy,
    RandomPolicy,
    ReplayPolicy,
    StrictScriptedPolicy,
)
from rulekit.engine.runtime import GameState
from rulekit.engine.trace import Event
from rulekit.engine.values import to_json
from rulekit.errors import InputError, error
from rulekit.play.saves import (
    SAVE_FORMAT,
    Decoder,
    SaveFile,
    encode_state,
    misfit,
    read_save,
    state_hash,
    write_save,
)
from rulekit.play.scenario import Scenario, apply_scenario, find_scenario, load_scenario

TRACE_FORMAT = 1


class TextSink(Protocol):
    """Where trace lines go: a file, or the replay's checker."""

    def write(self, text: str, /) -> int: ...


_converter = cattrs.Converter()


@define
class TurnReport:
    """What a turn left behind: the summary values, and how the game ended if it did."""

    turn: int
    values: dict[str, Any]
    ended: str | None = None


@define
class RunResult:
    """The outcome of one run."""

    rulebook: str
    edition: str
    scenario: str
    title: str
    seed: int | None
    policy: str
    turns: int
    played: int
    reports: list[TurnReport]
    final: dict[str, Any]
    ended: str | None
    provisional_used: list[str]
    provisional_scenario: str | None
    state_hash: str
    # the values the scenario file marks provisional, "what: why"
    provisional_scenario_values: list[str] = field(factory=list)


# ---- policies ---------------------------------------------------------------------------------


def load_answers(path: str) -> dict[str, list[str]]:
    """A scripted policy's answers: ``name = "value"`` or ``name = ["first", "second"]``."""
    raw, _ = read_toml(path, "--policy")
    answers = raw.get("answers", raw)
    if not isinstance(answers, dict):
        raise InputError(
            [
                error(
                    "answers is not a table of decisions",
                    where=path,
                    hint='write [answers] then name = ["answer", ...]',
                )
            ]
        )
    out: dict[str, list[str]] = {}
    for name, value in answers.items():
        values = value if isinstance(value, list) else [value]
        out[name] = [v if isinstance(v, str) else json.dumps(v) for v in values]
    return out


def make_policy(
    spec: str,
    seed: int | None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    context: Callable[[], list[str]] | None = None,
    checked: Checked | None = None,
) -> Policy:
    """``default``, ``random``, ``interactive``, ``scripted:FILE`` (a .toml path works too) or
    ``advised:EXPR`` (rulekit.analysis.advised: it needs ``checked``)."""
    if spec.startswith("advised:") and checked is not None:
        from rulekit.analysis.advised import make_advised

        return make_advised(checked, spec)
    if spec == "default":
        return DefaultPolicy()
    if spec == "random":
        return RandomPolicy(seed)
    if spec == "interactive":
        return InteractivePolicy(read, write, context or (lambda: []))
    path = spec.split(":", 1)[1] if spec.startswith("scripted:") else spec
    if spec.startswith("scripted:") or path.endswith(".toml"):
        return StrictScriptedPolicy(load_answers(path), path)
    raise InputError(
        [
            error(
                f"unknown policy '{spec}'",
                where="--policy",
                hint="use default, random, interactive, scripted:FILE.toml or advised:EXPR",
            )
        ]
    )


def policy_state(policy: Policy) -> dict[str, Any]:
    if isinstance(policy, StrictScriptedPolicy):
        return {"used": dict(policy.used)}
    if isinstance(policy, RandomPolicy):
        return {"rng": _rng_state(policy.rng)}
    return {}


def restore_policy(policy: Policy, state: dict[str, Any]) -> None:
    if isinstance(policy, StrictScriptedPolicy):
        policy.used = dict(state.get("used", {}))
    elif isinstance(policy, RandomPolicy) and "rng" in state:
        _set_rng(policy.rng, state["rng"])


def _rng_state(rng: random.Random) -> list[int]:
    version, internal, gauss = rng.getstate()
    return [version, *internal, -1 if gauss is None else 1]


def _set_rng(rng: random.Random, data: list[int]) -> None:
    try:
        rng.setstate((data[0], tuple(data[1:-1]), None))
    except (OverflowError, ValueError, TypeError, IndexError):
        # a number out of the generator's range (found by bench/fuzz.py): damaged, said so
        raise ValueError("dice_state is not a state of the dice") from None


# ---- the game ----------------------------------------------------------------------------------


@define
class Game:
    """A scenario being played."""

    checked: Checked
    scenario: Scenario
    interp: Interpreter
    seed: int | None
    policy_spec: str
    turn: int = 0
    ended: str | None = None
    reports: list[TurnReport] = field(factory=list)
    provisional_used: list[str] = field(factory=list)
    _provisional_seen: int = field(default=0, init=False)  # of interp.trace.provisional_used

    def __attrs_post_init__(self) -> None:
        # the scenario's own step budget (a phase moving a whole war's pieces at once);
        # --max-steps, applied after, overrides it
        if self.scenario.info.max_steps is not None:
            self.interp.set_budget(self.scenario.info.max_steps)

    @property
    def summary_names(self) -> list[str]:
        """The state shown after each turn: the scenario's list, or every track."""
        return self.scenario.info.summary or list(self.checked.book.tracks)

    def values(self) -> dict[str, Any]:
        state = self.interp.state.values
        return {name: to_json(state[name]) for name in self.summary_names}

    def turns_left(self, turns: int | None = None) -> int:
        """The turns a ``play(turns)`` would play at most."""
        left = self.scenario.info.turns - self.turn
        return left if turns is None else min(left, turns)

    def play(
        self,
        turns: int | None = None,
        trace: TextSink | None = None,
        explain: Callable[[int, list[Event]], None] | None = None,
    ) -> RunResult:
        """Play up to ``turns`` turns (or to the scenario's end); stream the trace if asked,
        and hand each turn's events to ``explain``."""
        info = self.scenario.info
        played = 0
        while self.ended is None and self.turn < info.turns and (turns is None or played < turns):
            self.turn += 1
            played += 1
            self.interp.run_sequence(info.sequence)
            if info.victory is not None:
                verdict = self.interp.call(info.victory, {})
                if verdict is not None:
                    self.ended = str(to_json(verdict))
            if self.ended is None and self.turn >= info.turns:
                verdict = self.interp.call(info.final, {}) if info.final is not None else None
                self.ended = (
                    str(to_json(verdict))
                    if verdict is not None
                    else "the scenario's last turn is played"
                )
            self.reports.append(TurnReport(self.turn, self.values(), self.ended))
            if trace is not None:
                _write_line(trace, {"event": "turn", "turn": self.turn})
                for data in self.interp.trace.to_json():
                    _write_line(trace, data)
            if explain is not None:
                explain(self.turn, self.interp.trace.events)
            used = self.interp.trace.provisional_used
            if len(used) != self._provisional_seen:  # new ones since the last turn
                known = set(self.provisional_used)
                self.provisional_used += [item for item in used if item not in known]
                self._provisional_seen = len(used)
            self.interp.trace.events.clear()
        return self.result(played)

    def result(self, played: int) -> RunResult:
        book = self.checked.book
        return RunResult(
            book.name,
            book.edition or "",
            self.scenario.ref(self.checked),
            self.scenario.info.title,
            self.seed,
            self.policy_spec,
            self.turn,
            played,
            list(self.reports),
            {
                name: to_json(v)
                for name, v in self.interp.state.values.items()
                if name in self.summary_names
            },
            self.ended,
            list(self.provisional_used),
            self.scenario.info.provisional,
            state_hash(self.interp.state.values),
            [f"{what}: {why}" for what, why in self.scenario.marks],
        )

    def save(self, path: str) -> None:
        write_save(path, self.save_file())

    def save_file(self) -> SaveFile:
        """The game as it stands, as a save (written by ``save``, or kept at each turn's
        end so that a run stopped mid-turn saves the last whole turn)."""
        values, entities = encode_state(self.interp.state.values)
        dice = getattr(self.interp.dice, "inner", self.interp.dice)  # advised: _Recording
        book = self.checked.book
        return SaveFile(
            SAVE_FORMAT,
            book.name,
            book.edition or "",
            self.scenario.ref(self.checked),
            self.scenario.info.title,
            self.turn,
            self.policy_spec,
            values,
            entities,
            self.seed,
            _rng_state(dice.rng) if isinstance(dice, SeededDice) else [],
            policy_state(self.interp.policy),
            sorted(self.interp.changed),
            list(self.provisional_used),
            self.interp.entity_count,
            self.ended or "",
            list(book.options_on),
        )


def new_game(
    checked: Checked,
    scenario_name: str | None,
    seed: int | None,
    policy_spec: str = "default",
    policy: Policy | None = None,
    named_in: str | None = None,
) -> Game:
    """A game at the start of a scenario (the rulebook's default one if none is named);
    ``named_in``: the file naming the scenario, when not the user (find_scenario)."""
    name = scenario_name or checked.book.default_scenario
    if name is None:
        raise InputError(
            [
                error(
                    "this rulebook names no default scenario",
                    where="--scenario",
                    hint="give --scenario NAME",
                )
            ]
        )
    scenario = load_scenario(checked, find_scenario(checked, name, named_in))
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    chosen = policy or make_policy(policy_spec, seed, checked=checked)
    interp = Interpreter(checked, SeededDice(seed), chosen)
    attach_policy(interp)
    with interp.quietly():  # the set-up's events are dropped: it need not make them
        apply_scenario(checked, scenario, interp)
    interp.trace.events.clear()
    return Game(checked, scenario, interp, seed, policy_spec)


def attach_policy(interp: Interpreter) -> None:
    """A policy that follows the game's calls (rulekit.analysis.advised) starts watching."""
    attach = getattr(interp.policy, "attach", None)
    if attach is not None:
        attach(interp)


def resume_game(
    checked: Checked,
    path: str,
    policy_spec: str | None = None,
    policy: Policy | None = None,
    scenario: str | None = None,
) -> Game:
    """A game continued from a save: same state, same dice, same policy. The save names one
    of the rulebook's scenarios; a scenario file elsewhere is read only when the user names
    it too (``scenario``, their --scenario)."""
    try:
        return _resume(checked, path, policy_spec, policy, scenario)
    except _DAMAGED as exc:
        raise _damaged(path, "--resume", exc) from None


def _saved_scenario(checked: Checked, save: str, path: str, given: str | None) -> str:
    """The scenario file of a save: one of the rulebook's by the name it stores, or the
    file the user names with --scenario when the save names that same file."""
    if given is None:
        return find_scenario(checked, save, named_in=f"'{path}'")
    if plain_name(save) or Path(given).resolve() != Path(save).resolve():
        raise InputError(
            [
                error(
                    "--resume continues a saved game: it has its own scenario",
                    where="--scenario",
                    hint=f"give --scenario only to name the scenario file the save names ({save})",
                )
            ]
        )
    return find_scenario(checked, given)


def _resume(
    checked: Checked, path: str, policy_spec: str | None, policy: Policy | None, given: str | None
) -> Game:
    book = checked.book
    save = read_save(path, book.name, book.edition or "", book.options_on)
    scenario = load_scenario(checked, _saved_scenario(checked, save.scenario, path, given))
    spec = policy_spec or save.policy
    dice = SeededDice(save.seed)
    if save.dice_state:
        _set_rng(dice.rng, save.dice_state)
    chosen = policy or make_policy(spec, save.seed, checked=checked)
    if spec == save.policy:
        restore_policy(chosen, save.policy_state)
    decoder = Decoder(save.entities, checked.vocab)
    try:
        values = {name: decoder.value(v, f"values.{name}") for name, v in save.values.items()}
    except (ValueError, KeyError) as exc:
        raise InputError(
            [error(f"'{path}' does not fit this rulebook: {exc}", where="--resume")]
        ) from None
    missing = [name for name in (*book.states, *book.tracks) if name not in values]
    if missing:  # the engine reads every one (found by bench/fuzz.py: a KeyError mid-turn)
        raise InputError(
            [
                error(
                    f"'{path}' does not fit this rulebook: it has no value for "
                    + ", ".join(f"'{name}'" for name in missing[:5]),
                    where="--resume",
                    hint="it was changed after rulekit wrote it, or the rulebook was",
                )
            ]
        )
    for name, value in values.items():
        if name not in book.states and name not in book.tracks:
            # the engine reads only declared names from the state (an enum member otherwise)
            raise InputError(
                [
                    error(
                        f"'{path}' does not fit this rulebook: it has a value for '{name}', "
                        "which is no state variable or track of it",
                        where="--resume",
                        hint="it was changed after rulekit wrote it",
                    )
                ]
            )
        declared = checked.globals.get(name)
        problem = misfit(value, declared, checked.vocab) if declared is not None else None
        if problem is not None:
            raise InputError(
                [
                    error(
                        f"'{path}' does not fit this rulebook: {name} = {problem}",
                        where="--resume",
                        hint="it was changed after rulekit wrote it",
                    )
                ]
            )
    interp = Interpreter(checked, dice, chosen, GameState(values))
    attach_policy(interp)
    interp.resume(interp.state, save.entity_count, changed=save.changed)
    game = Game(checked, scenario, interp, save.seed, spec, save.turn, save.ended or None)
    game.provisional_used = list(save.provisional_used)
    return game


# ---- traces and replays ----------------------------------------------------------------


def _write_line(out: TextSink, data: dict[str, Any]) -> None:
    out.write(json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n")


def _absolute(arg: str) -> str:
    """A rulebook argument (DIR, FILE or DIR@VARIANT) that means the same from anywhere."""
    base, at, variant = arg.partition("@")
    return str(Path(base).resolve()) + at + variant


def fingerprint(checked: Checked) -> dict[str, str]:
    """Each file of the rulebook (by its path inside it) and a hash of its text."""
    root = checked.book.root
    out = {}
    for shown, text in checked.book.sources.texts.items():
        if shown.startswith("--"):
            continue  # an option's text kept for its errors (--policy advised:EXPR, --of)
        name = os.path.relpath(Path(shown).resolve(), root)
        out[name] = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return out


def rulebook_changes(checked: Checked, header: dict[str, Any]) -> list[str]:
    """How the rulebook differs from the one a trace was recorded with (files by name)."""
    recorded = header.get("files")
    if not isinstance(recorded, dict):
        return []  # a trace of an older rulekit: the replay compares the events
    now = fingerprint(checked)
    changed = [
        f"{name} changed"
        for name in sorted(now)
        if name in recorded and recorded[name] != now[name]
    ]
    changed += [f"{name} is new" for name in sorted(now) if name not in recorded]
    changed += [f"{name} is gone" for name in sorted(recorded) if name not in now]
    return changed


def trace_header(game: Game, rulebook_arg: str, resumed: str | None) -> dict[str, Any]:
    book = game.checked.book
    scenario = game.scenario.ref(game.checked)
    return {
        "rulekit_trace": TRACE_FORMAT,
        "rulebook": rulebook_arg,
        "rulebook_path": _absolute(rulebook_arg),
        "cwd": os.getcwd(),  # events name files relative to it
        "root": str(book.root),
        "files": fingerprint(game.checked),
        "name": book.name,
        "edition": book.edition or "",
        "options": list(book.options_on),
        "scenario": scenario if scenario == game.scenario.name else str(Path(scenario).resolve()),
        "seed": game.seed,
        "policy": game.policy_spec,
        "start_turn": game.turn,
        "resumed_from": str(Path(resumed).resolve()) if resumed else None,
    }


def write_trace_footer(out: TextSink, result: RunResult) -> None:
    _write_line(
        out,
        {
            "end": True,
            "turns": result.turns,
            "state_hash": result.state_hash,
            "ended": result.ended,
        },
    )


@define
class ReplayReport:
    turns: int
    events: int
    state_hash: str


def _read_trace(
    path: str,
) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any]]], dict[str, Any]]:
    from rulekit.play.trace_io import read_trace_text

    lines = read_trace_text(path).splitlines()
    records: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                [error(f"{path}:{number}: not JSON: {exc.msg}", where="replay")]
            ) from None
        except RecursionError:
            raise InputError(
                [error(f"{path}:{number}: nests too deeply", where="replay")]
            ) from None
        if not isinstance(record, dict):
            raise InputError(
                [error(f"{path}:{number}: a trace line is a JSON object", where="replay")]
            )
        records.append((number, record))
    if not records or "rulekit_trace" not in records[0][1]:
        raise InputError([error(f"'{path}' is not a rulekit trace", where="replay")])
    if "end" not in records[-1][1]:
        raise InputError([error(f"'{path}' is cut short: it has no end line", where="replay")])
    return records[0][1], records[1:-1], records[-1][1]


# What reading a hand-edited save or trace may raise: a field missing or of another type.
_DAMAGED = (KeyError, TypeError, ValueError, IndexError, AttributeError)


def _damaged(path: str, flag: str, exc: Exception) -> InputError:
    return InputError(
        [
            error(
                f"'{path}' is damaged: {type(exc).__name__} {exc}",
                where=flag,
                hint="it was changed after rulekit wrote it",
            )
        ]
    )


def replay(
    checked: Checked, path: str, scenario: str | None = None, resumed_from: str | None = None
) -> ReplayReport:
    """Re-run a recorded game from its own dice and decisions; every event must match. The
    trace names one of the rulebook's scenarios (else the user gives the file, ``scenario``)
    and, for a resumed game, its save: the file ``resumed_from`` the user names, else the
    save of that name beside the trace."""
    try:
        return _replay(checked, path, scenario, resumed_from)
    except _DAMAGED as exc:
        raise _damaged(path, "replay", exc) from None


def _save_of_trace(path: str, recorded: str, given: str | None) -> str:
    """The save a trace's game was resumed from: the user's --resumed-from, else the file
    of its name beside the trace (links out of that folder refused). A trace a user was
    sent does not make rulekit read a file of its choosing elsewhere."""
    if given is not None:
        return given
    folder = Path(path).resolve().parent
    beside = folder / Path(recorded).name
    try:
        inside = beside.is_file() and beside.resolve().is_relative_to(folder)
    except OSError:  # a name too long for the system (found by bench/fuzz.py): not there
        inside = False
    if plain_name(Path(recorded).stem) and inside:
        return str(beside)
    raise InputError(
        [
            error(
                f"the trace continues the game saved in '{recorded}', which is not beside it",
                where=path,
                hint=f"give that save: rulekit replay {path} --resumed-from {recorded}",
            )
        ]
    )


def _replay(
    checked: Checked, path: str, given_scenario: str | None, given_save: str | None
) -> ReplayReport:
    header, body, footer = _read_trace(path)
    changes = rulebook_changes(checked, header)
    if changes:
        raise InputError(
            [
                error(
                    f"the rulebook changed since the trace was recorded: {'; '.join(changes)}",
                    where=path,
                    hint="replay it with the rulebook as it was (--rulebook)",
                )
            ]
        )
    faces: list[int] = []
    decisions: list[int] = []
    deciders: list[str] = []
    for _, data in body:
        if data.get("event") == "roll":
            # every die thrown when a reroll threw some again, else the faces
            faces.extend(data.get("thrown") or data["faces"])
        elif data.get("event") == "draw" and data.get("of", 0) > 1:
            faces.append(data["position"])
        elif data.get("event") == "decision":
            decisions.append(int(data.get("index", 0)))
            deciders.append(str(data.get("by", "replay")))
    policy = ReplayPolicy(decisions, deciders)
    if header.get("resumed_from"):
        save = _save_of_trace(path, str(header["resumed_from"]), given_save)
        game = resume_game(checked, save, header["policy"], policy)
    elif given_scenario is not None:
        game = new_game(checked, given_scenario, header["seed"], header["policy"], policy)
    else:
        game = new_game(
            checked, header["scenario"], header["seed"], header["policy"], policy, f"'{path}'"
        )
    game.interp.use_dice(ForcedDice(faces))
    recorded = iter(body)
    was = (str(header["cwd"]), str(header["root"])) if "cwd" in header else None
    turns = footer.get("turns", 0) - header.get("start_turn", 0)
    for _ in range(max(turns, 0)):
        if game.ended is not None:
            break
        try:
            game.play(1, _Checker(recorded, path, was, (os.getcwd(), str(checked.book.root))))
        except InputError as exc:
            if exc.diagnostics and exc.diagnostics[0].where in ("--dice", "replay"):
                raise InputError(
                    [
                        error(
                            f"the trace does not match the game: {exc.diagnostics[0].message}",
                            where=path,
                            hint="the trace was changed after it was written",
                        )
                    ]
                ) from None
            raise
    leftover = next(recorded, None)
    if leftover is not None:
        raise InputError(
            [
                error(
                    f"{path}:{leftover[0]}: the trace has events the game does not make",
                    where="replay",
                    hint="the trace was changed after it was written",
                )
            ]
        )
    final = state_hash(game.interp.state.values)
    if final != footer.get("state_hash"):
        raise InputError(
            [
                error(
                    f"the replay ends in another state than the trace says ({final[:12]}"
                    f" instead of {str(footer.get('state_hash'))[:12]})",
                    where=path,
                    hint="the trace was changed after it was written",
                )
            ]
        )
    return ReplayReport(game.turn, sum(1 for _ in body), final)


class _Checker:
    """A trace sink that compares each line the replay writes with the recorded one."""

    def __init__(
        self,
        recorded: Iterator[tuple[int, dict[str, Any]]],
        path: str,
        was: tuple[str, str] | None = None,
        now: tuple[str, str] | None = None,
    ) -> None:
        self.recorded = recorded
        self.path = path
        self.was, self.now = was, now  # (working directory, rulebook root) then and now

    def _inside(self, data: dict[str, Any], where: tuple[str, str] | None) -> dict[str, Any]:
        """An event with its "at" named inside the rulebook, as it is from any directory."""
        at = data.get("at")
        if where is None or not isinstance(at, str) or at.count(":") < 2:
            return data
        file, line, column = at.rsplit(":", 2)
        cwd, root = where
        inside = os.path.relpath(os.path.join(cwd, file), root)
        return {**data, "at": f"{inside}:{line}:{column}"}

    def write(self, text: str) -> int:
        for line in text.splitlines():
            produced = json.loads(line)
            expected = next(self.recorded, None)
            if expected is None:
                raise InputError(
                    [
                        error(
                            f"{self.path}: the trace ends before the game does",
                            where="replay",
                            hint="the trace was changed after it was written",
                        )
                    ]
                )
            number, data = expected
            if data != produced and (
                self.was is None or self._inside(data, self.was) != self._inside(produced, self.now)
            ):
                raise InputError(
                    [
                        error(
                            f"{self.path}:{number}: the trace differs from the game here",
                            where="replay",
                            hint=f"recorded {_short(data)}; replayed {_short(produced)}",
                        )
                    ]
                )
        return len(text)


def _short(data: dict[str, Any]) -> str:
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return text if len(text) < 160 else text[:157] + "..."


def describe_turn(report: TurnReport, names: Callable[[str], str] | None = None) -> str:
    """A turn's summary line; ``names`` gives each value's name in the game's words (``rulekit
    play``: the declarations' descriptions), else its identifier (``rulekit run``)."""
    if names is not None:
        told = "; ".join(f"{names(k)}: {v}" for k, v in report.values.items())
        end = f" -- {report.ended}" if report.ended else ""
        return f"turn {report.turn}: {told}{end}"
    values = ", ".join(f"{k} {v}" for k, v in report.values.items())
    end = f" -- {report.ended}" if report.ended else ""
    return f"turn {report.turn}: {values}{end}"
