"""The worker of a fork server that forks before collection (see :mod:`.prefork`)."""

from __future__ import annotations

import os

from orderdep.core.suite import Suite
from orderdep.engine.workers import ForkUnavailable, ForkWorker
from orderdep.errors import EngineError

# Seconds a server that forks before collection may take to start listening.
READY_WAIT = 120.0


class PreforkWorker(ForkWorker):
    """Each order in a child forked before collection: it collects the suite and runs the
    order as a fresh ``python -m pytest`` does, without starting Python and pytest."""

    runner = "prefork"

    def start(self) -> Suite:
        if not hasattr(os, "fork"):
            raise ForkUnavailable("os.fork is not available on this platform")
        self.sandbox.create()
        suite = self._collect_fresh()  # the suite, once, as a fresh pytest collects it
        control, events = self._spawn("prefork")
        try:
            first = self._read(READY_WAIT)
        except BaseException:
            self.close(kill=True)
            raise
        control.unlink(missing_ok=True)
        events.unlink(missing_ok=True)
        if first is not None and first.get("fork") is False:
            self.close(kill=True)
            raise ForkUnavailable(str(first.get("reason", "the server cannot fork")))
        if first is None or not first.get("ready"):
            self.close(kill=True)
            raise EngineError(
                "the server that forks before collection did not start; pytest output:\n"
                + self._log_tail()[-3000:]
            )
        return suite


__all__ = ["PreforkWorker"]
