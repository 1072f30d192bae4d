"""The budgets of exact analysis, in one place: how many paths of dice (and decisions)
between two situations, how many situations, how many seconds, and how unlikely a situation
may be before it is left unexplored (the tolerance). ``prob`` and ``advise`` take the same
budgets (rulekit.cli.budget_opts gives both the same options) and both walk their
situations with rulekit.analysis.situations.walk, which applies them; a budget passed is an
error naming its option, with a hint that never suggests changing the game's rules."""

from __future__ import annotations

import time

from attrs import frozen

from rulekit.errors import InputError, error
from rulekit.language.nodes import Span
from rulekit.limits import DEFAULT_MAX_PATHS, DEFAULT_MAX_SITUATIONS, DEFAULT_STEP_BUDGET

# what to do instead, by what was asked: advise cannot estimate by sampling
ESTIMATE = "estimate it by sampling: rulekit prob ... --samples 100000"
FIX = "fix some decisions with --decide NAME=VALUE"


@frozen
class Budget:
    """What an exact analysis may spend (the command line's defaults)."""

    max_paths: int = DEFAULT_MAX_PATHS
    max_situations: int = DEFAULT_MAX_SITUATIONS
    max_seconds: float | None = None
    tolerance: float = 0.0
    max_steps: int = DEFAULT_STEP_BUDGET
    deciding: bool = False  # advise: its hints name --decide, not --samples

    def deadline(self) -> float | None:
        """The time.monotonic() past which the analysis gives up."""
        return None if self.max_seconds is None else time.monotonic() + self.max_seconds

    def cut(self, reach: float) -> bool:
        """Whether a situation reached this often is left unexplored (--tolerance)."""
        return bool(self.tolerance) and reach < self.tolerance

    def too_many_situations(self, describe: str) -> InputError:
        instead = FIX if self.deciding else ESTIMATE
        return InputError(
            [
                error(
                    f"{describe} reaches more than {self.max_situations} situations",
                    where="--max-situations",
                    hint="raise --max-situations, cut unlikely ones with --tolerance 1e-9, "
                    f"or {instead}",
                )
            ]
        )

    def too_long(self, describe: str, done: str) -> InputError:
        """Over --max-seconds, with what was done (``"12 situations"``)."""
        instead = FIX if self.deciding else ESTIMATE
        return InputError(
            [
                error(
                    f"{describe} took more than {self.max_seconds or 0:g} s ({done})",
                    where="--max-seconds",
                    hint="raise --max-seconds, cut unlikely situations with --tolerance 1e-9, "
                    f"or {instead}",
                )
            ]
        )

    def counting(self, describe: str, found: int, name: str, most: int, span: Span) -> InputError:
        """Situations told apart for ever by a variable that only counts up and is read."""
        instead = FIX if self.deciding else ESTIMATE
        return InputError(
            [
                error(
                    f"{describe} keeps finding new situations ({found:,} so far) that differ "
                    f"in '{name}', which only counts up ({name} = {most} so far) and is "
                    "read: they never come back, so they cannot be merged",
                    span,
                    hint=f"solve it to a tolerance (situations less likely than it left "
                    f"unexplored): --tolerance 1e-9, or {instead}",
                )
            ]
        )
