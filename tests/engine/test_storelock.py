"""The results store's lock: one command per store, the holder named, never stale."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from orderdep.engine.processes import start_time
from orderdep.engine.storelock import StoreLock, lock_path
from orderdep.errors import StoreError

HOLD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from orderdep.engine.storelock import StoreLock
    StoreLock.acquire(Path(sys.argv[1]), "orderdep detect proj --seed 1")
    print("locked", flush=True)
    time.sleep(600)
    """
)


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the lock of ``tmp_path/results.db``."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path / "results.db")],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "locked\n"
    yield proc
    proc.kill()
    proc.wait()


def test_a_held_lock_names_its_holder(tmp_path: Path, holder: subprocess.Popen[str]) -> None:
    with pytest.raises(StoreError) as info:
        StoreLock.acquire(tmp_path / "results.db", "orderdep run", wait=0.3)
    message = str(info.value)
    assert f"is in use by process {holder.pid} (orderdep detect proj --seed 1)" in message
    assert "(waited 0.3 s)" in message
    assert message.endswith("wait for it to finish or pass --store PATH")


def test_the_lock_goes_with_its_holder_even_after_kill_9(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    holder.kill()
    holder.wait()
    stale = json.loads(lock_path(tmp_path / "results.db").read_text())
    assert stale["pid"] == holder.pid  # the file still names the dead process...
    lock = StoreLock.acquire(tmp_path / "results.db", "orderdep run", wait=0)  # ...no matter
    mine = json.loads(lock_path(tmp_path / "results.db").read_text())
    assert mine == {"pid": os.getpid(), "start": start_time(os.getpid()), "command": "orderdep run"}
    lock.release()


def test_a_stale_lock_file_does_not_block(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead = int(done.stdout)
    lock_path(tmp_path / "results.db").write_text(json.dumps({"pid": dead, "command": "x"}))
    StoreLock.acquire(tmp_path / "results.db", "orderdep run", wait=0).release()


def test_release_lets_the_next_one_in(tmp_path: Path) -> None:
    first = StoreLock.acquire(tmp_path / "r.db", "first", wait=0)
    with pytest.raises(StoreError, match=rf"in use by process {os.getpid()} \(first\)"):
        StoreLock.acquire(tmp_path / "r.db", "second", wait=0)
    first.release()
    first.release()  # twice is harmless
    assert lock_path(tmp_path / "r.db").read_text() == ""
    StoreLock.acquire(tmp_path / "r.db", "second", wait=0).release()


def test_waiting_gets_the_lock_when_the_holder_leaves(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    import threading

    timer = threading.Timer(0.3, holder.kill)
    timer.start()
    StoreLock.acquire(tmp_path / "results.db", "waiter", wait=30).release()
    timer.join()


def test_a_lock_held_by_an_exited_holders_child(tmp_path: Path) -> None:
    # The lock file names a process that is gone, yet the lock is held (by a child
    # that inherited it): the message says so instead of naming a dead process as busy.
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead = int(done.stdout)
    first = StoreLock.acquire(tmp_path / "r.db", "orderdep detect", wait=0)
    lock_path(tmp_path / "r.db").write_text(json.dumps({"pid": dead, "command": "orderdep detect"}))
    with pytest.raises(
        StoreError, match=rf"child of process {dead} \(orderdep detect\), which has exited"
    ):
        StoreLock.acquire(tmp_path / "r.db", "orderdep run", wait=0)
    first.release()


def test_an_unwritable_place_is_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(StoreError, match=r"cannot create the results store .*pass --store PATH"):
        StoreLock.acquire(tmp_path / "file" / "r.db", "x", wait=0)
