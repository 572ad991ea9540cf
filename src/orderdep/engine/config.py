"""How the engine starts pytest for a project (declared once, used by every backend)."""

from __future__ import annotations

import importlib.util
import math
import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Optional

from orderdep.engine.home import HOME_POLICIES
from orderdep.engine.shim import with_shim
from orderdep.errors import UsageError

RUNNERS = ("fork", "subprocess")
#: The oldest Python the code orderdep runs inside the test processes works on.
MIN_PYTHON = (3, 8)
# Plugins that reorder, deselect or distribute tests: never active in our pytest processes.
_DISABLE_IF_PRESENT = {"pytest_randomly": "randomly", "random_order": "random_order"}
# Plugins that only measure, switched off in our pytest processes by their own option:
# pytest-cov's tracing makes every order slower (1.5x on a real suite) and its data file
# changes the working copy after each order, and no order decides anything by it. A
# ``--cov`` option the user gives orderdep keeps it on.
_QUIET_IF_PRESENT = {"pytest_cov": ("--no-cov", "--cov")}


@dataclass
class EngineConfig:
    """Everything needed to start pytest on the project the same way every time."""

    project: Path
    runner: str = "fork"
    jobs: int = 1
    timeout: Optional[float] = None
    python: str = sys.executable
    rootdir: Optional[str] = None
    pythonpath: Sequence[str] = ()
    pytest_args: Sequence[str] = ()
    workdir: Optional[Path] = None
    copy: bool = True
    home: str = "copy"
    extra_env: dict[str, str] = field(default_factory=dict)
    # Said instead of the import hint when the tests cannot be imported: what was tried
    # in looking for the project's interpreter (set when the user named none).
    interpreter_note: str = field(default="", compare=False)
    _installed: set[str] = field(default_factory=set, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.project = Path(self.project).resolve()
        if os.sep in self.python or (os.altsep and os.altsep in self.python):
            # a relative path means the user's working directory, not the project (or
            # the copy) the tests run in; a venv's python is a symlink: keep it
            self.python = os.path.abspath(self.python)
        if not self.project.is_dir():
            raise UsageError(f"project directory {str(self.project)!r} does not exist")
        if self.runner not in RUNNERS:
            raise UsageError(f"unknown runner {self.runner!r}; choose one of {', '.join(RUNNERS)}")
        if self.home not in HOME_POLICIES:
            raise UsageError(
                f"unknown HOME policy {self.home!r}; choose one of {', '.join(HOME_POLICIES)}"
            )
        if self.jobs < 1:
            raise UsageError(f"--jobs must be at least 1, got {self.jobs!r}")
        if self.timeout is not None and not (math.isfinite(self.timeout) and self.timeout > 0):
            raise UsageError(
                f"--timeout must be a positive number of seconds, got {self.timeout!r}"
            )
        if not self.copy and self.jobs > 1:
            raise UsageError(
                f"--jobs {self.jobs} needs a working copy per worker; do not disable copying"
            )
        if self.python != sys.executable:
            self._check_python()

    def _check_python(self) -> None:
        """One start of the target interpreter: it must import orderdep and pytest, and it
        says which reordering plugins and xdist are installed there."""
        code = (
            "import sys; v = sys.version_info[:2];"
            f"v < {MIN_PYTHON!r} and sys.exit('python %d.%d' % v);"
            "import importlib.util as u, orderdep, pytest;"
            f"print(' '.join(m for m in {sorted([*_DISABLE_IF_PRESENT, *_QUIET_IF_PRESENT, 'xdist'])!r}"
            " if u.find_spec(m)))"
        )

        def run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
            try:
                return subprocess.run(
                    [self.python, "-c", code], capture_output=True, text=True, timeout=60, env=env
                )
            except OSError as exc:
                raise UsageError(f"cannot run --python {self.python!r}: {exc}") from None

        env = {**os.environ, **self.extra_env}
        proc = run(env)
        if proc.stderr.startswith("python "):  # older than the test processes' code needs
            raise UsageError(
                f"--python {self.python!r} is {proc.stderr.strip().capitalize()}; orderdep's "
                f"code in the test processes needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or "
                "later: run the suite with a newer interpreter"
            )
        if proc.returncode != 0:
            # orderdep installed apart from the project (pipx, another venv): lend it ours
            lent = with_shim(env)
            proc = run(lent)
            if proc.returncode != 0:
                raise UsageError(
                    f"--python {self.python!r} cannot import pytest; install the project's "
                    f"test requirements there first: {self.python} -m pip install pytest"
                )
            self.extra_env["PYTHONPATH"] = lent["PYTHONPATH"]
        self._installed = set(proc.stdout.split())

    def _is_installed(self, module: str) -> bool:
        if self.python == sys.executable:
            return importlib.util.find_spec(module) is not None
        return module in self._installed

    @cached_property
    def present_plugins(self) -> set[str]:
        """Reordering plugins installed in the target interpreter."""
        return {m for m in _DISABLE_IF_PRESENT if self._is_installed(m)}

    def pytest_command(self, cache_dir: Path) -> list[str]:
        """The command line of every pytest process the engine starts."""
        # orderdep's plugin comes first: it points editable installs at the working copy
        # before a plugin named by the user's -p imports the project (engine.redirect).
        cmd = [self.python, "-m", "pytest", "-p", "orderdep.engine.childplugin"]
        cmd += [*self.pytest_args, *self.run_args()]
        cmd += ["--maxfail=0", "-o", f"cache_dir={cache_dir}", "-p", "no:stepwise"]
        # Outcomes need only the failure's message (the same in every style); a one-line
        # report skips reading and parsing the test's source for every failure. A --tb
        # the user passes to orderdep stays in charge.
        if not any(a == "--tb" or a.startswith("--tb=") for a in self.pytest_args):
            cmd += ["--tb=line"]
        if self.rootdir:
            cmd += ["--rootdir", self.rootdir]
        if self.pythonpath:
            cmd += ["-o", "pythonpath=" + " ".join(self.pythonpath)]
        return cmd

    def run_args(self) -> list[str]:
        """pytest options of every process the engine starts: :meth:`in_order_args`, then
        the options that switch off measuring plugins (:data:`_QUIET_IF_PRESENT`)."""
        out = self.in_order_args()
        env = {**os.environ, **self.extra_env}
        args = [*shlex.split(env.get("PYTEST_ADDOPTS", "")), *self.pytest_args]
        for module, (off, kept_by) in sorted(_QUIET_IF_PRESENT.items()):
            asked = any(a == kept_by or a.startswith(kept_by + "=") for a in args)
            if self._plugin_loads(module, args, env) and not asked:
                out.append(off)
        return out

    def _plugin_loads(self, module: str, args: list[str], env: dict[str, str]) -> bool:
        """Whether the plugin ``module`` (registered under that name) will be loaded, so
        that its options exist: installed, not ``-p no:`` it (in ``args``, which hold
        ``PYTEST_ADDOPTS`` too), and not left out by
        ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` unless ``-p`` names it."""
        named = {b for a, b in zip(args, args[1:]) if a == "-p"}
        named |= {a[2:] for a in args if a.startswith("-p") and len(a) > 2}
        if f"no:{module}" in named or not self._is_installed(module):
            return False
        return not env.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") or module in named

    def in_order_args(self) -> list[str]:
        """pytest options that switch off every plugin that reorders or distributes."""
        out: list[str] = []
        for module in sorted(self.present_plugins):
            out += ["-p", f"no:{_DISABLE_IF_PRESENT[module]}"]
        if self.has_xdist:
            out += ["-n", "0"]
        return out

    @cached_property
    def has_xdist(self) -> bool:
        return self._is_installed("xdist")

    def child_env(self, overrides: dict[str, str]) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.extra_env)
        env.update(overrides)
        # What a pytest process running orderdep (or an xdist worker) set for itself is
        # not what a fresh `python -m pytest` started from a shell sees.
        for name in [n for n in env if n.startswith("PYTEST_XDIST_")] + ["PYTEST_CURRENT_TEST"]:
            env.pop(name, None)
        return env
