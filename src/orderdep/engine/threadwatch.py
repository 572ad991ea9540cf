"""Where the threads alive after collection were started (a fork server cannot fork then).

A fork server installs :func:`install` before any conftest or test module is imported;
from then on each :meth:`threading.Thread.start` records the first frame of its caller
outside the standard library and site-packages' ``threading`` machinery: the line of the
project (or of a library it imports) that started the thread. :func:`describe` names a
thread with that place, so the user reads which import to make lazy.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
from types import FrameType
from typing import Any, Optional

_origins: dict[int, str] = {}  # id(thread) -> "path:line"
_installed = False
_STDLIB = os.path.normcase(sysconfig.get_paths()["stdlib"])


def _origin(frame: Optional[FrameType]) -> Optional[str]:
    """The first caller outside the standard library, as ``path:line``."""
    while frame is not None:
        path = os.path.normcase(frame.f_code.co_filename)
        if not path.startswith(_STDLIB) and not path.startswith("<"):
            try:
                shown = os.path.relpath(frame.f_code.co_filename)
            except ValueError:
                shown = frame.f_code.co_filename
            return f"{shown}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def install() -> None:
    """Record where every thread started from now on comes from (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    start = threading.Thread.start

    def recording_start(self: threading.Thread, *args: Any, **kwargs: Any) -> None:
        where = _origin(sys._getframe(1))
        if where is not None:
            _origins[id(self)] = where
        start(self, *args, **kwargs)

    threading.Thread.start = recording_start  # type: ignore[method-assign]


def listening(thread: threading.Thread) -> bool:
    """Whether ``thread`` is a daemon waiting in :meth:`socket.socket.accept` (a status
    server, such as pytest-rerunfailures starts when pytest-xdist is installed): it holds
    no lock there, so a fork is as safe as with no thread, and a fork server's children
    never serve its socket (the server process goes on doing so)."""
    frame = sys._current_frames().get(thread.ident or -1)
    if frame is None or not thread.daemon:
        return False
    code = frame.f_code
    return (
        code.co_name == "accept"
        and os.path.normcase(code.co_filename).startswith(_STDLIB)
        and os.path.basename(code.co_filename) == "socket.py"
    )


def blocking_fork(main: threading.Thread) -> list[str]:
    """The threads other than ``main`` that make a fork unsafe, described."""
    return [describe(t) for t in threading.enumerate() if t is not main and not listening(t)]


def describe(thread: threading.Thread) -> str:
    """``name (started at path:line)``, or the name alone when the place is unknown."""
    where = _origins.get(id(thread))
    return f"{thread.name} (started at {where})" if where else thread.name


__all__ = ["blocking_fork", "describe", "install", "listening"]
