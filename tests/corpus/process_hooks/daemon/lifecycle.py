"""Exit handlers: one registered at import, more registered by ``on_exit``.

Each handler appends ``<kind> <pid>`` to ``markers.log`` in ``DAEMON_MARKER_DIR`` (the
temporary directory when unset), so what ran at a process's end can be checked later.
"""

import atexit
import os
import tempfile
from pathlib import Path

MARKER_DIR = Path(os.environ.get("DAEMON_MARKER_DIR") or tempfile.gettempdir())
REGISTERED: list[str] = []


def write_marker(kind: str) -> None:
    with open(MARKER_DIR / "markers.log", "a", encoding="utf-8") as fh:
        fh.write(f"{kind} {os.getpid()}\n")


def on_exit(kind: str) -> None:
    atexit.register(write_marker, kind)
    REGISTERED.append(kind)


atexit.register(write_marker, "import")
