"""Known causes of a test (a report's finding, an earlier why) and the one run checking them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from orderdep.analysis.why.known import (
    KnownCause,
    check_known,
    known_causes,
    read_json,
    remember,
)
from orderdep.analysis.why.search import WhyResult
from orderdep.core.outcomes import OrderResult, Outcome, TestResult


class Runner:
    runner = "plain"

    def __init__(self, fails_after: set[str]) -> None:
        self.fails_after = fails_after
        self.orders: list[list[str]] = []

    def run(self, order: Sequence[str]) -> OrderResult:
        self.orders.append(list(order))
        bad = bool(self.fails_after & set(order[:-1])) or order == ["b"]
        outcome = Outcome.FAILED if bad else Outcome.PASSED
        return OrderResult(list(order), [TestResult(order[-1], outcome)], runner="plain")


def test_fits_a_victim_when_its_polluters_ran_before() -> None:
    cause = KnownCause("victim", ("p", "q"), "r")
    assert cause.fits(["p", "x", "q", "v"]) and not cause.fits(["p", "v"])
    assert cause.orders("v") == (["p", "q", "v"], ["v"])


def test_fits_a_brittle_when_its_setters_did_not_all_run() -> None:
    cause = KnownCause("brittle", ("s",), "r")
    assert cause.fits(["x", "b"]) and not cause.fits(["s", "b"])
    assert cause.orders("b") == (["b"], ["s", "b"])


def test_known_causes_from_an_earlier_why_then_the_report() -> None:
    report = {"od_tests": [
        {"test": "v", "kind": "victim", "polluters": ["p"], "polluter_groups": [["a", "b"]]},
        {"test": "w", "kind": None},
    ]}  # fmt: skip
    record = {"v": {"verdict": "victim", "culprits": ["z"]}}
    causes = known_causes("v", report, record, "the report R")
    assert [(c.culprits, c.source) for c in causes] == [
        (("z",), "an earlier `orderdep why`"), (("p",), "the report R"), (("a", "b"), "the report R"),
    ]  # fmt: skip
    assert known_causes("w", report, None) == [] and known_causes("v", None, None) == []


def test_check_runs_the_first_fitting_cause_once() -> None:
    runner = Runner({"p"})
    causes = [KnownCause("victim", ("gone",), "r"), KnownCause("victim", ("p",), "r")]
    result = check_known(runner, "v", ["x", "p", "v"], causes)
    assert runner.orders == [["p", "v"]]
    assert result is not None and result.culprits == ["p"] and result.orders_run == 1
    assert result.failing_order == ["p", "v"] and result.passing_order == ["v"]
    assert "known from r" in result.notes[0]


def test_a_cause_that_no_longer_fails_gives_no_answer() -> None:
    runner = Runner(set())
    assert check_known(runner, "v", ["p", "v"], [KnownCause("victim", ("p",), "r")]) is None
    assert runner.orders == [["p", "v"]]


def test_remember_keeps_found_minimal_results_only(tmp_path: Path) -> None:
    path = tmp_path / ".orderdep" / "why-known.json"
    remember(path, WhyResult("v", ["p", "v"], "nd", "fork"))
    assert not path.exists()
    remember(path, WhyResult("v", ["p", "v"], "victim", "fork", ["p"]))
    assert read_json(path) == {"v": {"verdict": "victim", "culprits": ["p"]}}
    path.write_text("not json")
    assert read_json(path) is None


def test_a_known_cleaner_after_the_polluter_does_not_fit() -> None:
    cause = KnownCause("victim", ("p",), "r", cleaners=("c",))
    assert not cause.fits(["p", "c", "v"])
    assert cause.fits(["c", "p", "v"])  # cleaned before the polluter ran: still polluted
    report = {"od_tests": [{"test": "v", "kind": "victim", "polluters": ["p"],
                            "cleaners": {"p": ["c"]}}]}  # fmt: skip
    (known,) = known_causes("v", report, None)
    assert known.cleaners == ("c",)


def test_remember_in_a_read_only_place_keeps_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / ".orderdep"
    blocker.write_text("a file where the directory would go")
    remember(blocker / "why-known.json", WhyResult("v", ["p", "v"], "victim", "fork", ["p"]))
    assert blocker.read_text() == "a file where the directory would go"
