"""Detection: run orders of the suite, then confirm which tests are order-dependent.

The search runs the original order first (the baseline every other order is compared
with; DTDetector's setting, 001 §VI), then each requested strategy of
:mod:`orderdep.core.orders`, plus ``nio``: ``[t, t]`` for every test, which exposes tests
that pass the first time and fail when run again in the same process (non-idempotent
outcome, NIO). Suspects are then confirmed by :mod:`orderdep.analysis.confirm`.

Default strategy (no strategy given), after the original order:

* ``tuscan`` (every consecutive pair of tests covered, 004 §5, so every victim of a single
  polluter and every brittle of a single state-setter is found) when its estimated cost
  fits: at most ``max_orders`` orders, and an estimated time within the budget left
  (:data:`AUTO_TUSCAN_SECONDS` when no budget is given). The estimate takes the lower
  bound on the number of orders (:func:`orderdep.core.tuscan.order_lower_bound`) and the
  n(n-1) + orders test executions that cover the pairs, priced with the per-order overhead
  and mean test time measured on the original order, divided by ``jobs``;
* ``random-reverse`` (004 §4.4) otherwise: ``rounds`` orders, or as many as the budget and
  ``max_orders`` allow.

``random-reverse`` runs :data:`RR_CHAINS` independent chains of random orders, each
following the paper's rule (a random order that found nothing new is followed by its
reverse), so that several orders can run at once while the orders stay a function of the
seed alone, whatever ``jobs`` is.

``budget_seconds`` and ``max_orders`` bound the search: it stops before a batch that
would start past the budget or exceed the order count (the orders in flight finish), and
records ``stopped_early`` in the report's stats. Suspects found up to then are still
confirmed (about ``2 * (confirm_runs + 1)`` orders each, fewer with earlier evidence).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Callable, Optional

from orderdep.analysis.budget import UNFINISHED_KEY, BudgetExhausted, unfinished
from orderdep.analysis.confirm import OrderRunner, RunLog, RunSource, confirm_in_chunks, failed
from orderdep.analysis.estimate import TUSCAN_EXCESS, Cost, Pace, per_od_test
from orderdep.core import orders as gen
from orderdep.core.outcomes import OrderResult
from orderdep.core.report import Report, RunStats
from orderdep.core.suite import GROUP_LEVELS, GroupLevel
from orderdep.core.tuscan import order_lower_bound
from orderdep.engine.executor import Executor
from orderdep.errors import UsageError

STRATEGIES: tuple[str, ...] = (*gen.STRATEGIES, "nio")
DEFAULT_ROUNDS = 20
# Time allowed for the default tuscan strategy when no budget is given.
AUTO_TUSCAN_SECONDS = 3600.0
RR_CHAINS = 4
# Orders per worker handed to the engine at once (budget and limits are checked between).
SLICE = 8
DEFAULT_CONFIRM_RUNS = 5


@dataclass(frozen=True)
class DetectProgress:
    """One step of detection, for progress display."""

    phase: str  # "search" | "confirm" | "done"
    strategy: str  # the strategy running ("" while confirming)
    done: int  # orders finished in this phase
    planned: Optional[int]  # orders planned for this strategy (None: until stopped)
    suspects: int  # tests seen both failing and passing (or failing) so far
    od_found: int  # confirmed OD tests (known once confirmation is done)
    message: str = ""


ProgressCallback = Callable[[DetectProgress], None]
Notice = Callable[[str], None]


@dataclass(frozen=True)
class TuscanEstimate:
    """What complete pair coverage would cost (see the module docstring)."""

    orders: int
    executions: int
    seconds: float


def estimate_tuscan(
    groups: Sequence[Sequence[str]], original: OrderResult, jobs: int = 1
) -> TuscanEstimate:
    """Estimated orders, executions and seconds of ``tuscan`` for these groups."""
    sizes = [len(g) for g in groups]
    n = sum(sizes)
    orders = math.ceil(order_lower_bound(sizes) * TUSCAN_EXCESS)
    executions = n * (n - 1) + orders
    return TuscanEstimate(orders, executions, Pace.of(original).seconds(orders, executions, jobs))


def check_options(
    strategies: Sequence[str],
    rounds: Optional[int],
    group: str,
    budget_seconds: Optional[float],
    max_orders: Optional[int],
    confirm_runs: int,
) -> None:
    """Raise :class:`UsageError` for any option detection cannot work with."""
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise UsageError(
            f"unknown strategy {unknown[0]!r}; choose from {', '.join(STRATEGIES)} "
            "(or give none for the default)"
        )
    if group not in GROUP_LEVELS:
        raise UsageError(f"unknown group level {group!r}; choose one of {', '.join(GROUP_LEVELS)}")
    if rounds is not None and rounds < 0:
        raise UsageError(f"rounds must be >= 0, got {rounds!r}")
    if budget_seconds is not None and budget_seconds <= 0:
        raise UsageError(f"the budget must be a positive number of seconds, got {budget_seconds!r}")
    if max_orders is not None and max_orders < 1:
        raise UsageError(f"max_orders must be at least 1, got {max_orders!r}")
    if confirm_runs < 0:
        raise UsageError(f"confirm_runs must be >= 0, got {confirm_runs!r}")


class _Search:
    """Runs strategies' orders in batches within the budget; keeps what they showed."""

    def __init__(
        self,
        runner: OrderRunner,
        *,
        budget_seconds: Optional[float],
        max_orders: Optional[int],
        on_progress: Optional[ProgressCallback],
    ) -> None:
        self.runner = runner
        self.budget = budget_seconds
        self.max_orders = max_orders
        self.on_progress = on_progress
        self.started = time.monotonic()
        self.count = 0  # search orders run
        self.results: list[OrderResult] = []
        self.nio_results: list[OrderResult] = []
        self.stop_reason: Optional[str] = None
        self.failed_seen: set[str] = set()
        self.passed_seen: set[str] = set()

    @property
    def stopped(self) -> bool:
        return self.stop_reason is not None

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def budget_left(self) -> Optional[float]:
        return None if self.budget is None else self.budget - self.elapsed()

    def orders_left(self) -> Optional[int]:
        return None if self.max_orders is None else self.max_orders - self.count

    def _progress(self, strategy: str, done: int, planned: Optional[int]) -> None:
        if self.on_progress is not None:
            suspects = len(self.failed_seen)
            self.on_progress(DetectProgress("search", strategy, done, planned, suspects, 0))

    def _may_start(self) -> bool:
        left = self.budget_left()
        if left is not None and left <= 0:
            self.stop_reason = "budget"
        elif self.orders_left() == 0:
            self.stop_reason = "max-orders"
        return not self.stopped

    def _record(self, result: OrderResult, nio: bool) -> set[str]:
        """Keep ``result``; return the tests that failed in it for the first time."""
        (self.nio_results if nio else self.results).append(result)
        if nio:
            return set()
        new = set()
        for r in result.results:
            verdict = failed(r)
            if verdict is True and r.test not in self.failed_seen:
                new.add(r.test)
                self.failed_seen.add(r.test)
            elif verdict is False:
                self.passed_seen.add(r.test)
        return new

    def slice_size(self) -> int:
        """Orders to hand the engine at once: :data:`SLICE` per worker, so no worker
        waits for the slowest order of a small batch, but never more than the order
        limit or (at the pace so far) the time budget leaves room for."""
        jobs = self.runner.jobs
        size = jobs * SLICE
        left = self.orders_left()
        if left is not None:
            size = min(size, left)
        budget = self.budget_left()
        if budget is not None and self.count:
            pace = self.elapsed() / self.count  # seconds per order, all workers together
            size = min(size, max(jobs, int(budget / pace)))
        return max(1, size)

    def run_orders(self, orders: Sequence[Sequence[str]], *, nio: bool = False) -> list[set[str]]:
        """Run ``orders`` in slices while the budget lasts; per order run, the tests that
        failed for the first time in it."""
        out: list[set[str]] = []
        i = 0
        while i < len(orders) and self._may_start():
            batch = orders[i : i + self.slice_size()]
            try:
                results = self.runner.run_slice(batch)
            except BudgetExhausted as stop:  # the command's budget, or Ctrl-C
                self.stop_reason = stop.reason
                break
            for result in results:
                out.append(self._record(result, nio))
            i += len(batch)
            self.count += len(batch)
        return out

    def run_stream(
        self, strategy: str, orders: Iterable[list[str]], planned: Optional[int], nio: bool = False
    ) -> None:
        """Run a (possibly endless) stream of orders until it ends or the budget does."""
        it: Iterator[list[str]] = iter(orders)
        done = 0
        self._progress(strategy, done, planned)
        while not self.stopped:
            batch = list(itertools.islice(it, self.slice_size()))
            if not batch:
                return
            done += len(self.run_orders(batch, nio=nio))
            self._progress(strategy, done, planned)

    def random_reverse(
        self, groups: Sequence[Sequence[str]], rng: random.Random, total: Optional[int]
    ) -> None:
        """``total`` orders (None: until stopped) from :data:`RR_CHAINS` random-reverse chains."""
        chains = [gen.RandomReverse(groups, rng) for _ in range(RR_CHAINS)]
        done = 0
        self._progress("random-reverse", done, total)
        while not self.stopped and (total is None or done < total):
            k = RR_CHAINS if total is None else min(RR_CHAINS, total - done)
            step = [chains[c].next_order() for c in range(k)]
            new = self.run_orders(step)
            for c, fresh in enumerate(new):
                chains[c].feedback(bool(fresh))
            done += len(new)
            self._progress("random-reverse", done, total)


def _random_stream(groups: Sequence[Sequence[str]], rng: random.Random) -> Iterator[list[str]]:
    while True:
        yield gen.random_order(groups, rng)


def _rounds(rounds: Optional[int], search: _Search) -> Optional[int]:
    """Orders for a random strategy: as asked; else until stopped when a budget or an
    order limit will stop it; else :data:`DEFAULT_ROUNDS`."""
    if rounds is not None:
        return rounds
    if search.budget is not None or search.max_orders is not None:
        return None
    return DEFAULT_ROUNDS


def choose_default(
    groups: Sequence[Sequence[str]],
    original: OrderResult,
    *,
    jobs: int,
    budget_left: Optional[float],
    orders_left: Optional[int],
    per_od: Optional[Cost] = None,
) -> tuple[str, str]:
    """The default strategy (see the module docstring) and why, as a sentence; with
    ``per_od``, the sentence gives the cost of each OD test found, too."""
    est = estimate_tuscan(groups, original, jobs)
    allowed = AUTO_TUSCAN_SECONDS if budget_left is None else budget_left
    what = f"~{est.orders} orders, ~{est.seconds:.0f} s estimated"
    if per_od is not None:
        what += f"; ~{per_od.seconds:.0f} s per OD test found"
    if orders_left is not None and est.orders > orders_left:
        return "random-reverse", f"tuscan needs {what}, more than --max-orders leaves"
    if est.seconds > allowed:
        limit = "the budget left" if budget_left is not None else "the default limit"
        return "random-reverse", f"tuscan needs {what}, more than {limit} ({allowed:.0f} s)"
    return "tuscan", f"complete pair coverage fits ({what})"


def detect(
    executor: Executor,
    *,
    strategies: Sequence[str] = (),
    rounds: Optional[int] = None,
    seed: int = 0,
    group: GroupLevel = "class",
    budget_seconds: Optional[float] = None,
    max_orders: Optional[int] = None,
    on_progress: Optional[ProgressCallback] = None,
    confirm_runs: int = DEFAULT_CONFIRM_RUNS,
    store: Optional[RunSource] = None,
    jobs: int = 1,
    notice: Optional[Notice] = None,
    classify_after: bool = False,
) -> Report:
    """Find the order-dependent, ND, NIO and always-failing tests of ``executor.suite``.

    ``strategies`` run in the given order after the original order (none: the default
    rule of the module docstring). ``rounds`` is the number of orders of ``random`` and
    ``random-reverse``. ``group`` keeps modules or classes contiguous in generated orders.
    ``store`` supplies earlier runs of the same orders as evidence. ``jobs`` is how many
    orders run at once (batch size and cost estimate); ``notice`` receives one-line
    messages (the default strategy chosen, with the cost per OD test found, including
    classification when ``classify_after``). Everything random comes from ``seed``.
    """
    check_options(strategies, rounds, group, budget_seconds, max_orders, confirm_runs)
    suite = executor.suite
    groups = [list(g) for g in suite.groups(group).values()]
    rng = random.Random(seed)
    log = RunLog(store)
    runner = OrderRunner(executor, log, jobs)
    search = _Search(
        runner, budget_seconds=budget_seconds, max_orders=max_orders, on_progress=on_progress
    )
    say = notice or (lambda message: None)

    search.run_stream("original", [gen.original(suite.ids)], 1)
    chosen = list(dict.fromkeys(strategies))
    if not chosen and search.results:
        strategy, why = choose_default(
            groups,
            search.results[0],
            jobs=jobs,
            budget_left=search.budget_left(),
            orders_left=search.orders_left(),
            per_od=per_od_test(
                Pace.of(search.results[0]), len(suite), confirm_runs=confirm_runs,
                classify=classify_after, jobs=jobs,
            ),
        )  # fmt: skip
        say(f"orderdep: no --strategy given, running {strategy}: {why}")
        chosen = [strategy]
    used = ["original", *[s for s in chosen if s != "original"]]
    for strategy in used[1:]:
        if search.stopped:
            break
        if strategy == "random-reverse":
            search.random_reverse(groups, rng, _rounds(rounds, search))
        elif strategy == "random":
            total = _rounds(rounds, search)
            stream = _random_stream(groups, rng)
            search.run_stream(
                strategy, stream if total is None else itertools.islice(stream, total), total
            )
        elif strategy == "pairs":
            search.run_stream(strategy, gen.pairs(suite.ids), gen.pairs_count(suite.ids))
        elif strategy == "nio":
            search.run_stream(strategy, [[t, t] for t in suite.ids], len(suite), nio=True)
        else:
            planned = gen.generate(strategy, groups, rng)
            search.run_stream(strategy, planned, len(planned))
    search_orders, search_executions = runner.orders_run, runner.executions

    def confirming(_result: OrderResult) -> None:
        if on_progress is not None:
            done = runner.orders_run - search_orders
            suspects = len(search.failed_seen)
            on_progress(DetectProgress("confirm", "", done, None, suspects, 0))

    runner.on_result = confirming
    # a few suspects at a time, so that a spent budget keeps the ones confirmed; rerunning
    # the command replays the orders and goes on
    verdicts, pending, stop = confirm_in_chunks(
        runner, search.results, search.nio_results, confirm_runs, 2 * jobs, BudgetExhausted
    )
    unconfirmed = stop.reason if isinstance(stop, BudgetExhausted) else None
    if on_progress is not None:
        on_progress(
            DetectProgress(
                "done", "", runner.orders_run - search_orders, None,
                len(search.failed_seen), len(verdicts.od),
            )
        )  # fmt: skip
    stats = RunStats(
        orders_run=runner.orders_run,
        test_executions=runner.executions,
        wall_seconds=search.elapsed(),
        seed=seed,
        strategies=used,
        extras={
            "stopped_early": search.stopped,
            "stop_reason": search.stop_reason,
            "search_orders": search_orders,
            "search_executions": search_executions,
            "confirm_runs": confirm_runs,
            "group": group,
        },
    )
    if unconfirmed is not None:
        stats.extras[UNFINISHED_KEY] = {
            "confirmation": unfinished("not finished", unconfirmed),
            "suspects": pending,
        }
    return Report(
        project=suite.rootdir,
        tests=suite.ids,
        od_tests=verdicts.od,
        nd_tests=verdicts.nd,
        nio_tests=verdicts.nio,
        always_failing=verdicts.always_failing,
        stats=stats,
    )
