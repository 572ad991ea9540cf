from __future__ import annotations

import pytest

from orderdep.analysis.estimate import Pace, per_od_test
from orderdep.core.outcomes import OrderResult, Outcome, TestResult


def test_pace_of_the_original_order() -> None:
    results = [TestResult(f"t{i}", Outcome.PASSED, 0.02) for i in range(10)]
    pace = Pace.of(OrderResult([r.test for r in results], results, wall_seconds=0.5))
    assert pace.per_test == pytest.approx(0.02)
    assert pace.per_order == pytest.approx(0.3)
    assert pace.seconds(10, 100, jobs=2) == pytest.approx((10 * 0.3 + 100 * 0.02) / 2)


def test_per_od_test_cost_counts_classification_and_grows_with_the_suite() -> None:
    pace = Pace(per_order=0.05, per_test=0.01)
    confirm_only = per_od_test(pace, 200, confirm_runs=5, classify=False)
    both = per_od_test(pace, 200, confirm_runs=5, classify=True)
    assert both.orders > confirm_only.orders and both.seconds > confirm_only.seconds
    assert both.orders >= 10 + 1  # the alone runs and the precondition at least
    bigger = per_od_test(pace, 2000, confirm_runs=5, classify=True)
    # executions grow with the suite, orders only with its logarithm
    assert bigger.executions > 5 * both.executions
    assert bigger.orders < 2 * both.orders
    # confirmation runs jobs orders at a time; classification one order after another
    classification = both.seconds - confirm_only.seconds
    assert per_od_test(pace, 200, confirm_runs=5, classify=True, jobs=2).seconds == (
        pytest.approx(confirm_only.seconds / 2 + classification)
    )


def test_classification_is_priced_within_one_and_a_half_of_a_real_suite() -> None:
    """flask-smorest (575 tests; its original order ran at 0.027 s per test and 0.2 s per
    order beyond them): confirming and classifying took 206 s per OD test with two jobs
    (docs/benchmarks.md, "Estimates"). Counting one polluter without cleaners said 125."""
    cost = per_od_test(
        Pace(per_order=0.2, per_test=0.027), 575, confirm_runs=5, classify=True, jobs=2
    )
    assert 206 / 1.5 <= cost.seconds <= 206 * 1.5
    assert 206 / cost.seconds < 1.3
