"""The default search runs each test alone first when that is cheap: a brittle with many
state-setters fails there, while pairs and random orders rarely put it first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from types import SimpleNamespace
from typing import Any, Optional

import pytest

from orderdep.analysis import default_strategy
from orderdep.analysis import search as search_module
from orderdep.analysis.default_strategy import ISOLATION_SHARE, plan_isolation
from orderdep.analysis.detect import detect
from orderdep.analysis.estimate import Pace
from orderdep.core.odmodel import ODSpec
from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.core.promise import shortfalls
from orderdep.core.replan import describe
from orderdep.core.suite import Suite
from orderdep.engine.probe import ProbeSpec
from orderdep.synth.model import ModelExecutor

# 16 modules of ten tests; the brittle, in the middle (the original order's reverse runs
# tests before it too), passes after any of the other 159
IDS = [f"tests/test_m{m}.py::test_{i}" for m in range(16) for i in range(10)]
BRITTLE = IDS[80]
SPECS = [ODSpec(BRITTLE, "brittle", state_setters=[t for t in IDS if t != BRITTLE])]


class ClockedModel(ModelExecutor):
    """Each order takes 0.3 s plus 0.02 s a test, on a fake clock the search reads."""

    def __init__(self, clock: list[float]) -> None:
        super().__init__(Suite.from_ids(IDS), SPECS)
        self.clock = clock

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        got = super().run(order, probe=probe)
        results = [replace(r, duration=0.02) for r in got.results]
        self.clock[0] += 0.3 + 0.02 * len(order)
        return replace(got, results=results, wall_seconds=0.3 + 0.02 * len(order))


def run(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str], list[str], list[Any]]:
    """A 240 s detection: 160 tests alone cost ~51 s, pair coverage far more."""
    clock = [0.0]
    monkeypatch.setattr(search_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    said: list[str] = []
    report = detect(
        ClockedModel(clock), seed=3, budget_seconds=240.0, notice=said.append, confirm_runs=2
    )
    coverage = report.stats.extras["coverage"]
    return report.od_ids, report.stats.strategies, said, coverage


def test_a_brittle_that_any_other_test_sets_up_is_found_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found, strategies, said, coverage = run(monkeypatch)
    assert strategies[:4] == ["original", "timing", "isolation", "random-reverse"]
    alone = next(a for a in coverage if a["strategy"] == "isolation")
    assert describe(alone, len(IDS)) == "isolation: 160 of 160 orders, each test alone"
    assert any("running each test alone first (isolation: 160 orders" in s for s in said)
    assert found == [BRITTLE]


def test_without_isolation_the_same_search_misses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # the same orders with no room for isolation: this is what it adds
    monkeypatch.setattr(default_strategy, "ISOLATION_SHARE", 0.0)
    found, strategies, said, _ = run(monkeypatch)
    assert "isolation" not in strategies and "random-reverse" in strategies
    assert any("not running each test alone first" in s for s in said)
    assert found == []


def test_isolation_runs_only_within_its_share_of_time_and_orders() -> None:
    pace = Pace(per_order=0.5, per_test=0.1)  # 40 tests alone: 24 s
    fits = plan_isolation(40, pace, jobs=1, budget_left=24 / ISOLATION_SHARE, orders_left=None)
    assert fits.runs and fits.orders == 40 and fits.seconds == pytest.approx(24.0)
    assert "~24 s estimated" in fits.why and "brittle" in fits.why
    short = plan_isolation(40, pace, jobs=1, budget_left=90.0, orders_left=None)
    assert not short.runs and "more than 25% of the budget left (90 s)" in short.why
    assert plan_isolation(40, pace, jobs=2, budget_left=90.0, orders_left=None).runs
    few = plan_isolation(40, pace, jobs=1, budget_left=None, orders_left=159)
    assert not few.runs and "--max-orders leaves (159)" in few.why
    assert plan_isolation(40, pace, jobs=1, budget_left=None, orders_left=160).runs


def test_isolation_that_costs_two_whole_orders_takes_their_place() -> None:
    pace = Pace(per_order=0.05, per_test=0.07)  # 127 tests: 9 s an order, 15 s alone
    plan = plan_isolation(127, pace, jobs=1, budget_left=15.0, orders_left=None)
    assert plan.runs and plan.seconds == pytest.approx(15.24)
    # not when not even one whole order fits what is left
    assert not plan_isolation(127, pace, jobs=1, budget_left=8.0, orders_left=None).runs
    # nor when the orders' own overhead makes it dearer than two of them
    dear = Pace(per_order=0.5, per_test=0.07)
    assert not plan_isolation(127, dear, jobs=1, budget_left=60.0, orders_left=None).runs


def test_a_part_of_the_suite_gets_reorders_before_isolation_in_their_place() -> None:
    pace = Pace(per_order=0.05, per_test=0.07)  # 127 tests: 9 s an order, 15 s alone
    part = plan_isolation(127, pace, jobs=1, budget_left=15.0, orders_left=None, part=True)
    assert not part.runs
    assert "the part of the suite searched gets orders that reorder it first" in part.why
    # within its own share it still runs
    assert plan_isolation(127, pace, jobs=1, budget_left=80.0, orders_left=None, part=True).runs


def test_the_time_kept_for_what_the_search_finds_counts_as_room() -> None:
    pace = Pace(per_order=0.05, per_test=0.07)  # 127 tests: 9 s an order, 15 s alone
    short = plan_isolation(127, pace, jobs=1, budget_left=5.0, orders_left=None)
    assert not short.runs and "the budget left (5 s)" in short.why
    roomy = plan_isolation(127, pace, jobs=1, budget_left=5.0, orders_left=None, kept=30.0)
    assert roomy.runs
    dear = Pace(per_order=0.5, per_test=0.07)  # 72 s alone
    said = plan_isolation(127, dear, jobs=1, budget_left=5.0, orders_left=None, kept=30.0).why
    assert "of the budget left with the time kept for what the search finds (35 s)" in said


def test_a_search_with_little_budget_left_runs_isolation_on_the_time_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [0.0]
    monkeypatch.setattr(search_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    said: list[str] = []

    def extend() -> float:  # 160 tests alone, ~51 s: a quarter of 12 s + 250 s
        return 250.0

    report = detect(
        ClockedModel(clock), seed=3, budget_seconds=12.0, extend_search=extend,
        notice=said.append, confirm_runs=2,
    )  # fmt: skip
    assert "isolation" in report.stats.strategies, said
    assert report.od_ids == [BRITTLE]
    # the search went on past its own budget: on the time kept, once
    assert any("the search goes on with the time kept" in s for s in said)


class SlowAloneModel(ClockedModel):
    """A test alone pays a second of set-up the short timing orders did not show."""

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        if len(order) == 1:
            self.clock[0] += 1.0
        return super().run(order, probe=probe)


def test_isolation_stops_at_twice_its_estimate_and_the_chosen_strategy_gets_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [0.0]
    monkeypatch.setattr(search_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    said: list[str] = []
    report = detect(
        SlowAloneModel(clock), seed=3, budget_seconds=240.0, notice=said.append, confirm_runs=2
    )
    alone = next(a for a in report.stats.extras["coverage"] if a["strategy"] == "isolation")
    assert 0 < alone["orders_run"] < len(IDS)  # ~51 s estimated, 1.32 s an order: ~78 of 160
    assert any("isolation stopped at 2x its estimate" in s for s in said), said
    rr = next(a for a in report.stats.extras["coverage"] if a["strategy"] == "random-reverse")
    assert rr["orders_run"] > 0
    # an extra of the default, not its promise: stopping it is no shortfall
    assert report.stats.extras["promised"] == ["original", "timing", "random-reverse"]
    assert shortfalls(report) == []


def test_isolation_runs_the_tests_that_failed_in_the_original_order_first() -> None:
    original = ClockedModel([0.0]).run(IDS[:6])
    failing = replace(original.results[4], outcome=Outcome.FAILED)
    original = replace(original, results=[*original.results[:4], failing, original.results[5]])
    streamed: list[list[list[str]]] = []

    def run_stream(strategy: str, orders: Any, planned: int, seconds: float) -> int:
        streamed.append(list(orders))
        return planned

    search = SimpleNamespace(results=[original], run_stream=run_stream, stopped=False)
    plan = default_strategy.IsolationPlan(True, 6, 3.0, "")
    default_strategy.run_isolation(search, IDS[:6], plan, "random-reverse", lambda s: None)  # type: ignore[arg-type]
    assert streamed == [[[IDS[4]], *[[t] for t in IDS[:6] if t != IDS[4]]]]


# four modules of ten tests, each taking 0.3 s (an order 0.1 s more, a test alone a second
# more than the timing orders show): each alone costs less than two whole orders
WIDE = [f"tests/test_m{m}.py::test_{i}" for m in range(4) for i in range(10)]
VICTIM, POLLUTER = WIDE[5], WIDE[35]


class SlowTestsModel(ModelExecutor):
    def __init__(self, clock: list[float]) -> None:
        super().__init__(Suite.from_ids(WIDE), [ODSpec(VICTIM, "victim", polluters=[POLLUTER])])
        self.clock = clock

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        got = super().run(order, probe=probe)
        results = [replace(r, duration=0.3) for r in got.results]
        wall = 0.1 + 0.3 * len(order) + (1.0 if len(order) == 1 else 0.0)
        self.clock[0] += wall
        return replace(got, results=results, wall_seconds=wall)


def test_the_original_order_reversed_runs_before_isolation_can_take_its_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Isolation, cheap by the timing orders, costs more alone than they showed and
    would take the rest of a 45-s budget; the victim of a polluter that follows it in the
    original order fails in the original order reversed, which runs first."""
    clock = [0.0]
    monkeypatch.setattr(search_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    said: list[str] = []
    report = detect(
        SlowTestsModel(clock), seed=3, budget_seconds=45.0, notice=said.append, confirm_runs=2
    )
    assert report.od_ids == [VICTIM]
    assert any("the original order reversed first" in s for s in said), said
    coverage = {a["strategy"]: a["orders_run"] for a in report.stats.extras["coverage"]}
    assert coverage["random-reverse"] >= 1 and coverage["isolation"] >= 1
