"""``orderdep doctor`` and the fidelity check the analysing commands run first."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.engine.conftest import write_files

from orderdep.analysis import fidelity
from orderdep.core.fidelity import FidelityReport, SampleOrder
from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.engine.store import Store, recorded_walls
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


@pytest.mark.slow
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


def test_doctor_side_by_side_finds_the_same_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_files(tmp_path / "p", FORK_SENSITIVE)
    argv = ["doctor", str(project), "--seed", "1", "--random", "1", "--singles", "2", "-j", "3"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "fork failed, subprocess passed, plain passed" in out and PID_TEST in out


@pytest.mark.slow
def test_doctor_on_a_faithful_project_reports_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_files(tmp_path / "p", FAITHFUL)
    assert main(["doctor", str(project), "--seed", "2", "--random", "1", "--singles", "2"]) == 0
    out = capsys.readouterr().out
    # original, reverse, each test alone (two tests: no random order is worth it)
    assert out.startswith("no mismatch: 4 of 4 orders (6 of 6 positions)")


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


# Two tests that take a while: the original order alone costs more than a tiny budget.
SLOW = {
    "pytest.ini": "[pytest]\n",
    "tests/test_slow.py": """
        import time

        def test_one():
            time.sleep(0.2)

        def test_two():
            time.sleep(0.2)
        """,
}
CHECKED = re.compile(r"checked (\d+) of (\d+) orders before the budget ran out; not a clean result")


def _samples_drawn(monkeypatch: pytest.MonkeyPatch) -> list[list[SampleOrder]]:
    """Every sample a check runs, as it is drawn."""
    drawn: list[list[SampleOrder]] = []
    real = fidelity.run_sample

    def spy(samples: Sequence[SampleOrder], *args: Any, **kw: Any) -> Any:
        drawn.append(list(samples))
        return real(samples, *args, **kw)

    monkeypatch.setattr(fidelity, "run_sample", spy)
    return drawn


@pytest.mark.slow
def test_a_budget_too_small_for_the_sample_is_no_clean_result_and_says_how_to_go_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = write_files(tmp_path / "p", SLOW)
    drawn = _samples_drawn(monkeypatch)
    argv = ["doctor", str(project), "--random", "1", "--singles", "2", "--budget", "0.5"]
    assert main(argv) == 3
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    # Before it starts: original, reverse, each test alone, under three runners.
    assert (
        "4 orders of 2 tests or fewer under 3 runners (fork, subprocess, plain): about 18 "
        "test executions; 8 of the runs start a fresh pytest process"
    ) in err
    match = CHECKED.search(out)
    assert match is not None and int(match[1]) < int(match[2]) == 4
    assert ("no mismatch in what was checked" in out) == (match[1] != "0")
    assert "no verdict was cached for detect" in out
    assert not (project / ".orderdep" / "fidelity.json").exists()  # nothing for detect
    go_on = out.split("to check the whole sample (the same 4 orders), rerun: ")[1].strip()
    seed = re.search(r"seed (\d+)", err)
    assert seed is not None
    args = shlex.split(go_on)
    assert args[:2] == ["orderdep", "doctor"] and args.count("--budget") == 1
    assert args[args.index("--seed") + 1] == seed[1]
    assert float(args[args.index("--budget") + 1]) >= 1.0  # at least twice the budget
    # The command goes on with the same sample; with its budget it normally checks it
    # all (a very slow machine may need more: then it says so again, exit 3).
    code = main(args[1:])
    assert drawn[1] == drawn[0]
    again = capsys.readouterr().out
    if code == 0:
        assert again.startswith("no mismatch: 4 of 4 orders (6 of 6 positions)")
        assert (project / ".orderdep" / "fidelity.json").exists()  # a whole verdict
    else:
        assert code == 3 and CHECKED.search(again)


def test_allow_incomplete_makes_a_partial_sample_with_no_mismatch_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_files(tmp_path / "p", SLOW)
    argv = ["doctor", str(project), "--random", "1", "--singles", "2", "--budget", "0.5"]
    assert main([*argv, "--allow-incomplete"]) == 0
    out = capsys.readouterr().out
    assert "before the budget ran out; not a clean result" in out  # still said


def test_the_cost_is_priced_by_an_earlier_run_of_the_original_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_files(tmp_path / "p", FAITHFUL)
    ids = ["tests/test_a.py::test_adds", "tests/test_a.py::test_empty"]
    store = Store.for_project(project)
    passed = [TestResult(t, Outcome.PASSED) for t in ids]
    store.record(OrderResult(ids, passed, runner="fork", wall_seconds=0.25))
    store.close()
    assert recorded_walls(project / ".orderdep" / "results.db", project, ids) == {"fork": 0.25}
    assert recorded_walls(project / "missing.db", project, ids) == {}
    assert main(["doctor", str(project), "--seed", "2", "--random", "1", "--singles", "2"]) == 0
    err = capsys.readouterr().err
    # 6 positions under 3 runners, each test 0.125 s: about 2 s of tests
    assert (
        "the original order took 0.2 s in an earlier run, so the tests alone take about 2 s" in err
    )
    assert "the original order took fork " in err and "the whole sample takes about" in err


def test_a_mismatch_found_before_the_budget_ran_out_is_a_finding_that_says_what_is_left() -> None:
    from orderdep.shells.commands import doctor_cmds
    from orderdep.shells.exitcodes import verdict_code

    report = FidelityReport(["fork", "plain"], planned=4, planned_positions=6)
    order = ["tests/test_pid.py::test_other", PID_TEST]
    report.add(
        SampleOrder("original", tuple(order)),
        {
            "fork": OrderResult(order, [TestResult(order[0], Outcome.PASSED),
                                        TestResult(PID_TEST, Outcome.FAILED)]),
            "plain": OrderResult(order, [TestResult(t, Outcome.PASSED) for t in order]),
        },
    )  # fmt: skip
    go_on = "orderdep doctor p --budget 20 --seed 1"
    lines = doctor_cmds._verdict_lines({"project": Path("p")}, report, go_on)
    assert lines[0] == (
        "1 mismatch(es) in 1 test(s): 1 of 4 orders (2 of 6 positions) under fork, plain"
    )
    assert lines[-1] == (
        "checked 1 of 4 orders before the budget ran out; more may differ. To check them "
        f"all, rerun: {go_on}"
    )
    assert verdict_code(found=not report.faithful, complete=report.complete) == 1


def test_a_budget_spent_before_the_first_order_checked_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_files(tmp_path / "p", FAITHFUL)
    argv = ["doctor", str(project), "--seed", "3", "--random", "1", "--budget", "0.001"]
    assert main(argv) == 3
    out = capsys.readouterr().out
    assert out.startswith("checked 0 of 4 orders before the budget ran out; not a clean result")
    assert "nothing was checked: collecting the suite and starting the runners took" in out
    go_on = shlex.split(out.split("rerun: ")[1])
    # the same arguments, the budget raised (to 3x what collecting took, in round tens)
    assert go_on[:-2] == ["orderdep", *argv[:-2]] and go_on[-2] == "--budget"
    assert float(go_on[-1]) >= 10
