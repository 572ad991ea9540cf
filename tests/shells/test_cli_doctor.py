"""``orderdep doctor`` and the fidelity check the analysing commands run first."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from tests.engine.conftest import write_files

from orderdep.analysis import fidelity
from orderdep.shells.cli import main

FAITHFUL = {
    "pytest.ini": "[pytest]\n",
    "app.py": "ITEMS = []\n",
    "tests/test_a.py": """
        import app

        def test_adds():
            app.ITEMS.append(1)

        def test_empty():
            assert app.ITEMS == []
        """,
}
# A test that cannot behave the same in a forked child: it compares pids.
FORK_SENSITIVE = {
    "pytest.ini": "[pytest]\n",
    "tests/test_pid.py": """
        import os

        PID = os.getpid()

        def test_same_process_as_import():
            assert os.getpid() == PID, "imported in another process"

        def test_other():
            pass
        """,
}
PID_TEST = "tests/test_pid.py::test_same_process_as_import"


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def test_doctor_finds_a_planted_mismatch_and_its_commands_show_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_files(tmp_path / "p", FORK_SENSITIVE)
    code = main(["doctor", str(project), "--seed", "1", "--random", "1", "--singles", "2"])
    out = capsys.readouterr().out
    assert code == 1
    assert "mismatch(es) in 1 test(s)" in out and PID_TEST in out
    assert "fork failed, subprocess passed, plain passed" in out
    fork_cmd = next(line.split("compare: ")[1] for line in out.splitlines() if "compare:" in line)
    sub_cmd = next(line.split("and: ")[1] for line in out.splitlines() if " and: " in line)
    assert shlex.split(fork_cmd)[:3] == ["orderdep", "run", str(project)]
    assert main(shlex.split(fork_cmd)[1:]) == 1  # the fork runner fails it ...
    assert main(shlex.split(sub_cmd)[1:]) == 0  # ... a fresh process passes it
    verdicts = json.loads((project / ".orderdep" / "fidelity.json").read_text())
    assert [v["mismatches"][0]["test"] for v in verdicts.values()] == [PID_TEST]


def test_doctor_on_a_faithful_project_reports_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_files(tmp_path / "p", FAITHFUL)
    assert main(["doctor", str(project), "--seed", "2", "--random", "1", "--singles", "2"]) == 0
    out = capsys.readouterr().out
    # original, reverse, each test alone (two tests: no random order is worth it)
    assert out.startswith("no mismatch: 4 of 4 orders (6 positions)")


def test_detect_checks_once_then_trusts_the_cached_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = write_files(tmp_path / "p", FORK_SENSITIVE)
    assert main(["detect", str(project), "--seed", "1"]) == 0
    err = capsys.readouterr().err
    assert f"the fork runner and a fresh pytest disagree on {PID_TEST}" in err
    assert "using the subprocess runner (see `orderdep doctor`)" in err
    # The pid test is no OD test and no ND test: only fresh processes were trusted.
    report = json.loads((project / ".orderdep" / "report.json").read_text())
    assert report["od_tests"] == [] and report.get("nd_tests", []) == []
    runs: list[object] = []
    real = fidelity.PlainRunner.run
    monkeypatch.setattr(fidelity.PlainRunner, "run", lambda *a: runs.append(a) or real(*a))
    assert main(["detect", str(project), "--seed", "1"]) == 0
    assert "disagree" in capsys.readouterr().err and runs == []  # cached, not rerun


def test_no_check_skips_the_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = write_files(tmp_path / "p", FORK_SENSITIVE)
    main(["detect", str(project), "--seed", "1", "--no-check"])
    assert "disagree" not in capsys.readouterr().err
    assert not (project / ".orderdep" / "fidelity.json").exists()


def test_a_faithful_project_keeps_the_fork_runner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_files(tmp_path / "p", FAITHFUL)
    assert main(["detect", str(project), "--seed", "1"]) == 1  # test_empty is a victim
    assert "disagree" not in capsys.readouterr().err
    verdicts = json.loads((project / ".orderdep" / "fidelity.json").read_text())
    (verdict,) = verdicts.values()
    # The original order, then test_empty (failing there) alone.
    assert verdict["mismatches"] == [] and verdict["orders"] == 2
