"""Delta debugging: shrink a list to a 1-minimal sublist that still shows a property.

Zeller and Hildebrandt's ``ddmin`` (*Simplifying and isolating failure-inducing input*),
the search iFixFlakies' Minimizer runs over the prefix of a failing (passing) order to
find a victim's polluters (a brittle's state-setters); 003 §2, 004 §4.1. The result keeps
the items' relative order, so an ordered group (state-setters that must run in sequence)
survives minimisation.

Each round splits the current list into ``n`` chunks and tries, in turn, every chunk
alone (then restarts with ``n = 2``) and every complement (then continues with
``n - 1`` chunks); when nothing holds it doubles ``n`` until chunks are single items.
The result is 1-minimal: removing any one item makes ``test`` fail. As in the original,
the empty list is never tried (it is assumed not to hold). Sublists are cached by the
positions they keep, so ``test`` never sees the same sublist twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, TypeVar

from orderdep.errors import OrderdepError

T = TypeVar("T")


class DDMinPreconditionError(OrderdepError):
    """``test`` does not hold for the full input, so there is nothing to minimise."""


@dataclass
class DDStats:
    """How much work one ``ddmin`` call did."""

    calls: int = 0  # calls of ``test`` (each one a real experiment, e.g. a test run)
    cache_hits: int = 0  # sublists asked for again and answered from the cache


def ddmin(
    items: Sequence[T],
    test: Callable[[list[T]], bool],
    *,
    stats: DDStats | None = None,
) -> list[T]:
    """A 1-minimal sublist of ``items`` (relative order kept) for which ``test`` holds.

    Raises :class:`DDMinPreconditionError` when ``test(list(items))`` does not hold.
    Pass ``stats`` to learn how many times ``test`` was called.
    """
    counters = stats if stats is not None else DDStats()
    cache: dict[tuple[int, ...], bool] = {}

    def holds(keep: Sequence[int]) -> bool:
        key = tuple(keep)
        if key in cache:
            counters.cache_hits += 1
            return cache[key]
        counters.calls += 1
        result = bool(test([items[i] for i in key]))
        cache[key] = result
        return result

    current = list(range(len(items)))
    if not holds(current):
        raise DDMinPreconditionError(
            f"ddmin needs a test that holds for the full input, but it does not hold for "
            f"these {len(items)} item(s); check the input (e.g. that the order still "
            "reproduces the outcome) before minimising."
        )
    n = 2
    while len(current) >= 2:
        chunks = _split(current, n)
        found = next((c for c in chunks if holds(c)), None)
        if found is not None:
            current, n = found, 2
            continue
        if n > 2:  # with two chunks each complement is the other chunk: already tried
            complements = (
                [i for j, c in enumerate(chunks) if j != k for i in c] for k in range(len(chunks))
            )
            found = next((c for c in complements if holds(c)), None)
            if found is not None:
                current, n = found, max(n - 1, 2)
                continue
        if n >= len(current):
            break
        n = min(2 * n, len(current))
    return [items[i] for i in current]


def _split(positions: list[int], n: int) -> list[list[int]]:
    """``positions`` cut into ``n`` contiguous chunks of near-equal size."""
    size, extra = divmod(len(positions), n)
    out, start = [], 0
    for k in range(n):
        end = start + size + (1 if k < extra else 0)
        out.append(positions[start:end])
        start = end
    return out
