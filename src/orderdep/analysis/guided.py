"""Confirmation guided by data dependencies, for big suites (``detect --guided``).

Confirming a suspect shortens its failing (or passing) order to the few tests the
outcome needs (:mod:`orderdep.analysis.shortening`). Without more to go on that is group
testing over the tests before it: about ``1.5 log2 n`` orders of ``n/2, n/4, ...`` tests,
which on a suite of thousands of tests costs whole minutes per suspect.

Right after the original order, the search runs its reverse (and, with two workers, one
random order beside it) under the state probe (PRADET's collection,
:mod:`.pradet.collection`): they are search orders like any other, and they record the
roots each test read and wrote. A victim's polluter, or a brittle's
state-setter, writes something the test reads; so the writers of what the suspect read
that ran before it in the recorded order are tried first (:class:`WriterHints`, a hint
for :class:`~orderdep.analysis.shortening.Shortening`). When they show the outcome, the
group testing runs over them only, a handful of tests; when they do not (state the probe
cannot see: C extensions, another process), the shortening goes on as without them.
Roots written by more than :data:`~.pradet.datadeps.CROWDED` tests (a counter every test
bumps) are left out of a hint when the test read other roots too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Optional

from orderdep.analysis.pradet.collection import CollectionStopped, collect
from orderdep.analysis.pradet.datadeps import CROWDED, TestAccess, matching
from orderdep.core.outcomes import OrderResult
from orderdep.core.suite import GroupLevel
from orderdep.engine.executor import Executor
from orderdep.errors import EngineError, ReportError


@dataclass
class WriterHints:
    """Which tests wrote each root, and what each test read, in one probed run."""

    reads: dict[str, frozenset[str]] = field(default_factory=dict)
    writers: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def from_accesses(cls, seq: Sequence[TestAccess]) -> WriterHints:
        hints = cls()
        for access in seq:
            hints.reads[access.test] = hints.reads.get(access.test, frozenset()) | access.reads
            for root in access.writes:
                hints.writers.setdefault(root, set()).add(access.test)
        return hints

    def roots_read(self, test: str) -> set[str]:
        """The written roots ``test`` read (wildcards matched), crowded ones last resort."""
        roots = {
            root
            for read in self.reads.get(test, ())
            for root in matching(read, self.writers)
            if root in self.writers
        }
        quiet = {r for r in roots if len(self.writers[r] - {test}) <= CROWDED}
        return quiet or roots

    def hint(self, test: str, recorded: Sequence[str]) -> Optional[list[str]]:
        """The tests before ``test`` in ``recorded`` that wrote a root it read, in their
        order; None when there is none, or when that is every test before it (no help)."""
        if test not in recorded:
            return None
        prefix = list(recorded[: list(recorded).index(test)])
        wrote: set[str] = set()
        for root in self.roots_read(test):
            wrote |= self.writers[root]
        hint = [t for t in prefix if t in wrote and t != test]
        return hint if 0 < len(hint) < len(prefix) else None


#: The name the probed search orders go by in a report's strategies.
PROBED_STRATEGY = "probed"
#: Suites of at least this many tests, one order of which takes at least
#: :data:`GUIDED_MIN_SECONDS`, are searched and confirmed guided unless told otherwise
#: (``--no-guided``): below either, group testing over a prefix is cheap enough, and the
#: probe's cost on every probed order is not (parso's 1,351 tests, 4.6 s an order: 17
#: whole orders guided where pytest-randomly ran 20 in the same time, 22 unguided).
GUIDED_MIN_TESTS = 1000
GUIDED_MIN_SECONDS = 30.0
#: Share of what is left of the budget the probed runs may take before they are killed.
#: They are search orders the search would have run anyway, at a fifth more each, and
#: they spare confirmation group testing over thousands of tests; the rest is kept for
#: confirming and classifying what they show.
PROBE_SHARE = 0.65
#: A probed run's time: the unprobed order's, times this, plus :data:`PROBE_PER_TEST`
#: seconds per test (docs/benchmarks.md, "Collection overhead" and "PRADET at scale":
#: 0.8-3.4 ms per test on top of the order, whatever the tests do).
PROBE_COST = 1.2
PROBE_PER_TEST = 0.005


def collect_hints(
    executor: Executor,
    order: Sequence[str],
    budget_left: Optional[float],
    say: Callable[[str], None],
    order_seconds: Optional[float] = None,
    *,
    jobs: int = 1,
    seed: int = 0,
    group: GroupLevel = "class",
) -> Optional[tuple[WriterHints, list[OrderResult]]]:
    """Search orders run under the state probe, and the hints they give: the reverse of
    ``order`` (the original order, whose outcomes the search has already), and with two
    or more ``jobs`` one random order beside it, so no worker waits. Their outcomes are
    returned as search orders: a victim whose polluter runs after it in the original
    order fails in its reverse. Confirmation never counts them (it observes every order a
    finding names without the probe).

    None (said why) when the probed runs would not fit :data:`PROBE_SHARE` of
    ``budget_left`` (``order_seconds``: what ``order`` took unprobed), did not finish
    within it, or the probe failed."""
    share = None if budget_left is None else max(0.0, budget_left) * PROBE_SHARE
    needs = None if order_seconds is None else order_seconds * PROBE_COST
    needs = None if needs is None else needs + PROBE_PER_TEST * len(order)
    if share is not None and needs is not None and needs > share:
        say(
            f"orderdep: --guided: no probed run: it would take about {needs:.0f} s, more than "
            f"the {share:.0f} s of the budget it may use (a larger --budget leaves it room); "
            "confirming without data dependencies"
        )
        return None
    extra = 1 if jobs > 1 and len(order) > 1 else 0
    runs = "the reverse of the original order" + (" and one random order" if extra else "")
    say(
        f"orderdep: --guided: {runs} ({len(order)} tests) run under the state probe, which "
        "records which tests write what each test reads"
        + (f" (at most {share:.0f} s)" if share is not None else "")
    )
    deadline = None if share is None else time.monotonic() + share
    try:
        collected = collect(
            executor,
            list(order)[::-1],
            also_reverse=False,
            jobs=jobs,
            extra_orders=extra,
            seed=seed,
            group=group,
            deadline=deadline,
        )
    except (CollectionStopped, EngineError, ReportError) as exc:
        say(f"orderdep: --guided: no data dependencies ({exc}); confirming without them")
        return None
    accesses = [a for c in collected.collections for a in c.accesses]
    hints = WriterHints.from_accesses(accesses)
    say(
        f"orderdep: --guided: {len(hints.reads)} tests read, {len(hints.writers)} roots "
        "written; suspects are shortened from the writers of what they read first"
    )
    return hints, [c.reference() for c in collected.collections]
