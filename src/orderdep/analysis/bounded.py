"""Detection, then classification, within one budget (``orderdep detect --classify``).

The search may use a share of the budget (:data:`~orderdep.analysis.budget.SEARCH_SHARE`,
less when classification follows, and more when no test failed by the end of that
share: :meth:`~orderdep.analysis.budget.BudgetedExecutor.extension`); confirmation and
classification use what is left, in
the order :mod:`orderdep.analysis.classify` gives (kinds first, cleaners late). Every
order goes through one :class:`~orderdep.analysis.budget.BudgetedExecutor`, so the
budget (or Ctrl-C) stops whichever phase is running; the report then says what is
unfinished (``stats.unfinished`` for confirmation, ``unfinished`` in each finding for
classification) and rerunning the same command replays the stored orders and goes on.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from orderdep.analysis import classify as classifying  # looked up at call time (patchable)
from orderdep.analysis.budget import (
    CHECK_RESERVE,
    EXTENDED_SEARCH_SHARE,
    EXTENDED_SEARCH_SHARE_DETECT,
    SEARCH_SHARE,
    SEARCH_SHARE_CLASSIFY,
    Budget,
    BudgetedExecutor,
)
from orderdep.analysis.classify import ProgressCallback as ClassifyCallback
from orderdep.analysis.classify_steps import PHASES, Known
from orderdep.analysis.confirm_chunks import Evidence
from orderdep.analysis.detect import detect
from orderdep.core.report import ODFinding, Report
from orderdep.core.suite import GroupLevel
from orderdep.engine.executor import Executor

# What each OD test gets as soon as it is confirmed (the rest follows confirmation).
FIRST_PHASES = PHASES[:2]


def detect_within(
    executor: Executor,
    budget: Budget,
    *,
    then_classify: bool = False,
    all_cleaners: bool = False,
    jobs: int = 1,
    group: GroupLevel = "class",
    on_classify: Optional[ClassifyCallback] = None,
    then: Optional[Callable[[Report], list[ODFinding]]] = None,
    **detect_options: Any,
) -> Report:
    """Run :func:`~orderdep.analysis.detect.detect` (and, with ``then_classify``,
    :func:`~orderdep.analysis.classify.classify`) within ``budget``.

    ``detect_options`` are passed on to ``detect`` (strategies, seed, progress, ...); its
    search budget is the search share of ``budget``. ``then``: a check that runs once
    the search's finds are confirmed (each with its kind and one partner) and before the
    rest of classification, :data:`~orderdep.analysis.budget.CHECK_RESERVE` of the
    budget left now kept for it; the findings it returns join the report unclassified
    further (the collection check, whose orders collect part of the suite).
    """
    # the check's time is kept from the phases before it, however much they find
    first = budget.keeping(CHECK_RESERVE) if then is not None else budget
    bounded = BudgetedExecutor(executor, first, jobs)
    share = SEARCH_SHARE_CLASSIFY if then_classify else SEARCH_SHARE
    # Nothing failed by the end of the search's share: nothing to confirm or classify, so
    # the time kept for them goes to the search (all but what a late find needs).
    late = EXTENDED_SEARCH_SHARE if then_classify else EXTENDED_SEARCH_SHARE_DETECT

    def extend() -> Optional[float]:
        return bounded.extension(late)

    early = _FirstSteps(executor, first, on_classify, group, jobs) if then_classify else None
    report = detect(
        bounded,
        budget_seconds=first.share(share),
        jobs=jobs,
        group=group,
        classify_after=then_classify,
        extend_search=extend if first.seconds is not None else None,
        on_confirmed=early.take if early is not None else None,
        **detect_options,
    )
    if early is not None:
        early.merge(report)
    checked = then(report) if then is not None else []
    if then_classify and report.od_tests:  # a spent budget marks every finding unfinished
        searched = report.stats.orders_run - (early.orders if early is not None else 0)
        report = classifying.classify(
            executor,
            report,
            None,
            on_classify,
            group_level=group,
            budget=budget,
            all_cleaners=all_cleaners,
            jobs=jobs,
            resume=True,
            known=early.known if early is not None else None,
        )
        report.stats.extras["classify_orders"] = report.stats.orders_run - searched
    report.od_tests += checked
    return report


class _FirstSteps:
    """Each OD test's kind and one partner, as soon as confirmation decides it: what a
    repair needs and the report's reproduce commands, before confirmation spends more."""

    def __init__(
        self,
        executor: Executor,
        budget: Budget,
        on_classify: Optional[ClassifyCallback],
        group: GroupLevel,
        jobs: int,
    ) -> None:
        self.executor, self.budget, self.on_classify = executor, budget, on_classify
        self.group, self.jobs = group, jobs
        self.classified: dict[str, ODFinding] = {}
        self.nd: list[str] = []
        self.orders = self.executions = 0
        self.known = Known()

    def take(self, findings: list[ODFinding], seen: Evidence) -> None:
        self.known.seen.update(seen)  # the runs confirmation counted count here too
        suite = self.executor.suite
        part = Report(project=suite.rootdir, tests=list(suite.ids), od_tests=findings)
        out = classifying.classify(
            self.executor,
            part,
            None,
            self.on_classify,
            group_level=self.group,
            budget=self.budget,
            jobs=self.jobs,
            phases=FIRST_PHASES,
            known=self.known,
        )
        self.orders += out.stats.orders_run
        self.executions += out.stats.test_executions
        self.classified.update((f.test, f) for f in out.od_tests)
        self.nd += [t for t in out.nd_tests if t not in self.nd]

    def merge(self, report: Report) -> None:
        """Put what was classified into ``report`` (tests found ND move to its ND list)."""
        report.od_tests = [
            self.classified.get(f.test, f) for f in report.od_tests if f.test not in self.nd
        ]
        report.nd_tests += [t for t in self.nd if t not in report.nd_tests]
        report.stats.orders_run += self.orders
        report.stats.test_executions += self.executions


__all__ = ["detect_within"]
