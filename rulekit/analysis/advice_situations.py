"""The best decisions by situations: expectimax over merged runs (``rulekit advise``).

rulekit.analysis.advice plays a procedure once per path of dice and decisions, so a whole
combat (many rolls and choices) has too many paths. Here the procedure runs as resumable
blocks, as rulekit.analysis.situations solves ``prob``: from each *situation* (the block
about to run, the locals still read, the game state) every path of dice and decisions is
enumerated only as far as the next block boundary after a throw or a decision, and runs that
reach the same situation are merged. Each situation's paths form a small tree (dice are
chance points, decisions max points) whose leaves are other situations or the procedure's
end; a situation is worth its tree's value, the leaves worth what their situations are.

Situations that come back (a loop whose rounds repeat a situation) make a Markov decision
process: rulekit.analysis.advice_values solves it exactly, by policy iteration.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rulekit.analysis.advice import (
    Advice,
    BranchPoints,
    Decision,
    Option,
    Point,
    Sides,
    goal_number,
)
from rulekit.analysis.advice_values import SituationNode, order, pick, value, visits, worths
from rulekit.analysis.budget import Budget
from rulekit.analysis.lift import SituationDice
from rulekit.analysis.outcomes import Question, TooManyPaths, retried
from rulekit.analysis.situations import (
    Chain,
    Runner,
    Situation,
    walk,
    worth_a_stop,
)
from rulekit.book.checker import Checked
from rulekit.engine.codegen_blocks import blocks
from rulekit.engine.interpreter import DEFAULT_STEP_BUDGET
from rulekit.engine.policy import DefaultPolicy, Policy
from rulekit.engine.program import program_for
from rulekit.limits import DEFAULT_MAX_PATHS, DEFAULT_MAX_SITUATIONS


class _Tape(BranchPoints, SituationDice):
    """The dice and the policy of one run from a situation: replays ``prefix``, then takes
    the first outcome or option at each new branch point, noting each point."""

    def __init__(self, prefix: list[int], full: set[str], answered: set[str]) -> None:
        super().__init__(prefix, full)
        self.points: list[Point] = []
        self.answered = answered
        self.fixed = DefaultPolicy()  # --decide answers, the defaults otherwise

    @property
    def used(self) -> Any:
        """The --decide answers used so far (the situations' runner keeps them per run)."""
        return getattr(self.fixed, "used", None)

    def _branch(self, point: Point) -> int:
        self.points.append(point)
        return self._next(point.size)


class AdviceRunner(Runner):
    """The situations' runner, with decisions as branch points too."""

    def __init__(
        self, checked: Checked, question: Question, program: Any, max_steps: int, answered: set[str]
    ) -> None:
        super().__init__(checked, question, program, max_steps)
        self.lifting = False  # a lifted value's situations are chance points the tree
        # does not have: its dice are enumerated path by path
        self.answered = answered
        self.fixed: Policy | None = None
        self.sides = Sides()  # whose decisions are advised: the first met's side

    def tree(
        self, s: Situation, max_paths: int
    ) -> tuple[SituationNode, list[tuple[list[int], Any]]]:
        """Every path of dice and decisions from ``s`` to the next situation (or the end)."""
        i = self.interp
        assert self.fixed is not None
        root = SituationNode()
        ends: list[tuple[list[int], Any]] = []
        prefix: list[int] | None = []
        paths = 0
        while prefix is not None:
            paths += 1
            if paths > max_paths:
                raise TooManyPaths.over(
                    f"{self.question.describe} has more than {max_paths} paths of dice and "
                    "decisions between two of its situations",
                    TooManyPaths.DECIDE,
                )
            tape = _Tape(prefix, self.full, self.answered)
            tape.sides = self.sides
            tape.fixed = self.fixed
            i.use_policy(tape)
            try:
                where = self._run(s, tape)
                if not prefix and tape.choices and worth_a_stop(self.quiet, tape.sizes[0]):
                    # the blocks before the first branch point run alike on every path:
                    # one leaf, the situation where it is met (as Runner.expand does)
                    again = _Tape([], self.full, self.answered)
                    again.sides = self.sides
                    again.fixed = self.fixed
                    i.use_policy(again)
                    root.leaf = ("pending", 0)
                    return root, [([], self._run(s, again, self.quiet))]
            finally:
                i.use_policy(self.fixed)
            node = root
            for choice, point in zip(tape.choices, tape.points, strict=True):
                node.point = point
                node = node.children.setdefault(choice, SituationNode())
            ends.append((list(tape.choices), where))
            node.leaf = ("pending", len(ends) - 1)
            prefix = tape.next_prefix()
        return root, ends


def advise_by_situations(
    checked: Checked,
    question: Question,
    goal: str,
    minimize: bool = False,
    answered: set[str] | None = None,
    max_paths: int = DEFAULT_MAX_PATHS,
    max_steps: int = DEFAULT_STEP_BUDGET,
    max_situations: int = DEFAULT_MAX_SITUATIONS,
    *,
    tolerance: float = 0.0,
    max_seconds: float | None = None,
) -> Advice:
    """Expectimax over ``question``'s procedure by its situations (``--of`` is the goal).
    With a ``tolerance``, situations less likely than it (whatever the decisions) are left
    unexplored and worth 0; ``Advice.unresolved`` says how likely they are at most."""
    comp = program_for(checked)
    decl = checked.book.procedures[question.target.name]
    runner = AdviceRunner(checked, question, blocks(comp, decl), max_steps, answered or set())
    budget = Budget(max_paths, max_situations, max_seconds, tolerance, max_steps, deciding=True)
    return retried(lambda: _advise(runner, question, goal, minimize, budget), runner.dice_needed)


def _advise(
    runner: AdviceRunner,
    question: Question,
    goal: str,
    minimize: bool,
    budget: Budget,
) -> Advice:
    start = runner.start()
    runner.fixed = runner.interp.policy  # what the set-up installed (--decide answers)
    chain, trees, runs, cut = explore(runner, question, start, goal, budget)
    root = 0
    sign = -1 if minimize else 1
    best = worths(trees, sign, question.describe)
    by_default = worths(trees, 0, question.describe)
    reach = visits(trees, root, best, sign)
    decisions = _decisions(trees, order(trees), best, sign, reach)
    advice = Advice(question.describe, goal, best[root], by_default[root], decisions, runs)
    advice.situations = len(chain.nodes)
    if cut:
        advice.unresolved = min(1.0, sum(chain.nodes[k].reach for k in cut))
    return advice


def explore(
    runner: AdviceRunner,
    question: Question,
    start: Situation,
    goal: str,
    budget: Budget,
) -> tuple[Chain, dict[int, SituationNode], int, list[int]]:
    """Every situation reachable from ``start`` (index 0) with its tree of dice and
    decisions, the ends' worths read from ``goal``; the runs made; and the situations left
    unexplored, less likely than the tolerance (each a leaf worth 0), by situations.walk."""
    chain = Chain()
    trees: dict[int, SituationNode] = {}
    runs = 0

    def step(index: int, node: Situation) -> list[tuple[Fraction, Any]]:
        nonlocal runs
        tree, ends = runner.tree(node, budget.max_paths)
        trees[index] = tree
        runs += len(ends)
        return [(_chance(tree, choices), where) for choices, where in ends]

    def settle(index: int, node: Situation, went: list[tuple[Fraction, Any, int | None]]) -> None:
        leaves: list[tuple[str, Any]] = [
            ("situation", target) if target is not None else ("end", goal_number(where, goal))
            for _, where, target in went
        ]
        _settle(trees[index], leaves)

    # depth first without a tolerance: the situations numbered as they always were
    likeliest = budget.tolerance > 0
    cut = walk(chain, runner, start, question, budget, step, settle, likeliest_first=likeliest)
    for index in cut:
        trees[index] = SituationNode(leaf=("end", Fraction(0)))
    return chain, trees, runs, cut


def _chance(tree: SituationNode, choices: list[int]) -> Fraction:
    """The chance of a path's dice (a decision passes on all of it)."""
    p, node = Fraction(1), tree
    for c in choices:
        point = node.point
        if point is None:
            break
        if point.kind == "dice":
            p *= point.weights[c]
        node = node.children[c]
    return p


def _settle(node: SituationNode, leaves: list[tuple[str, Any]]) -> None:
    """The paths' ends, now known as situations (by index) or worths."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.leaf is not None:
            current.leaf = leaves[current.leaf[1]]
        stack.extend(current.children.values())


def _decisions(
    trees: dict[int, SituationNode],
    order: list[int],
    best: dict[int, Fraction],
    sign: int,
    reach: dict[int, Fraction],
) -> list[Decision]:
    """Each decision reached with the best play, in the order play reaches it, with how
    often it is reached (advice_values.visits) and the first way found to it (other ways
    may merge there)."""
    way: dict[int, list[str]] = {order[0]: []} if order else {}
    out: list[Decision] = []
    for index in order:
        here = reach.get(index, Fraction(0))
        if here == 0:
            continue
        # a situation a loop comes back to may be met first by its way back
        start = way.setdefault(index, ["..."])
        stack: list[tuple[SituationNode, list[str], Fraction]] = [(trees[index], start, here)]
        while stack:
            node, before, p = stack.pop()
            if node.leaf is not None:
                if node.leaf[0] == "situation":
                    way.setdefault(node.leaf[1], before)
                continue
            point = node.point
            assert point is not None
            if point.kind == "dice":
                for c in sorted(node.children, reverse=True):  # popped in order
                    label = point.labels[c]
                    stack.append((node.children[c], [*before, label], p * point.weights[c]))
                continue
            values = [value(node.children[c], best, sign) for c in range(point.size)]
            chosen = pick(values, sign * point.polarity, point.default)
            options = [Option(label, v) for label, v in zip(point.labels, values, strict=True)]
            minimize = sign * point.polarity < 0  # a side against the goal: the least
            decision = Decision(
                point.name, point.rule, list(before), p, options, chosen, point.default, minimize
            )
            out.append(decision)
            step = [*before, f"{point.name}={point.labels[chosen]}"]
            stack.append((node.children[chosen], step, p))
    return out
