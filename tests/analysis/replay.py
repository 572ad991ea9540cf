"""A model executor with a results store and a clock, as the engine runs a job.

Every order run is kept (by order, in the order asked); a later :class:`ReplayExecutor`
over the same :class:`Recorded` gives the n-th request of an order its n-th recorded run
without running it, as ``Engine`` does for a rerun of the same job. Each order really run
moves the clock on by one second, so a :class:`~orderdep.analysis.budget.Budget` on that
clock runs out after a known number of orders.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Optional

from orderdep.core.outcomes import OrderResult
from orderdep.core.suite import Suite
from orderdep.engine.executor import ResultCallback
from orderdep.engine.probe import ProbeSpec
from orderdep.synth.model import ModelExecutor


@dataclass
class Recorded:
    runs: dict[tuple[str, ...], list[OrderResult]] = field(default_factory=dict)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class ReplayExecutor:
    def __init__(self, model: ModelExecutor, recorded: Recorded, clock: Clock) -> None:
        self.model = model
        self.recorded = recorded
        self.clock = clock
        self.asked: Counter[tuple[str, ...]] = Counter()
        self.reused = 0
        self.ran = 0

    @property
    def suite(self) -> Suite:
        return self.model.suite

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        key = tuple(order)
        nth = self.asked[key]
        self.asked[key] += 1
        earlier = self.recorded.runs.setdefault(key, [])
        if nth < len(earlier):
            self.reused += 1
            return earlier[nth]
        result = self.model.run(order)
        earlier.append(result)
        self.ran += 1
        self.clock.now += 1.0
        return result

    def run_many(
        self,
        orders: Sequence[Sequence[str]],
        *,
        probe: Optional[ProbeSpec] = None,
        on_result: Optional[ResultCallback] = None,
    ) -> list[OrderResult]:
        out = []
        for i, order in enumerate(orders):
            out.append(self.run(order))
            if on_result is not None:
                on_result(i, out[-1])
        return out
