"""Modifier lists generated as Python source (see rulekit.engine.codegen): one function
``(i, args) -> (terms, total, clamped)`` per list: each line's condition, value and term
in order, inside the list's own frame, then the total and its clamp.

A list runs inside traced and untraced code alike, so the procedures it calls ask
``i.muted`` when they run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulekit.engine.codegen import Gen
from rulekit.engine.codegen_locals import may_be_local
from rulekit.engine.codegen_runtime import Generated, mangle
from rulekit.engine.codegen_writer import finish
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.program import Program


def _label(comp: Program, line: n.ModLine) -> str:
    """A term's label: its own, else the value as written (and its ``per``, its ``if``)."""
    if line.label:
        return line.label
    text = comp.text(line.value.span)
    if line.per is not None:
        text += f" per {comp.text(line.per.span)}"
    if line.cond is not None:
        text += f" if {comp.text(line.cond.span)}"
    return text


def modifier_list(comp: Program, decl: n.ModifiersDecl) -> Generated:
    gen = Gen(
        comp, None, may_be_local(decl.params, decl.lines), frozenset(p.name for p in decl.params)
    )
    w = gen.w
    fname = f"modifiers_{mangle(decl.name)}"
    w.span = decl.span
    w.line(f"def {fname}(i, args):")
    w.level += 1
    frame = w.const(f"modifiers {decl.name}")
    w.line(f"saved = i.push(_Frame({frame}, {w.const(decl.ref)}, args))")
    w.line("L = i.locals")
    w.line("terms = []")
    w.line("try:")
    w.level += 1
    if not decl.lines:
        w.line("pass")
    for line in decl.lines:
        w.span = line.span
        w.line(f"i.ref = {w.const(line.ref or decl.ref)}")
        if line.cond is not None:
            w.line(f"if {gen.cond(line.cond)}:")
            w.level += 1
        label, rule = _label(comp, line), line.ref.text if line.ref else None
        if isinstance(line.value, n.Num) and type(line.value.value) is int and line.per is None:
            # a number written out: nothing to check
            if line.value.value != 0:
                term = f"_Term({line.sign * line.value.value!r}, {label!r}, {rule!r})"
                w.line(f"terms.append({term})")
            else:
                w.line("pass")  # the condition is still evaluated, as written
            if line.cond is not None:
                w.level -= 1
            continue
        amount = w.temp()
        w.line(f"{amount} = _plain({gen.expr(line.value)})")
        if line.per is not None:
            per = gen.expr(line.per)
            w.line(f"{amount} = _arith(i, '*', {amount}, {per}, {w.const(line.span)})")
        w.line(f"if type({amount}) is not int and not _is_number({amount}):")
        w.line(f"    _not_a_modifier(i, {amount}, {w.const(line.value.span)})")
        w.line(f"if {amount} != 0:")
        w.line(
            f"    terms.append(_Term(_normalize({line.sign!r} * {amount}), {label!r}, {rule!r}))"
        )
        if line.cond is not None:
            w.level -= 1
    w.level -= 1
    w.span = decl.span
    w.line("finally:")
    w.line("    i.pop(saved)")
    w.line("total = _normalize(sum([t.value for t in terms], 0))")
    if decl.clamp is None:
        w.line("return terms, total, False")
    else:
        low, high = decl.clamp
        w.line("bounded = total")
        if low is not None:
            w.line(f"if bounded < {low!r}:")
            w.line(f"    bounded = {low!r}")
        if high is not None:
            w.line(f"if bounded > {high!r}:")
            w.line(f"    bounded = {high!r}")
        w.line("return terms, bounded, bounded != total")
    return finish(w, fname)
