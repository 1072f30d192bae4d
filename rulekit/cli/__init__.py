"""The command line, on top of every stage.

:mod:`.main` defines the commands with click (``rulekit check``, ``run``, ``prob``, ``diff``
and the rest); :mod:`.show` prints their results (tables, distributions, diffs, summaries)
with rich. Nothing below this folder imports it.
"""
