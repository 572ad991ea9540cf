"""One budget plan: each OD test gets its kind and one partner as soon as it is confirmed."""

from __future__ import annotations

import pytest
from replay import Clock, Recorded, ReplayExecutor
from test_budget import AMPLE, detected, findings, model, run_pipeline, valid

from orderdep.analysis.budget import UNFINISHED_KEY, Budget
from orderdep.analysis.classify import classify
from orderdep.analysis.classify_marks import phases_done
from orderdep.analysis.classify_steps import PHASES
from orderdep.core.report import ODFinding, Report


@pytest.fixture(scope="module")
def spans() -> tuple[int, int]:
    """Orders of the search, and of confirming and classifying, without a budget."""
    report, _ = run_pipeline(Recorded(), AMPLE)
    detect_only, _ = run_pipeline(Recorded(), AMPLE, then_classify=False)
    search = detect_only.stats.extras["search_orders"]
    return search, report.stats.orders_run - search


def partner(f: ODFinding) -> bool:
    return bool(f.polluters or f.polluter_groups or f.state_setters or f.state_setter_groups)


def test_a_budget_spent_in_confirmation_leaves_at_most_the_last_chunk_unclassified(
    spans: tuple[int, int],
) -> None:
    search, after = spans
    seen_classified = False
    for seconds in range(search, search + after, 5):
        report, _ = run_pipeline(Recorded(), float(seconds))
        report = valid(report)
        if UNFINISHED_KEY not in report.stats.extras:
            break  # confirmation finished: the rest is classification's own tests
        bare = [f for f in report.od_tests if f.kind is None]
        # confirmation goes on two suspects at a time (jobs=1), and each chunk's OD tests
        # are classified before the next chunk starts
        assert len(bare) <= 2, (seconds, [f.test for f in bare])
        with_kind = [f for f in report.od_tests if f.kind is not None]
        seen_classified = seen_classified or any(partner(f) for f in with_kind)
    assert seen_classified  # some budget stopped confirmation after a partner was known


def test_the_whole_pipeline_counts_every_classification_order(spans: tuple[int, int]) -> None:
    report, executor = run_pipeline(Recorded(), AMPLE)
    assert report.stats.orders_run == executor.ran
    search = report.stats.extras["search_orders"]
    confirm_only, _ = run_pipeline(Recorded(), AMPLE, then_classify=False)
    classifying = report.stats.extras["classify_orders"]
    assert classifying + confirm_only.stats.orders_run == report.stats.orders_run
    assert search == confirm_only.stats.extras["search_orders"]


def classified(budget: Budget, report: Report, resume: bool) -> tuple[Report, int]:
    executor = ReplayExecutor(model(), Recorded(), budget.clock)  # type: ignore[arg-type]
    out = classify(executor, report, flake_samples=100, budget=budget, resume=resume)
    return out, executor.ran


def test_phases_done_reads_back_what_a_stop_left() -> None:
    clock = Clock()
    whole, _ = classified(Budget(None, clock), detected(), resume=False)
    assert all(phases_done(f) == set(PHASES) for f in whole.od_tests)
    seen: set[frozenset[str]] = set()
    for seconds in range(0, 400, 3):
        clock = Clock()
        part, _ = classified(Budget(float(seconds), clock), detected(), resume=False)
        for f in valid(part).od_tests:
            done = phases_done(f)
            assert done == set(PHASES[: len(done)])  # always a prefix
            if f.kind is None:
                assert done == set()
            else:
                marks = f.extras.get(UNFINISHED_KEY, {})
                assert ("flake-rate" in done) == ("flake_rate" not in marks)
            seen.add(frozenset(done))
    assert {frozenset(), frozenset(PHASES[:1]), frozenset(PHASES[:2])} <= seen


def test_resume_skips_the_phases_done_and_ends_where_a_fresh_start_ends() -> None:
    clock = Clock()
    first, _ = classified(Budget(None, clock), detected(), resume=False)
    part = classify(
        ReplayExecutor(model(), Recorded(), Clock()), detected(), flake_samples=100,
        phases=PHASES[:2],
    )  # fmt: skip
    assert all(phases_done(f) == set(PHASES[:2]) for f in part.od_tests)
    _, ran_fresh = classified(Budget(None, Clock()), part, resume=False)
    resumed, ran_resumed = classified(Budget(None, Clock()), part, resume=True)
    assert findings(resumed) == findings(first)
    assert ran_resumed < ran_fresh
