"""What work will cost: the numbers printed before a search.

:class:`Pace` is measured on the original order (the first order every detection runs)
and a few short orders of :func:`timing_orders`: the time of one test execution on
average, and the cost of an order beyond its tests (starting it in a fresh interpreter
state, collecting results, and whatever set-up the first test of a process pays: a data
file parsed on first use, a lazily built cache). The original order pays such set-up
once, inside one of its tests, so it alone cannot tell it from test time; every short
order pays it again. The short orders' wall time beyond their tests' own durations (the
least each took, in the original or in a short order) is therefore the cost of an order,
and what that exceeds the original's overhead by is taken out of the original's test
time. eppy's 39 tests ran in 1.2 s, and its orders of 2-4 tests took 1.15 s each, about
1 s of it a data dictionary parsed on first use: the original order alone priced its
555 tuscan orders at 0.02 s + 3.6 x 0.03 s each, the short orders at 1.1 s. Any plan of
orders and executions is then priced as ``orders x per_order + executions x
per_test``, shared by ``jobs`` workers.

:func:`per_od_test` prices what follows the search for each OD test it finds (the part
the first estimates left out, which made them 2-4x too low): confirmation (the failing
and passing orders shortened by a binary search over the recorded prefix, then re-run
``confirm_runs`` times each; the failing order is a whole random order, or one of
tuscan's, much shorter) and, with classification, the kind (``alone_runs`` runs alone),
then group testing, one order at a time, over sets of up to every other test. What that
costs depends on the victim. Its orders grow with the searches: a polluter (or a polluter
group of two) and no cleaner takes about 2 log2 N + 1 orders, each cleaner and each
further polluter as many again. Its executions grow with N: 4 x N for one polluter
without a cleaner (``benchmarks/bench_classify.py --cost``), 8 x N with a cleaner; on real
suites whose victims have several polluters with cleaners, classification alone took
about 12 x N (flask-smorest: 575 tests, 16 x N and 110 orders per OD test with
confirmation) and 17 x N (pyswarms: 466 tests, 98 orders). No one shape fits real suites:
eppy's victims (a polluter group each, no cleaner) pay mostly for orders, at 1.1 s each
(see above); flask-smorest's and pyswarms' mostly for executions. The price takes
:data:`SEARCHES` x (2 log2 N + 1) orders and :data:`SEARCH_EXECUTIONS` x N executions,
set so that all of these come within 1.5x, the two suites with cleaners at its two ends:
flask-smorest's 206 s per OD test is priced at 297 s, pyswarms' 717 s of classification
per OD test at 502 s (both from the pace their runs measured), and runs of eppy and
odinweb took 0.75x and 0.89x of what their printed estimates said (the executions barely
move them). These are estimates, not bounds;
``benchmarks/bench_estimate.py`` and ``benchmarks/scale_real.py`` check them against real
runs.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from orderdep.core.outcomes import OrderResult

# pair_cover() makes this many more orders than order_lower_bound() (measured: 19-22% on
# 100-2,000 tests in groups of 8-10).
TUSCAN_EXCESS = 1.22
DEFAULT_ALONE_RUNS = 10
# Classification (see the module docstring): group searches of 2 log2 N + 1 orders, and
# the test executions they cost together, in units of N.
SEARCHES = 2
SEARCH_EXECUTIONS = 13
# Short orders that time what an order costs beyond its tests, run as this strategy.
TIMING_STRATEGY = "timing"
TIMING_ORDERS = 3
TIMING_ORDER_TESTS = 2


def timing_orders(ids: Sequence[str], rng: random.Random) -> list[list[str]]:
    """:data:`TIMING_ORDERS` orders of :data:`TIMING_ORDER_TESTS` tests drawn from ``ids``
    (none for a suite too small to need them)."""
    if len(ids) <= TIMING_ORDER_TESTS + 1:
        return []
    return [rng.sample(list(ids), TIMING_ORDER_TESTS) for _ in range(TIMING_ORDERS)]


@dataclass(frozen=True)
class Pace:
    """Seconds per order (beyond its tests) and per test execution."""

    per_order: float
    per_test: float

    @classmethod
    def of(cls, original: OrderResult, short: Sequence[OrderResult] = ()) -> Pace:
        """The pace of ``original``, corrected by the ``short`` orders' wall times (see
        the module docstring); short orders a crash or timeout cut are left out."""
        test_time = sum(r.duration for r in original.results)
        overhead = max(0.0, original.wall_seconds - test_time)
        n = len(original.results)
        if not n:
            return cls(overhead, 0.0)
        whole = [s for s in short if s.complete and len(s.results) == len(s.order)]
        # a test's own time: the least it took anywhere (the one that paid the set-up in
        # the original took less in a short order that another test's set-up opened)
        own = {r.test: r.duration for r in original.results}
        for r in (r for s in whole for r in s.results):
            own[r.test] = min(own.get(r.test, r.duration), r.duration)
        beyond = [s.wall_seconds - sum(own[r.test] for r in s.results) for s in whole]
        per_order = max(overhead, statistics.fmean(beyond)) if beyond else overhead
        set_up = min(per_order - overhead, test_time)
        return cls(per_order, (test_time - set_up) / n)

    def seconds(self, orders: float, executions: float, jobs: int = 1) -> float:
        return (orders * self.per_order + executions * self.per_test) / max(1, jobs)


def _log2(n: float) -> int:
    return max(1, math.ceil(math.log2(max(2.0, n))))


@dataclass(frozen=True)
class Cost:
    orders: int
    executions: int
    seconds: float


def per_od_test(
    pace: Pace,
    n_tests: int,
    *,
    confirm_runs: int,
    classify: bool,
    jobs: int = 1,
    alone_runs: int = DEFAULT_ALONE_RUNS,
    failing_length: Optional[float] = None,
) -> Cost:
    """The estimated cost of confirming (and classifying) one OD test of ``n_tests``,
    found in an order of ``failing_length`` tests (default: the whole suite; tuscan's
    orders are shorter, and so is what confirmation shortens)."""
    log = _log2(n_tests)
    length = n_tests if failing_length is None else max(1.0, min(failing_length, n_tests))
    short_log = _log2(length)
    # confirmation: two shortenings (about log L orders of up to L/2 tests each), then
    # confirm_runs re-runs of each kept order (short ones); ``jobs`` orders at a time
    orders = 2 * short_log + 2 * confirm_runs
    executions = math.ceil(4 * length) + 2 * confirm_runs * 3
    seconds = pace.seconds(orders, executions, jobs)
    if classify:
        # kind: alone runs and the precondition; then SEARCHES group searches over about
        # N candidates (see the module docstring). One order at a time: each bisection
        # step needs the outcome of the last.
        steps = alone_runs + 1 + SEARCHES * (2 * log + 1)
        runs = alone_runs + SEARCH_EXECUTIONS * n_tests
        orders, executions = orders + steps, executions + runs
        seconds += pace.seconds(steps, runs, 1)
    return Cost(orders, executions, seconds)


__all__ = ["TIMING_STRATEGY", "TUSCAN_EXCESS", "Cost", "Pace", "per_od_test", "timing_orders"]
