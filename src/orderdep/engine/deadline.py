"""A time after which the engine starts no more orders, for work that cannot check a
budget between its runs.

A repair debugs, screens and verifies candidates, each step running orders in the
project and in patched copies through engines of its own; a command's ``--budget`` is
kept by :func:`runs_until`: inside it, every engine of this process refuses to start an
order after the given time (``time.monotonic()``) with
:class:`~orderdep.errors.OutOfTime`, which the command catches. An order still running
at that time is killed (every engine of the process is :func:`watch`-ed), and the engine
raises the same error for it: a suite whose single order outlasts the budget ends with
it, not an order later.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Callable, Optional, Protocol

from orderdep.engine.interrupts import called_after
from orderdep.errors import OutOfTime

_lock = threading.Lock()
_stop_at: list[Optional[float]] = [None]  # one per process: engines run in threads too


class Stoppable(Protocol):
    def interrupt(self) -> None:
        """Kill the orders running now (from another thread)."""


_watched: weakref.WeakSet[Stoppable] = weakref.WeakSet()


def watch(engine: Stoppable) -> None:
    """Kill ``engine``'s running orders when the time of a :func:`runs_until` comes."""
    with _lock:
        _watched.add(engine)


def _nothing() -> None:
    pass


def _expire(at: float) -> None:
    """The timer of a :func:`runs_until`: kill what runs, if ``at`` is still the limit."""
    with _lock:
        if _stop_at[0] != at:
            return
        engines = list(_watched)
    for engine in engines:
        engine.interrupt()


@contextlib.contextmanager
def runs_until(at: Optional[float]) -> Iterator[None]:
    """Refuse orders started after ``at`` (a ``time.monotonic()`` value; None: no limit)
    while the block runs, and kill the orders still running at ``at``; the limit outside
    it is back afterwards."""
    with _lock:
        before = _stop_at[0]
        if at is not None:
            _stop_at[0] = at if before is None else min(at, before)
        limit = _stop_at[0]
    seconds: Optional[float] = None
    action: Callable[[], None] = _nothing
    if at is not None and limit == at:
        seconds, action = at - time.monotonic(), functools.partial(_expire, at)
    try:
        with called_after(seconds, action):
            yield
    finally:
        with _lock:
            _stop_at[0] = before


def passed() -> bool:
    """Whether the time of :func:`runs_until` has come."""
    at = _stop_at[0]
    return at is not None and time.monotonic() >= at


def check() -> None:
    """Raise :class:`~orderdep.errors.OutOfTime` when the time of :func:`runs_until` is past."""
    if passed():
        raise OutOfTime("the budget ended: no more orders are started")
