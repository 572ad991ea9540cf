"""One time budget for a whole command, and how work stops when it runs out.

``orderdep detect --classify --budget S`` and ``orderdep classify --budget S`` share one
:class:`Budget` between every phase: search, confirmation, classification (kind,
partners, cleaners, groups) and flake rates. Each phase runs its orders through a
:class:`BudgetedExecutor`, which refuses to start an order once the budget is spent (or
after Ctrl-C) by raising :class:`BudgetExhausted`; the phase catches it, keeps what it
learnt and marks what it did not finish (:func:`unfinished`), and the command writes the
report. Orders finished before the stop are in the results store, so rerunning the same
command replays them at once and goes on where the first run stopped.

Shares: the search may use :data:`SEARCH_SHARE` of the budget (:data:`SEARCH_SHARE_CLASSIFY`
when classification follows), so that confirming every suspect and knowing its kind come
before searching further.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Callable, Optional

from orderdep.core.outcomes import OrderResult
from orderdep.core.suite import Suite
from orderdep.engine.deadline import runs_until
from orderdep.engine.executor import Executor, ResultCallback
from orderdep.engine.probe import ProbeSpec
from orderdep.errors import OrderdepError, OutOfTime

SEARCH_SHARE = 0.7
SEARCH_SHARE_CLASSIFY = 0.4
# When nothing failed by the end of the search's share, the search goes on until only
# what a test found late needs is left: 1 - this share of the budget (confirming it; and
# classifying it, with classification to follow), and at least LATE_FIND_ORDERS whole
# orders at the pace measured so far (confirming reruns the order it failed in).
EXTENDED_SEARCH_SHARE = 0.85
EXTENDED_SEARCH_SHARE_DETECT = 0.95
# Of the budget left when detection starts, what is kept for a check after the search
# (detect's collection check: each test file run as `pytest FILE` runs it): searching,
# confirming and the first classification stop short of it, however much they find.
CHECK_RESERVE = 0.2
LATE_FIND_ORDERS = 1
# Key of a finding's (and the stats') map from unfinished item to why.
UNFINISHED_KEY = "unfinished"
# Orders per worker handed to the executor between two looks at the budget.
SLICE = 4
Clock = Callable[[], float]


class BudgetExhausted(OrderdepError):
    """The command's budget ran out (or it was interrupted) before an order could start."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"stopped: {reason}")


class Budget:
    """Seconds allowed from creation (None: unlimited), and whether work must stop."""

    def __init__(
        self,
        seconds: Optional[float] = None,
        clock: Clock = time.monotonic,
        parent: Optional[Budget] = None,
    ) -> None:
        self.seconds = seconds
        self.clock = clock
        self.started = clock()
        # A part of a larger budget (see part()): stops when the whole does, and an
        # interrupt stops the whole.
        self.parent = parent
        self.stop_reason: Optional[str] = None  # "budget" | "interrupted"
        # The Ctrl-C (or SIGTERM) that stopped the work: re-raised once the report is saved.
        self.interrupt: Optional[BaseException] = None

    def elapsed(self) -> float:
        return self.clock() - self.started

    def left(self) -> Optional[float]:
        """Seconds left (None: unlimited); never negative."""
        if self.seconds is None:
            return None
        return max(0.0, self.seconds - self.elapsed())

    def share(self, fraction: float) -> Optional[float]:
        """Seconds from now until ``fraction`` of the whole budget is spent, and at least
        ``fraction`` of what is left: what ran before the phase (the fork check of a slow
        suite, say) does not leave it nothing (None: unlimited)."""
        if self.seconds is None:
            return None
        left = self.left() or 0.0
        return max(0.001, self.seconds * fraction - self.elapsed(), fraction * left)

    def part(self, fraction: float) -> Budget:
        """A budget for one phase starting now: ``fraction`` of this whole budget, at most
        what is left of it (unlimited when this one is). It stops when this one does;
        Ctrl-C in it stops this one too, while running out of its own seconds stops only
        the part."""
        left = self.left()
        seconds = (
            None if left is None or self.seconds is None else min(left, self.seconds * fraction)
        )
        return Budget(seconds, self.clock, parent=self)

    def keeping(self, fraction: float) -> Budget:
        """A budget for the phases before one that ``fraction`` of what is left now is kept
        for: the rest of it (unlimited when this one is). It stops when this one does;
        Ctrl-C in it stops this one too."""
        left = self.left()
        seconds = None if left is None else left * (1 - fraction)
        return Budget(seconds, self.clock, parent=self)

    @property
    def stopped(self) -> bool:
        if self.stop_reason is None and self.parent is not None and self.parent.stopped:
            self.stop_reason = self.parent.stop_reason
        if self.stop_reason is None and self.seconds is not None and self.left() == 0:
            self.stop_reason = "budget"
        return self.stop_reason is not None

    def stop(self, reason: str) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason

    def interrupted(self, exc: BaseException) -> None:
        """Stop because of ``exc`` (a KeyboardInterrupt)."""
        self.stop("interrupted")
        if self.interrupt is None:
            self.interrupt = exc
        if self.parent is not None:
            self.parent.interrupted(exc)

    def check(self) -> None:
        """Raise :class:`BudgetExhausted` when work must stop."""
        if self.stopped:
            assert self.stop_reason is not None
            raise BudgetExhausted(self.stop_reason)


def unfinished(what: str, reason: str) -> str:
    """The mark of an unfinished item, e.g. ``"not searched (budget)"``."""
    return f"{what} ({reason})"


class BudgetedExecutor:
    """An :class:`Executor` that stops between orders when the budget is spent.

    Orders go to the wrapped executor in slices of :data:`SLICE` per job (so the workers
    stay busy). Before each slice the budget is checked, and the slice keeps only the
    orders that should finish within what is left, at the pace measured so far (seconds
    per test execution, workers together; an order answered without running counts at
    what it took when it ran): an order that cannot finish in time is not
    started, so a command ends close to its budget even when orders are long; an order
    still running when the whole budget ends is killed. Ctrl-C
    while orders run stops the budget (reason ``"interrupted"``) and raises
    :class:`BudgetExhausted`: the orders finished so far are kept by the caller's
    callbacks and the store.
    """

    def __init__(self, executor: Executor, budget: Budget, jobs: int = 1) -> None:
        self.inner = executor
        self.budget = budget
        self.jobs = max(1, jobs)
        self._spent = 0.0  # budget seconds spent in the wrapped executor
        self._executions = 0  # test executions it ran in that time
        self._test_seconds = 0.0  # the tests' own time in those executions
        self._own: dict[str, float] = {}  # each test's own time, as it last ran
        # what the latest order cost beyond its tests' own time (a fresh pytest's start-up
        # and collection): every order costs at least that, however short. Kept apart for
        # probed orders (traced, in a fresh process) and plain ones (often a fork).
        self._overhead: dict[bool, float] = {}

    @property
    def suite(self) -> Suite:
        return self.inner.suite

    def __getattr__(self, name: str) -> object:  # store, reused, orders_run, ... of the engine
        return getattr(self.inner, name)

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        return self.run_many([order], probe=probe)[0]

    def pace(self) -> Optional[float]:
        """Budget seconds per test execution so far (workers together); None before any."""
        return self._spent / self._executions if self._executions else None

    def extension(self, share: float) -> Optional[float]:
        """Seconds more for a search that found nothing by the end of its share: what is
        left of the budget but the reserve for a test found late, the larger of ``1 -
        share`` of the budget and :data:`LATE_FIND_ORDERS` whole orders at :meth:`pace`."""
        left, whole = self.budget.left(), self.budget.seconds
        if left is None or whole is None:
            return None
        pace = self.pace()
        orders = LATE_FIND_ORDERS * pace * len(self.suite.ids) if pace is not None else 0.0
        return left - max((1 - share) * whole, orders)

    def _fitting(self, orders: Sequence[Sequence[str]], probed: bool = False) -> int:
        """How many of ``orders`` (at least one) to start now; raises when not even the
        first is expected to finish within the budget. An order is expected to take its
        tests at the pace so far, and never less than what the latest order of its kind
        (probed or not) took beyond its tests (a fresh pytest of two tests still collects
        the whole suite); a probed order before any was run: what a plain one took."""
        self.budget.check()
        left = self.budget.left()
        if left is None or not self._executions:
            return len(orders)
        expected, n = 0.0, 0
        for order in orders:
            expected += self._cost(order, probed)
            if expected > left:
                break
            n += 1
        if n == 0:
            self.budget.stop("budget")
            raise BudgetExhausted("budget")
        return n

    def expected(self, order: Sequence[str]) -> Optional[float]:
        """Budget seconds ``order`` is expected to take (None before any order ran)."""
        return self._cost(order, False) if self._executions else None

    def _cost(self, order: Sequence[str], probed: bool) -> float:
        """Budget seconds ``order`` is expected to take at the pace so far, weighing each
        test by its own time where it ran before (a few slow tests left out make an order
        cheaper than its length says), and never less than what the latest order of its
        kind (probed or not) took beyond its tests."""
        floor = self._overhead.get(probed, self._overhead.get(False, 0.0))
        return max(self._by_tests(order), floor)

    def _by_tests(self, order: Sequence[str]) -> float:
        """What ``order``'s tests take at the pace so far, each by its own time."""
        pace = self._spent / self._executions
        if self._test_seconds <= 0:
            return len(order) * pace
        mean = self._test_seconds / self._executions
        own = sum(self._own.get(t, mean) for t in order)
        return own * self._spent / self._test_seconds

    def _whole_budget_end(self) -> Optional[float]:
        """When the command's whole budget ends (``time.monotonic()``; None: never): an
        order still running then is killed. A phase's own share only stops new orders."""
        whole = self.budget
        while whole.parent is not None:
            whole = whole.parent
        left = whole.left()
        return None if left is None else time.monotonic() + left

    def run_many(
        self,
        orders: Sequence[Sequence[str]],
        *,
        probe: Optional[ProbeSpec] = None,
        on_result: Optional[ResultCallback] = None,
    ) -> list[OrderResult]:
        out: list[OrderResult] = []
        start = 0
        while start < len(orders):
            size = self._fitting(orders[start : start + self.jobs * SLICE], probe is not None)
            offset = start

            def done(i: int, result: OrderResult, _offset: int = offset) -> None:
                if on_result is not None:
                    on_result(_offset + i, result)

            began = self.budget.clock()
            batch = orders[start : start + size]
            whole_end = self._whole_budget_end()
            try:
                with runs_until(whole_end):
                    results = self.inner.run_many(batch, probe=probe, on_result=done)
            except KeyboardInterrupt as exc:
                self.budget.interrupted(exc)
                raise BudgetExhausted("interrupted") from None
            except OutOfTime:
                if whole_end is not None and time.monotonic() < whole_end:
                    raise  # a phase's own, earlier limit (runs_until around this call)
                # the whole budget ended while orders ran: they were killed
                self.budget.stop("budget")
                raise BudgetExhausted("budget") from None
            out += results
            # An order answered without running (reused from the store, or run by the
            # fork check) costs nothing now but tells what running it costs.
            ran_for = sum(r.wall_seconds for r in results) / self.jobs
            self._spent += max(self.budget.clock() - began, ran_for)
            self._executions += sum(len(o) for o in batch)
            for r in results:
                for t in r.results:
                    self._own[t.test] = t.duration
            self._test_seconds += sum(self._own.get(t, 0.0) for o in batch for t in o)
            for r in results:
                if r.wall_seconds > 0:
                    beyond = r.wall_seconds - sum(t.duration for t in r.results)
                    self._overhead[probe is not None] = max(0.0, beyond)
            start += size
        return out


__all__ = [
    "CHECK_RESERVE",
    "EXTENDED_SEARCH_SHARE",
    "EXTENDED_SEARCH_SHARE_DETECT",
    "LATE_FIND_ORDERS",
    "SEARCH_SHARE",
    "SEARCH_SHARE_CLASSIFY",
    "UNFINISHED_KEY",
    "Budget",
    "BudgetExhausted",
    "BudgetedExecutor",
    "unfinished",
]
