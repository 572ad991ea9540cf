"""Private working copies, so orders never see each other's files.

Each worker runs its tests in its own copy of the project with its own ``HOME`` and
``TMPDIR``. After every order the copy is put back as it was (files the order created are
deleted, changed or deleted ones restored from the project) and ``HOME``/``TMPDIR`` are
emptied, so a file written by one order cannot change the outcome of the next one, nor of
an order running at the same time in another worker.
"""

from __future__ import annotations

import os
import shutil
import stat
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
            out[rel] = (st.st_mode, st.st_size, st.st_mtime_ns)
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

    def _rewatch(self) -> None:
        """Watch the tree as it is now (new directories too); forget changes seen so far."""
        if self._watch is None:
            self._watch = TreeWatch.start(self.tree, VOLATILE_DIRS)
        elif self._watch.add_tree(self.tree):
            self._watch.changed()
        else:
            self._watch.close()
            self._watch = None

    def restore(self) -> list[str]:
        """Undo every file change since the baseline; returns the paths put back.

        With a :class:`~orderdep.engine.treewatch.TreeWatch` on the tree, an order that
        changed nothing there costs no walk of the tree.
        """
        changed: list[str] = []
        empty_dir(self.tmp)
        empty_dir(self.home)
        if not self.copy:
            return changed
        if self._watch is not None and not self._watch.changed():
            return changed
        now = scan(self.tree)
        for rel in sorted(set(now) - set(self._baseline), key=len, reverse=True):
            _remove(self.tree / rel)
            changed.append(rel)
        for rel, before in sorted(self._baseline.items()):
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
        if changed:
            self._rewatch()  # new directories need watches; our own changes are not news
            self._baseline = scan(self.tree)
        return changed

    def destroy(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None
        shutil.rmtree(self.workdir, ignore_errors=True)
