from __future__ import annotations

import math
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from orderdep.core.groupsearch import GroupStats, group_search


def member_test(partners: set[int]) -> Callable[[list[list[int]]], list[bool]]:
    """A set shows the property when it holds a partner (monotone pooling)."""

    def shows(sets: list[list[int]]) -> list[bool]:
        return [any(x in partners for x in s) for s in sets]

    return shows


def test_finds_every_partner_in_candidate_order() -> None:
    candidates = list(range(100, 0, -1))
    assert group_search(candidates, member_test({3, 50, 99})) == [99, 50, 3]


def test_no_candidates_and_no_partners() -> None:
    assert group_search([], member_test({1})) == []
    stats = GroupStats()
    assert group_search(list(range(50)), member_test(set()), stats=stats) == []
    assert (stats.batches, stats.sets) == (1, 1)  # one set test clears all of them


def test_limit_stops_after_the_first_partner_depth_first() -> None:
    stats = GroupStats()
    found = group_search(list(range(1024)), member_test({700, 900}), limit=1, stats=stats)
    assert found == [700]
    assert stats.sets <= 2 * 10 + 1  # two halves per level at most, log2(1024) levels


def test_a_set_that_shows_only_as_a_whole_yields_nothing() -> None:
    # a pair needed together (a polluter group) makes sets fail but no single candidate
    def shows(sets: list[list[int]]) -> list[bool]:
        return [{4, 9} <= set(s) for s in sets]

    assert group_search(list(range(16)), shows) == []


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=300),
    data=st.data(),
)
def test_same_partners_as_one_by_one_and_logarithmic_cost(n: int, data: st.DataObject) -> None:
    partners = set(data.draw(st.lists(st.integers(0, n - 1), max_size=6)))
    stats = GroupStats()
    found = group_search(list(range(n)), member_test(partners), stats=stats)
    one_by_one = [x for x in range(n) if member_test(partners)([[x]])[0]]
    assert found == one_by_one
    levels = math.ceil(math.log2(n)) + 1
    assert stats.sets <= 1 + 2 * len(partners) * levels
