"""A real Dask cluster on 127.0.0.1 for tests: ``dask scheduler`` and ``dask worker``
processes, each started in its own temporary directory (they share no project path)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest


@dataclass
class Cluster:
    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    worker_dirs: list[Path] = field(default_factory=list)

    def kill_worker(self, pid: int) -> None:
        """Kill the ``dask worker`` whose process (or nanny's child) has ``pid``, at once."""
        group = os.getpgid(pid)
        assert group in [w.pid for w in self.workers], (pid, group)
        os.killpg(group, signal.SIGKILL)


def dask_command() -> list[str]:
    script = Path(sys.executable).parent / "dask"
    if not script.exists():
        pytest.skip("the `dask` command is not installed next to this interpreter")
    return [str(script)]


def _start(cmd: list[str], cwd: Path) -> subprocess.Popen[bytes]:
    cwd.mkdir(parents=True, exist_ok=True)
    log = open(cwd / "log.txt", "wb")  # noqa: SIM115  (closed by the process's end)
    return subprocess.Popen(
        cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )


@contextmanager
def dask_cluster(root: Path, workers: int = 2) -> Iterator[Cluster]:
    """Start ``dask scheduler`` and ``workers`` x ``dask worker ADDRESS`` (one thread
    each), each in its own directory under ``root``; stop them all at the end."""
    dask = dask_command()
    info = root / "scheduler" / "scheduler.json"
    scheduler = _start(
        [
            *dask,
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(info),
        ],
        root / "scheduler",
    )
    started: list[subprocess.Popen[bytes]] = [scheduler]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            assert scheduler.poll() is None, (root / "scheduler" / "log.txt").read_text()
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        cluster = Cluster(address, scheduler)
        for n in range(workers):
            where = root / f"worker{n}"
            proc = _start(
                [
                    *dask,
                    "worker",
                    address,
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                    "--local-directory",
                    str(where / "local"),
                ],
                where,
            )
            started.append(proc)
            cluster.workers.append(proc)
            cluster.worker_dirs.append(where)
        yield cluster
    finally:
        for proc in reversed(started):
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in reversed(started):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
