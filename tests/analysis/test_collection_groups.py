"""The collection check's runs when each file alone does not fit its budget: several
files collected in one run, planned from what the first runs cost."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tests.analysis.collection_model import Collection

from orderdep.analysis.budget import Budget
from orderdep.analysis.collection_check import collection_brittles, file_runs
from orderdep.analysis.collection_groups import Pace, group_size, pace_of, spread
from orderdep.core.outcomes import OrderResult, Outcome, TestResult

FILES = [f"t/test_{i:02}.py" for i in range(12)]
IDS = [f"{path}::test_1" for path in FILES]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Timed(Collection):
    """The collection model on a clock: each run takes ``overhead`` seconds and each of
    its tests ``per_test`` more."""

    def __init__(
        self, needs: Mapping[str, str], clock: Clock, overhead: float, per_test: float
    ) -> None:
        super().__init__(needs)
        self.clock, self.overhead, self.per_test = clock, overhead, per_test

    def run_collecting(self, order: Sequence[str], paths: Sequence[str]) -> OrderResult:
        seen = super().run_collecting(order, paths)
        results = [TestResult(r.test, r.outcome, self.per_test, r.message) for r in seen.results]
        wall = self.overhead + self.per_test * len(order)
        self.clock.now += wall
        return OrderResult(list(order), results, wall_seconds=wall)


def test_each_file_alone_while_that_fits() -> None:
    pace = Pace(overhead=2.0, per_test=0.1)
    assert group_size(10, 50, 100.0, pace) == 1  # 10 x 2 + 50 x 0.1 = 25 s
    assert group_size(10, 50, None, pace) == 1  # no budget
    assert group_size(10, 50, 10.0, None) == 1  # the first run measures the pace
    assert group_size(1, 50, 1.0, pace) == 1


def test_as_many_runs_as_the_time_left_pays_start_ups_for() -> None:
    pace = Pace(overhead=2.0, per_test=0.1)
    # 0.9 x 30 = 27 s: 5 s of tests leave 22 s, 11 start-ups for 40 files: 4 a run
    assert group_size(40, 50, 30.0, pace) == 4
    # tests alone take longer than the time left: two runs, half the files each
    assert group_size(40, 500, 30.0, pace) == 20
    # no start-up cost: sharing a run saves nothing
    assert group_size(40, 50, 30.0, Pace(overhead=0.0, per_test=1.0)) == 1


def test_a_run_takes_files_apart_from_each_other() -> None:
    files = [str(i) for i in range(10)]
    assert spread(files, 4) == ["0", "2", "4", "6"]
    assert spread(files, 3) == ["0", "3", "6"]
    assert spread(files, 1) == ["0"]
    assert spread(files, 12) == files


def test_the_pace_counts_the_least_start_up_and_the_mean_test() -> None:
    def run(wall: float, durations: Sequence[float]) -> OrderResult:
        results = [TestResult(f"t{i}", Outcome.PASSED, d) for i, d in enumerate(durations)]
        return OrderResult([r.test for r in results], results, wall_seconds=wall)

    assert pace_of([]) is None
    pace = pace_of([run(3.0, [1.0]), run(4.0, [0.5, 0.5, 1.0])])
    assert pace == Pace(overhead=2.0, per_test=0.75)


def test_files_share_runs_when_each_alone_does_not_fit_and_a_brittle_still_shows() -> None:
    brittle, needed = IDS[5], FILES[4]  # needs its neighbour's import-time code
    clock = Clock()
    model = Timed({brittle: needed}, clock, overhead=2.0, per_test=0.0)
    budget = Budget(14.0, clock=clock)  # each file alone: 24 s
    runs = file_runs(model, IDS, budget)
    assert runs.complete and runs.most > 1
    assert len(model.calls) < len(FILES)
    assert model.calls[0][1] == [FILES[0]]  # alone first: it measures the pace
    assert sorted(p for _, paths in model.calls for p in paths) == FILES  # each once
    assert runs.failing == {FILES[5]: [brittle]}
    found = collection_brittles(model, IDS, runs, Budget())
    assert [(f.test, f.state_setters) for f in found] == [(brittle, [IDS[4]])]


def test_a_run_that_would_not_fit_is_not_started() -> None:
    clock = Clock()
    model = Timed({}, clock, overhead=2.0, per_test=3.0)
    runs = file_runs(model, IDS, Budget(10.0, clock=clock))  # the tests alone take 36 s
    assert not runs.complete
    assert clock.now <= 10.0  # every run started was expected to fit, and did
    assert runs.run == sum(len(paths) for _, paths in model.calls)
    # after the first file (5 s), half the files would take 20 s: one more fits the 5 s left
    assert [paths for _, paths in model.calls] == [[FILES[0]], [FILES[1]]]
