"""Killing an order's processes: the process group it runs in, and runners whose order
can be killed from another thread (a budget running out, Ctrl-C)."""

from __future__ import annotations

import os
import signal


def kill_group(pid: int) -> None:
    """Kill the process group led by ``pid`` (an order's process and what it started)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Interruptible:
    """A runner of one order at a time whose order can be killed from another thread."""

    def __init__(self) -> None:
        self._current = 0  # the process group of the order running now
        self._interrupted = False

    def _started(self, pid: int) -> None:
        self._current = pid

    def _take_interrupted(self) -> bool:
        """Whether the order that just ended was interrupted (and forget it)."""
        was, self._interrupted = self._interrupted, False
        return was

    def interrupt(self) -> None:
        """Kill the order running now (from another thread); its result is marked interrupted."""
        self._interrupted = True
        pid = self._current
        if pid:
            kill_group(pid)
