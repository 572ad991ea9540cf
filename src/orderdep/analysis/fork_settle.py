"""Where the fork runner and a fresh pytest disagree on an order in the fork check
(:mod:`fork_trust`): the order runs again before anything is called a difference, and a
test whose outcome changed under one runner is forgiven (non-deterministic)."""

from __future__ import annotations

from typing import Callable, Optional

from orderdep.analysis.budget import Budget
from orderdep.analysis.fork_pair import side_by_side
from orderdep.core.fidelity import FidelityReport, SampleOrder, unstable
from orderdep.core.outcomes import OrderResult
from orderdep.core.volatile import shown_ids
from orderdep.engine.plain import PlainRunner
from orderdep.engine.runner import Engine

#: Runs of an order again under the fork runner when it disagrees with a fresh pytest,
#: before one more run of both: a test whose outcome changes is non-deterministic.
FORK_RERUNS = 3


def add_settled(
    report: FidelityReport,
    sample: SampleOrder,
    results: dict[str, OrderResult],
    engine: Engine,
    plain: PlainRunner,
    notice: Callable[[str], None],
    budget: Optional[Budget],
    exclusive: bool = False,
) -> None:
    """Add ``sample``'s ``results`` to ``report``; where the runners disagree, run the
    order again (:data:`FORK_RERUNS` times under the fork runner, then once under both if
    that did not settle it) and forgive the tests whose outcome changed under one runner:
    a non-deterministic test disagrees by chance, not because the runners differ."""
    found = report.add(sample, results)
    if not found:
        return
    tests = {m.test for m in found}
    reruns: list[tuple[str, OrderResult]] = []
    for _ in range(FORK_RERUNS):
        if budget is not None:
            budget.check()
        reruns.append(("fork", engine.run(sample.order)))
        if unstable(found, reruns) == tests:
            break
    if unstable(found, reruns) != tests:
        again = side_by_side(engine, plain, sample.order, notice, budget, exclusive)
        reruns += [(name, result) for name, result in again.items()]
    flaky = unstable(found, reruns)
    if flaky:
        report.forgive(flaky)
        notice(
            f"orderdep: checking the fork runner: {shown_ids(sorted(flaky))} gave another "
            f"outcome when its order ran again (non-deterministic); not counted as a "
            f"difference between the runners"
        )


__all__ = ["FORK_RERUNS", "add_settled"]
