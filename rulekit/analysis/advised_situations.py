"""The ``advised:`` policy's look-ahead by situations: a decision valued from where the game
stands, by rulekit.analysis.advice_situations.

rulekit.analysis.advised plays the procedure holding a decision again from its entry, once
per path of dice and options (within ADVISED_MAX_PATHS), replaying the game's dice up to the
decision. A Silent War combat round has far more paths: its decisions fell back to the
rulebook's defaults. Here the look-ahead starts at the decision itself. The game stands at
the ``choose`` of the procedure (its frame's locals, the game state), which is a statement
of the procedure cut into blocks (rulekit.engine.codegen_blocks): that is a situation, and
the procedure is advised from it by situations, each option worth the expectimax value of
what follows (later decisions at their best), EXPR read when the procedure returns.

Only where the block can be entered as the game stands: a ``choose`` in the procedure's own
body (not in a ``for each``, whose place the blocks keep in locals the game's run does not
have) whose options and default only compute (they are worked out again). Elsewhere, or
over the budgets, the look-ahead path by path is used.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from rulekit.analysis.advice_situations import AdviceRunner, explore
from rulekit.analysis.advice_values import value, worths
from rulekit.analysis.budget import Budget
from rulekit.analysis.outcomes import Question, TooManyPaths, retried
from rulekit.analysis.situations import Situation, TooManySituations
from rulekit.book.inputs import Target
from rulekit.engine.codegen_blocks import blocks
from rulekit.engine.hidden import hide_copies
from rulekit.engine.interpreter import DEFAULT_STEP_BUDGET
from rulekit.engine.policy import DecisionRequest, DefaultPolicy
from rulekit.engine.program import program_for
from rulekit.engine.reach import pure
from rulekit.engine.runtime import GameState
from rulekit.engine.values import clone
from rulekit.errors import InputError, InternalRuleError, RuleRuntimeError, StepBudgetExceeded
from rulekit.language import nodes as n
from rulekit.limits import DEFAULT_MAX_PATHS

if TYPE_CHECKING:
    from rulekit.analysis.advised import Entry
    from rulekit.book.checker import Checked
    from rulekit.engine.interpreter import Interpreter

# situations of one procedure to advise one decision (``advised:situations:``): a Silent War
# turn takes twice as long with it and advises a few more; Gato Leader's step-by-step
# moves make it 20 times as long (so it is asked for, not the default)
ADVISED_MAX_SITUATIONS = 1_000


def option_values(
    checked: Checked,
    game: Interpreter,
    entry: Entry,
    request: DecisionRequest,
    goal: tuple[n.Expr, str, bool],
    max_situations: int = ADVISED_MAX_SITUATIONS,
    max_paths: int = DEFAULT_MAX_PATHS,
) -> list[Fraction] | str:
    """Each option's worth of ``goal`` (the expression checked, its text, whether the least
    is best), with the later decisions at their best; or why there is none by situations."""
    expr, text, minimize = goal
    frame = game.frames[-1]
    name = frame.name.removeprefix("procedure ")
    if name != entry.procedure or name not in checked.book.procedures:
        return "the decision is not the procedure's own"
    decl = checked.book.procedures[name]
    choose = _choose_at(decl.body, request.where)
    if choose is None:
        return "the decision is in a for each"
    book, tables = checked.book, checked.tables
    if not pure(book, tables, choose.options) or (
        choose.default is not None and not pure(book, tables, choose.default)
    ):
        return "its options do more than compute"
    program = blocks(program_for(checked), decl)
    block = next((k for k, sp in enumerate(program.spans) if sp == choose.span), None)
    if block is None:  # pragma: no cover - every statement has its block
        return "no block for the decision"
    question = Question(
        Target("procedure", name, decl.ref),
        lambda i: None,
        lambda i: {},
        expr,
        f"procedure {name}",
    )
    runner = AdviceRunner(checked, question, program, DEFAULT_STEP_BUDGET, set())
    runner.fixed = DefaultPolicy()
    runner.interp.use_policy(runner.fixed)
    memo: dict[int, Any] = {}
    state = GameState(clone(game.state.values, memo), clone(game.state.entities, memo))
    local = clone(frame.locals, memo)
    hide_copies(game, memo, None)  # face-down pieces: as the player sees them
    args = clone(entry.args, {})  # as the procedure was entered (the goal reads them)
    start = Situation(block, local, state, game.entity_count, args, {})
    try:
        return retried(
            lambda: _values(runner, question, start, (text, minimize), max_situations, max_paths),
            runner.dice_needed,
        )
    except TooManySituations:
        return f"more than {max_situations} situations"
    except TooManyPaths:
        return f"more than {max_paths} paths between two situations"
    except StepBudgetExceeded:
        return "a run over the step budget"
    except InternalRuleError:  # a bug of ours: reported, never an option's worth
        raise
    except RuleRuntimeError as exc:  # a path the game may never take stops there
        return stopped_run(exc)
    except InputError:  # a goal that is no number: the paths' look-ahead says so
        return "the goal could not be read"


def stopped_run(exc: RuleRuntimeError) -> str:
    """Why an option has no worth when one of its runs stopped with a rulebook error (both
    look-aheads of the advised policy say it the same way)."""
    first = exc.diagnostics[0].message if exc.diagnostics else "an error"
    return f"a run stopped: {first}"


def _values(
    runner: AdviceRunner,
    question: Question,
    start: Situation,
    goal: tuple[str, bool],
    max_situations: int,
    max_paths: int,
) -> list[Fraction] | str:
    text, minimize = goal
    budget = Budget(max_paths, max_situations, deciding=True)
    _, trees, _, _ = explore(runner, question, start, text, budget)
    sign = -1 if minimize else 1
    best = worths(trees, sign, question.describe)
    root = trees[0]
    point = root.point
    if root.leaf is not None or point is None or point.kind != "decide":
        return "the decision is not where the look-ahead starts"
    return [value(root.children[c], best, sign) for c in range(point.size)]


def _choose_at(body: tuple[n.Stmt, ...], where: str) -> n.Choose | None:
    """The ``choose`` a decision's ``where`` names, outside any ``for each``."""
    stack: list[n.Stmt] = list(body)
    while stack:
        s = stack.pop()
        if isinstance(s, n.Choose) and (where == str(s.span) or where.startswith(f"{s.span} ")):
            return s
        if isinstance(s, n.If):
            for b in s.branches:
                stack.extend(b.body)
            stack.extend(s.otherwise)
        elif isinstance(s, n.While):
            stack.extend(s.body)
    return None
