"""Binary splitting over a prefix (pure)."""

from __future__ import annotations

import math
import random

import pytest

from orderdep.core.ddmin import DDMinPreconditionError, DDStats, ddmin
from orderdep.core.prefix_search import GROUP_CAP, TooManyNeeded, minimal_prefix_subset


def subsequence(needle: list[int], hay: list[int]) -> bool:
    it = iter(hay)
    return all(x in it for x in needle)


@pytest.mark.parametrize("n", [1, 2, 7, 100, 2000])
def test_one_culprit_costs_log2_n_orders_of_halving_length(n: int) -> None:
    rng = random.Random(n)
    for culprit in {0, n - 1, rng.randrange(n)}:
        stats = DDStats()
        ran: list[int] = []

        def holds(s: list[int], culprit: int = culprit, ran: list[int] = ran) -> bool:
            ran.append(len(s))
            return culprit in s

        assert minimal_prefix_subset(list(range(n)), holds, stats=stats) == [culprit]
        assert stats.calls <= 2 * math.ceil(math.log2(n)) + 2
        assert sum(ran) <= 3 * n + 2  # n for the precondition, then n/2 + n/4 + ... twice


@pytest.mark.parametrize("seed", range(30))
def test_an_ordered_group_is_found_whole_and_one_minimal(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randrange(5, 400)
    group = sorted(rng.sample(range(n), rng.randrange(1, 5)))

    def holds(s: list[int]) -> bool:
        return subsequence(group, s)

    stats = DDStats()
    assert minimal_prefix_subset(list(range(n)), holds, stats=stats) == group
    dd = DDStats()
    assert ddmin(list(range(n)), holds, stats=dd) == group
    if len(group) > 1:  # cheaper than delta debugging on groups
        assert stats.calls <= dd.calls


def test_non_monotone_outcomes_still_give_a_sublist_that_holds() -> None:
    # 3 pollutes, 5 cleans, 8 pollutes again: [.. 3 .. 5 .. 8 ..] fails; so does [8]
    def fails(s: list[int]) -> bool:
        state = False
        for x in s:
            state = True if x in (3, 8) else False if x == 5 else state
        return state

    found = minimal_prefix_subset(list(range(10)), fails)
    assert fails(found) and len(found) == 1


def test_preconditions_and_changing_answers() -> None:
    with pytest.raises(DDMinPreconditionError):
        minimal_prefix_subset([1, 2, 3], lambda s: False)
    # an outcome that held once and never again: nothing can be dropped (the caller's
    # verification of the answer, in fresh runs, is what finds it nondeterministic)
    answers = iter([True] + [False] * 50)
    assert minimal_prefix_subset(list(range(8)), lambda s: next(answers)) == list(range(8))


@pytest.mark.parametrize("size", [1, 2, GROUP_CAP])
def test_a_group_up_to_the_cap_is_found_whole(size: int) -> None:
    group = list(range(3, 3 + 20 * size, 20))
    assert (
        minimal_prefix_subset(list(range(150)), lambda s: subsequence(group, s), cap=GROUP_CAP)
        == group
    )


def test_a_group_beyond_the_cap_stops_at_a_sublist_that_still_holds() -> None:
    group = list(range(5, 5 + 30 * (GROUP_CAP + 2), 30))  # GROUP_CAP + 2 members
    stats = DDStats()
    with pytest.raises(TooManyNeeded) as stopped:
        minimal_prefix_subset(
            list(range(200)), lambda s: subsequence(group, s), stats=stats, cap=GROUP_CAP
        )
    kept = stopped.value.kept
    assert subsequence(group, kept) and len(kept) > GROUP_CAP
    assert kept[-GROUP_CAP:] == group[-GROUP_CAP:]  # the members found before it stopped
    assert stats.calls <= GROUP_CAP * 3 * math.ceil(math.log2(200)) + 2
    assert f"more than {GROUP_CAP} of the 200 tests" in str(stopped.value)


def test_an_outcome_that_needs_the_exact_prefix_ends_within_the_cap() -> None:
    # like a shared random generator: only the whole prefix (in order) shows the outcome,
    # so each round finds one more needed test; without a cap it would take n rounds
    n = 120
    stats = DDStats()
    with pytest.raises(TooManyNeeded) as stopped:
        minimal_prefix_subset(list(range(n)), lambda s: len(s) == n, stats=stats, cap=GROUP_CAP)
    assert stopped.value.kept == list(range(n))
    assert stats.calls <= GROUP_CAP * 3 * math.ceil(math.log2(n)) + 2
    uncapped = DDStats()
    # no cap: one member per round, all the way down the prefix
    assert minimal_prefix_subset(list(range(n)), lambda s: len(s) == n, stats=uncapped) == list(
        range(n)
    )
    assert uncapped.calls > n
