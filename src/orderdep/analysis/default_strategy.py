"""The default search strategy: complete pair coverage (tuscan) when it fits, else
random-reverse (see :mod:`orderdep.analysis.detect`), with the estimate behind the choice;
before it, each test alone (isolation) when that is cheap.

Isolation finds the brittle that neither of them is likely to: one that fails only when
no state-setter ran before it, and has many (a suite where any of 80 tests sets up what it
reads). Pairs and random orders put such a test first among its setters rarely; alone, it
fails at once. It costs one order per test, so it runs only when its estimate is within
:data:`ISOLATION_SHARE` of the time (and of the order count) the search has, or when it
costs no more than two whole orders and one of them fits the time left (tests whose own
time dominates, where it takes the place of two random orders). The time left counts
what a search that finds nothing gets on top of its share: isolation that finds nothing
spends it as random orders would, and one that finds a brittle leaves the rest to it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, Optional

from orderdep.analysis.estimate import TIMING_STRATEGY, TUSCAN_EXCESS, Cost, Pace, timing_orders
from orderdep.analysis.search import Search
from orderdep.core import orders as gen
from orderdep.core.outcomes import OrderResult, restricted
from orderdep.core.slow_tests import SLOW_SHARE, SlowSplit, split_slow
from orderdep.core.tuscan import order_lower_bound

# Time allowed for the default tuscan strategy when no budget is given.
AUTO_TUSCAN_SECONDS = 3600.0
# The share of the search's time and order count that isolation may take.
ISOLATION_SHARE = 0.25
# Isolation stops at this many times its estimate: the strategy after it gets the rest.
ISOLATION_OVERRUN = 2.0
# Up to this many tests, the tuscan estimate counts the orders of the plan itself (made
# in well under a second; at 1,000 tests it takes half a minute).
EXACT_PLAN_TESTS = 300


@dataclass(frozen=True)
class TuscanEstimate:
    """What complete pair coverage would cost (see the module docstring)."""

    orders: int
    executions: int
    seconds: float


def estimate_tuscan(
    groups: Sequence[Sequence[str]],
    pace: Pace,
    jobs: int = 1,
    rng: Optional[random.Random] = None,
) -> TuscanEstimate:
    """Estimated orders, executions and seconds of ``tuscan`` for these groups; with
    ``rng`` (left as it was), a suite of up to :data:`EXACT_PLAN_TESTS` tests is priced
    by the plan ``rng`` would make."""
    sizes = [len(g) for g in groups]
    n = sum(sizes)
    if rng is not None and n <= EXACT_PLAN_TESTS:
        twin = random.Random()
        twin.setstate(rng.getstate())
        orders = len(gen.generate("tuscan", groups, twin))
    else:
        orders = math.ceil(order_lower_bound(sizes) * TUSCAN_EXCESS)
    executions = n * (n - 1) + orders
    return TuscanEstimate(orders, executions, pace.seconds(orders, executions, jobs))


@dataclass(frozen=True)
class IsolationPlan:
    """Whether the default search runs each test alone first, its price, and why."""

    runs: bool
    orders: int
    seconds: float
    why: str


def plan_isolation(
    tests: int,
    pace: Pace,
    *,
    jobs: int,
    budget_left: Optional[float],
    orders_left: Optional[int],
    kept: Optional[float] = None,
    part: bool = False,
) -> IsolationPlan:
    """Whether ``tests`` tests, each alone, fit what is left (see the module docstring);
    ``kept``: the seconds the search gets on top of ``budget_left`` when it has found
    nothing by then (the time kept for confirming and classifying what it finds).
    ``part``: the search covers a leading part of a suite too long for the budget
    (:mod:`~orderdep.analysis.fork_part`); the few seconds it has go to orders that
    reorder the part, which expose victims and brittles alike, and isolation runs only
    within its share, never in their place."""
    seconds = pace.seconds(tests, tests, jobs)
    allowed = AUTO_TUSCAN_SECONDS if budget_left is None else max(0.0, budget_left)
    allowed += max(0.0, kept or 0.0)
    what = f"each test alone first (isolation: {tests} orders, ~{seconds:.0f} s estimated)"
    share = f"{ISOLATION_SHARE:.0%}"
    if orders_left is not None and tests > ISOLATION_SHARE * orders_left:
        why = f"not running {what}: more than {share} of the orders --max-orders leaves ({orders_left})"
        return IsolationPlan(False, 0, 0.0, why)
    # alone, each test runs once, as in one order of the suite, plus an order's overhead:
    # where the tests' own time dominates it costs about two whole orders, which are
    # worth less to a brittle with many setters, so it takes their place
    two_orders = pace.seconds(2, 2 * tests, jobs)
    cheap = seconds <= two_orders and pace.seconds(1, tests, jobs) <= allowed
    if seconds > ISOLATION_SHARE * allowed and (part or not cheap):
        limit = "the budget left" if budget_left is not None else "the default limit"
        if kept:
            limit += " with the time kept for what the search finds"
        why = f"not running {what}: more than {share} of {limit} ({allowed:.0f} s)"
        if part and cheap:
            why += ", and the part of the suite searched gets orders that reorder it first"
        return IsolationPlan(False, 0, 0.0, why)
    why = f"running {what}: a test that fails alone but passed in the original order is brittle"
    return IsolationPlan(True, tests, seconds, why)


def choose_default(
    groups: Sequence[Sequence[str]],
    pace: Pace,
    *,
    jobs: int,
    budget_left: Optional[float],
    orders_left: Optional[int],
    per_od: Optional[Callable[[Optional[float]], Cost]] = None,
    rng: Optional[random.Random] = None,
) -> tuple[str, str]:
    """The default strategy (see the module docstring) and why, as a sentence; with
    ``per_od`` (the cost of an OD test found in an order of so many tests, None: the
    whole suite), the sentence gives the cost of each OD test found, too."""
    est = estimate_tuscan(groups, pace, jobs, rng)
    allowed = AUTO_TUSCAN_SECONDS if budget_left is None else max(0.0, budget_left)
    what = f"tuscan needs ~{est.orders} orders, ~{est.seconds:.0f} s estimated"
    strategy = "tuscan"
    if orders_left is not None and est.orders > orders_left:
        strategy, why = "random-reverse", f"{what}, more than --max-orders leaves ({orders_left})"
    elif est.seconds > allowed and budget_left is not None and allowed < 1:
        strategy, why = "random-reverse", f"{what}, and no budget is left for a search"
    elif est.seconds > allowed:
        limit = "the budget left" if budget_left is not None else "the default limit"
        strategy, why = "random-reverse", f"{what}, more than {limit} ({allowed:.0f} s)"
    else:
        why = f"complete pair coverage fits ({what})"
    if per_od is not None:
        # an OD test tuscan finds fails in one of its orders, random-reverse's are whole
        length = est.executions / est.orders if strategy == "tuscan" and est.orders else None
        why += f"; then each OD test found costs ~{per_od(length).seconds:.0f} s more"
    return strategy, why


@dataclass(frozen=True)
class DefaultPlan:
    """What the default search runs after the original order: ``strategies`` in order
    (``isolation`` first when ``alone`` runs), and ``timed``: the strategies whose timing
    orders ran to choose it (empty when none ran)."""

    strategies: list[str]
    timed: list[str]
    alone: IsolationPlan


def plan_default(
    search: Search,
    ids: Sequence[str],
    groups: Sequence[Sequence[str]],
    *,
    seed: int,
    jobs: int,
    rng: random.Random,
    notice: Callable[[str], None],
    per_od: Callable[[Pace, Optional[float]], Cost],
    part: bool = False,
) -> DefaultPlan:
    """Time a few short orders, then plan isolation and choose the strategy (each said in
    one line to ``notice``) from the pace of those and of the original order, the first
    of ``search.results``; ``per_od(pace, length)`` prices an OD test found in an order of
    ``length`` tests (None: the whole suite); ``part``: see :func:`plan_isolation`."""
    original = restricted(search.results[0], ids)
    before = len(search.results)
    short = timing_orders(list(ids), random.Random(f"{seed}/timing"))
    timed: list[str] = []
    if short:
        search.run_stream(TIMING_STRATEGY, short, len(short))
        timed = [TIMING_STRATEGY]
    pace = Pace.of(original, search.results[before:])
    budget_left, orders_left = search.budget_left(), search.orders_left()
    alone = plan_isolation(
        len(ids), pace, jobs=jobs, budget_left=budget_left, orders_left=orders_left,
        kept=search.extension_offered(), part=part,
    )  # fmt: skip
    notice(f"orderdep: {alone.why}")
    if alone.runs:  # what it costs is not the pair search's
        budget_left = None if budget_left is None else budget_left - alone.seconds
        orders_left = None if orders_left is None else orders_left - alone.orders
    strategy, why = choose_default(
        groups, pace, jobs=jobs, budget_left=budget_left, orders_left=orders_left,
        per_od=lambda length: per_od(pace, length), rng=rng,
    )  # fmt: skip
    notice(f"orderdep: no --strategy given, running {strategy}: {why}")
    return DefaultPlan(["isolation", strategy] if alone.runs else [strategy], timed, alone)


def leave_out_slow(
    original: OrderResult, seconds_left: Optional[float], notice: Callable[[str], None]
) -> Optional[SlowSplit]:
    """The slow tests the default search leaves out of its orders (see
    :mod:`orderdep.core.slow_tests`), said in one line; None when every test stays (or
    ``original`` did not run whole)."""
    if not original.complete or len(original.results) != len(original.order):
        return None
    split = split_slow([(r.test, r.duration) for r in original.results], seconds_left)
    if split is None or seconds_left is None:
        return None
    took = split.kept_seconds + split.left_out_seconds
    notice(
        f"orderdep: the original order's tests took {took:.0f} s, more than "
        f"{SLOW_SHARE:.0%} of the {seconds_left:.0f} s left; {split.describe()}: search "
        f"orders run without the slow ones (they stay in the original order, and end the "
        f"first reversed order when it fits; a larger --budget searches them too)"
    )
    return split


def kept_groups(groups: Sequence[Sequence[str]], kept: Sequence[str]) -> list[list[str]]:
    """``groups`` with only the ``kept`` tests (groups left empty dropped)."""
    keep = set(kept)
    out = [[t for t in g if t in keep] for g in groups]
    return [g for g in out if g]


def run_isolation(
    search: Search,
    ids: Sequence[str],
    alone: IsolationPlan,
    then: str,
    notice: Callable[[str], None],
) -> None:
    """Each test alone, the default's extra: at most :data:`ISOLATION_OVERRUN` times its
    estimate, then the strategy ``then`` gets the rest. The tests that failed in the
    original order (the first of ``search.results``) go first: a victim among them passes
    alone at once, and the search knows from then on that it has a suspect, whose
    confirmation the time kept after the search is for (found last, the search may
    already have taken that time as one that had found nothing)."""
    cap = ISOLATION_OVERRUN * alone.seconds
    original = search.results[0] if search.results else None
    failed = {r.test for r in original.results if r.outcome.is_failure} if original else set()
    first = [t for t in ids if t in failed] + [t for t in ids if t not in failed]
    run = search.run_stream("isolation", gen.isolation(first), len(ids), seconds=cap)
    if run < len(ids) and not search.stopped:
        notice(
            f"orderdep: isolation stopped at {ISOLATION_OVERRUN:g}x its estimate "
            f"({cap:.0f} s): {run} of {len(ids)} tests ran alone; the rest of the "
            f"time goes to {then}"
        )


__all__ = [
    "AUTO_TUSCAN_SECONDS",
    "EXACT_PLAN_TESTS",
    "ISOLATION_OVERRUN",
    "ISOLATION_SHARE",
    "DefaultPlan",
    "IsolationPlan",
    "TuscanEstimate",
    "choose_default",
    "estimate_tuscan",
    "kept_groups",
    "leave_out_slow",
    "plan_default",
    "plan_isolation",
    "run_isolation",
]
