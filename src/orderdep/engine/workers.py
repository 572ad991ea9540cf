"""The two backends: a fresh pytest process per order, or a fork per order from a server.

A worker owns one :class:`~orderdep.engine.sandbox.Sandbox` and runs one order at a time;
the engine runs several workers for ``--jobs N``.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, Optional

from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.core.suite import Suite
from orderdep.engine.collected import suite_from_events
from orderdep.engine.config import EngineConfig
from orderdep.engine.interrupts import (
    Interruptible,
    kill_group,
    kill_session,
    release,
    run_in_group,
    run_session,
    start_session,
)
from orderdep.engine.probe import ProbeSpec
from orderdep.engine.protocol import (
    CONTROL_ENV,
    IdChanges,
    assemble_results,
    read_events,
    write_json,
)
from orderdep.engine.sandbox import Sandbox, empty_dir
from orderdep.engine.testclock import Progress, TestClock
from orderdep.engine.timeouts import TimeoutPolicy
from orderdep.errors import EngineError


class _WorkerBase(Interruptible):
    runner = ""

    def __init__(self, config: EngineConfig, sandbox: Sandbox) -> None:
        super().__init__()
        self.config = config
        self.sandbox = sandbox
        # Per-test limits; the engine shares one policy among its workers.
        self.policy = TimeoutPolicy(config.timeout)
        self._n = 0
        self.cache_dir = sandbox.workdir / "pytest_cache"
        self.log_path = sandbox.workdir / "pytest.log"
        # The ids orders name, when they are another collection's (see set_reference).
        self.reference_path = sandbox.workdir / "reference-ids.json"
        self._has_reference = False
        self.collected: Optional[Suite] = None
        self.ids = IdChanges()
        self._clock: Optional[TestClock] = None  # the order running now, watched

    def _watch(self, clock: TestClock) -> TestClock:
        self._clock = clock
        return clock

    def progress(self) -> Optional[Progress]:
        """The order running now: its tests that ended (as its events told at the last
        look, every :data:`~orderdep.engine.testclock.POLL` seconds), the seconds since
        it started and since its first test started; None when none runs."""
        clock = self._clock
        if clock is None:
            return None
        return clock.progress()

    def set_reference(self, ids: Sequence[str], collected: Suite) -> None:
        """Orders name tests by ``ids`` (the engine's first collection); a test process
        that collected some under other ids (volatile parametrize ids) finds them by
        alignment (:func:`orderdep.core.volatile.translate`). A fork server's children
        share its collection: they need the ids only when that collection differs."""
        self.collected = collected
        self._has_reference = not (self.runner == "fork" and list(ids) == collected.ids)
        if self._has_reference:
            write_json(self.reference_path, list(ids))
        else:
            self.reference_path.unlink(missing_ok=True)

    def _reference(self) -> Optional[str]:
        return str(self.reference_path) if self._has_reference else None

    def _new_paths(self) -> tuple[Path, Path]:
        self._n += 1
        return (
            self.sandbox.workdir / f"control-{self._n}.json",
            self.sandbox.workdir / f"events-{self._n}.jsonl",
        )

    def _control(self, mode: str, events: Path, **extra: Any) -> dict[str, Any]:
        """The control file's content; ``argv`` is what the tests see in ``sys.argv[1:]``."""
        copy = (
            {"origin": str(self.sandbox.project), "copy": str(self.sandbox.tree)}
            if self.sandbox.copy
            else {}
        )
        return {
            "mode": mode,
            "events": str(events),
            "argv": list(self.config.pytest_args),
            **copy,
            **extra,
        }

    def _env(self, control: Path) -> dict[str, str]:
        return self.config.child_env({**self.sandbox.env(), CONTROL_ENV: str(control)})

    def _log_tail(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def _finish(
        self,
        order: Sequence[str],
        events_path: Path,
        died: Optional[Outcome],
        started: float,
    ) -> OrderResult:
        events = list(read_events(events_path))
        self.ids.add(events)
        results, probe = assemble_results(order, events, died=died)
        events_path.unlink(missing_ok=True)
        self.sandbox.restore()
        empty_dir(self.cache_dir)  # pytest's cache (config.cache, --lf) must not leak either
        result = OrderResult(
            list(order),
            results,
            runner=self.runner,
            wall_seconds=time.perf_counter() - started,
            probe=probe,
        )
        if self._take_interrupted():
            result.interrupted = True
        return result

    def _collect_fresh(self) -> Suite:
        """The suite as a fresh ``python -m pytest`` collects it in the working copy."""
        control, events = self._new_paths()
        write_json(control, self._control("collect", events))
        with open(self.log_path, "w") as log:
            run_session(
                self.config.pytest_command(self.cache_dir),
                cwd=self.sandbox.tree,
                env=self._env(control),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        suite = suite_from_events(
            list(read_events(events)), self.config, self._log_tail(), self.sandbox.tree
        )
        events.unlink(missing_ok=True)
        control.unlink(missing_ok=True)
        self.sandbox.restore()
        self.sandbox.mark_baseline()
        return suite


class SubprocessWorker(_WorkerBase):
    """One fresh ``python -m pytest`` per order: the reference for correctness."""

    runner = "subprocess"

    def start(self) -> Suite:
        self.sandbox.create()
        return self._collect_fresh()

    def run(self, order: Sequence[str], probe: Optional[ProbeSpec] = None) -> OrderResult:
        control, events = self._new_paths()
        write_json(
            control,
            self._control(
                "run",
                events,
                order=list(order),
                probe=probe.to_json() if probe else None,
                reference=self._reference(),
            ),
        )
        cmd = self.config.pytest_command(self.cache_dir)
        started = time.perf_counter()
        self._begin()
        with open(self.log_path, "w") as log:
            try:
                died = run_in_group(
                    cmd,
                    cwd=self.sandbox.tree,
                    env=self._env(control),
                    log=log,
                    clock=self._watch(
                        TestClock(events, self.policy, extra=self.policy.slack_for(probe))
                    ),
                    on_start=self._started,
                )
            finally:
                self._clock = None
                self._ended()
        # A started test without a result: the process died (or was killed).
        control.unlink(missing_ok=True)
        result = self._finish(order, events, died, started)
        if probe is not None:
            self.policy.probe_ran(result.results)
        return result

    def close(self, kill: bool = False) -> None:
        pass


class ForkUnavailable(Exception):
    """The server could not fork safely; the reason says why."""


class ForkWorker(_WorkerBase):
    """Forks a child per order from a server that collected the suite once."""

    runner = "fork"

    def __init__(self, config: EngineConfig, sandbox: Sandbox) -> None:
        super().__init__(config, sandbox)
        self._proc: Optional[subprocess.Popen[bytes]] = None
        self._to_server: Optional[IO[str]] = None
        self._from_fd: Optional[int] = None
        self._buffer = b""

    def start(self) -> Suite:
        if not hasattr(os, "fork"):
            raise ForkUnavailable("os.fork is not available on this platform")
        self.sandbox.create()
        control, events = self._spawn("serve")
        try:
            return self._serve(control, events)
        except BaseException:  # Ctrl-C while it collects, say: the server goes at once
            self.close(kill=True)
            raise

    def _spawn(self, mode: str, args: Sequence[str] = ()) -> tuple[Path, Path]:
        """Start the server process in ``mode`` with its two pipes; its control file and
        events file."""
        control, events = self._new_paths()
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        write_json(
            control,
            self._control(
                mode,
                events,
                fds=[req_r, rep_w],
                scratch=str(self.sandbox.scratch),
            ),
        )
        log = open(self.log_path, "ab")  # noqa: SIM115  (append: truncating stays safe)
        try:
            self._proc = start_session(
                [*self.config.pytest_command(self.cache_dir), *args],
                cwd=self.sandbox.tree,
                env=self._env(control),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                pass_fds=(req_r, rep_w),
            )
        except BaseException:
            os.close(req_w)
            os.close(rep_r)
            raise
        finally:
            log.close()
            os.close(req_r)
            os.close(rep_w)
        self._to_server = os.fdopen(req_w, "w", encoding="utf-8")
        self._from_fd = rep_r
        return control, events

    def _serve(self, control: Path, events: Path) -> Suite:
        """The collected suite, once the server started by :meth:`start` is ready."""
        assert self._proc is not None
        first = self._read(None)
        if first is None:  # the server ended: collection failed or pytest refused to start
            self._proc.wait()
            suite_from_events(
                list(read_events(events)), self.config, self._log_tail(), self.sandbox.tree
            )
            raise EngineError(
                "the fork server ended before it was ready; pytest output:\n"
                + self._log_tail()[-3000:]
            )
        try:
            suite = suite_from_events(
                list(read_events(events)), self.config, self._log_tail(), self.sandbox.tree
            )
        except BaseException:
            self.close()
            raise
        events.unlink(missing_ok=True)
        control.unlink(missing_ok=True)
        if not first.get("ready"):
            self.close()
            raise ForkUnavailable(str(first.get("reason", "the server cannot fork")))
        self.sandbox.mark_baseline()
        return suite

    def _read(self, timeout: Optional[float]) -> Optional[dict[str, Any]]:
        """The next message from the server; None at EOF; TimeoutError after ``timeout``."""
        assert self._from_fd is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self._from_fd], [], [], remaining)
            if not ready:
                raise TimeoutError
            chunk = os.read(self._from_fd, 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        result: dict[str, Any] = json.loads(line)
        return result

    def run(self, order: Sequence[str], probe: Optional[ProbeSpec] = None) -> OrderResult:
        if self._to_server is None or self._proc is None or self._proc.poll() is not None:
            raise EngineError("the fork server is not running; restart orderdep")
        _, events = self._new_paths()
        with open(self.log_path, "r+b") as log:
            log.truncate(0)
        request = {
            "order": list(order),
            "events": str(events),
            "probe": probe.to_json() if probe else None,
            "reference": self._reference(),
        }
        started = time.perf_counter()
        self._begin()
        try:
            died, status_msg = self._order(request, events, self.policy.slack_for(probe))
        finally:
            self._clock = None
            self._ended()
        if status_msg is None:
            raise EngineError(f"the fork server died:\n{self._log_tail()[-3000:]}")
        result = self._finish(order, events, died or Outcome.CRASHED, started)
        if probe is not None:
            self.policy.probe_ran(result.results)
        return result

    def _order(
        self, request: dict[str, Any], events: Path, extra: float = 0.0
    ) -> tuple[Optional[Outcome], Optional[dict[str, Any]]]:
        """Send ``request`` and wait for its child's end: (``timeout`` when the clock
        killed it, the server's status message; None when the server died)."""
        assert self._to_server is not None
        try:
            self._to_server.write(json.dumps(request) + "\n")
            self._to_server.flush()
        except OSError as exc:  # the server died between the check and the write
            raise EngineError(f"the fork server died ({exc}):\n{self._log_tail()[-3000:]}") from exc
        reply = self._read(60.0)
        if reply is None or "pid" not in reply:
            raise EngineError(f"the fork server stopped answering:\n{self._log_tail()[-3000:]}")
        pid = int(reply["pid"])
        self._started(pid)
        clock = self._watch(TestClock(events, self.policy, extra=extra))
        try:
            while True:
                try:
                    return None, self._read(clock.wait_for())
                except TimeoutError:
                    if clock.overdue():
                        kill_group(pid)
                        return Outcome.TIMEOUT, self._read(60.0)
        except BaseException:
            kill_group(pid)
            self._read(60.0)
            raise

    def close(self, kill: bool = False) -> None:
        """Stop the server: it leaves once its request pipe is closed (killing the order it
        may be running). With ``kill``, or when it has not left after 10 s, every process
        in its session is killed."""
        proc = self._proc
        if kill and proc is not None and proc.returncode is None:  # not reaped: still ours
            kill_session(proc.pid)
        if self._to_server is not None:
            try:
                self._to_server.close()
            except OSError:
                pass
        if self._from_fd is not None:
            os.close(self._from_fd)
        self._to_server, self._from_fd = None, None
        if proc is not None:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                kill_session(proc.pid)
                proc.wait()
            release(proc.pid)
            self._proc = None
