"""What a detection promised and did not do (core.promise), on reports built by hand."""

from __future__ import annotations

from typing import Any, Optional

from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.core.promise import complete, shortfalls
from orderdep.core.replan import Coverage, describe
from orderdep.core.report import Report, RunStats

IDS = ["t::a", "t::b", "t::c", "t::d"]


def account(strategy: str, run: int, promised: Optional[int], **more: Any) -> dict[str, Any]:
    return {"strategy": strategy, "orders_run": run, "orders_promised": promised, **more}


def report(**extras: Any) -> Report:
    return Report(project="/p", tests=IDS, stats=RunStats(extras=extras))


def test_a_search_that_ran_its_plan_is_complete() -> None:
    done = report(
        promised=["original", "timing", "tuscan"],
        coverage=[account("original", 1, 1), account("tuscan", 6, 6)],
    )
    assert shortfalls(done) == [] and complete(done)


def test_an_open_ended_strategy_is_kept_by_one_order_and_broken_by_none() -> None:
    ran = report(promised=["original", "random-reverse"], search_stop="budget",
                 coverage=[account("original", 1, 1), account("random-reverse", 3, None)])  # fmt: skip
    assert complete(ran)
    none = report(promised=["original", "random-reverse"], search_stop="budget",
                  coverage=[account("original", 1, 1), account("random-reverse", 0, None)])  # fmt: skip
    assert shortfalls(none) == ["random-reverse: no order ran (the budget ran out)"]


def test_planned_orders_not_run_strategies_not_started_and_unconfirmed_suspects() -> None:
    gaps = shortfalls(
        report(
            promised=["original", "timing", "tuscan", "reverse"],
            stopped_early=True,
            stop_reason="interrupted",
            coverage=[account("original", 1, 1), account("tuscan", 2, 6)],
            unfinished={"confirmation": "not finished (interrupted)", "suspects": ["t::b"]},
        )
    )
    assert gaps == [
        "tuscan: 2 of 6 planned orders ran (it was interrupted)",
        "reverse: not started (it was interrupted)",
        "1 suspect(s) not confirmed: not finished (interrupted)",
    ]


def test_positions_with_no_outcome_are_failed_runs_whatever_the_strategy() -> None:
    gaps = shortfalls(
        report(
            promised=["original"],
            coverage=[account("original", 1, 1, unrun_positions=4, unrun_example="t::a")],
        )
    )
    assert gaps == [
        "original: 4 test position(s) got no outcome although nothing crashed or hung "
        "before them, first t::a; those orders count as failed runs"
    ]


def test_an_old_report_is_judged_by_what_it_records() -> None:
    assert complete(report(coverage=[account("random", 0, None)]))
    assert shortfalls(report(stopped_early=True, stop_reason="budget")) == [
        "the search stopped early (the budget ran out)"
    ]


def result(order: list[str], outcomes: list[Outcome]) -> OrderResult:
    rows = [TestResult(t, o, 0.0) for t, o in zip(order, outcomes)]
    return OrderResult(order=order, results=rows, runner="fork", wall_seconds=0.0)


def test_coverage_counts_positions_not_run_without_a_crash_before_them() -> None:
    cov = Coverage("random")
    P, N, C = Outcome.PASSED, Outcome.NOT_RUN, Outcome.CRASHED
    cov.saw(result(IDS, [N, N, N, N]))  # nothing found: 4 failed positions
    cov.saw(result(IDS, [P, C, N, N]))  # a crash explains what follows
    assert cov.unrun == 4 and cov.unrun_example == "t::a"
    assert cov.summary()["unrun_positions"] == 4


def test_a_random_strategy_is_measured_against_every_ordered_pair() -> None:
    cov = Coverage("random-reverse")
    cov.plan(IDS)
    cov.saw(result(IDS, [Outcome.PASSED] * 4))
    line = describe(cov.summary(), len(IDS))
    assert line == (
        "random-reverse: 1 order, which ran 3 of the 12 ordered pairs of tests one after "
        "the other (25.0%)"
    )
    tuscan = Coverage("tuscan", promised=2)
    tuscan.plan(IDS)
    tuscan.saw(result(IDS, [Outcome.PASSED] * 4))
    assert describe(tuscan.summary(), len(IDS)).startswith(
        "tuscan: 1 of 2 planned orders, 3 of 3 consecutive pairs (100.0%)"
    )


def test_test_files_the_collection_check_did_not_run_are_a_shortfall() -> None:
    base: dict[str, Any] = {
        "promised": ["original"],
        "coverage": [account("original", 1, 1)],
    }
    whole = report(**base, collection_check={"files": 3, "run": 3, "found": 0})
    assert complete(whole)
    cut = report(**base, collection_check={"files": 42, "run": 8, "found": 0})
    assert shortfalls(cut) == [
        "the collection check ran 8 of the 42 test files alone as `pytest FILE` does: the "
        "other 34 were not run (a larger --budget runs them)"
    ]


def test_test_files_sharing_fresh_pytests_are_a_shortfall() -> None:
    base: dict[str, Any] = {"promised": ["original"], "coverage": [account("original", 1, 1)]}
    alone = report(**base, collection_check={"files": 3, "run": 3, "found": 0, "most": 1})
    assert complete(alone)
    shared = {"files": 40, "run": 40, "found": 0, "runs": 9, "most": 5}
    said = (
        "the collection check ran the test files 5 at most to a fresh pytest (9 runs), not "
        "each alone: a test that needs another file's import-time code shows only when that "
        "file had another run (a larger --budget runs each alone)"
    )
    assert shortfalls(report(**base, collection_check=shared)) == [said]
    cut = {**shared, "run": 30}
    assert shortfalls(report(**base, collection_check=cut)) == [
        "the collection check ran 30 of the 40 test files: the other 10 were not run (a "
        "larger --budget runs them)",
        said,
    ]


def test_slow_tests_left_out_say_whether_they_ran_after_all_the_others() -> None:
    base = {"promised": ["original"], "coverage": [account("original", 1, 1)]}
    only = report(**base, slow_left_out={"tests": 2, "seconds": 9.0, "slowest": "t::a"})
    assert shortfalls(only) == [
        "2 slow test(s) ran only in the original order: the search orders left them out "
        "to fit the budget (a larger --budget searches them too)"
    ]
    tail = report(**base, slow_left_out={"tests": 2, "seconds": 9.0, "after_all": True})
    assert shortfalls(tail) == [
        "2 slow test(s) ran in the original order and once after all the other tests: no "
        "search order ran them before the tests they come after in the original order (a "
        "larger --budget searches them too)"
    ]
