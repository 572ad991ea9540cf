"""Order generators: baselines, random, random-reverse (004 §4.4) and tuscan (004 §5)."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from orderdep.core.orders import (
    RANDOM_STRATEGIES,
    STRATEGIES,
    RandomReverse,
    generate,
    isolation,
    original,
    pairs,
    pairs_count,
    random_order,
    reverse,
    tuscan,
)
from orderdep.core.suite import GroupLevel, Suite
from orderdep.core.tuscan import covered_pairs
from orderdep.errors import UsageError

IDS = ["a.py::t1", "a.py::t2", "b.py::t1", "b.py::T::t2", "b.py::T::t3"]


def is_group_compatible(order: list[str], groups: list[list[str]]) -> bool:
    group_of = {t: g for g, tests in enumerate(groups) for t in tests}
    blocks = [group_of[t] for t in order]
    runs = [g for i, g in enumerate(blocks) if i == 0 or blocks[i - 1] != g]
    return len(runs) == len(set(runs))


def test_baselines() -> None:
    assert original(IDS) == IDS and original(IDS) is not IDS
    assert reverse(IDS) == IDS[::-1]
    assert isolation(IDS) == [[t] for t in IDS]
    got = list(pairs(IDS))
    assert len(got) == pairs_count(IDS) == 20
    assert len({tuple(p) for p in got}) == 20
    assert all(len(p) == 2 and p[0] != p[1] for p in got)
    assert pairs_count([]) == 0 and list(pairs(["x"])) == []


def test_reverse_of_group_compatible_is_group_compatible() -> None:
    groups = list(Suite.from_ids(IDS).groups("class").values())
    order = random_order(groups, random.Random(3))
    assert is_group_compatible(order, groups)
    assert is_group_compatible(reverse(order), groups)


def test_random_order_is_uniform_over_group_compatible_orders() -> None:
    groups = [["a1", "a2"], ["b1"], ["c1", "c2", "c3"]]
    rng = random.Random(11)
    samples = 24_000
    counts = Counter(tuple(random_order(groups, rng)) for _ in range(samples))
    expected_orders = math.factorial(3) * 2 * 1 * 6
    assert len(counts) == expected_orders
    assert all(is_group_compatible(list(o), groups) for o in counts)
    mean = samples / expected_orders
    # Chi-square with 71 degrees of freedom: mean 71, sd about 12; 140 is far in the tail.
    chi2 = sum((c - mean) ** 2 / mean for c in counts.values())
    assert chi2 < 140


@pytest.mark.parametrize("level", ["module", "class", "none"])
def test_random_order_respects_suite_groups(level: GroupLevel) -> None:
    suite = Suite.from_ids(IDS)
    groups = list(suite.groups(level).values())
    for seed in range(20):
        order = random_order(groups, random.Random(seed))
        assert sorted(order) == sorted(IDS)
        assert is_group_compatible(order, groups)


def test_random_order_is_seeded() -> None:
    groups = [IDS]
    assert random_order(groups, random.Random(5)) == random_order(groups, random.Random(5))
    assert len({tuple(random_order(groups, random.Random(s))) for s in range(30)}) > 20


def test_random_reverse_reverses_after_nothing_new() -> None:
    groups = [["a1", "a2"], ["b1", "b2", "b3"]]
    gen = RandomReverse(groups, random.Random(2))
    first = gen.next_order()
    assert gen.last_kind == "random" and is_group_compatible(first, groups)
    gen.feedback(False)
    second = gen.next_order()
    assert gen.last_kind == "reverse" and second == first[::-1]
    gen.feedback(False)  # a reverse is never reversed back
    third = gen.next_order()
    assert gen.last_kind == "random"
    gen.feedback(True)  # something new failed: no reverse
    fourth = gen.next_order()
    assert gen.last_kind == "random"
    assert is_group_compatible(third, groups) and is_group_compatible(fourth, groups)
    fifth = gen.next_order()  # no feedback: random
    assert gen.last_kind == "random" and sorted(fifth) == sorted(first)


def test_random_reverse_after_an_order_that_passed_starts_with_its_reverse() -> None:
    groups = [["a1", "a2"], ["b1", "b2", "b3"]]
    original = ["a1", "a2", "b1", "b2", "b3"]
    gen = RandomReverse(groups, random.Random(2), after=original)
    assert gen.next_order() == original[::-1] and gen.last_kind == "reverse"
    gen.feedback(False)  # then a random order, as after any reverse
    assert is_group_compatible(gen.next_order(), groups) and gen.last_kind == "random"


def test_random_reverse_feedback_first_is_an_error() -> None:
    with pytest.raises(UsageError, match="next_order"):
        RandomReverse([IDS], random.Random(0)).feedback(False)


def test_random_reverse_returns_copies() -> None:
    gen = RandomReverse([IDS], random.Random(0))
    order = gen.next_order()
    kept = list(order)
    order.clear()
    gen.feedback(False)
    assert gen.next_order() == kept[::-1]


def test_tuscan_covers_all_pairs_group_compatibly() -> None:
    groups = list(Suite.from_ids(IDS).groups("module").values())
    orders = tuscan(groups, random.Random(0))
    assert all(is_group_compatible(o, groups) for o in orders)
    assert covered_pairs(orders) == {(a, b) for a, b in itertools.permutations(IDS, 2)}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_generate_every_strategy(strategy: str) -> None:
    groups = list(Suite.from_ids(IDS).groups("module").values())
    orders = generate(strategy, groups, random.Random(1), count=4)
    again = generate(strategy, groups, random.Random(1), count=4)
    assert orders == again
    assert all(is_group_compatible(o, groups) for o in orders)
    expected = {
        "original": [IDS],
        "reverse": [IDS[::-1]],
        "isolation": [[t] for t in IDS],
        "pairs": [list(p) for p in itertools.permutations(IDS, 2)],
    }
    if strategy in expected:
        assert orders == expected[strategy]
    if strategy in RANDOM_STRATEGIES:
        assert len(orders) == 4
    if strategy == "random-reverse":
        assert orders[1] == orders[0][::-1] and orders[3] == orders[2][::-1]


def test_generate_rejects_unknown_strategy_and_bad_count() -> None:
    with pytest.raises(UsageError, match=r"'shuffle'.*random-reverse"):
        generate("shuffle", [IDS], random.Random(0))
    with pytest.raises(UsageError, match="-1"):
        generate("random", [IDS], random.Random(0), count=-1)
