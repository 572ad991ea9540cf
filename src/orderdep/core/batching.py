"""Batches of short orders for a cluster: one task per batch, not per order.

On a Dask cluster an order costs a task's dispatch (a few milliseconds) on top of its
tests; a two-test order that takes 10 ms then spends a third of its time being sent.
:func:`batches` puts short orders (at most :data:`SHORT` tests) into batches of several
orders, one task each, while keeping at least :data:`TASKS_PER_SLOT` tasks per worker
thread so that no worker idles while another works through a long batch. Long orders
stay one per task. Pure: indices in, indices out, in input order within a batch.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Orders of at most this many tests are batched.
SHORT = 20
#: Orders in one batch, at most.
MAX_BATCH = 32
#: Tasks kept per worker thread, at least, while there are orders enough.
TASKS_PER_SLOT = 4


def batches(lengths: Sequence[int], slots: int) -> list[list[int]]:
    """The indices of orders of ``lengths`` grouped into tasks for ``slots`` worker
    threads: each long order alone, short ones in batches of up to :data:`MAX_BATCH`."""
    short = [i for i, n in enumerate(lengths) if n <= SHORT]
    out = [[i] for i, n in enumerate(lengths) if n > SHORT]
    if not short:
        return out
    per = max(1, min(MAX_BATCH, len(short) // max(1, slots * TASKS_PER_SLOT)))
    out += [short[k : k + per] for k in range(0, len(short), per)]
    return sorted(out, key=lambda batch: batch[0])
