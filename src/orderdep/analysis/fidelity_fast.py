"""The fork check on the original order without its slow tests: what decides when the
fork runner's run of the whole order left a fresh pytest too little of the check's share
(a suite whose few slow tests take most of its time)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable, Optional

from orderdep.analysis.budget import Budget, BudgetExhausted
from orderdep.analysis.fidelity_partial import CheckCut, partial_verdict, whole
from orderdep.analysis.fork_pair import side_by_side
from orderdep.analysis.fork_settle import add_settled
from orderdep.core.fidelity import FidelityReport, SampleOrder
from orderdep.core.outcomes import OrderResult, restricted
from orderdep.core.slow_tests import split_slow
from orderdep.engine.plain import PlainRunner
from orderdep.engine.runner import Engine

#: Of its share, what the original order without its slow tests may take under one
#: runner, when the check compares on it (a fresh pytest runs it; the fork runner too,
#: only when the outcomes differ from its whole run's).
WITHOUT_SLOW_SHARE = 0.35


def without_slow(
    engine: Engine,
    plain: PlainRunner,
    ids: Sequence[str],
    cut: CheckCut,
    notice: Callable[[str], None],
    part: Budget,
    exclusive: bool,
) -> Optional[FidelityReport]:
    """One after the other, the fork runner ran the original order whole but left a
    fresh pytest time for too little of it, or none (a suite whose few slow tests take
    most of its time): a fresh pytest runs the original order without its slow tests
    (:func:`~orderdep.core.slow_tests.split_slow`), within ``part`` (a share of its own),
    and is compared with the fork runner's outcomes of those tests in its whole run. Only
    when they differ (a slow test left out may change what the others do) does the fork
    runner run the same order, and that comparison is the check's verdict. None when
    there are no such tests or that did not finish."""
    fork = cut.results.get("fork")
    if fork is None or not whole(fork) or fork.order != list(ids):
        return None
    durations = [(r.test, r.duration) for r in fork.results]
    split = split_slow(durations, part.left(), share=WITHOUT_SLOW_SHARE)
    if split is None:
        return None
    notice(f"orderdep: checking the fork runner on the original order without its slow "
           f"tests: {split.describe()}; a fresh pytest runs them, against the fork "
           f"runner's outcomes in its run of the whole order")  # fmt: skip
    report = FidelityReport(["fork", "plain"], planned=1)
    sample = SampleOrder("original", tuple(split.kept))
    taken: dict[str, OrderResult] = {}
    try:
        taken = {"fork": restricted(fork, split.kept)}
        results = side_by_side(engine, plain, split.kept, notice, part, exclusive, given=taken)
        if FidelityReport(["fork", "plain"], planned=1).add(sample, results):
            # the slow tests left out may change what the others do: the fork runner
            # runs the same order before anything is called a difference
            notice("orderdep: checking the fork runner: outcomes differ from its run of the "
                   "whole order; running the same order under it")  # fmt: skip
            taken = {"plain": results["plain"]}
            results = side_by_side(engine, plain, split.kept, notice, part, exclusive, given=taken)
        add_settled(report, sample, results, engine, plain, notice, part, exclusive)
    except BudgetExhausted as stop:
        if not isinstance(stop, CheckCut) or stop.results.get("fork") is not taken.get("fork"):
            return None
        # the fresh pytest was cut: what it ran against the fork runner's whole run
        partial = partial_verdict(split.kept, stop, notice, part, "fast ")
        return partial if partial is not None and partial.faithful else None
    if report.faithful:
        notice(
            f"orderdep: checking the fork runner: on the original order's {len(split.kept)} "
            f"fast tests the fork runner and a fresh pytest agree; using the fork runner "
            f"(the slow ones are not compared; the verdict is kept for runs within a budget; "
            f"one without --budget checks the whole order)"
        )
    return report


__all__ = ["WITHOUT_SLOW_SHARE", "without_slow"]
