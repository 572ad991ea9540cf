"""The search phase of detection: strategies' orders run in slices within the budget.

:class:`Search` hands orders to the engine :data:`SLICE` per worker at a time, checks
the budget and the order limit between slices, and keeps what every order showed (tests
seen failing and passing). Orders a crash or a timeout cut short are re-planned
(:mod:`orderdep.core.replan`): the tests after the lost one still run, in recovery orders,
and pair-covering strategies get ``[a, b]`` for every pair still missing. Each strategy
keeps an account of what it promised and what ran (``stats.extras["coverage"]``).
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Callable, Optional

from orderdep.analysis.budget import BudgetExhausted
from orderdep.analysis.confirm import OrderRunner, failed
from orderdep.core import orders as gen
from orderdep.core.outcomes import OrderResult
from orderdep.core.replan import Coverage, continuations, lost_at
from orderdep.engine.deadline import runs_until
from orderdep.errors import OutOfTime

RR_CHAINS = 4
# Strategies that promise every consecutive pair: pairs a crash left uncovered get [a, b].
PAIR_STRATEGIES = ("tuscan", "pairs")
# Recovery orders at most per planned order (a suite where every test crashes stays bounded).
MAX_RECOVERY = 8
# Orders per worker handed to the engine at once (budget and limits are checked between).
SLICE = 8


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


class Search:
    """Runs strategies' orders in batches within the budget; keeps what they showed."""

    def __init__(
        self,
        runner: OrderRunner,
        *,
        budget_seconds: Optional[float],
        max_orders: Optional[int],
        on_progress: Optional[ProgressCallback],
        extend: Optional[Callable[[], Optional[float]]] = None,
        notice: Optional[Callable[[str], None]] = None,
    ) -> None:
        self.runner = runner
        self.budget = budget_seconds
        # Seconds more for the search when its budget ends with no suspect at all (the
        # time kept for classification, which then has nothing to classify); asked once.
        self.extend = extend
        self.extended = False  # the search runs on time kept for classification
        self.notice = notice or (lambda message: None)
        self.max_orders = max_orders
        self.on_progress = on_progress
        self.started = time.monotonic()
        self.count = 0  # search orders run
        self.results: list[OrderResult] = []
        self.nio_results: list[OrderResult] = []
        self.stop_reason: Optional[str] = None
        self.failed_seen: set[str] = set()
        self.passed_seen: set[str] = set()
        self.accounts: dict[str, Coverage] = {}
        self.account = Coverage("original")
        self.tail_order: Optional[list[str]] = None  # see random_reverse

    @property
    def stopped(self) -> bool:
        return self.stop_reason is not None

    @property
    def flipped(self) -> bool:
        """Whether a test has failed in one order and passed in another (a test failing in
        every order so far, as a broken one does, is no reason to stop searching)."""
        return not self.failed_seen.isdisjoint(self.passed_seen)

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

    def extension_offered(self) -> Optional[float]:
        """The seconds the search would get on top of its budget if it found nothing by its
        end, as things stand (None: none)."""
        if self.extend is None or self.flipped or self.extended:
            return None
        return self.extend()

    def _may_start(self) -> bool:
        left = self.budget_left()
        if self.extended and self.flipped:
            # the time kept for classification went to the search for want of a suspect;
            # now there is one, what is left of it is confirmation's and classification's
            left = 0.0
        if left is not None and left <= 0 and self.extend is not None and not self.flipped:
            extra, self.extend = self.extend(), None
            if extra is not None and extra > 0:
                self.budget = self.elapsed() + extra
                self.extended = True
                left = extra
                self.notice(
                    f"orderdep: no suspect yet: the search goes on with the time kept for what it "
                    f"finds ({extra:.0f} s)"
                )
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
        limit or (at the pace so far) the time budget leaves room for. On the time kept
        for what the search finds, one order per worker: a suspect there ends the search
        at once, and the order after it would take the time its confirmation needs."""
        jobs = self.runner.jobs
        size = jobs if self.extended else jobs * SLICE
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
        failed for the first time in it (or in the orders that recovered its lost tail)."""
        out: list[set[str]] = []
        i = 0
        while i < len(orders) and self._may_start():
            batch = self._fitting(orders[i : i + self.slice_size()])
            if not batch:
                self.stop_reason = "budget"
                break
            results = self._run_slice(batch)
            if results is None:
                break
            fresh = []
            for order, result in zip(batch, results):
                self.account.plan(order)
                self.account.saw(result)
                fresh.append(self._record(result, nio))
            out += fresh
            i += len(batch)
            self.count += len(batch)
            if not nio:
                self._recover(results, fresh)
        return out

    def _fitting(self, batch: Sequence[Sequence[str]]) -> list[Sequence[str]]:
        """The leading orders of ``batch`` expected to end within the search's time, as
        the executor expects them to take (orders differ: one test alone, or the whole
        suite; a budgeted executor weighs each test by its own time). Once a test has
        flipped, none may overrun it (its confirmation needs that time); before, the
        first always starts."""
        left = self.budget_left()
        estimate = getattr(getattr(self.runner, "executor", None), "expected", None)
        if left is None or not callable(estimate):
            return list(batch)
        out: list[Sequence[str]] = []
        expected = 0.0
        for order in batch:
            cost = estimate(order)
            if cost is None:
                return list(batch)
            expected += cost
            if expected > left and (out or self.flipped):
                break
            out.append(order)
        return out

    def tail_fits(self, order: Sequence[str]) -> bool:
        """Whether ``order`` is expected to end within the search's time left, with the
        time it would get if it found nothing (with no time limit, it always does). The
        order with the slow tests at its end holds the first reversed order whole, so it
        only costs their time."""
        left = self.budget_left()
        if left is None:
            return True
        left += self.extension_offered() or 0.0
        estimate = getattr(getattr(self.runner, "executor", None), "expected", None)
        cost = estimate(order) if callable(estimate) else None
        return cost is not None and cost <= left

    def tail_ran(self) -> bool:
        """Whether the order that ended with the slow tests ran whole."""
        if self.tail_order is None:
            return False
        for result in self.results:
            if result.order == self.tail_order:
                return result.complete and len(result.results) == len(result.order)
        return False

    def _run_slice(self, batch: Sequence[Sequence[str]]) -> Optional[list[OrderResult]]:
        """The results of ``batch``; None when the command's budget (or Ctrl-C) stopped it.
        Once a test has flipped, an order still running when the search's time ends is
        killed there (and the search stops): the rest is its confirmation's. A reversed
        order of cmd2's suite ran 82 s, past it to the end of the command's budget, and
        its one suspect was never confirmed."""
        end = self.started + self.budget if self.flipped and self.budget is not None else None
        try:
            with runs_until(end):
                return self.runner.run_slice(batch)
        except BudgetExhausted as stop:
            self.stop_reason = stop.reason
            return None
        except OutOfTime:  # the search's own time ended while its orders ran
            self.stop_reason = "budget"
            return None

    def _recover(self, results: Sequence[OrderResult], fresh: list[set[str]]) -> None:
        """Run what crashes and timeouts cut from ``results`` (see core.replan); new
        failures count for the order they came from."""
        pending: list[tuple[int, list[str]]] = []
        spent = [0] * len(results)
        seen: set[tuple[str, ...]] = set()

        def plan(index: int, result: OrderResult) -> None:
            k = lost_at(result)
            if k is None:
                return
            for order in continuations(result.order, k, self.account.lost):
                if tuple(order) not in seen and spent[index] < MAX_RECOVERY:
                    seen.add(tuple(order))
                    spent[index] += 1
                    pending.append((index, order))

        for index, result in enumerate(results):
            plan(index, result)
        while pending and self._may_start():
            batch, pending = pending[: self.slice_size()], pending[self.slice_size() :]
            ran = self._run_slice([o for _, o in batch])
            if ran is None:
                return
            for (index, _), result in zip(batch, ran):
                self.account.saw(result, recovery=True)
                fresh[index] |= self._record(result, False)
                plan(index, result)
            self.count += len(batch)

    def observe(self, strategy: str, results: Sequence[OrderResult]) -> None:
        """Keep orders run outside the search's slices (the probed runs of
        :mod:`~orderdep.analysis.guided`) as ``strategy``'s search orders. They are not in
        the run log: confirmation observes every order a finding names itself."""
        self.begin(strategy)
        self.account.promised = len(results)
        for result in results:
            self.account.plan(result.order)
            self.account.saw(result)
            self._record(result, False)
            self.runner.count(result)
        self.count += len(results)
        self._progress(strategy, len(results), len(results))

    def begin(self, strategy: str) -> None:
        """Account the orders run from now on to ``strategy``."""
        self.account = self.accounts.setdefault(strategy, Coverage(strategy))

    def cover_missing_pairs(self) -> None:
        """For pair-covering strategies, run ``[a, b]`` for each planned pair a crash or a
        timeout left uncovered; a pair still uncovered is recorded as not coverable.

        The first test of ``[a, b]`` runs in a fresh process whatever ``b`` is, so one
        order per ``a`` comes first: when ``a`` is lost there too, every missing pair
        starting with ``a`` is not coverable, for the same reason, without more runs."""
        for strategy in PAIR_STRATEGIES:
            account = self.accounts.get(strategy)
            if account is None:
                continue
            self.account = account
            missing = account.missing()
            probes = list({a: [a, b] for a, b in reversed(missing)}.values())
            self._run_pairs(account, probes)
            lost = {r: why for (r, _), why in account.not_coverable.items()}
            for pair in account.missing():
                if pair[0] in lost:
                    account.not_coverable[pair] = lost[pair[0]]
            self._run_pairs(account, [list(p) for p in account.missing()])

    def _run_pairs(self, account: Coverage, todo: list[list[str]]) -> None:
        while todo and self._may_start():
            batch, todo = todo[: self.slice_size()], todo[self.slice_size() :]
            results = self._run_slice(batch)
            if results is None:
                return
            for result in results:
                account.saw(result, recovery=True)
                self._record(result, False)
                pair = (result.order[0], result.order[1])
                if pair not in account.pairs_covered:
                    account.give_up(pair, result)
            self.count += len(batch)

    def run_stream(
        self,
        strategy: str,
        orders: Iterable[list[str]],
        planned: Optional[int],
        nio: bool = False,
        seconds: Optional[float] = None,
    ) -> int:
        """Run a (possibly endless) stream of orders until it ends or the budget does, or,
        with ``seconds``, until it has run that long (the search goes on); return how many
        ran."""
        it: Iterator[list[str]] = iter(orders)
        done = 0
        self.begin(strategy)
        self.account.promised = planned
        self._progress(strategy, done, planned)
        start = self.elapsed()
        while not self.stopped:
            if seconds is not None and self.elapsed() - start >= seconds:
                break
            batch = list(itertools.islice(it, self.slice_size()))
            if not batch:
                break
            done += len(self.run_orders(batch, nio=nio))
            self._progress(strategy, done, planned)
        return done

    def random_reverse(
        self,
        groups: Sequence[Sequence[str]],
        rng: random.Random,
        total: Optional[int],
        original: Optional[Sequence[str]] = None,
        tail: Sequence[str] = (),
    ) -> None:
        """``total`` orders (None: until stopped) from :data:`RR_CHAINS` random-reverse
        chains; the first starts with the reverse of ``original`` (the original order, of
        the tests ``groups`` hold), which the search ran first. ``tail`` (slow tests the
        orders leave out) ends that first order when it fits (:meth:`tail_fits`): each of
        them then runs once after every other test, where a victim among them fails."""
        chains = [
            gen.RandomReverse(groups, rng, after=original if c == 0 else None)
            for c in range(RR_CHAINS)
        ]
        done = 0
        self.begin("random-reverse")
        self.account.promised = total
        self._progress("random-reverse", done, total)
        while not self.stopped and (total is None or done < total):
            k = RR_CHAINS if total is None else min(RR_CHAINS, total - done)
            step = [chains[c].next_order() for c in range(k)]
            if tail and done == 0 and self.tail_fits([*step[0], *tail]):
                step[0] = [*step[0], *tail]
                self.tail_order = step[0]
            new = self.run_orders(step)
            for c, fresh in enumerate(new):
                chains[c].feedback(bool(fresh))
            done += len(new)
            self._progress("random-reverse", done, total)
