"""The rulebook: files loaded, variants applied, everything checked.

:mod:`.loader` reads a rulebook directory (its includes) into a :class:`.rulebook.Rulebook`;
:mod:`.variants` applies variant files and options as data; :mod:`.checker` (with
:mod:`.check_exprs` for expressions) resolves names and :mod:`.types`, checks table coverage
(:mod:`.tables`, where a table row is chosen), graphs (:mod:`.graph`) and provenance, and gives a
:class:`.checker.Checked` rulebook. :mod:`.coerce` and :mod:`.inputs` turn what a user types
or writes in TOML into values of the rulebook's types.
"""
