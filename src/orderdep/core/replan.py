"""Positions lost to a crash or a timeout, and what a search promised against what ran.

When a test crashes its process or overruns its time limit, the tests after it in that
order never run. :func:`continuations` re-plans them: the rest of the order from after
the lost test (in a fresh process), and the whole order once more without it (so the
tests after it still run after everything before it). :class:`Coverage` keeps the
account of one strategy: orders and positions planned and run, and the consecutive pairs
of tests planned and actually run one after the other in one process. A pair whose first
test never completed right before the second is *not coverable*, with the reason.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from orderdep.core.outcomes import OrderResult, Outcome

Pair = tuple[str, str]
LOST = (Outcome.CRASHED, Outcome.TIMEOUT)
REASONS = {
    Outcome.CRASHED: "crashed the test process",
    Outcome.TIMEOUT: "ran past its time limit",
}


def lost_at(result: OrderResult) -> Optional[int]:
    """The position whose crash or timeout cut the order short (None: nothing was lost)."""
    outcomes = [r.outcome for r in result.results]
    for k, outcome in enumerate(outcomes):
        if outcome in LOST:
            return k if any(o is Outcome.NOT_RUN for o in outcomes[k + 1 :]) else None
    return None


def continuations(order: Sequence[str], k: int, skip: Collection[str] = ()) -> list[list[str]]:
    """Orders that run what position ``k``'s crash or timeout left out: the rest after
    it, and the whole order without it (the same order twice is planned once). Tests in
    ``skip`` (already seen crashing or hanging) are left out of the rest, so one order
    with several such tests is not cut again at each of them."""
    rest = [t for t in order[k + 1 :] if t not in skip]
    without = [*order[:k], *rest]
    out: list[list[str]] = []
    for candidate in (rest, without):
        if candidate and candidate not in out:
            out.append(candidate)
    return out


def unexplained_unrun(result: OrderResult) -> list[str]:
    """Tests of ``result``'s order that got no outcome although no crash or timeout came
    before them: the runner did not find or did not reach them."""
    out: list[str] = []
    for r in result.results:
        if r.outcome in LOST:
            break
        if r.outcome is Outcome.NOT_RUN:
            out.append(r.test)
    asked = len(result.order) - len(result.results)
    if asked > 0 and not any(r.outcome in LOST for r in result.results):
        out += list(result.order[len(result.results) :])
    return out


def ran_pairs(result: OrderResult) -> Iterable[Pair]:
    """Consecutive pairs that ran one after the other in one process: the first test
    finished (not crashed, timed out or skipped over) and the second got an outcome."""
    rs = result.results
    for a, b in zip(rs, rs[1:]):
        finished = a.outcome not in LOST and a.outcome is not Outcome.NOT_RUN
        if finished and b.outcome is not Outcome.NOT_RUN:
            yield (a.test, b.test)


def planned_pairs(order: Sequence[str]) -> Iterable[Pair]:
    return zip(order, order[1:])


@dataclass
class Coverage:
    """What one strategy promised and what ran."""

    strategy: str
    orders_planned: int = 0
    orders_run: int = 0
    positions_planned: int = 0
    positions_run: int = 0
    recovery_orders: int = 0
    pairs_planned: set[Pair] = field(default_factory=set)
    pairs_covered: set[Pair] = field(default_factory=set)
    lost: dict[str, Outcome] = field(default_factory=dict)  # test -> what cut it short
    not_coverable: dict[Pair, str] = field(default_factory=dict)
    # Orders the strategy promised in all (None: as many as a limit lets run).
    promised: Optional[int] = None
    # Positions asked for that got no outcome although nothing before them crashed or
    # hung (the test was not found, or the run ended early): failed runs, not passes.
    unrun: int = 0
    unrun_example: Optional[str] = None

    def plan(self, order: Sequence[str]) -> None:
        """``order`` is one the strategy promised to run."""
        self.orders_planned += 1
        self.positions_planned += len(order)
        self.pairs_planned.update(planned_pairs(order))

    def saw(self, result: OrderResult, *, recovery: bool = False) -> None:
        """``result`` ran (a planned order, or a recovery order when ``recovery``)."""
        if recovery:
            self.recovery_orders += 1
        else:
            self.orders_run += 1
        self.positions_run += sum(r.outcome is not Outcome.NOT_RUN for r in result.results)
        self.pairs_covered.update(ran_pairs(result))
        k = lost_at(result)
        if k is not None:
            self.lost.setdefault(result.order[k], result.results[k].outcome)
        for test in unexplained_unrun(result):
            self.unrun += 1
            if self.unrun_example is None:
                self.unrun_example = test

    def missing(self) -> list[Pair]:
        """Planned pairs not yet covered nor known to be not coverable, in a stable order."""
        return sorted(self.pairs_planned - self.pairs_covered - set(self.not_coverable))

    def give_up(self, pair: Pair, result: OrderResult) -> None:
        """``[a, b]`` ran and still did not cover the pair: record why."""
        first = result.results[0]
        why = REASONS.get(first.outcome, f"did not let {pair[1]} run")
        self.not_coverable[pair] = f"{pair[0]} {why}"

    def summary(self) -> dict[str, Any]:
        """The account for the report (``stats.extras["coverage"]``)."""
        planned = self.pairs_planned
        covered = len(planned & self.pairs_covered)
        return {
            "strategy": self.strategy,
            "orders_planned": self.orders_planned,
            "orders_run": self.orders_run,
            "recovery_orders": self.recovery_orders,
            "positions_planned": self.positions_planned,
            "positions_run": self.positions_run,
            "pairs_planned": len(planned),
            "pairs_covered": covered,
            "orders_promised": self.promised,
            "unrun_positions": self.unrun,
            "unrun_example": self.unrun_example,
            "lost_to": {t: str(o) for t, o in sorted(self.lost.items())},
            "not_coverable": [
                {"pair": list(p), "reason": why} for p, why in sorted(self.not_coverable.items())
            ],
        }


#: Strategies whose plan promises every consecutive pair it lists.
PAIR_PROMISES = ("tuscan", "pairs", "changed-pairs")


def describe(account: dict[str, Any], tests: Optional[int] = None) -> str:
    """One line for a summary: how much of the promise was kept, and why not all.

    A strategy that plans pairs (:data:`PAIR_PROMISES`) is measured against its plan; any
    other one against every ordered pair of the ``tests`` (its orders only happen to run
    some of them, so "all the pairs it ran" would read as full coverage); ``isolation``
    by its orders alone."""
    planned, covered = account["pairs_planned"], account["pairs_covered"]
    run, promised = account["orders_run"], account.get("orders_promised")
    if account["strategy"] == "isolation":  # one test an order: pairs say nothing of it
        of = promised or account["orders_planned"]
        line = f"isolation: {run} of {of} orders, each test alone"
    elif account["strategy"] in PAIR_PROMISES or not tests or tests < 2:
        pct = 100.0 * covered / planned if planned else 100.0
        line = (
            f"{account['strategy']}: {run} of {promised or account['orders_planned']} "
            f"planned orders, {covered} of {planned} consecutive pairs ({pct:.1f}%)"
        )
    else:
        every = tests * (tests - 1)
        if promised is not None:
            of = f"{run} of {promised} orders"
        else:
            of = f"{run} order" if run == 1 else f"{run} orders"
        line = (
            f"{account['strategy']}: {of}, which ran {covered} of the {every} ordered pairs "
            f"of tests one after the other ({100.0 * covered / every:.1f}%)"
        )
    lost = account.get("lost_to") or {}
    if lost:
        line += (
            f"; {len(lost)} test(s) crashed or hung, {account['recovery_orders']} "
            "recovery order(s) ran the tests after them"
        )
    bad = account.get("not_coverable") or []
    if bad:
        first = bad[0]
        more = f" and {len(bad) - 1} more" if len(bad) > 1 else ""
        line += f"; not coverable: {' -> '.join(first['pair'])} ({first['reason']}){more}"
    return line
