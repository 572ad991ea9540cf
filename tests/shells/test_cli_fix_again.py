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
