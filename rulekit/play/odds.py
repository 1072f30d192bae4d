"""Each option's chances at a decision of ``rulekit play``, by exact analysis.

A rulebook says which decisions lead to dice and what the dice decide there: ``view choose D = P``
for the name D of a ``choose`` (docs/LANGUAGE.md, "Views"). P takes the option as its
parameter named D, and its other parameters from the deciding procedure's variables of the
same names; it rolls as the rules do and returns what the roll decides (a hit, a result of
a table). At the prompt, each option shows what its roll needs, read off one traced run of P
(``needs 3 (difference) or less on d10, -1 Aggressive``), and the exact chance of each value
P returns, every path of its dice counted (rulekit.analysis.prob, method "paths").

P runs on a copy of the game as the player knows it: pieces face down read as their kind's
defaults (rulekit.engine.hidden), so a chance never tells what is face down. P must only
compute and roll (no change to the game, no draw, no decision): every path shares the copy.
All of it within ODDS_SECONDS for the whole decision; what is not ready by then is said so,
and the question is asked without it (it never waits longer).

Every call this module makes to the analysis is in ``_exact``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from attrs import define

from rulekit.analysis.outcomes import PathDice, Question
from rulekit.analysis.prob import exact
from rulekit.book.checker import Checked
from rulekit.book.inputs import Target
from rulekit.engine.hidden import hide_copies
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import DecisionRequest, DefaultPolicy
from rulekit.engine.reach import pure
from rulekit.engine.runtime import GameState
from rulekit.engine.trace import CheckEvent, Event, LookupEvent, RollEvent, ValueEvent, show_value
from rulekit.engine.values import clone
from rulekit.errors import RulekitError
from rulekit.language import nodes as n
from rulekit.play.verdicts import condition_words

ODDS_SECONDS = 0.2  # the whole decision's odds, or a line saying they are not ready
ODDS_MAX_PATHS = 2_000  # paths of dice per option
WALL_FACTOR = 10  # a busy machine may give this process a tenth of its time


@define
class OptionOdds:
    """One option's chances: what its roll needs, and each value P returns with its chance."""

    needs: str
    chances: list[tuple[Any, Fraction]]


def percent(p: Fraction) -> str:
    """A chance as a player reads it: ``40%``, ``27.8%`` (exact to the tenth)."""
    hundred = p * 100
    if hundred.denominator == 1:
        return f"{hundred.numerator}%"
    return f"{float(hundred):.1f}%"


class Odds:
    """The odds views of one rulebook, worked out at each decision that has one."""

    def __init__(self, checked: Checked) -> None:
        self.checked = checked
        book = checked.book
        # `view choose D = P` whose P takes the option (the others draw part of the board)
        self.views = {
            view.name: view
            for view in book.views.values()
            if view.decision
            and view.procedure in book.procedures
            and view.name in {p.name for p in book.procedures[view.procedure].params}
        }
        self._pure: dict[str, bool] = {}

    def has(self, request: DecisionRequest) -> bool:
        return request.name in self.views

    def title(self, request: DecisionRequest) -> str:
        view = self.views[request.name]
        return view.title or view.procedure.replace("_", " ")

    def work_out(
        self, request: DecisionRequest, game: Interpreter, seconds: float | None = None
    ) -> list[OptionOdds] | str:
        """Each option's odds, or why they cannot be shown (not ready in ``seconds``, by
        default ODDS_SECONDS; a rulebook error) in words."""
        if seconds is None:
            seconds = ODDS_SECONDS
        view = self.views[request.name]
        proc = self.checked.book.procedures[view.procedure]
        if not self._only_computes(view.procedure):
            return f"{view.procedure} changes the game: its odds cannot be worked out"
        # the budget is the computer's time spent here (time.process_time), so that what is
        # shown does not depend on what else the machine runs; the clock on the wall gets a
        # backstop of WALL_FACTOR times as much
        start = time.process_time()
        # the game as the player knows it: a copy, face-down pieces as their kind's defaults
        memo: dict[int, Any] = {}
        values = clone(game.state.values, memo)
        entities = clone(game.state.entities, memo)
        local = clone(dict(game.locals), memo)
        hide_copies(game, memo, None)
        state = GameState(values, entities)
        missing = [
            p.name
            for p in proc.params
            if p.name != request.name and p.name not in local and p.default is None
        ]
        if missing:
            return f"{view.procedure} needs {', '.join(missing)}, which the decision does not have"
        out: list[OptionOdds] = []
        for option in request.options:
            args = {p.name: local[p.name] for p in proc.params if p.name in local}
            args[request.name] = option
            left = seconds - (time.process_time() - start)
            if left <= 0:
                return f"not worked out within {seconds:g} s"
            try:
                chances = self._exact(
                    view.procedure, state, game.entity_count, args, left * WALL_FACTOR
                )
                needs = self._needs(view.procedure, state, game.entity_count, args)
            except RulekitError as exc:
                message = exc.diagnostics[0].message if exc.diagnostics else str(exc)
                if "took more than" in message:
                    return f"not worked out within {seconds:g} s"
                return message
            out.append(OptionOdds(needs, chances))
        return out

    def _only_computes(self, procedure: str) -> bool:
        found = self._pure.get(procedure)
        if found is None:
            call = n.Call(procedure, ())
            found = self._pure[procedure] = pure(
                self.checked.book, self.checked.tables, call, dice=True
            )
        return found

    def _exact(
        self,
        procedure: str,
        state: GameState,
        pieces: int,
        args: dict[str, Any],
        seconds: float,
    ) -> list[tuple[Any, Fraction]]:
        """The exact distribution of what ``procedure`` returns, on ``state``, every path
        of its dice (the analysis's own enumeration and time budget)."""
        proc = self.checked.book.procedures[procedure]

        def run(interp: Interpreter) -> Any:
            interp.resume(state, pieces)
            interp.mute()
            return interp.call(procedure, dict(args))

        question = Question(
            Target("procedure", procedure, proc.ref),
            run,
            lambda interp: dict(args),
            describe=f"the odds of procedure {procedure}",
        )
        found = exact(
            self.checked,
            question,
            max_paths=ODDS_MAX_PATHS,
            method="paths",
            max_seconds=seconds,
        )
        return [(o.value, o.p) for o in found.outcomes]

    def _needs(self, procedure: str, state: GameState, pieces: int, args: dict[str, Any]) -> str:
        """What the first roll of one run of ``procedure`` needs, in words, read off its
        trace (the check made on it), with the roll's dice and modifiers; "" when it makes no
        check on a roll (a table decides it: the chances say it all)."""
        side = Interpreter(self.checked, PathDice([]), DefaultPolicy())
        side.resume(state, pieces)
        side.call(procedure, dict(args))
        return needs_of(side.trace.events)


def needs_of(events: Sequence[Event]) -> str:
    """``needs 3 (difference) or less on d10, -1 Aggressive``: the first roll's check."""
    recent: dict[str, Any] = {}
    for k, e in enumerate(events):
        if isinstance(e, ValueEvent):
            recent[e.name] = e.value
        elif isinstance(e, LookupEvent):
            recent[e.table] = e.result
        elif isinstance(e, RollEvent):
            for nxt in events[k + 1 : k + 4]:
                if isinstance(nxt, CheckEvent):
                    said = condition_words(nxt, recent, e.depth).rpartition("?")[0]
                    mods = "".join(
                        f", {'+' if _positive(t.value) else ''}{show_value(t.value)} {t.label}"
                        for t in e.modifiers
                    )
                    return f"needs {said} on {e.dice}{mods}"
            return ""
    return ""


def _positive(value: Any) -> bool:
    try:
        return bool(value > 0)
    except TypeError:
        return False


def odds_said(odds: list[OptionOdds], title: str, show: Callable[[Any], str]) -> list[str]:
    """Each option's odds in words: ``to hit: needs 3 (difference) or less on d10: 40%``."""
    out = []
    for each in odds:
        if len(each.chances) == 1 and each.chances[0][0] is False and not each.needs:
            said = "0% (no roll can do it)"
        elif all(isinstance(v, bool) for v, _ in each.chances):
            yes = sum((p for v, p in each.chances if v is True), Fraction(0))
            said = (f"{each.needs}: " if each.needs else "") + percent(yes)
        else:
            told = ", ".join(f"{show(v)} {percent(p)}" for v, p in each.chances)
            said = (f"{each.needs}: " if each.needs else "") + told
        out.append(f"{title}: {said}")
    return out
