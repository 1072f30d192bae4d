"""``--policy advised:EXPR``: at every decision, the option worth the most EXPR.

A decision belongs to the procedure whose body holds its ``choose``. While a game runs under
this policy, each procedure that holds a ``choose`` is remembered as it is entered: a copy of
the game state and of its arguments, and where the game's record of dice and decisions stood.
At a decision the policy plays that procedure again from the copy, once per option and path
of dice (as rulekit.analysis.advice does): the dice and decisions met since the procedure
began are replayed, then the option, then every path of the dice after it. Each run is worth
EXPR read when the procedure returns (its arguments and ``result`` in scope, and the state);
an option is worth the mean over its paths, weighted exactly. The option worth the most is
taken (the least with ``advised:min:``); a tie goes to the rulebook's default, then to the
earlier option.

The procedure's later decisions are first taken at the rulebook's defaults (only the dice
branch: one step of look-ahead). If they made a difference and the budget allows, the worth
is worked out again with each of them at its best (expectimax, the value ``rulekit advise``
gives); where that is over the budget, the look-ahead over the defaults stands and the trace
says so. (Each later decision is advised in its turn when the game reaches it; the procedures
that move a piece step by step have a run per combination of later options.) Beyond the
path budget (ADVISED_MAX_PATHS runs per decision), or where no copy was kept (a ``choose`` in
a table's action), the rulebook's default is taken and the trace says why ("advised:
default, ...").
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from attrs import define, field, frozen

from rulekit.analysis.advice import PathNode, Sides, Tape, goal_number, solve_tree
from rulekit.analysis.advised_situations import (
    ADVISED_MAX_SITUATIONS,
    option_values,
    stopped_run,
)
from rulekit.analysis.prob import of_expression
from rulekit.book.inputs import Target
from rulekit.engine.dice import DiceSource, Die
from rulekit.engine.hidden import hide_copies, pieces_copied
from rulekit.engine.interpreter import DEFAULT_STEP_BUDGET, Interpreter
from rulekit.engine.policy import DecisionRequest, DefaultPolicy
from rulekit.engine.reach import contains
from rulekit.engine.runtime import Frame, GameState
from rulekit.engine.values import clone
from rulekit.errors import (
    InputError,
    InternalRuleError,
    RuleRuntimeError,
    StepBudgetExceeded,
    error,
)
from rulekit.language import nodes as n
from rulekit.language.parser import parse_expression

if TYPE_CHECKING:
    from rulekit.book.checker import Checked

PREFIX = "advised:"
SITUATIONS = "situations:"  # advised:situations:EXPR
ADVISED_MAX_PATHS = 1_000  # runs of one procedure to advise one decision


@frozen
class Entry:
    """A procedure holding decisions, as it was entered."""

    procedure: str
    values: dict[str, Any]
    entities: list[Any]
    args: dict[str, Any]
    entity_count: int
    log_at: int  # where the record of dice and decisions stood
    # the copies of the pieces of hidden kinds, by the game's piece's id (engine.hidden)
    pieces: dict[int, Any] = field(factory=dict)


@define
class _Recording:
    """The game's dice, each throw written down as Tape numbers it (the face's position)."""

    inner: DiceSource
    log: list[int]

    def throw(self, die: Die, where: str) -> int:
        face = self.inner.throw(die, where)
        self.log.append(die.faces.index(face))
        return face


class _Replay(Tape):
    """The procedure again: the dice and decisions of the game replayed up to the decision
    advised (the ``at``-th branch point), every option there, then every path of dice. A
    later decision is a branch point too when ``later`` (expectimax), else it is taken as
    the rulebook's default. Dice come one by one, as the game threw them (no group throws)."""

    throw_group = None  # type: ignore[assignment]
    throw_kept = None  # type: ignore[assignment]
    throw_summed = None  # type: ignore[assignment]

    def __init__(self, prefix: list[int], at: int, later: bool) -> None:
        super().__init__(prefix, DefaultPolicy(), set())
        self.at = at
        self.later = later
        self.met_later = False  # a later decision with a choice to make was met

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        if len(request.options) < 2 or len(self.choices) <= self.at:
            return super().decide(request)
        self.met_later = True
        if self.later:
            return super().decide(request)
        return request.options[request.default_position or 0], "default"


@define
class Goal:
    """What an option is worth: EXPR, parsed, checked where it is read (per procedure)."""

    checked: Checked
    text: str
    minimize: bool = False
    where: str = "--policy"
    checked_in: dict[str, n.Expr] = field(factory=dict, init=False)  # by procedure

    def __attrs_post_init__(self) -> None:
        self.checked.book.sources.add(self.where, self.text)
        parse_expression(self.text, self.where)  # a syntax error: before the game

    @classmethod
    def read(cls, checked: Checked, text: str, where: str = "--policy") -> Goal:
        """``EXPR`` or ``max:EXPR`` (the most is best), ``min:EXPR`` (the least)."""
        goal = text.strip()
        minimize = goal.startswith("min:")
        if minimize or goal.startswith("max:"):
            goal = goal[4:].strip()
        return cls(checked, goal, minimize, where)

    def best(self, values: list[Fraction], default: int | None) -> int:
        """The option worth the most (least); a tie to the default, then the earlier."""
        sign = -1 if self.minimize else 1
        return max(range(len(values)), key=lambda k: (sign * values[k], k == default, -k))

    def expr(self, procedure: str) -> n.Expr:
        """EXPR checked where it is read: after ``procedure``, with its inputs."""
        expr = self.checked_in.get(procedure)
        if expr is None:
            decl = self.checked.book.procedures[procedure]
            target = Target("procedure", procedure, decl.ref)
            tracks = self.checked.book.tracks
            try:
                expr = of_expression(self.checked, target, self.text, self.where)
            except InputError as exc:
                raise InputError(
                    [
                        *exc.diagnostics,
                        error(
                            f"advised: the goal is read after procedure '{procedure}', "
                            "where a decision is advised",
                            where=self.where,
                            hint="name state variables and tracks"
                            + (f" (e.g. '{next(iter(tracks))}')" if tracks else "")
                            + ", which every procedure can read",
                        ),
                    ]
                ) from None
            self.checked_in[procedure] = expr
        return expr


@define
class Lookahead:
    """Watches a game's calls, dice and decisions, to value the options of a decision."""

    checked: Checked
    max_paths: int = ADVISED_MAX_PATHS
    max_situations: int = 0  # over max_paths, by situations from where the game stands
    interp: Interpreter | None = field(default=None, init=False)
    holders: frozenset[str] = field(init=False)  # frame names of procedures with a choose
    entries: list[Entry | None] = field(factory=list, init=False)
    live: int = field(default=0, init=False)  # entries that are not None
    log: list[int] = field(factory=list, init=False)
    # `rulekit play`'s `advise` answers in time or says why not: the time.monotonic() by
    # which the look-ahead gives up (None: no limit, as the advised policy runs)
    deadline: float | None = field(default=None, init=False)

    def __attrs_post_init__(self) -> None:
        self.holders = frozenset(
            f"procedure {p.name}"
            for p in self.checked.book.procedures.values()
            if any(contains(s, n.Choose) for s in p.body)  # type: ignore[arg-type]
        )

    # ---- the game's side ------------------------------------------------------------------

    def attach(self, interp: Interpreter) -> None:
        """Watch ``interp``'s calls (from before the scenario's set-up runs)."""
        self.interp = interp
        interp.watch_calls(self)
        self.entries = [None] * len(interp.frames)

    def entered(self, frame: Frame) -> None:
        i = self.interp
        if i is None or frame.name not in self.holders:
            self.entries.append(None)
            return
        if self.live == 0 and not isinstance(i.dice, _Recording):
            self.log.clear()
            i.use_dice(_Recording(i.dice, self.log))
        memo: dict[int, Any] = {}
        self.entries.append(
            Entry(
                frame.name.removeprefix("procedure "),
                clone(i.state.values, memo),
                clone(i.state.entities, memo),
                clone(frame.locals, memo),
                i.entity_count,
                len(self.log),
                pieces_copied(i, frame.locals, memo),
            )
        )
        self.live += 1

    def left(self) -> None:
        if self.entries.pop() is None:
            return
        self.live -= 1
        i = self.interp
        if self.live == 0 and i is not None and isinstance(i.dice, _Recording):
            i.use_dice(i.dice.inner)  # between procedures the game's own dice (saves read them)
            self.log.clear()

    def decided(self, request: DecisionRequest, index: int) -> None:
        """A decision was answered (by whoever): the replays must give the same answer."""
        if len(request.options) > 1:
            self.log.append(index)

    # ---- the look-ahead --------------------------------------------------------------------

    def values(self, request: DecisionRequest, goal: Goal) -> tuple[list[Fraction], bool] | str:
        """Each option's expected worth and whether the later decisions of the procedure
        are at their best (else at the rulebook's defaults), or why there is none.

        First with the later decisions at their defaults (dice alone branch); if they made
        a difference and the budget allows, again with them at their best (expectimax, as
        ``rulekit advise``)."""
        entry = self.entries[-1] if self.entries else None
        if entry is None:
            return "no copy of the procedure"
        expr = goal.expr(entry.procedure)
        rollout = self._values(entry, expr, goal, request, False)
        if isinstance(rollout, str):
            if self.max_situations and self.interp is not None and rollout.startswith("more"):
                # too many paths: from where the game stands, by situations
                found = option_values(
                    self.checked,
                    self.interp,
                    entry,
                    request,
                    (expr, goal.text, goal.minimize),
                    self.max_situations,
                )
                if not isinstance(found, str):
                    return found, True
            return rollout
        values, met_later = rollout
        if not met_later:
            return values, True  # no later choice: the defaults are the best play
        best = self._values(entry, expr, goal, request, True)
        return (best[0], True) if not isinstance(best, str) else (values, False)

    def _values(
        self, entry: Entry, expr: n.Expr, goal: Goal, request: DecisionRequest, later: bool
    ) -> tuple[list[Fraction], bool] | str:
        fixed = self.log[entry.log_at :]
        at = len(fixed)
        root = PathNode()
        prefix: list[int] | None = list(fixed)
        paths = 0
        met_later = False
        while prefix is not None:
            paths += 1
            if paths > self.max_paths:
                return f"more than {self.max_paths} paths"
            if self.deadline is not None and time.monotonic() > self.deadline:
                return f"out of time ({paths - 1} paths of the dice played)"
            tape = _Replay(prefix, at, later)
            if request.side is not None:  # later decisions of other sides work against it
                tape.sides = Sides(request.side)
            try:
                worth = self._run(entry, expr, goal.text, tape)
            except StepBudgetExceeded:
                return "a run over the step budget"
            except InternalRuleError:  # a bug of ours: reported, never an option's worth
                raise
            except RuleRuntimeError as exc:  # a path the game may never take stops there
                return stopped_run(exc)
            if len(tape.choices) <= at or tape.points[at].size != len(request.options):
                return "the replay went another way"  # cannot happen: same state, same dice
            met_later = met_later or tape.met_later
            node = root
            for choice, point in zip(tape.choices, tape.points, strict=True):
                node.point = point
                node = node.children.setdefault(choice, PathNode())
            node.value = worth
            prefix = _next_prefix(tape, at)
        node = root
        for choice in fixed:
            node = node.children[choice]
        sign = -1 if goal.minimize else 1
        below = [node.children[k] for k in sorted(node.children)]
        return [solve_tree(child, sign, [], Fraction(1), []) for child in below], met_later

    def _run(self, entry: Entry, expr: n.Expr, text: str, tape: Tape) -> Fraction:
        memo: dict[int, Any] = {}
        state = GameState(clone(entry.values, memo), clone(entry.entities, memo))
        args = clone(entry.args, memo)
        if entry.pieces and self.interp is not None:
            # what is face down at the decision reads as the player sees it: the look-ahead
            # averages over the dice, not over the truth of a hidden piece (engine.hidden)
            hide_copies(self.interp, entry.pieces, memo)
        replay = Interpreter(self.checked, tape, tape, state, DEFAULT_STEP_BUDGET)
        replay.mute()
        replay.resume(state, entry.entity_count)
        result = replay.call(entry.procedure, args)
        after = f", after procedure '{entry.procedure}' (where a decision is advised)"
        tracks = self.checked.book.tracks
        hint = "name state variables and tracks, which every procedure can read" + (
            f" (e.g. '{next(iter(tracks))}')" if tracks else ""
        )
        value = replay.evaluate(expr, {**args, "result": result})
        return goal_number(value, text, "--policy", after, hint)


@define
class AdvisedPolicy:
    """Takes the option worth the most ``goal`` (see the module's docstring)."""

    checked: Checked
    goal: str  # the expression as given, with its min: or max: if any
    max_paths: int = ADVISED_MAX_PATHS
    # ``advised:situations:EXPR``: a decision over the path budget is looked ahead by
    # situations, up to this many (rulekit.analysis.advised_situations); 0: not
    max_situations: int = 0
    worth: Goal = field(init=False)
    lookahead: Lookahead = field(init=False)
    # two sides (``choose ... by SIDE``): the goal is the first deciding side's; every other
    # side's decisions make it as small as they can (zero-sum, as ``rulekit advise``)
    sides: Sides = field(init=False, factory=Sides)
    against: Goal | None = field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        self.worth = Goal.read(self.checked, self.goal)
        self.lookahead = Lookahead(self.checked, self.max_paths, self.max_situations)

    def attach(self, interp: Interpreter) -> None:
        """Watch ``interp``'s calls (rulekit.play.runner does this when a game is made)."""
        self.lookahead.attach(interp)

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        if len(request.options) < 2:
            return DefaultPolicy().decide(request)
        goal = self.worth
        if self.sides.polarity(request.side) < 0:  # a side against the goal
            if self.against is None:
                mine = self.worth
                self.against = Goal(mine.checked, mine.text, not mine.minimize, mine.where)
            goal = self.against
        found = self.lookahead.values(request, goal)
        default = request.default_position
        if isinstance(found, str):
            best = default or 0
            by = f"advised: default, {found}"
        else:
            values, at_best = found
            best = goal.best(values, default)
            by = f"advised: worth {_short(values[best])}"
            if default is not None and default != best:
                by += f", the default {_short(values[default])}"
            if not at_best:
                by += " (later decisions at their defaults)"
        self.lookahead.decided(request, best)
        return request.options[best], by


def _short(x: Fraction) -> str:
    return str(x) if x.denominator == 1 else f"{float(x):.4g}"


def _next_prefix(tape: Tape, at: int) -> list[int] | None:
    """The next path that keeps the first ``at`` choices (the run so far) as they were."""
    for k in range(len(tape.choices) - 1, at - 1, -1):
        if tape.choices[k] + 1 < tape.points[k].size:
            return [*tape.choices[:k], tape.choices[k] + 1]
    return None


def make_advised(checked: Checked, spec: str) -> AdvisedPolicy:
    """``advised:EXPR`` or ``advised:max:EXPR`` (maximize), ``advised:min:EXPR`` (minimize);
    ``advised:situations:...``: over the path budget, by situations too."""
    goal = spec.removeprefix(PREFIX).strip()
    deep = goal.startswith(SITUATIONS)
    goal = goal.removeprefix(SITUATIONS).strip()
    if not goal:
        raise InputError(
            [
                error(
                    "advised: needs a goal, an expression to maximize",
                    where="--policy",
                    hint="e.g. --policy 'advised:tonnage_sunk' or --policy 'advised:min:subs_lost'",
                )
            ]
        )
    return AdvisedPolicy(checked, goal, max_situations=ADVISED_MAX_SITUATIONS if deep else 0)
