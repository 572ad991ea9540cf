"""Confirmation a few suspects at a time (:func:`confirm_in_chunks`), so that a budget
that runs out keeps what was confirmed, and each chunk learns from the ones before it:
the cheapest suspects first, and the partners of OD tests already confirmed tried first.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Callable, Optional

from orderdep.analysis.budget import Budget
from orderdep.analysis.confirm import (
    Guide,
    OrderRunner,
    RunLog,
    Verdicts,
    confirm,
    failed,
    failed_in,
    nd_tests,
    observe,
    seen_in,
)
from orderdep.core.outcomes import OrderResult
from orderdep.core.report import ODFinding
from orderdep.core.siblings import SIBLINGS, sibling_orders

#: Of the budget left when a polluter's siblings are tried, the share their orders may
#: take (on a runner that starts a fresh pytest per order, 24 of them are not cheap).
SWEEP_SHARE = 0.25


def partners_in(findings: Sequence[ODFinding]) -> set[str]:
    """The tests the confirmed orders of ``findings`` needed besides the OD test itself,
    and the partners classification gave them."""
    out: set[str] = set()
    for f in findings:
        out.update(f.failing_order, f.passing_order, f.polluters, f.state_setters)
        for group in (*f.polluter_groups, *f.state_setter_groups):
            out.update(group)
        out.discard(f.test)
    return out


def suspects_of(search: Sequence[OrderResult], nio_search: Sequence[OrderResult]) -> list[str]:
    """Tests that failed in a search order or a second time in ``[t, t]``, cheapest to
    confirm first (so a budget that runs out has confirmed as many as it could): by the
    fewest seconds the tests up to a failure of theirs took, the test's own included (a
    suspect that takes 8 s costs that in every order confirming it), then the fewest
    tests run before that failure, then first seen first."""
    cost: dict[str, tuple[float, int]] = {}

    def note(test: str, seconds: float, position: int) -> None:
        cost[test] = min(cost.get(test, (seconds, position)), (seconds, position))

    for result in search:
        seconds = 0.0
        for position, r in enumerate(result.results):
            seconds += r.duration
            if failed(r) is True:
                note(r.test, seconds, position)
    for result in nio_search:
        if len(result.results) == 2 and failed(result.results[1]) is True:
            note(result.order[0], sum(r.duration for r in result.results), 1)
    first = {t: i for i, t in enumerate(cost)}
    return sorted(cost, key=lambda t: (cost[t], first[t]))


#: Per OD test, the outcomes (True: it failed) of orders ending with it, one per run.
Evidence = dict[str, dict[tuple[str, ...], list[bool]]]


def evidence(log: RunLog, findings: Sequence[ODFinding]) -> Evidence:
    """What the runs ``log`` counts (fresh processes only, when it counts only those)
    showed of each finding's test alone and of its failing and passing orders, each cut
    right after the test."""
    out: Evidence = {}
    for f in findings:
        mine = out.setdefault(f.test, {})
        for order in ([f.test], f.failing_order, f.passing_order):
            if f.test not in order:
                continue
            at = len(order) - 1 - list(reversed(order)).index(f.test)
            key = tuple(order[: at + 1])
            if key not in mine:
                mine[key] = log.outcomes(order, at)
    return out


def _budget_of(runner: OrderRunner) -> Optional[Budget]:
    """The budget ``runner``'s executor runs orders within (None: none)."""
    budget = getattr(runner.executor, "budget", None)
    return budget if isinstance(budget, Budget) else None


def _sweep(
    runner: OrderRunner,
    search: list[OrderResult],
    suspects: list[str],
    confirmed: Sequence[ODFinding],
    swept: set[tuple[str, str]],
    limit: int,
) -> None:
    """Run ``[p, s]`` for the siblings ``s`` of each victim confirmed with the failing
    order ``[p, v]``; the orders in which ``s`` failed join ``search`` and ``s`` joins
    ``suspects``. Within a budget, the orders stop once they took :data:`SWEEP_SHARE`
    of what was left when they started."""
    if limit <= 0 or not search:
        return
    pairs = [
        (f.failing_order[0], f.test)
        for f in confirmed
        if len(f.failing_order) == 2 and f.failing_order[1] == f.test
    ]
    known = {*suspects, *(f.test for f in confirmed)}
    seen = _adjacent(search, {p for p, _ in pairs})
    orders = [
        o
        for o in sibling_orders(pairs, search[0].order, known, swept, limit)
        if tuple(o) not in seen
    ]
    budget = _budget_of(runner)
    left = budget.left() if budget is not None else None
    start, step = time.monotonic(), 2 * runner.jobs
    for at in range(0, len(orders), step):
        if left is not None and time.monotonic() - start > SWEEP_SHARE * left:
            break  # the rest of the siblings stay untried
        for result in runner.run(orders[at : at + step]):
            last = result.results[-1] if len(result.results) == 2 else None
            if last is not None and failed(last) is True and last.test not in suspects:
                search.append(result)
                suspects.append(last.test)


def _adjacent(search: Sequence[OrderResult], first: set[str]) -> set[tuple[str, str]]:
    """The pairs ``(a, b)`` with ``a`` in ``first`` that some search order ran with ``b``
    right after ``a``, both to an end (a sibling that ran right after the polluter
    needs no order of its own)."""
    out: set[tuple[str, str]] = set()
    for result in search:
        rs = result.results
        out.update(
            (a.test, b.test)
            for a, b in zip(rs, rs[1:])
            if a.test in first and failed(a) is not None and failed(b) is not None
        )
    return out


class _Pace:
    """Seconds confirmation took per suspect, and classification (``on_chunk``) per OD
    test, so far: whether classifying a chunk now would leave the suspects still to
    confirm no time (:meth:`defers`)."""

    def __init__(self, runner: OrderRunner) -> None:
        self.budget = _budget_of(runner)
        self.confirming = self.classifying = 0.0
        self.confirmed = self.classified = 0

    def defers(self, findings: int, remaining: int) -> bool:
        """True when, at the pace so far, classifying ``findings`` OD tests and then
        confirming ``remaining`` suspects takes more than the budget left (never before
        one chunk was classified, or without a budget)."""
        left = self.budget.left() if self.budget is not None else None
        if left is None or not self.classified or not self.confirmed or not remaining:
            return False
        classify = findings * self.classifying / self.classified
        return classify + remaining * self.confirming / self.confirmed > left


def _alone_first(
    runner: OrderRunner, search: Sequence[OrderResult], suspects: Sequence[str]
) -> list[str]:
    """Run each suspect that failed in a search order alone once (one batch), then the
    suspects with the tests that shows always failing first (their verdict costs no
    further order), the rest in the order given."""
    fails, passes = seen_in(search)
    observe(runner, [([t], 0) for t in suspects if t in fails], 1)
    first_failures = failed_in(search[0] if search else None)

    def decided(t: str) -> bool:
        alone = runner.log.outcomes([t], 0)
        return t in first_failures and t not in passes and bool(alone) and all(alone)

    return sorted(suspects, key=lambda t: not decided(t))  # stable


def confirm_in_chunks(
    runner: OrderRunner,
    search: Sequence[OrderResult],
    nio_search: Sequence[OrderResult] = (),
    confirm_runs: int = 5,
    chunk: int = 2,
    stop: type[BaseException] = Exception,
    guide: Optional[Guide] = None,
    on_chunk: Optional[Callable[[list[ODFinding], Evidence], None]] = None,
    siblings: int = SIBLINGS,
) -> tuple[Verdicts, list[str], Optional[BaseException]]:
    """:func:`confirm`, ``chunk`` suspects at a time, so that an exception of type ``stop``
    (the command's budget running out) keeps the verdicts of the chunks done.
    ``on_chunk`` receives each chunk's OD findings (none ND so far) as soon as they are
    confirmed, before the next chunk starts, with what the runs confirmation counted
    showed of them (:func:`evidence`): classification can take them first.

    Returns the verdicts, the suspects not confirmed yet and the stop (None: all done).
    A chunk the stop ends after its first look at every order (:func:`confirm`, step 3)
    keeps the OD tests those runs show, each saying how often it was seen.
    A test found ND in a later chunk is taken out of the earlier chunks' findings.

    Before the chunks, every suspect that failed in a search order runs alone once, all
    in one batch (the cheap check, see :func:`confirm` step 1); the tests it shows always
    failing come first, since their verdict costs no further order. Each chunk tries the
    partners of the OD tests confirmed (and classified) before it first
    (:func:`partners_in`); so when there are more suspects than one chunk holds, the
    first chunk is the first suspect alone.

    A victim confirmed with a two-test failing order ``[p, v]`` has up to ``siblings``
    tests of its class tried right after ``p`` (:mod:`orderdep.core.siblings`), before
    ``on_chunk`` gets it (unless a search order ran ``s`` right after ``p`` already); the
    ones that fail there join the suspects (0: none tried).

    Within a budget, ``on_chunk`` is skipped for a chunk when, at the pace so far
    (:class:`_Pace`), classifying it would leave the suspects after it no time to be
    confirmed: 34 victims of one polluter are then all confirmed, each with the order
    that shows its kind and partner, before classification takes what is left (one
    victim confirmed and 33 suspects left unconfirmed is the other way round).
    """
    search = list(search)  # sibling orders that show a failure join it
    suspects = suspects_of(search, nio_search)
    swept: set[tuple[str, str]] = set()
    out = Verdicts()
    done = 0
    stopped: Optional[BaseException] = None
    undecided: list[str] = []  # of the chunk the budget ended in, after a first look
    pace = _Pace(runner)
    try:
        suspects = _alone_first(runner, search, suspects)
    except stop as exc:
        stopped = exc
    while stopped is None and done < len(suspects):
        # the first suspect alone when more follow: the polluter it needed is tried first
        # for all the others (one polluter often has many victims)
        size = 1 if done == 0 and len(suspects) > max(1, chunk) else max(1, chunk)
        part = suspects[done : done + size]
        began = time.monotonic()
        try:
            got = confirm(
                runner,
                search,
                nio_search,
                confirm_runs,
                only=set(part),
                guide=guide,
                partners=partners_in(out.od),
                stop=(stop,),
            )
        except stop as exc:
            stopped = exc
            break
        out.od += got.od
        out.always_failing += got.always_failing
        out.nio += got.nio
        done += len(part)
        pace.confirming += time.monotonic() - began
        pace.confirmed += len(part)
        if got.cut is not None:
            stopped, undecided = got.cut, got.undecided
            break
        try:
            _sweep(runner, search, suspects, out.od, swept, siblings)
        except stop as exc:
            stopped = exc
            break
        if on_chunk is not None:
            nd = nd_tests(runner.log)
            fresh = [f for f in got.od if f.test not in nd]
            if fresh and not pace.defers(len(fresh), len(suspects) - done):
                began = time.monotonic()
                on_chunk(fresh, evidence(runner.log, fresh))
                pace.classifying += time.monotonic() - began
                pace.classified += len(fresh)
    nd = nd_tests(runner.log)
    out.nd = sorted(nd)
    out.od = [f for f in out.od if f.test not in nd]
    place = {t: i for i, t in enumerate(search[0].order if search else ())}
    out.always_failing = sorted(
        (t for t in out.always_failing if t not in nd), key=lambda t: place.get(t, len(place))
    )  # as the suite lists them, whichever chunk decided them
    out.nio = [t for t in out.nio if t not in nd]
    return out, [t for t in undecided + suspects[done:] if t not in nd], stopped
