"""Orders for a change: every pair between a changed test and every other test, both ways.

A pull request that adds or edits tests can add an order dependency only through a pair
that involves one of its tests (a new polluter and an old victim, an edited state-setter
and its brittle, ...). Covering each such ordered pair *consecutively* (so no cleaner can
run in between) finds every such single-polluter victim and single-setter brittle, like
Tuscan (004 §5) does for all pairs, at a fraction of the cost.

:func:`changed_pair_orders` covers the required pairs R = {(c, u), (u, c) : c changed,
u any other test} directly. With the changed tests c_1..c_k and the others o_0..o_{m-1}
(both in a seeded shuffle), round r is the order

    o_r, c_1, o_{r+1}, c_2, o_{r+2}, ..., c_k, o_{r+k}        (indices mod m)

which covers (o_{r+i-1}, c_i) and (c_i, o_{r+i}); over the m rounds each c_i meets every
o before and after it. An order needs k+1 distinct others, so the changed tests go in
blocks of at most m-1 (with one other test, plain pairs). The pairs between two changed
tests come from a Tuscan square over them (:func:`orderdep.core.tuscan.tuscan_square`).
That is about m + k orders of at most 2k+1 tests: |R| / 2k orders for |R| pairs, the
least possible for orders that hold each test once. Orders ignore module and class
groups, like the ``pairs`` strategy.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from orderdep.core.tuscan import relabel, tuscan_square


def changed_pair_count(changed: Sequence[str], ids: Sequence[str]) -> int:
    """|R|: ordered pairs between a changed test and any other test."""
    c = len(set(changed) & set(ids))
    n = len(set(ids))
    return 2 * c * (n - 1) - c * (c - 1)  # pairs between two changed tests counted once


def changed_pair_orders(
    changed: Iterable[str], ids: Sequence[str], rng: random.Random
) -> list[list[str]]:
    """Orders covering every ordered pair between a changed test and another test."""
    everything = list(dict.fromkeys(ids))
    present = set(everything)
    mine = [t for t in dict.fromkeys(changed) if t in present]
    chosen = set(mine)
    others = [t for t in everything if t not in chosen]
    rng.shuffle(mine)
    rng.shuffle(others)
    m = len(others)
    orders: list[list[str]] = []
    if m == 1:
        for c in mine:
            orders += [[others[0], c], [c, others[0]]]
    elif m >= 2:
        size = m - 1
        for start in range(0, len(mine), size):
            block = mine[start : start + size]
            for r in range(m):
                order = [others[r]]
                for i, c in enumerate(block, start=1):
                    order += [c, others[(r + i) % m]]
                orders.append(order)
    if len(mine) > 1:
        square = relabel(tuscan_square(len(mine), shorter=True), rng)
        orders += [[mine[i] for i in row] for row in square]
    return orders
