"""A procedure as resumable blocks: the code exact analysis runs between situations.

rulekit.analysis.situations solves a procedure by its situations (where it is, its locals,
the game state) instead of by its paths of dice. For that it must stop a run at a place in
the procedure, keep the situation, and later start again from there. Python cannot jump into
the middle of a function, so here a procedure's body is cut into blocks at its statements,
each one generated Python function ``b<k>(i)`` (written by rulekit.engine.codegen's ``Gen``,
untraced) that runs one statement and returns where to go next:

- an ``int``: the next block; ``END`` when the body falls off its end;
- a 1-tuple: the procedure returned that value (a ``return`` anywhere, also in a loop).

``if`` and ``while`` become blocks of their own that only test and branch, so their bodies
are blocks too: a situation can be taken at any statement of the procedure, in any branch or
round of a loop. A ``for each`` keeps its list and how far it went in two hidden locals, so
it is resumable too; a procedure it calls runs whole within one block.

Each block also knows which locals may still be read from its start (``live``): a local that
is dead there (a die already used) does not tell two situations apart, so the runs that
reached them merge.

A ``let`` or ``return`` whose value throws dice but can only compute (reach.pure with dice),
and an ``if`` or ``while`` whose conditions do, are marked as a ``Lift``: the analysis may
work the value (the branch taken) out as a distribution (rulekit.analysis.lift) instead of
running the block once per path of its dice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from attrs import frozen

from rulekit.book.check_exprs import placeholders
from rulekit.book.types import allows_none
from rulekit.engine.codegen import Gen
from rulekit.engine.codegen_locals import may_be_local
from rulekit.engine.codegen_runtime import Generated, mangle, return_guard
from rulekit.engine.codegen_writer import Writer, compiled
from rulekit.engine.reach import branches, names_reached, pure, throws
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.program import Program

END = -1  # the body fell off its end: the procedure returns nothing
# built-in functions whose value is never none (codegen_blocks._may_give_none)
_NEVER_NONE = frozenset(
    {"abs", "rounded", "round_up", "round_down", "count", "sum", "any", "all", "odd", "even"}
)
Block = Callable[[Any], "int | tuple[Any] | Enter"]


class Enter:
    """What a block returns that calls a procedure run as blocks too: the call's step and
    arguments are done; the runner pushes its frame, runs its blocks, and on its return
    pops it, sets ``target`` (a ``let``) to the result and goes on at block ``after``."""

    __slots__ = ("after", "args", "live", "procedure", "target")

    def __init__(
        self,
        procedure: str,
        args: dict[str, Any],
        after: int,
        target: str | None,
        live: frozenset[str],
    ) -> None:
        self.procedure, self.args, self.after = procedure, args, after
        self.target, self.live = target, live  # the caller's locals read after the call


@frozen
class Lift:
    """A block whose ``value`` throws dice and only computes: a ``let`` of ``name`` (then
    block ``after``), a ``return``, or a ``branch`` (an ``if`` or ``while``: ``value`` is
    the number of the way taken, to block ``targets[value]``)."""

    kind: str  # "let", "return" or "branch"
    value: n.Expr
    ref: n.RuleRef | None
    after: int = END
    name: str = ""
    targets: tuple[int, ...] = ()


@frozen
class Blocks:
    """A procedure's body as blocks: ``run[k]`` runs block k; ``live[k]`` are the locals that
    may be read from its start; ``entry`` is the first block; ``source`` the text."""

    name: str
    entry: int
    run: tuple[Block, ...]
    live: tuple[frozenset[str], ...]
    spans: tuple[n.Span | None, ...]
    source: str
    reached: frozenset[str]  # every name the procedure and what it calls may mention
    lifts: dict[int, Lift]  # the blocks whose value may be worked out as a distribution
    # the blocks that throw no dice, draw nothing and ask nothing (their own statement or
    # test, with what it calls): a run goes on through them after a throw
    calm: tuple[bool, ...] = ()
    # the compiled text and its line map (kept alive here: codegen_runtime.BY_FILE is weak)
    generated: Generated | None = None


def blocks(comp: Program, decl: n.ProcedureDecl) -> Blocks:
    """The blocks of a procedure, generated once per checked rulebook."""
    known = comp.block_programs.get(decl.name)
    if known is None:
        known = comp.block_programs[decl.name] = _Builder(comp, decl).build()
    return known


class _Builder:
    def __init__(self, comp: Program, decl: n.ProcedureDecl) -> None:
        self.decl = decl
        self.comp = comp
        self.gen = Gen(comp, False, may_be_local(decl.params, decl.body))
        self.gen.tracking = False  # a block is entered from a situation: no local is known
        self.gen.guard = return_guard(comp, decl)  # a none returned is an error (codegen)
        self.w: Writer = self.gen.w
        self.count = 0
        self.loops = 0  # `for each` loops cut into blocks (their hidden locals' numbers)
        self.live: dict[int, frozenset[str]] = {}
        self.spans: dict[int, n.Span | None] = {}
        self.lifts: dict[int, Lift] = {}
        self.calm: dict[int, bool] = {}
        # the loops being cut into blocks, innermost last: (head, live at the head, block
        # after the loop, live after it): where a `continue` and a `break` go
        self.loops_open: list[tuple[int, frozenset[str], int, frozenset[str]]] = []
        # the same for liveness worked out before the blocks exist: (live at the head, live
        # after the loop)
        self.live_loops: list[tuple[frozenset[str], frozenset[str]]] = []
        self.names = self.gen.local  # only these can be locals
        # `x = v` writes a local x if there is one, else the state variable x: whether x is
        # a local then matters, so such an x stays alive
        self.shared = self.names & (set(comp.book.states) | set(comp.book.tracks))

    def build(self) -> Blocks:
        end = END
        guard = self.gen.guard
        body = self.decl.body
        if guard is not None and not (body and isinstance(body[-1], n.Return)):
            # falling off the end returns none, which the declared result does not allow:
            # a block of its own says so
            end = self._open(self.decl.span, frozenset())
            self.calm[end] = True
            self.w.line(f"_none_returned(i, {self.w.const(guard)}, None)")
            self.w.line(f"return {END}")
        entry = self.sequence(self.decl.body, end, frozenset(), None, self.decl.ref)
        # through the same compiler and line map as a procedure's function: an unexpected
        # error in a block is located at its rulebook line (codegen_runtime.located)
        label = f"blocks_{mangle(self.decl.name)}"
        generated, namespace = compiled(self.w, label, "b0", {"_Enter": Enter})
        source = generated.source
        run = tuple(namespace[f"b{k}"] for k in range(self.count))
        live = tuple(self.live[k] for k in range(self.count))
        spans = tuple(self.spans[k] for k in range(self.count))
        decl = self.decl
        reached = names_reached(self.comp.book, self.comp.tables, [*decl.body, *decl.params])
        calm = tuple(self.calm.get(k, False) for k in range(self.count))
        return Blocks(
            decl.name,
            entry,
            run,
            live,
            spans,
            source,
            frozenset(reached),
            self.lifts,
            calm,
            generated,
        )

    def _open(self, span: n.Span | None, live: frozenset[str]) -> int:
        k = self.count
        self.count += 1
        self.live[k] = live
        self.spans[k] = span
        w = self.w
        w.level = 0
        w.span = span
        w.line(f"def b{k}(i):")
        w.level = 1
        w.line("L = i.locals")
        self.gen.forget_ref()  # a block is entered from anywhere, after a situation restored
        return k

    def sequence(
        self,
        body: tuple[n.Stmt, ...],
        after: int,
        live_after: frozenset[str],
        inherited: n.RuleRef | None,
        rule: n.RuleRef | None,
    ) -> int:
        """Blocks for ``body``, last first; the first block's number (``after`` if empty)."""
        nxt, live = after, live_after
        for s in reversed(body):
            nxt, live = self.statement(s, nxt, live, inherited, rule)
        return nxt

    def statement(
        self,
        s: n.Stmt,
        after: int,
        live_after: frozenset[str],
        inherited: n.RuleRef | None,
        rule: n.RuleRef | None,
    ) -> tuple[int, frozenset[str]]:
        if isinstance(s, n.If):
            return self._if(s, after, live_after, inherited, rule)
        if isinstance(s, n.While):
            return self._while(s, after, live_after, inherited, rule)
        if isinstance(s, n.ForEach):
            return self._for_each(s, after, live_after, inherited, rule)
        if isinstance(s, n.Break | n.Continue):
            # a block of its own that takes its step and goes to the loop's end or head
            head, head_live, out, out_live = self.loops_open[-1]
            target, live = (out, out_live) if isinstance(s, n.Break) else (head, head_live)
            k = self._open(s.span, live)
            self.calm[k] = True
            self.gen._step(s.span, s.ref or inherited or rule)
            self.w.line(f"return {target}")
            return k, live
        call = self._split_call(s)
        if call is not None and isinstance(s, n.Return):
            # `return p(...)`: the call's result is kept in a hidden local, which a block
            # of its own then returns
            kept = f"#ret{self.count}"
            back = self._open(s.span, frozenset({kept}))
            self.calm[back] = True
            guard, w = self.gen.guard, self.w
            if guard is not None:
                w.line(f"if L[{kept!r}] is None:")
                w.line(f"    _none_returned(i, {w.const(guard)}, {w.const(s.span)})")
            w.line(f"return (L[{kept!r}],)")
            return self._call(s, call, back, frozenset({kept}), inherited, rule, kept)
        if call is not None:
            return self._call(s, call, after, live_after, inherited, rule)
        live = self._live_before(s, live_after)
        k = self._open(s.span, live)
        self.calm[k] = self._calm(s)
        self.gen.statement(s, inherited, rule)
        self.w.line(f"return {after}")
        ref = getattr(s, "ref", None) or inherited or rule
        if isinstance(s, n.Let) and after != END and self._liftable(s.value):
            self.lifts[k] = Lift("let", s.value, ref, after, s.name)
        elif (
            isinstance(s, n.Return)
            and s.value is not None
            and self._liftable(s.value)
            and (self.gen.guard is None or not self._may_give_none(s.value))
        ):
            self.lifts[k] = Lift("return", s.value, ref)
        return k, live

    def _if(
        self,
        s: n.If,
        after: int,
        live_after: frozenset[str],
        inherited: n.RuleRef | None,
        rule: n.RuleRef | None,
    ) -> tuple[int, frozenset[str]]:
        base = inherited or rule
        targets: list[tuple[int, frozenset[str]]] = []
        for b in s.branches:
            entry = self.sequence(b.body, after, live_after, b.ref or inherited, rule)
            targets.append((entry, self._live_of(b.body, live_after)))
        otherwise = self.sequence(s.otherwise, after, live_after, inherited, rule)
        live = self._live_of(s.otherwise, live_after)
        for b, (_, body_live) in zip(s.branches, targets, strict=True):
            live = live | body_live | self._reads(b.cond)
        k = self._open(s.span, live)
        self.calm[k] = self._calm(*(b.cond for b in s.branches))
        w, gen = self.w, self.gen
        w.line("i.steps += 1")
        w.line(f"if i.steps > i.max_steps: raise i.over_budget({w.const(s.span)})")
        for b, (entry, _) in zip(s.branches, targets, strict=True):
            w.line(f"i.ref = {w.const(b.ref or base)}")
            w.line(f"if {gen.cond(b.cond)}:")
            w.line(f"    return {entry}")
        w.line(f"return {otherwise}")
        conds = [b.cond for b in s.branches]
        ways = (*(entry for entry, _ in targets), otherwise)
        if (
            any(self._liftable(c) for c in conds)
            and all(pure(self.comp.book, self.comp.tables, c, dice=True) for c in conds)
            and END not in ways  # falling off the end returns: that runs by paths
        ):
            # the way taken: 0 for the first branch ... len(branches) for the otherwise
            way: n.Expr = n.Num(len(conds))
            for number, cond in reversed(list(enumerate(conds))):
                way = n.IfExpr(cond, n.Num(number), way)
            self.lifts[k] = Lift("branch", way, s.branches[0].ref or base, targets=ways)
        return k, live

    def _while(
        self,
        s: n.While,
        after: int,
        live_after: frozenset[str],
        inherited: n.RuleRef | None,
        rule: n.RuleRef | None,
    ) -> tuple[int, frozenset[str]]:
        # the loop's head is numbered before its body, which goes back to it
        k = self.count
        self.count += 1
        live = live_after | self._reads(s.cond)
        while True:  # live at the head: what is read after the loop, or by a round
            grown = live | self._loop_live(s.body, live, live_after)
            if grown == live:
                break
            live = grown
        body = self._loop_sequence(s, (k, live, after, live_after), inherited, rule)
        self.live[k], self.spans[k] = live, s.span
        self.calm[k] = self._calm(s.cond)
        w, gen = self.w, self.gen
        w.level, w.span = 0, s.span
        w.line(f"def b{k}(i):")
        w.level = 1
        w.line("L = i.locals")
        w.line("i.steps += 1")
        w.line(f"if i.steps > i.max_steps: raise i.over_budget({w.const(s.span)})")
        w.line(f"i.ref = {w.const(s.ref or inherited or rule)}")
        w.line(f"return {body} if {gen.cond(s.cond)} else {after}")
        if self._liftable(s.cond) and END not in (body, after):
            way = n.IfExpr(s.cond, n.Num(0), n.Num(1))
            self.lifts[k] = Lift("branch", way, s.ref or inherited or rule, targets=(body, after))
        return k, live

    def _may_give_none(self, value: n.Expr) -> bool:
        """Whether a returned value may be none (then its block runs by paths, so that a
        none the procedure's declared result does not allow is an error): a table with
        no entry below its first threshold or a blank box, a call, a name, none itself."""
        if isinstance(value, n.Num | n.Bool | n.Roll | n.BinOp | n.UnaryOp | n.Compare):
            return False
        if isinstance(value, n.BoolOp | n.Not | n.ListLit | n.ListComp | n.Str):
            return False
        if isinstance(value, n.IfExpr):
            return self._may_give_none(value.then) or self._may_give_none(value.otherwise)
        comp = self.comp
        if isinstance(value, n.Call) and value.func in comp.tables:
            table = comp.tables[value.func]
            result = comp.vocab.type_of(table.decl.result)
            return (
                any(d.kind == "threshold" for d in table.dims)
                or (table.default is not None and table.default.value is None)
                or allows_none(result)
            )
        if isinstance(value, n.Call) and value.func in comp.book.procedures:
            returns = comp.book.procedures[value.func].returns
            return returns is None or allows_none(comp.vocab.type_of(returns))
        if isinstance(value, n.Call) and value.func in comp.book.modifiers:
            return False  # a total
        return not (isinstance(value, n.Call) and value.func in _NEVER_NONE)

    def _loop_sequence(
        self,
        s: n.While | n.ForEach,
        loop: tuple[int, frozenset[str], int, frozenset[str]],
        inherited: n.RuleRef | None,
        rule: n.RuleRef | None,
    ) -> int:
        """The blocks of a loop's body, which goes back to the head; a ``break`` in it goes
        to the block after the loop, a ``continue`` to the head."""
        head, live, _, live_after = loop
        self.loops_open.append(loop)
        self.live_loops.append((live, live_after))
        try:
            return self.sequence(s.body, head, live, s.ref or inherited, rule)
        finally:
            self.loops_open.pop()
            self.live_loops.pop()

    def _loop_live(
        self, body: tuple[n.Stmt, ...], head: frozenset[str], after: frozenset[str]
    ) -> frozenset[str]:
        """What a loop's body may read from its start, given what is live at the head (where
        a round and a ``continue`` go) and after the loop (where a ``break`` goes)."""
        self.live_loops.append((head, after))
        try:
            return self._live_of(body, head)
        finally:
            self.live_loops.pop()

    def _calm(self, *nodes: Any) -> bool:
        """Whether running ``nodes`` (a statement, a test, a call's arguments) throws no
        dice, draws nothing and asks nothing, following calls."""
        book, tables = self.comp.book, self.comp.tables
        return not any(throws(book, tables, node) for node in nodes)

    def _liftable(self, value: n.Expr) -> bool:
        """Whether ``value`` throws dice and can only compute (a Lift)."""
        book, tables = self.comp.book, self.comp.tables
        return throws(book, tables, value) and pure(book, tables, value, dice=True)

    def _for_each(
        self,
        s: n.ForEach,
        after: int,
        live_after: frozenset[str],
        inherited: n.RuleRef | None,
        rule: n.RuleRef | None,
    ) -> tuple[int, frozenset[str]]:
        """``for each`` as blocks: one takes the list into a hidden local (and its step), a
        head block hands out the next item, the body goes back to the head. A situation can
        then be taken in any round, the list and how far it went being locals like others
        (their names cannot be a rulebook's)."""
        number = self.loops
        self.loops += 1
        items, at = f"#items{number}", f"#at{number}"
        head = self.count  # numbered before the body, which goes back to it
        self.count += 1
        live = self._live_before(s, live_after) | {items, at}  # a safe over-estimate
        body = self._loop_sequence(s, (head, live, after, live_after), inherited, rule)
        self.live[head], self.spans[head] = live, s.span
        self.calm[head] = True
        w = self.w
        w.level, w.span = 0, s.span
        w.line(f"def b{head}(i):")
        w.level = 1
        w.line("L = i.locals")
        w.line(f"_items, _at = L[{items!r}], L[{at!r}]")
        w.line("if _at < len(_items):")
        w.line(f"    L[{s.var!r}] = _items[_at]")
        w.line(f"    L[{at!r}] = _at + 1")
        w.line(f"    return {body}")
        w.line(f"return {after}")
        start = self._open(s.span, self._live_before(s, live_after))
        self.calm[start] = self._calm(s.iterable)
        gen = self.gen
        gen._step(s.span, s.ref or inherited or rule)
        source = gen.expr(s.iterable)
        w.line(f"L[{items!r}] = _iterate(i, {source}, {w.const(s.iterable.span)})")
        w.line(f"L[{at!r}] = 0")
        w.line(f"return {head}")
        return start, self._live_before(s, live_after)

    def _split_call(self, s: n.Stmt) -> n.Call | None:
        """The call a statement is, when the procedure called throws dice or decides (it
        then runs as blocks of its own, so that situations merge inside it too):
        ``proc(...)`` alone, ``let x = proc(...)`` or ``return proc(...)``."""
        if not isinstance(s, n.ExprStmt | n.Let | n.Return):
            return None
        value = s.call if isinstance(s, n.ExprStmt) else s.value
        if not isinstance(value, n.Call) or not self.gen._is_procedure(value.func):
            return None
        if not branches(self.comp.book, self.comp.tables, value.func):
            return None
        return value

    def _call(
        self,
        s: n.Stmt,
        e: n.Call,
        after: int,
        live_after: frozenset[str],
        inherited: n.RuleRef | None,
        rule: n.RuleRef | None,
        target: str | None = None,
    ) -> tuple[int, frozenset[str]]:
        """The statement's step, the call's step and its arguments (in that order, as the
        procedure's own code does them), then an ``Enter`` for the runner (the result set
        to ``target``, a let's name by default)."""
        decl = self.comp.book.procedures[e.func]
        gen, w = self.gen, self.w
        live = self._live_before(s, live_after)
        args = gen._bind(e, decl.params)  # source only: nothing is written yet
        k = self._open(s.span, live)
        # the call's arguments: the procedure's own blocks say whether they are calm
        self.calm[k] = args is not None and self._calm(*e.args)
        if args is None:  # not bound by generated code: the statement as it is, whole
            gen.statement(s, inherited, rule)
            w.line(f"return {after}")
            return k, live
        gen._step(s.span, getattr(s, "ref", None) or inherited or rule)
        w.line(f"_stepped(i, {w.const(e.span)})")
        if target is None and isinstance(s, n.Let):
            target = s.name
        kept = w.const(live_after - ({target} if target else set()))
        w.line(f"return _Enter({e.func!r}, {args}, {after}, {target!r}, {kept})")
        return k, live

    # ---- which locals may still be read --------------------------------------------------

    def _live_of(self, body: tuple[n.Stmt, ...], live_after: frozenset[str]) -> frozenset[str]:
        live = live_after
        for s in reversed(body):
            live = self._live_before(s, live)
        return live

    def _live_before(self, s: n.Stmt, live: frozenset[str]) -> frozenset[str]:
        """Backward liveness of one statement: what it reads, and what is read after it
        unless it sets it first. Anything it does not know keeps every name alive."""
        if isinstance(s, n.Let):
            return (live - {s.name}) | self._reads(s.value)
        if isinstance(s, n.Assign) and len(s.target) == 1 and s.op == "=":
            kept = live if s.target[0] in self.shared else live - {s.target[0]}
            return kept | self._reads(s.value)
        if isinstance(s, n.Assign):
            return live | {s.target[0]} | self._reads(s.value)
        if isinstance(s, n.Return):
            return self._reads(s.value) if s.value is not None else frozenset()
        if isinstance(s, n.If):
            out = self._live_of(s.otherwise, live)
            for b in s.branches:
                out = out | self._live_of(b.body, live) | self._reads(b.cond)
            return out
        if isinstance(s, n.While | n.ForEach):
            head = live | self._reads(s.cond if isinstance(s, n.While) else s.iterable)
            while True:
                grown = head | self._loop_live(s.body, head, live)
                if grown == head:
                    return head
                head = grown
        if isinstance(s, n.Break | n.Continue) and self.live_loops:
            head, after = self.live_loops[-1]
            return after if isinstance(s, n.Break) else head
        if isinstance(s, n.Choose):
            reads = self._reads(s.options) | self._reads(s.default)
            return (live - {s.name}) | reads
        if isinstance(s, n.ExprStmt | n.Require | n.NoteStmt | n.Pass):
            return live | self._reads(s)
        return frozenset(self.names)  # a statement not known here: everything may be read

    def _reads(self, node: Any) -> frozenset[str]:
        """The local names an expression or statement may read (its texts' ``{x}`` too)."""
        found: set[str] = set()
        stack = [node]
        while stack:
            x = stack.pop()
            if x is None:
                continue
            if isinstance(x, n.Name):
                found.add(x.id)
            elif isinstance(x, n.Str) and "{" in x.value:
                found.update(p.split(".")[0] for p in placeholders(x.value))
            elif isinstance(x, n.NoteStmt) and "{" in x.text:
                found.update(p.split(".")[0] for p in placeholders(x.text))
            elif isinstance(x, n.Assign):
                found.add(x.target[0])
            for field in getattr(type(x), "__attrs_attrs__", ()):
                value = getattr(x, field.name)
                items = value if isinstance(value, tuple) else (value,)
                stack.extend(v for v in items if hasattr(type(v), "__attrs_attrs__"))
        return frozenset(found & self.names)
