"""Tests failing in every whole-suite order because another module's import-time code
breaks them, and passing as ``pytest FILE`` runs them: found, with that module's test
as the polluter."""

from __future__ import annotations

from tests.analysis.collection_model import IDS, Collection

from orderdep.analysis.budget import Budget
from orderdep.analysis.collection_check import file_runs
from orderdep.analysis.collection_victims import collection_victims
from orderdep.core.report import COLLECTED_KEY

VICTIM = "t/test_c.py::test_2"


def test_the_polluting_file_is_found_by_halving() -> None:
    model = Collection({}, breaks={VICTIM: "t/test_a.py"})
    runs = file_runs(model, IDS, Budget())
    assert VICTIM in runs.passed and not runs.failing
    (finding,) = collection_victims(model, IDS, runs, Budget(), [VICTIM])
    assert finding.test == VICTIM and finding.kind == "victim"
    assert finding.polluters == ["t/test_a.py::test_1"]
    assert finding.failing_order == ["t/test_a.py::test_1", VICTIM]
    assert finding.passing_order == [VICTIM]
    assert finding.extras[COLLECTED_KEY] == {
        "failing": ["t/test_a.py", "t/test_c.py"],
        "passing": ["t/test_c.py"],
    }


def test_only_tests_failing_everywhere_that_passed_in_their_file_are_checked() -> None:
    model = Collection({}, breaks={VICTIM: "t/test_a.py"})
    runs = file_runs(model, IDS, Budget())
    before = len(model.calls)
    assert collection_victims(model, IDS, runs, Budget(), []) == []
    runs.passed.discard(VICTIM)  # failed in its file's run too: broken, not a victim
    assert collection_victims(model, IDS, runs, Budget(), [VICTIM]) == []
    assert len(model.calls) == before


def test_a_test_passing_with_the_whole_suite_collected_is_no_victim() -> None:
    model = Collection({})  # the search's verdict was wrong: fresh runs decide
    runs = file_runs(model, IDS, Budget())
    assert collection_victims(model, IDS, runs, Budget(), [VICTIM]) == []


def test_a_spent_budget_finds_nothing() -> None:
    model = Collection({}, breaks={VICTIM: "t/test_a.py"})
    runs = file_runs(model, IDS, Budget())
    budget = Budget(10.0)
    budget.stop("budget")
    assert collection_victims(model, IDS, runs, budget, [VICTIM]) == []
