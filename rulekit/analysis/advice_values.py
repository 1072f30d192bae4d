"""What situations are worth with the best play: expectimax over their trees, and loops
(a Markov decision process) by policy iteration, exactly.

rulekit.analysis.advice_situations gives each situation a tree: its paths of dice (chance
points) and decisions (max points) up to the next situations, or the procedure's end. A
situation is worth its tree's value, each leaf worth what its situation is worth.

Without loops, the worths follow from the last situations back to the first. A loop (a roll
repeated until it succeeds, a round fought again) makes situations come back: their worths
are then unknowns of linear equations, one per situation of the loop, and the decisions in
the loop are solved by policy iteration: start from the rulebook's defaults, work the worths
out exactly (Gauss-Jordan elimination over fractions), take at every decision the option
worth the most given those worths, and again until no decision changes (only a strictly
better option replaces one, so it ends; each round's play is at least as good as the last).
A play under which a loop never ends has no worth: that is an error naming the loop.

How often a decision is reached is, in a loop, the expected number of times it is reached
with the best play (the same linear equations, forwards): 1 for a decision met once.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from attrs import define, field

from rulekit.analysis.advice import Point
from rulekit.analysis.linear import components, gauss
from rulekit.errors import RuleRuntimeError, error


@define
class SituationNode:
    """A branch point of a situation's paths, or (``leaf``) where a path ends: another
    situation's index, or the worth of the procedure's end."""

    point: Point | None = None
    children: dict[int, SituationNode] = field(factory=dict)
    leaf: tuple[str, Any] | None = None  # ("situation", index) or ("end", worth)


Choices = dict[int, int]  # a decision's node (by id) -> the option taken there


def successors(node: SituationNode) -> list[int]:
    """The situations a tree's leaves lead to."""
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        if current.leaf is not None and current.leaf[0] == "situation":
            out.append(current.leaf[1])
        stack.extend(current.children.values())
    return out


def pick(values: list[Fraction], sign: int, default: int | None) -> int:
    """The option worth the most (``sign`` 1) or least (-1); a tie to the default, then to
    the earlier option. ``sign`` 0: the default."""
    if sign == 0:
        return default if default is not None else 0
    return max(range(len(values)), key=lambda k: (sign * values[k], k == default, -k))


def value(node: SituationNode, worth: dict[int, Fraction], sign: int) -> Fraction:
    """The node's worth: the best option at each decision (``sign`` 1 most, -1 least; 0:
    the rulebook's default), the weighted mean at each throw."""
    if node.leaf is not None:
        kind, what = node.leaf
        return worth[what] if kind == "situation" else Fraction(what)
    point = node.point
    assert point is not None
    if point.kind == "dice":
        return sum(
            (point.weights[c] * value(child, worth, sign) for c, child in node.children.items()),
            Fraction(0),
        )
    values = [value(node.children[c], worth, sign) for c in range(point.size)]
    return values[pick(values, sign * point.polarity, point.default)]


def worths(trees: dict[int, SituationNode], sign: int, describe: str) -> dict[int, Fraction]:
    """Every situation's worth with the best play (``sign`` 1 or -1) or the defaults (0)."""
    out: dict[int, Fraction] = {}
    nexts = {index: successors(tree) for index, tree in trees.items()}
    for component in components(sorted(trees), nexts.__getitem__):
        first = component[0]
        if len(component) == 1 and first not in nexts[first]:
            out[first] = value(trees[first], out, sign)
        else:
            out.update(_loop(trees, component, out, sign, describe))
    return out


def order(trees: dict[int, SituationNode]) -> list[int]:
    """The situations, each set of them before the sets it leads to (the first first)."""
    nexts = {index: successors(tree) for index, tree in trees.items()}
    return [m for c in reversed(components(sorted(trees), nexts.__getitem__)) for m in c]


def visits(
    trees: dict[int, SituationNode], root: int, best: dict[int, Fraction], sign: int
) -> dict[int, Fraction]:
    """How often each situation is reached with the best play: a probability where no
    loop comes back to it, else the expected number of times."""
    flows = {index: _flows(tree, best, sign) for index, tree in trees.items()}
    nexts = {index: list(f) for index, f in flows.items()}
    inflow: dict[int, Fraction] = {root: Fraction(1)}
    out: dict[int, Fraction] = {}
    # successors first: reversed, each set of situations after those leading to it
    for component in reversed(components(sorted(trees), nexts.__getitem__)):
        members = set(component)
        position = {m: k for k, m in enumerate(component)}
        rows: list[tuple[dict[int, Fraction], Fraction]] = []
        for m in component:  # v_m - sum_j v_j P(j -> m) = inflow_m
            coeff = {position[m]: Fraction(1)}
            for j in component:
                p = flows[j].get(m)
                if p:
                    coeff[position[j]] = coeff.get(position[j], Fraction(0)) - p
            rows.append((coeff, inflow.get(m, Fraction(0))))
        solved = _gauss(rows)
        if solved is None:  # pragma: no cover - the worths were solved for this play
            raise AssertionError("a play whose worth was found never leaves a loop")
        for m in component:
            out[m] = solved[position[m]]
            for target, p in flows[m].items():
                if target not in members:
                    inflow[target] = inflow.get(target, Fraction(0)) + out[m] * p
    return out


def _flows(tree: SituationNode, best: dict[int, Fraction], sign: int) -> dict[int, Fraction]:
    """The probability of each situation a tree leads to, with the best play."""
    out: dict[int, Fraction] = {}
    stack: list[tuple[SituationNode, Fraction]] = [(tree, Fraction(1))]
    while stack:
        node, p = stack.pop()
        if node.leaf is not None:
            if node.leaf[0] == "situation":
                out[node.leaf[1]] = out.get(node.leaf[1], Fraction(0)) + p
            continue
        point = node.point
        assert point is not None
        if point.kind == "dice":
            stack.extend((child, p * point.weights[c]) for c, child in node.children.items())
            continue
        values = [value(node.children[c], best, sign) for c in range(point.size)]
        stack.append((node.children[pick(values, sign * point.polarity, point.default)], p))
    return out


# ---- loops: policy iteration ----------------------------------------------------------------


def _loop(
    trees: dict[int, SituationNode],
    component: list[int],
    known: dict[int, Fraction],
    sign: int,
    describe: str,
) -> dict[int, Fraction]:
    """The worths of a set of situations that lead to each other, the play improved until
    no decision changes (at the defaults only, with ``sign`` 0)."""
    position = {m: k for k, m in enumerate(component)}
    choices: Choices = {}
    trees_of = [trees[m] for m in component]
    if sign != 0 and _two_sided(trees_of):
        # two sides (zero-sum): Hoffman and Karp's policy iteration, the other side's best
        # answer to each play of the side advised, then that side's play improved
        while True:
            while True:
                worth = _worth(trees, component, position, known, choices, describe)
                if not _improve(trees_of, worth, sign, choices, only=-1):
                    break
            if not _improve(trees_of, worth, sign, choices, only=1):
                return {m: worth[m] for m in component}
    while True:
        worth = _worth(trees, component, position, known, choices, describe)
        if sign == 0 or not _improve([trees[m] for m in component], worth, sign, choices):
            return {m: worth[m] for m in component}


def _worth(
    trees: dict[int, SituationNode],
    component: list[int],
    position: dict[int, int],
    known: dict[int, Fraction],
    choices: Choices,
    describe: str,
) -> dict[int, Fraction]:
    """The worths of a loop's situations under fixed choices (and those already known)."""
    rows = []
    for m in component:  # x_m - sum(c_j * x_j) = r
        coeff, rest = _linear(trees[m], position, known, choices)
        coeff = {j: -c for j, c in coeff.items()}
        coeff[position[m]] = coeff.get(position[m], Fraction(0)) + 1
        rows.append((coeff, rest))
    solved = _gauss(rows)
    if solved is None:
        raise _endless(describe)
    return {**known, **{m: solved[position[m]] for m in component}}


def _two_sided(trees: list[SituationNode]) -> bool:
    """Whether any decision in the trees is of a side against the goal."""
    stack = list(trees)
    while stack:
        node = stack.pop()
        if node.point is not None and node.point.polarity < 0:
            return True
        stack.extend(node.children.values())
    return False


def _linear(
    node: SituationNode, position: dict[int, int], known: dict[int, Fraction], choices: Choices
) -> tuple[dict[int, Fraction], Fraction]:
    """A tree's worth under fixed choices, as sum(c_j * x_j) + r over the loop's worths."""
    coeff: dict[int, Fraction] = {}
    rest = Fraction(0)
    stack: list[tuple[SituationNode, Fraction]] = [(node, Fraction(1))]
    while stack:
        current, p = stack.pop()
        if current.leaf is not None:
            kind, what = current.leaf
            if kind == "situation" and what in position:
                j = position[what]
                coeff[j] = coeff.get(j, Fraction(0)) + p
            else:
                rest += p * (known[what] if kind == "situation" else Fraction(what))
            continue
        point = current.point
        assert point is not None
        if point.kind == "dice":
            stack.extend((child, p * point.weights[c]) for c, child in current.children.items())
        else:
            default = point.default if point.default is not None else 0
            stack.append((current.children[choices.get(id(current), default)], p))
    return coeff, rest


def _improve(
    trees: list[SituationNode],
    worth: dict[int, Fraction],
    sign: int,
    choices: Choices,
    only: int | None = None,
) -> bool:
    """Take at every decision (of one side only: ``only``, a polarity) the option worth
    the most to its side given ``worth``, where it is strictly better than the one taken;
    whether any changed."""
    changed = False
    stack = list(trees)
    while stack:
        node = stack.pop()
        stack.extend(node.children.values())
        point = node.point
        if node.leaf is not None or point is None or point.kind == "dice":
            continue
        if only is not None and point.polarity != only:
            continue
        turned = sign * point.polarity
        values = [value(node.children[c], worth, sign) for c in range(point.size)]
        now = choices.get(id(node), point.default if point.default is not None else 0)
        better = pick(values, turned, point.default)
        if turned * values[better] > turned * values[now]:
            choices[id(node)] = better
            changed = True
    return changed


def _gauss(rows: list[tuple[dict[int, Fraction], Fraction]]) -> list[Fraction] | None:
    """linear.gauss with a plain number on the right of each equation."""
    found = gauss([(coeff, {0: r}) for coeff, r in rows])
    return None if found is None else [x.get(0, Fraction(0)) for x in found]


def _endless(describe: str) -> RuleRuntimeError:
    return RuleRuntimeError(
        [
            error(
                f"{describe} can go round for ever: with the decisions taken, a loop "
                "comes back to its situations whatever the dice say",
                None,
                hint="fix the decision that keeps it going with --decide NAME=VALUE",
            )
        ]
    )
