"""One run per class of outcomes: a ``let`` whose value throws dice, as a distribution.

rulekit.analysis.situations runs a procedure once per path of dice between two situations.
A battle's round ``let lost = attacker_losses(sorted_desc(roll 3 d6), sorted_desc(roll 2
d6))`` is 56 x 21 = 1,176 paths, each running the block and making a situation, although
the rest of the procedure can tell only three values of ``lost`` apart. Here such a value
is worked out as a distribution, node by node, the way icepool works out dice expressions:

- a node whose parts throw no dice runs once per path of the dice it throws itself (a
  roll: once per face, or per multiset of alike dice; a table with dice of its own: once
  per face of them);
- a call, an operator, a field or a list whose parts throw dice is applied once per
  combination of its parts' distinct values (the parts are independent: each throws its
  own dice), with those values given to it;
- anything else that throws dice (a conditional, a comprehension) runs once per path.

Equal values merge at every node, so the rest of the procedure runs once per distinct
value of the ``let``: a table look-up per row, a comparison per true/false, a modifier sum
per total. Distributions and applications whose values are plain (no game piece) are kept
for the whole question by what they read, so a battle's situations work a round's losses
out once for each pair of rolls.

Only a value that can only compute and throw dice is lifted (reach.pure with dice): no
draw, decision, change or new game piece, so neither the order of its throws nor how
often a part of it runs can matter.
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import attrs
from attrs import define

from rulekit.analysis.outcomes import PathDice, TooManyPaths, multisets
from rulekit.book.check_exprs import placeholders
from rulekit.engine.dice import Die, kept_outcomes, summed_outcomes
from rulekit.engine.reach import children, names_reached, throws
from rulekit.engine.values import Entity, Followed, RecordValue
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.interpreter import Interpreter

_UNBOUND = "\x00unbound"  # a name that is no local (a state variable, a constant...)


class SituationDice(PathDice):
    """PathDice whose weight is kept as two ints (numerator, denominator), a Fraction only
    once the run is over: a run throws many dice and Fraction arithmetic is slow."""

    def __init__(self, prefix: list[int], full: set[str]) -> None:
        super().__init__(prefix)
        self.num = 1
        self.den = 1
        self.full = full  # keep rolls whose faces were read: thrown die by die

    def probability(self) -> Fraction:
        return Fraction(self.num, self.den)

    def throw_kept(self, die: Die, count: int, keep: str, where: str) -> int | None:
        """The value a keep-highest/lowest roll keeps, thrown as one outcome of few (the
        roll's faces are then unknown: reading them raises DiceNeeded); None where the
        faces are needed."""
        if where in self.full:
            return None
        outcomes = kept_outcomes(die, count, keep)
        value, ways = outcomes[self._next(len(outcomes))]
        self.num *= ways
        self.den *= len(die.faces) ** count
        return value

    def throw_summed(self, die: Die, count: int, where: str) -> int | None:
        """The total of a roll of alike dice, thrown as one outcome of few (2d6: 11, not
        21 multisets); None where the faces are read."""
        if where in self.full:
            return None
        outcomes = summed_outcomes(die, count)
        value, ways = outcomes[self._next(len(outcomes))]
        self.num *= ways
        self.den *= len(die.faces) ** count
        return value

    def throw(self, die: Die, where: str) -> int:
        choice = self._next(len(die.faces))
        self.den *= len(die.faces)
        return die.faces[choice]

    def throw_group(self, die: Die, count: int, where: str) -> tuple[int, ...]:
        outcomes = multisets(die, count, self.limit)
        choice = self._next(len(outcomes))
        faces, ways = outcomes[choice]
        self.num *= ways
        self.den *= len(die.faces) ** count
        return faces


def canon(value: Any, seen: dict[int, int]) -> Any:
    """A hashable form of a value; a piece is written in full where it is first met and
    by its number after, so equal forms mean equal object graphs."""
    t = type(value)
    if t is int or t is str or t is bool or value is None:
        return value
    if t is Entity:
        number = seen.get(id(value))
        if number is not None:
            return ("piece", number)
        seen[id(value)] = len(seen)
        # in the order the fields were set (a piece's kind sets them in one order; another
        # order only makes two situations look different, never two different ones alike)
        attrs_ = tuple([(k, canon(v, seen)) for k, v in value.attrs.items()])
        return ("piece+", value.kind, value.label, attrs_)
    if t is tuple or t is list:
        return (t.__name__, *(canon(v, seen) for v in value))
    if t is dict:
        return ("dict", *((k, canon(value[k], seen)) for k in sorted(value)))
    if t is RecordValue:
        return ("record", value.type, tuple((k, canon(v, seen)) for k, v in value.fields))
    if t is Followed:
        return ("followed", canon(value.value, seen), canon(value.then, seen))
    hash(value)  # frozen values compare by value; anything else is not a situation's part
    return (t.__name__, value)


def _identity(value: Any) -> tuple[Any, bool]:
    """A hashable form of a value that tells pieces apart by identity (two pieces alike in
    every field are still two outcomes), and whether the value is plain (holds no piece and
    nothing mutable: it may be kept across situations)."""
    t = type(value)
    if t is int or t is str or t is bool or value is None:
        return value, True
    if t is Entity:
        return ("piece", id(value)), False
    if t is tuple:
        items = [_identity(v) for v in value]
        return ("tuple", *(k for k, _ in items)), all(p for _, p in items)
    if t is list or t is dict:
        return (t.__name__, id(value)), False
    if t is RecordValue:
        fields = [(k, *_identity(v)) for k, v in value.fields]
        return ("record", value.type, tuple((k, f) for k, f, _ in fields)), all(
            p for _, _, p in fields
        )
    if t is Followed:
        (a, pa), (b, pb) = _identity(value.value), _identity(value.then)
        return ("followed", a, b), pa and pb
    hash(value)
    return (t.__name__, value), True


@define
class Dist:
    """A distribution of values: ``items`` are (identity, value, count), each value's
    probability ``count / den``; ``plain``: no value holds a piece."""

    den: int
    items: list[tuple[Any, Any, int]]
    plain: bool


# the nodes applied to their parts' values: their parts are these fields
_PARTS: dict[type, tuple[str, ...]] = {
    n.BinOp: ("left", "right"),
    n.Compare: ("left", "right"),
    n.UnaryOp: ("operand",),
    n.Not: ("operand",),
    n.Attr: ("obj",),
}


class OverTime(Exception):
    """A lifted value took past the solver's deadline (``--max-seconds``): the solver
    reports it as its own budget's error."""


class Lifter:
    """Works out the distribution of lifted values for one question (its memory is kept
    while the question is solved; ``clear`` when it starts again)."""

    def __init__(self, interp: Interpreter, full: set[str], max_paths: int) -> None:
        self.interp = interp
        self.full = full
        self.max_paths = max_paths
        self.deadline: float | None = None  # time.monotonic() past which it stops (OverTime)
        self.describe = "the procedure"  # what is asked, for errors
        self.runs = 0  # evaluations made (a remembered one is not made again)
        self.book = interp.code.book
        self.tables = interp.code.tables
        # what is known of each node, kept with the rulebook's code (its nodes never change)
        facts = interp.code.analysis_facts
        self._nodes: dict[int, tuple[Any, bool, tuple[str, ...], tuple[str, ...]]]
        self._nodes = facts.setdefault("lift nodes", {})
        self._rewritten: dict[int, tuple[Any, Any, tuple[str, ...]]]
        self._rewritten = facts.setdefault("lift rewritten", {})
        self.dists: dict[Any, Dist] = {}
        self.applied: dict[Any, Dist] = {}

    def in_time(self) -> None:
        """Raise OverTime past the deadline: one value can be 10^8 combinations of dice."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OverTime

    def clear(self) -> None:
        self.dists.clear()
        self.applied.clear()

    def dist(self, e: Any) -> Dist:
        """The distribution of ``e``'s value, run in the interpreter's current frame."""
        _, rolls, _, _ = info = self._info(e)
        if not rolls:
            return self._paths(e, (), ())
        key = (id(e), self._reads(info))
        known = self.dists.get(key)
        if known is not None:
            return known
        parts = self._parts(e)
        if parts is None:
            found = self._paths(e, (), ())
        else:
            found = self._apply(e, [self.dist(p) for p in parts], key[1])
        if found.plain:
            self.dists[key] = found
        return found

    def _info(self, e: Any) -> tuple[Any, bool, tuple[str, ...], tuple[str, ...]]:
        """Whether ``e`` throws dice, the names it reads (locals or not) and the state
        variables and tracks it may read, following calls (kept with ``e`` alive)."""
        found = self._nodes.get(id(e))
        if found is None or found[0] is not e:
            book = self.book
            reached = names_reached(book, self.tables, [e])
            names = tuple(sorted(x for x in _names(e)))
            state = tuple(sorted(x for x in reached if x in book.states or x in book.tracks))
            found = self._nodes[id(e)] = (e, throws(book, self.tables, e), names, state)
        return found

    def _reads(self, info: tuple[Any, bool, tuple[str, ...], tuple[str, ...]]) -> Any:
        """What a node reads, as one hashable form (pieces numbered across it all)."""
        _, _, names, state = info
        i = self.interp
        seen: dict[int, int] = {}
        local = i.locals
        values = i.state.values
        return (
            tuple([canon(local[x], seen) if x in local else _UNBOUND for x in names]),
            tuple([canon(values.get(x), seen) for x in state]),
        )

    def _parts(self, e: Any) -> list[Any] | None:
        """The parts ``e`` is applied to, or None when it runs as a whole."""
        fields = _PARTS.get(type(e))
        if fields is not None:
            return [getattr(e, f) for f in fields]
        if type(e) is n.Call:
            return [a.value for a in e.args]
        if type(e) is n.ListLit:
            return list(e.items)
        return None

    def _rewritten_of(self, e: Any, count: int) -> tuple[Any, tuple[str, ...]]:
        """``e`` with its parts replaced by names of placeholders (kept with ``e``)."""
        found = self._rewritten.get(id(e))
        if found is None or found[0] is not e:
            names = tuple(f"\x00part{k}" for k in range(count))
            holders = [n.Name(x) for x in names]
            fields = _PARTS.get(type(e))
            if fields is not None:
                node = attrs.evolve(e, **dict(zip(fields, holders, strict=True)))
            elif type(e) is n.Call:
                args = tuple(attrs.evolve(a, value=h) for a, h in zip(e.args, holders, strict=True))
                node = attrs.evolve(e, args=args)
            else:
                node = attrs.evolve(e, items=tuple(holders))
            found = self._rewritten[id(e)] = (e, node, names)
        return found[1], found[2]

    def _apply(self, e: Any, parts: list[Dist], reads: Any) -> Dist:
        """``e`` applied to every combination of its parts' values, weighted."""
        size = math.prod(len(p.items) for p in parts)
        if size > self.max_paths:
            raise self.too_many()
        node, names = self._rewritten_of(e, len(parts))
        remember = all(p.plain for p in parts)
        state = reads[1]  # the state it may read (its parts' locals are given to it)
        results: list[tuple[int, Dist]] = []
        for done, combo in enumerate(itertools.product(*(p.items for p in parts))):
            if done % 1024 == 0:
                self.in_time()
            count = math.prod(c[2] for c in combo)
            key = (id(e), tuple(c[0] for c in combo), state) if remember else None
            known = self.applied.get(key) if key is not None else None
            if known is None:
                known = self._paths(node, names, tuple(c[1] for c in combo))
                if key is not None and known.plain:
                    self.applied[key] = known
            results.append((count, known))
        common = math.lcm(*(d.den for _, d in results))
        out: dict[Any, list[Any]] = {}
        plain = True
        for count, d in results:
            scale = count * (common // d.den)
            plain = plain and d.plain
            for k, v, c in d.items:
                slot = out.get(k)
                if slot is None:
                    out[k] = [v, scale * c]
                else:
                    slot[1] += scale * c
        den = math.prod(p.den for p in parts) * common
        return Dist(den, [(k, v, c) for k, (v, c) in out.items()], plain)

    def _paths(self, e: Any, names: tuple[str, ...], values: tuple[Any, ...]) -> Dist:
        """``e`` run once per path of the dice it throws, ``names`` set to ``values``."""
        i = self.interp
        local = i.locals
        for x, v in zip(names, values, strict=True):
            local[x] = v
        found: dict[Any, list[Any]] = {}  # identity -> [value, count out of den]
        den = 1
        plain = True
        prefix: list[int] | None = []
        paths = 0
        try:
            while prefix is not None:
                paths += 1
                if paths > self.max_paths:
                    raise self.too_many()
                if paths % 1024 == 0:
                    self.in_time()
                dice = SituationDice(prefix, self.full)
                dice.limit = self.max_paths
                i.use_dice(dice)
                i.new_run()  # a path is a run: the step budget is its own
                value = i.eval(e)
                self.runs += 1
                key, simple = _identity(value)
                plain = plain and simple
                if dice.den != den:  # counts kept over one denominator (ints, not Fractions)
                    common = math.lcm(den, dice.den)
                    for slot in found.values():
                        slot[1] *= common // den
                    den = common
                count = dice.num * (den // dice.den)
                known = found.get(key)
                if known is None:
                    found[key] = [value, count]
                else:
                    known[1] += count
                prefix = dice.next_prefix()
        finally:
            for x in names:
                del local[x]
        return Dist(den, [(k, v, c) for k, (v, c) in found.items()], plain)

    def too_many(self) -> TooManyPaths:
        return TooManyPaths.over(
            f"{self.describe} has more than {self.max_paths} paths of dice in one value it "
            "works out"
        )


def _names(e: Any) -> set[str]:
    """The names an expression mentions (its texts' ``{x}`` too), not following calls."""
    found: set[str] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, n.Name):
            found.add(x.id)
        elif isinstance(x, n.Str) and "{" in x.value:
            found.update(p.split(".")[0] for p in placeholders(x.value))
        stack.extend(children(x))
    return found
