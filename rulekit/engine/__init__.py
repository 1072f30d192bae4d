"""The engine: a checked rulebook executed.

Procedures and modifier lists are generated as Python source, one function each
(:mod:`.codegen` with :mod:`.codegen_ops`, :mod:`.codegen_mods`, calling
:mod:`.codegen_runtime`; off the record, the results of plain procedures that :mod:`.reach`
finds are remembered); what the generator
does not write out yet runs as the closures :mod:`.compiler` builds (with
:mod:`.compile_calls`, :mod:`.compile_lookups`, :mod:`.compile_stmts` and :mod:`.reach`),
which RULEKIT_ENGINE=closures also runs alone, for the differential tests: both trace
alike. :mod:`.codegen_blocks` cuts a procedure into resumable blocks for exact analysis.
:mod:`.interpreter` holds one game's running state and runs that code.
All randomness comes from :mod:`.dice`, all choices from :mod:`.policy`; :mod:`.values`,
:mod:`.runtime` and :mod:`.builtins` are what the code computes with, and :mod:`.trace`
records what happened. :mod:`.session` resolves one procedure or table with the user's inputs.
"""
