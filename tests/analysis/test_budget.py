"""One budget for detection and classification: a stop in any phase writes a valid
partial report, and running the same work again (replaying the stored orders) completes
it with exactly the answers of a run that was never stopped."""

from __future__ import annotations

import json
from typing import Any, Optional

import pytest
from replay import Clock, Recorded, ReplayExecutor
from test_classify import ALL, ND, ORDERS, PLANTED

from orderdep.analysis.bounded import detect_within
from orderdep.analysis.budget import (
    LATE_FIND_ORDERS,
    UNFINISHED_KEY,
    Budget,
    BudgetedExecutor,
    BudgetExhausted,
)
from orderdep.analysis.classify import PHASES, ClassifyProgress, classify
from orderdep.core.odmodel import ODSpec
from orderdep.core.report import ODFinding, Report, RunStats
from orderdep.core.suite import Suite
from orderdep.synth.model import ModelExecutor

SUITE = Suite.from_ids([t for t in ALL if t != ND])


def model() -> ModelExecutor:
    return ModelExecutor(SUITE, PLANTED)


def detected() -> Report:
    findings = [
        ODFinding(test=t, failing_order=list(f), passing_order=list(p))
        for t, (f, p) in ORDERS.items()
        if t != ND
    ]
    return Report(project="/p", tests=SUITE.ids, od_tests=findings, stats=RunStats(seed=3))


def findings(report: Report) -> list[dict[str, Any]]:
    return sorted((f.to_json(report.tests) for f in report.od_tests), key=lambda f: f["test"])


def valid(report: Report) -> Report:
    """The report as a reader sees it after a round trip through its JSON file."""
    return Report.from_json(json.loads(report.dumps()))


def run_classify(
    recorded: Recorded, report: Report, seconds: Optional[float]
) -> tuple[Report, ReplayExecutor, list[ClassifyProgress]]:
    clock = Clock()
    executor = ReplayExecutor(model(), recorded, clock)
    events: list[ClassifyProgress] = []
    out = classify(
        executor, report, on_progress=events.append, flake_samples=100,
        budget=Budget(seconds, clock),
    )  # fmt: skip
    return out, executor, events


@pytest.fixture(scope="module")
def full() -> tuple[Report, int, list[ClassifyProgress]]:
    report, executor, events = run_classify(Recorded(), detected(), None)
    return report, executor.ran, events


def test_phases_run_over_all_tests_kinds_first(full: Any) -> None:
    _, _, events = full
    phases = [e.phase for e in events]
    assert [p for i, p in enumerate(phases) if i == 0 or phases[i - 1] != p] == list(PHASES)
    kinds = {e.test for e in events if e.phase == "kind"}
    assert kinds == {f.test for f in detected().od_tests}
    # the first partner of each victim comes before any test's cleaners
    first_cleaner = next(i for i, e in enumerate(events) if e.step == "cleaners")
    assert all(i < first_cleaner for i, e in enumerate(events) if e.phase == "partner")


def test_progress_fires_in_every_step_with_orders_counted(full: Any) -> None:
    _, ran, events = full
    steps = {e.step for e in events}
    assert {"kind", "precondition", "polluters", "state-setters", "polluter-group",
            "state-setter-group", "cleaners", "verify", "flake-rate", "done"} <= steps  # fmt: skip
    counts = [e.orders_run for e in events]
    assert counts == sorted(counts) and counts[-1] == ran
    # an event for every order run: a display is never left without news
    assert len({c for c in counts}) == ran + 1
    assert all(e.orders_left is not None for e in events if e.step == "kind")


@pytest.mark.parametrize("phase", PHASES)
def test_a_stop_in_each_phase_writes_a_partial_report_and_a_rerun_completes_it(
    full: Any, phase: str
) -> None:
    complete, ran, events = full
    if phase == PHASES[-1]:
        seconds = float(ran)  # every order ran; the flake rates find the budget spent
    else:
        seconds = float(next(e.orders_run for e in events if e.phase == phase) + 1)
    recorded = Recorded()
    partial, first, stopped_events = run_classify(recorded, detected(), seconds)
    partial = valid(partial)
    assert partial.stats.extras["classify_stopped"] == "budget"
    marks = {k: v for f in partial.od_tests for k, v in f.extras.get(UNFINISHED_KEY, {}).items()}
    expected = {
        "kind": "kind",
        "partner": "polluters",
        "partners": "polluter_groups",
        "cleaners": "cleaners",
        "flake-rate": "flake_rate",
    }[phase]
    assert expected in marks, marks
    assert all(v.endswith("(budget)") for v in marks.values())
    assert any(e.step == "stopped" for e in stopped_events)
    assert findings(partial) != findings(complete)
    # the same work again, without a budget: stored orders are replayed, the rest run
    resumed, second, _ = run_classify(recorded, partial, None)
    assert findings(valid(resumed)) == findings(complete)
    assert "classify_stopped" not in resumed.stats.extras
    assert second.reused > 0 and first.ran + second.ran == ran


def test_a_redo_stopped_before_a_test_keeps_its_earlier_classification(full: Any) -> None:
    complete, _, _ = full
    clock = Clock()
    executor = ReplayExecutor(model(), Recorded(), clock)
    out = valid(classify(executor, complete, redo=True, budget=Budget(0.5, clock)))
    assert executor.ran == 4  # one slice, then the budget is spent
    for before, after in zip(complete.od_tests, out.od_tests):
        marks = after.extras.pop(UNFINISHED_KEY)
        assert marks == {"kind": "not re-classified (budget)"}
        assert after.to_json(out.tests) == before.to_json(complete.tests)


def test_ctrl_c_stops_like_the_budget_and_is_kept_for_the_caller() -> None:
    class Interrupting(ReplayExecutor):
        def run(self, order: Any, *, probe: Any = None) -> Any:
            if self.ran == 25:
                raise KeyboardInterrupt
            return super().run(order)

    budget = Budget()
    out = classify(Interrupting(model(), Recorded(), Clock()), detected(), budget=budget)
    assert budget.stop_reason == "interrupted"
    assert isinstance(budget.interrupt, KeyboardInterrupt)
    marks = [f.extras.get(UNFINISHED_KEY) for f in valid(out).od_tests]
    assert any(m and all(v.endswith("(interrupted)") for v in m.values()) for m in marks)


def test_budgeted_executor_stops_between_slices() -> None:
    clock = Clock()
    budget = Budget(3.0, clock)
    executor = BudgetedExecutor(ReplayExecutor(model(), Recorded(), clock), budget, jobs=1)
    done: list[int] = []
    orders = [[t] for t in SUITE.ids[:10]]
    with pytest.raises(BudgetExhausted, match="budget"):
        executor.run_many(orders, on_result=lambda i, r: done.append(i))
    assert done == list(range(4))  # one slice of 4 started before the budget was spent
    assert budget.left() == 0


def test_an_order_expected_to_outlast_the_budget_is_not_started() -> None:
    clock = Clock()  # one second per order run, so one second per execution of [t]
    budget = Budget(6.0, clock)
    executor = BudgetedExecutor(ReplayExecutor(model(), Recorded(), clock), budget, jobs=1)
    executor.run_many([[t] for t in SUITE.ids[:2]])
    long_order = SUITE.ids[2:12]  # ten executions: ~10 s at the pace so far, 4 s left
    with pytest.raises(BudgetExhausted, match="budget"):
        executor.run_many([SUITE.ids[12:14], long_order])
    assert clock.now == 3.0  # the short order ran, the long one did not start
    assert budget.stop_reason == "budget"


def test_an_order_answered_without_running_still_sets_the_pace() -> None:
    """An order the engine answers at once (run by the fork check, or reused from the
    store) costs no time now; its recorded wall time is still what running an order of
    that length costs, so a long order is not started on a budget it cannot fit."""
    clock = Clock()
    recorded = Recorded()
    model_run = model().run([SUITE.ids[0]])
    model_run.wall_seconds = 10.0  # it took 10 s when it ran
    recorded.runs[(SUITE.ids[0],)] = [model_run]
    budget = Budget(6.0, clock)
    executor = BudgetedExecutor(ReplayExecutor(model(), recorded, clock), budget, jobs=1)
    executor.run_many([[SUITE.ids[0]]])  # answered at once, clock still at 0
    assert clock.now == 0.0
    with pytest.raises(BudgetExhausted, match="budget"):
        executor.run_many([[SUITE.ids[1]]])  # ~10 s expected, 6 s left: not started
    assert clock.now == 0.0


def test_a_short_order_costs_at_least_what_an_order_costs_beyond_its_tests() -> None:
    """A fresh pytest per order spends seconds starting and collecting before any test:
    with less than that left, even an order of one test is not started."""
    from orderdep.core.outcomes import TestResult

    clock = Clock()
    recorded = Recorded()
    whole = model().run(SUITE.ids[:10])
    whole.wall_seconds = 12.0  # 10 tests of 0.2 s each, and 10 s of start-up
    whole.results = [TestResult(r.test, r.outcome, 0.2, r.message) for r in whole.results]
    recorded.runs[tuple(SUITE.ids[:10])] = [whole]
    budget = Budget(6.0, clock)
    executor = BudgetedExecutor(ReplayExecutor(model(), recorded, clock), budget, jobs=1)
    executor.run_many([SUITE.ids[:10]])  # answered at once: its cost is known, not spent
    assert executor.pace() == pytest.approx(1.2)  # 1.2 s per test: 2.4 s for two tests
    with pytest.raises(BudgetExhausted, match="budget"):
        executor.run_many([SUITE.ids[10:12]])  # but 10 s at least, 6 s left: not started
    assert clock.now == 0.0


def test_a_probed_orders_start_up_is_not_expected_of_a_plain_order() -> None:
    """A probed order (traced, in a fresh process) costs seconds beyond its tests that a
    plain order (a fork) does not: the floor is kept per kind, so a short plain order
    still starts with little budget left while another probed one does not."""
    from orderdep.core.outcomes import TestResult
    from orderdep.engine.probe import ProbeSpec

    clock = Clock()
    recorded = Recorded()
    whole = model().run(SUITE.ids[:20])
    whole.wall_seconds = 14.0  # 20 tests of 0.2 s each, and 10 s of tracing start-up
    whole.results = [TestResult(r.test, r.outcome, 0.2, r.message) for r in whole.results]
    recorded.runs[tuple(SUITE.ids[:20])] = [whole]
    budget = Budget(6.0, clock)
    executor = BudgetedExecutor(ReplayExecutor(model(), recorded, clock), budget, jobs=1)
    probe = ProbeSpec("orderdep.analysis.state.probe")
    executor.run_many([SUITE.ids[:20]], probe=probe)  # answered at once: cost known
    assert executor.pace() == pytest.approx(0.7)  # 1.4 s for two tests
    with pytest.raises(BudgetExhausted, match="budget"):
        executor.run_many([SUITE.ids[20:22]], probe=probe)  # 10 s at least: not started
    assert clock.now == 0.0
    budget.stop_reason = None
    executor.run_many([SUITE.ids[20:22]])  # plain: no start-up measured, started
    assert clock.now > 0.0


def test_a_search_with_nothing_found_gets_all_but_the_reserve_for_a_late_find() -> None:
    clock = Clock()  # one second per order of one test: a whole order costs len(SUITE) s
    budget = Budget(1000.0, clock)
    executor = BudgetedExecutor(ReplayExecutor(model(), Recorded(), clock), budget, jobs=1)
    assert executor.pace() is None
    assert executor.extension(0.95) == pytest.approx(1000 * 0.95)  # no pace yet: the share
    executor.run_many([[t] for t in SUITE.ids[:4]])
    assert executor.pace() == pytest.approx(1.0)
    whole = len(SUITE.ids)
    reserve = max(50.0, LATE_FIND_ORDERS * whole)  # 5% of the budget or 3 whole orders
    assert executor.extension(0.95) == pytest.approx(996 - reserve)
    assert executor.extension(0.85) == pytest.approx(996 - max(150.0, LATE_FIND_ORDERS * whole))
    assert BudgetedExecutor(executor, Budget(None, clock)).extension(0.95) is None


# -- detection and classification in one budget ------------------------------------------

STRATEGIES = ("reverse", "pairs")
AMPLE = 1e9  # seconds: a budget nothing reaches (the leftover orders stop by themselves)


def run_pipeline(
    recorded: Recorded, seconds: Optional[float], then_classify: bool = True
) -> tuple[Report, ReplayExecutor]:
    clock = Clock()
    executor = ReplayExecutor(model(), recorded, clock)
    report = detect_within(
        executor, Budget(seconds, clock), then_classify=then_classify, strategies=STRATEGIES,
        seed=1, group="none",
    )  # fmt: skip
    return report, executor


@pytest.fixture(scope="module")
def pipeline() -> tuple[Report, int, int, int]:
    report, executor = run_pipeline(Recorded(), AMPLE)
    detect_only, _ = run_pipeline(Recorded(), AMPLE, then_classify=False)
    search = detect_only.stats.extras["search_orders"]
    assert report.od_tests and all(f.kind for f in report.od_tests)
    return report, executor.ran, search, detect_only.stats.orders_run - search


@pytest.mark.parametrize("where", ["search", "confirmation", "classification"])
def test_detect_classify_stopped_in_each_phase_then_resumed(pipeline: Any, where: str) -> None:
    complete, ran, search, confirming = pipeline
    seconds = {
        "search": search // 2,
        "confirmation": search + confirming // 2,
        "classification": search + confirming + 30,
    }[where]
    recorded = Recorded()
    partial, first = run_pipeline(recorded, float(seconds))
    partial = valid(partial)
    if where == "classification":
        assert partial.stats.extras["classify_stopped"] == "budget"
        assert any(UNFINISHED_KEY in f.extras for f in partial.od_tests)
    else:
        assert partial.stats.extras[UNFINISHED_KEY]["confirmation"] == "not finished (budget)"
        pending = partial.stats.extras[UNFINISHED_KEY]["suspects"]
        assert pending and not set(pending) & set(partial.od_ids)
        # suspects confirmed before the stop are kept, and each says what it lacks
        assert set(partial.od_ids) < set(complete.od_ids)
        assert all(UNFINISHED_KEY in f.extras for f in partial.od_tests)
        bare = [f.extras[UNFINISHED_KEY] for f in partial.od_tests if f.kind is None]
        assert all(m == {"kind": "not classified (budget)"} for m in bare)
        if where == "search":
            assert partial.od_tests == []
    if where == "search":
        assert partial.stats.extras["stop_reason"] == "budget"
    resumed, second = run_pipeline(recorded, AMPLE)
    assert findings(resumed) == findings(complete)
    # The budget the strategies leave goes to seeded orders for several-test
    # dependencies (as many in both runs, being seeded); no order runs twice.
    assert second.reused > 0 and first.ran + second.ran == ran


def test_progress_fires_in_search_confirmation_and_every_classification_phase() -> None:
    detect_events: list[Any] = []
    classify_events: list[ClassifyProgress] = []
    detect_within(
        ReplayExecutor(model(), Recorded(), Clock()), Budget(), then_classify=True,
        strategies=STRATEGIES, seed=1, group="none", on_progress=detect_events.append,
        on_classify=classify_events.append,
    )  # fmt: skip
    assert {e.phase for e in detect_events} == {"search", "confirm", "done"}
    confirming = [e for e in detect_events if e.phase == "confirm"]
    assert [e.done for e in confirming] == list(range(1, len(confirming) + 1))  # every order
    assert {e.phase for e in classify_events} == set(PHASES)


def test_a_part_of_the_budget_stops_alone_but_an_interrupt_stops_the_whole() -> None:
    now = [0.0]
    whole = Budget(100.0, clock=lambda: now[0])
    now[0] = 30.0
    part = whole.part(0.2)
    assert part.seconds == 20.0  # a fifth of the whole, from now
    now[0] = 50.0
    assert part.stopped and part.stop_reason == "budget"
    assert not whole.stopped  # the rest is the search's
    late = whole.part(0.9)
    assert late.seconds == 50.0  # never more than the whole has left
    caught = KeyboardInterrupt()
    late.interrupted(caught)
    assert whole.stop_reason == "interrupted" and whole.interrupt is caught
    fresh = Budget(None).part(0.2)
    assert fresh.seconds is None and not fresh.stopped


def test_a_part_stops_when_the_whole_budget_does() -> None:
    now = [0.0]
    whole = Budget(10.0, clock=lambda: now[0])
    part = whole.part(0.5)
    whole.stop("interrupted")
    assert part.stopped and part.stop_reason == "interrupted"


def test_a_budget_spent_before_the_kind_step_takes_kind_and_partner_from_the_orders() -> None:
    clock = Clock()
    specs = [ODSpec("v", "victim", polluters=["p"]), ODSpec("b", "brittle", state_setters=["s"])]
    executor = ReplayExecutor(ModelExecutor(Suite.from_ids(["p", "v", "s", "b", "x"]), specs),
                              Recorded(), clock)  # fmt: skip
    victim = ODFinding("v", failing_order=["p", "v"], passing_order=["v"])
    brittle = ODFinding("b", failing_order=["b"], passing_order=["s", "b"])
    long = ODFinding("x", failing_order=["p", "s", "x"], passing_order=["x"])  # not two tests
    report = Report(".", ["p", "v", "s", "b", "x"], [victim, brittle, long])
    budget = Budget(1.0, clock)
    clock.now = 2.0  # spent before classification starts
    out = classify(executor, report, budget=budget)
    assert executor.ran == 0
    v, b, x = out.od_tests
    assert (v.kind, v.polluters) == ("victim", ["p"])
    assert (b.kind, b.state_setters) == ("brittle", ["s"])
    assert x.kind is None
    assert v.extras[UNFINISHED_KEY]["polluters"] == "partly searched (budget)"
    assert "kind" not in v.extras[UNFINISHED_KEY] and "kind" in x.extras[UNFINISHED_KEY]
