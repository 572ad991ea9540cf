"""Is a process still the one we knew? (pid plus its start time, from ``/proc``).

A pid alone can be reused by an unrelated process after the first one exited, so owners
record the pid and the process's start time (clock ticks since boot, field 22 of
``/proc/PID/stat``) when the system has it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional


def start_time(pid: int) -> Optional[int]:
    """The start time of process ``pid`` (clock ticks since boot), None when unknown."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: count after the last ")".
    fields = text.rpartition(")")[2].split()
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def is_running(pid: int, start: Optional[int] = None) -> bool:
    """False only when process ``pid`` (started at ``start``, if given) provably is gone:
    no such pid, or the pid now belongs to a process that started at another time."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, owned by someone else
    if start is not None:
        now = start_time(pid)
        if now is not None and now != start:
            return False
    return True
