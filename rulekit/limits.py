"""The default budgets of the commands, importable without the engine (the command line's
options show them in ``--help``, which must not import the engine to do so).

The engine and the analysis import their defaults from here: one value, in one place.
"""

DEFAULT_STEP_BUDGET = 200_000  # rulekit.engine.interpreter: steps of one top-level call
DEFAULT_MAX_PATHS = 20_000  # rulekit.analysis.prob: paths of dice of an exact enumeration
DEFAULT_MAX_SITUATIONS = 200_000  # rulekit.analysis.situations: situations of one solution
MAX_RUNS = 10_000_000  # rulekit simulate --runs: more would take years, and its plan memory
