"""Leaving a suite's few slow tests out of orders while a budget is short.

Many suites spend most of their time in a few tests (a sleep, a subprocess, a large
fixture): 25 of 272 tests can take 50 of 56 seconds. Within a budget of a couple of
minutes every whole order of such a suite costs a large part of it, while the same order
without those tests costs a tenth. :func:`split_slow` finds the slowest tests to leave
out: no more than :data:`MAX_LEFT_OUT` of the suite, and only when that at least halves
an order's time (:data:`MIN_GAIN`). An order of the tests kept is still an order: what a
test does after the tests before it is as true there as in the whole suite. The tests
left out run in the original order, and once after all the others when that order fits
(a victim among them fails there); what else they can pollute or set is not searched,
and callers say so.

Pure: durations by test id in, ids out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

#: A whole order may take at most this share of the seconds left before slow tests are
#: left out.
SLOW_SHARE = 0.25
#: At most this share of the tests is left out.
MAX_LEFT_OUT = 0.1
#: Leaving them out must at least bring an order's test time down to this share.
MIN_GAIN = 0.5


@dataclass(frozen=True)
class SlowSplit:
    """The tests kept (in the order given) and those left out (slowest first)."""

    kept: list[str]
    left_out: list[str]
    kept_seconds: float
    left_out_seconds: float

    def describe(self) -> str:
        """One clause for a notice: what was left out, and what an order costs now."""
        return (
            f"{len(self.left_out)} slow test(s) taking {self.left_out_seconds:.0f} s "
            f"(slowest {self.left_out[0]}) are left out; the other {len(self.kept)} take "
            f"{self.kept_seconds:.1f} s"
        )


def split_slow(
    durations: Sequence[tuple[str, float]],
    seconds_left: Optional[float],
    share: float = SLOW_SHARE,
) -> Optional[SlowSplit]:
    """The slow tests to leave out of orders of ``durations``' tests (in that order, each
    with its seconds), so that an order fits ``share`` of ``seconds_left``; None when the
    whole order already fits, there is no limit, or leaving out at most
    :data:`MAX_LEFT_OUT` of the tests would not bring an order's time down to
    :data:`MIN_GAIN` of it."""
    total = sum(max(0.0, d) for _, d in durations)
    if seconds_left is None or total <= share * max(0.0, seconds_left):
        return None
    return slowest_out(durations, share * max(0.0, seconds_left))


def slowest_out(durations: Sequence[tuple[str, float]], target: float) -> Optional[SlowSplit]:
    """The slowest of ``durations``' tests left out, one at a time, until the others take
    at most ``target`` seconds, leaving out no more than :data:`MAX_LEFT_OUT` of them;
    None when that does not bring their time down to :data:`MIN_GAIN` of the whole."""
    total = sum(max(0.0, d) for _, d in durations)
    limit = int(MAX_LEFT_OUT * len(durations))
    slowest = sorted(durations, key=lambda item: -item[1])
    out: list[str] = []
    kept_seconds = total
    for test, seconds in slowest[:limit]:
        if kept_seconds <= target:
            break
        out.append(test)
        kept_seconds -= max(0.0, seconds)
    if not out or kept_seconds > MIN_GAIN * total:
        return None
    left = set(out)
    return SlowSplit(
        kept=[t for t, _ in durations if t not in left],
        left_out=out,
        kept_seconds=kept_seconds,
        left_out_seconds=total - kept_seconds,
    )
