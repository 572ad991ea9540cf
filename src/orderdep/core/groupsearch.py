"""Group testing: find the candidates that show a property on their own, many at a time.

Classification asks, for one OD test, which candidates ``x`` show a property *alone*: the
victim fails after ``[x]`` (a polluter), the brittle passes after ``[x]`` (a
state-setter), the victim passes after ``[p, x]`` (a cleaner of polluter ``p``). Asking
each candidate on its own costs one order per candidate (004 §4.1). Adaptive group testing
(Dorfman's pooling; Hwang's binary splitting) asks about a whole *set* of candidates in
one order and splits only the sets that show the property, as delta debugging splits a
failing input (Zeller and Hildebrandt; :mod:`orderdep.core.ddmin`). With ``d`` partners
among ``n`` candidates it needs about ``2 d log2(n)`` set tests instead of ``n``.

The answer is exact because a set is only ever a *reason to look closer*: a candidate is
reported only after the singleton test ``[x]`` itself shows the property, which is the
one-by-one test. What group testing can miss is a partner inside a set that did not show
the property; the caller's set test is responsible for making that impossible (for
polluters, :mod:`orderdep.analysis.partners` tests each set in both directions, so a
cleaner after a polluter in one direction cannot hide it in the other).

The search is breadth-first: every set of one level goes to the set test in one batch
(so the engine can run them in parallel). With ``limit``, it is depth-first instead
(the first set that shows the property is split first), and it stops after ``limit``
partners: the cheapest way to one partner, about ``log2(n)`` set tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, Optional, TypeVar

T = TypeVar("T")

# Shows the property for each set of candidates (one batch: results in input order).
SetTest = Callable[[list[list[T]]], list[bool]]


@dataclass
class GroupStats:
    """How much work one :func:`group_search` did."""

    batches: int = 0  # calls of the set test
    sets: int = 0  # sets tested (each one order, or two for the caller that reverses)
    items: int = 0  # candidates summed over the sets tested


def _halves(items: list[T]) -> list[list[T]]:
    mid = len(items) // 2
    return [items[:mid], items[mid:]]


def group_search(
    candidates: Sequence[T],
    shows: SetTest[T],
    *,
    limit: Optional[int] = None,
    stats: Optional[GroupStats] = None,
) -> list[T]:
    """The candidates ``x`` for which ``shows([[x]])`` holds, in candidate order.

    Only candidates inside a set that showed the property are looked at further, so a
    partner hidden inside a set that did not show it is missed (see the module
    docstring). ``limit`` stops after that many partners (depth-first).
    """
    counters = stats if stats is not None else GroupStats()
    positions = {i: c for i, c in enumerate(candidates)}

    def ask(sets: list[list[int]]) -> list[bool]:
        counters.batches += 1
        counters.sets += len(sets)
        counters.items += sum(len(s) for s in sets)
        return shows([[positions[i] for i in s] for s in sets])

    found: list[int] = []
    if not candidates:
        return []
    root = list(range(len(candidates)))
    if limit is not None:
        stack = [root]
        while stack and len(found) < limit:
            current = stack.pop()
            if not ask([current])[0]:
                continue
            if len(current) == 1:
                found.append(current[0])
                continue
            first, second = _halves(current)
            stack += [second, first]  # the first half is looked at first
        return [positions[i] for i in sorted(found)]
    level = [root]
    while level:
        results = ask(level)
        following: list[list[int]] = []
        for s, shown in zip(level, results):
            if not shown:
                continue
            if len(s) == 1:
                found.append(s[0])
            else:
                following += _halves(s)
        level = following
    return [positions[i] for i in sorted(found)]


__all__ = ["GroupStats", "SetTest", "group_search"]
