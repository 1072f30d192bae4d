"""Where a procedure's locals are kept while its generated function runs (see
rulekit.engine.codegen): in Python variables of the function, under generated names
(``_l1``, ``_l2``...: a rulebook name never becomes an identifier), read and written as any
Python local; unbound is ``_MISSING``.

What runs outside the function reads and writes the frame's dict of locals (``L``, which is
``Frame.locals`` and ``Interpreter.locals``): a decision's default and its policy (a
player's prompt and views, the choice itself), a comprehension's helper function. Before
each the bound Python locals are written to ``L`` (``sync``); after it those it may change
are read back. A name a view may read (``rulekit play`` shows a game piece through its view,
whose other parameters take the running procedure's locals of the same names, whenever the
piece is written as text) stays in ``L``. Exact analysis's blocks (rulekit.engine.
codegen_blocks) keep every local in ``L``: a block is entered from a situation.
"""

from __future__ import annotations

from typing import Any

from rulekit.book.check_exprs import placeholders
from rulekit.engine.codegen_runtime import _MISSING
from rulekit.language import nodes as n


def _named(book: Any, nodes: tuple[Any, ...]) -> set[str] | None:
    """Every name the nodes mention (in a ``{...}`` of a text too), or None if they call
    something with a default for a parameter."""
    found: set[str] = set()
    stack = [x for x in nodes if x is not None]
    while stack:
        node = stack.pop()
        if isinstance(node, n.Name):
            found.add(node.id)
        elif isinstance(node, n.Str):
            found.update(p.split(".")[0] for p in placeholders(node.value))
        elif isinstance(node, n.Call):
            decl = (
                book.procedures.get(node.func)
                or book.modifiers.get(node.func)
                or book.records.get(node.func)
                or book.kinds.get(node.func)
            )
            fields = getattr(decl, "params", None) or getattr(decl, "fields", None) or ()
            if any(getattr(f, "default", None) is not None for f in fields):
                return None
        for field in getattr(type(node), "__attrs_attrs__", ()):
            value = getattr(node, field.name)
            items = value if isinstance(value, tuple) else (value,)
            stack.extend(x for x in items if hasattr(type(x), "__attrs_attrs__"))
    return found


def sync(L: dict[str, Any], names: tuple[str, ...], values: tuple[Any, ...]) -> dict[str, Any]:
    """``L`` with the bound ones of a procedure's Python locals written to it."""
    for name, value in zip(names, values, strict=True):
        if value is not _MISSING:
            L[name] = value
    return L


class Locals:
    """The locals half of codegen.Gen, which provides what is declared here."""

    w: Any  # codegen.Writer
    comp: Any  # program.Program
    local: frozenset[str]
    py: dict[str, str]  # the locals held in Python variables, by name

    def python_locals(self, decl: n.ProcedureDecl) -> None:
        """A procedure's locals become Python variables (``_l1``...: never a rulebook name),
        its parameters read from ``L`` on entry, the others unbound (``_MISSING``) until a
        statement binds them. A name a view may read while the procedure runs (``rulekit
        play`` shows a piece through its view, whose other parameters take the running
        procedure's locals of the same names) stays in ``L``."""
        book = self.comp.book
        viewed = {
            p.name
            for view in book.views.values()
            if view.procedure in book.procedures
            # a kind's view takes the piece first; a decision's takes every parameter here
            for p in book.procedures[view.procedure].params[0 if view.decision else 1 :]
        }
        names = sorted(self.local - viewed)
        self.py = {name: f"_l{k}" for k, name in enumerate(names, 1)}
        params = {p.name for p in decl.params}
        for p in decl.params:
            if p.name in self.py:
                self.w.line(f"{self.py[p.name]} = L[{p.name!r}]")
        unbound = [self.py[name] for name in names if name not in params]
        if unbound:
            self.w.line(" = ".join(unbound) + " = _MISSING")

    def _local(self, name: str, elsewhere: str | None = None) -> str:
        """A local's value; when it may be unbound, ``elsewhere`` is read instead."""
        v = self.py.get(name)
        if elsewhere is None:
            return v if v is not None else f"L[{name!r}]"
        if v is not None:
            return f"({v} if {v} is not _MISSING else {elsewhere})"
        return f"(L[{name!r}] if {name!r} in L else {elsewhere})"

    def _target(self, name: str) -> str:
        return self.py.get(name) or f"L[{name!r}]"

    def _is_bound(self, name: str) -> str:
        v = self.py.get(name)
        return f"{v} is not _MISSING" if v is not None else f"{name!r} in L"

    def _synced(self) -> str:
        """``L`` with every bound Python local written to it (for code that reads ``L``)."""
        names = sorted(self.py)
        values = "(" + "".join(f"{self.py[k]}, " for k in names) + ")"
        return f"_sync(L, {self.w.const(tuple(names))}, {values})"

    def _passed(self, nodes: tuple[Any, ...]) -> list[str]:
        """The Python locals code reading ``L`` may read: those ``nodes`` name, else
        (they call what has a default, evaluated where the call is made) every one."""
        named = _named(self.comp.book, nodes)
        return sorted(k for k in self.py if named is None or k in named)

    def _reread(self) -> list[str]:
        """Every Python local read back from ``L`` (code that may have written it ran)."""
        return [f"({v} := L.get({k!r}, _MISSING))" for k, v in sorted(self.py.items())]


def may_be_local(
    params: tuple[n.Param, ...], nodes: tuple[Any, ...], book: Any = None
) -> frozenset[str]:
    """The names a procedure's locals may hold: parameters, and what its statements and
    comprehensions bind (a value assigned to a name that is no state variable is a local).
    Given the ``book``, a name assigned that is a state variable or track and bound no other
    way is left out: the state always holds it (see Gen._member), so the assignment always
    writes the state, and the name is read from the state with no test of a local."""
    state = (set(book.states) | set(book.tracks)) if book is not None else set()
    names = {p.name for p in params}
    stack: list[Any] = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, n.Let | n.Choose):
            names.add(node.name)
        elif isinstance(node, n.Assign):
            if node.target[0] not in state:
                names.add(node.target[0])
        elif isinstance(node, n.ForEach | n.ListComp | n.Aggregate):
            names.add(node.var)
        for field in getattr(type(node), "__attrs_attrs__", ()):
            value = getattr(node, field.name)
            items = value if isinstance(value, tuple) else (value,)
            stack.extend(x for x in items if hasattr(type(x), "__attrs_attrs__"))
    return frozenset(names)
