"""The evaluation of 002 §4 on a simulated suite (ModelExecutor): unenhanced orders of
every algorithm break planted dependencies, enhanced ones do not."""

from __future__ import annotations

import random

import pytest

from orderdep.analysis.regression.coverage import CoverageData
from orderdep.analysis.regression.evaluate import (
    ALGORITHMS,
    Change,
    build_schedules,
    evaluate,
    sample_changes,
)
from orderdep.core.depsfile import Dependency
from orderdep.core.odmodel import ODSpec
from orderdep.core.order_check import check_order
from orderdep.core.suite import Suite
from orderdep.errors import UsageError
from orderdep.shells.evaluation_table import format_evaluation
from orderdep.synth.model import ModelExecutor

TESTS = [f"tests/test_m.py::test_{i:02d}" for i in range(12)]
SETTER, BRITTLE, VICTIM, POLLUTER = TESTS[0], TESTS[1], TESTS[2], TESTS[3]
SPECS = [
    ODSpec(BRITTLE, "brittle", state_setters=[SETTER]),
    ODSpec(VICTIM, "victim", polluters=[POLLUTER]),
]
DEPS = [
    Dependency(BRITTLE, "positive", SETTER),
    Dependency(VICTIM, "negative", POLLUTER),
]


def _coverage() -> CoverageData:
    """Coverage that makes every algorithm break the dependencies somewhere.

    The brittle and the polluter cover much (prioritised first), the setter little;
    test i covers ``app.py`` lines 100*i .. 100*i + size, functions ``f{i}``.
    """
    sizes = {SETTER: 1, BRITTLE: 40, VICTIM: 20, POLLUTER: 50}
    statements: dict[str, dict[str, list[int]]] = {}
    ranges = []
    for i, t in enumerate(TESTS):
        size = sizes.get(t, 5 + i)
        statements[t] = {"app.py": list(range(100 * i + 1, 100 * i + 1 + size))}
        ranges.append((f"f{i}", 100 * i, 100 * i + 99))
    functions = {t: {"app.py": [f"f{i}"]} for i, t in enumerate(TESTS)}
    durations = {t: 1.0 + (i % 3) for i, t in enumerate(TESTS)}
    return CoverageData(
        tests=list(TESTS),
        statements=statements,
        functions=functions,
        durations=durations,
        function_ranges={"app.py": ranges},
    )


def _executor() -> ModelExecutor:
    return ModelExecutor(Suite.from_ids(TESTS), SPECS)


def test_every_algorithm_has_schedules_and_enhanced_ones_satisfy_deps() -> None:
    cov = _coverage()
    change = Change("brittle's code", {"app.py": frozenset({101})})
    for algorithm in ALGORITHMS:
        schedules = build_schedules(algorithm, TESTS, cov, DEPS, machines=(2, 3), changes=[change])
        assert schedules, algorithm
        for s in schedules:
            for machine in s.enhanced:
                assert check_order(machine, DEPS) == [], (algorithm, s.label)


def test_enhanced_orders_remove_every_od_failure() -> None:
    cov = _coverage()
    changes = [Change("brittle's code", {"app.py": frozenset({101})})]
    result = evaluate(_executor(), cov, DEPS, machines=(2, 4), changes=changes)
    rows = {r.algorithm: r for r in result.rows}
    assert list(rows) == list(ALGORITHMS)
    assert result.original_failures == []
    for row in result.rows:
        assert row.enhanced_failures == [], row.algorithm
    # The unenhanced orders do break them: prioritisation puts the brittle first,
    # selection picks the brittle alone, P1 splits setter and brittle.
    assert rows["T1"].unenhanced_failures == sorted([BRITTLE, VICTIM])
    assert rows["S1"].unenhanced_failures == [BRITTLE]
    assert BRITTLE in rows["P1"].unenhanced_failures
    assert rows["S1"].added == 1  # the state-setter, added back
    assert rows["S1"].executions == 1  # the brittle alone
    assert rows["P1"].executions == 2 * len(TESTS)
    assert rows["T1"].reduction == 1.0
    totals = result.technique_totals()
    assert totals["prioritization"][1] == totals["selection"][1] == 0
    assert totals["prioritization"][0] > 0


def test_groups_never_run_a_test_twice() -> None:
    cov = _coverage()
    for k in (2, 3, 5):
        (groups,) = build_schedules("groups", TESTS, cov, DEPS, machines=(k,))
        every = [t for m in groups.enhanced for t in m]
        assert sorted(every) == sorted(TESTS)
        (p2,) = build_schedules("P2", TESTS, cov, DEPS, machines=(k,))
        assert sum(len(m) for m in p2.enhanced) >= len(TESTS)


def test_without_deps_nothing_changes() -> None:
    result = evaluate(_executor(), _coverage(), [], algorithms=("T1", "P1"), machines=(2,))
    for row in result.rows:
        assert row.changed == 0
        assert row.unenhanced_failures == row.enhanced_failures
        assert row.slowdown is None


def test_failures_count_only_if_consistent_over_repeats() -> None:
    # An ND test failing half the time is not an OD failure when it must fail 4 of 4 times.
    executor = ModelExecutor(Suite.from_ids(TESTS), SPECS, nd_tests=[TESTS[7]], seed=3)
    result = evaluate(executor, _coverage(), DEPS, algorithms=("T1",), repeat=4)
    assert TESTS[7] not in result.rows[0].unenhanced_failures
    assert executor.orders_run == 4 * 3  # original, T1 unenhanced, T1 enhanced


def test_original_failures_are_not_od_failures() -> None:
    executor = ModelExecutor(Suite.from_ids(TESTS), SPECS, always_failing=[TESTS[9]])
    result = evaluate(executor, _coverage(), DEPS, algorithms=("T2",))
    assert result.original_failures == [TESTS[9]]
    assert TESTS[9] not in result.rows[0].unenhanced_failures


def test_tests_gone_from_the_suite_are_skipped() -> None:
    executor = ModelExecutor(Suite.from_ids(TESTS[:-2]), SPECS)
    result = evaluate(executor, _coverage(), DEPS, algorithms=("T1",))
    assert result.tests == TESTS[:-2]
    with pytest.raises(UsageError, match="none of the tests"):
        evaluate(ModelExecutor(Suite.from_ids(["other.py::t"])), _coverage(), DEPS)


def test_slowdown_counts_changed_schedules_only() -> None:
    cov = _coverage()
    change = Change("brittle's code", {"app.py": frozenset({101})})
    result = evaluate(_executor(), cov, DEPS, algorithms=("S1",), changes=[change])
    (row,) = result.rows
    # Unenhanced runs the brittle (2 s), enhanced adds the setter (1 s): +50% estimated.
    assert row.estimated_slowdown == pytest.approx(0.5)
    assert row.slowdown == 0.0 or row.slowdown is None  # the model reports 0 s durations


def test_sample_changes_is_seeded_and_prefers_code_outside_test_files() -> None:
    cov = _coverage()
    a = sample_changes(cov, 3, random.Random(5))
    b = sample_changes(cov, 3, random.Random(5))
    assert a == b and len(a) == 3
    for change in a:
        ((path, lines),) = change.lines.items()
        assert path == "app.py" and lines
    assert sample_changes(cov, 0, random.Random(0)) == []


def test_format_shows_a_row_per_algorithm() -> None:
    result = evaluate(_executor(), _coverage(), DEPS, machines=(2,), changes=[])
    text = format_evaluation(result)
    lines = text.splitlines()
    assert lines[0].split()[:2] == ["algorithm", "schedules"]
    t1 = next(line for line in lines if line.startswith("T1 "))
    assert t1.split()[4:7] == ["2", "0", "100%"]
    assert "prioritization: OD-test failures" in text


def test_unknown_algorithm() -> None:
    with pytest.raises(UsageError, match="unknown algorithm 'Z9'"):
        build_schedules("Z9", TESTS, _coverage(), DEPS)
