"""rulekit: wargame rules as data, executed exactly, explained rule by rule.

The package's folders are the stages of the pipeline, in order:

``language/`` (.rk text to nodes) -> ``book/`` (loading, variants, checking) ->
``engine/`` (compiled code, dice, decisions, trace) -> ``play/`` (scenarios, runner, saves,
simulation) and ``analysis/`` (exact probabilities, diff) -> ``cli/`` (the command line).
``errors`` is the one error hierarchy they share.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rulekit.api import Book, Lookup, Resolution, load

__all__ = ["Book", "Lookup", "Resolution", "load"]


def __getattr__(name: str) -> Any:
    # The API is imported on first use: `import rulekit` (and so every command's start,
    # `rulekit --help` included) does not pay for the parser, checker and engine.
    if name in __all__:
        from rulekit import api

        return getattr(api, name)
    raise AttributeError(f"module 'rulekit' has no attribute {name!r}")
