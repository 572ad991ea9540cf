"""The fork check on the original order without its slow tests: a fresh pytest runs it,
against the fork runner's outcomes in its whole run, and the fork runner runs it too only
when they differ."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.analysis.test_fidelity_partial import checked_on_a_clock
from tests.engine.conftest import write_files

from orderdep.analysis.budget import Budget
from orderdep.analysis.fidelity import VerdictCache
from orderdep.analysis.fork_trust import trust_fork
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

#: The first test notes which runner ran it, one line a run.
FIRST = """
def test_0():
    import sys
    runner = "plain" if "orderdep.engine.plainplugin" in sys.modules else "fork"
    with open({log!r}, "a") as f:
        f.write(runner + "\\n")
"""
#: The third sleeps 3 s, and sets what the sixth reads.
SLOW = """
def test_2():
    import os, time
    time.sleep(3)
    os.environ["WITHOUT_SLOW_MARK"] = "1"
"""


def checked(tmp_path: Path, sixth: str) -> tuple[bool, str, list[str], list[str]]:
    """The check with --jobs 1, a budget of 12 s on a clock that stands still, on eleven
    tests of which the third is slow: whether it agreed, the runner kept, the runners
    that ran the first test (one entry a run) and the notices."""
    log = tmp_path / "runs.log"
    tests = [FIRST.format(log=str(log)), "def test_1():\n    pass\n", SLOW]
    tests += [f"def test_{i}():\n    pass\n" for i in range(3, 11)]
    tests[5] = sixth
    project = write_files(tmp_path / "p", {"tests/test_mostly_fast.py": "\n\n".join(tests)})
    notices: list[str] = []
    with Engine(EngineConfig(project, jobs=1)) as engine:
        report = trust_fork(engine, VerdictCache(tmp_path / "v.json"), notices.append,
                            Budget(12.0, clock=lambda: 0.0))  # fmt: skip
        faithful = report is not None and report.faithful
        runner = engine.runner
    return faithful, runner, log.read_text().split(), notices


def test_the_fork_runner_s_whole_run_stands_for_the_fast_tests(tmp_path: Path) -> None:
    faithful, runner, runs, notices = checked(tmp_path, "def test_5():\n    pass\n")
    assert faithful and runner == "fork", notices
    assert runs.count("fork") == 1, runs  # the original order, once
    assert any("on the original order's 10 fast tests the fork runner and a fresh pytest "
               "agree" in n for n in notices), notices  # fmt: skip
    assert not any("outcomes differ from its run of the whole order" in n for n in notices)


def test_outcomes_the_slow_test_changed_are_compared_on_the_same_order(tmp_path: Path) -> None:
    """The sixth test needs what the slow one sets: it passed in the fork runner's whole
    run and fails in the fresh pytest without the slow test. The fork runner then runs
    that order too, fails it as well, and the runners agree."""
    sixth = "def test_5():\n    import os\n    assert os.environ.get('WITHOUT_SLOW_MARK')\n"
    faithful, runner, runs, notices = checked(tmp_path, sixth)
    assert faithful and runner == "fork", notices
    assert runs.count("fork") == 2, runs  # the original order, then the one without test_2
    assert any("outcomes differ from its run of the whole order" in n for n in notices)


def test_a_fresh_pytest_cut_on_the_fast_tests_still_gives_a_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fresh pytest of the fast tests is cut at its ninth test (the share ends while
    it sleeps): the eight before it agree with the fork runner's whole run, more than a
    third of the order, and the fork runner is used."""
    marks = tmp_path / "marks"
    marks.mkdir()
    ninth = (
        "def test_9():\n"
        "    import os, sys, time\n"
        "    if 'orderdep.engine.plainplugin' in sys.modules:  # the fresh pytest\n"
        f"        open(os.path.join({str(marks)!r}, 'plain-at-9'), 'w').close()\n"
        "        time.sleep(3)\n"
    )
    tests = ["def test_0():\n    pass\n", "def test_1():\n    pass\n", SLOW]
    tests += [f"def test_{i}():\n    pass\n" for i in range(3, 11)]
    tests[9] = ninth
    project = write_files(tmp_path / "p", {"tests/test_mostly_fast.py": "\n\n".join(tests)})
    got = checked_on_a_clock(project, marks / "plain-at-9", 1000.0, 12.0, monkeypatch)
    assert got.report is not None and got.report.faithful, got.notices
    assert got.runner == "fork" and not got.cached
    assert any("ended after the first 8 of the original order's 10 fast tests, and on those "
               "the fork runner and a fresh pytest agree" in n for n in got.notices)  # fmt: skip
