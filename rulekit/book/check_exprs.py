"""Checking expressions: names, attributes, calls, operators, rolls and table look-ups.

:class:`ExprChecker` infers the type of every expression in a procedure or modifier body
and reports what cannot work; :class:`rulekit.book.checker.Checker` builds on it for
declarations and statements.
"""

from __future__ import annotations

import re

from rulekit.book import types as t
from rulekit.book.coerce import CoerceError, Vocabulary
from rulekit.book.rulebook import Rulebook
from rulekit.book.tables import CompiledTable
from rulekit.engine.builtins import BUILTINS
from rulekit.engine.dice import Die
from rulekit.engine.values import EnumValue, MarkerValue
from rulekit.errors import Diagnostic, did_you_mean, error
from rulekit.language import nodes as n

GRAPH_FUNCTIONS = ("distance", "route", "within")
ENUM_FUNCTIONS = ("next_member", "members_of")
# Builtins whose arguments are checked beyond their count (see ExprChecker._builtin_args)
BUILTIN_ARGS = frozenset(
    [
        "sorted",
        "sorted_desc",
        "nth_highest",
        "nth_lowest",
        "keep_highest",
        "keep_lowest",
        "pairs",
        "max_by",
        "min_by",
        "low",
        "high",
    ]
)
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")
# Braces with something inside; empty ones ("{}") are text, printed as they stand.
_BRACED = re.compile(r"\{([^{}\n]*[^{}\s][^{}\n]*)\}")

# An exploding die adds at most this many dice: enough for any rule, and bounded for prob.
MAX_EXPLODE = 20


def placeholders(text: str) -> list[str]:
    """The ``{name}`` or ``{name.attr}`` parts of a note, filled in when it runs."""
    return _PLACEHOLDER.findall(text)


class Scope:
    """Names visible in a procedure body, with their types."""

    def __init__(self, parent: dict[str, t.Type]) -> None:
        self.parent = parent
        self.locals: dict[str, t.Type] = {}
        self.params: set[str] = set()
        # `T or none` names known not to be none here (after `if x != none:`): read as T
        self.narrowed: dict[str, t.Type] = {}

    def get(self, name: str) -> t.Type | None:
        if name in self.narrowed:
            return self.narrowed[name]
        if name in self.locals:
            return self.locals[name]
        return self.parent.get(name)


class ExprChecker:
    """Type inference and checks of expressions; the state it needs is set by the subclass."""

    book: Rulebook
    vocab: Vocabulary
    diags: list[Diagnostic]
    dice: dict[str, Die]
    tables: dict[str, CompiledTable]
    globals: dict[str, t.Type]
    members: dict[int, EnumValue | MarkerValue]
    member_index: dict[str, list[str]]
    current: str

    def err(self, message: str, span: n.Span | None, hint: str | None = None) -> None:
        self.diags.append(error(message, span, hint=hint))

    def type_of(self, texpr: n.TypeExpr) -> t.Type:
        try:
            return self.vocab.type_of(texpr)
        except CoerceError as exc:
            self.err(exc.message, texpr.span, exc.hint)
            return t.ANY

    def _check_placeholders(self, text: str, span: n.Span, scope: Scope) -> None:
        """``{name}`` and ``{name.attr}`` in a string must name something in scope."""
        for inside in _BRACED.findall(text):
            # only names are filled in: anything else would be printed as it stands
            if _PLACEHOLDER.fullmatch("{" + inside + "}") is None:
                self.err(
                    f"'{{{inside}}}' cannot be filled in: only {{name}} or {{name.attr}} can",
                    span,
                    hint=f"work it out first (let value = {inside.strip() or '...'}), "
                    "then write {value}",
                )
        for dotted in placeholders(text):
            head, *attrs = dotted.split(".")
            found: t.Type | None = scope.get(head)
            if found is None:
                self._unknown(head, span, scope)
                continue
            for attr in attrs:
                found = self._attr_type(found or t.ANY, attr, span)

    def _condition(self, expr: n.Expr, scope: Scope) -> None:
        found = self.infer(expr, scope)
        if found not in (t.BOOL, t.ANY) and not isinstance(found, t.UnionT):
            self.err(f"a condition must be yes/no, this is {found}", expr.span)

    def _expect(self, expr: n.Expr, want: t.Type, scope: Scope, what: str) -> t.Type:
        found = self.infer(expr, scope, want)
        if not t.assignable(found, want):
            self.err(f"{what} should be {want}, not {found}", expr.span)
        return found

    def _visible(self, scope: Scope) -> list[str]:
        return [
            *scope.locals,
            *self.globals,
            *self.member_index,
            *self.book.markers,
            *self.book.enums,
        ]

    def _unknown(self, name: str, span: n.Span, scope: Scope) -> t.Type:
        callables = [*self.book.tables, *self.book.procedures, *self.book.modifiers]
        if name in callables:
            self.err(f"'{name}' is called with parentheses: {name}(...)", span)
            return t.ANY
        self.err(
            f"unknown name '{name}'",
            span,
            hint=did_you_mean(name, self._visible(scope)),
        )
        return t.ANY

    def _member(self, node: n.Name | n.Str, enum: str) -> t.Type:
        text = node.id if isinstance(node, n.Name) else node.value
        value = self.vocab.enum_value(enum, text)
        if value is None:
            self.err(
                f"'{text}' is not a {enum}",
                node.span,
                hint=did_you_mean(text, self.vocab.members(enum)),
            )
            return t.ANY
        self.members[id(node)] = value
        return t.EnumT(enum)

    def infer(self, expr: n.Expr, scope: Scope, want: t.Type | None = None) -> t.Type:
        """The type of an expression; reports problems found on the way."""
        if isinstance(expr, n.Num):
            return t.INT if isinstance(expr.value, int) else t.NUMBER
        if isinstance(expr, n.Str):
            if _BRACED.search(expr.value):
                self._check_placeholders(expr.value, expr.span, scope)
                return t.TEXT
            enum = _enum_in(want)
            if enum is not None and self.vocab.enum_value(enum, expr.value) is not None:
                return self._member(expr, enum)
            marker = self._marker_written(expr.value, want)
            if marker is not None:  # a marker by its printed symbol: dive = "X"
                decl = self.book.markers[marker]
                self.members[id(expr)] = MarkerValue(decl.name, decl.symbol)
                return t.MarkerT(marker)
            return t.TEXT
        if isinstance(expr, n.Bool):
            return t.BOOL
        if isinstance(expr, n.NoneLit):
            return t.NONE
        if isinstance(expr, n.Name):
            return self._name(expr, scope, want)
        if isinstance(expr, n.Attr):
            return self._attr_type(self.infer(expr.obj, scope), expr.name, expr.span)
        if isinstance(expr, n.ListLit):
            item_want = want.item if isinstance(want, t.ListT) else None
            items = [self.infer(i, scope, item_want) for i in expr.items]
            return t.ListT(t.union(*items) if items else (item_want or t.ANY))
        if isinstance(expr, n.BinOp):
            left = self.infer(expr.left, scope)
            right = self.infer(expr.right, scope)
            left_list, right_list = t.as_list(left), t.as_list(right)
            if expr.op == "+" and left_list is not None and right_list is not None:
                return t.ListT(t.union(left_list.item, right_list.item))
            for side, typ in ((expr.left, left), (expr.right, right)):
                if not t.is_numeric(typ) and typ != t.ANY:
                    self.err(f"'{expr.op}' needs numbers, this is {typ}", side.span)
            if expr.op == "/":
                return t.NUMBER
            whole = (t.INT, t.ROLL)
            both_whole = t.numeric_part(left) in whole and t.numeric_part(right) in whole
            return t.INT if both_whole else t.NUMBER
        if isinstance(expr, n.UnaryOp):
            operand = self.infer(expr.operand, scope)
            if not t.is_numeric(operand):
                self.err(f"'-' needs a number, this is {operand}", expr.operand.span)
            return t.INT if operand in (t.INT, t.ROLL) else t.NUMBER
        if isinstance(expr, n.Compare):
            return self._compare(expr, scope)
        if isinstance(expr, n.BoolOp):
            self._condition(expr.left, scope)
            self._condition(expr.right, scope)
            return t.BOOL
        if isinstance(expr, n.Not):
            self._condition(expr.operand, scope)
            return t.BOOL
        if isinstance(expr, n.IfExpr):
            self._condition(expr.cond, scope)
            # one branch's enum gives the other's quoted names their meaning
            then = self.infer(expr.then, scope, want)
            otherwise = self.infer(expr.otherwise, scope, want or _enum_type(then))
            if want is None and _enum_type(otherwise) and isinstance(expr.then, (n.Str, n.IfExpr)):
                then = self.infer(expr.then, scope, _enum_type(otherwise))
            return t.union(then, otherwise)
        if isinstance(expr, n.Roll):
            self._dice_spec(expr.dice, scope)
            for mod in expr.mods:
                self._expect(mod.value, t.NUMBER, scope, "a roll modifier")
            return t.ROLL
        if isinstance(expr, n.ListComp):
            iterable = self.infer(expr.iterable, scope)
            if t.as_list(iterable) is None and iterable != t.ANY:
                self.err(f"'for' needs a list, not {iterable}", expr.iterable.span)
            inner = self._inner(scope, expr.var, iterable)
            if expr.cond is not None:
                self._condition(expr.cond, inner)
            return t.ListT(self.infer(expr.expr, inner))
        if isinstance(expr, n.Draw):
            return self._draw(expr, scope)
        if isinstance(expr, n.Aggregate):
            return self._aggregate(expr, scope)
        if isinstance(expr, n.Call):
            return self._call(expr, scope)
        raise AssertionError(expr)

    def _marker_written(self, text: str, want: t.Type | None) -> str | None:
        """The marker a text names by its printed symbol where that marker is wanted."""
        if want is None:
            return None
        markers = self.book.markers
        for option in t.options(want):
            if (
                isinstance(option, t.MarkerT)
                and getattr(markers.get(option.name), "symbol", None) == text
            ):
                return option.name
        return None

    def _name(self, expr: n.Name, scope: Scope, want: t.Type | None) -> t.Type:
        found = scope.get(expr.id)
        if found is not None:
            return found
        if (
            expr.id in self.book.markers
            and want is not None
            and t.MarkerT(expr.id) in t.options(want)
        ):
            return t.MarkerT(expr.id)
        enums = self.member_index.get(expr.id, [])
        wanted = _enum_in(want)
        if wanted in enums:
            return self._member(expr, wanted)
        if len(enums) == 1:
            return self._member(expr, enums[0])
        if len(enums) > 1:
            self.err(
                f"'{expr.id}' is a member of several enums ({', '.join(enums)})",
                expr.span,
                hint="compare it with a value of the enum you mean",
            )
            return t.ANY
        if expr.id in self.book.markers:
            return t.MarkerT(expr.id)
        if expr.id in self.book.tables:
            return t.TABLE
        if expr.id in self.book.enums:
            return t.ListT(t.EnumT(expr.id))
        return self._unknown(expr.id, expr.span, scope)

    def _attr_type(self, obj: t.Type, attr: str, span: n.Span) -> t.Type:
        if obj == t.ANY:
            return t.ANY
        if obj == t.ROLL:
            if attr in ("natural", "total"):
                return t.INT
            if attr == "dice":
                return t.ListT(t.INT)
            self.err(f"a roll has no '{attr}'", span, hint="use .natural, .total or .dice")
            return t.ANY
        decl: n.KindDecl | n.RecordDecl | None = None
        if isinstance(obj, t.KindT):
            decl = self.book.kinds.get(obj.name)
        elif isinstance(obj, t.RecordT):
            decl = self.book.records.get(obj.name)
        if isinstance(obj, t.UnionT):
            found = [self._attr_type(o, attr, span) for o in obj.options if o != t.NONE]
            return t.union(*found) if found else t.ANY
        if decl is None:
            self.err(f"{obj} has no attributes", span)
            return t.ANY
        fdecl = next((f for f in decl.fields if f.name == attr), None)
        if fdecl is None:
            self.err(
                f"a {decl.name} has no '{attr}'",
                span,
                hint=did_you_mean(attr, [f.name for f in decl.fields]),
            )
            return t.ANY
        return self.type_of(fdecl.type)

    def _compare(self, expr: n.Compare, scope: Scope) -> t.Type:
        if expr.op in ("in", "not in"):
            first = self.infer(expr.left, scope) if not isinstance(expr.left, n.Str) else t.TEXT
            hint = t.ListT(first) if _enum_in(first) else None
            right = self.infer(expr.right, scope, hint)
            item = right.item if isinstance(right, t.ListT) else None
            if item is None and right not in (t.ANY, t.RANGE):
                self.err(f"'{expr.op}' needs a list on the right, this is {right}", expr.right.span)
            left = self.infer(expr.left, scope, item) if isinstance(expr.left, n.Str) else first
            if item is not None and not t.comparable(left, item):
                self.err(f"a {left} is never in a list of {item}", expr.span)
            return t.BOOL
        left = self.infer(expr.left, scope)
        right = self.infer(expr.right, scope, left)
        if isinstance(expr.left, (n.Str, n.Name)) and left in (t.TEXT, t.ANY) and _enum_in(right):
            left = self.infer(expr.left, scope, right)
        if isinstance(expr.left, n.Str) and left == t.TEXT and isinstance(expr.right, n.Name):
            left = self.infer(expr.left, scope, right)  # "X" = dive: the marker by its symbol
        if expr.op in ("=", "!="):
            if not t.comparable(left, right):
                self.err(f"comparing {left} with {right} is never true", expr.span)
        else:
            left, right = _without_none(left), _without_none(right)
            ordered = t.is_numeric(left) and t.is_numeric(right)
            same_enum = isinstance(left, t.EnumT) and left == right
            if not (ordered or same_enum or t.ANY in (left, right)):
                self.err(f"'{expr.op}' cannot order {left} and {right}", expr.span)
        return t.BOOL

    def _inner(self, scope: Scope, var: str, iterable: t.Type) -> Scope:
        """The scope inside ``for x in xs``: x is an item of the list."""
        inner = Scope(scope.parent)
        inner.locals = dict(scope.locals)
        inner.params = scope.params
        listed = t.as_list(iterable)
        inner.locals[var] = listed.item if listed is not None else t.ANY
        return inner

    def _draw(self, expr: n.Draw, scope: Scope) -> t.Type:
        pool = self.infer(expr.source, scope)
        path = _path(expr.source)
        if path is None:
            self.err("draw from a pool held in state: a name or an attribute", expr.source.span)
        elif len(path) == 1 and path[0] in self.book.consts:
            self.err(
                f"'{path[0]}' is a constant: draw from state that can change", expr.source.span
            )
        if not isinstance(pool, t.ListT) and pool != t.ANY:
            self.err(f"draw needs a list to draw from, this is {pool}", expr.source.span)
        item = pool.item if isinstance(pool, t.ListT) else t.ANY
        if expr.count is not None:
            self._expect(expr.count, t.INT, scope, "the number drawn")
            return t.ListT(item)
        return item

    def _aggregate(self, expr: n.Aggregate, scope: Scope) -> t.Type:
        iterable = self.infer(expr.iterable, scope)
        if t.as_list(iterable) is None and iterable != t.ANY:
            self.err(f"'{expr.func}(... for ...)' needs a list, not {iterable}", expr.iterable.span)
        inner = self._inner(scope, expr.var, iterable)
        if expr.cond is not None:
            self._condition(expr.cond, inner)
        value = self.infer(expr.expr, inner)
        if expr.func in ("any", "all"):
            return t.BOOL
        if expr.func == "count":
            return t.INT
        if not t.is_numeric(value):
            self.err(f"{expr.func}() needs numbers, this is {value}", expr.expr.span)
        return value if expr.func in ("max", "min") else (t.INT if value == t.INT else t.NUMBER)

    def _dice_spec(self, spec: n.DiceSpec, scope: Scope) -> None:
        if spec.die not in self.dice and spec.die not in self.book.dice:
            self.err(
                f"unknown die '{spec.die}'",
                spec.span,
                hint=did_you_mean(spec.die, self.book.dice)
                or (
                    f"declare it, e.g. 'dice {spec.die} = 1..{spec.die[1:]}'"
                    if spec.die[1:].isdigit()
                    else f"declare it, e.g. 'dice {spec.die} = -1, 0, 1'"
                ),
            )
        if not isinstance(spec.count, int):
            self._expect(spec.count, t.INT, scope, "the number of dice")
        elif spec.count == 0 and spec.keep != "sum":  # (0 dice added up: an empty roll)
            self.err(f"no {spec.keep} die of 0 dice", spec.span, "roll at least one die")
        if not 0 <= spec.explode <= MAX_EXPLODE:
            self.err(f"a die explodes at most {MAX_EXPLODE} times, not {spec.explode}", spec.span)
        die = self.dice.get(spec.die)
        if spec.reroll is not None and die is not None:
            low, high = spec.reroll
            again = [f for f in die.faces if low <= f <= high]
            if low > high or not again:
                self.err(f"no face of {die.describe()} is in reroll {low}..{high}", spec.span)

    def _call(self, call: n.Call, scope: Scope) -> t.Type:
        name = call.func
        if name in self.book.tables:
            return self._table_call(call, scope)
        if name in self.book.modifiers:
            decl = self.book.modifiers[name]
            self._bind(call, decl.params, scope, f"modifiers {name}")
            return t.INT
        if name in self.book.procedures:
            proc = self.book.procedures[name]
            self._bind(call, proc.params, scope, f"procedure {name}")
            return self.type_of(proc.returns) if proc.returns is not None else t.ANY
        if name in self.book.kinds or name in self.book.records:
            return self._construct(call, scope)
        if name in GRAPH_FUNCTIONS:
            return self._graph_call(call, scope)
        if name in ENUM_FUNCTIONS:
            if len(call.args) != 1 or call.args[0].name:
                self.err(f"{name}(x) takes one member of an enum", call.span)
                return t.ANY
            member = self.infer(call.args[0].value, scope)
            enum = _enum_type(member)
            if enum is None and member != t.ANY:
                self.err(f"{name}() takes a member of an enum, not {member}", call.span)
            item = enum or t.ANY
            return t.union(item, t.NONE) if name == "next_member" else t.ListT(item)
        if name in BUILTINS:
            builtin = BUILTINS[name]
            if any(a.name for a in call.args):
                self.err(f"{name}() takes no keyword arguments", call.span)
            count = len(call.args)
            if count < builtin.min_args or (
                builtin.max_args is not None and count > builtin.max_args
            ):
                self.err(f"{name}() takes {_arity(builtin.min_args, builtin.max_args)}", call.span)
            types = [self.infer(a.value, scope) for a in call.args]
            if name in BUILTIN_ARGS and len(types) == builtin.max_args:
                self._builtin_args(call, types)
            return builtin.returns(types)
        callables = [
            *GRAPH_FUNCTIONS,
            *ENUM_FUNCTIONS,
            *self.book.tables,
            *self.book.procedures,
            *self.book.modifiers,
            *self.book.kinds,
            *self.book.records,
            *BUILTINS,
        ]
        self.err(
            f"unknown procedure, table or function '{name}'",
            call.span,
            hint=did_you_mean(name, callables),
        )
        for a in call.args:
            self.infer(a.value, scope)
        return t.ANY

    def _builtin_args(self, call: n.Call, types: list[t.Type]) -> None:
        """The argument types of the pool, range and by-field builtins (the others take any)."""
        name, args = call.func, call.args
        pool = types[0] == t.ROLL or t.as_list(types[0]) is not None
        if name in ("low", "high"):
            if types[0] not in (t.RANGE, t.ANY) and t.as_list(types[0]) != t.ListT(t.INT):
                self.err(f"{name}() takes a range, not {types[0]}", args[0].value.span)
            return
        if not pool and types[0] != t.ANY:
            self.err(f"{name}() takes a list or a roll, not {types[0]}", args[0].value.span)
        if name == "pairs":
            if types[1] != t.ROLL and t.as_list(types[1]) is None and types[1] != t.ANY:
                self.err(f"pairs() takes a list or a roll, not {types[1]}", args[1].value.span)
            return
        if name in ("max_by", "min_by"):
            self._by_field(call, types[0])
            return
        if len(types) > 1 and (not t.assignable(types[1], t.INT) or types[1] == t.NONE):
            self.err(f"{name}() takes a whole number of items, not {types[1]}", args[1].value.span)

    def _by_field(self, call: n.Call, pool: t.Type) -> None:
        """max_by(list, "field"): the field is named as text and must hold numbers."""
        field = call.args[1].value
        if not isinstance(field, n.Str) or placeholders(field.value):
            self.err(
                f'{call.func}(list, "field") names the field as plain text',
                field.span,
                hint=f'e.g. {call.func}(units, "strength")',
            )
            return
        listed = t.as_list(pool)
        if listed is None or listed.item == t.ANY:
            return
        found = self._attr_type(listed.item, field.value, field.span)
        if found != t.ANY and not t.is_numeric(found):
            self.err(f"{call.func}() compares numbers; '{field.value}' is {found}", field.span)

    def _graph_call(self, call: n.Call, scope: Scope) -> t.Type:
        """distance(graph, a, b), route(graph, a, b), within(graph, starts, n)."""
        if len(call.args) != 3 or any(a.name for a in call.args):
            self.err(f"{call.func}(graph, ...) takes three arguments", call.span)
            return t.ANY
        graph = call.args[0].value
        table = self.tables.get(graph.id) if isinstance(graph, n.Name) else None
        if table is None or len(table.dims) != 1:
            self.err(f"{call.func}() needs a one-dimensional table of neighbours first", graph.span)
            return t.ANY
        node = table.dims[0].type
        if call.func == "within":
            self._expect(call.args[1].value, t.ListT(node), scope, "the starting points")
            self._expect(call.args[2].value, t.INT, scope, "the number of moves")
            return t.ListT(node)
        self._expect(call.args[1].value, node, scope, "the start")
        self._expect(call.args[2].value, node, scope, "the goal")
        return t.union(t.INT, t.NONE) if call.func == "distance" else t.ListT(node)

    def _construct(self, call: n.Call, scope: Scope) -> t.Type:
        """``unit(type: "DD")``: a new game piece (or record); fields by name, defaults kept."""
        decl: n.KindDecl | n.RecordDecl = (
            self.book.kinds.get(call.func) or self.book.records[call.func]
        )
        params = tuple(n.Param(f.name, f.type, f.default, span=f.span) for f in decl.fields)
        for arg in call.args:
            if arg.name is None:
                self.err(f"give the attributes of a new {decl.name} by name", arg.span)
        self._bind(call, params, scope, f"a new {decl.name}")
        return t.KindT(decl.name) if call.func in self.book.kinds else t.RecordT(decl.name)

    def _bind(self, call: n.Call, params: tuple[n.Param, ...], scope: Scope, what: str) -> None:
        names = [p.name for p in params]
        bound: set[str] = set()
        positional = True
        for i, arg in enumerate(call.args):
            if arg.name is None:
                if not positional:
                    self.err("a positional argument after a keyword argument", arg.span)
                if i >= len(params):
                    self.err(f"{what} takes {len(params)} argument(s)", arg.span)
                    self.infer(arg.value, scope)
                    continue
                param = params[i]
            else:
                positional = False
                found = next((p for p in params if p.name == arg.name), None)
                if found is None:
                    self.err(
                        f"{what} has no parameter '{arg.name}'",
                        arg.span,
                        hint=did_you_mean(arg.name, names),
                    )
                    self.infer(arg.value, scope)
                    continue
                param = found
            if param.name in bound:
                self.err(f"'{param.name}' is given twice", arg.span)
            bound.add(param.name)
            want = self.type_of(param.type) if param.type is not None else t.ANY
            self._expect(arg.value, want, scope, f"'{param.name}'")
        missing = [p.name for p in params if p.name not in bound and p.default is None]
        if missing:
            self.err(f"{what} needs {', '.join(missing)}", call.span)

    def _table_call(self, call: n.Call, scope: Scope) -> t.Type:
        decl = self.book.tables[call.func]
        table = self.tables.get(call.func)
        inputs = [d for d in decl.dims if d.kind != "roll"]
        has_roll = any(d.kind == "roll" for d in decl.dims)
        bound: set[str] = set()
        position = 0
        for arg in call.args:
            if arg.name is None:
                if position >= len(inputs):
                    self.err(
                        f"table {decl.name} takes {len(inputs)} key(s)"
                        + (" and roll: ..." if has_roll else ""),
                        arg.span,
                    )
                    continue
                dim = inputs[position]
                position += 1
            elif arg.name == "roll":
                if not has_roll:
                    self.err(f"table {decl.name} has no roll", arg.span)
                self._expect(arg.value, t.INT, scope, "the roll")
                continue
            else:
                found = next((d for d in inputs if d.name == arg.name), None)
                if found is None:
                    self.err(
                        f"table {decl.name} has no dimension '{arg.name}'",
                        arg.span,
                        hint=did_you_mean(arg.name, [d.name for d in inputs]),
                    )
                    continue
                dim = found
            bound.add(dim.name)
            if table is not None:
                tdim = next(d for d in table.dims if d.name == dim.name)
                want = tdim.type
                if tdim.kind == "threshold" and want == t.INT:
                    want = t.NUMBER  # a fraction reaches the highest whole threshold below it
                self._expect(arg.value, want, scope, f"'{dim.name}'")
            else:
                self.infer(arg.value, scope)
        missing = [d.name for d in inputs if d.name not in bound]
        if missing:
            self.err(f"table {decl.name} needs {', '.join(missing)}", call.span)
        result = self.type_of(decl.result)
        if table is not None and any(c.action for _, c in table.iter_cells()):
            return t.ANY
        if any(d.kind == "threshold" for d in decl.dims):
            return t.union(result, t.NONE)  # below the first line: no entry
        if table is not None and table.default is not None and table.default.value is None:
            return t.union(result, t.NONE)  # a blank box
        return result


def _path(expr: n.Expr) -> list[str] | None:
    """``a.b.c`` as ["a", "b", "c"]; None for anything that is not a name path."""
    if isinstance(expr, n.Name):
        return [expr.id]
    if isinstance(expr, n.Attr):
        head = _path(expr.obj)
        return None if head is None else [*head, expr.name]
    return None


def _without_none(typ: t.Type) -> t.Type:
    """``int or none`` (or ``int or X``) orders like ``int``; the rest is reported at run time."""
    rest = [o for o in t.options(typ) if o != t.NONE and not isinstance(o, t.MarkerT)]
    return t.union(*rest) if rest else typ


def _enum_type(typ: t.Type | None) -> t.Type | None:
    name = _enum_in(typ)
    return t.EnumT(name) if name is not None else None


def _enum_in(typ: t.Type | None) -> str | None:
    if typ is None:
        return None
    enums = [o.name for o in t.options(typ) if isinstance(o, t.EnumT)]
    return enums[0] if len(enums) == 1 else None


def _arity(low: int, high: int | None) -> str:
    if high is None:
        return f"at least {low} argument(s)"
    if low == high:
        return f"{low} argument(s)"
    return f"{low} to {high} arguments"
