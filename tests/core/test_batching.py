"""Batches of short orders for a cluster (pure)."""

from __future__ import annotations

from orderdep.core.batching import MAX_BATCH, SHORT, TASKS_PER_SLOT, batches


def test_few_orders_stay_one_per_task() -> None:
    assert batches([2, 2, 2], slots=2) == [[0], [1], [2]]
    assert batches([], slots=4) == []


def test_many_short_orders_share_tasks_and_every_order_is_in_one() -> None:
    lengths = [2] * 400
    got = batches(lengths, slots=2)
    assert sorted(i for b in got for i in b) == list(range(400))
    assert len(got) >= 2 * TASKS_PER_SLOT and all(len(b) <= MAX_BATCH for b in got)
    assert len(got) < 400 / 10  # far fewer dispatches
    assert all(b == sorted(b) for b in got)


def test_long_orders_run_alone_and_tasks_keep_the_input_order() -> None:
    lengths = [SHORT + 1, 2, 2, 500, *([1] * 64)]
    got = batches(lengths, slots=1)
    assert [0] in got and [3] in got
    assert [b[0] for b in got] == sorted(b[0] for b in got)
    assert sorted(i for b in got for i in b) == list(range(len(lengths)))
