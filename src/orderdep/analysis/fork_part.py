"""The part of a long suite a search can cover when the fork runner's run of the original
order did not end within the check's share of the budget.

A suite of 2,000 tests taking four minutes a run cannot run whole within a budget of two:
the fork runner's check stops its run of the original order, and a fresh pytest of that
order would not end either. What that run did reach is still an order run from the
start: the tests up to any point of it ran exactly as in the original order (later tests
cannot change an earlier test's outcome). :func:`reached_part` cuts it at the point where
an order of those tests still fits :data:`PART_SHARE` of what is left, so the search
(:func:`~orderdep.analysis.detect.detect`'s ``part``) can run several orders of them,
on the fork runner once a fresh pytest of them agreed (:mod:`fork_part_check`), else
confirming what it finds in fresh processes. The tests after that point are not
searched; the report says so. Once it is clear that the whole order cannot be searched,
the fork runner's run stops as soon as what it reached fills the part
(:func:`part_filled`): running on would only shrink the search's time.

Pure: results and seconds in, a result (or a sentence) out.
"""

from __future__ import annotations

from typing import Optional

from orderdep.analysis.budget import Budget
from orderdep.analysis.fidelity_partial import finished_prefix
from orderdep.core.outcomes import OrderResult
from orderdep.engine.testclock import Progress

#: The share of the seconds left that one order of the part may take (as a whole order
#: may before slow tests are left out, see :data:`~orderdep.core.slow_tests.SLOW_SHARE`).
PART_SHARE = 0.25
#: Fewer tests than this reached: no part worth searching.
MIN_PART_TESTS = 2


def reached_part(run: OrderResult, seconds_left: float) -> Optional[OrderResult]:
    """``run`` (the fork runner's cut run of the original order) cut to its leading tests
    that ran to an end and take, together, at most :data:`PART_SHARE` of
    ``seconds_left``: a run of that part of the original order. None when fewer than
    :data:`MIN_PART_TESTS` tests are left."""
    room = PART_SHARE * max(0.0, seconds_left)
    used, n = 0.0, 0
    for r in run.results[: finished_prefix(run)]:
        if used + max(0.0, r.duration) > room:
            break
        used += max(0.0, r.duration)
        n += 1
    if n < MIN_PART_TESTS:
        return None
    return OrderResult(run.order[:n], run.results[:n], runner=run.runner,
                       wall_seconds=used)  # fmt: skip


def part_filled(progress: Optional[Progress], tests: int, left: Optional[float]) -> bool:
    """Whether the fork runner's run of the original order of ``tests`` tests has
    reached all a search can cover when ``left`` seconds of the command's budget are left:
    at the pace of its tests (their own seconds, without the start-up and collection
    before them), the rest of the order and a fresh pytest of the whole take more than is
    left, so the search can only cover a part; and the tests reached already take
    :data:`PART_SHARE` of what is left (all :func:`reached_part` would take). Every
    second past that point goes to tests the search will not run. (When the whole order
    and its check fit, the search covers the whole suite's fast tests instead, see
    :mod:`~orderdep.core.slow_tests`.)"""
    if progress is None or left is None:
        return False
    done, seconds = progress.finished, progress.tests_seconds
    if done < MIN_PART_TESTS or done >= tests:
        return False
    whole = seconds * tests / done
    if whole - seconds + whole <= left:
        return False  # the rest of it and a fresh pytest of the whole order fit
    return seconds >= PART_SHARE * left


def filled_notice(progress: Optional[Progress], tests: int) -> str:
    """What the user reads when :func:`part_filled` stops the fork runner's run."""
    done, seconds = (progress.finished, progress.seconds) if progress is not None else (0, 0.0)
    return (
        f"orderdep: checking the fork runner: its run of the original order ended {done} "
        f"of the {tests} tests in {seconds:.0f} s; at that pace the budget cannot search "
        f"the whole order, and the tests it reached are as many as a search can cover, so "
        f"it stops there"
    )


def part_notice(part: OrderResult, run: OrderResult, tests: int, share: Optional[Budget]) -> str:
    """What the user reads when the search covers ``part`` of a suite of ``tests`` tests,
    cut from the fork runner's ``run`` of the original order that ``share`` stopped."""
    seconds = f" ({share.seconds:.0f} s)" if share is not None and share.seconds else ""
    return (
        f"orderdep: the fork runner's run of the original order does not end within the "
        f"check's share of the budget{seconds}: it reached {finished_prefix(run)} of the "
        f"{tests} tests. Searching the first {len(part.order)} of them (an order of them "
        f"fits the budget left); the other {tests - len(part.order)} tests are not "
        f"searched (a larger --budget searches them)"
    )


__all__ = [
    "MIN_PART_TESTS",
    "PART_SHARE",
    "filled_notice",
    "part_filled",
    "part_notice",
    "reached_part",
]
