"""Analysis: questions about a rulebook rather than one game of it.

:mod:`.prob` gives exact outcome distributions (or sampled ones beyond a budget): path by
path, or by situations (:mod:`.situations`: runs in the same situation merged, rounds solved
as a Markov chain); :mod:`.outcomes` holds what they answer with; :mod:`.advice` finds the
best decisions path by path, :mod:`.advice_situations` by situations, and :mod:`.advised`
plays a game taking them;
:mod:`.diff` compares two rulebooks structurally and :mod:`.behaviour` by their outcome
distributions.
"""
