"""What work will cost, priced by the original order: the numbers printed before a search.

:class:`Pace` is measured on the original order (the first order every detection runs):
the time of one test execution on average, and the cost of an order beyond its tests
(starting it in a fresh interpreter state, collecting results). Any plan of orders and
executions is then priced as ``orders x per_order + executions x per_test``, shared by
``jobs`` workers.

:func:`per_od_test` prices what follows the search for each OD test it finds (the part
the first estimates left out, which made them 2-4x too low): confirmation (the failing
and passing orders shortened by a binary search over the recorded prefix, then re-run
``confirm_runs`` times each) and, with classification, the kind (``alone_runs`` runs
alone), then group testing, one order at a time, priced for the shape real victims
mostly have: a polluter with a cleaner. That is four searches over sets of up to every
other test: the polluter (both directions), its cleaner, the polluters the cleaner could
hide among the rest (both directions), and the cleaner search again, about 8 x N test
executions and 4 x (2 log2 N + 1) orders. A victim with one polluter and no cleaner costs
about half of that (``benchmarks/bench_classify.py --cost``: 4 x N); flask-smorest's
victims, with two polluters and cleaners each, cost 16 x N executions in 110 orders
(206 s per OD test at 575 tests, where counting one polluter without cleaners said 125).
These are estimates, not bounds; ``benchmarks/bench_estimate.py`` checks them against
real runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from orderdep.core.outcomes import OrderResult

# pair_cover() makes this many more orders than order_lower_bound() (measured: 19-22% on
# 100-2,000 tests in groups of 8-10).
TUSCAN_EXCESS = 1.22
DEFAULT_ALONE_RUNS = 10
# Classification of a victim with a polluter and a cleaner: group searches over about N
# candidates, and the test executions they cost together, in units of N.
SEARCHES = 4
SEARCH_EXECUTIONS = 8


@dataclass(frozen=True)
class Pace:
    """Seconds per order (beyond its tests) and per test execution."""

    per_order: float
    per_test: float

    @classmethod
    def of(cls, original: OrderResult) -> Pace:
        test_time = sum(r.duration for r in original.results)
        per_test = test_time / len(original.results) if original.results else 0.0
        return cls(max(0.0, original.wall_seconds - test_time), per_test)

    def seconds(self, orders: float, executions: float, jobs: int = 1) -> float:
        return (orders * self.per_order + executions * self.per_test) / max(1, jobs)


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
) -> Cost:
    """The estimated cost of confirming (and classifying) one OD test of ``n_tests``."""
    log = max(1, math.ceil(math.log2(max(2, n_tests))))
    # confirmation: two shortenings (about log N orders of up to N/2 tests each), then
    # confirm_runs re-runs of each kept order (short ones); ``jobs`` orders at a time
    orders = 2 * log + 2 * confirm_runs
    executions = 4 * n_tests + 2 * confirm_runs * 3
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


__all__ = ["TUSCAN_EXCESS", "Cost", "Pace", "per_od_test"]
