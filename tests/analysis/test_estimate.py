from __future__ import annotations

import random

import pytest

from orderdep.analysis.estimate import TIMING_ORDERS, Pace, per_od_test, timing_orders
from orderdep.core.outcomes import OrderResult, Outcome, TestResult


def ran(durations: dict[str, float], wall: float, outcome: Outcome = Outcome.PASSED) -> OrderResult:
    results = [TestResult(t, outcome, d) for t, d in durations.items()]
    return OrderResult(list(durations), results, wall_seconds=wall)


def test_pace_of_the_original_order() -> None:
    results = [TestResult(f"t{i}", Outcome.PASSED, 0.02) for i in range(10)]
    pace = Pace.of(OrderResult([r.test for r in results], results, wall_seconds=0.5))
    assert pace.per_test == pytest.approx(0.02)
    assert pace.per_order == pytest.approx(0.3)
    assert pace.seconds(10, 100, jobs=2) == pytest.approx((10 * 0.3 + 100 * 0.02) / 2)


def test_short_orders_show_the_set_up_each_process_pays() -> None:
    """The first test to read a data file parses it (1 s) in each process: the original
    order paid it once, inside t0; every short order pays it again, in whichever test
    comes first, so the cost of an order is 1 s more and the tests' own time 1 s less."""
    original = ran({"t0": 1.01, **{f"t{i}": 0.01 for i in range(1, 10)}}, wall=1.2)
    assert Pace.of(original) == Pace(pytest.approx(0.1), pytest.approx(0.11))
    short = [
        ran({"t1": 1.01, "t0": 0.01}, wall=1.12),  # t0 now takes its own time
        ran({"t2": 1.01, "t3": 0.01}, wall=1.12),
        ran({"t4": 1.01, "t5": 0.01}, wall=1.12),
    ]
    pace = Pace.of(original, short)
    assert pace.per_order == pytest.approx(1.1)
    assert pace.per_test == pytest.approx(0.01)
    # 100 orders of 2 tests: what the short orders took, not 100 x 0.32 s
    assert pace.seconds(100, 200) == pytest.approx(100 * 1.12)


def test_short_orders_without_set_up_leave_the_pace_of_the_original() -> None:
    original = ran({f"t{i}": 0.02 for i in range(10)}, wall=0.5)
    short = [ran({"t1": 0.02, "t2": 0.02}, wall=0.34), ran({"t3": 0.02, "t4": 0.02}, wall=0.34)]
    assert Pace.of(original, short) == Pace.of(original)
    # faster short orders do not make orders cheaper than the original's overhead
    quick = [ran({"t1": 0.02, "t2": 0.02}, wall=0.1)]
    assert Pace.of(original, quick) == Pace.of(original)


def test_short_orders_cut_by_a_crash_or_timeout_are_left_out() -> None:
    original = ran({f"t{i}": 0.02 for i in range(10)}, wall=0.5)
    hung = ran({"t1": 0.02, "t2": 60.0}, wall=65.0, outcome=Outcome.TIMEOUT)
    assert Pace.of(original, [hung]) == Pace.of(original)
    cut = OrderResult(["t1", "t2"], [TestResult("t1", Outcome.CRASHED, 0.02)], wall_seconds=9.0)
    assert Pace.of(original, [cut]) == Pace.of(original)


def test_timing_orders_are_short_seeded_and_skipped_for_tiny_suites() -> None:
    ids = [f"t{i}" for i in range(20)]
    orders = timing_orders(ids, random.Random(1))
    assert len(orders) == TIMING_ORDERS
    assert all(len(o) == 2 and len(set(o)) == 2 and set(o) <= set(ids) for o in orders)
    assert timing_orders(ids, random.Random(1)) == orders
    assert timing_orders(ids[:3], random.Random(1)) == []


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


def test_real_suites_are_priced_within_one_and_a_half() -> None:
    """Recorded runs of ``detect --classify --jobs 2`` (docs/benchmarks.md).

    flask-smorest (575 tests at 0.033 s each, 0.17 s per order beyond them; random-reverse
    found its 16 OD tests in whole orders): confirming and classifying took 206 s per OD
    test. eppy (39 tests of five modules; 0.008 s per test and 0.82 s per order, a data
    dictionary parsed by each process): tuscan's 555 orders of 3.7 tests on average, then
    25 OD tests confirmed and classified, took 854 s after the estimate."""
    smorest = per_od_test(
        Pace(per_order=0.17, per_test=0.033), 575, confirm_runs=5, classify=True, jobs=2
    )
    assert 206 / 1.5 <= smorest.seconds <= 206 * 1.5
    eppy = Pace(per_order=0.82, per_test=0.008)
    search = eppy.seconds(555, 39 * 38 + 555, jobs=2)
    od = per_od_test(eppy, 39, confirm_runs=5, classify=True, jobs=2, failing_length=3.7)
    assert 854 / 1.5 <= search + 25 * od.seconds <= 854 * 1.5


def test_classification_of_victims_with_several_polluters_and_cleaners() -> None:
    """pyswarms (466 tests at 0.079 s each, 0.46 s per order beyond them): classifying two
    victims of 2 and 4 polluters, each with a cleaner, took 1,434 s (17 x N executions and
    98 orders per OD test, no confirmation)."""
    pace = Pace(per_order=0.455, per_test=0.079)
    both = per_od_test(pace, 466, confirm_runs=5, classify=True, jobs=2)
    confirm = per_od_test(pace, 466, confirm_runs=5, classify=False, jobs=2)
    assert 717 / 1.5 <= both.seconds - confirm.seconds <= 717 * 1.5


def test_an_od_test_found_in_a_short_order_is_cheaper_to_confirm() -> None:
    pace = Pace(per_order=0.5, per_test=0.01)
    whole = per_od_test(pace, 400, confirm_runs=5, classify=False)
    short = per_od_test(pace, 400, confirm_runs=5, classify=False, failing_length=8)
    assert short.orders < whole.orders and short.executions < whole.executions
    assert per_od_test(pace, 400, confirm_runs=5, classify=False, failing_length=4000) == whole
