"""What generated code calls for rolls, draws, table look-ups, constructors, enum functions
and a text given for an enum parameter (see rulekit.engine.codegen_calls, which writes the
calls): each runs after the generated code evaluated its operands, in the rulebook's order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from attrs import evolve

from rulekit.book.tables import CompiledTable, LookupMiss
from rulekit.engine.builtins import BUILTINS, BuiltinError, work
from rulekit.engine.dice import Die, Unthrown, throw_dice
from rulekit.engine.runtime import Frame, charge
from rulekit.engine.trace import DrawEvent, LookupEvent, NoteEvent, RollEvent, Term
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
    from rulekit.engine.interpreter import Interpreter

NO_ARG = object()  # an operand the rulebook did not write (a draw's count, an enum call's)


def rule_text(ref: n.RuleRef | None) -> str | None:
    return ref.text if ref else None


# ---- rolls ---------------------------------------------------------------------------------


class DiceSite:
    """A roll written at one place: its die, its dice and whether their number is fixed."""

    __slots__ = ("at", "die", "fixed", "keep", "shown", "simple", "span", "spec")

    def __init__(self, die: Die | None, spec: n.DiceSpec, span: n.Span) -> None:
        self.die, self.spec, self.span, self.at = die, spec, span, str(span)
        self.fixed = isinstance(spec.count, int)
        self.keep, self.shown = spec.keep, str(spec)
        # a keep roll that can be thrown as its kept value
        self.simple = spec.reroll is None and not spec.explode


def rolling(i: Interpreter, site: DiceSite) -> Interpreter:
    """Before the number of dice is evaluated: a die the rulebook does not declare."""
    if site.die is None:
        raise KeyError(site.spec.die)
    return i


Thrown = tuple[int, int, tuple[int, ...], "tuple[int, ...] | None"]


def throw(i: Interpreter, site: DiceSite, number: Any) -> Thrown:
    """The dice thrown: their number, the natural result, the faces that stand, and (when a
    ``reroll`` threw some again) every die thrown in the order thrown."""
    die, spec = site.die, site.spec
    if die is None:
        raise KeyError(spec.die)
    if not isinstance(number, int) or isinstance(number, bool) or number < 0:
        raise i.fail(f"cannot roll {show(number)} dice", spec.span)
    if number == 0:
        # no dice (a unit with no strength left): an empty roll, total 0, nothing thrown;
        # no highest or lowest die to keep
        if site.keep != "sum":
            raise i.fail(
                f"cannot keep the {site.keep} of 0 dice",
                spec.span,
                hint="test for no dice first: 'if n > 0: ...'",
            )
        return 0, 0, (), None
    charge(i, number - 1, spec.span)  # each die one step, the roll's own included
    keep = site.keep
    kept = getattr(i.dice, "throw_kept", None) if keep != "sum" and site.simple else None
    summed = getattr(i.dice, "throw_summed", None) if keep == "sum" and site.simple else None
    faces: tuple[int, ...]
    every: tuple[int, ...] | None = None
    if kept is not None and number > 1 and (value := kept(die, number, keep, site.at)) is not None:
        # exact analysis: only the value kept is thrown (see dice.Unthrown)
        natural, faces = value, Unthrown(value, site.at)
    elif summed is not None and number > 1 and (value := summed(die, number, site.at)) is not None:
        natural, faces = value, Unthrown(value, site.at)  # ... or only the total
    else:
        where = i._where(site.span)
        faces = throw_dice(i.dice, die, number, where)
        totals = faces
        if spec.reroll is not None or spec.explode:
            faces, totals, every = _reroll_and_explode(
                i, die, faces, spec.reroll, spec.explode, where, spec.span
            )
        if keep == "highest":
            natural = max(totals)
        elif keep == "lowest":
            natural = min(totals)
        else:
            natural = sum(faces)
    return number, natural, faces, every


def rolled(
    i: Interpreter,
    site: DiceSite,
    thrown: Thrown,
    term_lists: tuple[list[Term], ...],
) -> RollValue:
    """The roll's total with its modifiers' terms (evaluated after the throw), traced (the
    dice thrown again by a ``reroll`` too: the trace shows every die)."""
    number, natural, faces, every = thrown
    terms: list[Term] = [t for ts in term_lists for t in ts]
    total = normalize(natural + sum((t.value for t in terms), 0))
    if not i.muted:
        dice = site.shown if site.fixed else str(evolve(site.spec, count=number))
        i.trace.events.append(
            RollEvent(
                i.depth,
                dice,
                list(faces),
                natural,
                terms,
                total,
                rule_text(i.ref),
                site.at,
                list(every) if every is not None else [],
            )
        )
    return RollValue(total, natural, faces)


def _reroll_and_explode(
    i: Interpreter,
    die: Die,
    faces: tuple[int, ...],
    reroll: tuple[int, int] | None,
    explode: int,
    where: str,
    span: n.Span,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...] | None]:
    """``reroll A..B``: the dice showing those faces are thrown again, once, and the new
    faces stand. Then ``explode N``: each die showing the highest face adds a die, which
    may explode in turn, at most N more per die. The faces come out in the order thrown
    (round by round: the first throw, then every die that exploded, ...), with each die's
    total (its face and those it added: what ``highest of`` and ``lowest of`` keep, as a
    Savage Worlds trait die and Wild Die each ace before the higher is taken), and, when
    some were thrown again, every die in the order thrown (the trace shows the dice thrown
    again; a replay throws them all)."""
    every: list[int] | None = None
    if reroll is not None:
        low, high = reroll
        kept = tuple(f for f in faces if not low <= f <= high)
        again = len(faces) - len(kept)
        if again:
            charge(i, again, span)
            rethrown = throw_dice(i.dice, die, again, where)
            every = [*faces, *rethrown]
            faces = kept + rethrown
    totals = list(faces)
    if explode:
        top = die.high
        owners = [k for k, f in enumerate(faces) if f == top]  # the dice still exploding
        for _ in range(explode):
            if not owners:
                break
            charge(i, len(owners), span)
            more = throw_dice(i.dice, die, len(owners), where)
            faces += more
            if every is not None:
                every += more
            for owner, face in zip(owners, more, strict=True):
                totals[owner] += face
            owners = [o for o, f in zip(owners, more, strict=True) if f == top]
    return faces, tuple(totals), tuple(every) if every is not None else None


def single_term(i: Interpreter, sign: int, label: str, span: n.Span, value: Any) -> list[Term]:
    """A roll's modifier that is one value."""
    amount = plain(value)
    if not is_number(amount):
        raise i.fail(f"a roll modifier must be a number, got {show(amount)}", span)
    if amount == 0:
        return []
    return [Term(normalize(sign * amount), label, None)]


def listed_terms(
    sign: int,
    bounds: str,
    rule: str | None,
    found: tuple[list[Term], Any, bool],
) -> list[Term]:
    """A roll's modifier that is a modifier list: its terms (and its clamp's correction)."""
    terms, total, clamped = found
    if clamped:
        # the list's clamp holds inside a roll too: a term brings the sum to the total
        correction = normalize(total - sum((t.value for t in terms), 0))
        terms = [*terms, Term(correction, f"clamp {bounds}", rule)]
    return [Term(sign * t.value, t.label, t.rule, t.provisional) for t in terms]


# ---- draws ---------------------------------------------------------------------------------


class DrawSite:
    __slots__ = ("name", "source_span", "span")

    def __init__(self, name: str, span: n.Span, source_span: n.Span) -> None:
        self.name, self.span, self.source_span = name, span, source_span


def draw(
    i: Interpreter, site: DrawSite, items: tuple[Any, ...], count: Any
) -> tuple[tuple[Any, ...], Any]:
    """Draw without replacement; the dice source picks the position of each item. The pool
    left, and what was drawn (one item without a count, else a list)."""
    pool = list(items)
    name, span = site.name, site.span
    wanted = 1 if count is NO_ARG else unwrap(count)
    if not isinstance(wanted, int) or wanted < 0:
        raise i.fail(f"cannot draw {show(wanted)} items", span)
    if count is NO_ARG and not pool:
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
                DrawEvent(i.depth, name, position, len(pool) + 1, to_json(item), rule_text(i.ref))
            )
    return tuple(pool), drawn[0] if count is NO_ARG else tuple(drawn)


def drawn_from_name(i: Interpreter, name: str, drawn: tuple[tuple[Any, ...], Any]) -> Any:
    """The pool written back to the local, else the state variable, it was drawn from."""
    if name in i.locals:
        i.locals[name] = drawn[0]
    else:
        i.state.values[name] = drawn[0]
    return drawn[1]


def drawn_from_attr(
    i: Interpreter, drawn: tuple[tuple[Any, ...], Any], piece: Any, attr: str, span: n.Span
) -> Any:
    """The pool written back to the piece's attribute (the piece evaluated after the draw)."""
    if not isinstance(piece, Entity):
        raise i.fail(f"cannot draw from {show(piece)}: not a game piece", span)
    piece.attrs[attr] = drawn[0]
    return drawn[1]


# ---- constructors, enum functions, arguments -----------------------------------------------


def make_record(i: Interpreter, kind: str, names: tuple[str, ...], attrs: dict[str, Any]) -> Any:
    return RecordValue(kind, tuple((name, attrs[name]) for name in names))


def make_entity(i: Interpreter, kind: str, attrs: dict[str, Any]) -> Entity:
    i.entity_count += 1
    label = str(attrs.get("name") or f"{kind} {i.entity_count}")
    return Entity(kind, attrs, label)


class EnumSite:
    __slots__ = ("enums", "name", "span", "vocab")

    def __init__(self, name: str, span: n.Span, vocab: Any, enums: dict[str, Any]) -> None:
        self.name, self.span, self.vocab, self.enums = name, span, vocab, enums


def enum_call(i: Interpreter, site: EnumSite, arg: Any) -> Any:
    """``members_of(m)``, ``next_member(m)``."""
    if arg is NO_ARG:
        raise IndexError("tuple index out of range")
    value = unwrap(arg)
    name, vocab = site.name, site.vocab
    if not isinstance(value, EnumValue):
        raise i.fail(f"{name}() takes a member of an enum, got {show(value)}", site.span)
    size = len(site.enums[value.enum].members)
    if name == "members_of":
        return tuple(vocab.member_of(value.enum, k) for k in range(size))
    return vocab.member_of(value.enum, value.index + 1) if value.index + 1 < size else None


def enum_members(vocab: Any, name: str, size: int) -> tuple[Any, ...]:
    """An enum's name read as a value: all its members."""
    return tuple(vocab.member_of(name, k) for k in range(size))


def unknown_call(i: Interpreter, name: str, span: n.Span) -> Any:
    raise i.fail(f"unknown procedure, table or function '{name}'", span)


def graph_odd(i: Interpreter, e: n.Call, tables: dict[str, CompiledTable]) -> Interpreter:
    """A graph function called without a graph table first (the checker does not let this
    through): what fails before its arguments are evaluated."""
    graph_name = e.args[0].value.id  # type: ignore[union-attr]
    tables[graph_name]
    return i


def graph_unpack(values: tuple[Any, ...]) -> Any:
    """... and with other than two more arguments, what fails once they are evaluated."""
    first, second = values
    raise AssertionError((first, second))


def too_many(values: tuple[Any, ...], message: str) -> Any:
    """More positional arguments than parameters (the checker does not let this through):
    the arguments were evaluated."""
    raise IndexError(message)


def needs(i: Interpreter, values: tuple[Any, ...], message: str, span: n.Span) -> Any:
    """A parameter without a default that the call does not give (after its arguments)."""
    raise i.fail(message, span)


def _enum_of(vocab: Any, param: n.Param) -> str | None:
    assert param.type is not None
    typ = vocab.type_of(param.type)
    options: tuple[Any, ...] = typ.options if hasattr(typ, "options") else (typ,)
    return next((o.name for o in options if o.__class__.__name__ == "EnumT"), None)


class EnumParam:
    """A text given for a parameter whose type includes an enum reads as its member."""

    __slots__ = ("param", "span", "vocab")

    def __init__(self, vocab: Any, param: n.Param, span: n.Span) -> None:
        self.vocab, self.param, self.span = vocab, param, span

    def __call__(self, i: Interpreter, value: str) -> Any:
        enum = _enum_of(self.vocab, self.param)
        if enum is not None:
            member = self.vocab.enum_value(enum, value)
            if member is None:
                raise i.fail(f"'{value}' is not a {enum}", self.span)
            return member
        return value


def enum_param(vocab: Any, param: n.Param, span: n.Span) -> EnumParam | None:
    """How a text given for ``param`` is read, or None when it is taken as it is."""
    if param.type is None:
        return None
    try:
        if _enum_of(vocab, param) is None:
            return None  # no text to read: the value is taken as it is
    except Exception:  # a type that does not resolve fails only when a text comes
        pass
    return EnumParam(vocab, param, span)


# ---- builtins ------------------------------------------------------------------------------

_SLOW = object()


# The commonest one-argument builtins on their commonest values; anything else, the builtin.
_QUICK: dict[str, Callable[[Any], Any]] = {
    "count": lambda v: len(v) if type(v) is tuple else _SLOW,
    "abs": lambda v: abs(v) if type(v) is int else _SLOW,
    "ord": lambda v: v.index if type(v) is EnumValue else _SLOW,
    "first": lambda v: (normalize(v[0]) if v else None) if type(v) is tuple else _SLOW,
    "last": lambda v: (normalize(v[-1]) if v else None) if type(v) is tuple else _SLOW,
}


class BuiltinSite:
    """A builtin called at one place; with one argument, its quick path first."""

    __slots__ = ("impl", "name", "pick", "quick", "rounding", "span")

    def __init__(self, name: str, rounding: Any, one: bool, span: n.Span) -> None:
        self.name, self.rounding, self.span = name, rounding, span
        self.impl = BUILTINS[name].impl
        self.quick = _QUICK.get(name) if one else None
        # min(a, b, ...) and max of several values: of ints, Python's (the first of equals)
        self.pick: Callable[[list[int]], int] | None = None
        if not one and name in ("min", "max"):
            self.pick = min if name == "min" else max


def builtin(i: Interpreter, site: BuiltinSite, args: list[Any]) -> Any:
    """A builtin called: its arguments were evaluated after its step."""
    quick = site.quick
    if quick is not None:
        result = quick(args[0])
        if result is not _SLOW:
            return result
    else:  # what it costs beyond its own step, charged before it runs (range: per number)
        pick = site.pick
        if pick is not None:
            for arg in args:
                if type(arg) is not int:
                    break
            else:
                return pick(args)
        charge(i, work(site.name, args), site.span)
    try:
        return normalize(site.impl(args, site.rounding))
    except BuiltinError as exc:
        raise i.fail(_builtin_message(site.name, exc), site.span) from None


def _builtin_message(name: str, exc: BuiltinError) -> str:
    """The builtin's message, named once (some messages already start with their call)."""
    text = str(exc)
    return text if text.startswith(f"{name}(") else f"{name}(): {text}"


# ---- table look-ups ------------------------------------------------------------------------


class Lookup:
    """A table's look-up by the values of its dimensions: the cell found, its row traced,
    and its follow-up action run (a generated function, made on first use)."""

    __slots__ = ("actions", "enums", "rows", "table")

    def __init__(self, table: CompiledTable, actions: Any) -> None:
        self.table, self.actions = table, actions  # actions: the program (its .expression)
        # the cell and keys found for values that are all ints or members, by those values
        # (a table's entries do not change once checked; a miss is not remembered)
        self.rows: dict[tuple[Any, ...], tuple[Any, list[Any]]] = {}
        self.enums = [
            d.type.name if d.type.__class__.__name__ == "EnumT" else None  # type: ignore[union-attr]
            for d in table.dims
        ]

    def run(self, i: Interpreter, values: list[Any], span: n.Span) -> Any:
        table = self.table
        name, rule, dims = table.name, table.rule, table.dims
        enum_value = self.actions.vocab.enum_value
        resolved = []
        for enum, value in zip(self.enums, values, strict=True):
            if enum is not None:
                v = plain(value)
                if isinstance(v, str):
                    member = enum_value(enum, v)
                    value = member if member is not None else value
            resolved.append(value)
        # (a look-up reads each value unwrapped: a roll as its total)
        key = tuple([plain(v) for v in resolved])
        keyed = True
        for v in key:
            if type(v) is not int and type(v) is not EnumValue:
                keyed = False
                break
        found = self.rows.get(key) if keyed else None
        if found is not None:
            cell, path = found
        else:
            try:
                cell, path = table.lookup(resolved)
            except LookupMiss as miss:
                return _missed(i, table, resolved, miss, span)
            if keyed:
                self.rows[key] = (cell, path)
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
        action = self.actions.expression(cell.action)
        local = {d.name: v for d, v in zip(dims, resolved, strict=True) if d.kind != "roll"}
        saved = i.push(Frame(f"table {name}", table.decl.ref, local))
        try:
            then = action(i)
        finally:
            i.pop(saved)
        return then if cell.value is None else Followed(cell.value, then)


def _missed(
    i: Interpreter, table: CompiledTable, resolved: list[Any], miss: LookupMiss, span: n.Span
) -> Any:
    if miss.dim.kind == "threshold":
        # "the highest entry the value equals or exceeds": below the first, no entry.
        keys = {d.name: to_json(unwrap(v)) for d, v in zip(table.dims, resolved, strict=True)}
        below = f"below {miss.keys[0] if miss.keys else 'every line'}"
        if not i.muted:
            i.trace.add(
                LookupEvent(i.depth, table.name, table.rule, keys, [below], None, False, str(span))
            )
        return None
    raise i.fail(
        f"table {table.name} has no row for {miss.dim.name} = {show(unwrap(miss.value))}",
        span,
        hint=f"its {miss.dim.name} rows are: {', '.join(miss.keys)}" if miss.keys else None,
    ) from None
