"""Which interpreter runs the tests when none is named (no ``--python``, ``python`` key or
``ORDERDEP_PYTHON``).

orderdep is often installed apart from the project (pipx, another venv), so the
interpreter running it may not import the project or its test requirements. The
running interpreter is kept, without starting any process, when it is the project's
own (its prefix is ``$VIRTUAL_ENV`` or lies inside the project), when the project is
installed in it (its distribution or its ``src/`` packages are found), or when the
project has no venv to offer. Otherwise the candidates are, in order, ``$VIRTUAL_ENV``
and the project's ``.venv``, ``venv`` and ``env`` directories; the first whose python
finds pytest is used (one short process per candidate; orderdep is lent to it by
:mod:`orderdep.engine.shim`), and one notice line says so. When the running interpreter
is kept for want of a candidate, :attr:`Choice.tried` says what was tried, for the
one-line error should pytest then fail to import the tests.

A tox or nox env is named, not searched for: ``--python tox:py39`` is ``PROJECT/.tox/py39``'s
python, ``--python nox:tests-3.9`` that of the directory nox made for that session under
``PROJECT/.nox`` (see :func:`named_env`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import click

from orderdep.errors import UsageError, shown_path

# The project's own venv directories, in the order they are tried.
VENV_DIRS = (".venv", "venv", "env")
# Where a venv keeps its interpreter (POSIX, Windows).
_PYTHONS = (Path("bin") / "python", Path("Scripts") / "python.exe")
_HAS_PYTEST = "import importlib.util, sys; sys.exit(importlib.util.find_spec('pytest') is None)"
_META_KEY = "orderdep.interpreter"
# The tools whose envs --python TOOL:NAME names: their directory in the project and the
# command that creates an env without running its tests.
ENV_TOOLS = {
    "tox": (".tox", "tox -e {name} --notest"),
    "nox": (".nox", "nox -s {name} --install-only"),
}


@dataclass(frozen=True)
class Candidate:
    """A place the project's interpreter may be: ``name`` as messages show it, its python
    (None when there is none) and why it does not fit ("" while it may)."""

    name: str
    python: Optional[Path]
    state: str = ""
    directory: Optional[Path] = None

    def tried(self) -> str:
        """How the one-line error names it: ``.venv (missing)``."""
        where = f"={self.directory}" if self.name.startswith("$") and self.directory else ""
        return f"{self.name}{where} ({self.state})"


@dataclass(frozen=True)
class Choice:
    """The interpreter to run the tests with; ``found_in`` names the candidate it was found
    in (None: the running one), ``tried`` lists the candidates when none fitted."""

    python: str
    found_in: Optional[str] = None
    tried: str = ""

    def notice(self) -> Optional[str]:
        """The line that says which interpreter was found, if one was."""
        if self.found_in is None:
            return None
        return (
            f"orderdep: using the project's interpreter {self.python} "
            f"(found in {self.found_in}; pass --python to choose another)"
        )


def venv_python(directory: Path) -> Optional[Path]:
    """The interpreter of the venv at ``directory``, if it has one (not resolved: a venv's
    python is a link whose name makes it the venv's)."""
    for rel in _PYTHONS:
        path = directory / rel
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def candidates(project: Path, environ: Mapping[str, str], prefix: str) -> list[Candidate]:
    """``$VIRTUAL_ENV`` (unless it is the running interpreter's) and the project's venv
    directories, each with its python or the reason it has none."""
    out: list[Candidate] = []
    active = environ.get("VIRTUAL_ENV")
    if not active:
        out.append(Candidate("$VIRTUAL_ENV", None, "unset"))
    elif _same(Path(active), Path(prefix)):
        out.append(Candidate("$VIRTUAL_ENV", None, "the running interpreter's"))
    else:
        out.append(_candidate("$VIRTUAL_ENV", Path(active)))
    for name in VENV_DIRS:
        out.append(_candidate(shown_path(project / name), project / name))
    return out


def _candidate(name: str, directory: Path) -> Candidate:
    if not directory.is_dir():
        return Candidate(name, None, "missing", directory)
    python = venv_python(directory)
    return Candidate(name, python, "" if python is not None else "no python", directory)


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def has_pytest(python: Path) -> bool:
    """Whether ``python`` finds pytest (without importing it)."""
    try:
        proc = subprocess.run([str(python), "-c", _HAS_PYTEST], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def src_packages(project: Path) -> list[str]:
    """The packages under the project's ``src/``: found only where the project is installed."""
    src = project / "src"
    if not src.is_dir():
        return []
    return sorted(
        entry.name
        for entry in src.iterdir()
        if entry.is_dir() and (entry / "__init__.py").is_file() and entry.name.isidentifier()
    )


def installed_here(project: Path) -> bool:
    """Whether the running interpreter has the project installed (then it collects it,
    whatever venvs lie around)."""
    from orderdep.engine.installed import project_name

    dist = project_name(str(project))
    if dist is not None:
        try:
            importlib.metadata.distribution(dist)
            return True
        except (importlib.metadata.PackageNotFoundError, ValueError):
            pass
    return any(_finds(package) for package in src_packages(project))


def _finds(package: str) -> bool:
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):
        return False


def choose(
    project: Path,
    environ: Mapping[str, str] = os.environ,
    executable: str = sys.executable,
    prefix: str = sys.prefix,
    finds_pytest: Callable[[Path], bool] = has_pytest,
) -> Choice:
    """The interpreter to run ``project``'s tests with when the user named none."""
    project = project.resolve()
    running = Choice(executable)
    own = Path(prefix)
    active = environ.get("VIRTUAL_ENV")
    if active and _same(Path(active), own):
        return running  # the user activated the venv orderdep runs in
    try:
        own.resolve().relative_to(project)
        return running  # the project's own venv
    except (ValueError, OSError):
        pass
    found = candidates(project, environ, prefix)
    if any(c.python is not None for c in found) and installed_here(project):
        return running
    tried: list[Candidate] = []
    for candidate in found:
        if candidate.python is not None:
            if finds_pytest(candidate.python):
                shown = (
                    candidate.name if candidate.name.startswith("$") else Path(candidate.name).name
                )
                return Choice(os.path.abspath(candidate.python), found_in=shown)
            candidate = dataclasses.replace(candidate, state="no pytest")
        tried.append(candidate)
    listed = ", ".join(c.tried() for c in tried)
    if any(c.state == "no pytest" for c in tried):
        todo = "Install the project's test requirements into its venv, or pass --python"
    else:
        todo = "Create the project's venv, or pass --python"
    return Choice(executable, tried=f"tried {listed}. {todo}")


def env_tool(value: str) -> Optional[tuple[str, str]]:
    """``("tox", "py39")`` for a ``--python`` value ``tox:py39`` (None for a path or a
    command name)."""
    tool, sep, name = value.partition(":")
    if not sep or tool not in ENV_TOOLS:
        return None
    return tool, name


def _nox_dirs(envdir: Path, name: str) -> list[Path]:
    """Where nox may have put session ``name``'s env: the name as given, and the name as nox
    makes it safe for a path (runs of characters other than letters, digits, ``_`` and
    ``-`` become one ``-``, lower case; an 8-digit hash of that when the path is too long)."""
    safe = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "-", name).strip().lower()).strip("-")
    hashed = hashlib.sha1(safe.encode("ascii", "ignore")).hexdigest()[:8]
    out: list[Path] = []
    for entry in (name, safe, hashed):
        if entry and envdir / entry not in out:
            out.append(envdir / entry)
    return out


def named_env(project: Path, value: str) -> Choice:
    """The python of the tox or nox env ``value`` (``tox:NAME``, ``nox:NAME``) names in
    ``project``; a :class:`UsageError` naming the directories tried when it has none."""
    found = env_tool(value)
    if found is None:
        raise ValueError(f"{value!r} names no tox or nox env")
    tool, name = found
    if not name or "/" in name or name in (".", ".."):
        raise UsageError(
            f"--python {value!r} names no {tool} env; write {tool}:ENV, e.g. "
            f"{tool}:{'py39' if tool == 'tox' else 'tests'}"
        )
    subdir, create = ENV_TOOLS[tool]
    envdir = project.resolve() / subdir
    dirs = _nox_dirs(envdir, name) if tool == "nox" else [envdir / name]
    for directory in dirs:
        python = venv_python(directory)
        if python is not None:
            return Choice(os.path.abspath(python), found_in=f"{tool} env {name}")
    tried = " and ".join(shown_path(d / _PYTHONS[0]) for d in dirs)
    raise UsageError(
        f"no {tool} env {name!r}: {tried} missing; run `{create.format(name=name)}` "
        "first, or pass another --python"
    )


def default_python(project: Path) -> Choice:
    """:func:`choose` once per command and project; its notice is printed once."""
    ctx = click.get_current_context(silent=True)
    memo: dict[Path, Choice] = (
        ctx.find_root().meta.setdefault(_META_KEY, {}) if ctx is not None else {}
    )
    key = Path(project).resolve()
    if key not in memo:
        memo[key] = choice = choose(key)
        line = choice.notice()
        if line is not None:
            from orderdep.shells.output import notice

            notice(line)
    return memo[key]


def project_python(project: Path, value: str) -> str:
    """The interpreter a ``--python`` value names: a tox or nox env's python (said in one
    notice line, once per command and project), else ``value`` itself."""
    if env_tool(value) is None:
        return value
    ctx = click.get_current_context(silent=True)
    memo: dict[tuple[Path, str], Choice] = (
        ctx.find_root().meta.setdefault(_META_KEY + ".named", {}) if ctx is not None else {}
    )
    key = (Path(project).resolve(), value)
    if key not in memo:
        memo[key] = choice = named_env(key[0], value)
        from orderdep.shells.output import notice

        notice(f"orderdep: using the project's interpreter {choice.python} ({choice.found_in})")
    return memo[key].python


__all__ = [
    "ENV_TOOLS",
    "Candidate",
    "Choice",
    "candidates",
    "choose",
    "default_python",
    "env_tool",
    "named_env",
    "project_python",
    "venv_python",
]
