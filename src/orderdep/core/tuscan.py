"""Tuscan squares and class-compatible orders that cover every consecutive test pair.

A Tuscan square of order n is n permutations of ``0..n-1`` in which every ordered pair
``(a, b)``, ``a != b``, is adjacent exactly once (Golomb and Taylor 1985; Wei et al. 2021,
004 §5). Running its rows as test orders runs every test right
after every other test, which is what exposes a victim of a single polluter (or a brittle
of a single state-setter). :func:`pair_cover` is Algorithm 1 of 004 §5: the same guarantee
for orders that keep each group (module or class) contiguous.

Constructions (Tillson 1980 for odd n; Walecki/Williams for even n):

* n = 1, and even n: translates of the zig-zag ``0, 1, n-1, 2, n-2, ...``;
* n = 4k+3 >= 7: Tillson's direct construction (cycles through a point at infinity,
  cut so that the dropped arcs form one more Hamiltonian path);
* n = 4k+1 >= 13: the doubling step T(h) -> T(2h-1), h = (n+1)/2;
* n = 9: a hand-made table invariant under x -> x+3 (mod 9);
* n = 3 and 5: no Tuscan square exists; n+1 orders are needed and used.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterable, Sequence

from orderdep.errors import UsageError

Square = tuple[tuple[int, ...], ...]

# n = 9 (4k+1 whose recursion would need the non-existent square of order 5): base rows,
# the square is these three plus their translates by 3 and 6 (mod 9).
_NINE_BASE = ((0, 1, 2, 3, 5, 7, 4, 8, 6), (1, 0, 3, 7, 5, 8, 4, 6, 2), (2, 8, 3, 0, 7, 1, 6, 5, 4))

# n+1 orders with every pair adjacent exactly once and the fewest executions, n(n-1)+n+1.
_SHORTER = {
    3: ((0, 1, 2), (1, 0, 2), (2, 0), (2, 1)),
    5: ((0, 1, 2, 3, 4), (0, 2, 1, 4, 3), (1, 0, 4, 2), (2, 0, 3, 1), (3, 2, 4, 0), (4, 1, 3, 0)),
}


def zigzag(n: int) -> list[int]:
    """The sequence ``0, 1, n-1, 2, n-2, ..., n//2``; for even n its steps are every
    non-zero residue mod n once (a directed terrace), so its n translates are a Tuscan square.
    """
    return [0] + [(j + 1) // 2 if j % 2 else n - j // 2 for j in range(1, n)]


def _translates(z: Sequence[int], n: int) -> Square:
    return tuple(tuple((x + i) % n for x in z) for i in range(n))


def _tillson(n: int) -> Square:
    """n = 4k+3 >= 7: Tillson's direct construction (Tillson 1980).

    Symbol N = n-1 is the point at infinity. The N cycles (inf, i + zig-zag of Z_N) decompose
    K*_n; cutting cycle i at a position p(i) (the index scheme of the iDFlakies
    implementation) leaves a Hamiltonian path per cycle, and the N cut-out arcs chain into
    one more Hamiltonian path from inf to 2, the last row.
    """
    k = (n - 3) // 4
    big_n = n - 1  # symbols 0..N-1 are Z_N, symbol N is the point at infinity
    inf = big_n
    z = zigzag(big_n)
    special = {0: 1, k + 1: big_n, 2 * k + 2: 3, 3 * k + 2: big_n - 2}
    rows: list[tuple[int, ...]] = []
    dropped: dict[int, int] = {}
    for i in range(big_n):
        cycle = [inf] + [(i + x) % big_n for x in z]
        p = special.get(i, 2 * k)
        rows.append(tuple(cycle[p:] + cycle[:p]))
        dropped[cycle[p - 1]] = cycle[p]
    # The arcs cut out of the N cycles form one Hamiltonian path from inf (Tillson).
    path = [inf]
    while path[-1] in dropped and len(path) < n:
        path.append(dropped[path[-1]])
    rows.append(tuple(path))
    return tuple(rows)


def _doubling(n: int) -> Square:
    """n = 4k+1 >= 13: T(h) -> T(2h-1) with h = (n+1)/2 (Tillson's recursive step).

    Works in K*_{2h}: lower symbols 0..h-1, upper x' = x+h, and (h-1)' = n is the point at
    infinity at which every Hamiltonian cycle is opened into a path. The h mirror cycles
    (a row of T(h), then its upper copy reversed) cover lower-lower and upper-upper arcs
    and every x -> x', x' -> x; the h-1 cross cycles, built from translates of the zig-zag
    of Z_{h-1} alternating between halves, cover the rest.
    """
    h = (n + 1) // 2
    inf = n
    rows: list[tuple[int, ...]] = []
    for a in _square(h):
        cycle = list(a) + [x + h for x in reversed(a)]
        at = cycle.index(inf)
        rows.append(tuple(cycle[at + 1 :] + cycle[:at]))
    m = h - 1
    v = zigzag(m)
    for i in range(m):
        w = [(i + x) % m for x in v]
        first = [x if j % 2 == 0 else x + h for j, x in enumerate(w)]
        second = [x + h if j % 2 == 0 else x for j, x in enumerate(w)]
        rows.append(tuple([*first, h - 1, *second]))  # the cycle minus its final inf
    return tuple(rows)


@functools.cache
def _square(n: int) -> Square:
    """The square of order n (full rows; n+1 rows for 3 and 5), cached for the recursion."""
    if n <= 0:
        return ()
    if n == 1:
        return ((0,),)
    if n % 2 == 0:
        return _translates(zigzag(n), n)
    if n in (3, 5):
        return tuple(tuple(x for x in row if x != n) for row in _square(n + 1))
    if n == 9:
        return tuple(tuple((x + 3 * j) % 9 for x in base) for j in range(3) for base in _NINE_BASE)
    if n % 4 == 3:
        return _tillson(n)
    return _doubling(n)


def tuscan_square(n: int, shorter: bool = False) -> list[list[int]]:
    """Rows over ``0..n-1`` in which every ordered pair of distinct symbols is adjacent.

    For every n except 3 and 5 these are n permutations, each pair adjacent exactly once, and
    every symbol is first in one row and last in one row. For n = 3 and 5 (where no Tuscan
    square exists) there are n+1 rows: full permutations (the square of order n+1 without
    symbol n), or with ``shorter=True`` shorter rows covering each pair exactly once with the
    fewest executions (10 and 26). ``shorter`` changes nothing for other n.
    """
    if n < 0:
        raise UsageError(f"a Tuscan square needs a non-negative order, got {n!r}")
    rows = _SHORTER[n] if shorter and n in _SHORTER else _square(n)
    return [list(row) for row in rows]


def relabel(square: Sequence[Sequence[int]], rng: random.Random) -> list[list[int]]:
    """A seeded variant that keeps every property of ``square``.

    Permutes the symbols, shuffles the rows, and reverses every row on a coin flip; each of
    these maps a Tuscan square to a Tuscan square.
    """
    symbols = sorted({x for row in square for x in row})
    image = list(symbols)
    rng.shuffle(image)
    mapping = dict(zip(symbols, image))
    rows = [[mapping[x] for x in row] for row in square]
    rng.shuffle(rows)
    if rng.random() < 0.5:
        rows = [row[::-1] for row in rows]
    return rows


def covered_pairs(orders: Iterable[Sequence[str]]) -> set[tuple[str, str]]:
    """Every ordered pair ``(a, b)`` that runs consecutively (b right after a) in some order."""
    return {(a, b) for order in orders for a, b in zip(order, order[1:])}


def _check_groups(groups: Sequence[Sequence[str]]) -> list[list[str]]:
    seen: set[str] = set()
    out: list[list[str]] = []
    for group in groups:
        for test in group:
            if test in seen:
                raise UsageError(
                    f"test {test!r} occurs twice in the groups; every test must belong to "
                    "exactly one group (pass each test once)"
                )
            seen.add(test)
        if group:
            out.append(list(group))
    return out


def cover_intra_class_pairs(
    groups: Sequence[Sequence[str]], rng: random.Random, shorter: bool = True
) -> list[list[str]]:
    """Phase 1 of Algorithm 1 (004 §5): orders covering every pair inside each group.

    Each group gets a relabeled Tuscan square of its tests (``shorter`` rows for groups of
    3 and 5). Order r concatenates, in a random block order, the r-th (random) row of every
    group that has one; so there are max over groups of its row count orders. Special case
    of the paper: when every group holds one test, the groups themselves are the symbols of
    one Tuscan square, which covers all pairs with the fewest orders.
    """
    groups = _check_groups(groups)
    if groups and all(len(g) == 1 for g in groups):
        groups = [[g[0] for g in groups]]
    squares: list[list[list[str]]] = []
    for group in groups:
        rows = relabel(tuscan_square(len(group), shorter=shorter), rng)
        squares.append([[group[x] for x in row] for row in rows])
    orders: list[list[str]] = []
    for r in range(max((len(s) for s in squares), default=0)):
        blocks = [s[r] for s in squares if r < len(s)]
        rng.shuffle(blocks)
        orders.append([test for block in blocks for test in block])
    return orders


def cover_inter_class_pairs(
    groups: Sequence[Sequence[str]], covered: Iterable[Sequence[str]], rng: random.Random
) -> list[list[str]]:
    """Phase 2 of Algorithm 1 (004 §5): greedy orders for the inter-group pairs still uncovered.

    Each order starts with a uniformly random uncovered pair ``(a, b)`` and is extended with
    a random test z such that (last, z) is uncovered and z's group is not yet in the order,
    as long as one exists. Every order holds one test per group (so it is group-compatible)
    and covers only new pairs. ``covered`` are the orders already run (phase 1).
    """
    groups = _check_groups(groups)
    tests = [t for g in groups for t in g]
    index = {t: i for i, t in enumerate(tests)}
    group_of = [gi for gi, g in enumerate(groups) for _ in g]
    done = {(index[a], index[b]) for a, b in covered_pairs(covered) if a in index and b in index}
    # successors still to cover, as insertion-ordered dicts so that the seed alone decides
    succ: list[dict[int, None]] = [
        {b: None for b in range(len(tests)) if group_of[b] != group_of[a] and (a, b) not in done}
        for a in range(len(tests))
    ]
    left = sum(len(s) for s in succ)
    orders: list[list[str]] = []
    while left:
        pick = rng.randrange(left)  # uniform over the uncovered pairs
        a = 0
        while pick >= len(succ[a]):
            pick -= len(succ[a])
            a += 1
        b = list(succ[a])[pick]
        del succ[a][b]
        left -= 1
        order = [a, b]
        used = {group_of[a], group_of[b]}
        while True:
            last = order[-1]
            options = [z for z in succ[last] if group_of[z] not in used]
            if not options:
                break
            z = rng.choice(options)
            del succ[last][z]
            left -= 1
            order.append(z)
            used.add(group_of[z])
        orders.append([tests[i] for i in order])
    return orders


def pair_cover(
    groups: Sequence[Sequence[str]], rng: random.Random, shorter: bool = True
) -> list[list[str]]:
    """Algorithm 1 of 004 §5: group-compatible orders covering every ordered pair of tests.

    No order repeats a test or interleaves groups; phase 1 (:func:`cover_intra_class_pairs`)
    is followed by phase 2 (:func:`cover_inter_class_pairs`). With no group of 3 or 5 tests
    every ordered pair is covered exactly once. All choices come from ``rng``.
    """
    intra = cover_intra_class_pairs(groups, rng, shorter=shorter)
    return intra + cover_inter_class_pairs(groups, intra, rng)


def order_lower_bound(sizes: Sequence[int]) -> int:
    """A lower bound on the number of group-compatible orders covering all ordered pairs.

    ``sizes`` are the group sizes. One group of n >= 2 tests: n (n+1 for 3 and 5). Several
    groups: the largest of |C| for each group (an order covers at most |C|-1 of its
    |C|(|C|-1) inner pairs), |C|(N-|C|) (only the test ending C's block is followed by a test
    outside C), and ceil((N^2 - sum |C|^2) / (k-1)) (an order covers at most k-1 inter pairs).
    """
    sizes = [s for s in sizes if s > 0]
    if len(sizes) <= 1:
        n = sum(sizes)
        return 0 if n <= 1 else n + (1 if n in (3, 5) else 0)
    total, k = sum(sizes), len(sizes)
    inter = total * total - sum(s * s for s in sizes)
    bounds = [s for s in sizes if s >= 2]
    bounds += [s * (total - s) for s in sizes]
    bounds.append(math.ceil(inter / (k - 1)))
    return max(bounds)
