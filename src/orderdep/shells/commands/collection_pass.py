"""``detect``'s collection check: each test file run as ``pytest FILE`` runs it.

The file runs come before the search (within
:data:`~orderdep.analysis.collection_check.FILES_SHARE` of the budget left); when a test failed
in one, the search's budget keeps the time to check it
(:func:`~orderdep.analysis.collection_check.seconds_to_keep`), and the check runs once the
search and classification are done, so that tests they found, and tests failing in every
order, are left out (:func:`~orderdep.analysis.collection_check.collection_brittles`).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import Any, Callable, Optional

from orderdep.analysis.budget import Budget
from orderdep.analysis.collection_check import (
    FILES_SHARE,
    STATS_KEY,
    FileRuns,
    collection_brittles,
    file_runs,
    seconds_to_keep,
)
from orderdep.analysis.collection_victims import collection_victims
from orderdep.core.report import OWN_FILE_KEY, Report
from orderdep.engine.plain import PlainRunner
from orderdep.engine.tempdirs import make_workdir
from orderdep.shells.explain import collects_part, pytest_command
from orderdep.shells.options import engine_config


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
        self._stack = ExitStack()
        self._runner: Optional[PlainRunner] = None

    def __enter__(self) -> CollectionPass:
        return self

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self._stack.close()

    def run_files(self) -> None:
        work = Path(self._stack.enter_context(make_workdir("orderdep-collection-")))
        self._runner = PlainRunner(engine_config(self.params), work / "plain")
        self._stack.callback(self._runner.close)
        self._runner.set_reference(self.ids)
        self.runs = file_runs(self._runner, self.ids, self.budget.part(self._of_left(FILES_SHARE)))
        if self.runs.files < 2:
            return
        failing = sum(len(t) for t in self.runs.failing.values())
        self.notice(
            f"orderdep: ran {self.runs.run} of {self.runs.files} test files alone as "
            f"`pytest FILE` runs them; {failing} test(s) failed there"
            + ("" if self.runs.complete else " (the rest did not fit the budget's share)")
        )

    def search_budget(self) -> Budget:
        """The budget the search and classification may use: all of it but the time
        checking the file runs' failing tests is expected to take."""
        if self.runs is None or not self.runs.failing or self.budget.seconds is None:
            return self.budget
        keep = seconds_to_keep(self.runs, self.budget.left())
        end = self.budget.seconds - keep - self.budget.elapsed()
        return self.budget.part(max(0.0, end) / self.budget.seconds)

    def _of_left(self, share: float) -> float:
        """The fraction of the whole budget that is ``share`` of what is left of it (what
        ran before, the fork runner's check of a slow suite say, is not counted twice)."""
        left, whole = self.budget.left(), self.budget.seconds
        return share if left is None or not whole else share * left / whole

    def check(self, report: Report) -> None:
        """Check the file runs' failing tests and add the brittles found to ``report``."""
        if self.runs is None or self._runner is None or self.runs.files < 2:
            return
        skip = [*(f.test for f in report.od_tests), *report.always_failing, *report.nd_tests]
        found = collection_brittles(self._runner, self.ids, self.runs, self.budget, skip)
        for finding in found:
            finding.extras[OWN_FILE_KEY] = "failed"
        found += collection_victims(
            self._runner, self.ids, self.runs, self.budget, report.always_failing
        )
        victims = {f.test for f in found if f.kind == "victim"}
        report.always_failing = [t for t in report.always_failing if t not in victims]
        report.od_tests += found
        report.stats.extras[STATS_KEY] = {
            "files": self.runs.files,
            "run": self.runs.run,
            "found": len(found),
        }
        if found:
            self.notice(
                f"orderdep: {len(found)} test(s) pass or fail only as `pytest FILE` runs "
                "them (only their own file collected): "
                + ", ".join(f.test for f in found[:3])
                + (" ..." if len(found) > 3 else "")
            )


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
