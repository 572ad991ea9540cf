"""Stopping the engine at any moment leaves no process behind: the fork server kills the
order it runs when its controller goes away, an interrupt that comes while an order's
process starts is not lost, a stop signal cannot come between a process's start and its
registration, and :func:`~orderdep.engine.interrupts.sweep` kills what is left in the
sessions the engine started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import pytest

from orderdep.engine import interrupts
from orderdep.engine.config import EngineConfig
from orderdep.engine.interrupts import Interruptible
from orderdep.engine.runner import Engine
from orderdep.errors import EngineError

if TYPE_CHECKING:
    from conftest import ProjectWriter

HANGING = {
    "test_hang.py": """
        import os
        import subprocess
        import time
        from pathlib import Path


        def test_hang():
            sleeper = subprocess.Popen(["sleep", "60"])
            Path(os.environ["OD_PIDS"]).write_text(f"{os.getpid()} {sleeper.pid}")
            time.sleep(60)
    """
}


APPENDING = {
    "test_hang.py": """
        import os
        import subprocess
        import time


        def test_hang():
            sleeper = subprocess.Popen(["sleep", "60"])
            with open(os.environ["OD_PIDS"], "a") as pids:
                pids.write(f"{os.getpid()} {sleeper.pid}\\n")
            time.sleep(60)
    """
}


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting for its parent."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def gone(pids: list[int], within: float = 10.0) -> bool:
    """Whether every process of ``pids`` has ended within ``within`` seconds."""
    deadline = time.monotonic() + within
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(alive(p) for p in pids)


def wait_for(path: Path) -> list[int]:
    deadline = time.monotonic() + 60
    while not (path.exists() and path.read_text()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [int(p) for p in path.read_text().split()]


def test_the_fork_server_kills_the_running_order_when_its_controller_goes(
    make_project: ProjectWriter, tmp_path: Path
) -> None:
    """The controller's end of the request pipe closes (it died, or closed the engine)
    while an order runs: the server kills that order and what its test started, and
    leaves, instead of letting the test run on for a controller that is gone."""
    pids_file = tmp_path / "pids"
    project = make_project(HANGING)
    config = EngineConfig(project, runner="fork", extra_env={"OD_PIDS": str(pids_file)})
    with Engine(config) as engine:
        engine.suite  # noqa: B018  (starts the server)
        worker = engine._workers[0]
        assert worker._proc is not None
        server = worker._proc.pid
        errors: list[BaseException] = []

        def run() -> None:
            try:
                engine.run(["test_hang.py::test_hang"])
            except BaseException as exc:
                errors.append(exc)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        order_pids = wait_for(pids_file)
        assert worker._to_server is not None
        worker._to_server.close()  # as when the controller's process is gone
        thread.join(timeout=30)
        assert not thread.is_alive()
        assert [type(e) for e in errors] == [EngineError]  # "the fork server died"
        assert gone([*order_pids, server])
        worker._to_server = None


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_as_the_fork_check_starts_kills_runs_not_started_yet(
    make_project: ProjectWriter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """Ctrl-C comes before the check's runs have their processes (their threads are
    starting them): they are killed as soon as they start, not left to run the whole
    original order while the command ends."""
    from orderdep.analysis import fidelity, fork_pair, fork_trust
    from orderdep.analysis.budget import Budget

    pids_file = tmp_path / "pids"
    project = make_project(APPENDING)
    monkeypatch.setattr(fork_pair, "STOP_WAIT", 5.0)
    real_wait = fork_pair.wait
    pressed: list[int] = []

    def ctrl_c_at_once(futures: Any, timeout: Optional[float] = None) -> Any:
        if not pressed:
            pressed.append(1)
            raise KeyboardInterrupt
        return real_wait(futures, timeout=timeout)

    monkeypatch.setattr(fork_pair, "wait", ctrl_c_at_once)
    config = EngineConfig(project, jobs=jobs, extra_env={"OD_PIDS": str(pids_file)})
    with Engine(config) as engine:
        budget = Budget(None)
        cache = fidelity.VerdictCache(tmp_path / "v.json")
        assert fork_trust.trust_fork(engine, cache, lambda line: None, budget) is None
        assert budget.stop_reason == "interrupted"
    started = [int(p) for p in pids_file.read_text().split()] if pids_file.exists() else []
    assert gone(started)


def test_an_interrupt_while_the_process_starts_kills_it_once_known() -> None:
    runner = Interruptible()
    runner._begin()
    runner.interrupt()  # before the order's process exists
    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        runner._started(proc.pid)
        assert proc.wait(timeout=10) == -signal.SIGKILL
    finally:
        proc.kill()
        proc.wait()
    runner._ended()
    assert runner._take_interrupted()
    runner.interrupt()  # nothing runs: nothing is kept for the next order
    runner._begin()
    assert not runner._take_interrupted()


def test_a_blocked_runner_kills_every_order_started_until_unblocked() -> None:
    runner = Interruptible()
    runner.block()
    for _ in range(2):
        runner._begin()
        proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
        runner._started(proc.pid)
        assert proc.wait(timeout=10) == -signal.SIGKILL
        runner._ended()
        assert runner._take_interrupted()
    runner.unblock()
    runner._begin()
    assert not runner._take_interrupted()


def test_a_stop_signal_waits_until_the_started_process_is_registered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[Any] = []
    real_popen = subprocess.Popen

    def popen(*args: Any, **kwargs: Any) -> Any:
        signal.raise_signal(signal.SIGINT)  # Ctrl-C in the middle of starting it
        proc = real_popen(*args, **kwargs)
        seen.append(proc)
        return proc

    monkeypatch.setattr(interrupts.subprocess, "Popen", popen)
    with pytest.raises(KeyboardInterrupt):
        interrupts.start_session(["sleep", "60"])
    proc = seen[0]
    assert proc.pid in interrupts.registered()  # registered before the Ctrl-C unwound
    assert interrupts.sweep() == 1
    assert proc.wait(timeout=10) == -signal.SIGKILL


def test_sweep_kills_every_group_of_a_registered_session(tmp_path: Path) -> None:
    """The leader is gone and a member runs in a process group of its own (as the fork
    server's children do): the sweep still finds it by its session."""
    pids = tmp_path / "pids"
    script = (
        "import subprocess\n"
        "p = subprocess.Popen(['sleep', '60'], process_group=0)\n"
        f"open({str(pids)!r}, 'w').write(str(p.pid))\n"
    )
    keep = interrupts.registered()
    proc = interrupts.start_session([sys.executable, "-c", script])
    assert proc.wait(timeout=30) == 0
    (member,) = wait_for(pids)
    assert alive(member) and os.getsid(member) == proc.pid
    assert interrupts.sweep(keep=keep) == 1
    assert gone([member])
