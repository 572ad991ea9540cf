"""Private working copies, so orders never see each other's files.

Each worker runs its tests in its own copy of the project with its own ``HOME`` and
``TMPDIR``. After every order each of them is put back as it was once the suite was
collected (files the order created are deleted, changed or deleted ones restored; see
:mod:`orderdep.engine.area`), so a file written by one order cannot change the outcome of
the next one, nor of an order running at the same time in another worker.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from orderdep.engine.area import Area, empty_dir, remove, scan
from orderdep.engine.home import home_env, real_home, seed_home

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


def _is_venv(path: Path) -> bool:
    return (path / "pyvenv.cfg").is_file()


def copy_project(source: Path, dest: Path) -> None:
    """Copy ``source`` to ``dest`` without VCS data, virtual environments and caches."""

    def ignore(directory: str, names: list[str]) -> list[str]:
        base = Path(directory)
        return [n for n in names if n in IGNORED_DIRS or (base / n / "pyvenv.cfg").is_file()]

    shutil.copytree(source, dest, ignore=ignore, symlinks=True)


def copy_path(parent: Path, project: Path) -> Path:
    """Where a copy of ``project`` goes under ``parent``: a directory of the same name.

    A project whose root is a package (an ``__init__.py`` beside its tests, reached by
    ``from ..pkg import x``) imports under its directory's name, as pytest names modules
    from the first directory upwards without an ``__init__.py``; a copy under another
    name would import as another package, or not at all."""
    return parent / project.resolve().name


class Sandbox:
    """One worker's private copy of the project plus its own HOME and TMPDIR.

    ``home`` is the HOME policy (see :mod:`orderdep.engine.home`).
    """

    def __init__(
        self, project: Path, workdir: Path, *, copy: bool = True, home: str = "copy"
    ) -> None:
        self.project = project.resolve()
        self.workdir = workdir
        self.copy = copy
        self.home_policy = home
        self.tree = copy_path(workdir / "tree", self.project) if copy else self.project
        self.home = workdir / "home"
        self.home_seed = workdir / "home-seed"
        self.tmp = workdir / "tmp"
        # pytest makes its basetemp in TMPDIR itself, as under plain pytest
        # (``$TMPDIR/pytest-of-<user>/pytest-<n>``, when a test first asks for one): a
        # test that empties the temp directory affects ``tmp_path`` here as there. The
        # engine's own files of a run (capture files, page maps) stay outside TMPDIR,
        # which tests may empty and the sandbox restores after every order.
        self.scratch = workdir / "scratch"
        self._areas: list[Area] = []
        if copy:
            self._areas.append(Area(self.tree, workdir / "baseline-files", self.project))
        if home != "real":
            self._areas.append(Area(self.home, workdir / "baseline-home", self.home_seed))
        self._areas.append(Area(self.tmp, workdir / "baseline-tmp"))

    def create(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        if self.copy:
            if self.tree.exists():
                shutil.rmtree(self.tree)
            copy_project(self.project, self.tree)
        for d in (self.home, self.tmp, self.home_seed, self.scratch):
            empty_dir(d)
        if self.home_policy == "copy":
            seed_home(self.home_seed, real_home())
            shutil.rmtree(self.home)
            shutil.copytree(self.home_seed, self.home, symlinks=True)
        self.mark_baseline()

    def mark_baseline(self) -> None:
        """Remember the working copy, HOME and TMPDIR as they are now; :meth:`restore`
        returns to this state.

        Files that differ from their origin (written while the suite was collected, say)
        are saved aside, so a test that deletes or changes them is undone faithfully.
        """
        for area in self._areas:
            area.mark_baseline()

    def env(self) -> dict[str, str]:
        """Environment overrides for processes that run tests in this sandbox."""
        return {
            **home_env(self.home_policy, self.home, real_home()),
            "TMPDIR": str(self.tmp),
            "TEMP": str(self.tmp),
            "TMP": str(self.tmp),
        }

    def restore(self) -> list[str]:
        """Undo every file change since the baseline; returns the paths put back."""
        changed: list[str] = []
        for area in self._areas:
            changed += area.restore()
        return changed

    def destroy(self) -> None:
        for area in self._areas:
            area.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


__all__ = ["IGNORED_DIRS", "Sandbox", "copy_project", "empty_dir", "remove", "scan"]
