"""A search that did not run whole is never a clean result: ``detect`` says what did not
run, exits 3 (0 only with ``--allow-incomplete``), and prints the command that goes on,
which is run back here; the report, the HTML page and the JUnit file say it too."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import MOD, VICTIM, write_files

from orderdep.core.promise import SHORTFALLS_KEY
from orderdep.core.report import load_report
from orderdep.shells.exitcodes import INCOMPLETE

if TYPE_CHECKING:
    from conftest import CliRunner

GO_ON = "orderdep: to go on where it stopped, rerun: "


@pytest.fixture
def slow_to_collect(od_project: Path) -> Path:
    """The od project, with a conftest that takes a second to import: a one-second budget
    is spent before any order can run, however fast the machine."""
    (od_project / "conftest.py").write_text("import time\ntime.sleep(1.0)\n")
    return od_project


def go_on_command(out: str) -> list[str]:
    lines = [line for line in out.splitlines() if line.startswith(GO_ON)]
    assert len(lines) == 1, out
    argv = shlex.split(lines[0][len(GO_ON) :])
    assert argv[0] == "orderdep"
    return argv[1:]


@pytest.mark.slow
def test_a_budget_spent_before_the_search_exits_3_and_says_what_did_not_run(
    cli: CliRunner, slow_to_collect: Path, tmp_path: Path
) -> None:
    junit = tmp_path / "junit.xml"
    argv = ["detect", slow_to_collect, "--budget", "1", "--junitxml", junit]
    code, out, err = cli(*argv)
    assert code == INCOMPLETE, out + err
    assert "no order-dependent tests found" not in out
    assert "no order-dependent test found in what ran, but the search did not run whole" in out
    assert "orderdep: stopped before the end;" in out
    assert "original: 0 of 1 planned orders ran (the budget ran out)" in out
    report = load_report(slow_to_collect / ".orderdep" / "report.json")
    assert report.stats.extras[SHORTFALLS_KEY]
    xml = junit.read_text()
    assert 'name="search incomplete"' in xml and 'errors="1"' in xml
    assert "no order-dependent tests" not in xml
    # The printed command runs, and goes on as it says (here the budget is spent again).
    again = go_on_command(out)
    assert again[:4] == ["detect", str(slow_to_collect), "--budget", "1"]
    code, out, err = cli(*again)
    assert code == INCOMPLETE, out + err
    # With time for the search, the same seed finds the victim.
    seed = again[again.index("--seed") + 1]
    code, out, err = cli("detect", slow_to_collect, "--budget", "120", "--seed", seed)
    assert code == 1, out + err
    assert VICTIM in out and GO_ON not in out


def test_allow_incomplete_exits_0_and_still_says_what_did_not_run(
    cli: CliRunner, slow_to_collect: Path
) -> None:
    code, out, err = cli("detect", slow_to_collect, "--budget", "1", "--allow-incomplete")
    assert code == 0, out + err
    assert "the search did not run whole" in out and GO_ON in out


def test_allow_incomplete_is_a_configuration_key(cli: CliRunner, slow_to_collect: Path) -> None:
    (slow_to_collect / "pytest.ini").write_text("[pytest]\n\n[orderdep]\nallow-incomplete = true\n")
    code, out, err = cli("detect", slow_to_collect, "--budget", "1")
    assert code == 0, out + err
    assert "the search did not run whole" in out


def test_a_complete_search_with_nothing_found_exits_0(cli: CliRunner, tmp_path: Path) -> None:
    project = write_files(
        tmp_path / "clean",
        {"pytest.ini": "[pytest]\n", MOD: "def test_a():\n    pass\n\ndef test_b():\n    pass\n"},
    )
    code, out, err = cli("detect", project, "--budget", "120")
    assert code == 0, out + err
    assert "no order-dependent tests found" in out and GO_ON not in out


@pytest.mark.slow
def test_a_slow_suite_with_a_thread_started_at_import_is_not_called_clean(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fork is refused (a thread is alive after collection), every order pays a fresh
    pytest, and the budget buys the original order only: exit 3, not "none found"."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    slow = "\n".join(f"def test_{i}():\n    import time\n    time.sleep(1.0)\n" for i in range(4))
    project = write_files(
        tmp_path / "threads",
        {
            "pytest.ini": "[pytest]\n",
            "conftest.py": (
                "import threading, time\n"
                "threading.Thread(target=time.sleep, args=(600,), daemon=True, "
                "name='metrics-flusher').start()\n"
            ),
            "tests/test_slow.py": slow,
        },
    )
    code, out, err = cli("detect", project, "--budget", "5")
    # the refused fork names the thread, where it was started, and what to do
    assert "metrics-flusher (started at conftest.py:2)" in err
    assert "start such threads on first use (in a fixture) rather than at import" in err
    assert code == INCOMPLETE, out + err
    assert "the search did not run whole" in out and GO_ON in out


@pytest.mark.slow
def test_ctrl_c_in_the_search_prints_what_ran_that_it_is_incomplete_and_how_to_go_on(
    tmp_path: Path,
) -> None:
    tests = "\n".join(f"def test_{i}():\n    import time\n    time.sleep(0.3)\n" for i in range(8))
    project = write_files(tmp_path / "proj", {"pytest.ini": "[pytest]\n", MOD: tests})
    env = {**os.environ, "PYTEST_ADDOPTS": "-p no:hypothesispytest"}
    argv = [sys.executable, "-c", "from orderdep.shells.cli import run; run()"]
    proc = subprocess.Popen(
        [*argv, "detect", str(project), "--strategy", "tuscan", "--no-check", "--seed", "3"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stderr is not None
    seen = []
    deadline = time.monotonic() + 120
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("orderdep: search: tuscan") or time.monotonic() > deadline:
            break
    time.sleep(1.0)  # some of tuscan's orders run
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, "".join(seen) + err
    assert "no order-dependent tests found" not in out
    assert "the search did not run whole" in out
    assert "tuscan: " in out and "planned orders ran (it was interrupted)" in out
    assert f"{GO_ON}orderdep detect {project} --strategy tuscan --no-check --seed 3" in out


def test_the_html_report_and_the_annotations_say_the_search_did_not_run_whole(
    cli: CliRunner, slow_to_collect: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, _ = cli("detect", slow_to_collect, "--budget", "1")
    assert code == INCOMPLETE
    warning = [line for line in out.splitlines() if line.startswith("::warning")]
    assert len(warning) == 1 and "title=orderdep%3A search incomplete::" in warning[0]
    assert "original: 0 of 1 planned orders ran" in warning[0]
    html = tmp_path / "report.html"
    code, _, err = cli("report", slow_to_collect, "--html", html)
    assert code == 0, err
    page = html.read_text()
    assert "The search did not run whole" in page
    assert "original: 0 of 1 planned orders ran (the budget ran out)" in page
