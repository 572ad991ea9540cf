"""Knowing cheaply whether an order touched the working copy (Linux inotify).

After every order the sandbox must put the working copy back as it was. Walking the
tree to find out whether anything changed costs one ``stat`` per file: a few hundred
microseconds for a small project, tens of milliseconds for one with thousands of files,
paid after every order although most orders change nothing. A :class:`TreeWatch`
watches every directory of the tree with inotify, so "nothing changed" is one
non-blocking read; only when something did does the sandbox walk the tree.

What inotify cannot see, the walk would not have seen either: writes through a shared
``mmap`` (no event, and often no new mtime until write-back). Directories the sandbox
never compares (``__pycache__``, ``.pytest_cache``) are not watched, and creating
them does not count as a change. Where inotify is missing or its watch limit is reached,
:meth:`TreeWatch.start` returns None and the sandbox walks the tree after every order.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any, Optional

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x1000000
IN_DONT_FOLLOW = 0x2000000
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000

MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
)
# The watched directory itself went away or the kernel dropped events: assume a change.
ALARMS = IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED
HEADER = struct.Struct("iIII")

_libc: Optional[Any] = None


def _lib() -> Optional[Any]:
    global _libc
    if _libc is None:
        if not sys.platform.startswith("linux"):
            return None
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.inotify_init1.argtypes = [ctypes.c_int]
            libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        except (OSError, AttributeError):
            return None
        _libc = libc
    return _libc


class TreeWatch:
    """An inotify watch on every directory under ``root`` but the ``skip``-named ones."""

    def __init__(self, fd: int, root: Path, skip: Collection[str]) -> None:
        self._fd = fd
        self._root = str(root)
        self._skip = skip
        self._dirs: dict[int, str] = {}  # watch descriptor -> directory, relative to root

    @classmethod
    def start(cls, root: Path, skip: Collection[str]) -> Optional[TreeWatch]:
        """A watch on ``root``, or None when inotify cannot watch all of it."""
        libc = _lib()
        if libc is None:
            return None
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            return None
        watch = cls(fd, root, skip)
        if not watch.add(""):
            watch.close()
            return None
        return watch

    def add(self, rel: str) -> bool:
        """Watch the directory ``rel`` (relative to the root; "" is the root) and every
        directory under it. Watching one twice is harmless; False if a watch was refused.

        Call it after changing the tree yourself, then :meth:`changes` to forget your own
        changes: keeping one inotify instance is much cheaper than closing it (the kernel
        waits for a grace period on close).
        """
        libc = _lib()
        assert libc is not None
        stack = [rel]
        while stack:
            current = stack.pop()
            directory = os.path.join(self._root, current) if current else self._root
            wd = libc.inotify_add_watch(self._fd, os.fsencode(directory), MASK)
            if wd < 0:
                if ctypes.get_errno() in (errno.ENOENT, errno.ENOTDIR):
                    continue  # gone or replaced since it was listed
                return False  # e.g. ENOSPC: the per-user watch limit is reached
            self._dirs[wd] = current
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for entry in entries:
                if entry.name not in self._skip and entry.is_dir(follow_symlinks=False):
                    stack.append(os.path.join(current, entry.name) if current else entry.name)
        return True

    def changes(self) -> Optional[set[str]]:
        """The paths (relative to the root) created, changed or deleted since the last
        call, which drains the events; None when that is not known (events were lost or
        a watched directory itself went away): then anything may have changed."""
        paths: set[str] = set()
        unknown = False
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return None if unknown else paths
            except OSError:
                return None
            if not data:
                return None
            unknown = self._collect(data, paths) or unknown

    def _collect(self, data: bytes, paths: set[str]) -> bool:
        """Add the paths named by the events in ``data``; True if one was an alarm."""
        offset = 0
        alarm = False
        while offset + HEADER.size <= len(data):
            wd, mask, _cookie, length = HEADER.unpack_from(data, offset)
            name = os.fsdecode(
                data[offset + HEADER.size : offset + HEADER.size + length].rstrip(b"\0")
            )
            offset += HEADER.size + length
            directory = self._dirs.get(wd)
            if mask & ALARMS or directory is None:
                alarm = True
            elif not name:  # the watched directory itself (its mode, say)
                if directory:
                    paths.add(directory)
            elif name not in self._skip:
                paths.add(os.path.join(directory, name) if directory else name)
        return alarm

    def changed(self) -> bool:
        """Whether anything under the tree changed since the last call (drains events)."""
        return self.changes() != set()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
