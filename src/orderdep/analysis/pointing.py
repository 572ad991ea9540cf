"""Confirmation after a search on a fork runner whose check did not end (a suite slow for
the budget): the fork runner points, fresh processes decide.

Such a search's runs are no evidence (:attr:`~.confirm.RunLog.only`): every order a
finding names is run in fresh processes. Confirming a suspect from the order it was found
in means shortening that order in fresh processes too, each attempt a fresh pytest
running most of a slow suite: on sh (48 s a run), four suspects found by running each test
alone took the 37 s left and none was confirmed. So the suspects' orders are first
shortened on the fork runner (:func:`pointed_first`, confirmation's own steps with one
look at each order, within :data:`POINT_SHARE` of what is left), and confirmation in
fresh processes starts from the short orders that shows: a victim after one polluter,
a brittle alone. Nothing the fork runner saw decides a verdict: fresh processes run
every order named, as many times as confirmation asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from orderdep.analysis.budget import Budget, BudgetExhausted
from orderdep.analysis.confirm import OrderRunner
from orderdep.analysis.confirm_chunks import confirm_in_chunks
from orderdep.core.outcomes import OrderResult

#: Of the budget left when confirmation starts, the share the fork runner's shortening
#: of the suspects' orders may take.
POINT_SHARE = 0.4


def pointed_first(
    runner: OrderRunner,
    search: Sequence[OrderResult],
    nio_search: Sequence[OrderResult],
    jobs: int = 1,
) -> list[OrderResult]:
    """``search`` with, after its first order (the original one), the fork runner's runs
    of each suspect's shortened failing and passing orders: the orders confirmation in
    fresh processes starts from (the shortest one seen of each suspect). What the share
    left unshortened keeps its search orders."""
    executor: Any = runner.executor  # a BudgetedExecutor within a budget
    budget = getattr(executor, "budget", None)
    if isinstance(budget, Budget) and budget.seconds:
        left = budget.left() or 0.0
        executor.budget = budget.part(POINT_SHARE * left / budget.seconds)
    try:
        verdicts, _, _ = confirm_in_chunks(
            runner, search, nio_search, confirm_runs=0, chunk=2 * jobs, stop=BudgetExhausted,
            siblings=0,
        )  # fmt: skip
    finally:
        if isinstance(budget, Budget):
            executor.budget = budget
    runs: list[OrderResult] = []
    for finding in verdicts.od:
        for order in (finding.failing_order, finding.passing_order):
            seen = runner.log.runs(order)
            if seen:
                runs.append(seen[-1])
    return [*search[:1], *runs, *search[1:]]


__all__ = ["POINT_SHARE", "pointed_first"]
