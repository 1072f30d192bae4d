"""``python -m rulekit``: the command line, as the ``rulekit`` script runs it."""

from rulekit.cli.main import main

main(prog_name="rulekit")
