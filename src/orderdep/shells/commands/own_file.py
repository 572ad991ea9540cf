"""Brittle tests that pass as ``pytest ID`` runs them, checked once and said.

orderdep runs every order with the whole suite collected, as shuffled runs and xdist
workers do: the import-time code of every test module has run before the first test. A
test can then fail alone (a helper module imported by another test file selects a
setting at import) and still pass when a user runs ``pytest ID``, which collects only its
file. That is a real order dependence of the suite, but a verdict its reader cannot
reproduce the obvious way looks false; so each brittle is run once that way, with plain
pytest, and the report says what it did (:data:`~orderdep.core.finding.OWN_FILE_KEY`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orderdep.analysis.budget import Budget
from orderdep.core.report import OWN_FILE_KEY, Report
from orderdep.engine.plain import PlainRunner
from orderdep.engine.tempdirs import make_workdir
from orderdep.shells.options import engine_config
from orderdep.shells.output import notice


def check_own_files(params: dict[str, Any], report: Report, budget: Budget) -> None:
    """Each brittle of ``report`` not checked yet, run alone as ``pytest ID`` would, its
    outcome recorded in the finding; stops when ``budget`` does."""
    todo = [f for f in report.od_tests if f.kind == "brittle" and OWN_FILE_KEY not in f.extras]
    if not todo or budget.stopped:
        return
    notice(f"orderdep: running {len(todo)} brittle test(s) alone as `pytest ID` runs them")
    with make_workdir("orderdep-own-file-") as work:
        runner = PlainRunner(engine_config(params), Path(work) / "plain")
        try:
            for finding in todo:
                if budget.stopped:
                    break
                result = runner.run_in_own_file(finding.test)
                seen = [r.outcome for r in result.results if r.test == finding.test]
                if seen:
                    finding.extras[OWN_FILE_KEY] = seen[-1].value
        finally:
            runner.close()


__all__ = ["check_own_files"]
