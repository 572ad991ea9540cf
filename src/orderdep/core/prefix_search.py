"""Adaptive group testing over an order's prefix: find the tests a failure needs by
binary search on where the prefix is cut.

``items`` is the prefix of a failing (or, for a brittle, passing) order and ``test``
says whether a sublist of it, run in order before the test, still shows the outcome.
The search keeps the members found so far (``keep``, a suffix of the answer in order)
and the candidates before them. While ``keep`` alone does not show the outcome, it
binary-searches the shortest cut ``candidates[:k]`` for which ``candidates[:k] + keep``
still does: ``candidates[k - 1]`` is then needed (without it, the outcome goes away), so
it joins ``keep`` and the candidates shrink to what came before it. Each member costs
about ``log2 n`` experiments (Hwang's binary splitting, one defective at a time), on
prefixes that shrink as the search goes on: a single polluter among 2,000 tests takes
11 orders of 1,000 tests on average, where delta debugging tries each half first.

Every experiment runs an exact sublist, so the invariant (``candidates + keep`` shows the
outcome) holds even when the outcome is not monotone in the prefix (cleaners); the result
shows the outcome and is then made 1-minimal by :func:`~orderdep.core.ddmin.ddmin`, which
is cheap on a handful of items.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable, TypeVar

from orderdep.core.ddmin import DDMinPreconditionError, DDStats, ddmin

T = TypeVar("T")


def minimal_prefix_subset(
    items: Sequence[T], test: Callable[[list[T]], bool], *, stats: DDStats | None = None
) -> list[T]:
    """A 1-minimal sublist of ``items`` (order kept) for which ``test`` holds.

    Raises :class:`~orderdep.core.ddmin.DDMinPreconditionError` when ``test`` does not
    hold for ``items``, or when the answers change while searching (a nondeterministic
    outcome).
    """
    counters = stats if stats is not None else DDStats()
    cache: dict[tuple[int, ...], bool] = {}

    def holds(positions: Sequence[int]) -> bool:
        key = tuple(positions)
        if key not in cache:
            counters.calls += 1
            cache[key] = bool(test([items[i] for i in key]))
        else:
            counters.cache_hits += 1
        return cache[key]

    candidates = list(range(len(items)))
    if not holds(candidates):
        raise DDMinPreconditionError(
            f"the search needs a test that holds for the full input, but it does not hold "
            f"for these {len(items)} item(s)"
        )
    keep: list[int] = []
    while candidates and not (keep and holds(keep)):
        lo, hi = 0, len(candidates)  # holds(candidates[:hi] + keep); not for lo (lo=0: keep)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if holds(candidates[:mid] + keep):
                hi = mid
            else:
                lo = mid
        keep.insert(0, candidates[hi - 1])
        candidates = candidates[: hi - 1]
    if len(keep) > 1:
        keep = ddmin(keep, holds)  # raises when keep no longer holds (answers changed)
    elif not holds(keep):
        raise DDMinPreconditionError("the outcome changed while searching: nondeterministic")
    return [items[i] for i in keep]
