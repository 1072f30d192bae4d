"""``python -m rulekit.cli``: the command line."""

from rulekit.cli.main import main

main()
