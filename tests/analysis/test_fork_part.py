"""A suite too long for the budget: the search covers the leading tests the fork runner's
run of the original order reached (:mod:`orderdep.analysis.fork_part`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.analysis.test_fidelity_partial import checked_on_a_clock
from tests.analysis.test_fresh_confirmation import IDS, P, TwoRunners, V
from tests.engine.conftest import write_files

from orderdep.analysis.detect import detect
from orderdep.analysis.fork_part import part_notice, reached_part
from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.core.promise import complete, shortfalls

LATER = [f"tests/test_z.py::test_{i}" for i in range(6)]


def cut_run(seconds: list[float], finished: int) -> OrderResult:
    """A run of ``len(seconds)`` tests whose first ``finished`` ran to an end."""
    ids = [f"t.py::test_{i}" for i in range(len(seconds))]
    results = [
        TestResult(t, Outcome.PASSED if i < finished else Outcome.NOT_RUN, d, "")
        for i, (t, d) in enumerate(zip(ids, seconds))
    ]
    return OrderResult(ids, results, runner="fork", interrupted=True)


def test_the_part_is_the_leading_finished_tests_an_order_of_which_fits() -> None:
    run = cut_run([1.0, 1.0, 1.0, 5.0, 1.0, 1.0], finished=5)
    part = reached_part(run, seconds_left=20.0)  # a quarter: 5 s
    assert part is not None and part.order == run.order[:3]
    assert [r.test for r in part.results] == part.order and part.wall_seconds == 3.0
    assert reached_part(run, seconds_left=400.0).order == run.order[:5]  # type: ignore[union-attr]
    assert reached_part(run, seconds_left=5.0) is None  # one test fits: nothing to search
    said = part_notice(part, run, 6, None)
    assert "it reached 5 of the 6 tests. Searching the first 3 of them" in said
    assert "the other 3 tests are not searched (a larger --budget searches them)" in said


def test_the_search_covers_the_part_and_the_report_says_what_it_left() -> None:
    ex = TwoRunners([*IDS, *LATER])
    report = detect(ex, confirm_runs=2, seed=1, fresh_confirmation=ex.confirm_fresh, part=IDS)
    assert [f.test for f in report.od_tests] == [V]
    assert report.od_tests[0].failing_order == [P, V]
    assert not any(t in order for order in ex.history for t in LATER)
    assert ex.history[0] == IDS  # the part is the original order
    said = shortfalls(report)
    assert (
        "the search covered the first 4 of the original order's 10 tests: the whole order "
        "did not fit the budget, and the other 6 were not searched" in " ".join(said)
    )
    assert not complete(report)
    whole = detect(TwoRunners(), confirm_runs=2, seed=1, part=IDS)  # the part is everything
    assert not any("the search covered the first" in s for s in shortfalls(whole))


def long_suite(tmp_path: Path, plain_test: str = "", at: int = 3) -> tuple[Path, Path]:
    """A project of 11 tests whose ninth, under the fork runner, writes the mark
    ``fork-at-8`` and sleeps (where a clock jumps past the check's share); ``plain_test``
    replaces the test ``at``. Returns the project and the folder of marks."""
    marks = tmp_path / "marks"
    marks.mkdir()
    ninth = (
        "def test_8():\n"
        "    import os, sys, time\n"
        "    if 'orderdep.engine.plainplugin' not in sys.modules:  # the fork runner\n"
        f"        open(os.path.join({str(marks)!r}, 'fork-at-8'), 'w').close()\n"
        "        time.sleep(3)\n"
    )
    tests = [f"def test_{i}():\n    pass\n" for i in range(11)]
    tests[8] = ninth
    if plain_test:
        tests[at] = plain_test.replace("MARKS", repr(str(marks)))
    project = write_files(tmp_path / "p", {"tests/test_long.py": "\n\n".join(tests)})
    return project, marks


PART = [f"tests/test_long.py::test_{i}" for i in range(8)]


def test_a_check_whose_fork_run_did_not_end_checks_the_part_it_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fork runner's run of the original order reaches the ninth test when its share
    ends: the eight before it are the part the search covers. A fresh pytest of those
    eight agrees with the fork runner's run of them: the search runs on the fork runner,
    checked, with that run offered; the verdict is kept as a cut-short one."""
    project, marks = long_suite(tmp_path)
    got = checked_on_a_clock(project, marks / "fork-at-8", 30.0, 40.0, monkeypatch, True)
    assert got.report is not None and got.report.faithful, got.notices
    assert got.runner == "fork", got.notices
    assert got.part == PART
    assert got.offered == 1
    assert got.cached_partly and not got.cached
    assert any("it reached 8 of the 11 tests. Searching the first 8" in n for n in got.notices)
    assert any("on those 8 tests the fork runner and a fresh pytest agree" in n
               for n in got.notices)  # fmt: skip
    # a command that does not confirm in fresh processes goes to the subprocess runner
    (marks / "fork-at-8").unlink()
    (project.parent / "v.json").unlink()
    other = checked_on_a_clock(project, marks / "fork-at-8", 30.0, 40.0, monkeypatch, False)
    assert other.runner == "subprocess" and other.part is None


def test_a_part_a_fresh_pytest_disagrees_on_is_searched_in_fresh_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fails_fresh = (
        "def test_3():\n"
        "    import sys\n"
        "    assert 'orderdep.engine.plainplugin' not in sys.modules\n"
    )
    project, marks = long_suite(tmp_path, fails_fresh)
    got = checked_on_a_clock(project, marks / "fork-at-8", 30.0, 40.0, monkeypatch, True)
    assert got.report is not None and not got.report.faithful
    assert got.report.mismatches[0].test == "tests/test_long.py::test_3"
    assert got.runner == "subprocess" and got.part == PART
    assert not got.cached_partly
    assert "disagree on tests/test_long.py::test_3" in got.notices[-1]


def test_a_fresh_pytest_of_the_part_cut_early_leaves_confirmation_to_fresh_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fresh pytest of the part reaches its second test when the check's share ends:
    one of eight compared, too few for a verdict. The fork runner searches the part
    and fresh processes confirm, as without the check."""
    slow_fresh = (
        "def test_1():\n"
        "    import os, sys, time\n"
        "    if 'orderdep.engine.plainplugin' in sys.modules:  # the fresh pytest\n"
        "        open(os.path.join(MARKS, 'plain-at-1'), 'w').close()\n"
        "        time.sleep(3)\n"
    )
    project, marks = long_suite(tmp_path, slow_fresh, at=1)
    got = checked_on_a_clock(project, marks / "fork-at-8", 30.0, 40.0, monkeypatch, True,
                             then=(marks / "plain-at-1", 39.5))  # fmt: skip
    assert got.report is None, got.notices
    assert got.runner == "fork, searching; then subprocess", got.notices
    assert got.part == PART and got.offered == 1
