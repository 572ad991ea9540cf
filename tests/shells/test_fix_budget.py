"""What ``orderdep fix`` keeps of its budget for the set check, and when a slow suite
runs only there."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Optional

import pytest
from clitools import COUNTED, counted_project
from tests.analysis.repair.corpus_helpers import plain_outcomes

from orderdep.core.report import ODFinding, Report
from orderdep.shells.commands.fix_budget import (
    SET_CHECK_START,
    SUITE_IN_SET_SHARE,
    scope_to,
    set_check_reserve,
    suite_in_set,
    suite_in_set_note,
)

if TYPE_CHECKING:
    from conftest import CliRunner


def _repairer(seconds: Optional[float], in_set: bool = False) -> Any:
    return SimpleNamespace(
        verifier=SimpleNamespace(suite_seconds=lambda: seconds, suite_in_set=in_set)
    )


def test_the_time_kept_for_the_set_check_follows_the_suites_pace() -> None:
    assert set_check_reserve(_repairer(None), 20, 3, 300.0) == 0.0  # pace unknown yet
    assert set_check_reserve(_repairer(0.5), 20, 3, None) == 0.0  # no budget
    assert set_check_reserve(_repairer(0.5), 0, 0, 300.0) == 0.0  # nothing to check yet
    # nor before the first patch: a first patch's cut set check keeps it
    assert set_check_reserve(_repairer(0.5), 20, 0, 300.0) == 0.0
    assert set_check_reserve(_repairer(0.5), 20, 3, 300.0) == SET_CHECK_START + 0.5 * 21
    assert set_check_reserve(_repairer(60.0), 20, 3, 300.0) == 75.0  # a quarter at most


def test_a_suite_that_runs_only_in_the_set_check_gets_a_whole_run_kept() -> None:
    kept = set_check_reserve(_repairer(52.0, in_set=True), 20, 1, 120.0)
    assert 52.0 < kept < 120.0  # more than the quarter a suite checked per patch gets
    assert set_check_reserve(_repairer(52.0), 20, 1, 120.0) == 30.0
    # never more than the check itself takes
    assert set_check_reserve(_repairer(52.0, in_set=True), 0, 1, 120.0) == SET_CHECK_START + 52.0


def test_only_a_suite_slow_for_the_budget_runs_only_in_the_set_check() -> None:
    assert not suite_in_set(None, 120.0)  # its pace unknown
    assert not suite_in_set(52.0, None)  # no budget: every patch runs the suite
    assert not suite_in_set(SUITE_IN_SET_SHARE * 120.0, 120.0)
    assert suite_in_set(SUITE_IN_SET_SHARE * 120.0 + 1, 120.0)
    note = suite_in_set_note(52.4, 120.0)
    assert "52 s" in note and "120-s budget" in note and "--budget" in note


T = COUNTED
BODY = """
STATE = []
OTHER = {}


def test_victim():
    assert STATE == []


def test_other_victim():
    assert OTHER == {}


def test_pollute():
    STATE.append(1)


def test_pollute_other():
    OTHER["k"] = 1
"""


def _project(root: Path, runs: Path) -> Path:
    findings = [
        ODFinding(T + "test_victim", "victim", polluters=[T + "test_pollute"]),
        ODFinding(T + "test_other_victim", "victim", polluters=[T + "test_pollute_other"]),
    ]
    return counted_project(root, runs, BODY, findings)


def test_a_slow_suite_runs_once_with_the_patches_not_once_per_patch(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted by the runs of ``test_count``: with every suite taken as slow for the
    budget, the whole suite runs unpatched once and with both patches once, where
    otherwise each patch's verification runs it too."""
    from orderdep.shells.commands import fix_budget

    counts: dict[bool, int] = {}
    for in_set in (False, True):
        monkeypatch.setattr(fix_budget, "SUITE_IN_SET_SHARE", 0.0 if in_set else 1.0)
        runs = tmp_path / f"runs-{in_set}"
        root = _project(tmp_path / f"p-{in_set}", runs)
        code, out, err = cli(
            "fix", root, "--no-check", "--apply", "--budget", "300", "--set-orders", "0"
        )
        assert code == 0, out + err
        assert ("each patch is verified in its own orders" in err) == in_set
        assert "2 patch(es) for 2 OD test(s) hold together" in out
        counts[in_set] = runs.read_text().count("run")
        outcomes = plain_outcomes(
            root, [[T + "test_pollute", T + "test_victim"],
                   [T + "test_pollute_other", T + "test_other_victim"]], tmp_path / f"w-{in_set}",
        )  # fmt: skip
        assert all(set(o.values()) == {"passed"} for o in outcomes), outcomes
    assert counts == {False: 4, True: 2}, counts


def test_a_part_whose_ids_changed_per_process_still_scopes_the_check() -> None:
    """The report names a test of the part under the id of detect's process (a temporary
    path in its parameter); fix's collection names it under its own: same part."""
    ids = ["t.py::test_file[/tmp/b/a.txt]", "t.py::test_b", "t.py::test_c", "t.py::test_d"]
    report = Report(project="/p", tests=["t.py::test_file[/tmp/a/a.txt]", *ids[1:]])
    repairer = SimpleNamespace(
        engine=SimpleNamespace(suite=SimpleNamespace(ids=ids)),
        verifier=SimpleNamespace(scope=None),
    )
    scope_to(repairer, report, 3)  # type: ignore[arg-type]
    assert repairer.verifier.scope == ids[:3]
    other = Report(project="/p", tests=["t.py::test_b", *ids[1:]])  # another test first
    repairer.verifier.scope = None
    scope_to(repairer, other, 3)  # type: ignore[arg-type]
    assert repairer.verifier.scope is None
