"""The public Python API: a rulebook loaded and checked once, then looked up, resolved,
measured and played, with the same results, errors and traces as the command line.

``rulekit.load(path, options=[...])`` gives a :class:`Book`. Inputs are given as Python
values (``at={"war_period": "WP3"}``, ``given={"sub": {...}}`` or a TOML path) or, as the
command line gives them, as ``"NAME=VALUE"`` strings; both are read by the same readers.
Bad input raises a :class:`rulekit.errors.RulekitError` whose ``render()`` is the message
the command line prints. docs/API.md shows it at work (its examples are run as tests).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from attrs import define

from rulekit.analysis.prob import DEFAULT_MAX_PATHS, Distribution, ask, exact, sampled
from rulekit.book.checker import Checked
from rulekit.book.checker import load as load_checked
from rulekit.book.coerce import CoerceError, read_odds
from rulekit.book.inputs import Inputs, assignments, find_target
from rulekit.book.tables import LookupMiss
from rulekit.engine.interpreter import DEFAULT_STEP_BUDGET
from rulekit.engine.session import resolve as run_resolve
from rulekit.engine.trace import Trace, render_text
from rulekit.engine.values import show, to_json
from rulekit.errors import InputError, did_you_mean, did_you_mean_or_list, error, located_in
from rulekit.limits import DEFAULT_MAX_SITUATIONS

if TYPE_CHECKING:
    from rulekit.engine.policy import Policy
    from rulekit.play.runner import RunResult


@define
class Lookup:
    """One cell of a table: what it says as printed, and the row that led there."""

    table: str
    rule: str | None
    title: str | None
    keys: dict[str, Any]  # the keys used (JSON values), and "roll" if the table has one
    value: Any  # the cell as rulekit reads it (an enum member, a number, a record...)
    printed: Any  # the cell as the source prints it
    row: list[str]  # the printed key of each dimension that led to the cell
    provisional: bool  # the source does not print this cell's value
    then: str | None  # the procedure the cell hands over to, if it names one

    def __str__(self) -> str:
        text = show(self.value) if self.value is not None else ""
        return text + (f" => {self.then}" if self.then is not None else "")


@define
class Resolution:
    """What a procedure (or a table with its own roll) gave, and how it got there."""

    name: str
    kind: str  # "procedure", "table" or "modifiers"
    rule: str | None
    result: Any  # rulekit's value; ``value`` is the same as plain JSON-ready Python
    args: dict[str, Any]
    state: dict[str, Any]  # the game state afterwards (JSON values)
    seed: int | None  # the seed the dice were drawn from (None when only forced dice)
    trace: Trace | None  # every roll, modifier, row, decision and change (None if not asked)
    provisional_used: list[str]
    note: str | None = None  # which one ran, when a chart code numbers a table and procedures

    @property
    def value(self) -> Any:
        return to_json(self.result)

    def explain(self) -> str:
        """The trace as ``rulekit resolve`` prints it."""
        if self.trace is None:
            raise ValueError("resolved with trace=False: there is no trace to explain")
        return "\n".join(render_text(self.trace))


class Book:
    """A loaded and checked rulebook (a variant, with options on, is a rulebook too)."""

    def __init__(self, checked: Checked, path: str = "") -> None:
        self.checked = checked
        self.path = path

    def __repr__(self) -> str:
        edition = f" {self.checked.book.edition}" if self.checked.book.edition else ""
        return f"<rulekit.Book {self.name}{edition} from {self.path!r}>"

    @property
    def name(self) -> str:
        return self.checked.book.name

    @property
    def tables(self) -> list[str]:
        return list(self.checked.tables)

    @property
    def procedures(self) -> list[str]:
        return list(self.checked.book.procedures)

    def lookup(self, table: str, at: Inputs = None, roll: int | None = None) -> Lookup:
        """One cell: ``table`` is a name or a rule reference (``"7.1"``); ``at`` gives a key
        for every dimension but the roll; ``roll`` is the (already modified) roll."""
        checked = self.checked
        target = find_target(checked, table, ("table",))
        compiled = checked.tables[target.name]
        pairs = dict(assignments(at, "--at"))
        dims = {d.name for d in compiled.dims if d.kind != "roll"}
        for name in pairs:
            if name not in dims:
                raise InputError(
                    [
                        error(
                            f"table {target.name} has no dimension '{name}'",
                            where=f"--at {name}",
                            hint=did_you_mean_or_list(name, dims, "dimensions", "only the roll"),
                        )
                    ]
                )
        values: list[Any] = []
        keys: dict[str, Any] = {}
        for i, dim in enumerate(compiled.dims):
            if dim.kind == "roll":
                if roll is None:
                    raise InputError(
                        [
                            error(
                                f"table {target.name} is indexed by a roll of {dim.decl.dice}",
                                where="--roll",
                                hint="give --roll N (the modified roll)",
                            )
                        ]
                    )
                values.append(roll)
                keys["roll"] = roll
                continue
            if dim.name not in pairs:
                choices = ", ".join(compiled.keys(i)[:10])
                raise InputError(
                    [
                        error(
                            f"table {target.name} needs --at {dim.name}=VALUE",
                            where="--at",
                            hint=f"{dim.name} is one of: {choices}",
                        )
                    ]
                )
            value = self._read_key(dim, pairs[dim.name], compiled.keys(i))
            values.append(value)
            keys[dim.name] = to_json(value)
        try:
            cell, path = compiled.lookup(values)
        except LookupMiss as miss:
            where = "--roll" if miss.dim.kind == "roll" else f"--at {miss.dim.name}"
            raise InputError(
                [
                    error(
                        f"table {target.name} has no row for {miss.dim.name} = {show(miss.value)}",
                        where=where,
                        hint=f"its {miss.dim.name} rows are: {', '.join(miss.keys)}",
                    )
                ]
            ) from None
        return Lookup(
            target.name,
            compiled.rule,
            compiled.decl.title,
            keys,
            cell.value,
            cell.printed,
            [k.printed for k in path],
            cell.provisional,
            cell.action.func if cell.action is not None else None,
        )

    def _read_key(self, dim: Any, raw: Any, keys: list[str]) -> Any:
        # a key is read as its text, as typed on the command line: 3, "3" and True alike
        text = str(raw).lower() if isinstance(raw, bool) else str(raw)
        if dim.kind == "threshold" and (odds := read_odds(text)) is not None:
            return odds  # odds as the chart prints its columns: 2:1, 1-2
        try:
            return self.checked.vocab.read(text, dim.type)
        except CoerceError as exc:
            raise InputError(
                [
                    error(
                        f"{exc.message} for dimension {dim.name}",
                        where=f"--at {dim.name}",
                        hint=exc.hint or did_you_mean(text, keys),
                    )
                ]
            ) from None

    def resolve(
        self,
        name: str,
        *,
        given: str | os.PathLike[str] | Mapping[str, Any] | None = None,
        at: Inputs = None,
        dice: Sequence[int] | None = None,
        seed: int | None = None,
        decide: Inputs = None,
        trace: bool = True,
        max_steps: int = DEFAULT_STEP_BUDGET,
    ) -> Resolution:
        """Run a procedure (or a table with its own roll): inputs and state from ``given``
        (a TOML file or a dict of the same shape) and ``at``; the natural die results in
        ``dice`` are used first, then dice seeded by ``seed`` (one is picked if neither is
        given); decisions answered by ``decide``, the rulebook's defaults otherwise."""
        checked = self.checked
        with located_in(checked.book.sources):
            outcome = run_resolve(
                checked,
                name,
                given=os.fspath(given) if isinstance(given, os.PathLike) else given,
                at=at or (),
                dice=list(dice) if dice is not None else None,
                seed=seed,
                decide=decide or (),
                max_steps=max_steps,
            )
        target = outcome.target
        return Resolution(
            target.name,
            target.kind,
            target.ref.text if target.ref else None,
            outcome.result,
            outcome.args,
            {k: to_json(v) for k, v in outcome.interpreter.state.values.items()},
            outcome.seed,
            outcome.trace if trace else None,
            list(outcome.trace.provisional_used),
            target.note,
        )

    def prob(
        self,
        name: str,
        *,
        given: str | os.PathLike[str] | Mapping[str, Any] | None = None,
        at: Inputs = None,
        decide: Inputs = None,
        of: str | None = None,
        max_paths: int = DEFAULT_MAX_PATHS,
        samples: int | None = None,
        seed: int = 1,
        max_steps: int = DEFAULT_STEP_BUDGET,
        method: str = "situations",
        max_situations: int = DEFAULT_MAX_SITUATIONS,
        tolerance: float = 0.0,
        max_seconds: float | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> Distribution:
        """Exact probabilities of every result, or of the expression ``of`` (of
        ``result``, the inputs and the state after); ``samples`` estimates from that many
        seeded runs instead. A procedure is solved by its situations (``method=
        "situations"``: runs in the same situation merged, rounds solved as a Markov chain;
        situations less likely than ``tolerance`` left unresolved), or path by path
        (``"paths"``); ``max_paths`` bounds the paths of dice between two situations.
        ``max_seconds`` bounds every method; ``progress`` hears how many samples are done."""
        checked = self.checked
        with located_in(checked.book.sources):
            question = ask(
                checked,
                name,
                given=os.fspath(given) if isinstance(given, os.PathLike) else given,
                at=at or (),
                decide=decide or (),
                of=of,
            )
            if samples is not None:
                if samples < 1:
                    raise InputError([error("--samples must be at least 1", where="--samples")])
                dist = sampled(checked, question, samples, seed, max_steps, max_seconds, progress)
            else:
                dist = exact(
                    checked,
                    question,
                    max_paths,
                    max_steps,
                    method=method,
                    max_situations=max_situations,
                    tolerance=tolerance,
                    max_seconds=max_seconds,
                )
        dist.note = question.target.note
        dist.title = _title(checked, question.target.kind, question.target.name)
        dist.inputs = _asked(given, at, decide, of)
        return dist

    def play(
        self,
        scenario: str | None = None,
        *,
        seed: int | None = None,
        policy: str | Policy = "default",
        turns: int | None = None,
    ) -> RunResult:
        """Play a scenario (the rulebook's default one if None) through the sequence of play,
        up to ``turns`` turns or its end. ``policy`` is ``"default"``, ``"random"``,
        ``"scripted:FILE.toml"``, ``"advised:EXPR"`` or a policy object."""
        from rulekit.play.runner import new_game

        checked = self.checked
        with located_in(checked.book.sources):
            if isinstance(policy, str):
                game = new_game(checked, scenario, seed, policy)
            else:
                game = new_game(checked, scenario, seed, type(policy).__name__, policy)
            return game.play(turns)


def _title(checked: Checked, kind: str, name: str) -> str:
    """A table, procedure or modifier list in the rules' words: ``[14.2] Counterattack Table``."""
    pools: dict[str, Mapping[str, Any]] = {
        "table": checked.book.tables,
        "procedure": checked.book.procedures,
        "modifiers": checked.book.modifiers,
    }
    pool = pools.get(kind, {})
    decl = pool.get(name)
    words = getattr(decl, "title", None) or name.replace("_", " ")
    ref = getattr(decl, "ref", None)
    return f"[{ref.text}] {words}" if ref is not None else words


def _asked(
    given: str | os.PathLike[str] | Mapping[str, Any] | None,
    at: Inputs,
    decide: Inputs,
    of: str | None,
) -> list[str]:
    """The inputs a question was asked with, as the command line gives them."""
    out: list[str] = []
    if isinstance(given, str | os.PathLike):
        out.append(f"given {os.path.basename(os.fspath(given))}")
    elif given:
        out.append("given " + ", ".join(f"{k} = {v}" for k, v in given.items()))
    for prefix, items in (("", at), ("decide ", decide)):
        pairs = items.items() if isinstance(items, Mapping) else (items or ())
        for item in pairs:
            key, value = item if isinstance(item, tuple) else str(item).partition("=")[::2]
            out.append(f"{prefix}{str(key).strip()} = {str(value).strip()}")
    if of:
        out.append(f"of {of}")
    return out


def load(path: str | os.PathLike[str], options: Sequence[str] = ()) -> Book:
    """Load and check a rulebook: a directory with a rulebook.rk, a .rk file, a variant
    file, or ``DIR@VARIANT``; ``options`` switches on optional rules by name."""
    if isinstance(options, str):  # load(path, "x") would switch on "x" one letter at a time
        options = [options]
    arg = os.fspath(path)
    return Book(load_checked(arg, tuple(options)), arg)


__all__ = ["Book", "Lookup", "Resolution", "load"]
