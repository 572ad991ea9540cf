"""Tuscan squares (Tillson 1980) and Algorithm 1 of 004 §5."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest

from orderdep.core.tuscan import (
    cover_inter_class_pairs,
    cover_intra_class_pairs,
    covered_pairs,
    order_lower_bound,
    pair_cover,
    relabel,
    tuscan_square,
    zigzag,
)
from orderdep.errors import UsageError

REFERENCE = {
    3: """
        0 1 2
        1 2 0
        2 1 0
        0 2 1""",
    4: """
        0 1 3 2
        1 2 0 3
        2 3 1 0
        3 0 2 1""",
    5: """
        0 1 2 4 3
        1 2 0 3 4
        2 3 1 4 0
        3 4 2 1 0
        4 3 0 2 1
        0 4 1 3 2""",
    7: """
        0 1 5 2 4 3 6
        2 0 3 5 4 6 1
        5 6 2 3 1 4 0
        4 2 5 1 0 6 3
        3 0 2 1 6 4 5
        1 3 2 6 5 0 4
        6 0 5 3 4 1 2""",
    9: """
        0 1 2 3 5 7 4 8 6
        1 0 3 7 5 8 4 6 2
        2 8 3 0 7 1 6 5 4
        3 4 5 6 8 1 7 2 0
        4 3 6 1 8 2 7 0 5
        5 2 6 3 1 4 0 8 7
        6 7 8 0 2 4 1 5 3
        7 6 0 4 2 5 1 3 8
        8 5 0 6 4 7 3 2 1""",
    11: """
        0 1 9 2 8 3 7 4 6 5 10
        3 9 4 8 5 7 6 10 1 2 0
        4 0 5 9 6 8 7 10 2 3 1
        8 10 3 4 2 5 1 6 0 7 9
        6 2 7 1 8 0 9 10 4 5 3
        7 3 8 2 9 1 0 10 5 6 4
        5 8 4 9 3 0 2 1 10 6 7
        9 5 0 4 1 3 2 10 7 8 6
        2 4 3 10 8 9 7 0 6 1 5
        1 7 2 6 3 5 4 10 9 0 8
        10 0 3 6 9 8 1 4 7 5 2""",
    13: """
        10 11 9 12 8 7 0 1 5 2 4 3 6
        11 12 10 7 9 2 0 3 5 4 6 1 8
        12 5 6 2 3 1 4 0 7 11 8 10 9
        7 8 12 9 11 4 2 5 1 0 6 3 10
        8 9 7 10 3 0 2 1 6 4 5 12 11
        9 10 8 1 3 2 6 5 0 4 11 7 12
        6 0 5 3 4 1 2 9 8 11 10 12 7
        0 8 5 9 4 10 6 7 1 12 2 11 3
        1 9 0 10 5 11 6 8 2 7 3 12 4
        2 10 1 11 0 12 6 9 3 8 4 7 5
        3 11 2 12 1 7 6 10 4 9 5 8 0
        4 12 3 7 2 8 6 11 5 10 0 9 1
        5 7 4 8 3 9 6 12 0 11 1 10 2""",
}

SHORTER_REFERENCE = {
    3: """
        0 1 2
        1 0 2
        2 0
        2 1""",
    5: """
        0 1 2 3 4
        0 2 1 4 3
        1 0 4 2
        2 0 3 1
        3 2 4 0
        4 1 3 0""",
}


def parse(table: str) -> list[list[int]]:
    return [[int(x) for x in line.split()] for line in table.strip().splitlines()]


def check_square(n: int, rows: Sequence[Sequence[int]], shorter: bool = False) -> None:
    """Every property of a Tuscan square of order n (n+1 rows for 3 and 5)."""
    odd_one = n in (3, 5)
    assert len(rows) == (n + 1 if odd_one else n), n
    full = set(range(n))
    adjacent = [a * n + b for row in rows for a, b in zip(row, row[1:])]
    if shorter and odd_one:
        assert all(len(row) >= 2 and len(set(row)) == len(row) <= n for row in rows)
        assert set().union(*map(set, rows)) <= full
        assert sum(map(len, rows)) == n * (n - 1) + n + 1
    else:
        assert all(len(row) == n and set(row) == full for row in rows), n
    codes = set(adjacent)
    assert not any(c // n == c % n for c in codes), n
    assert len(codes) == n * (n - 1), n  # every ordered pair adjacent
    if not odd_one or shorter:
        assert len(adjacent) == n * (n - 1), n  # ... exactly once
    if not odd_one:
        assert {row[0] for row in rows} == full, n
        assert {row[-1] for row in rows} == full, n


def test_every_order_from_1_to_300() -> None:
    for n in range(1, 301):
        check_square(n, tuscan_square(n))


@pytest.mark.parametrize("n", [3, 5])
def test_shorter_orders_for_3_and_5(n: int) -> None:
    rows = tuscan_square(n, shorter=True)
    check_square(n, rows, shorter=True)
    assert rows == parse(SHORTER_REFERENCE[n])
    assert tuscan_square(n + 1, shorter=True) == tuscan_square(n + 1)
    assert tuscan_square(7, shorter=True) == tuscan_square(7)


@pytest.mark.parametrize("n", sorted(REFERENCE))
def test_reference_tables(n: int) -> None:
    assert tuscan_square(n) == parse(REFERENCE[n])


def test_small_orders() -> None:
    assert tuscan_square(0) == []
    assert tuscan_square(1) == [[0]]
    assert tuscan_square(2) == [[0, 1], [1, 0]]
    with pytest.raises(UsageError, match="-1"):
        tuscan_square(-1)


@pytest.mark.parametrize("n", range(2, 41, 2))
def test_zigzag_steps_are_every_nonzero_residue(n: int) -> None:
    z = zigzag(n)
    steps = [(b - a) % n for a, b in zip(z, z[1:])]
    assert sorted(steps) == list(range(1, n))


@pytest.mark.parametrize("n", [7, 11, 15, 19, 23, 43, 99, 299])
def test_tillson_extra_row_runs_from_infinity_to_2(n: int) -> None:
    last = tuscan_square(n)[-1]
    assert (last[0], last[-1]) == (n - 1, 2)


def test_nine_is_invariant_under_adding_3() -> None:
    rows = tuscan_square(9)
    shifted = {tuple((x + 3) % 9 for x in row) for row in rows}
    assert shifted == {tuple(row) for row in rows}


def test_result_is_a_fresh_copy() -> None:
    rows = tuscan_square(6)
    rows[0][0] = 99
    assert tuscan_square(6)[0][0] == 0


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 9, 12, 13, 17, 25])
def test_relabel_keeps_properties_and_is_seeded(n: int, seed: int) -> None:
    for shorter in (False, True):
        square = tuscan_square(n, shorter=shorter)
        varied = relabel(square, random.Random(seed))
        check_square(n, varied, shorter=shorter)
        assert varied == relabel(square, random.Random(seed))
    if n >= 4:
        assert relabel(square, random.Random(seed)) != square or seed > 0


def test_relabel_gives_variety() -> None:
    square = tuscan_square(8)
    assert len({str(relabel(square, random.Random(s))) for s in range(10)}) == 10


def test_covered_pairs() -> None:
    assert covered_pairs([["a", "b", "c"], ["c", "a"], ["d"]]) == {
        ("a", "b"),
        ("b", "c"),
        ("c", "a"),
    }
    assert covered_pairs([]) == set()


def random_groups(rng: random.Random, avoid_3_5: bool = False) -> list[list[str]]:
    sizes = [rng.randint(1, 12) for _ in range(rng.randint(1, 6))]
    if avoid_3_5:
        sizes = [s + 1 if s in (3, 5) else s for s in sizes]
    return [[f"m{g}.py::t{i}" for i in range(size)] for g, size in enumerate(sizes)]


def check_cover(groups: list[list[str]], orders: list[list[str]]) -> Counter[tuple[str, str]]:
    group_of = {t: g for g, tests in enumerate(groups) for t in tests}
    for order in orders:
        assert len(set(order)) == len(order), order
        blocks = [group_of[t] for t in order]
        runs = [g for i, g in enumerate(blocks) if i == 0 or blocks[i - 1] != g]
        assert len(runs) == len(set(runs)), order  # no group interleaved
    tests = list(group_of)
    counts = Counter(p for o in orders for p in zip(o, o[1:]))
    assert set(counts) == {(a, b) for a in tests for b in tests if a != b}
    return counts


def square_rows(size: int) -> int:
    return len(tuscan_square(size))


@pytest.mark.parametrize("seed", range(40))
def test_pair_cover_on_random_group_structures(seed: int) -> None:
    rng = random.Random(seed)
    groups = random_groups(rng)
    sizes = [len(g) for g in groups]
    orders = pair_cover(groups, random.Random(seed))
    counts = check_cover(groups, orders)
    assert len(orders) >= order_lower_bound(sizes)
    intra = cover_intra_class_pairs(groups, random.Random(seed))
    expected = square_rows(len(groups)) if max(sizes) == 1 else max(map(square_rows, sizes))
    assert len(intra) == expected
    assert orders[: len(intra)] == intra
    n = sum(sizes)
    executions = sum(map(len, orders))
    assert executions >= n * (n - 1) + len(orders)
    if not {3, 5} & set(sizes) and not (max(sizes) == 1 and len(groups) in (3, 5)):
        assert set(counts.values()) <= {1}
        assert executions == n * (n - 1) + len(orders)


@pytest.mark.parametrize("seed", range(20))
def test_pair_cover_exactly_once_without_3_or_5(seed: int) -> None:
    groups = random_groups(random.Random(1000 + seed), avoid_3_5=True)
    counts = check_cover(groups, pair_cover(groups, random.Random(seed)))
    assert max(counts.values(), default=1) == 1


def test_pair_cover_is_seeded() -> None:
    groups = random_groups(random.Random(7))
    assert pair_cover(groups, random.Random(3)) == pair_cover(groups, random.Random(3))
    assert pair_cover(groups, random.Random(3)) != pair_cover(groups, random.Random(4))


def test_pair_cover_special_cases() -> None:
    one = [[f"t{i}" for i in range(6)]]
    assert len(pair_cover(one, random.Random(0))) == 6
    singles = [[f"m{i}::t"] for i in range(8)]
    orders = pair_cover(singles, random.Random(0))
    check_cover(singles, orders)
    assert len(orders) == 8 == order_lower_bound([1] * 8)
    three = [["a"], ["b"], ["c"]]
    assert len(check_cover(three, pair_cover(three, random.Random(0)))) == 6
    assert pair_cover([], random.Random(0)) == []
    assert pair_cover([["only"]], random.Random(0)) == [["only"]]
    assert pair_cover([[], ["a", "b"]], random.Random(0)) in (
        [["a", "b"], ["b", "a"]],
        [["b", "a"], ["a", "b"]],
    )


def test_shorter_orders_save_executions() -> None:
    groups = [["a", "b", "c"], ["d", "e", "f", "g", "h"]]
    short = pair_cover(groups, random.Random(1))
    full = pair_cover(groups, random.Random(1), shorter=False)
    check_cover(groups, short)
    check_cover(groups, full)
    assert len(cover_intra_class_pairs(groups, random.Random(1))) == 6


def test_inter_phase_covers_only_new_pairs() -> None:
    groups = [["a", "b"], ["c", "d", "e", "f"], ["g"]]
    rng = random.Random(5)
    intra = cover_intra_class_pairs(groups, rng)
    inter = cover_inter_class_pairs(groups, intra, rng)
    assert not covered_pairs(intra) & covered_pairs(inter)
    assert all(len(o) <= len(groups) for o in inter)


def test_duplicate_test_is_rejected() -> None:
    with pytest.raises(UsageError, match="'a'"):
        pair_cover([["a", "b"], ["a"]], random.Random(0))


def test_lower_bounds() -> None:
    assert order_lower_bound([]) == 0
    assert order_lower_bound([1]) == 0
    assert order_lower_bound([4]) == 4
    assert order_lower_bound([3]) == 4
    assert order_lower_bound([5, 0]) == 6
    # 10 tests in groups 2, 3, 5: inter pairs 100 - 38 = 62 over k-1 = 2 -> 31;
    # |C|(N-|C|) = 16, 21, 25.
    assert order_lower_bound([2, 3, 5]) == 31
    # N = 11: 9 * 2 = 18 pairs out of the big group; (121 - 83) / 2 = 19 inter pairs per order
    assert order_lower_bound([1, 1, 9]) == 19
