"""Running a sample of orders under several runners and comparing their outcomes, the
runners of one order one after the other or side by side (``orderdep doctor -j N``)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Callable, Optional, Protocol

from orderdep.core.fidelity import FidelityReport, SampleOrder
from orderdep.core.outcomes import OrderResult

RunOrder = Callable[[Sequence[str]], OrderResult]
Progress = Callable[[str], None]
# Seconds to wait for killed runs to report back.
STOP_WAIT = 30.0


class Stoppable(Protocol):
    def block(self) -> None: ...

    def unblock(self) -> None: ...


def run_sample(
    samples: Sequence[SampleOrder],
    runners: dict[str, RunOrder],
    *,
    deadline: Optional[float] = None,
    progress: Optional[Progress] = None,
    on_order: Optional[Callable[[FidelityReport], None]] = None,
    side_by_side: int = 1,
    stoppers: Sequence[Stoppable] = (),
) -> FidelityReport:
    """Run every sample order under every runner (until ``deadline``) and compare;
    ``on_order`` sees the report after each order. The report says how much of the
    sample ran (``orders`` of ``planned``, ``positions`` of ``planned_positions``).

    With ``side_by_side`` > 1 that many runners run each order at once, each in its own
    working copy (for suites whose tests may run in parallel: a fixed port or a shared
    file outside the project would make them differ); ``stoppers`` are blocked when a
    run fails or is interrupted, so no run outlives the call."""
    report = FidelityReport(
        list(runners), planned=len(samples), planned_positions=sum(len(s.order) for s in samples)
    )
    pool = ThreadPoolExecutor(max_workers=side_by_side) if side_by_side > 1 else None
    try:
        for n, sample in enumerate(samples, 1):
            if deadline is not None and time.monotonic() >= deadline:
                break
            if progress is not None:
                progress(f"[{n}/{len(samples)}] {sample.label}: {len(sample.order)} test(s)")
            results = _run_all(sample.order, runners, pool, stoppers)
            for m in report.add(sample, results):
                if progress is not None:
                    shown = ", ".join(f"{k} {v}" for k, v in m.outcomes.items())
                    progress(f"  mismatch at position {m.position} ({m.test}): {shown}")
            if on_order is not None:
                on_order(report)
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
    return report


def _run_all(
    order: Sequence[str],
    runners: dict[str, RunOrder],
    pool: Optional[ThreadPoolExecutor],
    stoppers: Sequence[Stoppable],
) -> dict[str, OrderResult]:
    if pool is None:
        return {name: run(order) for name, run in runners.items()}
    futures: dict[str, Future[OrderResult]] = {
        name: pool.submit(run, order) for name, run in runners.items()
    }
    try:
        wait(futures.values())
        return {name: future.result() for name, future in futures.items()}
    except BaseException:
        # kill every run (also one whose thread is only starting it), wait for the threads
        for stopper in stoppers:
            stopper.block()
        try:
            wait([f for f in futures.values() if not f.cancelled()], timeout=STOP_WAIT)
        finally:
            for stopper in stoppers:
                stopper.unblock()
        raise
