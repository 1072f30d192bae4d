"""The best decisions, exactly: expectimax over a procedure's dice and decisions.

``rulekit advise`` runs a procedure again and again, as :mod:`rulekit.analysis.prob` does,
but here every ``choose`` is a branch point too: one tape of choices feeds both the dice
(chance points, each outcome with its exact weight) and the decisions (every legal option).
The runs are the leaves of a game tree; each leaf is worth the ``--maximize`` (or
``--minimize``) expression of its result. Going back up, a chance point is worth the
weighted mean of its outcomes and a decision the best of its options, so each decision
reached gets the expected value of every option, given what happened before it.

Decisions answered with ``--decide`` are not branch points: they take the answer given.
The number of runs is capped (``--max-paths``) before any is made beyond it.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

from attrs import define, field

from rulekit.analysis.budget import Budget
from rulekit.analysis.outcomes import Defaults, Question, TooManyPaths, multisets, retried
from rulekit.book.checker import Checked
from rulekit.engine.dice import Die, kept_outcomes, summed_outcomes
from rulekit.engine.interpreter import DEFAULT_STEP_BUDGET, Interpreter
from rulekit.engine.policy import DecisionRequest, DefaultPolicy, Policy
from rulekit.engine.values import show, unwrap
from rulekit.errors import InputError, error
from rulekit.limits import DEFAULT_MAX_PATHS


@define
class Point:
    """A branch point met on a run: a throw of dice or a decision."""

    kind: str  # "dice" or "decide"
    size: int  # how many outcomes or options
    labels: list[str]  # what each outcome shows, or each option
    weights: list[Fraction] = field(factory=list)  # for dice: each outcome's probability
    name: str = ""  # a decision's name
    rule: str | None = None
    default: int | None = None  # the option the rulebook advises
    # 1: a decision of the side advised (or of the one player); -1: of a side against it
    # (``choose ... by SIDE``), which, zero-sum, makes the goal as small as it can
    polarity: int = 1


class Sides:
    """Whose decisions are advised: the side of the first decision met that names one
    (``choose ... by SIDE``), unless ``mine`` is given; a decision of another side works
    against the goal (zero-sum: minimax)."""

    UNSET = object()

    def __init__(self, mine: Any = UNSET) -> None:
        self.mine = mine

    def polarity(self, side: Any) -> int:
        if side is None:
            return 1
        if self.mine is Sides.UNSET:
            self.mine = side
        return 1 if side == self.mine or show(side) == show(self.mine) else -1


class BranchPoints:
    """Dice and decisions as branch points, each noted with its outcomes' weights or its
    options; ``_branch`` says which outcome or option the run under way takes. Shared by
    the path-by-path Tape and the situations' (rulekit.analysis.advice_situations)."""

    full: set[str]  # keep-highest/lowest rolls whose faces are read: thrown die by die
    answered: set[str]  # decisions answered with --decide: not branch points
    fixed: Policy  # answers given with --decide (and the rulebook's defaults otherwise)
    limit: int = DEFAULT_MAX_PATHS  # a roll's outcomes allowed (the --max-paths budget)
    sides: Sides | None = None  # whose decisions are advised (None: every one's)

    def _branch(self, point: Point) -> int:
        raise NotImplementedError

    def throw(self, die: Die, where: str) -> int:
        n = len(die.faces)
        labels = [str(f) for f in die.faces]
        return die.faces[self._branch(Point("dice", n, labels, [Fraction(1, n)] * n))]

    def throw_kept(self, die: Die, count: int, keep: str, where: str) -> int | None:
        """The value a keep-highest/lowest roll keeps, one outcome of few (six d10 keep
        the highest: 10, not 5,005); None where the roll's faces are read."""
        if where in self.full:
            return None
        outcomes = kept_outcomes(die, count, keep)
        total = len(die.faces) ** count
        labels = [str(value) for value, _ in outcomes]
        weights = [Fraction(ways, total) for _, ways in outcomes]
        return outcomes[self._branch(Point("dice", len(outcomes), labels, weights))][0]

    def throw_summed(self, die: Die, count: int, where: str) -> int | None:
        """The total of a roll of alike dice, one outcome of few (2d6: 11, not 21); None
        where the roll's faces are read."""
        if where in self.full:
            return None
        outcomes = summed_outcomes(die, count)
        total = len(die.faces) ** count
        labels = [f"total {value}" for value, _ in outcomes]
        weights = [Fraction(ways, total) for _, ways in outcomes]
        return outcomes[self._branch(Point("dice", len(outcomes), labels, weights))][0]

    def throw_group(self, die: Die, count: int, where: str) -> tuple[int, ...]:
        outcomes = multisets(die, count, self.limit)
        total = len(die.faces) ** count
        labels = [", ".join(str(f) for f in faces) for faces, _ in outcomes]
        weights = [Fraction(ways, total) for _, ways in outcomes]
        return outcomes[self._branch(Point("dice", len(outcomes), labels, weights))][0]

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        if request.name in self.answered or len(request.options) < 2:
            return self.fixed.decide(request)
        default = request.default_position
        labels = [show(o) for o in request.options]
        point = Point("decide", len(labels), labels, [], request.name, request.rule, default)
        if self.sides is not None:
            point.polarity = self.sides.polarity(request.side)
        return request.options[self._branch(point)], "advise"


@define
class Tape(BranchPoints):
    """Both the dice source and the policy of one run: replays ``prefix``, then takes the
    first outcome or option at each new branch point."""

    prefix: list[int]
    fixed: Policy  # answers given with --decide (and the rulebook's defaults otherwise)
    answered: set[str]
    choices: list[int] = field(factory=list)
    points: list[Point] = field(factory=list)
    # keep-highest/lowest rolls whose faces are read: thrown die by die (see dice.Unthrown)
    full: set[str] = field(factory=set)

    def _branch(self, point: Point) -> int:
        position = len(self.choices)
        choice = self.prefix[position] if position < len(self.prefix) else 0
        self.choices.append(choice)
        self.points.append(point)
        return choice

    def next_prefix(self) -> list[int] | None:
        for i in range(len(self.choices) - 1, -1, -1):
            if self.choices[i] + 1 < self.points[i].size:
                return [*self.choices[:i], self.choices[i] + 1]
        return None


@define
class Option:
    label: str
    value: Fraction


@define
class Decision:
    """A decision reached: what came before it, and each option's expected value."""

    name: str
    rule: str | None
    before: list[str]  # the dice and decisions on the way, as shown
    reach: Fraction  # the probability of getting here with the best play
    options: list[Option]
    best: int
    default: int | None
    minimize: bool = False  # the goal: the least is best

    @property
    def gain(self) -> Fraction | None:
        """How much better the best option is than the rulebook's default: its worth less the
        default's when maximizing, the default's less its worth when minimizing (so never
        negative)."""
        if self.default is None:
            return None
        difference = self.options[self.best].value - self.options[self.default].value
        return -difference if self.minimize else difference


@define
class Advice:
    what: str
    goal: str  # "maximize EXPR" or "minimize EXPR"
    best: Fraction  # the expected value with the best decision at every point
    by_default: Fraction  # ... with the rulebook's defaults
    decisions: list[Decision]
    paths: int  # runs made (paths of dice and decisions; between situations, by situations)
    situations: int | None = None  # situations solved (rulekit.analysis.advice_situations)
    # how likely, at most, the situations a --tolerance left unexplored (worth 0) are
    unresolved: float | None = None


@define
class PathNode:
    point: Point | None = None
    children: dict[int, PathNode] = field(factory=dict)
    value: Fraction | None = None  # a leaf's worth


def advise(
    checked: Checked,
    question: Question,
    goal: str,
    minimize: bool = False,
    answered: set[str] | None = None,
    max_paths: int = DEFAULT_MAX_PATHS,
    max_steps: int = DEFAULT_STEP_BUDGET,
    *,
    max_seconds: float | None = None,
) -> Advice:
    """Expectimax over ``question`` (a procedure with ``--of`` the expression to optimise)."""
    full: set[str] = set()
    budget = Budget(max_paths, max_seconds=max_seconds, max_steps=max_steps, deciding=True)
    return retried(
        lambda: _advise(checked, question, goal, minimize, answered, budget, full), full.add
    )


def _advise(
    checked: Checked,
    question: Question,
    goal: str,
    minimize: bool,
    answered: set[str] | None,
    budget: Budget,
    full: set[str],
) -> Advice:
    root = PathNode()
    prefix: list[int] | None = []
    paths = 0
    defaults = Defaults()
    sides = Sides()
    max_paths, max_steps = budget.max_paths, budget.max_steps
    deadline = budget.deadline()
    while prefix is not None:
        paths += 1
        if deadline is not None and time.monotonic() > deadline:
            raise budget.too_long(question.describe, f"{paths - 1:,} paths")
        if paths > max_paths:
            raise TooManyPaths.over(
                f"{question.describe} has more than {max_paths} paths of dice and decisions",
                TooManyPaths.DECIDE,
            )
        tape = Tape(prefix, DefaultPolicy(), answered or set(), full=full)
        tape.sides = sides
        interp = Interpreter(checked, tape, tape, max_steps=max_steps)
        interp.mute()
        defaults.dice = tape  # type: ignore[assignment]  # the memo reads .choices
        interp.remember_defaults(defaults)
        args = question.setup(interp)
        tape.fixed = interp.policy  # the --decide answers the set-up installs
        interp.use_policy(tape)
        result = _run(interp, question, args)
        node = root
        for choice, point in zip(tape.choices, tape.points, strict=True):
            node.point = point
            node = node.children.setdefault(choice, PathNode())
        node.value = goal_number(result, goal)
        prefix = tape.next_prefix()
    sign = -1 if minimize else 1
    decisions: list[Decision] = []
    best = solve_tree(root, sign, [], Fraction(1), decisions)
    by_default = _default_value(root)
    return Advice(question.describe, goal, best, by_default, decisions, paths)


def _run(interp: Interpreter, question: Question, args: dict[str, Any]) -> Any:
    target = question.target
    if target.kind == "table":
        result = interp.lookup(target.name, args)
    else:
        result = interp.call(target.name, args)
    if question.of is None:
        return result
    return interp.evaluate(question.of, {**args, "result": result})


def goal_number(
    value: Any, goal: str, where: str = "--maximize", after: str = "", hint: str | None = None
) -> Fraction:
    v = unwrap(value)
    if isinstance(v, bool):
        return Fraction(int(v))
    if isinstance(v, int | Fraction):
        return Fraction(v)
    raise InputError(
        [
            error(
                f"{goal} gives {show(v)}, not a number{after}",
                where=where,
                hint=hint
                or "give an expression of the result that is a number, e.g. "
                "'result.tonnage' or 'if result = sunk then 1 else 0'",
            )
        ]
    )


def solve_tree(
    node: PathNode, sign: int, before: list[str], reach: Fraction, out: list[Decision]
) -> Fraction:
    """The node's worth with the best play below it; the decisions met on the way."""
    point = node.point
    if point is None:
        assert node.value is not None
        return node.value
    if point.kind == "dice":
        total = Fraction(0)
        for choice, child in sorted(node.children.items()):
            weight = point.weights[choice]
            step = [*before, f"{point.labels[choice]}"]
            total += weight * solve_tree(child, sign, step, reach * weight, out)
        return total
    mine = len(out)
    turned = sign * point.polarity  # a side against the goal makes it small
    out.append(
        Decision(point.name, point.rule, list(before), reach, [], 0, point.default, turned < 0)
    )
    values: list[Fraction] = []
    nested: list[list[Decision]] = []
    for choice in range(point.size):
        below: list[Decision] = []
        step = [*before, f"{point.name}={point.labels[choice]}"]
        values.append(solve_tree(node.children[choice], sign, step, reach, below))
        nested.append(below)
    best = max(range(point.size), key=lambda k: (turned * values[k], k == point.default, -k))
    decision = out[mine]
    decision.options = [Option(label, v) for label, v in zip(point.labels, values, strict=True)]
    decision.best = best
    out.extend(nested[best])  # the decisions reached afterwards, on the best option only
    return values[best]


def _default_value(node: PathNode) -> Fraction:
    """The worth with the rulebook's defaults (the first option where it gives none)."""
    point = node.point
    if point is None:
        assert node.value is not None
        return node.value
    if point.kind == "dice":
        return sum(
            (point.weights[c] * _default_value(child) for c, child in node.children.items()),
            Fraction(0),
        )
    choice = point.default if point.default is not None else 0
    return _default_value(node.children[choice])
