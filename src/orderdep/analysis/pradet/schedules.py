"""The graph refinement works on, and the schedules it runs (paper 001 §III-B).

:class:`Work` holds the data dependencies still in force as adjacency sets and builds the
schedule that inverts chosen edges while keeping every other one. Refinement tests many
edges per schedule where they cannot interfere:

* **Within a component**, edges ``a -> b`` and ``c -> d`` share a schedule when neither
  inversion touches what the other dependent's outcome rests on: ``c`` and ``d`` are not
  ``a`` or one of its transitive dependees in the collected graph (the tests whose
  writes can reach ``a``; removed edges count too, since a dependency masked by an
  alternative one was removed but is still real), and the other way round. Those tests
  and ``a`` wait only for each other, so a topological sort orders them the same
  whatever else is inverted: ``a`` sees what it would see with its edge alone. Edges
  are taken in priority order (source-first), so a dependent's edges are still tested
  one at a time, latest dependee first.
* **Across components** of the collected graph (tests that share no data at all) the
  schedules of one round are concatenated into orders of at most a reference run's
  length (:func:`pack`), and into at least ``jobs`` orders when there are that many.
  Parts a removal split off one collected component never share an order: the removed
  edge may be a real dependency masked by another.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from typing import Optional

Edge = tuple[str, str]


class Work:
    """The graph being refined as plain adjacency sets (networkx copies cost too much here).

    ``succ[t]`` are the dependees of ``t`` (edges ``t -> d``), ``pred[t]`` its dependents.
    """

    def __init__(self, edges: Iterable[Edge], index: Mapping[str, int]) -> None:
        self.succ: dict[str, set[str]] = {}
        self.pred: dict[str, set[str]] = {}
        self.index = index
        self._reach: dict[str, frozenset[str]] = {}
        for dependent, dependee in edges:
            self.succ.setdefault(dependent, set()).add(dependee)
            self.pred.setdefault(dependee, set()).add(dependent)
            self.succ.setdefault(dependee, set())
            self.pred.setdefault(dependent, set())
        self.collected = {t: frozenset(d) for t, d in self.succ.items()}  # never shrinks

    def remove(self, edge: Edge) -> None:
        self.succ[edge[0]].discard(edge[1])
        self.pred[edge[1]].discard(edge[0])

    def components(self, nodes: Iterable[str]) -> list[set[str]]:
        """Weakly connected components of the graph restricted to ``nodes``, in order of
        their earliest test in the reference order."""
        left = set(nodes)
        out = []
        while left:
            start = left.pop()
            part = {start}
            stack = [start]
            while stack:
                t = stack.pop()
                for u in (*self.succ[t], *self.pred[t]):
                    if u in left:
                        left.discard(u)
                        part.add(u)
                        stack.append(u)
            out.append(part)
        out.sort(key=lambda c: min(self.index[t] for t in c))
        return out

    def inverts_into_cycle(self, edge: Edge) -> bool:
        """Whether another path leads from the dependent to the dependee (Figure 4)."""
        dependent, dependee = edge
        stack = [d for d in self.succ[dependent] if d != dependee]
        seen = set(stack)
        while stack:
            t = stack.pop()
            if t == dependee:
                return True
            for d in self.succ[t]:
                if d not in seen:
                    seen.add(d)
                    stack.append(d)
        return False

    def reach(self, test: str) -> frozenset[str]:
        """``test`` and its transitive dependees in the collected graph: the tests whose
        writes can reach it."""
        found = self._reach.get(test)
        if found is None:
            seen = {test}
            stack = [test]
            while stack:
                for d in self.collected[stack.pop()]:
                    if d not in seen:
                        seen.add(d)
                        stack.append(d)
            found = self._reach[test] = frozenset(seen)
        return found

    def independent(self, edges: Sequence[Edge], batch: bool = True) -> list[Edge]:
        """The edges of one component to test together this round, in priority order:
        the first testable edge, then (with ``batch``) every later one that cannot
        interfere with those chosen. Empty when none is testable."""
        chosen: list[Edge] = []
        blocked: set[str] = set()  # what the chosen dependents' outcomes rest on
        touched: set[str] = set()  # the tests the chosen inversions move
        for edge in edges:
            dependent, dependee = edge
            if dependent in blocked or dependee in blocked:
                continue
            reach = self.reach(dependent)
            if not reach.isdisjoint(touched) or self.inverts_into_cycle(edge):
                continue
            chosen.append(edge)
            if not batch:
                break
            blocked |= reach
            touched.update(edge)
        return chosen

    def schedule(self, component: set[str], edges: Sequence[Edge]) -> Optional[list[str]]:
        """Tests of ``component`` with ``edges`` inverted, dependees first (ties by
        reference position, like a lexicographic topological sort), cut after the last
        dependent; None when the inversions together close a cycle."""
        index = self.index
        waiting = {t: len(self.succ[t]) for t in component}
        extra: dict[str, list[str]] = {}
        for dependent, dependee in edges:
            waiting[dependent] -= 1  # no longer waits for the dependee...
            waiting[dependee] += 1  # ...which now waits for it
            extra.setdefault(dependent, []).append(dependee)
        inverting = set(edges)
        left = {dependent for dependent, _ in edges}
        ready = [(index[t], t) for t, n in waiting.items() if n == 0]
        heapq.heapify(ready)
        out: list[str] = []
        while ready and left:
            _, test = heapq.heappop(ready)
            out.append(test)
            left.discard(test)
            inverted = extra.get(test, [])
            for d in (*(p for p in self.pred[test] if (p, test) not in inverting), *inverted):
                waiting[d] -= 1
                if waiting[d] == 0:
                    heapq.heappush(ready, (index[d], d))
        return None if left else out


def pack(sizes: Sequence[int], keys: Sequence[int], limit: int, jobs: int) -> list[list[int]]:
    """Indices of ``sizes`` grouped into orders of at most ``limit`` tests (one alone may
    exceed it) and at least ``min(jobs, len(sizes))`` of them, two with the same ``key``
    never in one: largest first, each to the shortest order with room; each order's
    indices ascending."""
    bins: list[tuple[int, list[int], set[int]]] = [
        (0, [], set()) for _ in range(min(jobs, len(sizes)))
    ]
    for i in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i)):
        fits = [
            n
            for n, (load, members, used) in enumerate(bins)
            if keys[i] not in used and (not members or load + sizes[i] <= limit)
        ]
        if not fits:
            bins.append((0, [], set()))
            fits = [len(bins) - 1]
        n = min(fits, key=lambda n: (bins[n][0], n))
        load, members, used = bins[n]
        members.append(i)
        used.add(keys[i])
        bins[n] = (load + sizes[i], members, used)
    return sorted((sorted(members) for _, members, _ in bins if members), key=lambda m: m[0])
