"""Faults inside an order: hangs, crashes, exits. The order ends with the running test
marked ``timeout`` or ``crashed`` and the rest ``not-run``; the engine runs the next order
as if nothing happened (the fork server survives its children)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.errors import EngineError

if TYPE_CHECKING:
    from conftest import EngineFactory, ProjectWriter

RUNNERS = ("fork", "subprocess")
# Seconds per test (start-up and collection have their own limit).
TIMEOUTS = {"fork": 1.0, "subprocess": 1.0}

FAULT_FILES = {
    "test_faults.py": """
        import ctypes
        import os
        import sys
        import time

        import pytest


        def test_ok():
            with open(os.environ["OD_TRACE"], "a") as fh:
                fh.write(f"{os.getpid()} {os.getppid()}\\n")


        def test_sleep():
            time.sleep(60)


        def test_exit3():
            os._exit(3)


        def test_exit0():
            os._exit(0)


        def test_segfault():
            ctypes.string_at(0)


        def test_sys_exit():
            sys.exit(1)


        def test_keyboard_interrupt():
            raise KeyboardInterrupt


        def test_pytest_exit():
            pytest.exit("stop everything")


        def test_after():
            pass
    """,
}


def F(name: str) -> str:
    return f"test_faults.py::test_{name}"


def outcomes(result: OrderResult) -> list[Outcome]:
    return [r.outcome for r in result.results]


class Faulty:
    def __init__(self, engine: Engine, trace: Path, runner: str) -> None:
        self.engine = engine
        self.trace = trace
        self.runner = runner

    def processes(self) -> list[tuple[int, int]]:
        """(pid, parent pid) of every ``test_ok`` run so far."""
        rows = [line.split() for line in self.trace.read_text().splitlines()]
        return [(int(pid), int(ppid)) for pid, ppid in rows]


@pytest.fixture(scope="module", params=RUNNERS)
def faulty(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, files_writer: Any
) -> Iterator[Faulty]:
    runner = str(request.param)
    base = tmp_path_factory.mktemp(f"faults-{runner}")
    project = files_writer(base / "proj", FAULT_FILES)
    trace = base / "trace.log"
    trace.write_text("")
    config = EngineConfig(
        project, runner=runner, timeout=TIMEOUTS[runner], extra_env={"OD_TRACE": str(trace)}
    )
    with Engine(config) as engine:
        yield Faulty(engine, trace, runner)


def _check_engine_still_works(faulty: Faulty) -> None:
    before = faulty.processes()
    result = faulty.engine.run([F("ok"), F("after")])
    assert outcomes(result) == [Outcome.PASSED, Outcome.PASSED]
    after = faulty.processes()
    assert len(after) == len(before) + 1
    if faulty.runner == "fork":
        # Still the same server forking the children: it survived.
        assert after[-1][1] == after[0][1]
        assert after[-1][0] != after[0][0]


def test_timeout_marks_the_running_test_and_the_rest_not_run(faulty: Faulty) -> None:
    order = [F("ok"), F("sleep"), F("after"), F("ok")]
    result = faulty.engine.run(order)
    assert outcomes(result) == [Outcome.PASSED, Outcome.TIMEOUT, Outcome.NOT_RUN, Outcome.NOT_RUN]
    assert "time limit" in result.results[1].message
    assert result.results[2].message == ""
    assert not result.complete
    limit = TIMEOUTS[faulty.runner]
    assert limit <= result.wall_seconds < limit + 20
    _check_engine_still_works(faulty)


@pytest.mark.parametrize(
    "fault", ["exit3", "exit0", "segfault", "keyboard_interrupt", "pytest_exit"]
)
def test_a_dying_test_is_crashed_and_the_rest_not_run(faulty: Faulty, fault: str) -> None:
    result = faulty.engine.run([F("ok"), F(fault), F("after")])
    assert outcomes(result) == [Outcome.PASSED, Outcome.CRASHED, Outcome.NOT_RUN]
    assert result.results[1].message
    assert not result.complete
    _check_engine_still_works(faulty)


def test_sys_exit_is_a_plain_failure(faulty: Faulty) -> None:
    result = faulty.engine.run([F("sys_exit"), F("after")])
    assert outcomes(result) == [Outcome.FAILED, Outcome.PASSED]
    assert result.results[0].message.startswith("SystemExit: 1")
    assert result.complete


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_dead_fork_server_is_an_engine_error_not_a_hang(
    make_project: ProjectWriter, make_engine: EngineFactory, tmp_path: Path
) -> None:
    trace = tmp_path / "trace.log"
    engine = make_engine(
        make_project(FAULT_FILES), runner="fork", extra_env={"OD_TRACE": str(trace)}
    )
    assert outcomes(engine.run([F("ok")])) == [Outcome.PASSED]
    server = int(trace.read_text().split()[1])
    # The test's parent is the fork server, a child of this very process.
    assert Path(f"/proc/{server}/stat").read_text().split()[3] == str(os.getpid())
    os.kill(server, signal.SIGKILL)
    with pytest.raises(EngineError, match="fork server"):
        engine.run([F("ok")])
    engine.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_server_dying_after_its_liveness_check_is_an_engine_error(
    make_project: ProjectWriter,
    make_engine: EngineFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server can die between the check that it runs and the write of the request:
    the broken pipe is the same engine error, not a BrokenPipeError."""
    trace = tmp_path / "trace.log"
    engine = make_engine(
        make_project(FAULT_FILES), runner="fork", extra_env={"OD_TRACE": str(trace)}
    )
    assert outcomes(engine.run([F("ok")])) == [Outcome.PASSED]
    server = int(trace.read_text().split()[1])
    os.kill(server, signal.SIGKILL)
    for _ in range(500):  # until the kernel has closed its end of the pipe
        if Path(f"/proc/{server}/stat").read_text().split()[2] == "Z":
            break
        time.sleep(0.01)
    monkeypatch.setattr(subprocess.Popen, "poll", lambda self: None)
    with pytest.raises(EngineError, match="fork server died"):
        engine.run([F("ok")])
    monkeypatch.undo()
    engine.close()


def test_a_timeout_before_the_first_test_still_shows(
    make_project: ProjectWriter,
    make_engine: EngineFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 50 ms is far less than a pytest start-up: the subprocess is killed while collecting.
    monkeypatch.setattr("orderdep.engine.timeouts.STARTUP", 0.05)
    engine = make_engine(
        make_project(FAULT_FILES),
        runner="subprocess",
        extra_env={"OD_TRACE": str(tmp_path / "trace.log")},
    )
    result = engine.run([F("ok"), F("after")])
    assert not result.complete
    assert result.results[0].outcome is Outcome.TIMEOUT
