"""Closures for modifier lists, rolls, table look-ups, constructors, graph, enum and builtin
calls, and draws (see rulekit.engine.compiler).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from attrs import evolve

from rulekit.book import graph
from rulekit.book.tables import CompiledTable, LookupMiss
from rulekit.engine.builtins import BUILTINS, BuiltinError, work
from rulekit.engine.dice import Die, Unthrown, throw_dice
from rulekit.engine.lookups import _missed, _reroll_and_explode
from rulekit.engine.runtime import Frame, charge
from rulekit.engine.trace import (
    DrawEvent,
    LookupEvent,
    NoteEvent,
    RollEvent,
    Term,
    TotalEvent,
)
from rulekit.engine.values import (
    Entity,
    EnumValue,
    Followed,
    RecordValue,
    RollValue,
    is_number,
    normalize,
    plain,
    show,
    to_json,
    unwrap,
)
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.compiler import Code, Compiler
    from rulekit.engine.interpreter import Interpreter
from rulekit.engine.compile_args import (
    LookupCode,
    ModifierCode,
    binder,
    rule_text,
    step_code,
    too_many,
)


def _label(comp: Compiler, line: n.ModLine) -> str:
    if line.label:
        return line.label
    text = comp.text(line.value.span)
    if line.per is not None:
        text += f" per {comp.text(line.per.span)}"
    if line.cond is not None:
        text += f" if {comp.text(line.cond.span)}"
    return text


def _modifier_line(
    comp: Compiler, decl: n.ModifiersDecl, line: n.ModLine
) -> Callable[[Interpreter, list[Term]], None]:
    ref = line.ref or decl.ref
    cond = comp.cond(line.cond) if line.cond is not None else None
    value = comp.expr(line.value)
    per = comp.expr(line.per) if line.per is not None else None
    sign, label, rule = line.sign, _label(comp, line), rule_text(line.ref)
    span, value_span = line.span, line.value.span

    def run(i: Interpreter, terms: list[Term]) -> None:
        i.ref = ref
        if cond is not None and not cond(i):
            return
        amount = plain(value(i))
        if per is not None:
            amount = i._arith("*", amount, per(i), span)
        if type(amount) is not int and not is_number(amount):
            raise i.fail(f"a modifier must be a number, got {show(amount)}", value_span)
        if amount == 0:
            return
        terms.append(Term(normalize(sign * amount), label, rule))

    return run


def modifier(comp: Compiler, decl: n.ModifiersDecl) -> ModifierCode:
    """A modifier list's terms, total and whether its clamp changed the total."""
    frame_name, ref = f"modifiers {decl.name}", decl.ref
    lines: list[Callable[[Interpreter, list[Term]], None]] = []  # built on the first call
    low, high = decl.clamp if decl.clamp is not None else (None, None)

    def run(i: Interpreter, args: dict[str, Any]) -> tuple[list[Term], Any, bool]:
        if not lines and decl.lines:
            lines.extend(_modifier_line(comp, decl, line) for line in decl.lines)
        terms: list[Term] = []
        saved = i.push(Frame(frame_name, ref, args))
        try:
            for line in lines:
                line(i, terms)
        finally:
            i.pop(saved)
        total = normalize(sum([t.value for t in terms], 0))
        if decl.clamp is None:
            return terms, total, False
        bounded = total
        if low is not None and bounded < low:
            bounded = low
        if high is not None and bounded > high:
            bounded = high
        return terms, bounded, bounded != total

    return run


def modifier_call(comp: Compiler, e: n.Call) -> Code:
    decl = comp.book.modifiers[e.func]
    bind = binder(comp, e, decl.params)
    terms_of = comp.modifier(e.func)
    name, rule, span = decl.name, rule_text(decl.ref), e.span

    def run(i: Interpreter) -> Any:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        terms, total, clamped = terms_of(i, bind(i))
        if not i.muted:
            i.trace.events.append(TotalEvent(i.depth, name, rule, terms, to_json(total), clamped))
        return total

    return run


def roll(comp: Compiler, spec: n.DiceSpec, mods: tuple[n.RollMod, ...], span: n.Span) -> Code:
    """Throws the dice, adds the modifiers as terms, and traces the roll."""
    die = comp.dice.get(spec.die)
    count = comp.expr(spec.count) if not isinstance(spec.count, int) else None
    fixed = spec.count if isinstance(spec.count, int) else 1
    keep = spec.keep
    terms_of = [_roll_terms(comp, mod) for mod in mods]
    shown = str(spec)
    at = str(span)
    explode, reroll = spec.explode, spec.reroll
    simple = reroll is None and not explode  # a keep roll that can be thrown as its kept value

    def run(i: Interpreter) -> RollValue:
        if die is None:
            raise KeyError(spec.die)
        number = fixed if count is None else plain(count(i))
        if not isinstance(number, int) or number < 1:
            raise i.fail(f"cannot roll {show(number)} dice", spec.span)
        charge(i, number - 1, spec.span)  # each die one step, the roll's own included
        kept = getattr(i.dice, "throw_kept", None) if keep != "sum" and simple else None
        faces: tuple[int, ...]
        if kept is not None and number > 1 and (value := kept(die, number, keep, at)) is not None:
            # exact analysis: only the value kept is thrown (see dice.Unthrown)
            natural, faces = value, Unthrown(value, at)
        else:
            faces = throw_dice(i.dice, die, number, i._where(span))
            if reroll is not None or explode:
                faces = _reroll_and_explode(
                    i, die, faces, reroll, explode, i._where(span), spec.span
                )
            if keep == "highest":
                natural = max(faces)
            elif keep == "lowest":
                natural = min(faces)
            else:
                natural = sum(faces)
        terms: list[Term] = []
        for term in terms_of:
            terms.extend(term(i))
        total = normalize(natural + sum((t.value for t in terms), 0))
        if not i.muted:
            dice = shown if count is None else str(evolve(spec, count=number))
            i.trace.events.append(
                RollEvent(i.depth, dice, list(faces), natural, terms, total, rule_text(i.ref), at)
            )
        return RollValue(total, natural, faces)

    return run


def _roll_terms(comp: Compiler, mod: n.RollMod) -> Callable[[Interpreter], list[Term]]:
    value, sign = mod.value, mod.sign
    if isinstance(value, n.Call) and value.func in comp.book.modifiers:
        decl = comp.book.modifiers[value.func]
        bind = binder(comp, value, decl.params)
        terms_of = comp.modifier(value.func)
        low, high = decl.clamp or (None, None)
        bounds = f"{'' if low is None else low}..{'' if high is None else high}"
        rule = rule_text(decl.ref)

        def listed(i: Interpreter) -> list[Term]:
            terms, total, clamped = terms_of(i, bind(i))
            if clamped:
                # the list's clamp holds inside a roll too: a term brings the sum to the total
                correction = normalize(total - sum((t.value for t in terms), 0))
                terms = [*terms, Term(correction, f"clamp {bounds}", rule)]
            return [Term(sign * t.value, t.label, t.rule, t.provisional) for t in terms]

        return listed
    code = comp.expr(value)
    label = "" if isinstance(value, n.Num) else comp.text(value.span)
    span = value.span

    def single(i: Interpreter) -> list[Term]:
        amount = plain(code(i))
        if not is_number(amount):
            raise i.fail(f"a roll modifier must be a number, got {show(amount)}", span)
        if amount == 0:
            return []
        return [Term(normalize(sign * amount), label, None)]

    return single


def table_call(comp: Compiler, e: n.Call) -> Code:
    table = comp.tables[e.func]
    inputs = [d for d in table.dims if d.kind != "roll"]
    plan: list[tuple[str | None, Code]] = []  # (None for the roll, or the dimension, value)
    position = 0
    for arg in e.args:
        code = comp.expr(arg.value)
        if arg.name == "roll":
            plan.append((None, code))
        elif arg.name is not None:
            plan.append((arg.name, code))
        elif position < len(inputs):
            plan.append((inputs[position].name, code))
            position += 1
        else:
            return too_many([c for _, c in plan] + [code], "list index out of range")
    dims: list[tuple[str | None, Code | None]] = []
    for dim in table.dims:
        if dim.kind == "roll":
            assert dim.decl.dice is not None
            dims.append((None, roll(comp, dim.decl.dice, dim.decl.mods, e.span)))
        else:
            dims.append((dim.name, None))
    lookup = comp.lookup(table)
    span = e.span

    def run(i: Interpreter) -> Any:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        given: dict[str, Any] = {}
        rolled: Any = None
        for key, code in plan:
            if key is None:
                rolled = code(i)
            else:
                given[key] = code(i)
        values = []
        for key, throw in dims:
            if key is None:
                if rolled is None:
                    assert throw is not None
                    rolled = throw(i)
                values.append(rolled)
            else:
                values.append(given[key])
        return lookup(i, values, span)

    return run


def lookup(comp: Compiler, table: CompiledTable) -> LookupCode:
    """Finds a cell, traces the row, and runs the cell's follow-up action if it has one."""
    dims = table.dims
    enums = [d.type.name if d.type.__class__.__name__ == "EnumT" else None for d in dims]  # type: ignore[union-attr]
    name, rule, ref = table.name, table.rule, table.decl.ref
    enum_value = comp.vocab.enum_value

    def run(i: Interpreter, values: list[Any], span: n.Span) -> Any:
        resolved = []
        for enum, value in zip(enums, values, strict=True):
            if enum is not None:
                v = plain(value)
                if isinstance(v, str):
                    member = enum_value(enum, v)
                    value = member if member is not None else value
            resolved.append(value)
        try:
            cell, path = table.lookup(resolved)
        except LookupMiss as miss:
            return _missed(i, table, resolved, miss, span)
        row = [k.printed for k in path]
        if cell.provisional:
            i.trace.used_provisional(
                f"table {name} ({' / '.join(row)})" + (f" [{rule}]" if rule else "")
            )
        if not i.muted:  # off the record: nobody reads the row's event
            keys = {d.name: to_json(plain(v)) for d, v in zip(dims, resolved, strict=True)}
            i.trace.events.append(
                LookupEvent(
                    i.depth, name, rule, keys, row, cell.printed, cell.provisional, str(span)
                )
            )
        if cell.action is None:
            return cell.value
        action = comp.cached(cell.action)
        local = {d.name: v for d, v in zip(dims, resolved, strict=True) if d.kind != "roll"}
        saved = i.push(Frame(f"table {name}", ref, local))
        try:
            then = action(i)
        finally:
            i.pop(saved)
        return then if cell.value is None else Followed(cell.value, then)

    return run


def construct(comp: Compiler, e: n.Call) -> Code:
    record = comp.book.records.get(e.func)
    decl: n.KindDecl | n.RecordDecl = record or comp.book.kinds[e.func]
    params = tuple(n.Param(f.name, f.type, f.default, span=f.span) for f in decl.fields)
    bind = binder(comp, e, params)
    step, kind = step_code(e.span), decl.name
    if record is not None:
        names = [f.name for f in record.fields]

        def make_record(i: Interpreter) -> RecordValue:
            step(i)
            attrs = bind(i)
            return RecordValue(kind, tuple((name, attrs[name]) for name in names))

        return make_record

    def make_entity(i: Interpreter) -> Entity:
        step(i)
        attrs = bind(i)
        i.entity_count += 1
        label = str(attrs.get("name") or f"{kind} {i.entity_count}")
        return Entity(kind, attrs, label)

    return make_entity


def graph_call(comp: Compiler, e: n.Call) -> Code:
    """Distances and routes over a table of neighbours, traced as one event."""
    step, func = step_code(e.span), e.func
    codes = [comp.expr(a.value) for a in e.args[1:]]

    def run(i: Interpreter) -> Any:
        step(i)
        graph_name = e.args[0].value.id  # type: ignore[union-attr]
        table = comp.tables[graph_name]
        first, second = (code(i) for code in codes)
        if func == "distance":
            result: Any = graph.distance(table, first, second)
        elif func == "route":
            result = graph.route(table, first, second) or ()
        else:
            result = graph.within(table, list(i._iterate(first, e.span)), unwrap(second))
        if table.provisional_cells:
            i.trace.used_provisional(
                f"table {table.name}" + (f" [{table.rule}]" if table.rule else "")
            )
        shown = f"{func}({graph_name}, {show(first)}, {show(second)}) = {show(result)}"
        if not i.muted:
            i.trace.add(NoteEvent(i.depth, shown, table.rule))
        return result

    return run


def enum_call(comp: Compiler, e: n.Call) -> Code:
    step, name, span = step_code(e.span), e.func, e.span
    arg = comp.expr(e.args[0].value) if e.args else None
    vocab, enums = comp.vocab, comp.book.enums

    def run(i: Interpreter) -> Any:
        step(i)
        if arg is None:
            raise IndexError("tuple index out of range")
        value = unwrap(arg(i))
        if not isinstance(value, EnumValue):
            raise i.fail(f"{name}() takes a member of an enum, got {show(value)}", span)
        size = len(enums[value.enum].members)
        if name == "members_of":
            return tuple(vocab.member_of(value.enum, k) for k in range(size))
        return vocab.member_of(value.enum, value.index + 1) if value.index + 1 < size else None

    return run


_SLOW = object()


# The commonest one-argument builtins on their commonest values; anything else, the builtin.
_QUICK: dict[str, Callable[[Any], Any]] = {
    "count": lambda v: len(v) if type(v) is tuple else _SLOW,
    "abs": lambda v: abs(v) if type(v) is int else _SLOW,
    "ord": lambda v: v.index if type(v) is EnumValue else _SLOW,
    "first": lambda v: (normalize(v[0]) if v else None) if type(v) is tuple else _SLOW,
    "last": lambda v: (normalize(v[-1]) if v else None) if type(v) is tuple else _SLOW,
}


def builtin_call(comp: Compiler, e: n.Call) -> Code:
    name, span = e.func, e.span
    impl, rounding = BUILTINS[name].impl, comp.rounding
    codes = [comp.expr(a.value) for a in e.args]
    only = codes[0] if len(codes) == 1 else None

    def run(i: Interpreter) -> Any:
        i.steps += 1
        if i.steps > i.max_steps:
            raise i.over_budget(span)
        args = [code(i) for code in codes]
        charge(i, work(name, args), span)
        try:
            return normalize(impl(args, rounding))
        except BuiltinError as exc:
            raise i.fail(_builtin_message(name, exc), span) from None

    if only is not None and name in _QUICK:
        quick = _QUICK[name]

        def fast(i: Interpreter) -> Any:
            i.steps += 1
            if i.steps > i.max_steps:
                raise i.over_budget(span)
            value = only(i)
            result = quick(value)
            if result is not _SLOW:
                return result
            try:
                return normalize(impl([value], rounding))
            except BuiltinError as exc:
                raise i.fail(_builtin_message(name, exc), span) from None

        return fast
    return run


def _builtin_message(name: str, exc: BuiltinError) -> str:
    """The builtin's message, named once (some messages already start with their call)."""
    text = str(exc)
    return text if text.startswith(f"{name}(") else f"{name}(): {text}"


def draw(comp: Compiler, e: n.Draw) -> Code:
    """Draw without replacement; the dice source picks the position of each item."""
    name = comp.text(e.source.span)
    source = comp.expr(e.source)
    count = comp.expr(e.count) if e.count is not None else None
    store = _store(comp, e.source)
    span, source_span = e.span, e.source.span

    def run(i: Interpreter) -> Any:
        pool = list(i._iterate(source(i), source_span))
        wanted = 1 if count is None else unwrap(count(i))
        if not isinstance(wanted, int) or wanted < 0:
            raise i.fail(f"cannot draw {show(wanted)} items", span)
        if count is None and not pool:
            raise i.fail(f"cannot draw from {name}: it is empty", span)
        if wanted > len(pool) and not i.muted:
            i.trace.add(NoteEvent(i.depth, f"only {len(pool)} left in {name}", rule_text(i.ref)))
        drawn = []
        for _ in range(min(wanted, len(pool))):
            die = Die(f"draw from {name}", tuple(range(1, len(pool) + 1)), "draw")
            # one item left is no chance at all: no die is thrown for it
            position = 1 if len(pool) == 1 else i.dice.throw(die, i._where(span))
            item = pool.pop(position - 1)
            drawn.append(item)
            if not i.muted:
                i.trace.add(
                    DrawEvent(
                        i.depth, name, position, len(pool) + 1, to_json(item), rule_text(i.ref)
                    )
                )
        store(i, tuple(pool))
        return drawn[0] if count is None else tuple(drawn)

    return run


def _store(comp: Compiler, target: n.Expr) -> Callable[[Interpreter, Any], None]:
    """Write back a pool after a draw (a local, a state variable or an attribute)."""
    if isinstance(target, n.Name):
        name = target.id

        def local_or_state(i: Interpreter, value: Any) -> None:
            if name in i.locals:
                i.locals[name] = value
            else:
                i.state.values[name] = value

        return local_or_state
    assert isinstance(target, n.Attr)
    obj, attr, span = comp.expr(target.obj), target.name, target.span

    def attribute(i: Interpreter, value: Any) -> None:
        piece = obj(i)
        if not isinstance(piece, Entity):
            raise i.fail(f"cannot draw from {show(piece)}: not a game piece", span)
        piece.attrs[attr] = value

    return attribute
