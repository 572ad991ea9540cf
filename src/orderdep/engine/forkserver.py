"""The fork server: a pytest process that collected the suite once and forks a child per order.

The server never runs a test. Each child is forked ahead of its order (while the
previous order runs); it starts from the collected-but-not-run state (every test module
imported, no fixture set up) and is made to look like a fresh ``python -m pytest`` that
has just collected (see :mod:`~orderdep.engine.childstate`). It copies in advance the
memory pages orders usually write (see :mod:`~orderdep.engine.prefault`), waits for its
order, then unwinds its stack back to the child plugin's run loop by raising
:class:`ChildOrder`, so its tests run at the same stack depth as under pytest's own loop,
and leaves with ``os._exit`` after running the exit handlers its tests registered.
Nothing a child does reaches the server or the next child: each has its own copy of the
interpreter (files on disk are restored by the controller, see
:mod:`~orderdep.engine.sandbox`).

Protocol on two inherited pipes (JSON lines): the server first sends ``{"ready": true}``
(or ``{"fork": false, "reason": ...}`` when forking is unsafe); then for each request
``{"order", "events", "probe"}`` it answers ``{"pid": N}`` at once and
``{"status": S}`` when the child has ended (``S`` is the raw wait status). When the
request pipe closes while an order runs (the controller closed it, or died), the order's
process group is killed at once and the server leaves: no test runs for a controller
that is gone.
"""

from __future__ import annotations

import atexit
import faulthandler
import gc
import io
import json
import os
import select
import signal
import sys
import threading
import tokenize
import warnings
from pathlib import Path
from typing import IO, Any, Optional

import pytest

from orderdep.engine import prefault, threadwatch
from orderdep.engine.childrun import OrderRun, Recorder, items_by_id, load_probe
from orderdep.engine.childstate import ServerState
from orderdep.engine.protocol import EventWriter
from orderdep.engine.pytest_compat import current_exception, root_path


def send(out: IO[str], message: dict[str, Any]) -> None:
    out.write(json.dumps(message) + "\n")
    out.flush()


def kill_group(pid: int) -> None:
    try:  # processes the order's tests started never outlive it
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Requests:
    """The request pipe, read from its descriptor: the server waits for a child's end and
    for the pipe's end together (:meth:`wait_child`)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.closed = False

    def readline(self) -> bytes:
        """The next request line; empty at the end of the pipe."""
        while b"\n" not in self.buffer:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                line, self.buffer = self.buffer, b""
                return line
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line + b"\n"

    def wait_child(self, pid: int) -> Optional[int]:
        """The wait status of child ``pid``, or None when the pipe ended first: then the
        child's process group is killed (and the child reaped)."""
        try:
            watch = os.pidfd_open(pid) if not self.buffer else -1
        except (AttributeError, OSError):  # no pidfd (not Linux 5.3+): wait for the child
            watch = -1
        if watch < 0:
            return os.waitpid(pid, 0)[1]
        try:
            ready, _, _ = select.select([watch, self.fd], [], [])
            if watch not in ready:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    kill_group(pid)
                    os.waitpid(pid, 0)
                    return None
                self.buffer += chunk  # a request before the reply: not expected, but kept
            return os.waitpid(pid, 0)[1]
        finally:
            os.close(watch)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            os.close(self.fd)


class ChildOrder(BaseException):
    """Raised in a forked child once its order has arrived, to unwind the server's frames.

    The child plugin's run loop catches it and runs :attr:`run` there, then calls
    :meth:`exit`. A ``BaseException``: nothing on the way may swallow it.
    """

    def __init__(self, run: OrderRun, learn: Optional[str], owned_before: set[int]) -> None:
        super().__init__("forked child")
        self.run = run
        self.learn = learn
        self.owned_before = owned_before

    def exit(self, code: int) -> None:
        """Leave the child: learned pages written, exit handlers run, streams flushed."""
        try:
            self.run.recorder.writer.close()
            if self.learn:
                fresh = [p for p in prefault.owned_pages() if p not in self.owned_before]
                prefault.write_pages(self.learn, fresh)
            # Handlers the order's tests registered, as a fresh process runs them at its
            # end; those inherited from collection were cleared when the child started.
            atexit._run_exitfuncs()
        except BaseException:
            code = code or 3
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)


class _Server:
    """Forks one child per order, each ahead of its request (see the module docstring)."""

    def __init__(
        self,
        session: pytest.Session,
        scratch: str,
        recorder: Recorder,
        closing: list[Any],
        state: ServerState,
    ) -> None:
        self.session = session
        self.state = state
        self.scratch = scratch
        self.recorder = recorder
        self.closing = closing
        # Built once here, not per child: touching every item in a child would make it
        # copy the pages they live on.
        self.by_id = items_by_id(session)
        self.learner = prefault.Learner() if prefault.supported() else None
        self.pages_file = str(Path(scratch) / "pages")
        self.spawned = 0

    def spawn(self) -> tuple[int, int, bool]:
        """Fork the next child (returns its pid, its request pipe and whether it learns).

        It is forked while the previous order runs, so forking, preparing and
        pre-faulting it overlap with that order and the controller's work after it.
        """
        learner = self.learner
        learn = learner is not None and learner.wants(self.spawned)
        self.spawned += 1
        # A learning child must not pre-fault: it has to see every page its order writes.
        ranges = learner.ranges if learner is not None and not learn else []
        rfd, wfd = os.pipe()
        with warnings.catch_warnings():  # a listening thread (threadwatch.listening) is safe
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)  # its own group: what its tests start is killed with it
            os.close(wfd)
            for fh in self.closing:
                fh.close()
            self.child(rfd, ranges, self.pages_file if learn else None)
        try:  # also here, so the group exists before the controller may kill it
            os.setpgid(pid, pid)
        except OSError:
            pass
        os.close(rfd)
        return pid, wfd, learn

    def child(self, rfd: int, ranges: list[prefault.Range], learn: Optional[str]) -> None:
        """In a pre-forked child: get ready, wait for an order on ``rfd``, then raise
        :class:`ChildOrder` (or leave, when the server is shutting down).

        A learning child (``learn`` names a file) records which pages the order itself
        made it copy, for the server to pre-fault in later children.
        """
        session, recorder = self.session, self.recorder
        try:
            self.state.enter_child(session, self.scratch)
            prefault.populate(ranges)
            owned_before = set(prefault.owned_pages()) if learn else set()
            with os.fdopen(rfd, "r", encoding="utf-8") as requests:
                line = requests.readline()
            if not line.strip():  # EOF: the server is shutting down; this child is not needed
                os._exit(0)
            request = json.loads(line)
            recorder.writer = EventWriter(Path(request["events"]))
            probe = load_probe(request.get("probe"), str(root_path(session.config)))
            reference = request.get("reference")  # ids of another collection (volatile ids)
            run = OrderRun(session, request["order"], recorder, probe, self.by_id, reference)
        except BaseException:  # the child must never return into the server's loop
            os._exit(3)
        raise ChildOrder(run, learn, owned_before)

    def learn_from(self, learned: bool) -> None:
        if learned and self.learner is not None:
            self.learner.add(prefault.read_pages(self.pages_file))
            Path(self.pages_file).unlink(missing_ok=True)


def _warm_failure_reports() -> None:
    """Fill, once in the server, the caches a failure report needs in every child.

    Formatting a failed test's traceback maps every loaded module to its file
    (``inspect.getmodule``, about 10 ms with a few hundred modules) and compiles
    ``tokenize``'s regular expressions; a fresh child would redo both at its first
    failure. These caches are derived from what is loaded, so a warm child reports
    exactly what a cold one would. No test or hook runs: this formats an exception
    raised right here.
    """
    try:
        raise AssertionError("orderdep: warming up failure reports")
    except AssertionError:
        excinfo = current_exception()
    for style in ("long", "short"):
        try:
            excinfo.getrepr(style=style)
        except Exception:  # a cache left cold only costs time
            pass
    try:  # pytest finds the extent of a failing statement with tokenize
        list(tokenize.generate_tokens(io.StringIO("if x:\n    y = 1\n").readline))
    except Exception:
        pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def serve(
    session: pytest.Session,
    control: dict[str, Any],
    recorder: Recorder,
    collected: Optional[set[str]] = None,
    rng_states: Optional[dict[str, Any]] = None,
) -> None:
    """Answer order requests until the request pipe closes.

    ``collected``: the names in ``sys.modules`` once the suite was collected; what the
    server imports after that is hidden from children. ``rng_states``: the global random
    generators the suite seeded while collected, with their states after it
    (:class:`orderdep.engine.seeds.SeedWatch`).
    """
    rfd, wfd = control["fds"]
    inbox = Requests(rfd)
    outbox = os.fdopen(wfd, "w", encoding="utf-8")
    state = ServerState.capture()
    state.rng_states = dict(rng_states or {})
    if collected is not None:
        state.forget_modules_since(collected)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    faulthandler.cancel_dump_traceback_later()  # a watchdog armed at import would kill us
    extra_threads = threadwatch.blocking_fork(threading.main_thread())
    if not hasattr(os, "fork") or extra_threads:
        reason = (
            "os.fork is not available"
            if not hasattr(os, "fork")
            else ("threads are alive after collection: " + ", ".join(extra_threads))
        )
        send(outbox, {"fork": False, "reason": reason})
        return
    server = _Server(session, str(control["scratch"]), recorder, [inbox, outbox], state)
    _warm_failure_reports()
    gc.collect()
    gc.freeze()  # keep collected objects out of the children's collections (copy-on-write)
    send(outbox, {"ready": True})
    pid, child_in, learning = server.spawn()
    while line := inbox.readline():
        if not line.strip():
            continue
        _write_all(child_in, line.rstrip(b"\n") + b"\n")
        os.close(child_in)
        send(outbox, {"pid": pid})
        running, learned = pid, learning
        pid, child_in, learning = server.spawn()  # the next child, while this order runs
        status = inbox.wait_child(running)
        kill_group(running)
        if status is None:  # the controller is gone
            break
        send(outbox, {"status": status})
        server.learn_from(learned)
    os.close(child_in)  # the waiting child reads EOF and leaves
    os.waitpid(pid, 0)
    # The server never ran a test, so there is nothing to tear down or report: skip
    # pytest's session finish (plugins' shutdown can cost a second per server).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
