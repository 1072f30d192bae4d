"""Graphs given as tables: a one-dimensional table whose cells list neighbouring keys.

Transit routes on a map (``routes: area -> list of area``) are such a table; these
functions find distances and shortest routes over it, breadth first, in table order, so the
same table always gives the same route.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rulekit.book.tables import CompiledTable, LookupMiss
from rulekit.engine.values import unwrap


def neighbours(table: CompiledTable, node: Any) -> tuple[Any, ...]:
    try:
        cell, _ = table.lookup([node])
    except LookupMiss:
        return ()
    value = unwrap(cell.value)
    return value if isinstance(value, tuple) else ()


def _parents(table: CompiledTable, starts: list[Any], limit: int | None = None) -> dict[Any, Any]:
    parents: dict[Any, Any] = {s: None for s in starts}
    depth = {s: 0 for s in starts}
    queue = deque(starts)
    while queue:
        node = queue.popleft()
        if limit is not None and depth[node] >= limit:
            continue
        for nxt in neighbours(table, node):
            if nxt not in parents:
                parents[nxt] = node
                depth[nxt] = depth[node] + 1
                queue.append(nxt)
    return parents


def _tree(table: CompiledTable, start: Any) -> dict[Any, Any]:
    """The search tree from one start, computed once per table: tables never change."""
    if start not in table.trees:
        table.trees[start] = _parents(table, [start])
    return table.trees[start]


def route(table: CompiledTable, start: Any, goal: Any) -> tuple[Any, ...] | None:
    """The shortest route from start to goal, both included; None when there is none."""
    parents = _tree(table, start)
    if goal not in parents:
        return None
    path = [goal]
    while parents[path[-1]] is not None:
        path.append(parents[path[-1]])
    return tuple(reversed(path))


def distance(table: CompiledTable, start: Any, goal: Any) -> int | None:
    """The moves of the shortest route from start to goal; None when there is none."""
    key = ("distances", start)  # beside the search trees, computed once per start
    depths = table.trees.get(key)
    if depths is None:
        parents = _tree(table, start)
        depths = table.trees[key] = {}
        for node in parents:  # breadth first: a node's parent comes before it
            parent = parents[node]
            depths[node] = 0 if parent is None else depths[parent] + 1
    return depths.get(goal)


def within(table: CompiledTable, starts: list[Any], steps: int) -> tuple[Any, ...]:
    """Every node at most ``steps`` moves from one of the starts (starts included)."""
    return tuple(_parents(table, list(starts), steps))
