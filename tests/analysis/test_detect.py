from __future__ import annotations

import math
import random
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

import pytest

from orderdep.analysis.confirm import OrderRunner, RunLog, confirm
from orderdep.analysis.detect import (
    AUTO_TUSCAN_SECONDS,
    DEFAULT_ROUNDS,
    EXACT_PLAN_TESTS,
    choose_default,
    detect,
    estimate_tuscan,
)
from orderdep.analysis.estimate import TIMING_ORDERS, TUSCAN_EXCESS, Cost, Pace
from orderdep.analysis.search import DetectProgress
from orderdep.core import orders as gen
from orderdep.core.odmodel import ODSpec, fails
from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.core.promise import SHORTFALLS_KEY, shortfalls
from orderdep.core.report import Report
from orderdep.core.suite import Suite
from orderdep.core.tuscan import order_lower_bound
from orderdep.engine.config import EngineConfig
from orderdep.engine.executor import ResultCallback
from orderdep.engine.probe import ProbeSpec
from orderdep.engine.runner import Engine
from orderdep.engine.store import Store
from orderdep.errors import UsageError
from orderdep.synth.model import ModelExecutor


def ids(modules: int, per_module: int) -> list[str]:
    return [f"tests/test_m{m}.py::test_{i}" for m in range(modules) for i in range(per_module)]


IDS = ids(3, 4)
A0, A1, A2, A3, B0, B1, B2, B3, C0, C1, C2, C3 = IDS


def run_detect(
    specs: Sequence[ODSpec], strategies: Sequence[str] = (), **kw: Any
) -> tuple[Report, ModelExecutor]:
    ex = ModelExecutor(
        Suite.from_ids(kw.pop("ids", IDS)),
        specs,
        nd_tests=kw.pop("nd_tests", ()),
        always_failing=kw.pop("always_failing", ()),
        seed=kw.pop("model_seed", 0),
    )
    return detect(ex, strategies=strategies, seed=kw.pop("seed", 7), **kw), ex


def assert_honest(report: Report, specs: Sequence[ODSpec]) -> None:
    """Every finding's orders do what they claim, according to the ground truth."""
    truth = {s.test: s for s in specs}
    for f in report.od_tests:
        spec = truth[f.test]
        assert fails(spec, f.failing_order), f
        assert not fails(spec, f.passing_order), f


# --- each strategy finds what it should -----------------------------------------------


def test_original_finds_a_victim_whose_polluter_runs_first() -> None:
    specs = [ODSpec(B2, "victim", polluters=[A1])]
    report, _ = run_detect(specs, ["original"])
    assert report.od_ids == [B2]
    f = report.od_tests[0]
    assert f.failing_order == [A1, B2]  # the polluter, 4 tests back, alone before it
    assert f.passing_order == [B2]
    assert report.stats.strategies == ["original"]
    assert_honest(report, specs)


def test_failing_order_is_shortened_to_the_polluter() -> None:
    specs = [ODSpec(B2, "victim", polluters=[B1])]
    report, _ = run_detect(specs, ["original"])
    assert report.od_tests[0].failing_order == [B1, B2]


def test_reverse_finds_a_victim_whose_polluter_runs_later() -> None:
    specs = [ODSpec(A0, "victim", polluters=[C3])]
    assert run_detect(specs, ["original"])[0].od_ids == []
    report, _ = run_detect(specs, ["reverse"])
    assert report.od_ids == [A0]
    assert report.od_tests[0].failing_order == [C3, A0]  # the polluter ran first
    assert_honest(report, specs)


def test_isolation_finds_a_brittle_whose_setter_runs_first() -> None:
    specs = [ODSpec(C1, "brittle", state_setters=[A2])]
    assert run_detect(specs, ["reverse"])[0].od_ids == [C1]  # reverse: C1 before A2
    report, _ = run_detect(specs, ["isolation"])
    assert report.od_ids == [C1]
    f = report.od_tests[0]
    assert f.failing_order == [C1]
    assert f.passing_order[-1] == C1 and A2 in f.passing_order
    assert_honest(report, specs)


def test_pairs_find_victims_and_brittles_anywhere() -> None:
    specs = [
        ODSpec(A0, "victim", polluters=[C3]),
        ODSpec(C1, "brittle", state_setters=[A2]),
    ]
    report, _ = run_detect(specs, ["pairs"])
    assert sorted(report.od_ids) == sorted([A0, C1])
    assert report.finding(A0).failing_order == [C3, A0]  # type: ignore[union-attr]
    assert report.finding(C1).passing_order == [A2, C1]  # type: ignore[union-attr]
    assert_honest(report, specs)


@pytest.mark.parametrize("strategy", ["random", "random-reverse"])
def test_random_strategies_find_a_likely_victim(strategy: str) -> None:
    # three polluters, no cleaner: fails in 3/4 of the orders
    specs = [ODSpec(A0, "victim", polluters=[B1, C2, A3])]
    report, _ = run_detect(specs, [strategy], rounds=8)
    assert report.od_ids == [A0]
    assert report.stats.extras["search_orders"] == 1 + 8
    assert_honest(report, specs)


def test_random_reverse_runs_the_reverse_of_orders_that_found_nothing() -> None:
    report, ex = run_detect([], ["random-reverse"], rounds=8)
    searched = ex.history[1:9]
    # 4 chains: the first starts with the original order's reverse, the others with
    # random orders, then (nothing ever fails) their reverses
    assert searched[0] == IDS[::-1]
    assert searched[5:8] == [o[::-1] for o in searched[1:4]]
    assert searched[4] != IDS  # after a reverse, a random order
    assert report.od_ids == []


def test_random_reverse_first_reverses_the_original_order() -> None:
    """A brittle after all 30 of its state-setters in the original order: a random order
    puts it before them one time in 31; the original order's reverse does at once."""
    many = ids(6, 10)
    brittle, setters = many[-1], many[20:50]
    specs = [ODSpec(brittle, "brittle", state_setters=setters)]
    report, ex = run_detect(specs, ["random-reverse"], rounds=1, ids=many)
    assert ex.history[1] == many[::-1]
    assert report.od_ids == [brittle]
    assert_honest(report, specs)


def test_random_rounds_default() -> None:
    report, _ = run_detect([], ["random"])
    assert report.stats.extras["search_orders"] == 1 + DEFAULT_ROUNDS


def planted_single_polluters(
    rng: random.Random, suite_ids: list[str], victims: int
) -> list[ODSpec]:
    picked = rng.sample(suite_ids, 2 * victims)
    specs = []
    for v, p in zip(picked[::2], picked[1::2]):
        others = [t for t in suite_ids if t not in (v, p)]
        cleaners = rng.sample(others, rng.randrange(0, 4))
        specs.append(ODSpec(v, "victim", polluters=[p], cleaners={p: cleaners}))
    return specs


@pytest.mark.parametrize("seed", range(6))
def test_tuscan_finds_every_single_polluter_victim(seed: int) -> None:
    rng = random.Random(seed)
    suite_ids = [f"t{m}.py::test_{i}" for m in range(5) for i in range(rng.randrange(1, 7))]
    specs = planted_single_polluters(rng, suite_ids, victims=min(5, len(suite_ids) // 2))
    report, _ = run_detect(specs, ["tuscan"], ids=suite_ids, seed=seed)
    assert sorted(report.od_ids) == sorted(s.test for s in specs)
    assert_honest(report, specs)
    assert report.nd_tests == [] and report.always_failing == []


@pytest.mark.parametrize("seed", range(4))
def test_tuscan_and_isolation_find_every_single_setter_brittle(seed: int) -> None:
    rng = random.Random(100 + seed)
    suite_ids = [f"t{m}.py::test_{i}" for m in range(4) for i in range(rng.randrange(1, 6))]
    picked = rng.sample(suite_ids, 6)
    specs = [ODSpec(b, "brittle", state_setters=[s]) for b, s in zip(picked[::2], picked[1::2])]
    report, _ = run_detect(specs, ["tuscan", "isolation"], ids=suite_ids, seed=seed)
    assert sorted(report.od_ids) == sorted(s.test for s in specs)
    assert_honest(report, specs)
    assert all(f.failing_order == [f.test] for f in report.od_tests)
    setter = {s.test: s.state_setters[0] for s in specs}
    assert all(f.passing_order[0] == setter[f.test] for f in report.od_tests)  # shortest window


def test_nio_finds_tests_that_fail_when_run_again() -> None:
    specs = [ODSpec(B0, "victim", polluters=[B0])]  # pollutes its own state
    report, ex = run_detect(specs, ["nio"])
    assert report.nio_tests == [B0]
    assert [B0, B0] in ex.history
    assert report.od_ids == []
    assert run_detect(specs, ["reverse"])[0].nio_tests == []


# --- ND and always-failing tests ---------------------------------------------------------


@pytest.mark.parametrize("model_seed", range(8))
def test_nd_tests_are_never_reported_order_dependent(model_seed: int) -> None:
    specs = [ODSpec(A0, "victim", polluters=[C3])]
    report, _ = run_detect(
        specs, ["tuscan"], nd_tests=[B1, C0], model_seed=model_seed, seed=model_seed
    )
    assert report.od_ids == [A0]
    assert set(report.nd_tests) == {B1, C0}
    assert_honest(report, specs)


def test_always_failing_tests_are_reported_as_such() -> None:
    report, ex = run_detect([], ["reverse"], always_failing=[B3])
    assert report.always_failing == [B3]
    assert report.od_ids == [] and report.nd_tests == []
    # failed in the original order and alone: one run alone, no confirmation runs
    assert ex.history.count([B3]) == 1 and len(ex.history) == 3


def test_a_test_failing_in_every_search_order_but_passing_alone_is_od() -> None:
    specs = [ODSpec(B1, "victim", polluters=[A0, C0])]
    report, _ = run_detect(specs, ["reverse"])
    assert report.od_ids == [B1]
    assert report.od_tests[0].passing_order == [B1]


def test_confirmation_runs_each_named_order_confirm_runs_plus_one_times() -> None:
    specs = [ODSpec(B2, "victim", polluters=[B1])]
    for runs in (0, 3):
        report, ex = run_detect(specs, ["original"], confirm_runs=runs)
        f = report.od_tests[0]
        assert ex.history.count(f.failing_order) == runs + 1
        assert ex.history.count(f.passing_order) == runs + 1


# --- budget, limits, progress -----------------------------------------------------------


class SlowModel(ModelExecutor):
    """Orders take time: 20 ms each."""

    def pass_time(self, orders: int) -> None:
        time.sleep(0.02 * orders)

    def run_many(
        self,
        orders: Sequence[Sequence[str]],
        *,
        probe: Optional[ProbeSpec] = None,
        on_result: Optional[ResultCallback] = None,
    ) -> list[OrderResult]:
        self.pass_time(len(orders))
        return super().run_many(orders, probe=probe, on_result=on_result)


def test_max_orders_stops_the_search_and_says_so() -> None:
    specs = [ODSpec(A0, "victim", polluters=[C3])]
    report, ex = run_detect(specs, ["pairs"], max_orders=5)
    assert report.stats.extras["search_orders"] == 5
    assert report.stats.extras["stopped_early"] is True
    assert report.stats.extras["stop_reason"] == "max-orders"
    assert ex.history[:5] == [IDS, *[[A0, t] for t in IDS[1:5]]]


def test_budget_stops_the_search_and_suspects_are_still_confirmed() -> None:
    specs = [ODSpec(A0, "victim", polluters=[C3])]
    ex = SlowModel(Suite.from_ids(IDS), specs)
    start = time.monotonic()
    report = detect(ex, strategies=["reverse", "random"], seed=1, budget_seconds=0.15)
    assert time.monotonic() - start < 10
    # random orders run until the budget: their promise, kept, so not "stopped early"
    assert report.stats.extras["search_stop"] == "budget"
    assert report.stats.extras["stopped_early"] is False
    assert shortfalls(report) == []
    assert 2 <= report.stats.extras["search_orders"] < 15
    assert report.od_ids == [A0]  # found by reverse, confirmed after the budget ran out


def test_a_budget_that_stops_a_planned_strategy_leaves_the_search_incomplete() -> None:
    ex = SlowModel(Suite.from_ids(IDS), [])
    report = detect(ex, strategies=["tuscan"], seed=1, budget_seconds=0.15)
    assert report.stats.extras["stopped_early"] is True
    assert report.od_tests == []
    gaps = shortfalls(report)
    assert len(gaps) == 1 and gaps[0].startswith("tuscan: ")
    assert "planned orders ran (the budget ran out)" in gaps[0]
    assert report.stats.extras[SHORTFALLS_KEY] == gaps


def test_jobs_batch_orders_but_do_not_change_them() -> None:
    specs = [ODSpec(A0, "victim", polluters=[C3]), ODSpec(C1, "brittle", state_setters=[A2])]
    one, ex1 = run_detect(specs, ["tuscan", "random-reverse"], rounds=10)
    three, ex3 = run_detect(specs, ["tuscan", "random-reverse"], rounds=10, jobs=3)
    assert sorted(map(tuple, ex1.history)) == sorted(map(tuple, ex3.history))
    assert strip_time(one) == strip_time(three)


def test_progress_is_reported_for_search_and_confirmation() -> None:
    seen: list[DetectProgress] = []
    specs = [ODSpec(A0, "victim", polluters=[C3])]
    run_detect(specs, ["reverse"], on_progress=seen.append)
    phases = [p.phase for p in seen]
    assert phases[0] == "search" and "confirm" in phases and phases[-1] == "done"
    assert seen[-1].od_found == 1
    assert any(p.strategy == "reverse" and p.done == 1 and p.planned == 1 for p in seen)


# --- reproducibility and evidence ---------------------------------------------------------


def strip_time(report: Report) -> dict[str, Any]:
    data = report.to_json()
    del data["stats"]["wall_seconds"]
    return data


def test_same_seed_same_orders_and_report() -> None:
    specs = [ODSpec(A0, "victim", polluters=[C3]), ODSpec(C1, "brittle", state_setters=[A2])]
    args: dict[str, Any] = dict(rounds=12, nd_tests=[B1])
    r1, e1 = run_detect(specs, ["random-reverse", "tuscan"], seed=5, **dict(args))
    r2, e2 = run_detect(specs, ["random-reverse", "tuscan"], seed=5, **dict(args))
    _, e3 = run_detect(specs, ["random-reverse", "tuscan"], seed=6, **dict(args))
    assert e1.history == e2.history
    assert strip_time(r1) == strip_time(r2)
    assert e1.history != e3.history
    assert r1.stats.seed == 5


class RecordingStore:
    """A results store in memory: what the engine's store does for evidence."""

    def __init__(self) -> None:
        self.rows: list[OrderResult] = []

    def runs_of(self, order: Sequence[str]) -> list[OrderResult]:
        return [r for r in self.rows if r.order == list(order)]


class RecordingModel(ModelExecutor):
    def __init__(self, *args: Any, store: RecordingStore, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.store = store

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        result = super().run(order, probe=probe)
        result.run_id = len(self.store.rows) + 1
        self.store.rows.append(result)
        return result


def test_earlier_runs_in_the_store_count_as_evidence() -> None:
    specs = [ODSpec(B2, "victim", polluters=[B1])]
    store = RecordingStore()
    first = RecordingModel(Suite.from_ids(IDS), specs, store=store)
    r1 = detect(first, strategies=["original"], seed=1, store=store)
    second = RecordingModel(Suite.from_ids(IDS), specs, store=store)
    r2 = detect(second, strategies=["original"], seed=1, store=store)
    f = r2.od_tests[0]
    assert strip_time(r1) != strip_time(r2)  # different costs...
    assert r1.od_tests == r2.od_tests  # ...same findings
    assert second.history.count(f.failing_order) == 0  # the store's runs were enough
    assert second.orders_run < first.orders_run


def test_nd_seen_in_store_evidence_overrides_od() -> None:
    specs = [ODSpec(B2, "victim", polluters=[B1])]
    store = RecordingStore()
    # an earlier run of the original order (same code) saw B2 pass
    store.rows.append(OrderResult(IDS, [TestResult(t, Outcome.PASSED) for t in IDS]))
    ex = ModelExecutor(Suite.from_ids(IDS), specs)
    report = detect(ex, strategies=["original"], seed=1, store=store)
    assert report.od_ids == [] and report.nd_tests == [B2]


def test_confirm_alone_on_search_results() -> None:
    specs = [ODSpec(B2, "victim", polluters=[B1])]
    ex = ModelExecutor(Suite.from_ids(IDS), specs)
    runner = OrderRunner(ex, RunLog())
    search = runner.run([IDS])
    verdicts = confirm(runner, search, confirm_runs=2)
    assert [f.test for f in verdicts.od] == [B2]
    assert verdicts.nd == [] and verdicts.always_failing == []


# --- the default strategy -----------------------------------------------------------------


def timed(order: list[str], per_test: float, overhead: float) -> OrderResult:
    results = [TestResult(t, Outcome.PASSED, per_test) for t in order]
    return OrderResult(order, results, wall_seconds=overhead + per_test * len(order))


def test_tuscan_estimate() -> None:
    groups = [IDS[:4], IDS[4:8], IDS[8:]]
    pace = Pace.of(timed(IDS, 0.01, 0.5))
    est = estimate_tuscan(groups, pace)
    # the lower bound |C|(N-|C|) = 4 * 8 for each, ceil((144-48)/2) = 48, and the orders
    # pair_cover makes beyond it
    assert est.orders == math.ceil(48 * TUSCAN_EXCESS) == 59
    assert est.executions == 12 * 11 + 59
    assert est.seconds == pytest.approx(59 * 0.5 + 191 * 0.01)
    assert estimate_tuscan(groups, pace, jobs=2).seconds == pytest.approx(est.seconds / 2)


def test_tuscan_estimate_counts_the_plan_of_a_small_suite() -> None:
    groups = [IDS[:4], IDS[4:8], IDS[8:]]
    rng = random.Random(3)
    state = rng.getstate()
    est = estimate_tuscan(groups, Pace(0.5, 0.01), rng=rng)
    assert rng.getstate() == state  # the plan is made on a copy: the search's stays the same
    planned = gen.generate("tuscan", groups, rng)
    assert est.orders == len(planned) != math.ceil(48 * TUSCAN_EXCESS)
    assert est.seconds == pytest.approx(len(planned) * 0.5 + (132 + len(planned)) * 0.01)
    # beyond EXACT_PLAN_TESTS tests, the bound (making the plan would take too long)
    big = [[f"m{m}::t{i}" for i in range(8)] for m in range(EXACT_PLAN_TESTS // 8 + 1)]
    bound = estimate_tuscan(big, Pace(0.5, 0.01), rng=random.Random(3))
    assert bound.orders == math.ceil(order_lower_bound([8] * len(big)) * TUSCAN_EXCESS)


def test_default_is_tuscan_when_it_fits_else_random_reverse() -> None:
    groups = [IDS[:4], IDS[4:8], IDS[8:]]
    fast = Pace.of(timed(IDS, 0.001, 0.01))
    assert choose_default(groups, fast, jobs=1, budget_left=None, orders_left=None)[0] == "tuscan"
    assert choose_default(groups, fast, jobs=1, budget_left=0.1, orders_left=None)[0] == (
        "random-reverse"
    )
    assert choose_default(groups, fast, jobs=1, budget_left=None, orders_left=10)[0] == (
        "random-reverse"
    )
    slow = Pace.of(timed(IDS, AUTO_TUSCAN_SECONDS / 100, 0.0))
    assert choose_default(groups, slow, jobs=1, budget_left=None, orders_left=None)[0] == (
        "random-reverse"
    )


def test_the_cost_per_od_test_is_priced_for_the_orders_the_strategy_runs() -> None:
    groups = [IDS[:4], IDS[4:8], IDS[8:]]
    asked: list[Optional[float]] = []

    def per_od(length: Optional[float]) -> Cost:
        asked.append(length)
        return Cost(1, 1, 42.0)

    pace = Pace.of(timed(IDS, 0.001, 0.01))
    strategy, why = choose_default(
        groups, pace, jobs=1, budget_left=None, orders_left=None, per_od=per_od
    )
    est = estimate_tuscan(groups, pace)
    assert strategy == "tuscan" and "then each OD test found costs ~42 s more" in why
    assert asked == [pytest.approx(est.executions / est.orders)]  # one of tuscan's orders
    strategy, why = choose_default(
        groups, pace, jobs=1, budget_left=None, orders_left=10, per_od=per_od
    )
    assert strategy == "random-reverse" and "then each OD test found costs ~42 s more" in why
    assert asked[-1] is None  # a whole random order


def test_default_strategy_runs_and_is_named() -> None:
    specs = [ODSpec(A0, "victim", polluters=[C3])]
    notes: list[str] = []
    report, _ = run_detect(specs, notice=notes.append)
    assert report.stats.strategies == ["original", "timing", "isolation", "tuscan"]
    assert "running each test alone first" in notes[0] and "tuscan" in notes[1]
    timing = [a for a in report.stats.extras["coverage"] if a["strategy"] == "timing"]
    assert timing and timing[0]["orders_run"] == TIMING_ORDERS
    report, _ = run_detect(specs, max_orders=10, notice=notes.append)
    assert "not running each test alone first" in notes[2]  # 12 orders: more than 10 / 4
    assert report.stats.strategies == ["original", "timing", "random-reverse"]
    assert report.stats.extras["search_orders"] == 10


def test_bad_options_are_usage_errors() -> None:
    ex = ModelExecutor(Suite.from_ids(IDS))
    with pytest.raises(UsageError, match="unknown strategy 'shuffle'"):
        detect(ex, strategies=["shuffle"])
    with pytest.raises(UsageError, match="group level"):
        detect(ex, group="package")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="budget"):
        detect(ex, budget_seconds=0)
    with pytest.raises(UsageError, match="max_orders"):
        detect(ex, max_orders=0)
    assert ex.orders_run == 0


# --- resume through the real engine -------------------------------------------------------


def write_project(root: Path) -> None:
    (root / "shared.py").write_text("polluted = False\n")
    (root / "test_a.py").write_text(
        textwrap.dedent(
            """
            import shared

            def test_victim():
                assert not shared.polluted

            def test_polluter():
                shared.polluted = True

            def test_other():
                pass
            """
        )
    )


def test_a_second_run_of_the_same_job_runs_no_new_orders(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    write_project(project)
    reports = []
    for _ in range(2):
        store = Store.for_project(project)
        with Engine(EngineConfig(project), store=store, job="detect-test", seed=3) as engine:
            reports.append(
                detect(engine, strategies=["tuscan"], seed=3, store=store, confirm_runs=2)
            )
            runs = engine.orders_run, engine.reused
        store.close()
    first, second = reports
    assert first.od_ids == ["test_a.py::test_victim"]
    assert first.od_tests == second.od_tests
    # the second run reuses the search orders and finds every confirmation in the store
    assert runs[0] == 0 and runs[1] == second.stats.orders_run > 0


def test_the_reason_for_random_reverse_compares_tuscan_with_the_budget_not_the_od_price() -> None:
    groups = [IDS[:4], IDS[4:8], IDS[8:]]
    pace = Pace.of(timed(IDS, 1.0, 0.5))
    est = estimate_tuscan(groups, pace)
    strategy, why = choose_default(
        groups, pace, jobs=1, budget_left=est.seconds / 2, orders_left=None,
        per_od=lambda length: Cost(1, 1, 7.0),
    )  # fmt: skip
    assert strategy == "random-reverse"
    # the comparison follows tuscan's estimate; the OD price comes after, as its own clause
    assert why.index("more than the budget left") < why.index("each OD test found costs ~7 s")
    assert f"~{est.seconds:.0f} s estimated, more than the budget left" in why
    _, spent = choose_default(groups, pace, jobs=1, budget_left=-0.4, orders_left=None)
    assert "no budget is left for a search" in spent and "-0" not in spent


class TickingModel(SlowModel):
    """Each order moves a fake clock on by one second (instead of sleeping)."""

    def __init__(self, suite: Suite, specs: list[ODSpec], clock: list[float]) -> None:
        super().__init__(suite, specs)
        self.clock = clock

    def pass_time(self, orders: int) -> None:
        self.clock[0] += orders


@pytest.mark.parametrize("planted", [False, True])
def test_a_search_with_no_suspect_at_its_budget_goes_on_with_the_time_kept_for_more(
    monkeypatch: pytest.MonkeyPatch, planted: bool
) -> None:
    from types import SimpleNamespace

    from orderdep.analysis import search as search_module

    clock = [0.0]
    monkeypatch.setattr(search_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    specs = [ODSpec(A0, "victim", polluters=[C3])] if planted else []
    ex = TickingModel(Suite.from_ids(IDS), specs, clock)
    said: list[str] = []
    asked: list[int] = []

    def extend() -> float:
        asked.append(1)
        return 20.0

    report = detect(
        ex, strategies=["random"], seed=1, budget_seconds=10.0, extend_search=extend,
        notice=said.append, confirm_runs=0,
    )  # fmt: skip
    searched = report.stats.extras["search_orders"]
    if planted:  # a suspect by then: the time stays with confirming and classifying it
        assert asked == [] and searched <= 10 + 8
        assert report.od_ids == [A0]
    else:
        assert asked == [1] and 20 < searched <= 30 + 8
        assert any("the search goes on with the time kept for what it finds (20 s)" in s
                   for s in said)  # fmt: skip
        assert shortfalls(report) == []


def test_a_suspect_found_on_extended_time_ends_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from orderdep.analysis import search as search_module
    from orderdep.analysis.search import Search

    clock = [0.0]
    monkeypatch.setattr(search_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    search = Search(object(), budget_seconds=10.0, max_orders=None, on_progress=None,  # type: ignore[arg-type]
                    extend=lambda: 50.0)  # fmt: skip
    clock[0] = 11.0
    assert search._may_start() and search.extended  # no suspect at its budget: 50 s more
    clock[0] = 20.0
    assert search._may_start()
    search.failed_seen.add(A0)  # failing in every order so far (a broken test): go on
    assert search._may_start()
    search.passed_seen.add(A0)  # a suspect: the rest is confirmation's and classification's
    assert not search._may_start() and search.stop_reason == "budget"


def test_on_extended_time_each_slice_is_one_order_per_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from types import SimpleNamespace

    from orderdep.analysis import search as search_module
    from orderdep.analysis.search import SLICE, Search

    clock = [0.0]
    monkeypatch.setattr(search_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    search = Search(SimpleNamespace(jobs=2), budget_seconds=10.0, max_orders=None,  # type: ignore[arg-type]
                    on_progress=None, extend=lambda: 50.0)  # fmt: skip
    search.count = 5  # 0.2 s an order so far: the time left holds many slices
    clock[0] = 1.0
    assert search.slice_size() == 2 * SLICE
    clock[0] = 11.0
    assert search._may_start() and search.extended
    # a suspect in an order of this slice stops the search before another order starts
    assert search.slice_size() == 2
