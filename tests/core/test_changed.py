"""Orders for a change: every ordered pair between a changed test and any other test."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orderdep.core.changed import changed_pair_count, changed_pair_orders
from orderdep.core.tuscan import covered_pairs


def _required(changed: list[str], ids: list[str]) -> set[tuple[str, str]]:
    return {p for c in changed for u in ids if u != c for p in ((c, u), (u, c))}


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), k=st.integers(0, 40), seed=st.integers(0, 10**6))
def test_every_required_pair_is_adjacent_once_per_order(n: int, k: int, seed: int) -> None:
    ids = [f"t.py::test_{i}" for i in range(n)]
    changed = random.Random(seed).sample(ids, min(k, n))
    orders = changed_pair_orders(changed, ids, random.Random(seed))
    assert _required(changed, ids) <= covered_pairs(orders)
    assert all(len(o) == len(set(o)) >= 2 for o in orders)  # no test twice in an order
    assert changed_pair_count(changed, ids) == len(_required(changed, ids))
    m = n - len(changed)
    if m >= 2 and changed:
        # m rounds per block of at most m-1 changed tests, plus the changed tests' square.
        blocks = -(-len(changed) // (m - 1))
        assert len(orders) <= m * blocks + len(changed) + 1


def test_few_orders_for_a_pull_request_sized_change() -> None:
    ids = [f"tests/test_{i // 10}.py::test_{i}" for i in range(500)]
    changed = ids[100:103]
    orders = changed_pair_orders(changed, ids, random.Random(1))
    # One round per other test, then the changed tests' pairs: 4 short rows (no Tuscan
    # square of order 3 exists).
    assert len(orders) == 497 + 4
    assert max(len(o) for o in orders) == 7  # o, c, o, c, o, c, o
    assert changed_pair_count(changed, ids) == 2 * 3 * 497 + 3 * 2


def test_one_seed_one_set_of_orders_and_unknown_ids_are_ignored() -> None:
    ids = [f"t.py::test_{i}" for i in range(12)]
    one = changed_pair_orders([ids[3], "gone.py::test_x"], ids, random.Random(5))
    assert one == changed_pair_orders([ids[3]], ids, random.Random(5))
    assert one != changed_pair_orders([ids[3]], ids, random.Random(6))


@pytest.mark.parametrize(("n", "changed"), [(1, 1), (5, 0), (0, 0)])
def test_nothing_to_pair(n: int, changed: int) -> None:
    ids = [f"t.py::test_{i}" for i in range(n)]
    assert changed_pair_orders(ids[:changed], ids, random.Random(0)) == []
