"""The audit hook that sees file access while a test runs (see :mod:`.reads`).

``sys.addaudithook`` cannot be undone, so the hook is installed once per process and does
nothing unless a window is open (:data:`ACTIVE` holds its recorder). Events name the path
before the operation happens, so a write can still see the file's pre-image. Paths
relative to a directory descriptor (inside ``shutil.rmtree``) are skipped: the call that
started the walk was recorded already.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Optional, Protocol


class Recorder(Protocol):
    """What the hook reports to (implemented by :class:`~.reads.ReadTracer`)."""

    busy: bool
    flags: set[str]

    def path_read(self, path: Any, *, wildcard: bool = False, listing: bool = False) -> None: ...

    def path_write(self, path: Any, *, tree: bool = False) -> None: ...


ACTIVE: list[Optional[Recorder]] = [None]  # the recorder of the open window, if any
_INSTALLED: list[bool] = [False]
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def install() -> None:
    """Install the hook (once per process; it cannot be removed)."""
    if not _INSTALLED[0]:
        sys.addaudithook(_audit)
        _INSTALLED[0] = True


def _audit(event: str, args: tuple[Any, ...]) -> None:
    rec = ACTIVE[0]
    if rec is None or rec.busy:
        return
    handler = _HANDLERS.get(event)
    if handler is None:
        return
    rec.busy = True
    try:
        handler(rec, args)
    except Exception:
        pass  # an audit hook must never break the audited operation
    finally:
        rec.busy = False


def _on_open(rec: Recorder, args: tuple[Any, ...]) -> None:
    path, mode, flags = (*args, None, None, 0)[:3]
    if isinstance(path, int):
        return
    if mode is None:  # os.open: decide from the flags
        flags = flags or 0
        access = flags & getattr(os, "O_ACCMODE", 3)  # not defined on Windows
        write = bool(flags & _WRITE_FLAGS)
        read = access != os.O_WRONLY or not flags & os.O_TRUNC
        wildcard = True
    else:
        write = any(c in mode for c in "wax+")
        read = any(c in mode for c in "rax+")
        wildcard = False
    if read:
        rec.path_read(path, wildcard=wildcard)
    if write:
        rec.path_write(path)


def _first(n: int, tree: bool = False, read: bool = False) -> Callable[[Recorder, Any], None]:
    def handle(rec: Recorder, args: tuple[Any, ...]) -> None:
        for path in args[:n]:
            if read:
                rec.path_read(path, wildcard=True)
            else:
                rec.path_write(path, tree=tree)

    return handle


def _with_dir_fd(handler: Callable[[Recorder, Any], None], fd_index: int) -> Any:
    def handle(rec: Recorder, args: tuple[Any, ...]) -> None:
        fd = args[fd_index] if len(args) > fd_index else None
        if fd not in (None, -1):
            return  # a path relative to a directory descriptor (inside rmtree/fwalk)
        handler(rec, args)

    return handle


def _listing(rec: Recorder, args: tuple[Any, ...]) -> None:
    rec.path_read(args[0] if args else None, listing=True)


def _glob(rec: Recorder, args: tuple[Any, ...]) -> None:
    pattern = os.fsdecode(args[0]) if args else ""
    head = pattern
    for i, ch in enumerate(pattern):
        if ch in "*?[":
            head = pattern[:i]
            break
    rec.path_read(os.path.dirname(head) or ".", listing=True)


def _copy(tree: bool) -> Callable[[Recorder, Any], None]:
    def handle(rec: Recorder, args: tuple[Any, ...]) -> None:
        rec.path_read(args[0], wildcard=True)
        rec.path_write(args[1], tree=tree)

    return handle


def _flag(name: str) -> Callable[[Recorder, Any], None]:
    def handle(rec: Recorder, args: tuple[Any, ...]) -> None:
        rec.flags.add(name)

    return handle


_HANDLERS: dict[str, Callable[[Recorder, Any], None]] = {
    "open": _on_open,
    "os.listdir": _listing,
    "os.scandir": _listing,
    "glob.glob": _glob,
    "glob.glob/2": _glob,
    "os.remove": _with_dir_fd(_first(1), 1),
    "os.rmdir": _with_dir_fd(_first(1), 1),
    "os.mkdir": _with_dir_fd(_first(1), 2),
    "os.rename": _with_dir_fd(_first(2, tree=True), 2),
    "os.truncate": _first(1),
    "os.utime": _first(1),
    "os.chmod": _first(1),
    "os.chown": _first(1),
    "os.symlink": _with_dir_fd(lambda rec, a: rec.path_write(a[1]), 2),
    "os.link": _with_dir_fd(lambda rec, a: rec.path_write(a[1]), 2),
    "shutil.rmtree": _with_dir_fd(_first(1, tree=True), 1),
    "shutil.copyfile": _copy(False),
    "shutil.copytree": _copy(True),
    "shutil.move": _copy(True),
    "tempfile.mkstemp": _first(1),
    "tempfile.mkdtemp": _first(1),
    "import": _flag("import"),
    "subprocess.Popen": _flag("subprocess"),
    "os.system": _flag("subprocess"),
    "os.exec": _flag("subprocess"),
    "os.spawn": _flag("subprocess"),
    "os.posix_spawn": _flag("subprocess"),
}
