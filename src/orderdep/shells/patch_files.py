"""Where ``orderdep fix`` writes its patches, and the commands that apply one."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Optional

PATCH_DIR = "patches"  # next to the report (default PROJECT/.orderdep/patches)
SET_PATCH = "patch-set.patch"  # every patch of the last run, verified together


def patch_name(test: str, strategy: str = "auto") -> str:
    """A file name for ``test``'s patch: ``tests/test_a.py::T::t[1]`` ->
    ``tests_test_a.py__T__t_1_.patch``; a patch of one chosen ``--strategy`` (not auto)
    gets its own file (``...t_1_.cleaner.patch``), and so does one of ``orderdep why``
    (``strategy="why"``: ``...t_1_.why.patch``), so they never overwrite each other."""
    name = test.replace("::", "__").replace("/", "_")
    suffix = "" if strategy == "auto" else f".{strategy}"
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) + suffix + ".patch"


def _git_prefix(project: Path) -> Optional[str]:
    """The project's path inside its git work tree ("" at the top), None outside git."""
    if shutil.which("git") is None:
        return None
    proc = subprocess.run(
        ["git", "-C", str(project), "rev-parse", "--show-toplevel"],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        return ""  # not a repository: git apply works like patch, relative to -C
    top = Path(proc.stdout.strip()).resolve()
    rel = project.resolve().relative_to(top).as_posix()
    return "" if rel == "." else rel


def apply_commands(project: Path, patch: Path) -> list[str]:
    """Commands that apply ``patch`` (relative to the project) to the project."""
    out = []
    prefix = _git_prefix(project)
    if prefix is not None:
        cmd = ["git", "-C", str(project), "apply"]
        if prefix:
            cmd.append(f"--directory={prefix}")
        out.append(shlex.join([*cmd, patch.as_posix()]))
    out.append(shlex.join(["patch", "-p1", "-d", str(project), "-i", patch.as_posix()]))
    return out


__all__ = ["PATCH_DIR", "SET_PATCH", "apply_commands", "patch_name"]
