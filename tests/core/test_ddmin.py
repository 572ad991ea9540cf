from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orderdep.core.ddmin import DDMinPreconditionError, DDStats, ddmin


def is_subsequence(needle: list[int], hay: list[int]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)


@given(
    st.integers(1, 40).flatmap(
        lambda n: st.tuples(st.just(n), st.sets(st.integers(0, n - 1), min_size=1))
    )
)
@settings(max_examples=150, deadline=None)
def test_finds_exactly_the_needed_items(case: tuple[int, set[int]]) -> None:
    n, needed = case
    seen: list[tuple[int, ...]] = []

    def test(sub: list[int]) -> bool:
        seen.append(tuple(sub))
        assert sub == sorted(sub)  # relative order is kept
        return needed <= set(sub)

    stats = DDStats()
    assert ddmin(list(range(n)), test, stats=stats) == sorted(needed)
    assert len(seen) == len(set(seen)) == stats.calls  # the cache avoids repeats


@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=14),
    st.lists(st.integers(0, 5), min_size=1, max_size=3),
)
@settings(max_examples=150, deadline=None)
def test_result_is_one_minimal_for_ordered_properties(items: list[int], pattern: list[int]) -> None:
    def test(sub: list[int]) -> bool:
        return is_subsequence(pattern, sub)

    if not test(items):
        with pytest.raises(DDMinPreconditionError):
            ddmin(items, test)
        return
    result = ddmin(items, test)
    assert test(result)
    assert is_subsequence(result, items)
    if len(result) > 1:
        assert all(not test(result[:i] + result[i + 1 :]) for i in range(len(result)))


def test_non_monotone_property_still_one_minimal() -> None:
    # holds for sublists of even length containing 3: not monotone
    items = list(range(10))

    def test(sub: list[int]) -> bool:
        return 3 in sub and len(sub) % 2 == 0

    result = ddmin(items, test)
    assert test(result)
    assert all(not test(result[:i] + result[i + 1 :]) for i in range(len(result)))


def test_precondition_is_checked_with_a_clear_message() -> None:
    with pytest.raises(DDMinPreconditionError, match="does not hold for these 3 item"):
        ddmin(["a", "b", "c"], lambda sub: "z" in sub)


def test_single_culprit_needs_few_calls() -> None:
    n = 256
    stats = DDStats()
    assert ddmin(list(range(n)), lambda sub: 97 in sub, stats=stats) == [97]
    # binary-search-like: about one call per halving (plus the precondition)
    assert stats.calls <= 2 * math.log2(n) + 2


def test_pair_culprit_call_count_is_modest() -> None:
    stats = DDStats()
    assert ddmin(list(range(200)), lambda sub: {5, 150} <= set(sub), stats=stats) == [5, 150]
    assert stats.calls < 60
