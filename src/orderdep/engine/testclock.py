"""Watching a running order's events for a test that overran its limit.

The child appends a ``start`` event (with the time) before each test and a ``result``
event after it (:mod:`orderdep.engine.protocol`). The controller waits for the order to
end, waking at most every :data:`POLL` seconds to read the events appended since: each
moves the deadline on; a deadline passed means the test (or the tear-down after the last
one, or start-up before the first) overran its limit, and the order's process group is
killed. An order that ends within :data:`POLL` seconds is never read early, so the watch
costs nothing on fast orders.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import NamedTuple, Optional

from orderdep.engine import timeouts
from orderdep.engine.timeouts import TimeoutPolicy

POLL = 0.5


class Progress(NamedTuple):
    """How far a running order got: its tests that ended, the seconds since it started,
    and the seconds since its first test started (None before one did; start-up and
    collection come before it)."""

    finished: int
    seconds: float
    testing: Optional[float] = None

    @property
    def tests_seconds(self) -> float:
        """The seconds its tests took so far (all of them, when unknown)."""
        return self.seconds if self.testing is None else self.testing


class TestClock:
    """The deadline of whatever an order's process is doing now."""

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        events: Path,
        policy: TimeoutPolicy,
        *,
        startup: Optional[float] = None,
        extra: float = 0.0,
    ) -> None:
        self.events = events
        self.policy = policy
        self.extra = extra  # seconds added to every limit (a probe's work around tests)
        self._offset = 0
        self._partial = b""
        self.started = time.monotonic()
        #: Tests of the order that ended, as far as the events read so far tell.
        self.finished = 0
        #: When its first test started (None until the events tell).
        self.first_start: Optional[float] = None
        limit = timeouts.STARTUP if startup is None else startup
        self.deadline = time.monotonic() + limit

    def _read_new(self) -> bool:
        """Read events appended since the last look; True if any arrived."""
        try:
            with open(self.events, "rb") as fh:
                fh.seek(self._offset)
                data = fh.read()
        except FileNotFoundError:
            return False
        if not data:
            return False
        self._offset += len(data)
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        moved = False
        for line in lines:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            kind = event.get("event")
            # When the event happened (the monotonic clock is system-wide), else now.
            at = float(event.get("t") or time.monotonic())
            if kind == "start":
                if self.first_start is None:
                    self.first_start = at
                self.deadline = at + self.policy.limit(str(event.get("test", ""))) + self.extra
                moved = True
            elif kind == "result":
                self.deadline = at + self.policy.gap_limit() + self.extra
                self.finished += 1
                moved = True
        return moved

    def progress(self) -> Progress:
        """How far the order got, as the events read so far tell."""
        now = time.monotonic()
        testing = None if self.first_start is None else max(0.0, now - self.first_start)
        return Progress(self.finished, now - self.started, testing)

    def wait_for(self) -> float:
        """Seconds to wait for the order before asking :meth:`overdue`."""
        return min(POLL, max(0.0, self.deadline - time.monotonic()))

    def overdue(self) -> bool:
        """Read the new events; True when the deadline they give has passed."""
        self._read_new()
        return time.monotonic() >= self.deadline
