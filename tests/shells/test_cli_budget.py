"""``--budget`` and Ctrl-C for ``detect --classify`` and ``classify`` on a real project:
the report is written with what is known and what is unfinished, and the printed command
resumes (it is run back here)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from clitools import write_files

from orderdep.analysis import classify_steps
from orderdep.analysis.budget import UNFINISHED_KEY
from orderdep.core.report import load_report

if TYPE_CHECKING:
    from conftest import CliRunner

REGISTRY = "tests/test_registry.py"
VICTIM = f"{REGISTRY}::RegistryTest::test_empty_at_start"
POLLUTER = f"{REGISTRY}::RegistryTest::test_register"
CLEANER = f"{REGISTRY}::RegistryTest::test_clear"
BRITTLE = "tests/test_config.py::test_reads_configured_mode"
SETTER = "tests/test_config.py::test_configure"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A plugin registry (unittest, setUpClass) with a polluter and a cleaner, an env-style
    config singleton with a state-setter, and parametrized fillers."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    return write_files(
        tmp_path / "proj",
        {
            "pytest.ini": "[pytest]\n",
            "app/__init__.py": "",
            "app/registry.py": """
                PLUGINS = {}

                def register(name, factory):
                    PLUGINS[name] = factory

                def reset():
                    PLUGINS.clear()
            """,
            "app/config.py": """
                SETTINGS = {}
            """,
            "conftest.py": "",
            REGISTRY: """
                import unittest

                from app import registry

                class RegistryTest(unittest.TestCase):
                    @classmethod
                    def setUpClass(cls):
                        cls.names = ["csv", "json"]

                    def test_empty_at_start(self):
                        self.assertEqual(registry.PLUGINS, {})

                    def test_register(self):
                        registry.register(self.names[0], object)
                        self.assertIn("csv", registry.PLUGINS)

                    def test_clear(self):
                        registry.reset()
                        self.assertEqual(registry.PLUGINS, {})
            """,
            "tests/test_config.py": """
                import pytest

                from app import config

                def test_configure():
                    config.SETTINGS["mode"] = "fast"

                def test_reads_configured_mode():
                    assert config.SETTINGS.get("mode") == "fast"

                @pytest.mark.parametrize("n", range(6))
                def test_filler(n):
                    assert n >= 0
            """,
        },
    )


def resume_line(out: str) -> list[str]:
    prefix = "orderdep: to go on where it stopped, rerun: "
    lines = [line for line in out.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, out
    return shlex.split(lines[0][len(prefix) :])


def test_ctrl_c_during_classification_saves_the_report_and_the_command_resumes(
    cli: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = classify_steps.find_cleaners
    calls = []

    def interrupted(*args: Any, **kwargs: Any) -> list[str]:
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(classify_steps, "find_cleaners", interrupted)
    code, out, err = cli(
        "detect", project, "--classify", "--strategy", "reverse", "--group", "none"
    )
    assert code == 130, err
    assert "interrupted; finished orders are kept in the store" in err
    report = load_report(project / ".orderdep" / "report.json")
    victim = report.finding(VICTIM)
    assert victim is not None and victim.kind == "victim"
    assert victim.polluters == [POLLUTER]  # known before the stop, kept
    assert victim.extras[UNFINISHED_KEY]["cleaners"] == "not searched (interrupted)"
    assert f"  {VICTIM}: cleaners not searched (interrupted)" in out
    argv = resume_line(out)
    assert argv[:3] == ["orderdep", "detect", str(project)] and "--seed" in argv

    code, out, err = cli(*argv[1:])
    assert code == 1, err
    assert "orderdep: resumed:" in err
    report = load_report(project / ".orderdep" / "report.json")
    victim = report.finding(VICTIM)
    assert victim is not None and victim.cleaners == {POLLUTER: [CLEANER]}
    assert UNFINISHED_KEY not in victim.extras
    brittle = report.finding(BRITTLE)
    assert brittle is not None and brittle.state_setters == [SETTER]
    assert "to go on where it stopped" not in out


@pytest.mark.slow
def test_classify_with_a_spent_budget_marks_every_test_and_prints_a_command_that_runs(
    cli: CliRunner, project: Path
) -> None:
    code, out, err = cli(
        "detect", project, "--strategy", "reverse", "--group", "none", "--seed", "2"
    )
    assert code == 1, err
    code, out, err = cli("classify", project, "--budget", "0.01")
    assert code == 1, err
    report = load_report(project / ".orderdep" / "report.json")
    # the kind comes from the orders detect confirmed; every later step is marked
    assert report.od_tests and all(f.kind is not None for f in report.od_tests)
    for f in report.od_tests:
        marks = f.extras[UNFINISHED_KEY]
        assert marks and "kind" not in marks, marks
        assert all(m.endswith("(budget)") for m in marks.values()), marks
    argv = resume_line(out)
    assert argv[1:] == ["classify", str(project), "--budget", "0.01"]
    code, again, err = cli(*argv[1:])  # the same command runs (and stops the same way)
    assert code == 1 and resume_line(again) == argv, err
    code, out, err = cli("classify", project)  # with time enough it finishes
    assert code == 0 or code == 1, err
    report = load_report(project / ".orderdep" / "report.json")
    assert all(f.kind is not None and UNFINISHED_KEY not in f.extras for f in report.od_tests)
    assert "to go on where it stopped" not in out


@pytest.mark.slow
def test_a_budget_spent_in_the_fork_check_writes_a_report_and_says_what_to_do(
    cli: CliRunner, tmp_path: Path
) -> None:
    """The fork check may use a share of ``--budget``: when one run of the suite does not
    fit, the check stops, the subprocess runner is used, and the command ends at its
    budget with a valid report that is not called clean (exit 3) and says how to go on;
    without the budget, the same command checks, searches and finds."""
    project = write_files(
        tmp_path / "slow",
        {
            "tests/test_jobs.py": """
                import time

                QUEUE = []

                def test_slow_import_of_the_dataset():
                    time.sleep(4)

                def test_enqueue():
                    QUEUE.append("job")

                def test_queue_starts_empty():
                    assert QUEUE == []
            """,
        },
    )
    args = ("detect", project, "--strategy", "reverse", "--seed", "1", "--confirm-runs", "1")
    code, out, err = cli(*args, "--jobs", "2", "--budget", "1")
    assert code == 3, err
    assert re.search(r"did not finish within its share of the budget \(0\.\d s\); ", err), err
    assert (
        "s); using the subprocess runner, "
        "which needs no check (each order in a fresh pytest, slower). To let the check "
        "finish once (its verdict is kept for this code version), rerun with a larger "
        "--budget (now 1 s); --no-check uses the fork runner unchecked"
    ) in err
    assert "orderdep: to go on where it stopped, rerun: orderdep detect" in out
    report = load_report(project / ".orderdep" / "report.json")
    assert report.od_tests == [] and report.stats.extras["stop_reason"] == "budget"
    assert not (project / ".orderdep" / "fidelity.json").exists()
    code, _, err = cli(*args)
    assert code == 1, err
    assert "the budget ran out" not in err
    report = load_report(project / ".orderdep" / "report.json")
    assert [f.test for f in report.od_tests] == ["tests/test_jobs.py::test_queue_starts_empty"]


def test_progress_lines_say_how_much_of_the_budget_is_left(cli: CliRunner, project: Path) -> None:
    code, _, err = cli("detect", project, "--classify", "--budget", "600", "--seed", "1")
    assert code == 1, err
    lines = [line for line in err.splitlines() if line.startswith("orderdep: classify [")]
    left = [line for line in lines if re.search(r"; \d+ s of the budget left\)$", line)]
    assert left, err
