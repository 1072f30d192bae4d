"""The checker: names, types, table coverage, dice, provenance. Produces a checked rulebook."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence

import attrs
from attrs import define, field

from rulekit.book import types as t
from rulekit.book.check_exprs import (
    ExprChecker,
    Scope,
    placeholders,
)
from rulekit.book.check_memo import CheckMemo, ProvisionalItem, check_procedures, check_tables
from rulekit.book.coerce import Vocabulary
from rulekit.book.loader import load_rulebook
from rulekit.book.provenance import cell_reasons
from rulekit.book.rulebook import Rulebook
from rulekit.book.tables import CompiledTable, TableDim, TableReader, coverage
from rulekit.book.views import check_hidden, check_views
from rulekit.engine.dice import Die, faces_of
from rulekit.engine.values import EnumValue, MarkerValue
from rulekit.errors import MAX_DIE_FACES, Diagnostic, RulebookInvalid, did_you_mean, warning
from rulekit.language import nodes as n

ROUNDING_MODES = ("up", "down", "nearest")


@define
class Checked:
    """A rulebook that passed the checker, with everything the interpreter needs."""

    book: Rulebook
    vocab: Vocabulary
    dice: dict[str, Die]
    tables: dict[str, CompiledTable]
    globals: dict[str, t.Type]
    members: dict[int, EnumValue | MarkerValue]
    diagnostics: list[Diagnostic] = field(factory=list)
    provisional: list[ProvisionalItem] = field(factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    @property
    def provisional_count(self) -> int:
        return sum(p.count for p in self.provisional)

    @property
    def rounding(self) -> str:
        return self.book.rounding.mode if self.book.rounding else "nearest"


def _ends(body: tuple[n.Stmt, ...]) -> bool:
    """Whether a body certainly leaves by a return, the turn's end or a broken rule (``require
    false``): its last statement does, or an if whose every branch and else do, or a ``while
    true`` no ``break`` leaves."""
    last = body[-1] if body else None
    if isinstance(last, n.If):
        ways = (last.otherwise, *(b.body for b in last.branches))
        return bool(last.otherwise) and all(_ends(w) for w in ways)
    if isinstance(last, n.Require):
        return isinstance(last.cond, n.Bool) and not last.cond.value
    if isinstance(last, n.While):
        return isinstance(last.cond, n.Bool) and last.cond.value and not _breaks(last.body)
    return isinstance(last, n.Return | n.EndTurn)


def _breaks(body: tuple[n.Stmt, ...]) -> bool:
    """Whether a ``break`` in ``body`` (not in a loop nested in it) leaves its loop."""
    ifs = [s for s in body if isinstance(s, n.If)]
    nested = [w for s in ifs for w in (s.otherwise, *(b.body for b in s.branches))]
    return any(isinstance(s, n.Break) for s in body) or any(_breaks(w) for w in nested)


def _decls(book: Rulebook) -> list[object]:
    """The declarations whose nodes :func:`nodes_of` walks."""
    return [
        *book.procedures.values(),
        *book.modifiers.values(),
        *book.tables.values(),
        *book.sequences.values(),
        *book.consts.values(),
        *book.states.values(),
    ]


def nodes_of(book: Rulebook) -> Iterator[object]:
    """Every node of the rulebook's declarations, each once, without recursion."""
    return walk(_decls(book))


def walk(roots: list[object]) -> Iterator[object]:
    """Every node under ``roots``, each once, without recursion."""
    stack: list[object] = list(roots)
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        names = _FIELD_NAMES.get(type(node))
        if names is None:
            names = _field_names(type(node))
        if names is _SEQUENCE:
            stack.extend(node)  # type: ignore[arg-type]
            continue
        yield node
        if names:
            stack.extend([getattr(node, name) for name in names])


_SEQUENCE: tuple[str, ...] = ("(a tuple or list)",)
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """What the walk above goes into, asked once per class (on Silent War it meets some
    90,000 values; asking attrs for each one's fields made it twice as slow): the fields a
    node is compared by, not its source span (out of equality, and never a node)."""
    if issubclass(cls, tuple | list):
        names = _SEQUENCE
    elif attrs.has(cls):
        names = tuple(f.name for f in attrs.fields(cls) if f.eq)
    else:
        names = ()
    _FIELD_NAMES[cls] = names
    return names


def _once(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Each problem once: a declaration's error is met again where it is used (an unknown
    parameter type at every call of the procedure)."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for d in diags:
        key = (d.severity, d.message, d.location)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def decision_names(book: Rulebook) -> set[str]:
    """The names of every ``choose`` in the rulebook (what --decide may answer)."""
    return {node.name for node in nodes_of(book) if isinstance(node, n.Choose)}


def dice_naturals(spec: n.DiceSpec, dice: dict[str, Die]) -> set[int] | None:
    """Every natural total the dice can show, or None when the count is not known."""
    die = dice.get(spec.die)
    if die is None:
        return None
    if spec.explode:
        return None  # open-ended upwards: every total cannot be listed
    if spec.keep != "sum":
        return set(die.faces)
    if not isinstance(spec.count, int) or spec.count < 1 or spec.count > 4:
        return None
    if die.kind == "faces":  # faces low..high: every sum from count*low to count*high
        return set(range(spec.count * die.low, spec.count * die.high + 1))
    totals = {0}
    for _ in range(spec.count):  # sums die by die: no list of every throw (4d500 has 6e10)
        totals = {total + face for total in totals for face in die.faces}
    return totals


class Checker(ExprChecker):
    """Checks one loaded rulebook."""

    def __init__(self, book: Rulebook, memo: CheckMemo | None = None) -> None:
        self.book = book
        self.memo = memo
        self.vocab = Vocabulary(book.enums, book.markers, book.records, book.kinds)
        self.diags: list[Diagnostic] = []
        self.dice: dict[str, Die] = {}
        self.tables: dict[str, CompiledTable] = {}
        self.globals: dict[str, t.Type] = {}
        self.members: dict[int, EnumValue | MarkerValue] = {}
        self.member_index: dict[str, list[str]] = {}
        self.provisional: list[ProvisionalItem] = []
        self.current: str = ""
        self._given: set[str] | None = None
        self._env: tuple[int, ...] = ()  # the declarations' identities a table's check read
        self.loops = 0  # how many loops the statement being checked is inside (break)
        self._table_sigs: list[tuple[object, ...]] = []  # what a procedure reads of tables

    # ---- entry ---------------------------------------------------------------------------

    def run(self) -> Checked:
        self._dice()
        self._rounding()
        self._enums()
        self._globals()
        self._kinds_and_records()
        self._tables()
        for mods in self.book.modifiers.values():
            self._modifiers(mods)
        self._procedures()
        for sequence in self.book.sequences.values():
            self._sequence(sequence)
        check_views(self, frozenset(decision_names(self.book)))
        check_hidden(self)
        return Checked(
            self.book,
            self.vocab,
            self.dice,
            self.tables,
            self.globals,
            self.members,
            _once(self.diags),
            self.provisional,
        )

    def _is_given_rolls(self, table: str) -> bool:
        return table in self._given_rolls()

    def _given_rolls(self) -> set[str]:
        """The tables some call passes a roll (``t(x, roll: ...)``, or every dimension):
        their rows may be read by modified rolls beyond the dice."""
        if self._given is not None:
            return self._given
        dims = {name: len(decl.dims) for name, decl in self.book.tables.items()}
        found: set[str] = set()
        for func, keyed, count in self._calls():
            if func in dims and (keyed or count >= dims[func]):
                found.add(func)
        self._given = found
        return found

    def _calls(self) -> Iterator[tuple[str, bool, int]]:
        """Each call of the rulebook: its function, whether it passes ``roll:``, its
        number of arguments (kept per declaration in the memo)."""
        for decl in _decls(self.book):
            kept = self.memo.calls.get(id(decl)) if self.memo is not None else None
            if kept is not None and kept[0] is decl:
                yield from kept[1]
                continue
            calls = [
                (node.func, any(a.name == "roll" for a in node.args), len(node.args))
                for node in walk([decl])
                if isinstance(node, n.Call)
            ]
            if self.memo is not None:
                self.memo.calls[id(decl)] = (decl, calls)
            yield from calls

    # ---- declarations --------------------------------------------------------------------

    def _dice(self) -> None:
        pending = dict(self.book.dice)
        for _ in range(len(pending) + 1):
            for name, decl in list(pending.items()):
                if decl.kind == "faces":
                    if decl.low > decl.high:
                        self.err(f"die {name} has no faces ({decl.low}..{decl.high})", decl.span)
                        del pending[name]
                        continue
                    if decl.high - decl.low >= MAX_DIE_FACES:
                        self.err(
                            f"die {name} has {decl.high - decl.low + 1} faces: "
                            f"rulekit's dice have at most {MAX_DIE_FACES}",
                            decl.span,
                        )
                        del pending[name]
                        continue
                    self.dice[name] = Die(name, faces_of("faces", decl.low, decl.high, []), "faces")
                    del pending[name]
                    continue
                if decl.kind == "list":
                    if len(decl.faces) > MAX_DIE_FACES:
                        self.err(
                            f"die {name} has {len(decl.faces)} faces: "
                            f"rulekit's dice have at most {MAX_DIE_FACES}",
                            decl.span,
                        )
                    else:
                        self.dice[name] = Die(name, tuple(sorted(decl.faces)), "list")
                    del pending[name]
                    continue
                parts = [self.dice.get(p) for p in decl.parts]
                many = math.prod(len(p.faces) for p in parts if p)
                if all(parts) and decl.kind == "tens_units" and many > MAX_DIE_FACES:
                    # counted before they are made: two 10,000-face dice are 10^8 faces (4 GB)
                    self.err(
                        f"die {name} has {many:,} faces: rulekit's dice have at most "
                        f"{MAX_DIE_FACES:,}",
                        decl.span,
                    )
                    del pending[name]
                    continue
                if all(parts):
                    faces = faces_of(decl.kind, 0, 0, [p for p in parts if p])
                    self.dice[name] = Die(name, faces, decl.kind)
                    del pending[name]
        for name, decl in pending.items():
            missing = [p for p in decl.parts if p not in self.book.dice]
            if missing:
                self.err(
                    f"die {name} is made of {missing[0]}, which is not declared",
                    decl.span,
                    hint=did_you_mean(missing[0], self.book.dice)
                    or f"declare it: dice {missing[0]} = 1..6",
                )
            else:
                self.err(f"die {name} is made of itself", decl.span)

    def _rounding(self) -> None:
        rounding = self.book.rounding
        if rounding is None:
            return
        if rounding.mode not in ROUNDING_MODES:
            self.err(
                f"unknown rounding '{rounding.mode}'",
                rounding.span,
                hint=did_you_mean(rounding.mode, ROUNDING_MODES) or "use up, down or nearest",
            )
        if rounding.provenance is not None:
            self.provisional.append(
                ProvisionalItem("rounding", rounding.span, 1, rounding.provenance.reason)
            )

    def _enums(self) -> None:
        for decl in self.book.enums.values():
            seen: dict[str, n.EnumMember] = {}
            for member in decl.members:
                for word in (member.name, *member.aliases):
                    if word in seen:
                        self.err(
                            f"'{word}' appears twice in enum {decl.name}",
                            member.span,
                            hint=f"first at {seen[word].span}",
                        )
                    seen[word] = member
                self.member_index.setdefault(member.name, []).append(decl.name)

    def _globals(self) -> None:
        for track in self.book.tracks.values():
            self.globals[track.name] = t.INT
        for state in self.book.states.values():
            self.globals[state.name] = self.type_of(state.type)
        for const in self.book.consts.values():
            self.globals[const.name] = self.type_of(const.type) if const.type else t.ANY
        scope = Scope(self.globals)
        for track in self.book.tracks.values():
            if track.high is not None and track.low > track.high:
                self.err(f"track {track.name} runs from {track.low} to {track.high}", track.span)
            if track.initial is not None:
                self._expect(track.initial, t.INT, scope, "the track's start")
        for state in self.book.states.values():
            if state.initial is not None:
                self._expect(state.initial, self.globals[state.name], scope, "the initial value")
            if state.provenance is not None:
                self.provisional.append(
                    ProvisionalItem(f"state {state.name}", state.span, 1, state.provenance.reason)
                )
        for const in self.book.consts.values():
            declared = self.globals[const.name] if const.type is not None else None
            found = self.infer(const.value, scope, declared)
            if const.type is None:
                self.globals[const.name] = found
            elif not t.assignable(found, self.globals[const.name]):
                self.err(
                    f"{const.name} is declared {self.globals[const.name]} but its value is {found}",
                    const.value.span,
                )
            if const.provenance is not None:
                self.provisional.append(
                    ProvisionalItem(f"const {const.name}", const.span, 1, const.provenance.reason)
                )

    def _kinds_and_records(self) -> None:
        decls: list[n.KindDecl | n.RecordDecl] = [*self.book.kinds.values()]
        decls.extend(self.book.records.values())
        for decl in decls:
            seen: set[str] = set()
            scope = Scope(self.globals)
            for fdecl in decl.fields:
                if fdecl.name in seen:
                    self.err(f"field '{fdecl.name}' appears twice in {decl.name}", fdecl.span)
                seen.add(fdecl.name)
                ftype = self.type_of(fdecl.type)
                if fdecl.default is not None:
                    self._expect(fdecl.default, ftype, scope, f"the default of {fdecl.name}")
                if fdecl.provenance is not None:
                    self.provisional.append(
                        ProvisionalItem(
                            f"{decl.name}.{fdecl.name}", fdecl.span, 1, fdecl.provenance.reason
                        )
                    )

    # ---- tables --------------------------------------------------------------------------

    def _tables(self) -> None:
        if self.memo is None:
            for decl in self.book.tables.values():
                self._table(decl)
        else:
            check_tables(self, self.memo)

    def _table(self, decl: n.TableDecl) -> None:
        self.current = f"table {decl.name}"
        dims = [self._dim(decl, d) for d in decl.dims]
        if any(d is None for d in dims):
            return
        names = [d.name for d in decl.dims]
        for i, name in enumerate(names):
            if name in names[:i]:
                self.err(f"dimension '{name}' appears twice", decl.dims[i].span)
        result = self.type_of(decl.result)
        reader = TableReader(decl, [d for d in dims if d], result, self.vocab)
        table = reader.read()
        for change in self.book.patches.get(decl.name, ()):
            reader.patch(table, change)
        table.recount()
        self.diags.extend(reader.diags)
        naturals = {
            i: dice_naturals(d.dice, self.dice)
            for i, d in enumerate(decl.dims)
            if d.kind == "roll" and d.dice is not None
        }
        given = functools.partial(self._is_given_rolls, decl.name)
        self.diags.extend(coverage(table, naturals, given))
        self.tables[decl.name] = table
        self._table_actions(decl, table, dims)
        if table.provisional_cells:
            reason = decl.provenance.reason if decl.provenance else cell_reasons(decl)
            self.provisional.append(
                ProvisionalItem(f"table {decl.name}", decl.span, table.provisional_cells, reason)
            )

    def has_actions(self, decl: n.TableDecl) -> bool:
        """Whether a cell of the table calls a table or procedure (``=> t(x)``)."""
        return any(isinstance(node, n.CellAction) for node in walk([decl]))

    def _procedures(self) -> None:
        if self.memo is None:
            for proc in self.book.procedures.values():
                self._procedure(proc)
        else:
            check_procedures(self, self.memo)

    def _dim(self, decl: n.TableDecl, dim: n.Dim) -> TableDim | None:
        if dim.kind == "roll":
            assert dim.dice is not None
            scope = Scope(self.globals)
            self._dice_spec(dim.dice, scope)
            for mod in dim.mods:
                self._expect(mod.value, t.NUMBER, scope, "a roll modifier")
            return TableDim("roll", "roll", t.INT, dim, self.dice.get(dim.dice.die))
        if dim.type is not None:
            typ = self.type_of(dim.type)
        elif dim.name in self.globals:
            typ = self.globals[dim.name]
        elif dim.name in self.book.enums:
            typ = t.EnumT(dim.name)
        else:
            self.err(
                f"the type of dimension '{dim.name}' is unknown",
                dim.span,
                hint=f"write '{dim.name}: TYPE', or name a state, track or enum "
                + (
                    f"({did_you_mean(dim.name, [*self.globals, *self.book.enums])})"
                    if did_you_mean(dim.name, [*self.globals, *self.book.enums])
                    else ""
                ),
            )
            return None
        if dim.kind == "threshold" and not t.is_numeric(typ):
            self.err(f"a threshold dimension needs numbers, '{dim.name}' is {typ}", dim.span)
            return None
        if isinstance(typ, (t.ListT, t.KindT, t.RecordT, t.UnionT)):
            self.err(f"a table cannot be indexed by {typ}", dim.span)
            return None
        return TableDim(dim.name, dim.kind, typ, dim)

    def _table_actions(
        self, decl: n.TableDecl, table: CompiledTable, dims: list[TableDim | None]
    ) -> None:
        scope = Scope(self.globals)
        for d in dims:
            if d is not None and d.kind != "roll":
                scope.locals[d.name] = d.type
        for _, cell in table.iter_cells():
            if cell.action is not None:
                self.infer(cell.action, scope)

    # ---- modifiers and procedures --------------------------------------------------------

    def _params(self, params: tuple[n.Param, ...], scope: Scope) -> None:
        for p in params:
            if p.name in scope.locals:
                self.err(f"parameter '{p.name}' appears twice", p.span)
            typ = self.type_of(p.type) if p.type is not None else t.ANY
            if p.default is not None:
                found = self._expect(p.default, typ, scope, f"the default of {p.name}")
                if p.type is None:
                    typ = found
            scope.locals[p.name] = typ
            scope.params.add(p.name)

    def _modifiers(self, decl: n.ModifiersDecl) -> None:
        self.current = f"modifiers {decl.name}"
        scope = Scope(self.globals)
        self._params(decl.params, scope)
        for line in decl.lines:
            self._expect(line.value, t.NUMBER, scope, "a modifier")
            if line.per is not None:
                self._expect(line.per, t.NUMBER, scope, "'per'")
            if line.cond is not None:
                self._condition(line.cond, scope)
        if decl.clamp is not None:
            low, high = decl.clamp
            if low is not None and high is not None and low > high:
                self.err(f"clamp {low}..{high} is empty", decl.span)

    def _procedure(self, decl: n.ProcedureDecl) -> None:
        self.current = f"procedure {decl.name}"
        scope = Scope(self.globals)
        self._params(decl.params, scope)
        returns = self.type_of(decl.returns) if decl.returns is not None else None
        self._block(decl.body, scope, returns)
        if returns is not None and not t.allows_none(returns) and not _ends(decl.body):
            # seen here, else an error at run time where it happens (codegen_runtime)
            self.diags.append(
                warning(
                    f"procedure {decl.name} may end without a return, but it says {returns}",
                    decl.span,
                    hint="end it with a 'return' (or an 'else' whose branches return); "
                    "falling off the end returns none, an error when it happens",
                )
            )

    def _block(self, body: tuple[n.Stmt, ...], scope: Scope, returns: t.Type | None) -> None:
        outer = dict(scope.narrowed)
        for stmt in body:
            self._stmt(stmt, scope, returns)
            # `if x = none: return ...`: below it, x is not none
            if isinstance(stmt, n.If) and len(stmt.branches) == 1 and not stmt.otherwise:
                test = _none_test(stmt.branches[0].cond)
                body_ends = stmt.branches[0].body and isinstance(
                    stmt.branches[0].body[-1], n.Return | n.EndTurn | n.Break | n.Continue
                )
                if test is not None and not test[1] and body_ends:
                    self._narrow(scope, test[0])
        written = _written(body)  # a name written in here may be none after it
        scope.narrowed = {k: v for k, v in outer.items() if k not in written}

    def _narrow(self, scope: Scope, name: str) -> None:
        """Read ``name`` as its type without none from here on (in this block)."""
        found = scope.get(name)
        if found is not None and t.NONE in t.options(found):
            rest = [o for o in t.options(found) if o != t.NONE]
            if rest:
                scope.narrowed[name] = t.union(*rest)

    def _branch(
        self, cond: n.Expr, body: tuple[n.Stmt, ...], scope: Scope, returns: t.Type | None
    ) -> None:
        """An ``if``/``elif`` body: after ``x != none`` x is not none inside it."""
        outer = dict(scope.narrowed)
        test = _none_test(cond)
        if test is not None and test[1]:
            self._narrow(scope, test[0])
        self._block(body, scope, returns)
        written = _written(body)
        scope.narrowed = {k: v for k, v in outer.items() if k not in written}

    def _stmt(self, stmt: n.Stmt, scope: Scope, returns: t.Type | None) -> None:
        if isinstance(stmt, n.Let):
            if stmt.name in self.globals:
                self.err(
                    f"'{stmt.name}' is already a {self._global_kind(stmt.name)}",
                    stmt.span,
                    hint=f"write '{stmt.name} = ...' to change it, or pick another name",
                )
            scope.locals[stmt.name] = self.infer(stmt.value, scope)
        elif isinstance(stmt, n.Assign):
            self._assign(stmt, scope)
        elif isinstance(stmt, n.Return):
            if stmt.value is not None:
                returned = self.infer(stmt.value, scope, returns)
                if returns is not None and not t.assignable(returned, returns):
                    self.err(
                        f"returns {returned} but the procedure says {returns}", stmt.value.span
                    )
            elif returns is not None and not t.allows_none(returns):
                self.err(
                    f"returns nothing but the procedure says {returns}",
                    stmt.span,
                    hint=f"return a value, or declare the procedure '-> {returns} or none'",
                )
        elif isinstance(stmt, n.ExprStmt):
            self.infer(stmt.call, scope)
        elif isinstance(stmt, n.Choose):
            options = self.infer(stmt.options, scope)
            if not isinstance(options, t.ListT) and options != t.ANY:
                self.err(
                    f"choose needs a list or an enum of options, not {options}", stmt.options.span
                )
            item = options.item if isinstance(options, t.ListT) else t.ANY
            if stmt.default is not None:
                self._expect(stmt.default, item, scope, "the default choice")
            if stmt.side is not None:  # whose decision it is: any value
                self.infer(stmt.side, scope)
            if stmt.title:  # a prompt may name its subject: "Attack points for {u.name}"
                self._check_placeholders(stmt.title, stmt.span, scope)
            scope.locals[stmt.name] = item
        elif isinstance(stmt, n.Require):
            self._condition(stmt.cond, scope)
        elif isinstance(stmt, n.NoteStmt):
            self._check_placeholders(stmt.text, stmt.span, scope)
        elif isinstance(stmt, n.If):
            for branch in stmt.branches:
                self._condition(branch.cond, scope)
                self._branch(branch.cond, branch.body, scope, returns)
            self._block(stmt.otherwise, scope, returns)
        elif isinstance(stmt, n.While):
            self._condition(stmt.cond, scope)
            self._loop_body(stmt.body, scope, returns)
        elif isinstance(stmt, n.ForEach):
            iterable = self.infer(stmt.iterable, scope)
            listed = t.as_list(iterable)
            if listed is None and iterable != t.ANY:
                self.err(f"'for each' needs a list, not {iterable}", stmt.iterable.span)
            scope.locals[stmt.var] = listed.item if listed is not None else t.ANY
            self._loop_body(stmt.body, scope, returns)
        elif isinstance(stmt, n.Break | n.Continue) and not self.loops:
            word = "break" if isinstance(stmt, n.Break) else "continue"
            self.err(
                f"'{word}' outside a loop",
                stmt.span,
                hint=f"'{word}' belongs in a 'while' or 'for each'; "
                "to leave the procedure, write 'return'",
            )

    def _loop_body(self, body: tuple[n.Stmt, ...], scope: Scope, returns: t.Type | None) -> None:
        """A loop's body: a ``break`` or ``continue`` in it is in a loop."""
        self.loops += 1
        try:
            self._block(body, scope, returns)
        finally:
            self.loops -= 1

    def _global_kind(self, name: str) -> str:
        if name in self.book.tracks:
            return "track"
        if name in self.book.states:
            return "state variable"
        return "constant"

    def _assign(self, stmt: n.Assign, scope: Scope) -> None:
        head = stmt.target[0]
        if len(stmt.target) == 1:
            scope.narrowed.pop(head, None)  # written again: it may be none now
        target = self._target_type(stmt, scope)
        if target is None:
            return
        value = self.infer(stmt.value, scope, target if target != t.ANY else None)
        if len(stmt.target) == 1 and head not in scope.locals and head not in self.globals:
            scope.locals[head] = value  # a new local
            return
        checked = len(stmt.target) > 1 or head in self.globals or head in scope.params
        if checked and stmt.op == "=" and not t.assignable(value, target):
            self.err(f"'{'.'.join(stmt.target)}' is {target}; this is {value}", stmt.value.span)
        if stmt.op != "=" and not (t.is_numeric(value) and t.is_numeric(target)):
            self.err(f"'{stmt.op}' needs numbers", stmt.span)

    def _target_type(self, stmt: n.Assign, scope: Scope) -> t.Type | None:
        """The type of what an assignment writes; None when the target is wrong."""
        head = stmt.target[0]
        if len(stmt.target) == 1:
            if head in scope.locals:
                return scope.locals[head]
            if head in self.book.consts:
                self.err(f"'{head}' is a constant and cannot change", stmt.span)
                return None
            if head in self.globals:
                return self.globals[head]
            if stmt.op != "=":
                self._unknown(head, stmt.span, scope)
                return None
            return t.ANY
        obj = scope.get(head)
        if obj is None:
            self._unknown(head, stmt.span, scope)
            return None
        for attr in stmt.target[1:]:
            obj = self._attr_type(obj, attr, stmt.span)
        return obj

    def _sequence(self, seq: n.SequenceDecl) -> None:
        self.current = "sequence"
        scope = Scope(self.globals)

        def walk(items: tuple[n.SeqItem, ...]) -> None:
            for item in items:
                if isinstance(item, n.SeqPhase):
                    if item.call.func not in self.book.procedures:
                        self.err(
                            f"phase '{item.call.func}' is not a procedure",
                            item.call.span,
                            hint=did_you_mean(item.call.func, self.book.procedures),
                        )
                    else:
                        self.infer(item.call, scope)
                elif isinstance(item, n.SeqSegment):
                    walk(item.items)
                else:
                    iterable = self.infer(item.iterable, scope)
                    scope.locals[item.var] = (
                        iterable.item if isinstance(iterable, t.ListT) else t.ANY
                    )
                    walk(item.items)

        walk(seq.items)

    # ---- expressions ---------------------------------------------------------------------

    # ---- calls ---------------------------------------------------------------------------


def check_expression(
    checked: Checked, expr: n.Expr, names: dict[str, t.Type]
) -> tuple[t.Type, list[Diagnostic]]:
    """Check an expression given outside the rulebook (``--of``) with ``names`` in scope."""
    checker = Checker(checked.book)
    checker.vocab, checker.dice, checker.tables = checked.vocab, checked.dice, checked.tables
    checker.globals, checker.members = checked.globals, checked.members
    checker._enums()  # the member index; the rulebook's own problems were reported already
    checker.diags.clear()
    checker.current = "the expression"
    scope = Scope(checker.globals)
    scope.locals.update(names)
    return checker.infer(expr, scope), checker.diags


def check(book: Rulebook, memo: CheckMemo | None = None) -> Checked:
    """Check a loaded rulebook; errors are in ``.errors``, nothing is raised. With a memo,
    what an earlier check of the same declarations found is used again."""
    return Checker(book, memo).run()


def load(arg: str, options: Sequence[str] = ()) -> Checked:
    """Load and check a rulebook with options on; raise :class:`RulebookInvalid` on errors."""
    checked = check(load_rulebook(arg, options))
    if checked.errors:
        raise RulebookInvalid(checked.errors)
    return checked


__all__ = [
    "Checked",
    "ProvisionalItem",
    "check",
    "check_expression",
    "dice_naturals",
    "load",
    "placeholders",
]


def _none_test(cond: n.Expr) -> tuple[str, bool] | None:
    """``x != none`` is (x, True): x is not none where the test holds; ``x = none`` is
    (x, False)."""
    if isinstance(cond, n.Compare) and cond.op in ("=", "!="):
        for a, b in ((cond.left, cond.right), (cond.right, cond.left)):
            if isinstance(a, n.Name) and isinstance(b, n.NoneLit):
                return a.id, cond.op == "!="
    return None


def _written(body: tuple[n.Stmt, ...]) -> set[str]:
    """The names a block assigns (``x = ...``), in it or in the blocks inside it."""
    out: set[str] = set()
    for stmt in body:
        if isinstance(stmt, n.Assign) and len(stmt.target) == 1:
            out.add(stmt.target[0])
        elif isinstance(stmt, n.If):
            for branch in stmt.branches:
                out |= _written(branch.body)
            out |= _written(stmt.otherwise)
        elif isinstance(stmt, n.ForEach | n.While):
            out |= _written(stmt.body)
    return out
