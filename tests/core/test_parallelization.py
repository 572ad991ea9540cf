from __future__ import annotations

import random
from collections import Counter

import pytest

from orderdep.core.depsfile import Dependency
from orderdep.core.enhance import enhance_order, enhance_parallel
from orderdep.core.order_check import check_order
from orderdep.core.parallelization import (
    ALGORITHMS,
    by_duration,
    by_test_id,
    dependency_groups,
    makespan,
    parallelize_groups,
    run_algorithm,
)
from orderdep.errors import UsageError


def pos(test: str, dependee: str) -> Dependency:
    return Dependency(test, "positive", dependee)


def neg(test: str, dependee: str) -> Dependency:
    return Dependency(test, "negative", dependee)


# --- P1 and P2 ------------------------------------------------------------------------------


def test_p1_deals_tests_round_robin_in_original_order() -> None:
    tests = ["t0", "t1", "t2", "t3", "t4"]
    assert by_test_id(tests, 2) == [["t0", "t2", "t4"], ["t1", "t3"]]
    assert by_test_id(tests, 3) == [["t0", "t3"], ["t1", "t4"], ["t2"]]
    assert by_test_id(["a"], 3) == [["a"], [], []]


def test_p2_longest_first_onto_the_earliest_free_machine() -> None:
    tests = ["a", "b", "c", "d", "e"]
    durations = {"a": 1.0, "b": 4.0, "c": 3.0, "d": 3.0, "e": 2.0}
    # ranked b4, c3, d3 (tie: original order), e2, a1
    # b->M0 (4); c->M1 (3); d->M1 (6); e->M0 (6); a: tie at 6 -> M0 (7)
    assert by_duration(tests, durations, 2) == [["b", "e", "a"], ["c", "d"]]
    assert makespan([["b", "e", "a"], ["c", "d"]], durations) == 7.0


def test_p2_missing_durations_default_to_the_mean() -> None:
    durations = {"a": 1.0, "b": 3.0}  # mean 2.0 for "c"
    assert by_duration(["a", "b", "c"], durations, 2) == [["b"], ["c", "a"]]
    assert by_duration(["a", "b", "c"], durations, 2, default_duration=0.0) == [["b"], ["a", "c"]]
    assert makespan([["c"]], durations) == 2.0
    assert makespan([], {}) == 0.0


def test_run_algorithm_and_table_3() -> None:
    assert sorted(ALGORITHMS) == ["P1", "P2"]
    assert run_algorithm("p1", ["a", "b"], 2) == [["a"], ["b"]]
    assert run_algorithm("P2", ["a", "b"], 1, {"a": 1, "b": 2}) == [["b", "a"]]


def test_bad_inputs_say_what_to_do() -> None:
    with pytest.raises(UsageError, match="positive integer, got 0"):
        by_test_id(["a"], 0)
    with pytest.raises(UsageError, match="non-negative number of seconds, got -1"):
        by_duration(["a"], {"a": -1}, 2)
    with pytest.raises(UsageError, match="durations="):
        run_algorithm("P2", ["a"], 2)
    with pytest.raises(UsageError, match="'P3'"):
        run_algorithm("P3", ["a"], 2)


# --- dependency groups ------------------------------------------------------------------------


def test_groups_are_connected_components_with_needed_dependees() -> None:
    orig = ["s", "a", "b", "v", "p", "x", "y"]
    deps = [pos("a", "s"), pos("b", "s"), neg("v", "p")]
    # selection of a, v, p, x: s is pulled in for a; b is not selected
    assert dependency_groups(["x", "a", "p", "v"], deps, all_tests=orig) == [
        ["x"],
        ["s", "a"],
        ["v", "p"],
    ]
    assert dependency_groups(orig, deps) == [["s", "a", "b"], ["v", "p"], ["x"], ["y"]]


def test_a_chosen_alternative_joins_the_group_the_others_do_not() -> None:
    deps = [pos("b", "s1"), pos("b", "s2")]
    assert dependency_groups(["s1", "s2", "b"], deps) == [["s1", "b"], ["s2"]]
    assert dependency_groups(["s2", "b", "s1"], deps) == [["s2", "b"], ["s1"]]


# --- groups vs P2 -----------------------------------------------------------------------------


def test_groups_beat_enhanced_p2_when_a_dependee_is_expensive() -> None:
    # s is a 10 s setup four 1 s tests need; x, y, z, w are independent 3 s tests.
    tests = ["s", "a", "b", "c", "d", "x", "y", "z", "w"]
    durations = {"s": 10, "a": 1, "b": 1, "c": 1, "d": 1, "x": 3, "y": 3, "z": 3, "w": 3}
    deps = [pos(t, "s") for t in "abcd"]
    p2 = by_duration(tests, durations, 2)
    # s->M0 10; x,y,z,w->M1 3,6,9,12; a,b->M0 11,12; c tie 12->M0 13; d->M1 13
    assert p2 == [["s", "a", "b", "c"], ["x", "y", "z", "w", "d"]]
    assert makespan(p2, durations) == 13
    assert check_order(p2[1], deps)  # d runs without s: an OD-test failure
    enhanced = enhance_parallel(p2, deps, tests)
    assert enhanced[1] == ["x", "y", "z", "w", "s", "d"]  # s runs twice
    assert makespan(enhanced, durations) == 23

    grouped = parallelize_groups(tests, deps, durations, 2)
    assert grouped == [["s", "a", "b", "c", "d"], ["x", "y", "z", "w"]]
    assert makespan(grouped, durations) == 14


def test_enhanced_p2_beats_groups_when_one_group_dominates() -> None:
    # s is a 1 s setup six 5 s tests need: the group cannot be split.
    tests = ["s", "a", "b", "c", "d", "e", "f"]
    durations = {"s": 1, **dict.fromkeys("abcdef", 5)}
    deps = [pos(t, "s") for t in "abcdef"]
    p2 = by_duration(tests, durations, 2)
    assert p2 == [["a", "c", "e", "s"], ["b", "d", "f"]]
    enhanced = enhance_parallel(p2, deps, tests)
    assert enhanced == [["s", "a", "c", "e"], ["s", "b", "d", "f"]]
    assert makespan(enhanced, durations) == 16
    grouped = parallelize_groups(tests, deps, durations, 2)
    assert grouped == [tests, []]
    assert makespan(grouped, durations) == 31


def _random_case(
    rng: random.Random,
) -> tuple[list[str], list[Dependency], list[str], dict[str, float], int]:
    """Linearisable dependencies over t0..tn-1, a random subset to schedule, durations."""
    n = rng.randint(1, 14)
    tests = [f"t{i}" for i in range(n)]
    deps: list[Dependency] = []
    for j in range(1, n):
        for _ in range(rng.choice([0, 0, 1, 2])):
            deps.append(pos(tests[j], tests[rng.randrange(j)]))
        if j >= 2 and rng.random() < 0.2:
            members = tuple(tests[m] for m in sorted(rng.sample(range(j), 2)))
            deps += [Dependency(tests[j], "positive", m, members) for m in members]
    positive = {(d.test, d.dependee) for d in deps}
    for i in range(n - 1):
        if rng.random() < 0.3:
            polluter = tests[rng.randrange(i + 1, n)]
            if (tests[i], polluter) not in positive:
                deps.append(neg(tests[i], polluter))
    subset = rng.sample(tests, rng.randint(1, n))
    durations = {t: float(rng.randint(0, 9)) for t in tests if rng.random() < 0.9}
    return tests, deps, subset, durations, rng.randint(1, 4)


@pytest.mark.parametrize("seed", range(150))
def test_grouped_schedules_satisfy_every_dependency_without_duplicates(seed: int) -> None:
    tests, deps, subset, durations, k = _random_case(random.Random(seed))
    machines = parallelize_groups(subset, deps, durations, k, all_tests=tests)
    assert len(machines) == k
    counts = Counter(t for m in machines for t in m)
    assert set(counts.values()) <= {1}  # nothing runs twice
    enhanced = enhance_order(subset, deps, all_tests=tests)
    assert set(counts) == set(enhanced)  # the subset plus exactly the dependees it needs
    for m in machines:
        assert check_order(m, deps) == []
        # each machine keeps the enhanced relative order
        assert m == [t for t in enhanced if t in set(m)]
    groups = dependency_groups(subset, deps, all_tests=tests)
    for g in groups:
        assert len({i for i, m in enumerate(machines) if set(g) & set(m)}) == 1
    # LPT bounds: no better than the biggest group or the average load
    span = makespan(machines, durations)
    mean = sum(durations.values()) / len(durations) if durations else 0.0
    weight = [sum(durations.get(t, mean) for t in g) for g in groups]
    assert span >= max(weight) - 1e-9
    assert span >= sum(weight) / k - 1e-9
    assert span <= sum(weight) / k + max(weight) + 1e-9


@pytest.mark.parametrize("seed", range(60))
def test_enhanced_p1_and_p2_satisfy_dependencies_per_machine(seed: int) -> None:
    tests, deps, subset, durations, k = _random_case(random.Random(1000 + seed))
    for machines in (by_test_id(subset, k), by_duration(subset, durations, k)):
        assert sorted(t for m in machines for t in m) == sorted(subset)
        for m in enhance_parallel(machines, deps, tests):
            assert check_order(m, deps) == []
