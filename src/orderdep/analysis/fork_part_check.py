"""The fork check on the part of a long suite the search covers (:mod:`fork_part`).

When the fork runner's run of the original order did not end within the check's share,
nothing was compared, and every finding of the search had to be confirmed in fresh
processes: on a suite whose pytest takes seconds to start, each suspect's orders then cost
seconds a run, and a budget of two minutes ended before any was confirmed. The part the
search is to cover is short by construction (an order of it fits a quarter of what is
left), so a fresh pytest of it is affordable: :func:`check_part` compares it with the
fork runner's outcomes of those tests in its cut run (later tests cannot change an
earlier test's outcome). When they agree, the search and its confirmation run on the
fork runner, checked on exactly the tests they cover; when they disagree, on the
subprocess runner.
"""

from __future__ import annotations

from typing import Callable, Optional

from orderdep.analysis.budget import Budget, BudgetExhausted
from orderdep.analysis.fidelity_partial import CheckCut, partial_verdict
from orderdep.analysis.fork_pair import side_by_side
from orderdep.analysis.fork_settle import add_settled
from orderdep.core.fidelity import FidelityReport, SampleOrder
from orderdep.core.outcomes import OrderResult
from orderdep.engine.plain import PlainRunner
from orderdep.engine.runner import Engine


def check_part(
    engine: Engine,
    plain: PlainRunner,
    part: OrderResult,
    notice: Callable[[str], None],
    share: Budget,
    exclusive: bool = False,
) -> Optional[FidelityReport]:
    """A fresh pytest runs ``part`` (the fork runner's run of the original order's
    leading tests, :func:`~orderdep.analysis.fork_part.reached_part`) within ``share``,
    and is compared with it; where they differ, the fork runner runs those tests again
    before anything is called a difference (:func:`~.fork_settle.add_settled`). The
    verdict stands for those tests only. A fresh pytest ``share`` cut is judged on what it
    ran (:func:`~.fidelity_partial.partial_verdict`: a third of the part or more). None
    when it cannot tell."""
    tests = len(part.order)
    notice(
        f"orderdep: checking the fork runner on those {tests} tests: a fresh pytest runs "
        f"them, against the fork runner's outcomes in its run"
    )
    report = FidelityReport(["fork", "plain"], planned=1)
    sample = SampleOrder("original", tuple(part.order))
    try:
        results = side_by_side(engine, plain, part.order, notice, share, exclusive,
                               given={"fork": part})  # fmt: skip
        add_settled(report, sample, results, engine, plain, notice, share, exclusive)
    except BudgetExhausted as stop:
        if not isinstance(stop, CheckCut) or stop.results.get("fork") is not part:
            return None  # cut while the fork runner ran the part again: no verdict
        return partial_verdict(part.order, stop, notice, share, "leading ")
    if report.faithful:
        notice(
            f"orderdep: checking the fork runner: on those {tests} tests the fork runner "
            f"and a fresh pytest agree; searching them with the fork runner, which "
            f"confirms what it finds (the verdict is kept for runs within a budget; one "
            f"without --budget checks the whole order)"
        )
    return report


__all__ = ["check_part"]
