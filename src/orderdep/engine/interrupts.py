"""Killing what orderdep started: the process group an order runs in, the sessions of the
pytest processes the engine starts, and runners whose order can be killed from another
thread (a budget running out, Ctrl-C).

Every pytest process the engine starts leads a session of its own
(:func:`start_session`), and the session is registered until its processes are known to
be gone. :func:`sweep`, run by the command line as it ends, kills whatever is still
alive in a registered session: the last line of defence when a stop signal arrived at a
moment the engine's own clean-up did not cover. The kernel never gives a pid to a new
process while it still names a session, so a registered session id that has members is
always one of ours.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import IO, Any, Callable, Optional

from orderdep.core.outcomes import Outcome
from orderdep.engine.testclock import TestClock

#: Signals that stop orderdep; held back while a process is started and registered.
HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_sessions: set[int] = set()
_sessions_lock = threading.Lock()


def kill_group(pid: int) -> None:
    """Kill the process group led by ``pid`` (an order's process and what it started)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _session_members(sessions: set[int]) -> list[int]:
    """Live processes (zombies excluded) in any of ``sessions``, from ``/proc``."""
    found = []
    try:
        entries = list(Path("/proc").iterdir())
    except OSError:
        return []
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text(errors="replace").rpartition(")")[2].split()
            state, sid = fields[0], int(fields[3])
        except (OSError, IndexError, ValueError):
            continue
        if sid in sessions and state != "Z":
            found.append(int(entry.name))
    return found


def kill_session(sid: int) -> None:
    """Kill every process in session ``sid`` (its leader's group and any other group in it,
    such as the fork server's children); without ``/proc``, the leader's group only."""
    kill_group(sid)
    for pid in _session_members({sid}):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@contextmanager
def _signals_held() -> Iterator[None]:
    """Stop signals wait until the block has ended (main thread; elsewhere they never
    interrupt anyway): a process started inside is registered before they unwind."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame: Optional[FrameType]) -> None:
        caught.append(signum)

    previous = {sig: signal.getsignal(sig) for sig in HELD_SIGNALS}
    held = {sig: handler for sig, handler in previous.items() if callable(handler)}
    for sig in held:
        signal.signal(sig, hold)
    try:
        yield
    finally:
        for sig, handler in held.items():
            signal.signal(sig, handler)
        if caught:  # the first one unwinds as it would have a moment earlier
            handler = held[signal.Signals(caught[0])]
            handler(caught[0], None)


def start_session(cmd: list[str], **popen: Any) -> subprocess.Popen[bytes]:
    """Start ``cmd`` as the leader of a new session, registered for :func:`sweep` until
    :func:`release`; no stop signal can come between its start and its registration."""
    with _signals_held():
        proc: subprocess.Popen[bytes] = subprocess.Popen(cmd, start_new_session=True, **popen)
        with _sessions_lock:
            _sessions.add(proc.pid)
    return proc


def release(pid: int) -> None:
    """Session ``pid`` is gone (its leader was reaped after its group was killed)."""
    with _sessions_lock:
        _sessions.discard(pid)


def registered() -> set[int]:
    """The sessions registered now (to leave out of a later :func:`sweep`)."""
    with _sessions_lock:
        return set(_sessions)


def sweep(keep: Collection[int] = ()) -> int:
    """Kill every process still alive in a registered session but those in ``keep``;
    returns how many there were."""
    with _sessions_lock:
        sessions = _sessions - set(keep)
        _sessions.difference_update(sessions)
    if not sessions:
        return 0
    left = _session_members(sessions)
    for sid in sessions:  # also without /proc: the leaders' groups
        kill_group(sid)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return len(left)


def run_session(cmd: list[str], **popen: Any) -> int:
    """Run ``cmd`` to its end in a session of its own; what it started is killed with it.
    Returns its exit status."""
    proc = start_session(cmd, **popen)
    try:
        return proc.wait()
    finally:
        kill_group(proc.pid)
        proc.wait()
        release(proc.pid)


def run_in_group(
    cmd: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    log: IO[Any],
    clock: TestClock,
    on_start: Optional[Callable[[int], None]] = None,
) -> Outcome:
    """Run ``cmd`` (an order) as the leader of a new session and kill its whole group
    when it ends, so processes its tests started never outlive it. Returns the outcome of
    a test left without a result: ``timeout`` when a test overran its limit (``clock``),
    else ``crashed``."""
    proc = start_session(
        cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
    )
    died = Outcome.CRASHED
    try:
        if on_start is not None:
            on_start(proc.pid)
        while True:
            try:
                proc.wait(timeout=clock.wait_for())
                break
            except subprocess.TimeoutExpired:
                if clock.overdue():
                    died = Outcome.TIMEOUT
                    break
    finally:
        kill_group(proc.pid)
        proc.wait()
        release(proc.pid)
    return died


class Interruptible:
    """A runner of one order at a time whose order can be killed from another thread.

    An interrupt that comes while the order's process is being started is not lost: the
    process is killed as soon as it is known (:meth:`_started`). While blocked
    (:meth:`block`), every order is killed as it starts: a thread that was about to start
    one when the others were told to stop cannot run it whole.
    """

    def __init__(self) -> None:
        self._current = 0  # the process group of the order running now
        self._running = False
        self._interrupted = False
        self._blocked = False
        self._guard = threading.Lock()

    def _begin(self) -> None:
        """An order starts (before its process does)."""
        with self._guard:
            self._running, self._interrupted = True, self._blocked

    def _started(self, pid: int) -> None:
        """The order's process (the leader of its process group) is ``pid``."""
        with self._guard:
            self._current = pid
            if self._interrupted:
                kill_group(pid)

    def _ended(self) -> None:
        with self._guard:
            self._current = 0
            self._running = False

    def _take_interrupted(self) -> bool:
        """Whether the order that just ended was interrupted (and forget it)."""
        with self._guard:
            was, self._interrupted = self._interrupted, False
        return was

    def interrupt(self) -> None:
        """Kill the order running now (from another thread); its result is marked interrupted."""
        with self._guard:
            if not self._running:
                return
            self._interrupted = True
            if self._current:
                kill_group(self._current)

    def block(self) -> None:
        """Kill the order running now and every order started until :meth:`unblock`."""
        with self._guard:
            self._blocked = True
        self.interrupt()

    def unblock(self) -> None:
        with self._guard:
            self._blocked = False


@contextmanager
def called_after(seconds: Optional[float], action: Callable[[], None]) -> Iterator[None]:
    """Call ``action`` (from a daemon thread) ``seconds`` from now, unless the block has
    ended by then (None: never)."""
    timer = None
    if seconds is not None:
        timer = threading.Timer(max(0.0, seconds), action)
        timer.daemon = True
        timer.start()
    try:
        yield
    finally:
        if timer is not None:
            timer.cancel()


@contextmanager
def stopped_after(runner: Interruptible, seconds: Optional[float]) -> Iterator[None]:
    """Kill ``runner``'s order still running ``seconds`` from now, and every order it
    starts after that, until the block ends (None: no limit): for work whose runs a
    budget bounds but cannot stop between them."""
    try:
        with called_after(seconds, runner.block):
            yield
    finally:
        runner.unblock()
