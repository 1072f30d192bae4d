"""Exact distributions by situations: runs that reach the same situation are merged.

rulekit.analysis.prob enumerates every path of dice, so a battle fought in rounds until one
side is gone has about 10^12 paths although its positions are a handful. Here the procedure
runs as resumable blocks (rulekit.engine.codegen_blocks). A *situation* is the block about to
run, the locals that may still be read from there, the game state and the count of pieces
made: two runs in the same situation go on alike, so they are merged and their weights add.

From each situation every path of dice is enumerated only as far as the next block boundary
after a throw; where each path ends is another situation (or the procedure's result). The
situations and the exact weights between them form a Markov chain: one whose situations come
back (a roll repeated until it succeeds) is solved exactly as an absorbing chain (each
strongly connected set of situations by Gaussian elimination over fractions).

Budgets are checked before work is done: the number of situations, the paths of dice between
two situations, and the time. With a tolerance, a situation reached with less probability
than it is not explored; the probability of the unexplored ones is reported as unresolved.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from attrs import define, field

from rulekit.analysis.budget import Budget
from rulekit.analysis.lift import Dist, Lifter, OverTime, SituationDice, canon
from rulekit.analysis.linear import components, gauss
from rulekit.analysis.outcomes import (
    Distribution,
    Outcome,
    PathDice,
    Question,
    TooManyPaths,
    outcome_key,
    outcome_order,
    retried,
)
from rulekit.book.checker import Checked
from rulekit.engine.codegen_blocks import END, Blocks, Enter, Lift, blocks
from rulekit.engine.codegen_runtime import located
from rulekit.engine.interpreter import DEFAULT_STEP_BUDGET, Interpreter
from rulekit.engine.program import program_for
from rulekit.engine.reach import counters, names_reached, names_read
from rulekit.engine.runtime import MAX_NESTING, Frame, GameState, TurnEnded
from rulekit.engine.values import clone, unwrap
from rulekit.errors import InputError, InternalRuleError, RulekitError, RuleRuntimeError, error
from rulekit.language import nodes as n
from rulekit.limits import DEFAULT_MAX_PATHS, DEFAULT_MAX_SITUATIONS

# a variable that only counts up and is read tells situations apart for ever (a round
# number): looked for at 1,000 situations found, then 2,000, 4,000 ... (each look reads every
# situation's key once), it is one that takes 20 values or more and without which there
# would be 10 times fewer situations (issue 33: fail within 2 s, naming it)
COUNTER_CHECK = 1_000
COUNTER_VALUES = 20
COUNTER_MERGE = 10
UNRESOLVED = "\x00unresolved"  # the key of the probability left unexplored


def worth_a_stop(quiet: int, outcomes: int) -> bool:
    """Whether to take a situation where a situation's first throw is (after ``quiet``
    blocks that run alike on every path, with ``outcomes`` outcomes): it runs those blocks
    once more and makes one more situation, against once less for each other outcome
    (measured on the Silent War combat round and Attack Sub's lockon attack: a situation
    costs about as much as running twenty blocks again)."""
    return quiet * (outcomes - 1) >= 20


@define
class _Defaults:
    """Decision defaults remembered across runs (Interpreter.defaults): the situation a run
    started from, the dice thrown since and the decisions made fix a default."""

    start: int = 0  # id() of the situation the run started from (the chain keeps them all)
    dice: SituationDice | None = None
    known: dict[Any, int] = field(factory=dict)

    def key(self, decisions: int) -> Any:
        assert self.dice is not None
        return (self.start, decisions, tuple(self.dice.choices))


class TooManySituations(InputError):
    """The procedure reaches more situations than the budget allows."""


class _Entered(BaseException):
    """Raised on entering the procedure, to take its bound arguments (a BaseException: the
    engine turns unexpected Exceptions into rule errors)."""

    def __init__(self, bound: dict[str, Any]) -> None:
        super().__init__()
        self.bound = bound  # not .args: BaseException makes that a tuple


# ---- situations: a copy to resume from, and a key that tells them apart -------------------


@define
class Situation:
    """Where a run stands: the block about to run and what it may read."""

    block: int
    locals: dict[str, Any]
    state: GameState
    entities: int
    inputs: dict[str, Any]  # the question's inputs as this run has them (``--of`` reads them)
    answered: dict[str, int]  # --decide answers used so far, by decision (they go in order)
    reach: float = 0.0  # probability of reaching it, as found so far (to order and cut)
    edges: list[tuple[Fraction, Any]] | None = None  # (weight, situation index or outcome key)
    program: Blocks | None = None  # the blocks ``block`` is of (None: the procedure's own)
    callers: tuple[_Caller, ...] = ()  # the calls being made, outermost first


@define
class _Caller:
    """A call being made, run as blocks: the caller's blocks, frame and locals, where it
    goes on (``after``) and what it sets (``target``) on the return, the locals it reads
    then (``live``), and the rule reference to restore."""

    program: Blocks
    frame: Frame
    after: int
    target: str | None
    live: frozenset[str]
    ref: Any


@define
class Chain:
    """The situations found and the outcomes they lead to."""

    nodes: list[Situation] = field(factory=list)
    index: dict[Any, int] = field(factory=dict)
    outcomes: dict[str, Any] = field(factory=dict)  # outcome key -> value
    runs: int = 0


def solve_by_situations(
    checked: Checked,
    question: Question,
    *,
    max_situations: int = DEFAULT_MAX_SITUATIONS,
    max_paths: int = DEFAULT_MAX_PATHS,
    max_steps: int = DEFAULT_STEP_BUDGET,
    max_seconds: float | None = None,
    tolerance: float = 0.0,
) -> Distribution:
    """The exact distribution of a procedure's result (or ``--of``), situation by
    situation. ``max_paths`` bounds the paths of dice between two situations."""
    comp = program_for(checked)
    decl = checked.book.procedures[question.target.name]
    runner = Runner(checked, question, blocks(comp, decl), max_steps)
    return retried(
        lambda: _solve(runner, question, max_situations, max_paths, max_seconds, tolerance),
        runner.dice_needed,
    )


def _solve(
    runner: Runner,
    question: Question,
    max_situations: int,
    max_paths: int,
    max_seconds: float | None,
    tolerance: float,
) -> Distribution:
    budget = Budget(max_paths, max_situations, max_seconds, tolerance)
    chain = Chain()

    def step(index: int, node: Situation) -> list[tuple[Fraction, Any]]:
        return runner.expand(node, max_paths)

    def settle(index: int, node: Situation, went: list[tuple[Fraction, Any, int | None]]) -> None:
        edges: dict[Any, Fraction] = {}  # paths to one place add up to one edge
        for weight, where, target in went:
            place: Any = target
            if target is None:  # the end: the outcome's key
                place = outcome_key(where)
                chain.outcomes.setdefault(place, where)
            known = edges.get(place)  # (Fraction arithmetic is slow: no 0 + weight)
            edges[place] = weight if known is None else known + weight
        node.edges = [(w, t) for t, w in edges.items()]

    walk(chain, runner, runner.start(), question, budget, step, settle)
    chain.runs = runner.runs + runner.lifter.runs
    weights = _absorption(chain, question)
    outcomes = [Outcome(chain.outcomes[k], p) for k, p in weights.items() if k != UNRESOLVED]
    outcomes.sort(key=lambda o: outcome_order(o.value))
    unresolved = weights.get(UNRESOLVED, Fraction(0))
    if _total([unresolved, *(o.p for o in outcomes)]) != 1:  # a bug, not bad input
        raise AssertionError(f"probabilities of {question.describe} do not sum to 1")
    dist = Distribution(
        question.describe, outcomes, chain.runs, provisional_used=runner.provisional
    )
    dist.situations = len(chain.nodes)
    dist.unresolved = unresolved
    return dist


Step = Callable[[int, "Situation"], list[tuple[Fraction, Any]]]
Settle = Callable[[int, "Situation", list[tuple[Fraction, Any, "int | None"]]], None]


def walk(
    chain: Chain,
    runner: Runner,
    start: Situation,
    question: Question,
    budget: Budget,
    step: Step,
    settle: Settle,
    likeliest_first: bool = True,
) -> list[int]:
    """The one walk over a procedure's situations, for probabilities (``prob``) and for
    expectimax (``advise``): from ``start`` (index 0), ``step`` gives a situation's ways on,
    each with the chance of its dice (a decision passes its whole chance to every option) and
    where it goes (a situation, or the procedure's end); ``settle`` gets them back with each
    situation's index (None at an end). Budgets are applied here: situations
    (--max-situations), seconds (--max-seconds, also within one lifted value) and the
    tolerance (a situation less likely than it is left unexplored, unsettled; the cut ones
    are returned). Likeliest first (the chance as far as known), so that a tolerance leaves
    only the least likely; else the last found first (depth first)."""
    root = _add(chain, runner, start, 1.0, budget.max_situations, question, budget)
    deadline = budget.deadline()
    check = COUNTER_CHECK  # the situations found when counters are next looked for
    frontier = [(-1.0, root)]
    cut: list[int] = []
    pushed = 0
    done: set[int] = set()
    while frontier:
        _, index = heapq.heappop(frontier)
        if index in done:  # (depth first: found again before it was walked from)
            continue
        done.add(index)
        node = chain.nodes[index]
        if budget.cut(node.reach):
            cut.append(index)
            continue  # left unresolved (no edges)
        if deadline is not None and time.monotonic() > deadline:
            raise budget.too_long(question.describe, f"{len(chain.nodes)} situations")
        if len(chain.nodes) >= check and not budget.tolerance:
            check *= 2
            counted = runner.counted(chain)
            if counted is not None:
                found = budget.counting(question.describe, len(chain.nodes), *counted)
                raise TooManySituations(found.diagnostics)  # (diff samples it instead)
        runner.lifter.deadline = deadline  # one lifted value can take longer than all else
        try:
            expanded = step(index, node)
        except OverTime:
            raise budget.too_long(question.describe, f"{len(chain.nodes)} situations") from None
        went: list[tuple[Fraction, Any, int | None]] = []
        for weight, where in expanded:
            if isinstance(where, Situation):
                before = len(chain.nodes)
                reach = node.reach * float(weight)
                target = _add(chain, runner, where, reach, budget.max_situations, question, budget)
                if likeliest_first and len(chain.nodes) > before:
                    heapq.heappush(frontier, (-reach, target))
                elif not likeliest_first and target not in done:
                    pushed += 1  # the last found first, also found again
                    heapq.heappush(frontier, (-pushed, target))
                went.append((weight, where, target))
            else:
                went.append((weight, where, None))
        settle(index, node, went)
    return cut


def _add(
    chain: Chain,
    runner: Runner,
    s: Situation,
    reach: float,
    max_situations: int,
    question: Question,
    budget: Budget | None = None,
) -> int:
    key = runner.key(s)
    found = chain.index.get(key)
    if found is not None:
        chain.nodes[found].reach += reach
        return found
    if len(chain.nodes) >= max_situations:
        budget = budget or Budget(max_situations=max_situations)
        raise TooManySituations(budget.too_many_situations(question.describe).diagnostics)
    s.reach = reach
    chain.index[key] = len(chain.nodes)
    chain.nodes.append(s)
    return len(chain.nodes) - 1


# ---- running blocks -------------------------------------------------------------------------


class Runner:
    """One interpreter, set to each situation in turn and run from there."""

    def __init__(
        self, checked: Checked, question: Question, program: Blocks, max_steps: int
    ) -> None:
        self.checked = checked
        self.question = question
        self.program = program
        self.interp = Interpreter(checked, PathDice([]), max_steps=max_steps)
        self.interp.mute()  # untraced: only values and provisional values are read
        self.args: dict[str, Any] = {}
        self.inputs: dict[str, Any] = {}  # the inputs of the run under way
        self.defaults = _Defaults()
        self.full: set[str] = set()  # keep rolls to throw die by die (see dice.Unthrown)
        # a block whose value only computes and throws dice (codegen_blocks.Lift), worked
        # out as a distribution: the runs stop before one, and go on once per distinct value
        self.lifting = True
        self.lifter = Lifter(self.interp, self.full, DEFAULT_MAX_PATHS)
        self.lifter.describe = question.describe
        self.runs = 0  # paths of dice run (the lifter counts its own)
        self.quiet = 0  # blocks the last run ran before its first throw
        self.keys: list[str] | None = None  # the touched state variables, sorted once
        self.provisional: list[str] = []
        self.frame_name = f"procedure {program.name}"
        # the procedure's rule, as Interpreter.call's frame has it (errors say "in procedure
        # p [1.0]" by either method)
        entered = checked.book.procedures.get(program.name)
        self.frame_rule = entered.ref if entered is not None else None
        self.callers: list[_Caller] = []  # the calls being made in the run under way
        # the state variables the procedure (and what it calls, and --of) may read or write;
        # the others are the same in every situation: neither copied nor compared
        self.touched = program.reached | (
            names_reached(checked.book, checked.tables, [question.of])
            if question.of is not None
            else set()
        )
        # the variables it writes but nothing reads (a round number that only counts): what
        # they hold changes nothing, so situations that differ only in them are merged
        self.counting = frozenset(self.touched - self._read(entered, question))
        self.counters: dict[str, n.Span] | None = None  # the read ones (counted), found once

    def dice_needed(self, where: str) -> None:
        """A keep roll's faces are read (outcomes.retried): throw them all, anew."""
        self.full.add(where)
        self.defaults.known.clear()
        self.lifter.clear()
        self.runs = self.lifter.runs = 0  # the runs of the solve that finishes

    def counted(self, chain: Chain) -> tuple[str, int, n.Span] | None:
        """A variable that only counts up (reach.counters) and is read, which the
        situations found keep telling apart: it takes at least COUNTER_VALUES values, and
        without it they would be COUNTER_MERGE times fewer (a round number read by the
        result: its situations would never come back). Its name, largest value and first
        increment; None when there is none."""
        if self.counters is None:
            decl = self.checked.book.procedures[self.program.name]
            found = counters(self.checked.book, self.checked.tables, [*decl.body])
            self.counters = {k: v for k, v in found.items() if k not in self.counting}
        total = len(chain.index)
        for name, span in sorted(self.counters.items()):
            values: set[Any] = set()
            rest: set[Any] = set()
            for where, local, state, *others in chain.index:
                got = [v for k, v in (*local, *state) if k == name]
                values.update(v for v in got if type(v) is int)
                rest.add(
                    (
                        where,
                        tuple(kv for kv in local if kv[0] != name),
                        tuple(kv for kv in state if kv[0] != name),
                        *others,
                    )
                )
            if len(values) >= COUNTER_VALUES and len(rest) * COUNTER_MERGE <= total:
                return name, max(values), span
        return None

    def _read(self, decl: n.ProcedureDecl | None, question: Question) -> set[str]:
        """The names the procedure, what it calls, and ``--of`` may read."""
        if decl is None:  # pragma: no cover - a runner is for a procedure
            return set(self.touched)
        roots: list[Any] = [*decl.body, *decl.params]
        if question.of is not None:
            roots.append(question.of)
        return names_read(self.checked.book, self.checked.tables, roots)

    def start(self) -> Situation:
        """The situation at the procedure's first block, its arguments bound as a call binds
        them (the call is made, and stopped as it enters the procedure)."""
        i = self.interp
        i.set_frames(())  # a solve started again (DiceNeeded) may have left a run's frames
        self.args = self.question.setup(i)
        proc = i.code.procedure(self.program.name)
        if proc.untraced is None:  # built on first use
            proc.body = i.code.body(self.checked.book.procedures[self.program.name])
        body, untraced = proc.body, proc.untraced

        def entering(plain: Any) -> Any:
            def enter(interp: Interpreter) -> tuple[Any] | None:
                if len(interp.frames) == 2:  # the call made here, not one the procedure makes
                    raise _Entered(dict(interp.locals))
                return plain(interp)  # type: ignore[no-any-return]

            return enter

        proc.body, proc.untraced = entering(body), entering(untraced)
        try:
            i.call(self.program.name, self.args)
        except _Entered as entered:
            bound = entered.bound
        else:  # pragma: no cover - the call always enters the procedure
            raise AssertionError("the procedure was not entered")
        finally:
            proc.body, proc.untraced = body, untraced
        self._note_provisional()
        return Situation(
            self.program.entry, bound, i.state, i.entity_count, self.args, self._answered()
        )

    def key(self, s: Situation) -> Any:
        seen: dict[int, int] = {}
        values = s.state.values
        if self.keys is None:  # the state variables compared, in one order
            book = self.checked.book
            compared = (self.touched - self.counting) & (
                set(book.states) | set(book.tracks) | set(values)
            )
            self.keys = sorted(compared)
        state = tuple([(k, canon(values[k], seen)) for k in self.keys if k in values])
        pieces = canon(s.state.entities, seen)
        program = s.program or self.program
        callers = tuple(
            (
                c.program.name,
                c.after,
                c.target,
                tuple(
                    (k, canon(c.frame.locals[k], seen))
                    for k in sorted(c.live - self.counting)
                    if k in c.frame.locals
                ),
            )
            for c in s.callers
        )
        live = program.live[s.block] - self.counting if s.block >= 0 else frozenset()
        local = tuple((k, canon(s.locals[k], seen)) for k in sorted(live) if k in s.locals)
        inputs = tuple((k, canon(s.inputs[k], seen)) for k in sorted(s.inputs))
        answered = tuple(sorted(s.answered.items()))
        where = (program.name, s.block, callers)
        return (where, local, state, pieces, inputs, s.entities, answered)

    def _restore(self, s: Situation) -> None:
        memo: dict[int, Any] = {}
        i = self.interp
        values = dict(s.state.values)
        for k in self.touched.intersection(values):
            values[k] = clone(values[k], memo)
        state = GameState(values, clone(s.state.entities, memo))
        self.callers = [
            _Caller(
                c.program,
                Frame(c.frame.name, c.frame.rule, clone(c.frame.locals, memo)),
                c.after,
                c.target,
                c.live,
                c.ref,
            )
            for c in s.callers
        ]
        local = clone(s.locals, memo)
        self.inputs = clone(s.inputs, memo)
        if s.callers:  # inside a call: its frame as codegen_runtime._run makes it
            decl = self.checked.book.procedures[(s.program or self.program).name]
            inner = Frame(f"procedure {decl.name}", decl.ref, local)
        else:
            inner = Frame(self.frame_name, self.frame_rule, local)
        # (a fresh step budget, no decision counted, no event kept)
        i.resume(state, s.entities, [*(c.frame for c in self.callers), inner])
        used = getattr(i.policy, "used", None)
        if isinstance(used, dict):
            used.clear()
            used.update(s.answered)
        self.defaults.start = id(s)
        i.remember_defaults(self.defaults)

    def expand(self, s: Situation, max_paths: int) -> list[tuple[Fraction, Any]]:
        """Every path of dice from ``s`` to the next situation (or the end), weighted; at a
        lifted ``let``, one situation per distinct value of it."""
        program = s.program or self.program
        lift = program.lifts.get(s.block) if self.lifting else None
        # a return inside a call goes back to the caller: that block runs by paths
        if lift is not None and not (s.callers and lift.kind == "return"):
            return self._lifted(s, lift, max_paths)
        out: list[tuple[Fraction, Any]] = []
        prefix: list[int] | None = []
        paths = 0
        while prefix is not None:
            paths += 1
            if paths > max_paths:
                raise TooManyPaths.over(
                    f"{self.question.describe} has more than {max_paths} paths of dice "
                    "between two of its situations"
                )
            dice = SituationDice(prefix, self.full)
            dice.limit = max_paths
            self.runs += 1
            where = self._run(s, dice)
            if not prefix and dice.choices and worth_a_stop(self.quiet, dice.sizes[0]):
                # the blocks before the first throw run alike on every path: a situation
                # where it is thrown, instead of running them again for each of its faces
                self.runs += 1
                return [(Fraction(1), self._run(s, SituationDice([], self.full), self.quiet))]
            out.append((dice.probability(), where))
            prefix = dice.next_prefix()
        return out

    def _lifted(self, s: Situation, lift: Lift, max_paths: int) -> list[tuple[Fraction, Any]]:
        """The situations after a lifted block (the outcomes of a lifted ``return``): one
        per distinct value, weighted."""
        self._restore(s)
        i = self.interp
        i.set_rule(lift.ref)
        self.lifter.max_paths = max_paths
        program = s.program or self.program
        try:
            dist: Dist = self.lifter.dist(lift.value)
            if lift.kind == "return":
                return [(Fraction(c, dist.den), self._outcome(v)) for _, v, c in dist.items]
        except (OverTime, TurnEnded, RulekitError):
            raise
        except Exception as exc:  # a bug of ours working the value out: at its block's line
            span = program.spans[s.block] if s.block >= 0 else None
            raise internal_error(i, exc, span) from exc
        finally:
            self._note_provisional()
        answered, callers = self._answered(), tuple(self.callers)
        # (taken before the runs below, which restore copies of them)
        state, entities, inputs, base = i.state, i.entity_count, self.inputs, i.locals
        out: list[tuple[Fraction, Any]] = []
        for _, value, count in dist.items:
            local = dict(base)
            if lift.kind == "let":
                local[lift.name] = value
                block = lift.after
            else:  # the way a branch takes
                block = lift.targets[value]
            after = Situation(
                block, local, state, entities, inputs, answered, program=s.program, callers=callers
            )
            where: Any = after
            if block >= 0 and program.calm[block] and block not in program.lifts:
                # on through the calm blocks after it, as after a throw (_run)
                self.runs += 1
                dice = SituationDice([], self.full)
                went = self._run(after, dice, after_a_throw=True)
                if not dice.choices:  # (a calm block throws nothing: else stop at `after`)
                    where = went
            out.append((Fraction(count, dist.den), where))
        return out

    def _run(
        self, s: Situation, dice: SituationDice, stop_after: int = 0, after_a_throw: bool = False
    ) -> Any:
        """Run from ``s`` until, after a throw (or from the start, ``after_a_throw``), a
        block that is not calm (it may throw, draw or decide), or a lifted block, or
        ``stop_after`` blocks; the situation there, or the outcome when the procedure ends.
        ``quiet`` is then the number of blocks run before the one that first threw."""
        self._restore(s)
        self.quiet = ran = 0
        thrown = 0 if after_a_throw else -1  # the blocks run before the one that first threw
        i = self.interp
        self.defaults.dice = dice
        i.use_dice(dice)
        program = s.program or self.program
        block = s.block
        callers = self.callers
        try:
            while True:
                went = program.run[block](i)
                ran += 1
                if type(went) is Enter:  # a call run as blocks: its frame, its first block
                    decl = self.checked.book.procedures[went.procedure]
                    frame = Frame(f"procedure {decl.name}", decl.ref, went.args)
                    if len(i.frames) > MAX_NESTING:
                        raise i.too_deep(frame)
                    callers.append(
                        _Caller(program, i.frames[-1], went.after, went.target, went.live, i.ref)
                    )
                    i.enter_frame(frame)  # (its locals are went.args)
                    program = blocks(i.code, decl)
                    block = program.entry
                else:
                    while isinstance(went, tuple) or went == END:  # a return, to the caller
                        result = went[0] if isinstance(went, tuple) else None
                        if not callers:
                            return self._outcome(result)
                        caller = callers.pop()
                        i.leave_frame()
                        i.set_rule(caller.ref)
                        if caller.target is not None:
                            i.locals[caller.target] = result
                        program, went = caller.program, caller.after
                    assert isinstance(went, int)
                    block = went
                lifted = self.lifting and block in program.lifts
                if dice.choices and thrown < 0:
                    thrown = self.quiet = ran - 1
                # after a throw the run goes on through calm blocks: a situation is taken
                # just before the next throw, draw or decision. What they compute depends
                # only on the situation and the dice, so stopping later never tells more
                # situations apart, and a die already read (a roll only compared) no longer
                # does
                if (thrown >= 0 and not program.calm[block]) or lifted or ran == stop_after:
                    return Situation(
                        block,
                        i.locals,
                        i.state,
                        i.entity_count,
                        self.inputs,
                        self._answered(),
                        program=None if program is self.program else program,
                        callers=tuple(callers),
                    )
        except TurnEnded:  # `end turn` outside a turn: the procedure stops there
            return self._outcome(None)
        except OverTime:
            raise
        except Exception as exc:  # a bug of ours in a block: at its rulebook line, as in a
            located_error = located(i, exc)  # procedure's function (codegen_runtime._run)
            if located_error is None:
                if isinstance(exc, RulekitError):
                    raise
                located_error = internal_error(i, exc, program.spans[block])
            raise located_error from exc
        finally:
            self._note_provisional()

    def _answered(self) -> dict[str, int]:
        """How many answers of each ``--decide`` list are used (ScriptedPolicy.used)."""
        used = getattr(self.interp.policy, "used", None)
        return dict(used) if isinstance(used, dict) else {}

    def _outcome(self, result: Any) -> Any:
        i = self.interp
        i.set_frames(())
        expr = self.question.of
        if expr is None:
            return unwrap(result)
        return unwrap(i.evaluate(expr, {**self.inputs, "result": result}))

    def _note_provisional(self) -> None:
        used = self.interp.trace.provisional_used
        for item in used:
            if item not in self.provisional:
                self.provisional.append(item)
        used.clear()


# ---- the absorbing chain --------------------------------------------------------------------


def internal_error(i: Interpreter, exc: Exception, span: n.Span | None) -> InternalRuleError:
    """An unexpected error of ours that no generated line is on the way to (the analysis's
    own code, working out a block's dice or value), at the block's rulebook line."""
    failed = i.fail(f"internal error: {type(exc).__name__}: {exc}", span)
    return InternalRuleError(failed.diagnostics)


def _absorption(chain: Chain, question: Question) -> dict[str, Fraction]:
    """The probability of each outcome from the first situation: each strongly connected
    set of situations solved once its successors are, as a system of linear equations."""
    nodes = chain.nodes
    solved: dict[int, dict[str, Fraction]] = {}

    def nexts(v: int) -> list[int]:
        return [t for _, t in nodes[v].edges or () if isinstance(t, int)]

    for component in components(range(len(nodes)), nexts):
        members = set(component)
        if len(component) == 1 and not any(
            t == component[0] for _, t in nodes[component[0]].edges or ()
        ):
            solved[component[0]] = _combine(nodes[component[0]], solved)
            continue
        solved.update(_solve_component(nodes, component, members, solved, question))
    return {k: p for k, p in solved[0].items() if p}


def _combine(node: Situation, solved: dict[int, dict[str, Fraction]]) -> dict[str, Fraction]:
    if node.edges is None:
        return {UNRESOLVED: Fraction(1)}
    out: dict[str, Fraction] = {}
    for weight, target in node.edges:
        if isinstance(target, int):
            for k, p in solved[target].items():
                known = out.get(k)
                out[k] = weight * p if known is None else known + weight * p
        else:
            known = out.get(target)
            out[target] = weight if known is None else known + weight
    return out


def _total(ps: list[Fraction]) -> Fraction:
    """A sum of fractions over their common denominator (faster than adding them)."""
    den = math.lcm(*(p.denominator for p in ps))
    return Fraction(sum(p.numerator * (den // p.denominator) for p in ps), den)


def _solve_component(
    nodes: list[Situation],
    component: list[int],
    members: set[int],
    solved: dict[int, dict[str, Fraction]],
    question: Question,
) -> dict[int, dict[str, Fraction]]:
    """x_a = sum(w * x_b for b inside) + r_a, solved by Gauss-Jordan elimination: each row a
    dict of coefficients over the component and a right-hand side over the outcomes."""
    position = {m: k for k, m in enumerate(component)}
    rows: list[tuple[dict[int, Fraction], dict[str, Fraction]]] = []
    for m in component:
        coeff: dict[int, Fraction] = {position[m]: Fraction(1)}
        rhs: dict[str, Fraction] = {}
        node = nodes[m]
        if node.edges is None:
            rhs[UNRESOLVED] = Fraction(1)
        for weight, target in node.edges or ():
            if isinstance(target, int) and target in members:
                j = position[target]
                coeff[j] = coeff.get(j, Fraction(0)) - weight
            elif isinstance(target, int):
                for k, p in solved[target].items():
                    rhs[k] = rhs.get(k, Fraction(0)) + weight * p
            else:
                rhs[target] = rhs.get(target, Fraction(0)) + weight
        rows.append((coeff, rhs))
    found = gauss(rows)
    if found is None:
        raise _endless(question)
    return {m: {k: p for k, p in found[position[m]].items() if p} for m in component}


def _endless(question: Question) -> RuleRuntimeError:
    return RuleRuntimeError(
        [
            error(
                f"{question.describe} can go round for ever: a situation comes back to "
                "itself whatever the dice say",
                None,
                hint="a loop whose condition nothing in it changes",
            )
        ]
    )
