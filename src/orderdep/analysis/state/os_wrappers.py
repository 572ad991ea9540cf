"""Reads the call hooks cannot see: environment variables, ``stat``-like calls, the cwd.

While a test window is open, :class:`OsWrappers` wraps ``os.environ``'s item access,
iteration, ``len`` and ``repr`` (every variable read, or all of them), ``os.stat``,
``os.lstat`` and ``os.access`` (a file's existence read) and ``os.getcwd``, and reports
each read to its :class:`ReadSink` (the :class:`~orderdep.analysis.state.reads.ReadTracer`).
"""

from __future__ import annotations

import os
from typing import Any, Protocol

real_getcwd = os.getcwd
_ENVIRON_TYPE = type(os.environ)


class ReadSink(Protocol):
    """Where the wrappers report reads."""

    env: set[str]
    flags: set[str]
    busy: bool

    def path_read(self, path: Any, *, wildcard: bool = False, listing: bool = False) -> None: ...


class OsWrappers:
    """The wrappers of one tracer, switched on and off with its window."""

    def __init__(self, sink: ReadSink) -> None:
        self.sink = sink
        self._saved: list[tuple[Any, str, Any, Any]] = []

    def on(self) -> None:
        """Wrap the environment's and ``os``'s functions (the test window opens)."""
        rec = self.sink
        env_get = _ENVIRON_TYPE.__getitem__
        env_iter = _ENVIRON_TYPE.__iter__
        env_len = _ENVIRON_TYPE.__len__
        env_repr = _ENVIRON_TYPE.__repr__

        def getitem(self: Any, key: Any) -> Any:
            rec.env.add(key.decode("utf-8", "surrogateescape") if isinstance(key, bytes) else key)
            return env_get(self, key)

        def iterate(self: Any) -> Any:
            rec.env.add("*")
            return env_iter(self)

        def length(self: Any) -> int:
            rec.env.add("*")
            return env_len(self)

        def represent(self: Any) -> str:
            rec.env.add("*")
            return env_repr(self)

        real_stat, real_lstat, real_access = os.stat, os.lstat, os.access

        def stat(path: Any, *args: Any, **kwargs: Any) -> Any:
            if not rec.busy:
                rec.path_read(path, wildcard=True)
            return real_stat(path, *args, **kwargs)

        def lstat(path: Any, *args: Any, **kwargs: Any) -> Any:
            if not rec.busy:
                rec.path_read(path, wildcard=True)
            return real_lstat(path, *args, **kwargs)

        def access(path: Any, *args: Any, **kwargs: Any) -> Any:
            if not rec.busy:
                rec.path_read(path, wildcard=True)
            return real_access(path, *args, **kwargs)

        def getcwd() -> str:
            rec.flags.add("cwd")
            return real_getcwd()

        self._saved = []
        for owner, attr, new in (
            (_ENVIRON_TYPE, "__getitem__", getitem),
            (_ENVIRON_TYPE, "__iter__", iterate),
            (_ENVIRON_TYPE, "__len__", length),
            (_ENVIRON_TYPE, "__repr__", represent),
            (os, "stat", stat),
            (os, "lstat", lstat),
            (os, "access", access),
            (os, "getcwd", getcwd),
        ):
            self._saved.append((owner, attr, getattr(owner, attr), new))
            setattr(owner, attr, new)

    def off(self) -> None:
        """Put the originals back, unless a test replaced a wrapper with its own."""
        for owner, attr, old, new in reversed(self._saved):
            if getattr(owner, attr) is new:  # a test that replaced it keeps its own
                setattr(owner, attr, old)
        self._saved = []
