"""A pure simulation of a suite with planted order dependencies.

:class:`ModelExecutor` answers ``run(order)`` from :class:`~orderdep.core.odmodel.ODSpec`
ground truth instead of running pytest, so analyses can be unit-tested in milliseconds.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Sequence
from typing import Optional

from orderdep.core.odmodel import ODSpec, fails_at
from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.core.suite import Suite
from orderdep.engine.executor import ResultCallback
from orderdep.engine.probe import ProbeSpec


class ModelExecutor:
    """Simulates runs of ``suite`` where ``specs`` are the only order dependencies.

    ``nd_tests`` fail at random with probability ``nd_rate`` (seeded); ``always_failing``
    fail everywhere. A failure of a test in ``crashing`` (``hanging``) kills the process:
    it is ``crashed`` (``timeout``) and the rest of the order ``not-run``. Counts
    ``orders_run`` and ``executions`` like the real engine.
    """

    def __init__(
        self,
        suite: Suite,
        specs: Iterable[ODSpec] = (),
        *,
        nd_tests: Iterable[str] = (),
        always_failing: Iterable[str] = (),
        nd_rate: float = 0.5,
        seed: int = 0,
        crashing: Iterable[str] = (),
        hanging: Iterable[str] = (),
    ) -> None:
        self._suite = suite
        self.lost_as = {t: Outcome.CRASHED for t in crashing}
        self.lost_as.update({t: Outcome.TIMEOUT for t in hanging})
        self.specs = {s.test: s for s in specs}
        self.nd_tests = set(nd_tests)
        self.always_failing = set(always_failing)
        self.nd_rate = nd_rate
        self._rng = random.Random(seed)
        self.orders_run = 0
        self.executions = 0
        self.history: list[list[str]] = []

    @property
    def suite(self) -> Suite:
        return self._suite

    def _outcome(self, test: str, prefix: Sequence[str]) -> Outcome:
        if test in self.always_failing:
            return Outcome.FAILED
        if test in self.nd_tests:
            return Outcome.FAILED if self._rng.random() < self.nd_rate else Outcome.PASSED
        spec = self.specs.get(test)
        if spec is not None and fails_at(spec, prefix):
            return Outcome.FAILED
        return Outcome.PASSED

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        self._suite.require(order)
        start = time.perf_counter()
        results = []
        dead = False
        for i, test in enumerate(order):
            if dead:
                results.append(TestResult(test, Outcome.NOT_RUN, 0.0, ""))
                continue
            outcome = self._outcome(test, order[:i])
            if outcome is Outcome.FAILED and test in self.lost_as:
                outcome = self.lost_as[test]
                dead = True
            message = "" if outcome is Outcome.PASSED else f"simulated failure of {test}"
            results.append(TestResult(test, outcome, 0.0, message))
        self.orders_run += 1
        self.executions += len(order)
        self.history.append(list(order))
        return OrderResult(
            list(order), results, runner="model", wall_seconds=time.perf_counter() - start
        )

    def run_many(
        self,
        orders: Sequence[Sequence[str]],
        *,
        probe: Optional[ProbeSpec] = None,
        on_result: Optional[ResultCallback] = None,
    ) -> list[OrderResult]:
        out = []
        for i, order in enumerate(orders):
            res = self.run(order, probe=probe)
            if on_result is not None:
                on_result(i, res)
            out.append(res)
        return out
