"""The engine: a checked rulebook executed.

:mod:`.compiler` (with :mod:`.compile_calls`, :mod:`.compile_lookups`, :mod:`.compile_stmts`
and :mod:`.reach`) turns each node once into Python code; :mod:`.interpreter` holds one
game's running state and runs that code. With RULEKIT_ENGINE=generated, procedures and
modifier lists are instead generated as Python source, one function each (:mod:`.codegen`,
:mod:`.codegen_mods`, calling :mod:`.codegen_runtime`), which traces exactly as the closures.
All randomness comes from :mod:`.dice`, all choices from :mod:`.policy`; :mod:`.values`,
:mod:`.runtime` and :mod:`.builtins` are what the code computes with, and :mod:`.trace`
records what happened. :mod:`.session` resolves one procedure or table with the user's inputs.
"""
