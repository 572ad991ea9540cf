"""File roots: files and directories under the project, the temp dir and HOME.

PRADET (paper 001 §III-A) leaves external state out; in Python suites files are a common
channel between tests, so we treat each file as a root named ``file:<relpath>`` (under the
project rootdir), ``file:$TMP/<relpath>`` (temp dir) or ``file:~/<relpath>`` (HOME);
directories end in ``/``. With ``cwd=True`` (repair's captures), the working directory too
when a test moved it outside those (a session fixture's ``chdir`` into a directory of
pytest's ``basetemp`` that tests write into): ``file:$CWD/<relpath>``, named relative to
the working directory of the moment, so the same file has the same name in every process.

A file's fingerprint is its content hash when it is small (rewriting the same bytes is
no write) and ``size + mtime_ns`` otherwise. Content is only re-read when the stat
changed or the file was opened for writing in this process (mtime resolution can hide
two writes in a row).

Scans are bounded (``max_files`` per watched dir, ``max_depth``) and skip caches, VCS data,
virtual environments, bytecode, pytest's ``basetemp`` and orderdep's own files.
"""

from __future__ import annotations

import os
import stat
import time
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

_stat = os.stat  # the real one: the read tracer wraps ``os.stat`` while a test runs
_lstat = os.lstat
_scandir = os.scandir
_open = open

EXCLUDED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".pytest_cache",
        ".orderdep",
        ".mypy_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "node_modules",
        "site-packages",
        "dist-packages",
        ".hypothesis",
        ".cache",
        ".pyenv",
    }
)
EXCLUDED_SUFFIXES = (".pyc", ".pyo")
# Top-level temp entries that belong to pytest (basetemp) or to orderdep's engine.
EXCLUDED_TEMP_PREFIXES = ("pytest-of-", "orderdep-", "pytest-", "tmp-orderdep")

CWD_PREFIX = "file:$CWD/"
CWD_MAX_DEPTH = 4  # the working directory's scan: shallower and smaller than the project's
CWD_MAX_FILES = 1000

DIR_FP = hash("dir")
if TYPE_CHECKING:  # builtin generics are not subscriptable at run time on 3.8
    _Child = tuple[str, str, bool]  # (root name, path, is a directory)
ABSENT = None


@dataclass(frozen=True)
class Watched:
    """One watched directory and the prefix its roots are named with."""

    path: str  # absolute, normalised, no trailing separator
    prefix: str  # "file:", "file:$TMP/" or "file:~/"
    temp_like: bool = False


SETTLE_NS = 50_000_000  # a directory changed this recently may change again unseen


def _settled(mtime: int) -> int:
    """``mtime``, or -1 (always list again) if it is too recent to trust.

    File systems stamp with a coarse clock: a second change within the same tick would leave
    the directory's mtime as it was when we listed it.
    """
    return -1 if time.time_ns() - mtime < SETTLE_NS else mtime


def normalise(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))


class FileWatcher:
    """Scans the watched directories into ``{root name: fingerprint}``."""

    def __init__(
        self,
        rootdir: str,
        *,
        temp_dirs: Sequence[str] = (),
        home: Optional[str] = None,
        hash_limit: int = 64 * 1024,
        max_files: int = 5000,
        max_depth: int = 12,
        cwd: bool = False,
    ) -> None:
        self.cwd = cwd
        watched = [Watched(normalise(rootdir), "file:")]
        for t in temp_dirs:
            watched.append(Watched(normalise(t), "file:$TMP/", temp_like=True))
        if home:
            watched.append(Watched(normalise(home), "file:~/", temp_like=True))
        # Same directory watched twice (HOME == rootdir): keep the first name.
        unique: dict[str, Watched] = {}
        for w in watched:
            unique.setdefault(w.path, w)
            real = os.path.realpath(w.path)
            if real != w.path:
                unique.setdefault(real, Watched(real, w.prefix, w.temp_like))
        self.watched = sorted(unique.values(), key=lambda w: len(w.path), reverse=True)
        self._watched_paths = frozenset(unique)
        self.hash_limit = hash_limit
        self.max_files = max_files
        self.max_depth = max_depth
        self.truncated: list[str] = []
        self._cache: dict[str, tuple[tuple[int, int, int, int], int]] = {}
        self._dirty: set[str] = set()
        self._extra: dict[str, str] = {}  # path -> name, tracked beyond the scan
        self._venvs: dict[str, bool] = {}
        self._previous: Optional[dict[str, int]] = None
        self._dirs: dict[str, tuple[int, Watched, str, int, list[_Child]]] = {}
        self.pre_images: dict[str, Optional[int]] = {}

    # -- names ---------------------------------------------------------------------------
    def name_of(self, path: str) -> Optional[str]:
        """The root name of an absolute normalised path, or None when not watched."""
        for w in self.watched:
            base = w.path
            if path == base:
                return w.prefix
            if path.startswith(base) and path[len(base)] == os.sep:
                rel = path[len(base) + 1 :]
                parts = rel.split(os.sep)
                if self._excluded(parts, w):
                    return None
                return w.prefix + "/".join(parts)
        return None

    def path_of(self, name: str) -> Optional[str]:
        """The absolute path of a ``file:`` root name (inverse of :meth:`name_of`); a
        ``file:$CWD/`` name is under the working directory of the moment."""
        if name.startswith(CWD_PREFIX):
            rel = name[len(CWD_PREFIX) :].rstrip("/")
            return os.path.join(os.getcwd(), *rel.split("/")) if rel else os.getcwd()
        for w in sorted(self.watched, key=lambda w: len(w.prefix), reverse=True):
            if name.startswith(w.prefix):
                rel = name[len(w.prefix) :].rstrip("/")
                return os.path.join(w.path, *rel.split("/")) if rel else w.path
        return None

    def _excluded(self, parts: Sequence[str], w: Watched) -> bool:
        if parts[-1].endswith(EXCLUDED_SUFFIXES):
            return True
        if w.temp_like and parts[0].startswith(EXCLUDED_TEMP_PREFIXES):
            return True
        return any(p in EXCLUDED_DIRS for p in parts)

    # -- fingerprints ----------------------------------------------------------------------
    def _file_fp(self, path: str, st: os.stat_result) -> int:
        if stat.S_ISDIR(st.st_mode):
            return DIR_FP
        key = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_mode)
        cached = self._cache.get(path)
        if cached is not None and cached[0] == key and path not in self._dirty:
            return cached[1]
        if stat.S_ISLNK(st.st_mode):
            try:
                fp = hash(("link", os.readlink(path)))
            except OSError:
                fp = hash(("link", key))
        elif stat.S_ISREG(st.st_mode) and st.st_size <= self.hash_limit:
            try:
                with _open(path, "rb") as fh:
                    fp = hash(("content", st.st_size, zlib.crc32(fh.read())))
            except OSError:
                fp = hash(("stat", key))
        else:
            fp = hash(("stat", st.st_size, st.st_mtime_ns))
        self._cache[path] = (key, fp)
        return fp

    def fingerprint_path(self, path: str) -> Optional[int]:
        """Fingerprint of one path now (None when it does not exist)."""
        try:
            st = _lstat(path)
        except OSError:
            return ABSENT
        return self._file_fp(path, st)

    def _is_venv(self, path: str) -> bool:
        hit = self._venvs.get(path)
        if hit is None:
            try:
                _stat(os.path.join(path, "pyvenv.cfg"))
                hit = True
            except OSError:
                hit = False
            self._venvs[path] = hit
        return hit

    # -- scans -------------------------------------------------------------------------------
    def scan(self, *, full: bool = True) -> dict[str, int]:
        """Fingerprint every watched file and directory (plus paths written earlier).

        ``full=False`` starts from the previous scan: only directories whose mtime changed
        (an entry was created, removed or renamed) are listed again, and only files written
        in this process since (:meth:`will_write`) are fingerprinted again. In-place changes
        made by other processes or unaudited C code show in full scans only.
        """
        if full or self._previous is None:
            out: dict[str, int] = {}
            self.truncated = []
            self._dirs = {}
            for w in self.watched:
                self._scan_tree(w, w.path, "", 0, out, [self.max_files])
        else:
            out = dict(self._previous)
            self._rescan_changed_dirs(out)
            for path in self._dirty:
                name = self.name_of(path)
                if name is None:
                    continue
                fp = self.fingerprint_path(path)
                out.pop(name, None)
                out.pop(name + "/", None)
                if fp is not None:
                    out[name + "/" if fp == DIR_FP else name] = fp
        if self.cwd:
            out.update(self._cwd_scan())
        for path, name in self._extra.items():
            if name not in out and name + "/" not in out:
                fp = self.fingerprint_path(path)
                if fp is not None:
                    out[name + "/" if fp == DIR_FP else name] = fp
        self._dirty.clear()
        self._previous = dict(out)
        return out

    def _cwd_scan(self) -> dict[str, int]:
        """The working directory's files as ``file:$CWD/`` roots, when it is outside every
        watched directory or in an excluded part of one (pytest's ``basetemp``); bounded
        by :data:`CWD_MAX_DEPTH` and :data:`CWD_MAX_FILES`, listed afresh each time."""
        try:
            here = normalise(os.getcwd())
        except OSError:
            return {}
        if self.name_of(here) is not None or here == os.path.dirname(here):
            return {}  # watched already (the project, say), or the file system's root
        where = Watched(here, CWD_PREFIX)
        out: dict[str, int] = {}
        stack, left = [(here, "", 0)], CWD_MAX_FILES
        while stack and left > 0:
            directory, rel, depth = stack.pop()
            children = self._list(where, directory, rel, out)
            left -= len(children)
            if depth < CWD_MAX_DEPTH:
                stack += [
                    (path, key[len(CWD_PREFIX) :], depth + 1)
                    for key, path, is_dir in children
                    if is_dir and path not in self._watched_paths and not self._is_venv(path)
                ]
        return out

    def _list(self, w: Watched, directory: str, rel: str, out: dict[str, int]) -> list[_Child]:
        """Fingerprint the entries of one directory into ``out``; returns its children."""
        children: list[_Child] = []
        try:
            it = _scandir(directory)
        except OSError:
            return children
        with it:
            for entry in it:
                name = entry.name
                if name in EXCLUDED_DIRS or name.endswith(EXCLUDED_SUFFIXES):
                    continue
                if w.temp_like and not rel and name.startswith(EXCLUDED_TEMP_PREFIXES):
                    continue
                path = entry.path
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    if path in self._watched_paths or self._is_venv(path):
                        continue
                    key = w.prefix + rel + name + "/"
                    out[key] = DIR_FP
                else:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    key = w.prefix + rel + name
                    out[key] = self._file_fp(path, st)
                children.append((key, path, is_dir))
        return children

    def _scan_tree(
        self,
        w: Watched,
        top: str,
        rel: str,
        depth: int,
        out: dict[str, int],
        budget: list[int],
    ) -> None:
        stack: list[tuple[str, str, int]] = [(top, rel, depth)]
        while stack:
            directory, rel, depth = stack.pop()
            try:
                mtime = _settled(_stat(directory).st_mtime_ns)
            except OSError:
                continue
            children = self._list(w, directory, rel, out)
            self._dirs[directory] = (mtime, w, rel, depth, children)
            budget[0] -= len(children)
            if budget[0] <= 0:
                self.truncated.append(directory)
                return
            if depth < self.max_depth:
                for key, path, is_dir in children:
                    if is_dir:
                        stack.append((path, key[len(w.prefix) :], depth + 1))

    def _rescan_changed_dirs(self, out: dict[str, int]) -> None:
        for directory in list(self._dirs):
            known = self._dirs.get(directory)
            if known is None:  # dropped with a removed parent in this loop
                continue
            mtime, w, rel, depth, old = known
            try:
                now = _stat(directory).st_mtime_ns
            except OSError:
                now = None
            if now == mtime:
                continue
            for key, _, _ in old:
                out.pop(key, None)
            if now is None:
                self._forget(directory, out)
                continue
            children = self._list(w, directory, rel, out)
            self._dirs[directory] = (_settled(now), w, rel, depth, children)
            fresh = {path for _, path, is_dir in children if is_dir}
            for _, path, is_dir in old:
                if is_dir and path not in fresh:
                    self._forget(path, out)
            if depth < self.max_depth:
                for key, path, is_dir in children:
                    if is_dir and path not in self._dirs:
                        self._scan_tree(
                            w, path, key[len(w.prefix) :], depth + 1, out, [self.max_files]
                        )

    def _forget(self, directory: str, out: dict[str, int]) -> None:
        """Drop a directory that is gone, and everything known under it."""
        known = self._dirs.pop(directory, None)
        if known is None:
            return
        for key, path, is_dir in known[4]:
            out.pop(key, None)
            if is_dir:
                self._forget(path, out)

    # -- in-process writes (from the audit hook) ------------------------------------------
    def will_write(self, path: str, *, tree: bool = False) -> None:
        """``path`` is about to be written/removed in this process: keep its pre-image.

        Called before the write happens, so the current fingerprint is the one the test
        started from (unless the test wrote it earlier, in which case the snapshot taken
        before the test already holds it: :attr:`pre_images` only fills gaps).
        """
        name = self.name_of(path)
        if name is None:
            return
        self._dirty.add(path)
        if path not in self._extra:
            self._extra[path] = name
        fp = self.fingerprint_path(path)
        key = name + "/" if fp == DIR_FP else name
        self.pre_images.setdefault(key, fp)
        if tree and fp == DIR_FP:
            for sub, sub_fp in self._walk_tree(path):
                sub_name = self.name_of(sub)
                if sub_name is not None:
                    self._extra.setdefault(sub, sub_name)
                    self.pre_images.setdefault(
                        sub_name + "/" if sub_fp == DIR_FP else sub_name, sub_fp
                    )

    def _walk_tree(self, top: str) -> Iterable[tuple[str, int]]:
        count = 0
        for directory, dirs, files in os.walk(top):
            for n in dirs:
                count += 1
                yield os.path.join(directory, n), DIR_FP
            for n in files:
                count += 1
                p = os.path.join(directory, n)
                fp = self.fingerprint_path(p)
                if fp is not None:
                    yield p, fp
            if count > self.max_files:
                return

    def take_pre_images(self) -> dict[str, Optional[int]]:
        out, self.pre_images = self.pre_images, {}
        return out
