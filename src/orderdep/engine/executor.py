"""The interface every analysis uses to run orders."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable, Optional, Protocol

from orderdep.core.outcomes import OrderResult
from orderdep.core.suite import Suite
from orderdep.engine.probe import ProbeSpec

ResultCallback = Callable[[int, OrderResult], None]


class Executor(Protocol):
    """Runs orders of test ids and returns one :class:`OrderResult` per order.

    ``run_many`` may run orders in parallel; results come back in the input order, and
    ``on_result(index, result)`` is called as each one finishes (for progress and the
    store). Implementations: the real engine (:mod:`orderdep.engine.runner`) and the
    pure simulation :class:`orderdep.synth.model.ModelExecutor`.
    """

    @property
    def suite(self) -> Suite: ...

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult: ...

    def run_many(
        self,
        orders: Sequence[Sequence[str]],
        *,
        probe: Optional[ProbeSpec] = None,
        on_result: Optional[ResultCallback] = None,
    ) -> list[OrderResult]: ...
