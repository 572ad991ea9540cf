"""Crashes and hangs never hide findings: the positions they cut short are re-planned,
every pair a strategy promised is covered or reported as not coverable with the reason,
and a test that crashes or hangs only in some orders is order-dependent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from rich.console import Console

from orderdep.analysis.confirm import OrderRunner, RunLog
from orderdep.analysis.detect import detect
from orderdep.analysis.search import MAX_RECOVERY, Search
from orderdep.core.odmodel import ODSpec
from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.core.replan import Coverage, continuations, describe, lost_at, ran_pairs
from orderdep.core.report import Report
from orderdep.core.suite import Suite
from orderdep.shells.summary import render_summary
from orderdep.synth.model import ModelExecutor

IDS = [f"tests/test_m{m}.py::test_{i}" for m in range(3) for i in range(4)]
A0, A1, A2, A3, B0, B1, B2, B3, C0, C1, C2, C3 = IDS
VICTIM = ODSpec(C1, "victim", polluters=[A2])
BRITTLE = ODSpec(B3, "brittle", state_setters=[C2])


def _result(order: Sequence[str], outcomes: Sequence[Outcome]) -> OrderResult:
    return OrderResult(list(order), [TestResult(t, o) for t, o in zip(order, outcomes)])


P, C, T, N = Outcome.PASSED, Outcome.CRASHED, Outcome.TIMEOUT, Outcome.NOT_RUN


def test_a_crash_that_cut_the_order_short_is_found() -> None:
    assert lost_at(_result("abcd", [P, C, N, N])) == 1
    assert lost_at(_result("abcd", [P, P, P, T])) is None  # nothing after it was lost
    assert lost_at(_result("abc", [P, Outcome.FAILED, P])) is None


def test_continuations_run_the_rest_and_the_order_without_the_lost_test() -> None:
    assert continuations(list("abcd"), 1) == [["c", "d"], ["a", "c", "d"]]
    assert continuations(list("abcd"), 0) == [["b", "c", "d"]]  # the same order once
    assert continuations(list("ab"), 1) == [["a"]]
    # Tests seen crashing before are left out of what follows, not of what came before.
    assert continuations(list("abcde"), 2, skip={"a", "d"}) == [["e"], ["a", "b", "e"]]


def test_only_pairs_that_ran_in_one_process_count() -> None:
    result = _result("abcde", [P, P, C, N, N])
    assert list(ran_pairs(result)) == [("a", "b"), ("b", "c")]


def test_the_account_counts_what_was_planned_and_what_ran() -> None:
    account = Coverage("tuscan")
    order = list("abcd")
    account.plan(order)
    account.saw(_result(order, [P, C, N, N]))
    account.saw(_result("cd", [P, P]), recovery=True)
    account.saw(_result("acd", [P, P, P]), recovery=True)
    assert account.missing() == [("b", "c")]
    pair_run = _result("bc", [C, N])
    account.saw(pair_run, recovery=True)
    account.give_up(("b", "c"), pair_run)
    summary = account.summary()
    assert summary["pairs_planned"] == 3 and summary["pairs_covered"] == 2
    assert summary["lost_to"] == {"b": "crashed"}
    assert summary["recovery_orders"] == 3
    assert summary["not_coverable"] == [
        {"pair": ["b", "c"], "reason": "b crashed the test process"}
    ]
    assert "2 of 3 consecutive pairs (66.7%)" in describe(summary)
    assert "not coverable: b -> c (b crashed the test process)" in describe(summary)


def _detect(
    specs: Sequence[ODSpec], strategies: Sequence[str], **model: Any
) -> tuple[Report, ModelExecutor]:
    ex = ModelExecutor(Suite.from_ids(IDS), specs, **model)
    return detect(ex, strategies=strategies, seed=3, confirm_runs=2), ex


def _account(report: Report, strategy: str) -> dict[str, Any]:
    accounts = {a["strategy"]: a for a in report.stats.extras["coverage"]}
    return accounts[strategy]


def test_a_crash_inside_tuscan_orders_leaves_every_pair_covered_or_explained() -> None:
    report, _ = _detect([VICTIM, BRITTLE], ["tuscan"], always_failing=[B1], crashing=[B1])
    account = _account(report, "tuscan")
    bad = account["not_coverable"]
    assert account["pairs_covered"] + len(bad) == account["pairs_planned"]
    assert bad and all(b["pair"][0] == B1 for b in bad)
    assert all(b["reason"] == f"{B1} crashed the test process" for b in bad)
    assert account["recovery_orders"] > 0
    assert {f.test for f in report.od_tests} == {VICTIM.test, BRITTLE.test}
    assert report.always_failing == [B1]


@pytest.mark.parametrize("fault", ["crashing", "hanging"])
@pytest.mark.parametrize("strategy", ["original", "reverse", "random-reverse", "tuscan"])
def test_recall_with_a_fault_equals_recall_without(fault: str, strategy: str) -> None:
    # The faulty test sits right before the polluter and the victim in the original order.
    specs = [ODSpec(A3, "victim", polluters=[A2]), ODSpec(B2, "victim", polluters=[B0])]
    strategies = [] if strategy == "original" else [strategy]
    clean, _ = _detect(specs, strategies)
    faulty, _ = _detect(specs, strategies, always_failing=[A1, B1], **{fault: [A1, B1]})
    assert {f.test for f in faulty.od_tests} == {f.test for f in clean.od_tests}
    assert sorted(faulty.always_failing) == [A1, B1]


@pytest.mark.parametrize("fault", ["crashing", "hanging"])
def test_a_test_that_crashes_or_hangs_only_in_some_orders_is_order_dependent(
    fault: str,
) -> None:
    report, _ = _detect([VICTIM], ["reverse"], **{fault: [VICTIM.test]})
    assert [f.test for f in report.od_tests] == [VICTIM.test]
    assert report.always_failing == []


def test_recovery_stays_bounded_when_every_test_crashes() -> None:
    report, ex = _detect([], ["reverse"], always_failing=IDS, crashing=IDS)
    planned = 2  # the original order and its reverse
    assert report.stats.extras["search_orders"] <= planned * (1 + MAX_RECOVERY)
    assert sorted(report.always_failing) == sorted(IDS)
    assert ex.orders_run > planned


def test_the_summary_says_how_much_of_the_promise_was_kept() -> None:
    report, _ = _detect([VICTIM], ["tuscan"], always_failing=[B1], crashing=[B1])
    console = Console(record=True, width=400)
    render_summary(report, console, lambda test, order, label: "orderdep run")
    text = console.export_text()
    assert "coverage of tuscan:" in text
    assert f"not coverable: {B1} -> " in text
    assert "recovery order(s) ran the tests after them" in text
    assert f"always failing (also alone):\n  {B1} (crashed the test process)" in text


def test_one_order_per_lost_first_test_settles_all_its_missing_pairs() -> None:
    ex = ModelExecutor(Suite.from_ids(IDS), [], always_failing=[B1, C0], crashing=[B1])
    search = Search(OrderRunner(ex, RunLog()), budget_seconds=None, max_orders=None,
                    on_progress=None)  # fmt: skip
    search.begin("tuscan")
    for other in (A0, A1, C2, C3):
        search.account.plan([B1, other])
        search.account.plan([C0, other])
    search.cover_missing_pairs()
    # B1 crashes whatever follows it: one order says so for its four pairs. C0 fails
    # without crashing: its first order covers one pair, and the three others still run.
    assert [o[0] for o in ex.history].count(B1) == 1
    assert [o[0] for o in ex.history].count(C0) == 4
    account = search.accounts["tuscan"]
    assert sorted(p for p, _ in account.not_coverable.items()) == [
        (B1, other) for other in sorted((A0, A1, C2, C3))
    ]
    assert account.missing() == []
