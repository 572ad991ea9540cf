"""SIGTERM and SIGHUP stop orderdep the way Ctrl-C does: finished orders stay in the
store, child processes and working directories go, exit code 128 + the signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from clitools import one_line, write_files

from orderdep.engine.processes import start_time
from orderdep.engine.store import Store
from orderdep.shells.commands import engine_cmds

if TYPE_CHECKING:
    from conftest import CliRunner


# -- in process ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stop", "code", "said"),
    [
        (lambda: os.kill(os.getpid(), signal.SIGTERM), 143, "stopped by SIGTERM"),
        (lambda: os.kill(os.getpid(), signal.SIGHUP), 129, "stopped by SIGHUP"),
        (lambda: signal.raise_signal(signal.SIGINT), 130, "interrupted"),
    ],
    ids=["SIGTERM", "SIGHUP", "SIGINT"],
)
def test_a_stop_signal_unwinds_the_command(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, stop: Any, code: int, said: str
) -> None:
    unwound = []

    def collect_suite(project: Path, params: dict[str, Any]) -> None:
        try:
            stop()
            time.sleep(30)
        finally:
            unwound.append(True)  # clean-up code runs, as after Ctrl-C

    monkeypatch.setattr(engine_cmds, "collect_suite", collect_suite)
    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    before = [signal.getsignal(sig) for sig in stops]
    started = time.monotonic()
    got, out, err = cli("collect", tmp_path)
    assert time.monotonic() - started < 10
    assert (got, out, unwound) == (code, "", [True])
    assert err.strip() == f"orderdep: {said}; finished orders are kept in the store."
    assert [signal.getsignal(sig) for sig in stops] == before


# -- a real orderdep process -------------------------------------------------------------------

HANGING = """
    import os
    import time
    from pathlib import Path

    RAN = []

    def test_first():
        RAN.append(1)

    def test_second():
        if not RAN:  # only when it runs first: in the reverse order
            Path({marker!r}).write_text(str(os.getpid()))
            time.sleep(600)
"""


def tree(root: int) -> dict[int, int]:
    """pid -> start time of ``root`` and every process below it."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            parents.setdefault(int(stat[1]), []).append(int(entry.name))
    found, todo = {}, [root]
    while todo:
        pid = todo.pop()
        start = start_time(pid)
        if start is not None:
            found[pid] = start
        todo += parents.get(pid, [])
    return found


def alive(pid: int, start: int) -> bool:
    """Running, and not a zombie waiting for its parent."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return False
    return stat[0] != "Z" and start_time(pid) == start


@pytest.fixture
def hanging_detect(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path, Path]]:
    """``orderdep detect`` running its second order, which hangs: (process, project, TMPDIR)."""
    marker, tmp = tmp_path / "hanging", tmp_path / "tmp"
    tmp.mkdir()
    project = write_files(
        tmp_path / "proj",
        {"pytest.ini": "[pytest]\n", "test_h.py": HANGING.format(marker=str(marker))},
    )
    env = {**os.environ, "TMPDIR": str(tmp), "PYTEST_ADDOPTS": "-p no:hypothesispytest"}
    argv = [sys.executable, "-c", "from orderdep.shells.cli import run; run()"]
    proc = subprocess.Popen(
        [*argv, "detect", str(project), "--strategy", "reverse", "--seed", "1"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), proc.communicate(timeout=5)
    left = tree(proc.pid)
    try:
        yield proc, project, tmp
    finally:
        for pid, start in left.items():
            if alive(pid, start):
                os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_stops_detect_and_leaves_nothing_behind(
    hanging_detect: tuple[subprocess.Popen[str], Path, Path], signum: int, code: int
) -> None:
    proc, project, tmp = hanging_detect
    processes = tree(proc.pid)
    assert len(processes) >= 3  # orderdep, its pytest server, the child running the order
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert err.splitlines()[-1] == (
        f"orderdep: stopped by {signal.Signals(signum).name}; "
        "finished orders are kept in the store."
    )
    deadline = time.monotonic() + 10
    while any(alive(*p) for p in processes.items()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid, start in processes.items() if alive(pid, start)]
    assert not [p.name for p in tmp.iterdir() if p.name.startswith("orderdep-")]
    # The original order had finished: it is in the store.
    assert Store(project / ".orderdep" / "results.db").count() == 1


def test_a_second_detect_on_the_same_project_names_the_running_one(
    hanging_detect: tuple[subprocess.Popen[str], Path, Path],
    cli: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from orderdep.engine import storelock

    proc, project, _ = hanging_detect
    monkeypatch.setattr(storelock, "WAIT_SECONDS", 0.2)
    code, _, err = cli("detect", project, "--strategy", "reverse")
    assert code == 2
    line = one_line(err)
    assert f"is in use by process {proc.pid} (orderdep detect {project} --strategy" in line
    assert not (project / ".orderdep" / "report.json").exists()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 143
    code, _, err = cli("detect", project, "--strategy", "original")
    assert code == 0, err  # the lock went with it
