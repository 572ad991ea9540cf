"""Runners of a sample order one after the other or side by side, and stopped together."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest

from orderdep.analysis.fidelity_sample import run_sample
from orderdep.core.fidelity import SampleOrder
from orderdep.core.outcomes import OrderResult, Outcome, TestResult


def runner(outcome: Outcome, seen: list[str], barrier: threading.Barrier | None = None):  # type: ignore[no-untyped-def]
    def run(order: Sequence[str]) -> OrderResult:
        seen.append(threading.current_thread().name)
        if barrier is not None:
            barrier.wait(timeout=10)  # every runner of the order is running at once
        return OrderResult(list(order), [TestResult(t, outcome) for t in order])

    return run


SAMPLES = [SampleOrder("original", ("a", "b")), SampleOrder("alone", ("b",))]


@pytest.mark.parametrize("side_by_side", [1, 3])
def test_a_runner_that_differs_is_a_mismatch_either_way(side_by_side: int) -> None:
    seen: list[str] = []
    barrier = threading.Barrier(3) if side_by_side == 3 else None
    runners = {
        "fork": runner(Outcome.FAILED, seen, barrier),
        "subprocess": runner(Outcome.PASSED, seen, barrier),
        "plain": runner(Outcome.PASSED, seen, barrier),
    }
    report = run_sample(SAMPLES, runners, side_by_side=side_by_side)
    assert report.orders == 2 and len(report.mismatches) == 3
    assert {m.outcomes["fork"] for m in report.mismatches} == {Outcome.FAILED}
    threads = set(seen)
    assert (len(threads) > 1) == (side_by_side > 1)


class Stopper:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def block(self) -> None:
        self.calls.append("block")

    def unblock(self) -> None:
        self.calls.append("unblock")


def test_a_failing_runner_stops_the_others_and_raises() -> None:
    def broken(order: Sequence[str]) -> OrderResult:
        raise RuntimeError("engine died")

    stopper = Stopper()
    runners = {"fork": broken, "plain": runner(Outcome.PASSED, [])}
    with pytest.raises(RuntimeError, match="engine died"):
        run_sample(SAMPLES, runners, side_by_side=2, stoppers=[stopper])
    assert stopper.calls == ["block", "unblock"]
