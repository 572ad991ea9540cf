"""``gc.collect()`` for a victim no root explains (garbage the collector has not freed)."""

from __future__ import annotations

from orderdep.analysis.repair.candidates.garbage import STATEMENTS, garbage_candidates
from orderdep.analysis.repair.locate.root_info import DebugResult
from orderdep.core.report import ODFinding

VICTIM = "tests/test_plugins.py::test_no_plugins_by_default"
POLLUTER = "tests/test_plugins.py::test_a_plugin_registers_itself"


def debugged(polluted: list[str]) -> DebugResult:
    return DebugResult(VICTIM, "victim", [POLLUTER, VICTIM], [VICTIM], polluted=polluted)


def test_offered_at_the_start_of_a_victim_the_debugger_found_no_culprit_for() -> None:
    finding = ODFinding(test=VICTIM, failing_order=[POLLUTER, VICTIM], passing_order=[VICTIM])
    (cand,) = garbage_candidates(finding, "victim", debugged([]))
    (insertion,) = cand.insertions
    assert cand.strategy == "restore"
    assert insertion.test == VICTIM and insertion.statements == STATEMENTS
    assert insertion.edit == "insert" and insertion.method is None


def test_not_offered_when_a_root_explains_it_for_a_brittle_or_without_a_debug_run() -> None:
    finding = ODFinding(test=VICTIM, failing_order=[POLLUTER, VICTIM], passing_order=[VICTIM])
    assert garbage_candidates(finding, "victim", debugged(["plugins.Plugin.x"])) == []
    assert garbage_candidates(finding, "brittle", debugged([])) == []
    assert garbage_candidates(finding, "victim", None) == []
