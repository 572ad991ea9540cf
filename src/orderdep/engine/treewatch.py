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

    def __init__(self, fd: int, skip: Collection[str]) -> None:
        self._fd = fd
        self._skip = skip

    @classmethod
    def start(cls, root: Path, skip: Collection[str]) -> Optional[TreeWatch]:
        """A watch on ``root``, or None when inotify cannot watch all of it."""
        libc = _lib()
        if libc is None:
            return None
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            return None
        watch = cls(fd, skip)
        if not watch.add_tree(root):
            watch.close()
            return None
        return watch

    def add_tree(self, root: Path) -> bool:
        """Watch every directory under ``root`` (again: watching one twice is harmless).

        Call it after changing the tree yourself, then :meth:`changed` to forget your
        own changes; keeping one inotify instance is much cheaper than closing it (the
        kernel waits for a grace period on close). False if a watch was refused.
        """
        libc = _lib()
        assert libc is not None
        stack = [str(root)]
        while stack:
            directory = stack.pop()
            if libc.inotify_add_watch(self._fd, os.fsencode(directory), MASK) < 0:
                if ctypes.get_errno() in (errno.ENOENT, errno.ENOTDIR):
                    continue  # gone or replaced since it was listed: the walk handles it
                return False  # e.g. ENOSPC: the per-user watch limit is reached
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for entry in entries:
                if entry.name not in self._skip and entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
        return True

    def changed(self) -> bool:
        """Whether anything under the tree changed since the last call (drains events)."""
        seen = False
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return seen
            except OSError:
                return True
            if not data:
                return True
            seen = self._relevant(data) or seen

    def _relevant(self, data: bytes) -> bool:
        offset = 0
        relevant = False
        while offset + HEADER.size <= len(data):
            _wd, mask, _cookie, length = HEADER.unpack_from(data, offset)
            name = data[offset + HEADER.size : offset + HEADER.size + length].rstrip(b"\0")
            offset += HEADER.size + length
            if mask & ALARMS or os.fsdecode(name) not in self._skip:
                relevant = True
        return relevant

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
