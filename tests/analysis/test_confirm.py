"""Which suspects confirmation takes first, so that a budget that runs out has confirmed
as many as it could."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from orderdep.analysis.budget import Budget, BudgetedExecutor, BudgetExhausted
from orderdep.analysis.confirm import OrderRunner, RunLog, confirm_in_chunks, suspects_of
from orderdep.core.odmodel import ODSpec
from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.core.suite import Suite
from orderdep.synth.model import ModelExecutor

P, F = Outcome.PASSED, Outcome.FAILED


def ran(order: Sequence[str], outcomes: Sequence[Outcome]) -> OrderResult:
    return OrderResult(list(order), [TestResult(t, o) for t, o in zip(order, outcomes)])


def test_suspects_come_cheapest_first() -> None:
    search = [
        ran(["a", "b", "c", "late", "d"], [P, P, P, F, P]),
        ran(["early", "x", "late"], [P, F, P]),  # x fails after one test
        ran(["y", "late", "early"], [F, P, F]),  # y fails first, early after two
    ]
    nio = [ran(["n", "n"], [P, F])]
    assert suspects_of(search, nio) == ["y", "x", "n", "early", "late"]


def test_a_budget_spent_on_confirmation_has_confirmed_the_cheap_suspects() -> None:
    """Victim ``v_late`` was seen first, failing only at the end of a long order;
    ``v_early`` failed in another order right after its polluter: with time for one
    suspect, the early one is the one confirmed."""
    fillers = [f"t{i:03d}" for i in range(60)]
    ids = [*fillers, "p_late", "v_late", "p_early", "v_early"]
    specs = [
        ODSpec("v_early", "victim", polluters=["p_early"]),
        ODSpec("v_late", "victim", polluters=["p_late"]),
    ]
    model = ModelExecutor(Suite.from_ids(ids), specs)
    original = model.run(ids)
    short = model.run(["p_early", "v_early"])
    assert original.outcome_of("v_late") is F and short.outcome_of("v_early") is F
    budget = Budget()

    class SpentAtTheLateOne(BudgetedExecutor):
        """The budget runs out as soon as confirmation turns to ``v_late``."""

        def run_many(self, orders: Sequence[Sequence[str]], **kw: object) -> list[OrderResult]:
            if any("v_late" in o for o in orders):
                budget.stop("budget")
            return super().run_many(orders, **kw)  # type: ignore[arg-type]

    runner = OrderRunner(SpentAtTheLateOne(model, budget), RunLog(None), 1)
    verdicts, pending, stop = confirm_in_chunks(
        runner, [original, short], confirm_runs=1, chunk=1, stop=BudgetExhausted
    )
    assert isinstance(stop, BudgetExhausted)
    assert [f.test for f in verdicts.od] == ["v_early"]
    assert pending == ["v_late"]


@pytest.mark.parametrize("chunk", [1, 2])
def test_with_time_enough_every_suspect_is_confirmed_whatever_the_order(chunk: int) -> None:
    ids = ["p1", "v1", "t1", "t2", "p2", "v2"]
    specs = [ODSpec("v1", "victim", polluters=["p1"]), ODSpec("v2", "victim", polluters=["p2"])]
    model = ModelExecutor(Suite.from_ids(ids), specs)
    runner = OrderRunner(model, RunLog(None), 1)
    verdicts, pending, stop = confirm_in_chunks(runner, [model.run(ids)], chunk=chunk)
    assert stop is None and pending == []
    assert sorted(f.test for f in verdicts.od) == ["v1", "v2"]
