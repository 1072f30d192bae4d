"""The engine: a checked rulebook executed.

Procedures, modifier lists and expressions are generated as Python source, one function
each (:mod:`.codegen` with :mod:`.codegen_calls`, :mod:`.codegen_ops`, :mod:`.codegen_mods`),
on first use, and kept with the checked rulebook by :mod:`.program`. The generated code calls
:mod:`.codegen_runtime`, :mod:`.lookups` (rolls, draws, tables, builtins), :mod:`.decisions`
and :mod:`.procedures` (a procedure's call, traced or left out of the trace); off the record,
the results of plain procedures that :mod:`.reach` finds are remembered, and while a
decision's default that only computes is worked out, the results of the procedures it calls
(:mod:`.memo`).
:mod:`.codegen_blocks` cuts a procedure into resumable blocks for exact analysis.
:mod:`.interpreter` holds one game's running state and runs that code.
All randomness comes from :mod:`.dice`, all choices from :mod:`.policy`; :mod:`.values`,
:mod:`.runtime` and :mod:`.builtins` are what the code computes with, and :mod:`.trace`
records what happened. :mod:`.session` resolves one procedure or table with the user's inputs.
"""
