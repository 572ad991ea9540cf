"""``detect``'s collection check: each test file run as ``pytest FILE`` runs it.

It runs once the search's finds are confirmed, each with its kind and one partner, and
before the rest of classification (:func:`~orderdep.analysis.bounded.detect_within`'s
``then``): tests found already, and tests failing in every order, are known then
(:func:`~orderdep.analysis.collection_check.collection_brittles`,
:func:`~orderdep.analysis.collection_victims.collection_victims`).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import Any, Callable, Optional

from orderdep.analysis.budget import CHECK_RESERVE, Budget
from orderdep.analysis.collection_check import (
    STATS_KEY,
    FileRuns,
    collection_brittles,
    file_runs,
    files_in_order,
)
from orderdep.analysis.collection_victims import collection_victims
from orderdep.core.promise import SHORTFALLS_KEY, shortfalls
from orderdep.core.report import OWN_FILE_KEY, ODFinding, Report
from orderdep.engine.interrupts import stopped_after
from orderdep.engine.plain import PlainRunner
from orderdep.engine.tempdirs import make_workdir
from orderdep.shells.explain import collects_part, pytest_command
from orderdep.shells.options import engine_config

#: Of the budget left once the search's finds are confirmed, the check's share (the
#: rest classifies them further), and at least the share of the whole budget kept for
#: it (:data:`~orderdep.analysis.budget.CHECK_RESERVE`); all of it when the search found
#: nothing.
CHECK_SHARE = 0.5
#: Of the check's budget, the file runs' share (the rest checks what they showed).
FILES_SHARE = 0.6


class CollectionPass:
    """The plain runner the check uses, from the file runs to the findings."""

    def __init__(
        self,
        params: dict[str, Any],
        ids: Sequence[str],
        budget: Budget,
        notice: Callable[[str], None],
    ) -> None:
        self.params, self.ids, self.budget, self.notice = params, list(ids), budget, notice
        self.runs: Optional[FileRuns] = None
        self.found = 0
        self._stack = ExitStack()

    def __enter__(self) -> CollectionPass:
        return self

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self._stack.close()

    def __call__(self, report: Report) -> list[ODFinding]:
        """Run each test file alone, check the tests that failed (passed) there, and
        return the findings. ``report``: the search's, whose OD, failing-in-every-order and
        nondeterministic tests are left out of the brittles; its tests failing in every
        order are the victims' candidates, and those found leave that list. Within
        :data:`CHECK_SHARE` of the budget left, and at least what was kept for the check
        (all of it when the search found nothing, so that nothing else needs it), the
        file runs within :data:`FILES_SHARE` of that."""
        if not self.needed:
            return []
        share = max(self._of_left(CHECK_SHARE), CHECK_RESERVE) if report.od_tests else 1.0
        budget = self.budget.part(share)
        work = Path(self._stack.enter_context(make_workdir("orderdep-collection-")))
        runner = PlainRunner(engine_config(self.params), work / "plain")
        self._stack.callback(runner.close)
        runner.set_reference(self.ids)
        left = budget.left()
        files = budget.part(FILES_SHARE * left / budget.seconds if left and budget.seconds else 1)
        within = "" if left is None else f" (within {files.seconds or 0:.0f} s)"
        self.notice(
            "orderdep: collection check: running each test file as `pytest FILE` runs it, "
            f"in a fresh process{within}"
        )
        with stopped_after(runner, budget.left()):  # a run the budget's end finds is killed
            return self._check(runner, report, budget, files)

    def _check(
        self, runner: PlainRunner, report: Report, budget: Budget, files: Budget
    ) -> list[ODFinding]:
        self.runs = runs = file_runs(runner, self.ids, files)
        if runs.files < 2:
            return []
        failing = sum(len(t) for t in runs.failing.values())
        how = (
            "alone as `pytest FILE` runs them"
            if runs.most == 1
            else f"in {len(runs.seconds)} fresh pytests of up to {runs.most} files each "
            "(each alone did not fit)"
        )
        self.notice(
            f"orderdep: ran {runs.run} of {runs.files} test files {how}; "
            f"{failing} test(s) failed there"
            + ("" if runs.complete else " (the rest did not fit the budget's share)")
        )
        skip = [*(f.test for f in report.od_tests), *report.always_failing, *report.nd_tests]
        found = collection_brittles(runner, self.ids, runs, budget, skip)
        for finding in found:
            finding.extras[OWN_FILE_KEY] = "failed"
        found += collection_victims(runner, self.ids, runs, budget, report.always_failing)
        victims = {f.test for f in found if f.kind == "victim"}
        report.always_failing = [t for t in report.always_failing if t not in victims]
        self.found = len(found)
        if found:
            self.notice(
                f"orderdep: {len(found)} test(s) pass or fail only as `pytest FILE` runs "
                "them (only their own file collected): "
                + ", ".join(f.test for f in found[:3])
                + (" ..." if len(found) > 3 else "")
            )
        return found

    @property
    def needed(self) -> bool:
        """Whether the suite has two test files or more (with one, ``pytest FILE``
        collects what every order collects)."""
        return len(files_in_order(self.ids)) >= 2

    def _of_left(self, share: float) -> float:
        """The fraction of the whole budget that is ``share`` of what is left of it."""
        left, whole = self.budget.left(), self.budget.seconds
        return share if left is None or not whole else share * left / whole

    def record(self, report: Report) -> None:
        """Say in ``report`` how far the check went."""
        if self.runs is not None and self.runs.files >= 2:
            report.stats.extras[STATS_KEY] = {
                "files": self.runs.files,
                "run": self.runs.run,
                "found": self.found,
                "runs": len(self.runs.seconds),
                "most": self.runs.most,
            }
            # files not run are a shortfall of the search: not a clean result
            report.stats.extras[SHORTFALLS_KEY] = shortfalls(report)


def collecting_command(
    params: dict[str, Any], report: Report, test: str, order: Sequence[str], label: str
) -> Optional[str]:
    """The plain pytest command that shows ``order`` of a finding of the collection
    check, when it runs with only its files collected (the user's options kept, their
    paths left out); None for another finding, or an order run with the whole suite
    collected (which ``orderdep run`` runs)."""
    finding = next((f for f in report.od_tests if f.test == test), None)
    if finding is None or not collects_part(finding, label):
        return None
    config = engine_config(params)
    project = Path(params["project"])
    options = [a for a in config.pytest_args if not (project / a.split("::")[0]).exists()]
    return pytest_command(project, order, config.python, options)


__all__ = ["CollectionPass", "collecting_command"]
