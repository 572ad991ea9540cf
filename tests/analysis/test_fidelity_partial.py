"""A fork check its share of the budget cut short (:mod:`orderdep.analysis.fidelity_partial`):
what both runners ran to an end still gives a verdict."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest
from tests.engine.conftest import write_files

from orderdep.analysis import fork_pair
from orderdep.analysis.budget import Budget
from orderdep.analysis.fidelity import VerdictCache, config_key
from orderdep.analysis.fidelity_partial import (
    CheckCut,
    common_prefix,
    finished_prefix,
    fitting_prefix,
    partial_verdict,
)
from orderdep.analysis.fork_trust import PARTIAL, trust_fork
from orderdep.core.fidelity import FidelityReport
from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

IDS = [f"t.py::test_{i}" for i in range(6)]


def result(*outcomes: str, runner: str = "fork") -> OrderResult:
    """An order of IDS with these outcomes first and the rest not run."""
    got = [Outcome(o) for o in outcomes] + [Outcome.NOT_RUN] * (len(IDS) - len(outcomes))
    return OrderResult(list(IDS), [TestResult(t, o, 0.0, "") for t, o in zip(IDS, got)],
                       runner=runner, interrupted=len(outcomes) < len(IDS))  # fmt: skip


@dataclass
class Checked:
    report: Optional[FidelityReport]
    notices: list[str]
    runner: str
    offered: int  # orders handed on to the engine
    cached: bool  # a verdict kept as a whole check's
    part: Optional[list[str]] = None  # the leading tests the search is to cover
    cached_partly: bool = False  # a verdict kept as a cut-short one


def checked_on_a_clock(
    project: Path,
    mark: Path,
    jump: float,
    seconds: float,
    monkeypatch: pytest.MonkeyPatch,
    confirms_fresh: bool = False,
    then: Optional[tuple[Path, float]] = None,
    ticking: bool = False,
) -> Checked:
    """The fork check with ``--jobs 1`` and a budget of ``seconds`` on a clock that stands
    at 0 until ``mark`` exists, then at ``jump`` (a test writes it where the check is to be
    cut), and at ``then[1]`` once ``then[0]`` exists too; ``ticking``: on the real clock."""
    start = time.monotonic()

    def clock() -> float:
        if ticking:
            return time.monotonic() - start
        if then is not None and then[0].exists():
            return then[1]
        return jump if mark.exists() else 0.0

    monkeypatch.setattr(fork_pair, "HEARTBEAT", 0.1)  # the clock is read that often
    notices: list[str] = []
    cache = VerdictCache(project.parent / "v.json")
    with Engine(EngineConfig(project, jobs=1)) as engine:
        budget = Budget(seconds, clock=clock)
        report = trust_fork(engine, cache, notices.append, budget, confirms_fresh=confirms_fresh)
        key = config_key(engine.config)
        cached = cache.get(key) is not None
        partly = cache.get(key + PARTIAL) is not None
        runner = engine.runner
        if engine.search_unchecked:
            runner = f"{runner}, searching; then {engine.confirm_fresh()}"
        return Checked(report, notices, runner, len(engine._offered), cached,
                       engine.search_part, partly)  # fmt: skip


def test_a_killed_test_and_what_follows_it_did_not_run_to_an_end() -> None:
    assert finished_prefix(result("passed", "failed", "timeout")) == 2
    assert finished_prefix(result(*["passed"] * 6)) == 6
    fork, plain = common_prefix(result(*["passed"] * 6), result("passed", "passed", "passed"))
    assert fork.order == plain.order == IDS[:3]


def test_agreement_on_a_third_of_the_order_or_more_trusts_the_fork_runner() -> None:
    said: list[str] = []
    cut = CheckCut("budget", {"fork": result(*["passed"] * 6),
                              "plain": result("passed", "crashed")})  # fmt: skip
    assert partial_verdict(IDS, cut, said.append, None) is None  # 1 of 6: too few
    assert said == []
    cut.results["plain"] = result("passed", "failed", "passed", "timeout")
    cut.results["fork"] = result("passed", "failed", "passed", "passed", "passed", "passed")
    report = partial_verdict(IDS, cut, said.append, Budget(30.0))
    assert report is not None and report.faithful
    assert said == [
        "orderdep: checking the fork runner: its share of the budget (30 s) ended after the "
        "first 3 of the original order's 6 tests, and on those the fork runner and a fresh "
        "pytest agree; using the fork runner (the rest is not compared; the verdict is kept "
        "for runs within a budget; one without --budget checks the whole order)"
    ]


def test_a_difference_in_what_both_ran_is_a_verdict_against_the_fork_runner() -> None:
    cut = CheckCut("budget", {"fork": result("passed", "passed", "passed", "passed"),
                              "plain": result("passed", "failed", "passed")})  # fmt: skip
    report = partial_verdict(IDS, cut, lambda line: None, None)
    assert report is not None and not report.faithful
    assert report.mismatches[0].test == IDS[1]


def test_a_check_cut_short_after_most_of_the_order_keeps_the_fork_runner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fresh pytest is slower than the fork runner (its last test sleeps there): the
    check's share ends while it runs that test. The three tests before it agree, so the
    fork runner is used, its whole run of the original order is handed on, and nothing
    is cached."""
    marks = tmp_path / "marks"
    marks.mkdir()
    project = write_files(
        tmp_path / "p",
        {
            "tests/test_slow_fresh.py": f"""
                import os
                import sys
                import time

                def test_a():
                    pass

                def test_b():
                    pass

                def test_c():
                    pass

                def test_d():
                    if "orderdep.engine.plainplugin" in sys.modules:  # a fresh pytest
                        open(os.path.join({str(marks)!r}, "plain-at-d"), "w").close()
                        time.sleep(600)
            """,
        },
    )

    def clock() -> float:
        """The share (5 of 10 s) ends once the fresh pytest reaches its last test."""
        return 100.0 if (marks / "plain-at-d").exists() else 0.0

    monkeypatch.setattr(fork_pair, "HEARTBEAT", 0.1)  # the clock is read that often
    notices: list[str] = []
    cache = VerdictCache(tmp_path / "v.json")
    began = time.monotonic()
    with Engine(EngineConfig(project, jobs=1)) as engine:  # fork first, then pytest
        report = trust_fork(engine, cache, notices.append, Budget(10.0, clock=clock))
        assert report is not None and report.faithful, notices
        assert engine.runner == "fork"
        assert cache.get(config_key(engine.config)) is None
        assert len(engine._offered) == 1  # the fork runner's whole original order
        got = engine.run(engine.suite.ids)
        assert [r.outcome.value for r in got.results] == ["passed"] * 4
    assert time.monotonic() - began < 300  # the sleeping fresh pytest was killed
    assert any("after the first 3 of the original order's 4 tests" in n for n in notices)


def test_a_check_cut_short_on_a_failing_test_alone_keeps_the_fork_runner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The original order compared whole and agreed; the share ends while a fresh pytest
    runs a failing test alone: the fork runner is kept, the verdict is not."""
    marks = tmp_path / "marks"
    marks.mkdir()
    project = write_files(
        tmp_path / "p",
        {
            "tests/test_alone.py": f"""
                import os
                import sys
                import time

                SEEN = []

                def test_first():
                    SEEN.append(1)

                def test_fails():
                    if not SEEN and "orderdep.engine.plainplugin" in sys.modules:
                        open(os.path.join({str(marks)!r}, "plain-alone"), "w").close()
                        time.sleep(600)
                    assert False
            """,
        },
    )

    got = checked_on_a_clock(project, marks / "plain-alone", 100.0, 40.0, monkeypatch)
    assert got.report is not None and got.report.faithful, got.notices
    assert got.runner == "fork" and not got.cached
    assert got.notices[-1] == (
        "orderdep: checking the fork runner: the original order agrees; its share of the "
        "budget ended before every failing test alone was compared; using the fork runner "
        "(the verdict is kept for runs within a budget; one without --budget checks the whole "
        "order)"
    )


def test_the_prefix_a_fresh_pytest_has_time_for_after_the_fork_run() -> None:
    fork = OrderResult(list(IDS[:4]), [TestResult(t, Outcome.PASSED, 1.0, "") for t in IDS[:4]],
                       runner="fork", wall_seconds=5.0)  # fmt: skip
    assert fitting_prefix(fork, None) is None  # no budget
    assert fitting_prefix(fork, 100.0) is None  # the whole order fits
    # 8 s left: 6.4 s with the margin, less 3 s of start-up (2 s beyond the tests, x1.5)
    assert fitting_prefix(fork, 8.0) == 3
    assert fitting_prefix(fork, 2.0) == 0


def test_one_after_the_other_a_fresh_pytest_runs_the_prefix_that_fits(tmp_path: Path) -> None:
    """With --jobs 1 the fork runner's run of the original order leaves 6 s of the share;
    a fresh pytest of all four half-second tests would not fit with its start-up, so it
    runs the first ones, they agree, and the fork runner is kept with its whole run."""
    project = write_files(
        tmp_path / "p",
        {
            "tests/test_halves.py": "\n\n".join(
                f"def test_{i}():\n    import time\n    time.sleep(0.5)" for i in range(4)
            ),
        },
    )
    notices: list[str] = []
    cache = VerdictCache(tmp_path / "v.json")
    with Engine(EngineConfig(project, jobs=1)) as engine:
        budget = Budget(12.0, clock=lambda: 0.0)  # the share: 6 s, whatever the load
        report = trust_fork(engine, cache, notices.append, budget)
        assert report is not None and report.faithful, notices
        assert engine.runner == "fork"
        assert cache.get(config_key(engine.config)) is None
        assert len(engine._offered) == 1
    said = [n for n in notices if "left a fresh pytest time for the first" in n]
    assert said and "of the original order's 4 tests after the fork runner's run" in said[0]


@pytest.mark.slow
def test_one_after_the_other_a_slow_test_leaves_the_check_its_fast_tests(tmp_path: Path) -> None:
    """With --jobs 1 the fork runner's run of the original order leaves a fresh pytest
    time for its first two tests only (its third sleeps 3 s): too few to judge. Both
    runners then run the order without the sleeping test, agree, and the fork runner is
    kept with its whole run of the original order."""
    fast = "\n\n".join(f"def test_{i}():\n    pass" for i in range(11))
    project = write_files(
        tmp_path / "p",
        {
            "tests/test_mostly_fast.py": fast.replace(
                "def test_2():\n    pass", "def test_2():\n    import time\n    time.sleep(3)"
            ),
        },
    )
    notices: list[str] = []
    cache = VerdictCache(tmp_path / "v.json")
    with Engine(EngineConfig(project, jobs=1)) as engine:
        budget = Budget(12.0, clock=lambda: 0.0)  # the shares: 6 s and 2.4 s, whatever the load
        report = trust_fork(engine, cache, notices.append, budget)
        assert report is not None and report.faithful, notices
        assert engine.runner == "fork"
        assert cache.get(config_key(engine.config)) is None
        assert len(engine._offered) == 1  # the fork runner's whole original order
    slow = "tests/test_mostly_fast.py::test_2"
    assert any(f"1 slow test(s) taking 3 s (slowest {slow})" in n for n in notices), notices
    assert any("on the original order's 10 fast tests the fork runner and a fresh pytest "
               "agree" in n for n in notices)  # fmt: skip
    # the next command within a budget takes that verdict instead of the same cut check
    again: list[str] = []
    with Engine(EngineConfig(project, jobs=1)) as engine:
        report = trust_fork(engine, cache, again.append, Budget(12.0, clock=lambda: 0.0))
        assert report is not None and report.faithful
        assert engine.runner == "fork" and engine.orders_run == 0
    assert len(again) == 1 and "an earlier run's check, cut short by its budget" in again[0]
    # without a budget, the whole order is checked
    with Engine(EngineConfig(project, jobs=1)) as engine:
        report = trust_fork(engine, cache, lambda line: None)
        assert report is not None and report.faithful and engine.orders_run == 1
    assert cache.get(config_key(EngineConfig(project, jobs=1))) is not None


def test_one_after_the_other_the_fork_runner_s_run_may_outlast_the_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --jobs 1 the fork runner's run of the original order is past the check's
    share (20 of 40 s) when it reaches its slow test (3 s): it is not killed but ends, within
    the larger share it may take, and no fresh pytest of it fits any more. The two then
    compare the order without the slow test, agree, and the fork runner's whole run is
    handed on."""
    marks = tmp_path / "marks"
    marks.mkdir()
    fast = "\n\n".join(f"def test_{i}():\n    pass" for i in range(11))
    slow = (
        "def test_2():\n"
        "    import os, sys, time\n"
        "    if 'orderdep.engine.plainplugin' not in sys.modules:  # the fork runner\n"
        f"        open(os.path.join({str(marks)!r}, 'fork-at-slow'), 'w').close()\n"
        "        time.sleep(3)"
    )
    project = write_files(
        tmp_path / "p",
        {"tests/test_mostly_fast.py": fast.replace("def test_2():\n    pass", slow)},
    )

    # 22 of 40 s spent once the fork runner reaches the slow test
    got = checked_on_a_clock(project, marks / "fork-at-slow", 22.0, 40.0, monkeypatch)
    assert got.report is not None and got.report.faithful, got.notices
    assert got.runner == "fork"
    assert got.offered == 1  # the fork runner's whole original order
    assert any("on the original order's 10 fast tests the fork runner and a fresh pytest "
               "agree" in n for n in got.notices), got.notices  # fmt: skip


@pytest.mark.parametrize("confirms_fresh", [True, False])
def test_a_check_cut_before_any_verdict_leaves_the_search_to_the_fork_runner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, confirms_fresh: bool
) -> None:
    """With --jobs 1 the fork runner ran the original order whole, and the fresh pytest
    after it was cut before its first test ended (no slow test to leave out): no verdict.
    A command that confirms in fresh processes (detect) searches on the fork runner, with
    its run offered; any other goes to the subprocess runner, as before."""
    marks = tmp_path / "marks"
    marks.mkdir()
    plain_first = (
        "def test_0():\n"
        "    import os, sys, time\n"
        "    if 'orderdep.engine.plainplugin' in sys.modules:  # the fresh pytest\n"
        f"        open(os.path.join({str(marks)!r}, 'plain-started'), 'w').close()\n"
        "        time.sleep(3)\n"
    )
    fast = "\n\n".join(f"def test_{i}():\n    pass" for i in range(1, 6))
    project = write_files(tmp_path / "p", {"tests/test_f.py": plain_first + "\n\n" + fast})
    # 25 of 40 s spent once the fresh pytest starts: past the original order's share
    got = checked_on_a_clock(
        project, marks / "plain-started", 25.0, 40.0, monkeypatch, confirms_fresh
    )
    assert got.report is None and not got.cached
    if confirms_fresh:
        assert got.runner == "fork, searching; then subprocess"
        assert got.offered == 1  # the fork runner's whole original order
        assert "searching with the fork runner, whose run of the original order ended, and " \
               "confirming what it finds in fresh processes" in got.notices[-1]  # fmt: skip
    else:
        assert got.runner == "subprocess" and got.offered == 0
        assert "using the subprocess runner, which needs no check" in got.notices[-1]
