"""A time after which the engine starts no more orders, for work that cannot check a
budget between its runs.

A repair debugs, screens and verifies candidates, each step running orders in the
project and in patched copies through engines of its own; a command's ``--budget`` is
kept by :func:`runs_until`: inside it, every engine of this process refuses to start an
order after the given time (``time.monotonic()``) with
:class:`~orderdep.errors.OutOfTime`, which the command catches. Orders already running
finish; an order costs one order past the time at most.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Optional

from orderdep.errors import OutOfTime

_lock = threading.Lock()
_stop_at: list[Optional[float]] = [None]  # one per process: engines run in threads too


@contextlib.contextmanager
def runs_until(at: Optional[float]) -> Iterator[None]:
    """Refuse orders started after ``at`` (a ``time.monotonic()`` value; None: no limit)
    while the block runs; the limit outside it is back afterwards."""
    with _lock:
        before = _stop_at[0]
        if at is not None:
            _stop_at[0] = at if before is None else min(at, before)
    try:
        yield
    finally:
        with _lock:
            _stop_at[0] = before


def check() -> None:
    """Raise :class:`~orderdep.errors.OutOfTime` when the time of :func:`runs_until` is past."""
    at = _stop_at[0]
    if at is not None and time.monotonic() >= at:
        raise OutOfTime("the budget ended: no more orders are started")
