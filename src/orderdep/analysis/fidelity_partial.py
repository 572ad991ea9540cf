"""What a fork check that its share of the budget cut short still tells.

On a long suite the fresh pytest beside the fork runner may not reach the end of the
original order within the check's share (a 46 s suite under load, a budget of 120 s).
Both runs are killed then, but the tests each had run to an end are known: when the two
runners agree on every test of a large enough common prefix of the order (a third of
it at least), the fork runner is used, and the user is told how much was compared. With
``--jobs 1`` the two run one after the other: when the fork runner's run leaves too little
of the share for a fresh pytest of the whole order, the fresh pytest runs the prefix that
fits (:func:`fitting_prefix`), and the same rule decides. The verdict is cached apart
from whole ones: the next command within a budget uses it, one without checks whole.
When they disagree, or too little was compared, the engine goes to the subprocess
runner as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Callable, Optional

from orderdep.analysis.budget import Budget, BudgetExhausted
from orderdep.core.fidelity import FidelityReport, SampleOrder
from orderdep.core.outcomes import OrderResult, Outcome

#: The least share of the original order both runners must have run for a partial
#: check to count.
MIN_CHECKED_SHARE = 1 / 3
#: Outcomes that do not say how a test ended when its run was killed.
_UNFINISHED = frozenset({Outcome.NOT_RUN, Outcome.TIMEOUT, Outcome.CRASHED})


class CheckCut(BudgetExhausted):
    """The check's share ran out (or, ``planned``, a fresh pytest of the whole order
    would not fit in what is left of it); ``results`` holds what each runner's killed,
    finished or shortened run of the order returned, by runner name."""

    def __init__(
        self, reason: str, results: Mapping[str, OrderResult], *, planned: bool = False
    ) -> None:
        super().__init__(reason)
        self.results = dict(results)
        self.planned = planned  # the fresh pytest was given a prefix that fits, not killed


def finished_prefix(result: OrderResult) -> int:
    """How many leading positions of ``result`` ran to an end (a killed test, and what
    came after it, did not)."""
    n = 0
    for r in result.results:
        if r.outcome in _UNFINISHED:
            break
        n += 1
    return n


def common_prefix(fork: OrderResult, plain: OrderResult) -> tuple[OrderResult, OrderResult]:
    """Both results cut to the positions each ran to an end."""
    n = min(finished_prefix(fork), finished_prefix(plain))
    return _cut(fork, n), _cut(plain, n)


def _cut(result: OrderResult, n: int) -> OrderResult:
    return OrderResult(result.order[:n], result.results[:n], runner=result.runner,
                       wall_seconds=result.wall_seconds)  # fmt: skip


def partial_verdict(
    ids: Sequence[str],
    cut: CheckCut,
    notice: Callable[[str], None],
    share: Optional[Budget],
    which: str = "",
) -> Optional[FidelityReport]:
    """The verdict of an original order the check's share cut short: a faithful report
        when the runners agree on a common prefix of at least :data:`MIN_CHECKED_SHARE` of
        ``ids``, an unfaithful one when they disagree anywhere in it, None when too little
        ran to tell. ``which`` says which of the original order's tests ``ids`` are (``"fast "``:
    without its slow ones), in what the user reads."""
    fork, plain = cut.results.get("fork"), cut.results.get("plain")
    if fork is None or plain is None or not ids:
        return None
    fork_part, plain_part = common_prefix(fork, plain)
    compared = len(fork_part.order)
    report = FidelityReport(["fork", "plain"], planned=1)
    if compared:
        report.add(SampleOrder("original", tuple(fork_part.order)), {"fork": fork_part,
                                                                   "plain": plain_part})  # fmt: skip
    if report.faithful and compared < MIN_CHECKED_SHARE * len(ids):
        return None
    if report.faithful:
        seconds = f" ({share.seconds:.0f} s)" if share is not None and share.seconds else ""
        when = (
            f"left a fresh pytest time for the first {compared} of the original order's "
            f"{len(ids)} {which}tests after the fork runner's run"
            if cut.planned
            else f"ended after the first {compared} of the original order's {len(ids)} {which}tests"
        )
        notice(
            f"orderdep: checking the fork runner: its share of the budget{seconds} {when}, "
            f"and on those the fork runner and a fresh pytest agree; using the fork runner "
            f"(the rest is not compared; the verdict is kept for runs within a budget; one "
            f"without --budget checks the whole order)"
        )
    return report


def fitting_prefix(fork: OrderResult, seconds: Optional[float]) -> Optional[int]:
    """With the runners one after the other (``--jobs 1``), how many leading tests of the
    fork runner's finished order a fresh pytest can run in the ``seconds`` left, from the
    tests' own durations and what the fork run took beyond them (collection, start-up),
    with a margin; None when it can run them all (or there is no limit)."""
    if seconds is None:
        return None
    tests = sum(r.duration for r in fork.results)
    overhead = max(2.0, fork.wall_seconds - tests) * 1.5
    room = seconds * 0.8 - overhead
    if tests <= room:
        return None
    used, n = 0.0, 0
    for r in fork.results:
        used += r.duration
        if used > room:
            break
        n += 1
    return n


def whole(result: Optional[OrderResult]) -> bool:
    """Whether ``result`` ran every position of its order to an end."""
    return result is not None and finished_prefix(result) == len(result.results)
