"""The engine's working directories in the temp dir, and the ones killed runs left behind.

Every working directory the engine makes is ``orderdep-*`` in the temp dir and holds an
owner file (the creating process's pid and start time). A run killed with ``kill -9``
cannot remove its directory; the next engine that makes one removes every other
``orderdep-*`` directory whose owner provably is gone (pid gone, or reused by a process
that started at another time). A directory whose owner is alive, or that has no readable
owner file (made by something else, or still being set up), is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Optional

from orderdep.engine.processes import is_running, start_time

PREFIX = "orderdep-"
OWNER_FILE = ".orderdep-owner.json"


def owner_record() -> dict[str, Optional[int]]:
    pid = os.getpid()
    return {"pid": pid, "start": start_time(pid)}


def read_owner(directory: Path) -> Optional[tuple[int, Optional[int]]]:
    """(pid, start time or None) from ``directory``'s owner file, None when unreadable."""
    try:
        data = json.loads((directory / OWNER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    pid, start = data.get("pid"), data.get("start")
    if not isinstance(pid, int) or isinstance(pid, bool):
        return None
    if not isinstance(start, int) or isinstance(start, bool):
        start = None
    return pid, start


def abandoned(directory: Path) -> bool:
    """``directory``'s owner file names a process that provably is gone."""
    owner = read_owner(directory)
    return owner is not None and not is_running(*owner)


def sweep(tempdir: Optional[Path] = None) -> list[Path]:
    """Remove the ``orderdep-*`` directories in ``tempdir`` (default: the temp dir) whose
    owners are gone; returns the removed ones."""
    root = Path(tempdir or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        candidates = [p for p in root.iterdir() if p.name.startswith(PREFIX)]
    except OSError:
        return removed
    for path in candidates:
        if path.is_symlink() or not path.is_dir() or not abandoned(path):
            continue
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            removed.append(path)
    return removed


def make_workdir(prefix: str = PREFIX) -> tempfile.TemporaryDirectory[str]:
    """A new ``orderdep-*`` working directory with its owner file (after a sweep);
    ``prefix`` must start with ``orderdep-``."""
    if not prefix.startswith(PREFIX):
        raise ValueError(f"a working directory's prefix must start with {PREFIX!r}, got {prefix!r}")
    sweep()
    tmp = tempfile.TemporaryDirectory(prefix=prefix)
    owner = Path(tmp.name) / OWNER_FILE
    owner.write_text(json.dumps(owner_record()), encoding="utf-8")
    return tmp
