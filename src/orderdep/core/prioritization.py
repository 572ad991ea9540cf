"""Coverage-based test prioritisation: algorithms T1-T4 of paper 002 (Table 1, §2.1.1).

The four algorithms come from Elbaum et al. (the paper's reference [24]) and differ in
two ways:

===== =========== ==========================================================
label granularity ordered by
===== =========== ==========================================================
T1    statement   total coverage of each test
T2    statement   additional coverage (elements not yet covered by earlier tests)
T3    function    total coverage of each test
T4    function    additional coverage
===== =========== ==========================================================

Granularity is only a matter of which *elements* the coverage sets hold: ``(file, line)``
pairs for statements, ``(file, qualname)`` pairs for functions (Python's "methods"). The
orderings themselves are element-agnostic, so this module has two algorithms and a table.

Ties are broken by test id, which the paper defines as the position of the test in the
original order (§2.1.3, §2.3: "the algorithms deterministically sort tests based on their
ordering in the original order"), so the same coverage always gives the same order.

A test with no entry in ``coverage`` covers nothing. These orders are *unenhanced*: pass
them through :func:`orderdep.core.enhance.enhance_order` to satisfy test dependencies.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from orderdep.errors import UsageError

Granularity = Literal["statement", "function"]
Ordering = Literal["total", "additional"]
#: Per-test coverage: test id -> the elements it executed.
if TYPE_CHECKING:  # builtin generics are not subscriptable at run time on 3.8
    CoverageMap = Mapping[str, AbstractSet[Hashable]]

_EMPTY: frozenset[Hashable] = frozenset()


@dataclass(frozen=True)
class PrioritizationAlgorithm:
    """One row of Table 1: which coverage elements and which ordering."""

    label: str
    granularity: Granularity
    ordering: Ordering
    description: str


ALGORITHMS: dict[str, PrioritizationAlgorithm] = {
    a.label: a
    for a in (
        PrioritizationAlgorithm("T1", "statement", "total", "Total statement coverage"),
        PrioritizationAlgorithm("T2", "statement", "additional", "Additional statement coverage"),
        PrioritizationAlgorithm("T3", "function", "total", "Total function coverage"),
        PrioritizationAlgorithm("T4", "function", "additional", "Additional function coverage"),
    )
}


def check_unique(tests: Sequence[str]) -> None:
    """Raise :class:`UsageError` if a test id occurs twice (orders here are permutations)."""
    if len(set(tests)) != len(tests):
        dups = sorted(t for t, n in Counter(tests).items() if n > 1)
        raise UsageError(
            f"the test list has duplicate ids {dups!r}; pass each test once, in its original order"
        )


def total_order(tests: Sequence[str], coverage: CoverageMap) -> list[str]:
    """Order ``tests`` by the number of elements each covers, most first (T1, T3).

    ``tests`` is the original order; ties keep it.
    """
    check_unique(tests)
    position = {t: i for i, t in enumerate(tests)}
    return sorted(tests, key=lambda t: (-len(coverage.get(t, _EMPTY)), position[t]))


def additional_order(tests: Sequence[str], coverage: CoverageMap) -> list[str]:
    """Greedy "additional coverage" order (T2, T4).

    Repeatedly pick the test that covers the most elements not covered by the tests picked
    so far (ties: earliest in the original order ``tests``). When no remaining test adds
    anything new, every element is considered uncovered again and the greedy choice
    restarts on the remaining tests, as in Elbaum et al.'s algorithm; tests that cover
    nothing at all come last, in original order.

    Implemented as a lazy greedy over a heap: a test's additional coverage can only shrink
    as more elements get covered, so a stale heap key is an upper bound and a popped test
    whose fresh gain still beats the next key is the true maximum. This keeps large suites
    (thousands of tests) fast.
    """
    check_unique(tests)
    remaining = dict.fromkeys(tests)
    result: list[str] = []
    while remaining:
        covered: set[Hashable] = set()
        heap = [
            (-len(coverage.get(t, _EMPTY)), i, t) for i, t in enumerate(tests) if t in remaining
        ]
        heapq.heapify(heap)
        progressed = False
        while heap:
            _, pos, test = heapq.heappop(heap)
            gain = len(coverage.get(test, _EMPTY) - covered)
            if heap and (-gain, pos) > heap[0][:2]:
                # Stale key: another test may now add more; look again.
                heapq.heappush(heap, (-gain, pos, test))
                continue
            if gain == 0:
                # The best remaining test adds nothing: restart with coverage reset.
                break
            result.append(test)
            del remaining[test]
            covered |= coverage.get(test, _EMPTY)
            progressed = True
        if not progressed:
            # Only tests covering nothing are left.
            result.extend(remaining)
            break
    return result


def prioritize(
    tests: Sequence[str],
    coverage: CoverageMap,
    ordering: Ordering,
) -> list[str]:
    """Order ``tests`` by ``ordering`` ("total" or "additional") of ``coverage``."""
    if ordering == "total":
        return total_order(tests, coverage)
    if ordering == "additional":
        return additional_order(tests, coverage)
    raise UsageError(f"unknown ordering {ordering!r}; use 'total' or 'additional'")


def algorithm(label: str) -> PrioritizationAlgorithm:
    """The Table 1 row for ``label`` ("T1".."T4", case-insensitive)."""
    try:
        return ALGORITHMS[label.upper()]
    except KeyError:
        raise UsageError(
            f"unknown prioritisation algorithm {label!r}; choose one of {sorted(ALGORITHMS)!r}"
        ) from None


def run_algorithm(
    label: str,
    tests: Sequence[str],
    statement_coverage: CoverageMap | None = None,
    function_coverage: CoverageMap | None = None,
) -> list[str]:
    """Run Table 1's algorithm ``label`` with the coverage of its granularity.

    T1/T2 need ``statement_coverage`` (elements ``(file, line)``), T3/T4 need
    ``function_coverage`` (elements ``(file, qualname)``).
    """
    algo = algorithm(label)
    cov = statement_coverage if algo.granularity == "statement" else function_coverage
    if cov is None:
        raise UsageError(
            f"{algo.label} orders by {algo.granularity} coverage but none was given; "
            f"pass {algo.granularity}_coverage="
        )
    return prioritize(tests, cov, algo.ordering)
