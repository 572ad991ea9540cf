"""Private working copies, so orders never see each other's files.

Each worker runs its tests in its own copy of the project with its own ``HOME`` and
``TMPDIR``. After every order the copy is put back as it was (files the order created are
deleted, changed or deleted ones restored from the project) and ``HOME``/``TMPDIR`` are
emptied, so a file written by one order cannot change the outcome of the next one, nor of
an order running at the same time in another worker.
"""

from __future__ import annotations

import bisect
import os
import shutil
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Optional

from orderdep.engine.treewatch import TreeWatch

# Never copied: version control, virtual environments, caches, orderdep's own data.
IGNORED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "node_modules",
        ".orderdep",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "__pycache__",
    }
)
# Not compared after an order: written by imports, harmless to keep.
VOLATILE_DIRS = frozenset({"__pycache__", ".pytest_cache"})

PROJECT_ENV = "ORDERDEP_PROJECT"

Fingerprint = tuple[int, int, int]  # (mode, size, mtime_ns)


def _is_venv(path: Path) -> bool:
    return (path / "pyvenv.cfg").is_file()


def copy_project(source: Path, dest: Path) -> None:
    """Copy ``source`` to ``dest`` without VCS data, virtual environments and caches."""

    def ignore(directory: str, names: list[str]) -> list[str]:
        base = Path(directory)
        return [n for n in names if n in IGNORED_DIRS or (base / n / "pyvenv.cfg").is_file()]

    shutil.copytree(source, dest, ignore=ignore, symlinks=True)


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


def _remove(path: Path) -> None:
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
        _remove(Path(entry.path))


class Sandbox:
    """One worker's private copy of the project plus its own HOME and TMPDIR."""

    def __init__(self, project: Path, workdir: Path, *, copy: bool = True) -> None:
        self.project = project.resolve()
        self.workdir = workdir
        self.copy = copy
        self.tree = (workdir / "tree") if copy else self.project
        self.home = workdir / "home"
        self.tmp = workdir / "tmp"
        self.basetemp = workdir / "basetemp"
        self.saved = workdir / "baseline-files"
        self._baseline: dict[str, Fingerprint] = {}
        self._watch: Optional[TreeWatch] = None
        self._keys: Optional[list[str]] = None  # sorted baseline paths, for prefix lookups

    def create(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        if self.copy:
            if self.tree.exists():
                shutil.rmtree(self.tree)
            copy_project(self.project, self.tree)
        for d in (self.home, self.tmp):
            empty_dir(d)
        self.mark_baseline()

    def mark_baseline(self) -> None:
        """Remember the tree as it is now; :meth:`restore` returns to this state.

        Files that differ from the project (written while the suite was collected, say)
        are saved aside, so a test that deletes or changes them is undone faithfully.
        """
        if not self.copy:
            return
        self._rewatch()
        self._baseline = scan(self.tree)
        self._keys = None
        project = scan(self.project)
        if self.saved.exists():
            shutil.rmtree(self.saved)
        for rel, fp in self._baseline.items():
            if stat.S_ISDIR(fp[0]):
                continue
            original = project.get(rel)
            if original is None or original[0] != fp[0] or original[1:] != fp[1:]:
                target = self.saved / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(self.tree / rel, target, follow_symlinks=False)

    def env(self) -> dict[str, str]:
        """Environment overrides for processes that run tests in this sandbox."""
        return {
            "HOME": str(self.home),
            "TMPDIR": str(self.tmp),
            "TEMP": str(self.tmp),
            "TMP": str(self.tmp),
        }

    def _rewatch(self, under: Optional[Iterable[str]] = None) -> None:
        """Watch the tree as it is now (new directories too; only those ``under`` the
        given paths when known) and forget the changes seen so far."""
        if self._watch is None:
            self._watch = TreeWatch.start(self.tree, VOLATILE_DIRS)
            return
        roots = [""] if under is None else [r for r in under if (self.tree / r).is_dir()]
        if all(self._watch.add(r) for r in roots):
            self._watch.changes()
        else:
            self._watch.close()
            self._watch = None

    def restore(self) -> list[str]:
        """Undo every file change since the baseline; returns the paths put back.

        With a :class:`~orderdep.engine.treewatch.TreeWatch` on the tree, only the paths
        it saw change are compared (none at all after most orders); without one, or
        when it lost track, the whole tree is walked.
        """
        changed: list[str] = []
        empty_dir(self.tmp)
        empty_dir(self.home)
        if not self.copy:
            return changed
        touched = self._watch.changes() if self._watch is not None else None
        if touched is not None and not touched:
            return changed
        if touched is None:
            now, base = scan(self.tree), self._baseline
        else:
            now, base = self._partial(touched)
        changed = self._undo(now, base)
        if changed:
            if touched is None:
                self._baseline = scan(self.tree)
            else:
                for rel in base:
                    del self._baseline[rel]
                fresh = self._partial(touched)[0]
                self._baseline.update(fresh)
                if fresh.keys() != base.keys():
                    self._keys = None  # paths came or went: sort again when next needed
        self._rewatch(touched)
        return changed

    def _partial(
        self, paths: Iterable[str]
    ) -> tuple[dict[str, Fingerprint], dict[str, Fingerprint]]:
        """Fingerprints now and in the baseline of ``paths`` and everything under them."""
        if self._keys is None:
            self._keys = sorted(self._baseline)
        keys = self._keys
        now: dict[str, Fingerprint] = {}
        base: dict[str, Fingerprint] = {}
        for rel in paths:
            try:
                st = os.lstat(self.tree / rel)
            except OSError:
                pass
            else:
                now[rel] = fingerprint(st)
                if stat.S_ISDIR(st.st_mode):
                    for sub, fp in scan(self.tree / rel).items():
                        now[rel + os.sep + sub] = fp
            if rel in self._baseline:
                base[rel] = self._baseline[rel]
            prefix = rel + os.sep
            i = bisect.bisect_left(keys, prefix)
            while i < len(keys) and keys[i].startswith(prefix):
                base[keys[i]] = self._baseline[keys[i]]
                i += 1
        return now, base

    def _undo(self, now: dict[str, Fingerprint], base: dict[str, Fingerprint]) -> list[str]:
        """Make the entries ``now`` describes what ``base`` says they were."""
        changed: list[str] = []
        for rel in sorted(set(now) - set(base), key=len, reverse=True):
            _remove(self.tree / rel)
            changed.append(rel)
        for rel, before in sorted(base.items()):
            after = now.get(rel)
            if after == before:
                continue
            target = self.tree / rel
            if stat.S_ISDIR(before[0]):
                if after is not None and not stat.S_ISDIR(after[0]):
                    _remove(target)
                target.mkdir(parents=True, exist_ok=True)
            else:
                source = self.saved / rel
                if not (source.exists() or source.is_symlink()):
                    source = self.project / rel
                if after is not None or target.is_symlink():
                    _remove(target)
                if source.exists() or source.is_symlink():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(source, target, follow_symlinks=False)
            changed.append(rel)
        return changed

    def destroy(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None
        shutil.rmtree(self.workdir, ignore_errors=True)
