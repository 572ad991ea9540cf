from __future__ import annotations

import random
from collections.abc import Hashable, Mapping
from collections.abc import Set as AbstractSet

import pytest

from orderdep.core.prioritization import (
    ALGORITHMS,
    additional_order,
    prioritize,
    run_algorithm,
    total_order,
)
from orderdep.errors import UsageError


def lines(*numbers: int, file: str = "m.py") -> frozenset[Hashable]:
    return frozenset((file, n) for n in numbers)


# a, b, c, d in original order; b covers most, c and d tie on additional coverage.
TESTS = ["a", "b", "c", "d", "e"]
COV = {
    "a": lines(1, 2),
    "b": lines(1, 2, 3),
    "c": lines(4),
    "d": lines(3, 4),
    # "e" has no coverage entry at all
}


def test_total_orders_by_size_ties_by_original_position() -> None:
    # sizes: a=2, b=3, c=1, d=2, e=0 -> b, then a before d (original order), c, e
    assert total_order(TESTS, COV) == ["b", "a", "d", "c", "e"]


def test_additional_resets_when_nothing_new_is_covered() -> None:
    # b adds {1,2,3}; then c and d both add {4} -> c (earlier); a and d add nothing ->
    # reset: a and d both cover 2 -> a; then d adds {3,4} -> d; e covers nothing -> last.
    assert additional_order(TESTS, COV) == ["b", "c", "a", "d", "e"]


def test_additional_differs_from_total_when_coverage_overlaps() -> None:
    cov = {"x": lines(1, 2, 3), "y": lines(1, 2), "z": lines(9)}
    assert total_order(["x", "y", "z"], cov) == ["x", "y", "z"]
    assert additional_order(["x", "y", "z"], cov) == ["x", "z", "y"]


def test_ties_follow_the_original_order_not_the_id_text() -> None:
    cov = {"z": lines(1), "a": lines(2)}
    assert total_order(["z", "a"], cov) == ["z", "a"]
    assert additional_order(["z", "a"], cov) == ["z", "a"]


def test_function_elements_work_the_same_way() -> None:
    cov = {
        "t1": frozenset({("m.py", "f")}),
        "t2": frozenset({("m.py", "f"), ("m.py", "g")}),
        "t3": frozenset({("n.py", "h")}),
    }
    assert run_algorithm("T3", ["t1", "t2", "t3"], function_coverage=cov) == ["t2", "t1", "t3"]
    assert run_algorithm("t4", ["t1", "t2", "t3"], function_coverage=cov) == ["t2", "t3", "t1"]


def test_table_1_rows() -> None:
    assert {k: (a.granularity, a.ordering) for k, a in ALGORITHMS.items()} == {
        "T1": ("statement", "total"),
        "T2": ("statement", "additional"),
        "T3": ("function", "total"),
        "T4": ("function", "additional"),
    }


def test_run_algorithm_picks_the_coverage_of_its_granularity() -> None:
    stmt = {"a": lines(1), "b": lines(1, 2)}
    func = {"a": frozenset({("m.py", "f"), ("m.py", "g")}), "b": frozenset({("m.py", "f")})}
    assert run_algorithm("T1", ["a", "b"], stmt, func) == ["b", "a"]
    assert run_algorithm("T3", ["a", "b"], stmt, func) == ["a", "b"]


def test_errors_say_what_to_do() -> None:
    with pytest.raises(UsageError, match="function_coverage="):
        run_algorithm("T4", ["a"], statement_coverage={"a": lines(1)})
    with pytest.raises(UsageError, match="'T9'"):
        run_algorithm("T9", ["a"])
    with pytest.raises(UsageError, match="duplicate ids \\['a'\\]"):
        total_order(["a", "b", "a"], {})
    with pytest.raises(UsageError, match="'most'"):
        prioritize(["a"], {}, "most")  # type: ignore[arg-type]


def _naive_additional(tests: list[str], cov: Mapping[str, AbstractSet[Hashable]]) -> list[str]:
    """Straightforward O(n^2) statement of the greedy, as a reference."""
    remaining = list(tests)
    out: list[str] = []
    covered: set[Hashable] = set()
    while remaining:
        gains = [len(cov.get(t, frozenset()) - covered) for t in remaining]
        best = max(gains)
        if best == 0:
            if not covered:
                out.extend(remaining)
                break
            covered = set()
            continue
        pick = remaining[gains.index(best)]
        out.append(pick)
        remaining.remove(pick)
        covered |= cov.get(pick, frozenset())
    return out


@pytest.mark.parametrize("seed", range(40))
def test_lazy_greedy_matches_the_naive_greedy(seed: int) -> None:
    rng = random.Random(seed)
    tests = [f"t{i}" for i in range(rng.randint(1, 25))]
    rng.shuffle(tests)
    universe = rng.randint(1, 15)
    cov: dict[str, AbstractSet[Hashable]] = {
        t: lines(*rng.sample(range(universe), rng.randint(0, min(universe, 6))))
        for t in tests
        if rng.random() < 0.9
    }
    got = additional_order(tests, cov)
    assert got == _naive_additional(tests, cov)
    assert sorted(got) == sorted(tests)
