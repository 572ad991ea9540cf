"""Adaptive group testing over an order's prefix: find the tests a failure needs.

``items`` is the prefix of a failing (or, for a brittle, passing) order and ``test``
says whether a sublist of it, run in order before the test, still shows the outcome.
The search keeps the members found so far (``keep``, a suffix of the answer in order)
and a window of candidates before them. While ``keep`` alone does not show the outcome:

1. it halves the window while one half (with ``keep``) still shows it, the later half
   first (bisection, as detect-test-pollution does: a single polluter among ``n`` tests
   costs about ``1.5 log2 n`` orders of ``n/2, n/4, ...`` tests);
2. when neither half does (the needed tests straddle them: a group), it binary-searches
   the shortest cut ``window[:k]`` for which ``window[:k] + keep`` still shows it:
   ``window[k - 1]`` is then needed, joins ``keep``, and the window shrinks to what came
   before it (Hwang's binary splitting, one needed test at a time).

Every experiment runs an exact sublist, so the invariant (``candidates + keep`` shows the
outcome) holds even when the outcome is not monotone in the prefix (cleaners); the result
shows the outcome and is then made 1-minimal by :func:`~orderdep.core.ddmin.ddmin`, which
is cheap on a handful of items.

Each needed test costs a round of about ``2 log2 n`` orders. An outcome that needs many
tests together (the state of a shared random generator, which every test that draws
from it moves) would add one member per round for as long as the prefix lasts, so with
``cap`` the search stops once ``keep`` holds ``cap`` tests and still does not show the
outcome alone: it returns ``candidates + keep``, the last sublist seen to show it, which
is then longer than ``cap`` (:class:`TooManyNeeded` for :func:`minimal_prefix_subset`).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any, Callable, Optional, TypeVar

from orderdep.core.ddmin import DDMinPreconditionError, DDStats, ddmin
from orderdep.errors import OrderdepError

T = TypeVar("T")

#: Needed tests found one at a time before a search with a cap stops: groups of up to
#: this many tests are found whole (real polluter groups and state-setter sets are
#: rarely more than two or three tests).
GROUP_CAP = 4


class TooManyNeeded(OrderdepError):
    """The outcome needs more than ``cap`` of the tests together: the search stopped at
    ``kept``, a sublist (order kept) that was seen to show it, longer than ``cap``."""

    def __init__(self, kept: Sequence[Any], cap: int, total: int) -> None:
        self.kept = list(kept)
        self.cap = cap
        super().__init__(
            f"the outcome needs more than {cap} of the {total} tests before it together "
            f"(after {cap} needed tests, it still did not show without others); the search "
            f"stopped at {len(self.kept)} tests that show it"
        )


#: The search as a coroutine: it yields the positions (into the prefix) to try next and is
#: sent back whether they showed the outcome; it returns the positions found, or None
#: when the answers contradicted each other (the outcome changed while searching).
Steps = Generator[list[int], bool, Optional[list[int]]]


def prefix_subset_steps(n: int, cap: Optional[int] = None) -> Steps:
    """The experiments of the search over a prefix of ``n`` items, one at a time.

    The caller has seen the whole prefix show the outcome. What it returns shows the
    outcome too (it was the last experiment answered yes), but is not made 1-minimal:
    callers that run experiments in batches drive several searches in lockstep this way.
    With ``cap``, a result longer than ``cap`` means the search stopped there (see the
    module docstring); otherwise it is never longer than ``cap``.
    """
    candidates = list(range(n))
    keep: list[int] = []
    while candidates:
        if keep and (yield list(keep)):
            return keep
        if cap is not None and len(keep) >= cap:
            return candidates + keep  # the last sublist seen to show the outcome
        # Narrow the window while one half of it (with ``keep``) still shows the outcome:
        # each probe runs half as many tests as the one before.
        while len(candidates) > 1:
            half = len(candidates) // 2
            part = None
            for p in (candidates[half:], candidates[:half]):
                if (yield p + keep):
                    part = p
                    break
            if part is None:  # the needed tests straddle the halves
                break
            candidates = part
        # The last needed test: the shortest cut of the window that still shows it.
        lo, hi = 0, len(candidates)  # holds(candidates[:hi] + keep); not for lo (lo=0: keep)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if (yield candidates[:mid] + keep):
                hi = mid
            else:
                lo = mid
        keep.insert(0, candidates[hi - 1])
        candidates = candidates[: hi - 1]
    return keep if (yield list(keep)) else None


def minimal_prefix_subset(
    items: Sequence[T],
    test: Callable[[list[T]], bool],
    *,
    stats: DDStats | None = None,
    cap: Optional[int] = None,
) -> list[T]:
    """A 1-minimal sublist of ``items`` (order kept) for which ``test`` holds.

    Raises :class:`~orderdep.core.ddmin.DDMinPreconditionError` when ``test`` does not
    hold for ``items``, or when the answers change while searching (a nondeterministic
    outcome); :class:`TooManyNeeded` when, with ``cap``, more than ``cap`` items are
    needed together.
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

    if not holds(range(len(items))):
        raise DDMinPreconditionError(
            f"the search needs a test that holds for the full input, but it does not hold "
            f"for these {len(items)} item(s)"
        )
    keep = drive(prefix_subset_steps(len(items), cap), holds)
    if keep is None:
        raise DDMinPreconditionError("the outcome changed while searching: nondeterministic")
    if cap is not None and len(keep) > cap:
        raise TooManyNeeded([items[i] for i in keep], cap, len(items))
    if len(keep) > 1:
        keep = ddmin(keep, holds)  # raises when keep no longer holds (answers changed)
    return [items[i] for i in keep]


def drive(steps: Steps, holds: Callable[[list[int]], bool]) -> Optional[list[int]]:
    """Run a search to its end, answering each experiment with ``holds``."""
    try:
        ask = next(steps)
        while True:
            ask = steps.send(holds(ask))
    except StopIteration as done:
        result: Optional[list[int]] = done.value
        return result
