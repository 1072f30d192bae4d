"""Scenarios: TOML files next to a rulebook, giving the start of a game.

```toml
[scenario]
title = "A War Patrol"
rule = "4.0"                 # the rule that sets it up (optional)
sequence = "patrol_turn"     # which sequence of play a turn runs (default: the main one)
turns = 6                    # how many turns at most
max_steps = 1000000          # (optional) the step budget of each phase (default 200000)
victory = "patrol_over"      # a procedure checked after each turn: text to end the game
final = "patrol_result"      # a procedure naming the result when the turns run out (optional)
provisional = "why invented values are used"

[state]                      # state variables and tracks
year = 1942

[[start]]                    # procedures called once, in order, to set up the pieces
procedure = "start_at_sea"
args = { name = "Spearfish", at = "East China Sea" }
provisional = "why these arguments are invented"     # (optional) per call

[provisional]                # (optional) state values of this file the source does not print
year = "why this value is invented"
```
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cattrs
from attrs import define, field
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError

from rulekit.book import types as t
from rulekit.book.checker import Checked
from rulekit.book.inputs import ValueReader, load_given, locate_key
from rulekit.book.loader import inside, plain_name
from rulekit.engine.interpreter import Interpreter
from rulekit.errors import InputError, RulekitError, did_you_mean, error
from rulekit.language import nodes as n

SCENARIO_DIR = "scenarios"
# A scenario may raise its step budget (a whole war's pieces moving in one phase need more),
# not without bound: the budget is what stops a runaway rulebook.
MAX_SCENARIO_STEPS = 20_000_000


@define
class ScenarioInfo:
    """The ``[scenario]`` table."""

    title: str
    rule: str | None = None
    sequence: str | None = None
    turns: int = 1
    victory: str | None = None
    final: str | None = None
    provisional: str | None = None
    summary: list[str] = field(factory=list)
    max_steps: int | None = None  # the step budget of each phase; --max-steps overrides


@define
class StartCall:
    """One ``[[start]]`` entry: a procedure and its arguments, as written."""

    procedure: str
    args: dict[str, Any] = field(factory=dict)


@define
class Scenario:
    """A scenario file, read but not yet applied."""

    path: str
    info: ScenarioInfo
    state: dict[str, Any]
    start: list[StartCall]
    text: str
    # the values this file marks provisional: (what, why), in the file's order
    marks: list[tuple[str, str]] = field(factory=list)

    @property
    def name(self) -> str:
        return Path(self.path).stem

    def ref(self, checked: Checked) -> str:
        """How runs, saves and traces name it: by name when it is one of the rulebook's own
        (so they do not depend on where the rulebook is), else by its path."""
        folder = (checked.book.root / SCENARIO_DIR).resolve()
        return self.name if Path(self.path).resolve().parent == folder else self.path


_converter = cattrs.Converter(forbid_extra_keys=True)


def find_scenario(checked: Checked, name: str, named_in: str | None = None) -> str:
    """A scenario by name (``scenarios/NAME.toml`` in the rulebook) or, when the user gave
    it on the command line, by path. ``named_in`` is the file that names it otherwise (a
    save, a trace): a file a user was sent names the rulebook's own scenarios, by name only,
    so it makes rulekit read nothing else. A scenario file that is a link out of the
    rulebook's folder is refused like an include that leaves it."""
    path = Path(name)
    if named_in is None and path.suffix == ".toml" and path.is_file():
        return str(path)
    folder = checked.book.root / SCENARIO_DIR
    if named_in is not None and not plain_name(name):
        raise InputError(
            [
                error(
                    f"{named_in} names the scenario '{name}', which is not one of the "
                    "rulebook's scenarios",
                    where=named_in,
                    hint="a save or trace names a scenario of the rulebook's scenarios/ "
                    "folder; give the file yourself with --scenario FILE",
                )
            ]
        )
    candidate = folder / f"{name}.toml"
    try:
        there = plain_name(name) and candidate.is_file()
    except OSError:  # a name too long for the system (found by bench/fuzz.py): no such file
        there = False
    if there:
        inside(candidate, checked.book.root, str(candidate))
        return str(candidate)
    known = sorted(p.stem for p in folder.glob("*.toml")) if folder.is_dir() else []
    raise InputError(
        [
            error(
                f"no scenario '{name}' in {checked.book.name or 'this rulebook'}",
                where=named_in.strip("'") if named_in else "--scenario",
                hint=did_you_mean(name, known)
                or (f"its scenarios are: {', '.join(known)}" if known else "it has no scenarios"),
            )
        ]
    )


def list_scenarios(checked: Checked) -> list[str]:
    folder = checked.book.root / SCENARIO_DIR
    return sorted(p.stem for p in folder.glob("*.toml")) if folder.is_dir() else []


def _problem(path: str, text: str, key: str, message: str, hint: str | None = None) -> InputError:
    span = locate_key(path, text, key)
    if span is not None:
        return InputError([error(f"{key}: {message}", span, hint=hint)])
    return InputError([error(f"{key}: {message}", where=path, hint=hint)])


def load_scenario(checked: Checked, path: str) -> Scenario:
    """Read a scenario file and check its names against the rulebook."""
    raw, text = load_given(path)
    tables = ["scenario", "state", "start", "provisional"]
    for key in raw:
        if key not in tables:
            raise _problem(path, text, key, f"unknown table '{key}'", did_you_mean(key, tables))
    if "scenario" not in raw:
        raise InputError([error("a scenario needs a [scenario] table with a title", where=path)])
    try:
        info = _converter.structure(raw["scenario"], ScenarioInfo)
    except ClassValidationError as exc:
        raise _scenario_error(path, text, exc) from None
    start = []
    marks = _state_marks(path, text, raw)
    for i, entry in enumerate(raw.get("start", [])):
        if not isinstance(entry, dict) or "procedure" not in entry:
            raise _problem(path, text, "start", f"entry {i + 1} needs a procedure")
        extra = [k for k in entry if k not in ("procedure", "args", "provisional")]
        if extra:
            raise _problem(
                path,
                text,
                extra[0],
                f"unknown key '{extra[0]}' in [[start]]",
                did_you_mean(extra[0], ["procedure", "args", "provisional"]),
            )
        # the names and arguments of a file a user was sent: their kinds are checked before use
        if not isinstance(entry["procedure"], str):
            raise _problem(path, text, "procedure", "give the procedure's name, as text")
        if not isinstance(entry.get("args", {}), dict):
            raise _problem(
                path, text, "args", "give the arguments as a table: args = { name = value }"
            )
        why = entry.get("provisional")
        if why is not None:
            if not isinstance(why, str) or not why.strip():
                raise _problem(path, text, "provisional", "give the reason, as text")
            marks.append((f"[[start]] {i + 1}: {entry['procedure']}", why))
        if entry["procedure"] not in checked.book.procedures:
            raise _problem(
                path,
                text,
                "procedure",
                f"no procedure '{entry['procedure']}'",
                did_you_mean(entry["procedure"], checked.book.procedures),
            )
        start.append(StartCall(entry["procedure"], dict(entry.get("args", {}))))
    if info.sequence is not None and info.sequence not in checked.book.sequences:
        raise _problem(
            path,
            text,
            "sequence",
            f"no sequence of play '{info.sequence}'",
            did_you_mean(info.sequence, checked.book.sequences),
        )
    for key in ("victory", "final"):
        proc = getattr(info, key)
        if proc is not None and proc not in checked.book.procedures:
            raise _problem(
                path,
                text,
                key,
                f"no procedure '{proc}'",
                did_you_mean(proc, checked.book.procedures),
            )
    if info.turns < 1:
        raise _problem(path, text, "turns", "a scenario lasts at least one turn")
    if info.max_steps is not None and not 1 <= info.max_steps <= MAX_SCENARIO_STEPS:
        raise _problem(
            path, text, "max_steps", f"a step budget is between 1 and {MAX_SCENARIO_STEPS:,}"
        )
    known = [*checked.book.tracks, *checked.book.states]
    for name in info.summary:
        if name not in known:
            raise _problem(
                path,
                text,
                "summary",
                f"'{name}' is not a state variable or track",
                did_you_mean(name, known),
            )
    return Scenario(path, info, dict(raw.get("state", {})), start, text, marks)


def _state_marks(path: str, text: str, raw: dict[str, Any]) -> list[tuple[str, str]]:
    """``[provisional]``: the state values of this file the source does not print, with why."""
    table = raw.get("provisional", {})
    if not isinstance(table, dict):
        raise _problem(path, text, "provisional", 'must be a table: name = "why"')
    state = raw.get("state", {})
    marks = []
    for name, why in table.items():
        if name not in state:
            raise _problem(
                path,
                text,
                name,
                f"[provisional] names '{name}', which [state] does not set",
                did_you_mean(name, list(state)),
            )
        if not isinstance(why, str) or not why.strip():
            raise _problem(path, text, name, "give the reason, as text")
        marks.append((f"[state] {name}", why))
    return marks


def _start_span(path: str, text: str, index: int) -> n.Span | None:
    """The ``args`` line (or the header) of the index-th ``[[start]]`` entry."""
    seen = -1
    found: n.Span | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("[["):
            if seen == index:
                break
            if stripped.replace(" ", "") == "[[start]]":
                seen += 1
                if seen == index:
                    found = n.Span(path, number, 1, number, len(stripped) + 1)
            continue
        if seen == index and stripped.startswith("args"):
            return n.Span(path, number, 1, number, len(stripped) + 1)
    return found


def _scenario_error(path: str, text: str, exc: ClassValidationError) -> InputError:
    for sub in exc.exceptions:
        if isinstance(sub, ForbiddenExtraKeysError):
            key = sorted(sub.extra_fields)[0]
            fields = [f.name for f in ScenarioInfo.__attrs_attrs__]
            return _problem(
                path, text, key, f"unknown key '{key}' in [scenario]", did_you_mean(key, fields)
            )
        if isinstance(sub, KeyError):
            return _problem(path, text, "scenario", f"[scenario] needs '{sub.args[0]}'")
    notes = cattrs.transform_error(exc)
    if notes and "@ $." in notes[0]:
        message, key = notes[0].split(" @ $.", 1)
        return _problem(path, text, key, f"{message} in [scenario]")
    return InputError([error(f"[scenario]: {'; '.join(notes)}", where=path)])


def apply_scenario(checked: Checked, scenario: Scenario, interp: Interpreter) -> None:
    """Set the scenario's state, then make its start-up calls."""
    reader = ValueReader(checked, interp.eval, scenario.path, scenario.text)
    for key, value in scenario.state.items():
        if key not in interp.state.values:
            raise reader.problem(
                key,
                f"'{key}' is not a state variable or track of this rulebook",
                did_you_mean(key, interp.state.values),
            )
        typ = checked.globals[key]
        read = reader.read(value, typ, key)
        track = checked.book.tracks.get(key)
        if track is not None and (
            read < track.low or (track.high is not None and read > track.high)
        ):
            raise reader.problem(key, f"track {key} runs from {track.low} to {track.high}")
        interp.state.values[key] = read
    for index, call in enumerate(scenario.start):
        decl = checked.book.procedures[call.procedure]
        params = {p.name: p for p in decl.params}
        args: dict[str, Any] = {}
        for name, value in call.args.items():
            if name not in params:
                raise reader.problem(
                    name,
                    f"procedure {call.procedure} has no parameter '{name}'",
                    did_you_mean(name, params),
                )
            param = params[name]
            typ = checked.vocab.type_of(param.type) if param.type is not None else t.ANY
            args[name] = reader.read(value, typ, name)
        missing = [p for p, d in params.items() if d.default is None and p not in args]
        if missing:
            raise reader.problem(
                call.procedure, f"procedure {call.procedure} needs {', '.join(missing)}"
            )
        try:
            interp.call(call.procedure, args)
        except RulekitError as exc:
            # The rulebook is right; the entry that asked for this is what to fix.
            first = exc.diagnostics[0]
            raise InputError(
                [
                    error(
                        f"[[start]] {call.procedure}: {first.message}",
                        _start_span(scenario.path, scenario.text, index),
                        hint=first.hint,
                    )
                ]
            ) from None
