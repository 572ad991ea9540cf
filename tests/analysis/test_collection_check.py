"""The collection check on a model of pytest's collection: a test passes only when the
files whose import-time code it needs are among those collected."""

from __future__ import annotations

from collections.abc import Sequence

from tests.analysis.collection_model import IDS, Collection

from orderdep.analysis.budget import Budget
from orderdep.analysis.collection_check import (
    collection_brittles,
    file_runs,
    files_in_order,
)
from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.core.report import COLLECTED_KEY


def test_files_in_order() -> None:
    assert files_in_order(IDS) == ["t/test_a.py", "t/test_b.py", "t/test_c.py", "t/test_d.py"]


def test_each_file_runs_alone_and_its_failing_tests_are_kept() -> None:
    model = Collection({"t/test_c.py::test_2": "t/test_a.py"})
    runs = file_runs(model, IDS, Budget())
    assert runs.complete and runs.run == 4
    assert runs.failing == {"t/test_c.py": ["t/test_c.py::test_2"]}
    # the files with the fewest tests first (the original order among equals)
    assert [paths for _, paths in model.calls] == [
        ["t/test_b.py"],
        ["t/test_d.py"],
        ["t/test_a.py"],
        ["t/test_c.py"],
    ]
    assert model.calls[3] == (["t/test_c.py::test_1", "t/test_c.py::test_2"], ["t/test_c.py"])


def test_one_file_needs_no_run() -> None:
    model = Collection({})
    runs = file_runs(model, ["t/test_a.py::test_1", "t/test_a.py::test_2"], Budget())
    assert runs.complete and not model.calls


def test_a_spent_budget_runs_no_file() -> None:
    budget = Budget(1.0)
    budget.stop("budget")
    runs = file_runs(Collection({}), IDS, budget)
    assert runs.run == 0 and not runs.complete


def test_the_setter_file_is_found_by_halving() -> None:
    brittle = "t/test_c.py::test_2"
    model = Collection({brittle: "t/test_d.py"})
    runs = file_runs(model, IDS, Budget())
    found = collection_brittles(model, IDS, runs, Budget())
    assert [f.test for f in found] == [brittle]
    finding = found[0]
    assert finding.kind == "brittle"
    assert finding.failing_order == [brittle]
    assert finding.state_setters == ["t/test_d.py::test_1"]
    assert finding.passing_order == ["t/test_d.py::test_1", brittle]
    assert finding.extras[COLLECTED_KEY] == {
        "failing": ["t/test_c.py"],
        "passing": ["t/test_d.py", "t/test_c.py"],
    }


def test_a_test_failing_with_the_whole_suite_collected_is_no_finding() -> None:
    brittle = "t/test_c.py::test_2"
    model = Collection({brittle: "t/test_missing.py"})  # never collected: fails everywhere
    runs = file_runs(model, IDS, Budget())
    assert runs.failing
    assert collection_brittles(model, IDS, runs, Budget()) == []


def test_tests_found_already_are_skipped() -> None:
    brittle = "t/test_c.py::test_2"
    model = Collection({brittle: "t/test_a.py"})
    runs = file_runs(model, IDS, Budget())
    calls = len(model.calls)
    assert collection_brittles(model, IDS, runs, Budget(), skip=[brittle]) == []
    assert len(model.calls) == calls


def test_a_file_failing_to_collect_is_run_alone_twice_not_per_test() -> None:
    tests = ["t/test_c.py::test_1", "t/test_c.py::test_2"]
    model = Collection(dict.fromkeys(tests, "t/test_a.py"), broken=["t/test_c.py"])
    runs = file_runs(model, IDS, Budget())
    before = len(model.calls)
    found = collection_brittles(model, IDS, runs, Budget())
    assert [f.test for f in found] == tests
    alone = [c for c in model.calls[before:] if c[1] == ["t/test_c.py"]]
    assert alone == [(["t/test_c.py::test_1"], ["t/test_c.py"])] * 2
    assert all(f.state_setters == ["t/test_a.py::test_1"] for f in found)


def test_needing_two_files_gives_no_setter_but_a_finding() -> None:
    brittle = "t/test_c.py::test_2"

    class Both(Collection):
        def run_collecting(self, order: Sequence[str], paths: Sequence[str]) -> OrderResult:
            result = super().run_collecting(order, paths)
            both = {"t/test_a.py", "t/test_d.py"} <= set(paths)
            result.results = [
                TestResult(r.test, Outcome.PASSED if both or r.test != brittle else Outcome.FAILED)
                for r in result.results
            ]
            return result

    model = Both({})
    runs = file_runs(model, IDS, Budget())
    found = collection_brittles(model, IDS, runs, Budget())
    assert [f.test for f in found] == [brittle]
    assert found[0].state_setters == []
    assert found[0].extras[COLLECTED_KEY]["passing"] == "suite"


def test_a_test_failing_alone_only_once_is_no_finding() -> None:
    flaky = "t/test_c.py::test_2"

    class Flaky(Collection):
        """Fails the first two times it runs with only its file collected, then passes."""

        def run_collecting(self, order: Sequence[str], paths: Sequence[str]) -> OrderResult:
            result = super().run_collecting(order, paths)
            seen = sum(flaky in o and p == ["t/test_c.py"] for o, p in self.calls)
            if seen > 2:
                result.results = [TestResult(r.test, Outcome.PASSED) for r in result.results]
            return result

    model = Flaky({flaky: "t/test_a.py"})
    runs = file_runs(model, IDS, Budget())
    assert collection_brittles(model, IDS, runs, Budget()) == []


class Killing(Collection):
    """The model, with each run of a test with only its own file collected killed once
    ``killing`` is set (as the budget's end kills it): the test did not end, and the
    result says it was interrupted."""

    killing = False

    def run_collecting(self, order: Sequence[str], paths: Sequence[str]) -> OrderResult:
        result = super().run_collecting(order, paths)
        if self.killing and len(paths) == 1:
            killed = [TestResult(t, Outcome.CRASHED, 0.0, "killed") for t in order]
            return OrderResult(list(order), killed, wall_seconds=1.0, interrupted=True)
        return result


def test_a_run_alone_the_budget_s_end_killed_shows_no_failure() -> None:
    brittle = "t/test_c.py::test_2"
    model = Killing({brittle: "t/test_d.py"})
    runs = file_runs(model, IDS, Budget())
    assert runs.failing == {"t/test_c.py": [brittle]}
    model.killing = True
    assert collection_brittles(model, IDS, runs, Budget()) == []  # its run alone was killed
    assert len(model.calls) > 4  # it was run alone
