"""A fork server that forks before collection, for suites that start threads as they load.

Forking a process with other threads alive is unsafe (a lock another thread held stays
held in the child), so when threads are alive once the suite is collected the fork
server refuses (:mod:`orderdep.engine.forkserver`). Those threads are started by the
suite's own imports: a conftest, a test module, a plugin of the project. Before any of
them is imported, the process has one thread, and forking is safe. :func:`serve` runs in
a pytest process once its plugins are loaded and before any conftest is imported
(orderdep's ``pytest_load_initial_conftests``, first of its kind): it answers order
requests by forking a child that goes on with pytest's start-up from there (conftests,
collection), collects the suite,
runs the order and leaves, as a fresh ``python -m pytest`` would; the interpreter's
start, pytest's imports and its own set-up are paid once, not per order.

Protocol (the fork server's, JSON lines): ``{"ready": true}`` once listening; for each
request ``{"order", "events", "probe", "reference"}`` the child's ``{"pid": N}``, then
``{"status": S}`` (its wait status) when it has ended. Differences from a fresh process:
the ``str`` hash seed is the server's in every child (as under the fork runner), and the
global random generator is reseeded from the OS in each child.
"""

from __future__ import annotations

import json
import os
import random
import signal
import threading
from typing import Any

from orderdep.engine import threadwatch
from orderdep.engine.forkserver import Requests, kill_group, send


def serve(control: dict[str, Any]) -> dict[str, Any]:
    """Answer requests until the request pipe closes (then leave the process); in each
    forked child, return the control of a ``run`` of its order."""
    rfd, wfd = control["fds"]
    inbox = Requests(rfd)
    outbox = os.fdopen(wfd, "w", encoding="utf-8")
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the controller stops us
    alive = threadwatch.blocking_fork(threading.main_thread())
    if alive:  # a plugin started them as it loaded: forking here is no safer
        send(
            outbox,
            {
                "fork": False,
                "reason": "threads are alive once plugins are loaded: " + ", ".join(alive),
            },
        )
        os._exit(0)
    send(outbox, {"ready": True})
    while line := inbox.readline():
        if not line.strip():
            continue
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)  # its own group: what its tests start is killed with it
            inbox.close()
            outbox.close()
            signal.signal(signal.SIGINT, previous)
            random.seed()  # a fresh process draws its own state
            base = {k: v for k, v in control.items() if k != "fds"}
            return {**base, **request, "mode": "run"}
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass
        send(outbox, {"pid": pid})
        status = inbox.wait_child(pid)
        kill_group(pid)
        if status is None:  # the controller is gone
            break
        send(outbox, {"status": status})
    os._exit(0)


__all__ = ["serve"]
