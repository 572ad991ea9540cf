"""How long one test may run before the engine kills its process group.

A limit is per test, like pytest-timeout's: ``--timeout S`` gives every test ``S``
seconds. Without it, each test gets a limit derived from what was seen of it:

    FACTOR x (its longest duration seen) + FLOOR + (the longest duration of any test)

The last term makes room for set-up work that another order moves onto this test (a
session fixture built by whichever test runs first). A test not yet seen gets
:data:`UNSEEN` seconds, so the first order of a run (the original order, which every
command runs first) bounds a hang too; after it, every test has a limit of a few seconds.
A test that overran :data:`UNSEEN` without ever finishing is taken for a hang: it gets
the limit of a test that takes no time, so it costs seconds, not a minute, in each later
order (give ``--timeout`` for a test that really runs that long).
Durations come from every finished test of every order, including results reused from
the store, and only grow, so a limit never shrinks below what the test once needed.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable
from typing import Optional

from orderdep.core.outcomes import Outcome, TestResult

FACTOR = 10.0
FLOOR = 5.0
UNSEEN = 60.0
# Before the first test starts (interpreter start-up, imports, collection).
STARTUP = 300.0
# Added to every limit of an order run with a probe: capturing the state around a test
# (a module-level data set of thousands of arrays) can take far longer than the test. Once
# an order with a probe overran even that, the probe is taken to hang there, and later
# orders get no slack: it would only make each of them wait longer.
PROBE_SLACK = 30.0


class TimeoutPolicy:
    """Per-test limits: one explicit limit for all, or one learned per test."""

    def __init__(self, explicit: Optional[float] = None) -> None:
        if explicit is not None and not (math.isfinite(explicit) and explicit > 0):
            raise ValueError(f"a timeout must be a positive number of seconds, got {explicit!r}")
        self.explicit = explicit
        self._durations: dict[str, float] = {}
        self._slowest = 0.0
        self._hung: set[str] = set()
        self._lock = threading.Lock()
        self.probe_extra = PROBE_SLACK  # see PROBE_SLACK

    def slack_for(self, probe: object) -> float:
        """Seconds added to each limit of an order run with ``probe`` (None: none)."""
        return self.probe_extra if probe is not None else 0.0

    def probe_ran(self, results: Iterable[TestResult]) -> None:
        """An order with a probe ended: one that overran its limits ends the slack."""
        if any(r.outcome is Outcome.TIMEOUT for r in results):
            self.probe_extra = 0.0

    def learn(self, results: Iterable[TestResult]) -> None:
        """Remember the duration of every test that finished (not killed, not skipped over)."""
        with self._lock:
            for r in results:
                if r.outcome is Outcome.TIMEOUT and r.test not in self._durations:
                    self._hung.add(r.test)
                if r.outcome in (Outcome.TIMEOUT, Outcome.CRASHED, Outcome.NOT_RUN):
                    continue
                if r.duration > self._durations.get(r.test, -1.0):
                    self._durations[r.test] = r.duration
                self._slowest = max(self._slowest, r.duration)

    def known(self, test: str) -> Optional[float]:
        """The longest duration seen of ``test`` (None: never seen finishing)."""
        return self._durations.get(test)

    def limit(self, test: str) -> float:
        """Seconds ``test`` may run (set-up, call and tear-down) before it is killed."""
        if self.explicit is not None:
            return self.explicit
        seen = self._durations.get(test)
        if seen is None:
            return FLOOR + self._slowest if test in self._hung else UNSEEN
        return FACTOR * seen + FLOOR + self._slowest

    def gap_limit(self) -> float:
        """Seconds allowed between one test's end and the next test's start (or the end
        of the process): fixture tear-down at the end of a module or session."""
        if self.explicit is not None:
            return self.explicit
        return FLOOR + self._slowest

    def describe(self) -> str:
        """One line for a command's header."""
        if self.explicit is not None:
            return f"timeout: {self.explicit:g} s per test (--timeout)"
        return (
            f"timeout per test: {FACTOR:g}x its duration + {FLOOR:g} s + the slowest "
            f"test's duration ({UNSEEN:g} s until first timed); --timeout S sets one limit"
        )
