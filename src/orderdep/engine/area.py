"""A directory that is put back, after every order, exactly as it was at its baseline.

The sandbox keeps three: the working copy of the project, the private ``HOME`` and the
private ``TMPDIR``. The baseline is taken once the suite is collected, so whatever
collection wrote (a cache directory made at import under ``TMPDIR``, a config file in
``HOME``, a generated file in the project) is there for every order, as it is for every
test of a fresh ``python -m pytest``; whatever an order writes is gone before the next.
"""

from __future__ import annotations

import bisect
import os
import shutil
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from orderdep.engine.treewatch import TreeWatch

# Not compared after an order: written by imports, harmless to keep.
VOLATILE_DIRS = frozenset({"__pycache__", ".pytest_cache"})

if TYPE_CHECKING:  # builtin generics are not subscriptable at run time on 3.8
    Fingerprint = tuple[int, int, int]  # (mode, size, mtime_ns)


def fingerprint(st: os.stat_result) -> Fingerprint:
    return (st.st_mode, st.st_size, st.st_mtime_ns)


def scan(root: Path) -> dict[str, Fingerprint]:
    """Fingerprint every file and directory under ``root`` (relative paths)."""
    out: dict[str, Fingerprint] = {}
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        current, prefix = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            if entry.name in VOLATILE_DIRS:
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            rel = prefix + entry.name
            out[rel] = fingerprint(st)
            if stat.S_ISDIR(st.st_mode):
                stack.append((entry.path, rel + os.sep))
    return out


def copyable(mode: int) -> bool:
    """A regular file or a symlink: what can be saved and put back. A socket or a named
    pipe that collection left (a ``multiprocessing`` listener under ``TMPDIR``) belongs
    to a live process: opening it to copy fails (or blocks)."""
    return stat.S_ISREG(mode) or stat.S_ISLNK(mode)


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def empty_dir(path: Path) -> None:
    """Delete everything inside ``path`` (keep ``path`` itself)."""
    path.mkdir(parents=True, exist_ok=True)
    for entry in os.scandir(path):
        remove(Path(entry.path))


class Area:
    """``root``, restored after every order to its state at :meth:`mark_baseline`.

    Files are restored from ``origin`` (the project, for a working copy) when they are
    as they were there, else from copies saved under ``saved`` when the baseline was
    marked. With a :class:`~orderdep.engine.treewatch.TreeWatch` only the paths it saw
    change are compared (none at all after most orders); without one, or when it lost
    track, the whole area is walked.
    """

    def __init__(self, root: Path, saved: Path, origin: Optional[Path] = None) -> None:
        self.root = root
        self.saved = saved
        self.origin = origin
        self._baseline: dict[str, Fingerprint] = {}
        self._watch: Optional[TreeWatch] = None
        self._keys: Optional[list[str]] = None  # sorted baseline paths, for prefix lookups

    def mark_baseline(self) -> None:
        """Remember the area as it is now; :meth:`restore` returns to this state."""
        self._rewatch()
        self._baseline = scan(self.root)
        self._keys = None
        origin = scan(self.origin) if self.origin is not None else {}
        if self.saved.exists():
            shutil.rmtree(self.saved)
        for rel, fp in self._baseline.items():
            if not copyable(fp[0]):
                continue  # a directory is made again; a socket or pipe belongs to a process
            original = origin.get(rel)
            if original is None or original[0] != fp[0] or original[1:] != fp[1:]:
                target = self.saved / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(self.root / rel, target, follow_symlinks=False)

    def _rewatch(self, under: Optional[Iterable[str]] = None) -> None:
        """Watch the area as it is now (new directories too; only those ``under`` the
        given paths when known) and forget the changes seen so far."""
        if self._watch is None:
            self._watch = TreeWatch.start(self.root, VOLATILE_DIRS)
            return
        roots = [""] if under is None else [r for r in under if (self.root / r).is_dir()]
        if all(self._watch.add(r) for r in roots):
            self._watch.changes()
        else:
            self._watch.close()
            self._watch = None

    def restore(self) -> list[str]:
        """Undo every change since the baseline; returns the paths put back."""
        touched = self._watch.changes() if self._watch is not None else None
        if touched is not None and not touched:
            return []
        if touched is None:
            now, base = scan(self.root), self._baseline
        else:
            now, base = self._partial(touched)
        changed = self._undo(now, base)
        if changed:
            if touched is None:
                self._baseline = scan(self.root)
            else:
                # what the undo left, read again (the sorted keys stay those of the
                # baseline until the set of paths changes)
                fresh = self._now(touched)
                for rel in base:
                    del self._baseline[rel]
                self._baseline.update(fresh)
                if fresh.keys() != base.keys():
                    self._keys = None  # paths came or went: sort again when next needed
        self._rewatch(touched)
        return changed

    def _partial(
        self, paths: Iterable[str]
    ) -> tuple[dict[str, Fingerprint], dict[str, Fingerprint]]:
        """Fingerprints now and in the baseline of ``paths`` and everything under them."""
        paths = list(paths)
        return self._now(paths), self._base(paths)

    def _now(self, paths: Iterable[str]) -> dict[str, Fingerprint]:
        """Fingerprints of ``paths`` and everything under them, as they are now."""
        now: dict[str, Fingerprint] = {}
        for rel in paths:
            try:
                st = os.lstat(self.root / rel)
            except OSError:
                continue
            now[rel] = fingerprint(st)
            if stat.S_ISDIR(st.st_mode):
                for sub, fp in scan(self.root / rel).items():
                    now[rel + os.sep + sub] = fp
        return now

    def _base(self, paths: Iterable[str]) -> dict[str, Fingerprint]:
        """Baseline fingerprints of ``paths`` and everything under them."""
        if self._keys is None:
            self._keys = sorted(self._baseline)
        keys = self._keys
        base: dict[str, Fingerprint] = {}
        for rel in paths:
            if rel in self._baseline:
                base[rel] = self._baseline[rel]
            prefix = rel + os.sep
            i = bisect.bisect_left(keys, prefix)
            while i < len(keys) and keys[i].startswith(prefix):
                base[keys[i]] = self._baseline[keys[i]]
                i += 1
        return base

    def _undo(self, now: dict[str, Fingerprint], base: dict[str, Fingerprint]) -> list[str]:
        """Make the entries ``now`` describes what ``base`` says they were."""
        changed: list[str] = []
        for rel in sorted(set(now) - set(base), key=len, reverse=True):
            remove(self.root / rel)
            changed.append(rel)
        for rel, before in sorted(base.items()):
            after = now.get(rel)
            if after == before:
                continue
            target = self.root / rel
            if stat.S_ISDIR(before[0]):
                if after is not None and not stat.S_ISDIR(after[0]):
                    remove(target)
                target.mkdir(parents=True, exist_ok=True)
            elif not copyable(before[0]):
                continue  # nothing to put back (see copyable); the next order makes its own
            else:
                source = self.saved / rel
                if not (source.exists() or source.is_symlink()) and self.origin is not None:
                    source = self.origin / rel
                if after is not None or target.is_symlink():
                    remove(target)
                if source.exists() or source.is_symlink():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(source, target, follow_symlinks=False)
            changed.append(rel)
        return changed

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None
