"""Which suspects confirmation takes first, so that a budget that runs out has confirmed
as many as it could."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from orderdep.analysis.budget import Budget, BudgetedExecutor, BudgetExhausted
from orderdep.analysis.confirm import OrderRunner, RunLog, Verdicts
from orderdep.analysis.confirm_chunks import confirm_in_chunks, suspects_of
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


def test_a_slow_suspect_comes_after_quick_ones_that_failed_later_in_their_orders() -> None:
    """``slow`` fails alone but takes 8 s each time; ``b`` fails after two quick tests."""
    search = [
        OrderResult(["slow"], [TestResult("slow", F, 8.0)]),
        OrderResult(
            ["a", "c", "b"],
            [TestResult("a", P, 0.1), TestResult("c", P, 0.1), TestResult("b", F, 0.2)],
        ),
    ]
    assert suspects_of(search, []) == ["b", "slow"]


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
        """The budget runs out as soon as confirmation turns to ``v_late``'s search (its
        run alone comes first, with every suspect's, in one batch)."""

        def run_many(self, orders: Sequence[Sequence[str]], **kw: object) -> list[OrderResult]:
            if any("v_late" in o and len(o) > 1 for o in orders):
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


# --- tests that fail in the original order and alone -------------------------------------


def _always_failing_suite(broken: int, fail: bool = True) -> tuple[ModelExecutor, list[str]]:
    """``broken`` tests that fail everywhere (pass, when not ``fail``), a victim ``v`` of
    ``p`` (passes alone), a brittle ``b`` that needs ``s`` (fails alone, passes in the
    original order)."""
    bad = [f"bad{i:02d}" for i in range(broken)]
    ids = ["p", "s", "b", *bad, "v", "t1", "t2"]
    specs = [ODSpec("v", "victim", polluters=["p"]), ODSpec("b", "brittle", state_setters=["s"])]
    return ModelExecutor(Suite.from_ids(ids), specs, always_failing=bad if fail else []), bad


def _confirmed(
    broken: int, chunk: int, fail: bool = True
) -> tuple[ModelExecutor, list[str], Verdicts, int]:
    """Confirmation after the original order and its reverse: the model, the broken
    tests, the verdicts and the orders confirmation ran."""
    model, bad = _always_failing_suite(broken, fail)
    ids = list(model.suite.ids)
    search = [model.run(ids), model.run(list(reversed(ids)))]
    runner = OrderRunner(model, RunLog(None), 1)
    verdicts, pending, stop = confirm_in_chunks(runner, search, confirm_runs=5, chunk=chunk)
    assert stop is None and pending == []
    return model, bad, verdicts, runner.orders_run


@pytest.mark.parametrize("chunk", [1, 4])
def test_tests_failing_in_the_original_order_and_alone_cost_one_order_each(chunk: int) -> None:
    model, bad, verdicts, orders = _confirmed(38, chunk)
    assert sorted(verdicts.always_failing) == bad
    # the victim and the brittle (failing in the reverse order) are still confirmed
    assert sorted(f.test for f in verdicts.od) == ["b", "v"]
    for t in bad:
        assert model.history.count([t]) == 1  # alone once, nothing else
    # exactly one order per broken test on top of what the two OD tests cost (in the
    # same suite with passing tests in their places)
    assert orders == _confirmed(38, chunk, fail=False)[3] + len(bad)
    # every suspect ran alone first, in one batch (after the two search orders)
    first = model.history[2 : 2 + len(bad) + 2]
    assert sorted(first) == sorted([t] for t in [*bad, "b", "v"])


def test_a_brittle_and_a_victim_stay_suspects_among_always_failing_tests() -> None:
    model, bad = _always_failing_suite(5)
    ids = list(model.suite.ids)
    # the brittle fails in the reverse order (its state-setter after it) and alone
    search = [model.run(ids), model.run(list(reversed(ids)))]
    assert search[1].outcome_of("b") is F and search[0].outcome_of("b") is P
    runner = OrderRunner(model, RunLog(None), 1)
    verdicts, _, _ = confirm_in_chunks(runner, search, confirm_runs=2)
    found = {f.test: f for f in verdicts.od}
    assert sorted(found) == ["b", "v"] and sorted(verdicts.always_failing) == bad
    assert found["b"].failing_order == ["b"] and found["v"].passing_order == ["v"]
    assert verdicts.nd == []


def test_a_test_that_failed_everywhere_but_not_in_the_original_order_is_still_confirmed() -> None:
    """Only failing in the original order and alone is enough at once; a test the
    original order never reached (cut short) is observed alone as before."""
    model = ModelExecutor(Suite.from_ids(["a", "x"]), always_failing=["x"])
    cut = OrderResult(["a", "x"], [TestResult("a", P), TestResult("x", Outcome.NOT_RUN)])
    runner = OrderRunner(model, RunLog(None), 1)
    verdicts, _, _ = confirm_in_chunks(runner, [cut, model.run(["x", "a"])], confirm_runs=3)
    assert verdicts.always_failing == ["x"]
    assert model.history.count(["x"]) == 4  # alone, then confirmed 3 more times
