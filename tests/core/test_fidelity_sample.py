"""Sampling orders and comparing runners position by position (pure)."""

from __future__ import annotations

import json

import pytest

from orderdep.core.fidelity import (
    STORED_MISMATCHES,
    FidelityReport,
    SampleCost,
    SampleOrder,
    compare,
    estimate_seconds,
    sample_orders,
    unstable,
)
from orderdep.core.outcomes import OrderResult, Outcome, TestResult


def result(order: list[str], outcomes: str, runner: str) -> OrderResult:
    codes = {"p": Outcome.PASSED, "f": Outcome.FAILED, "s": Outcome.SKIPPED}
    return OrderResult(
        order, [TestResult(t, codes[c], 0.0, "") for t, c in zip(order, outcomes)], runner=runner
    )


def test_sample_starts_with_original_and_reverse_then_random_then_singles() -> None:
    ids = [f"t{i}" for i in range(10)]
    sample = sample_orders(ids, seed=3, random_orders=2, singles=4)
    assert [s.label for s in sample] == ["original", "reverse", "random #1", "random #2"] + [
        "alone"
    ] * 4
    assert sample[0].order == tuple(ids) and sample[1].order == tuple(reversed(ids))
    assert all(sorted(s.order) == sorted(ids) for s in sample[2:4])
    assert sample[2].order != sample[3].order
    assert [s.order for s in sample[4:]] == [("t0",), ("t2",), ("t5",), ("t7",)]
    assert sample == sample_orders(ids, seed=3, random_orders=2, singles=4)  # seeded
    assert sample[2:4] != sample_orders(ids, seed=4, random_orders=2, singles=4)[2:4]


def test_small_suites_get_no_useless_orders() -> None:
    assert [s.label for s in sample_orders(["a"], seed=1)] == ["original"]
    assert [s.label for s in sample_orders(["a", "b"], seed=1, singles=5)] == [
        "original",
        "reverse",
        "alone",
        "alone",
    ]


def test_compare_lists_every_disagreeing_position() -> None:
    order = ["a", "b", "c"]
    sample = SampleOrder("original", tuple(order))
    found = compare(
        sample,
        {
            "fork": result(order, "pfp", "fork"),
            "subprocess": result(order, "ppp", "subprocess"),
            "plain": result(order, "pps", "plain"),
        },
    )
    assert [(m.position, m.test) for m in found] == [(1, "b"), (2, "c")]
    assert found[0].outcomes == {"fork": "failed", "subprocess": "passed", "plain": "passed"}


def test_report_counts_and_round_trips() -> None:
    report = FidelityReport(["fork", "plain"], planned=2)
    order = ["a", "b"]
    report.add(
        SampleOrder("original", tuple(order)),
        {"fork": result(order, "pp", "fork"), "plain": result(order, "pp", "plain")},
    )
    assert report.faithful and not report.complete
    report.add(
        SampleOrder("alone", ("a",)),
        {"fork": result(["a"], "f", "fork"), "plain": result(["a"], "p", "plain")},
    )
    assert not report.faithful and report.complete
    assert (report.orders, report.positions) == (2, 3)
    again = FidelityReport.from_json(report.to_json())
    assert again.to_json() == report.to_json()
    assert again.mismatches[0].test == "a"


def test_the_cost_of_a_sample_is_counted_before_it_runs() -> None:
    ids = [f"t{i}" for i in range(10)]
    sample = sample_orders(ids, seed=3, random_orders=2, singles=4)  # 4 x 10 + 4 x 1
    cost = SampleCost.of(sample, ["fork", "subprocess", "plain"])
    assert cost == SampleCost(orders=8, runners=3, executions=44 * 3, fresh=16)
    assert SampleCost.of(sample, ["subprocess", "plain"]).fresh == 16


def test_the_time_of_a_sample_is_priced_by_its_original_order() -> None:
    ids = [f"t{i}" for i in range(10)]
    sample = sample_orders(ids, seed=3, random_orders=2, singles=4)
    # fork: 1 s of tests; plain and subprocess pay 2 s more to start each order
    walls = {"fork": 1.0, "subprocess": 3.0, "plain": 3.0}
    tests = 44 * 0.1  # 44 positions at 0.1 s, under each runner
    assert estimate_seconds(sample, walls) == pytest.approx(3 * tests + 2 * 8 * 2.0)
    assert estimate_seconds(sample, {}) == 0.0


def test_the_report_says_how_much_of_the_sample_ran() -> None:
    sample = sample_orders(["a", "b"], seed=1, random_orders=0, singles=2)
    report = FidelityReport(["fork", "plain"], planned=len(sample), planned_positions=6)
    order = ("a", "b")
    report.add(
        sample[0],
        {"fork": OrderResult(list(order), [], wall_seconds=0.5), "plain": result([], "", "p")},
    )
    assert (report.orders, report.positions, report.complete) == (1, 2, False)
    assert report.walls == {"fork": 0.5, "plain": 0.0}
    assert FidelityReport.from_json(report.to_json()).planned_positions == 6


def test_the_cache_keeps_ids_and_outcomes_not_whole_orders() -> None:
    """A mismatch in a long order stores its test and position, not the order; the first
    ``STORED_MISMATCHES`` are kept and the rest counted."""
    order = [f"t{i}" for i in range(STORED_MISMATCHES + 50)]
    report = FidelityReport(["fork", "plain"], planned=1)
    report.add(
        SampleOrder("original", tuple(order)),
        {
            "fork": result(order, "f" * len(order), "fork"),
            "plain": result(order, "p" * len(order), "plain"),
        },
    )
    data = report.to_json()
    assert len(data["mismatches"]) == STORED_MISMATCHES
    assert data["mismatch_count"] == len(order)
    assert all("order" not in m for m in data["mismatches"])
    assert len(json.dumps(data)) < 200 * STORED_MISMATCHES
    again = FidelityReport.from_json(data)
    assert again.mismatch_count == len(order) and not again.faithful
    assert [m.test for m in again.mismatches[:2]] == ["t0", "t1"]


def test_a_cache_written_with_whole_orders_is_still_read() -> None:
    old = {
        "runners": ["fork", "plain"],
        "orders": 1,
        "positions": 3,
        "mismatches": [
            {
                "label": "original",
                "order": ["a", "b", "c"],
                "position": 1,
                "outcomes": {"fork": "failed", "plain": "passed"},
                "messages": {"fork": "boom", "plain": ""},
            }
        ],
    }
    report = FidelityReport.from_json(old)
    assert report.mismatches[0].test == "b" and report.mismatches[0].order == ("a", "b", "c")
    assert report.mismatch_count == 1 and report.volatile == [] and report.left_out == []


def test_a_test_whose_outcome_changes_under_one_runner_is_unstable_and_forgiven() -> None:
    order = ["a", "b", "c"]
    sample = SampleOrder("original", tuple(order))
    report = FidelityReport(["fork", "plain"], planned=1)
    found = report.add(sample, {"fork": result(order, "pfp", "fork"),
                                "plain": result(order, "ppf", "plain")})  # fmt: skip
    assert [m.test for m in found] == ["b", "c"]
    # b flips under the fork runner; c fails under fork and passes under plain every time
    reruns = [("fork", result(order, "ppp", "fork")), ("fork", result(order, "pfp", "fork"))]
    assert unstable(found, reruns) == {"b"}
    assert unstable(found, [*reruns, ("plain", result(order, "ppp", "plain"))]) == {"b", "c"}
    assert unstable(found, []) == set()
    report.forgive({"b"})
    assert [m.test for m in report.mismatches] == ["c"] and report.mismatch_count == 1
    assert not report.faithful and report.nondeterministic == ["b"]
    back = FidelityReport.from_json(json.loads(json.dumps(report.to_json())))
    assert back.nondeterministic == ["b"] and [m.test for m in back.mismatches] == ["c"]
    report.forgive({"c"})
    assert report.faithful and report.nondeterministic == ["b", "c"]
