"""One shard of a simulation: a range of seeds played in a worker, summarized there.

This is the code every scheduler runs (a local process, a Dask worker on this machine or on
another one): a shard is described by plain data and returns plain data, so it pickles.
"""

from __future__ import annotations

import time
from typing import Any

from attrs import define

from rulekit.book.checker import Checked, load
from rulekit.errors import RulekitError
from rulekit.play.runner import new_game
from rulekit.play.sim_summary import NOT_OVER, Failure, Partial, ending_group


@define(frozen=True)
class Shard:
    """Seeds ``start`` up to (not including) ``stop`` of one simulation."""

    rulebook: str
    options: tuple[str, ...]
    scenario: str | None
    policy: str
    turns: int | None
    start: int
    stop: int
    rows: bool  # also return one row per game (for --out and --csv)
    max_steps: int | None = None  # each turn's step budget (None: the engine's default)

    @property
    def games(self) -> int:
        return self.stop - self.start


@define
class ShardResult:
    start: int
    stop: int
    partial: Partial
    rows: list[dict[str, Any]] | None
    seconds: float


# A worker loads each rulebook once and keeps it for the shards that follow.
_LOADED: dict[tuple[str, tuple[str, ...]], Checked] = {}


def _checked(rulebook: str, options: tuple[str, ...]) -> Checked:
    key = (rulebook, options)
    if key not in _LOADED:
        _LOADED[key] = load(rulebook, options)
    return _LOADED[key]


def failure_of(seed: int, exc: Exception) -> Failure:
    """What went wrong, pointing at the rulebook line and rule when the rulebook failed."""
    if isinstance(exc, RulekitError) and exc.diagnostics:
        diag = exc.diagnostics[0]
        rule = diag.rule.text if diag.rule is not None else None
        return Failure(seed, diag.location, diag.message, rule, diag.context)
    # not the rulebook's fault: still one failed game, not a failed run
    return Failure(seed, "rulekit", f"internal error: {type(exc).__name__}: {exc}")


def play_shard(shard: Shard) -> ShardResult:
    """Play every seed of the shard; a game that fails is recorded and the others go on."""
    began = time.perf_counter()
    checked = _checked(shard.rulebook, shard.options)
    partial = Partial()
    rows: list[dict[str, Any]] | None = [] if shard.rows else None
    for seed in range(shard.start, shard.stop):
        try:
            game = new_game(checked, shard.scenario, seed, shard.policy)
            game.interp.mute()  # untraced: a game is summed up by its outcome alone
            if shard.max_steps is not None:
                game.interp.set_budget(shard.max_steps)
            result = game.play(shard.turns)
        except Exception as exc:  # one game's error must not end the study
            failure = failure_of(seed, exc)
            partial.add_failure(failure)
            if rows is not None:
                rows.append({"seed": seed, "error": failure.line().split(": ", 1)[1]})
            continue
        partial.add_game(result.turns, result.ended, result.final)
        if rows is not None:
            ending = result.ended or NOT_OVER
            row = {"seed": seed, "turns": result.turns, "ending": ending}
            row["group"] = ending_group(ending)
            row.update(result.final)
            rows.append(row)
    return ShardResult(shard.start, shard.stop, partial, rows, time.perf_counter() - began)
