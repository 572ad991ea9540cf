"""``fix`` within its budget: it takes the unpatched original order from the results
store when an earlier command (``detect``) recorded it for the same code version and
runner, and it keeps the set check's time from the sharing of blocks."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import pytest
from clitools import COUNTED, counted_project

from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.core.report import ODFinding, Report, save_report
from orderdep.engine.store import Store

if TYPE_CHECKING:
    from conftest import CliRunner

T = COUNTED
BODY = """
STATE = []


def test_victim():
    assert STATE == []


def test_pollute():
    STATE.append(1)
"""


def _project(root: Path, runs: Path) -> Path:
    finding = ODFinding(T + "test_victim", "victim", polluters=[T + "test_pollute"])
    return counted_project(root, runs, BODY, [finding])


def test_fix_runs_the_unpatched_suite_once_fewer_when_the_store_has_it(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None
) -> None:
    counts = {}
    for recorded in (False, True):
        runs = tmp_path / f"runs-{recorded}"
        root = _project(tmp_path / f"p-{recorded}", runs)
        if recorded:  # what detect recorded: the original order, all passing
            tests = [T + "test_victim", T + "test_pollute", T + "test_count"]
            store = Store.for_project(root)
            passed = [TestResult(t, Outcome.PASSED, 0.01) for t in tests]
            store.record(OrderResult(tests, passed, runner="fork", wall_seconds=0.1))
            store.close()
        code, out, err = cli("fix", root, "--no-check", "--apply")
        assert code == 0, out + err
        assert "STATE" in (root / "tests/test_s.py").read_text().split("def test_count")[0]
        counts[recorded] = runs.read_text().count("run")
        shutil.rmtree(root)
    # the suite's unpatched run came from the store; the patched runs are the same
    assert counts[True] == counts[False] - 1, counts


@pytest.mark.slow
def test_sharing_blocks_leaves_the_set_check_its_time(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Moving a block shared by several tests into one place is worth less than the set
    check that applies the patches: it ends where the time kept for that check starts."""
    from tests.analysis.repair.corpus_helpers import copy_project

    from orderdep.engine import deadline
    from orderdep.shells.commands import repair_cmds

    root = copy_project("brittle_shared_setup", tmp_path / "p")
    s = "tests/test_stock.py::"
    findings = [ODFinding(s + t, "brittle", state_setters=[s + "test_load"])
                for t in ("test_apples", "test_count")]  # fmt: skip
    tests = [s + "test_load", s + "test_apples", s + "test_count"]
    save_report(root / ".orderdep" / "report.json", Report(str(root), tests, findings))
    real_share, real_reserve = repair_cmds.share_setups, repair_cmds.set_check_reserve
    left_for_sharing: list[float] = []

    def reserve(repairer: Any, orders: int, fixed: int, budget: Optional[float]) -> float:
        return 100.0 if fixed else real_reserve(repairer, orders, fixed, budget)

    def share(*args: Any) -> None:
        left_for_sharing.append(deadline._stop_at[0] - time.monotonic())  # type: ignore[operator]
        real_share(*args)

    monkeypatch.setattr(repair_cmds, "set_check_reserve", reserve)
    monkeypatch.setattr(repair_cmds, "share_setups", share)
    code, out, err = cli("fix", root, "--apply", "--budget", "300")
    assert code == 0, out + err
    (left,) = left_for_sharing
    assert left < 200.0  # 300 s less what ran before, less the 100 s kept
