"""Analysis: questions about a rulebook rather than one game of it.

:mod:`.prob` gives exact outcome distributions (or sampled ones beyond a budget);
:mod:`.diff` compares two rulebooks structurally and :mod:`.behaviour` by their outcome
distributions.
"""
