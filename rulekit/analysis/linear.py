"""The linear algebra of situations that come back: Gauss-Jordan elimination over
fractions and Tarjan's strongly connected components (an absorbing Markov chain for
``prob``, rulekit.analysis.situations; a Markov decision process for ``advise``,
rulekit.analysis.advice_values)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any


def gauss(
    rows: list[tuple[dict[int, Fraction], dict[Any, Fraction]]],
) -> list[dict[Any, Fraction]] | None:
    """Solve sum(c_j * x_j) = r, one row per unknown, by Gauss-Jordan elimination over
    fractions: each row a dict of coefficients (the equations of a loop are sparse) and a
    right-hand side over named parts (outcomes; one part for a plain number). None when
    singular (a loop that never ends)."""
    size = len(rows)
    rows = [({j: c for j, c in coeff.items() if c}, dict(rhs)) for coeff, rhs in rows]
    for col in range(size):
        pivot = next((r for r in range(col, size) if rows[r][0].get(col)), None)
        if pivot is None:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        coeff, rhs = rows[col]
        scale = coeff[col]
        coeff = {j: c / scale for j, c in coeff.items()}
        rhs = {k: p / scale for k, p in rhs.items()}
        rows[col] = (coeff, rhs)
        for r in range(size):
            factor = rows[r][0].get(col) if r != col else None
            if not factor:
                continue
            other, other_rhs = rows[r]
            for j, c in coeff.items():
                other[j] = other.get(j, Fraction(0)) - factor * c
            for k, p in rhs.items():
                other_rhs[k] = other_rhs.get(k, Fraction(0)) - factor * p
            rows[r] = ({j: c for j, c in other.items() if c}, other_rhs)
    return [rows[k][1] for k in range(size)]


def components(nodes: Iterable[int], nexts: Callable[[int], list[int]]) -> list[list[int]]:
    """Tarjan's strongly connected components of the graph ``nexts`` gives, successors
    before predecessors (iterative: a long chain of situations must not exhaust Python's
    stack)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[int, int]] = [(root, 0)]
        while work:
            v, k = work.pop()
            if k == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            successors = nexts(v)
            recurse = False
            while k < len(successors):
                w = successors[k]
                k += 1
                if w not in index:
                    work.append((v, k))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                out.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out
