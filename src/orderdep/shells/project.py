"""Where the project is and what the positional arguments select, the way pytest decides.

``orderdep detect`` with no PROJECT works from any directory of the project: the root is
pytest's rootdir for the current directory (the nearest pytest.ini, pyproject.toml with
pytest settings, tox.ini or setup.cfg upwards), and, as pytest collects only what is
below the directory it runs in, a subdirectory selects its tests. A PROJECT that is a
test file, a node id (``tests/test_a.py::test_b``) or a directory below the rootdir
pytest would find for it selects it in the project that holds it; any other directory
is the project.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any, Optional

import click

#: ``ctx.meta`` key: the pytest arguments (relative to the root) the PROJECT argument selects.
SELECTION_KEY = "orderdep.selection"
#: orderdep's directory in a project, and what makes git ignore it (as pytest's cache does).
OWN_DIR = ".orderdep"
GITIGNORE = "*\n"


def ignore_in_git(project: Path) -> None:
    """Write ``PROJECT/.orderdep/.gitignore`` (``*``) when a command created the directory,
    so that nothing orderdep keeps shows up in ``git status``; a read-only project is left
    alone."""
    target = project / OWN_DIR / ".gitignore"
    if target.parent.is_dir() and not target.exists():
        try:
            target.write_text(GITIGNORE, encoding="utf-8")
        except OSError:
            pass


def find_rootdir(path: Path) -> Path:
    """pytest's rootdir for ``path`` (a directory or file), from pytest's own rules."""
    try:
        from _pytest.config.findpaths import determine_setup

        rootdir, _inifile, *_ = determine_setup(
            inifile=None,
            override_ini=None,
            args=[str(path)],
            rootdir_cmd_arg=None,
            invocation_dir=path if path.is_dir() else path.parent,
        )
        return Path(rootdir)
    except (ImportError, TypeError):  # another pytest's signature: the common cases
        start = path if path.is_dir() else path.parent
        for parent in [start, *start.parents]:
            if any((parent / name).is_file() for name in ("pytest.ini", ".pytest.ini")):
                return parent
            if (parent / "pyproject.toml").is_file() and "[tool.pytest" in (
                parent / "pyproject.toml"
            ).read_text(encoding="utf-8", errors="replace"):
                return parent
        return start


def shown(path: Path) -> Path:
    """``path`` as the user will want to read and retype it: relative to the current
    directory when one is inside the other, else absolute."""
    here = Path.cwd().resolve()
    path = path.resolve()
    if here.is_relative_to(path) or path.is_relative_to(here):
        return Path(os.path.relpath(path, here))
    return path


def selector(value: str, root: Path) -> str:
    """A test path or node id the user typed (relative to the project root, or to the
    current directory) as a node id / path relative to ``root``."""
    file_part, sep, rest = value.partition("::")
    if (root / file_part).exists() and not Path(file_part).is_absolute():
        return value
    target = Path(file_part).resolve()
    if not target.exists() or not target.is_relative_to(root.resolve()):
        return value  # pytest names what it cannot find
    rel = target.relative_to(root.resolve()).as_posix()
    return f"{rel}{sep}{rest}"


def resolve_project(ctx: click.Context, param: click.Parameter, value: Optional[str]) -> Path:
    """Click callback of the PROJECT argument: the project root; what it selects (a test
    file, a node id, the current subdirectory) goes to ``ctx.meta[SELECTION_KEY]``."""
    selection: list[str] = []
    if value is None:
        here = Path.cwd().resolve()
        root = find_rootdir(here)
        if here != root and here.is_relative_to(root):
            selection = [here.relative_to(root).as_posix()]
        project = shown(root)
    else:
        file_part = value.partition("::")[0]
        if "::" not in value and not Path(value).exists():
            project = Path(value)  # the engine names the missing directory
        elif "::" not in value and Path(value).is_dir():
            # The project, unless pytest would take a directory above it as the rootdir
            # (then it selects its tests there, as `pytest DIR` does).
            here = Path(value).resolve()
            root = find_rootdir(here)
            if root != here and here.is_relative_to(root):
                selection = [here.relative_to(root).as_posix()]
                project = shown(root)
            else:
                project = Path(value)
        elif not Path(file_part).is_file():
            raise click.BadParameter(
                f"{value!r} is neither a project directory nor a test file or node id "
                "that exists; give the project directory (default: the current one)",
                ctx,
                param,
            )
        else:
            root = find_rootdir(Path(file_part).resolve())
            selection = [selector(value, root)]
            project = shown(root)
    ctx.meta[SELECTION_KEY] = selection
    ctx.call_on_close(partial(ignore_in_git, project))
    return project


def resolve_paths(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> tuple[str, ...]:
    """Click callback of the arguments after PROJECT: test files, directories or node ids
    (relative to the project or to the current directory, or absolute inside the
    project) added to ``ctx.meta[SELECTION_KEY]``, as further arguments to pytest."""
    project = ctx.params.get("project")
    root = (Path(project) if project is not None else find_rootdir(Path.cwd())).resolve()
    selection: list[str] = []
    for value in values:
        file_part = value.partition("::")[0]
        given = Path(file_part)
        target = given if given.is_absolute() else root / given
        if not target.exists():
            target = given.resolve()
        if not file_part or not target.exists():
            raise click.BadParameter(
                f"no such test file or directory: {value!r} (neither in the project "
                f"{str(root)!r} nor from the current directory); give paths or node ids "
                "as pytest takes them, e.g. tests/test_a.py::test_b",
                ctx,
                param,
            )
        if not target.resolve().is_relative_to(root):
            raise click.BadParameter(
                f"{value!r} is outside the project {str(root)!r}; give test paths inside "
                "it, or that project as PROJECT",
                ctx,
                param,
            )
        selection.append(selector(value, root))
    ctx.meta[SELECTION_KEY] = [*ctx.meta.get(SELECTION_KEY, []), *selection]
    return values


def positional_selection() -> list[str]:
    """What the PROJECT argument of the running command selected (see :func:`resolve_project`)."""
    ctx = click.get_current_context(silent=True)
    meta: Any = ctx.meta if ctx is not None else {}
    return list(meta.get(SELECTION_KEY) or [])
