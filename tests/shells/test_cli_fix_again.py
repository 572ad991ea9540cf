"""``fix`` on a test with a second relation the report does not name: its verified patch
fails in a random order of the set check, and the test is repaired again for that order."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from orderdep.core.report import ODFinding, Report, save_report

if TYPE_CHECKING:
    from conftest import CliRunner


@pytest.mark.slow
def test_a_brittle_that_is_also_a_victim_gets_its_set_up_and_a_reset_in_one_patch(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None
) -> None:
    from tests.analysis.repair.corpus_helpers import copy_project, plain_outcomes

    root = copy_project("brittle_then_victim_queue", tmp_path / "p")
    t = "tests/test_queue.py::"
    brittle, setter, filler = t + "test_put_get", t + "test_connect", t + "test_fill"
    # the report knows it as a brittle of test_connect; that test_fill leaves items in
    # the queue shows only once it is set up
    finding = ODFinding(brittle, "brittle", state_setters=[setter])
    tests = [setter, brittle, filler]
    save_report(root / ".orderdep" / "report.json", Report(str(root), tests, [finding]))
    code, out, err = cli("fix", root, "--apply")
    assert code == 0, out + err
    assert f"fix for {brittle} (brittle): cleaner" in out  # test_connect's statement
    assert "failed in random order" in out and f"fix for {brittle} (brittle) replaced" in out
    assert "patch set: 1 patch(es) for 1 OD test(s) hold together" in out
    text = (root / "tests/test_queue.py").read_text()
    assert text.count("queue.connect()") == 3  # the set-up once, beside the two tests'
    assert "queue._items" in text  # the items test_fill leaves are put back
    orders = [[brittle], [filler, brittle], [setter, filler, brittle], tests]
    for outcome in plain_outcomes(root, orders, tmp_path / "work"):
        assert set(outcome.values()) == {"passed"}, outcome


@pytest.mark.slow
def test_the_set_that_held_before_the_repairs_again_is_applied_when_fewer_hold_after(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check after a repair again keeps fewer patches (its budget ended, say): the
    set checked before, which the new patch is not part of, is what goes into the files."""
    from tests.analysis.repair.corpus_helpers import copy_project

    from orderdep.shells.commands import repair_cmds

    root = copy_project("cwd_session_files", tmp_path / "p")
    t = "tests/test_report.py::"
    victim, polluter = t + "test_without_summary", t + "test_summary"
    finding = ODFinding(victim, "victim", polluters=[polluter])
    tests = [t + "test_table", victim, polluter]
    save_report(root / ".orderdep" / "report.json", Report(str(root), tests, [finding]))
    real, other = repair_cmds.check_set, "tests/test_other.py::test_other"
    calls: list[int] = []

    def check_set(*args: object) -> tuple[list[str], dict[str, object], dict[str, str]]:
        calls.append(1)
        if len(calls) > 1:  # after the repair again: nothing held in time
            return [], {}, {}
        kept, changes, _ = real(*args)  # type: ignore[arg-type]
        return kept, changes, {other: f"{other} failed in random order 1 (seed 0)"}

    monkeypatch.setattr(repair_cmds, "check_set", check_set)
    monkeypatch.setattr(repair_cmds, "retry_left_out", lambda *args: [other])
    _, out, err = cli("fix", root, "--apply", "--strategy", "restore")
    assert len(calls) == 2, out + err
    assert "patch(es) that held before the repairs again are applied" in out, out
    text = (root / "tests/test_report.py").read_text()
    assert "results_summary.tsv" in text, text  # the patch that held is in the file
