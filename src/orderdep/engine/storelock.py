"""One orderdep command per results store at a time: an OS file lock next to the store.

``StoreLock.acquire(store_path, command)`` takes an exclusive ``flock`` on
``<store>.lock`` and writes the holder (pid, start time, command) into it. A second
command waits up to ``WAIT_SECONDS`` and then says which process holds the lock. The
kernel drops the lock when its holder exits (even ``kill -9``), so a lock file left by a
dead process never blocks; its stale contents are overwritten.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from orderdep.engine.processes import is_running, start_time
from orderdep.errors import StoreError, shown_path

WAIT_SECONDS = 5.0
POLL_SECONDS = 0.1


def lock_path(store_path: Path) -> Path:
    return store_path.with_name(store_path.name + ".lock")


@dataclass(frozen=True)
class Holder:
    """Who wrote the lock file."""

    pid: int
    start: Optional[int]
    command: str

    @classmethod
    def parse(cls, text: str) -> Optional[Holder]:
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("pid"), int):
            return None
        start = data.get("start")
        return cls(
            int(data["pid"]),
            start if isinstance(start, int) else None,
            str(data.get("command") or "?"),
        )


def cannot_create(what: Path, store_path: Path, exc: OSError) -> StoreError:
    return StoreError(
        f"cannot create the results store {shown_path(store_path)!r} "
        f"({shown_path(what)!r}: {exc.strerror or exc}); pass --store PATH to keep it "
        "in a writable place"
    )


class StoreLock:
    """An acquired lock; :meth:`release` (or the holder's exit) frees it."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def acquire(cls, store_path: Path, command: str, wait: Optional[float] = None) -> StoreLock:
        """Lock ``store_path``'s lock file, waiting up to ``wait`` seconds (default
        :data:`WAIT_SECONDS`); raise :class:`StoreError` naming the holder if it stays taken."""
        wait = WAIT_SECONDS if wait is None else wait
        path = lock_path(store_path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            raise cannot_create(path, store_path, exc) from None
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _read(fd)
                    os.close(fd)
                    raise StoreError(busy_message(store_path, holder, wait)) from None
                time.sleep(POLL_SECONDS)
        me = {"pid": os.getpid(), "start": start_time(os.getpid()), "command": command}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(me).encode(), 0)
        except OSError:
            pass  # the lock holds anyway; only the message to others loses its details
        return cls(path, fd)

    def release(self) -> None:
        if self._fd < 0:
            return
        fd, self._fd = self._fd, -1
        try:
            os.ftruncate(fd, 0)
        except OSError:
            pass
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _read(fd: int) -> Optional[Holder]:
    try:
        return Holder.parse(os.pread(fd, 65536, 0).decode("utf-8", "replace"))
    except OSError:
        return None


def busy_message(store_path: Path, holder: Optional[Holder], waited: float) -> str:
    store = shown_path(store_path)
    after = f" (waited {waited:g} s)" if waited > 0 else ""
    if holder is None:
        who = "another process"
    elif is_running(holder.pid, holder.start):
        who = f"process {holder.pid} ({holder.command})"
    else:
        who = (
            f"a child of process {holder.pid} ({holder.command}), which has exited; end that child"
        )
        return f"the results store {store!r} is in use by {who}{after}, or pass --store PATH"
    return (
        f"the results store {store!r} is in use by {who}{after}; wait for it to finish "
        "or pass --store PATH"
    )
