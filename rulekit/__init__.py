"""rulekit: wargame rules as data, executed exactly, explained rule by rule.

The package's folders are the stages of the pipeline, in order:

``language/`` (.rk text to nodes) -> ``book/`` (loading, variants, checking) ->
``engine/`` (compiled code, dice, decisions, trace) -> ``play/`` (scenarios, runner, saves,
simulation) and ``analysis/`` (exact probabilities, diff) -> ``cli/`` (the command line).
``errors`` is the one error hierarchy they share.
"""
