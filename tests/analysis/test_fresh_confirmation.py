"""Detection whose fork runner's check did not end: the fork runner's search orders point
at suspects, and fresh processes alone decide what is reported."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Optional

from orderdep.analysis.detect import detect
from orderdep.core.odmodel import ODSpec
from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.core.suite import Suite
from orderdep.engine.probe import ProbeSpec
from orderdep.synth.model import ModelExecutor

M = "tests/test_m.py::"
V, P, B, A = M + "test_victim", M + "test_pollute", M + "test_b", M + "test_a"
IDS = [V, P, B, A]


class TwoRunners(ModelExecutor):
    """``V`` fails after ``P`` in any process; under the fork runner alone, ``B`` also
    fails after ``A`` (what a fork server's leftovers could do)."""

    def __init__(self, ids: Sequence[str] = IDS) -> None:
        super().__init__(Suite.from_ids(list(ids)), [ODSpec(V, "victim", polluters=[P])])
        self.runner = "fork"
        self.switched_after = -1  # orders run when confirm_fresh was called

    def _outcome(self, test: str, prefix: Sequence[str]) -> Outcome:
        if test == B and A in prefix and self.runner == "fork":
            return Outcome.FAILED
        return super()._outcome(test, prefix)

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        return dataclasses.replace(super().run(order, probe=probe), runner=self.runner)

    def confirm_fresh(self) -> str:
        self.runner, self.switched_after = "subprocess", self.orders_run
        return self.runner


def test_a_failure_of_the_fork_runner_alone_is_neither_od_nor_nd_when_confirmed_fresh() -> None:
    ex = TwoRunners()
    report = detect(ex, strategies=["pairs"], confirm_runs=2, fresh_confirmation=ex.confirm_fresh)
    assert [f.test for f in report.od_tests] == [V]
    assert report.od_tests[0].failing_order == [P, V]
    assert report.nd_tests == []
    assert report.stats.extras["confirmed_fresh"] == "subprocess"
    # the search's orders (every pair, and the original order) ran on the fork runner,
    # then its shortening of the two suspects' orders (each alone once: nothing shorter)
    assert ex.switched_after == 1 + 4 * 3 + 2


class Recorded(TwoRunners):
    """:class:`TwoRunners` keeping every order run, with its runner."""

    def __init__(self, ids: Sequence[str]) -> None:
        super().__init__(ids)
        self.seen: list[tuple[str, list[str]]] = []

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        self.seen.append((self.runner, list(order)))
        return super().run(order, probe=probe)


def test_fresh_processes_start_from_the_orders_the_fork_runner_shortened() -> None:
    """``V`` fails in the original order, after ``P`` and 20 other tests: fresh processes
    run ``[P, V]`` and ``[V]``, never the long order the search saw it fail in."""
    others = [M + f"test_other_{i}" for i in range(20)]
    ex = Recorded([P, *others, V, B, A])
    report = detect(
        ex, strategies=["original"], confirm_runs=2, fresh_confirmation=ex.confirm_fresh
    )
    assert [f.test for f in report.od_tests] == [V]
    assert report.od_tests[0].failing_order == [P, V]
    fresh = [order for runner, order in ex.seen if runner == "subprocess"]
    assert fresh and max(len(order) for order in fresh) <= 2, fresh
    # the long order ran on the fork runner only: it points, it decides nothing
    assert any(len(order) > 2 for runner, order in ex.seen if runner == "fork")


def test_without_fresh_confirmation_the_fork_runner_s_failure_would_be_reported() -> None:
    report = detect(TwoRunners(), strategies=["pairs"], confirm_runs=2)
    assert sorted(f.test for f in report.od_tests) == sorted([V, B])
    assert "confirmed_fresh" not in report.stats.extras


def test_a_search_that_saw_no_failure_stays_on_the_fork_runner_and_is_not_clean() -> None:
    from orderdep.core.promise import complete

    ex = TwoRunners()
    report = detect(ex, strategies=["original"], fresh_confirmation=ex.confirm_fresh)
    assert report.od_tests == [] and ex.runner == "fork"
    assert "confirmed_fresh" not in report.stats.extras
    # "no OD test" from an unchecked fork runner is said, and is not a clean result
    assert any("whose check against a fresh pytest did not finish" in line
               for line in report.stats.extras["shortfalls"])  # fmt: skip
    assert not complete(report)
    checked = detect(TwoRunners(), strategies=["original"])
    assert complete(checked) and not checked.stats.extras["shortfalls"]


def test_the_shortening_gets_a_share_of_what_is_left_and_gives_the_budget_back() -> None:
    from orderdep.analysis.budget import Budget, BudgetedExecutor
    from orderdep.analysis.confirm import OrderRunner, RunLog
    from orderdep.analysis.pointing import POINT_SHARE, pointed_first

    now = [0.0]
    budget = Budget(100.0, clock=lambda: now[0])
    ex = Recorded([P, *(M + f"test_other_{i}" for i in range(5)), V])
    budgeted = BudgetedExecutor(ex, budget)
    parts: list[float] = []

    class Watching(OrderRunner):
        def run_slice(self, orders: Sequence[Sequence[str]]) -> list[OrderResult]:
            seconds = budgeted.budget.seconds
            assert seconds is not None
            parts.append(seconds)
            return super().run_slice(orders)

    runner = Watching(budgeted, RunLog())
    (original,) = runner.run([list(ex.suite.ids)])
    now[0] = 60.0  # 40 s left when confirmation starts
    pointed = pointed_first(runner, [original], [])
    assert budgeted.budget is budget
    assert parts[1:] and all(p == POINT_SHARE * 40.0 for p in parts[1:]), parts
    assert pointed[0] is original and [r.order for r in pointed[1:]] == [[P, V], [V]]
