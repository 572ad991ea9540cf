"""The project's own packages where a non-editable install put them (site-packages).

Installed as tox does by default (``pip install .``), the code under test is a copy in
site-packages, not the files under the project's rootdir, so "modules under the rootdir"
misses it. :func:`installed_packages` reads the project's name from its ``pyproject.toml``
(``[project] name``) or ``setup.cfg`` (``[metadata] name``), finds that distribution in
the running interpreter, and, when it is not an editable install, returns its top-level
import names: their modules are the project's own too.
"""

from __future__ import annotations

import configparser
import importlib.util
import json
import os
import re
import sys
from importlib import metadata
from pathlib import Path
from typing import Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9/3.10
    tomllib = None


def project_name(rootdir: str) -> Optional[str]:
    """The distribution name the project declares, if it declares one we can read: the
    first of ``pyproject.toml``'s ``[project] name``, ``setup.cfg``'s ``[metadata] name``
    and ``setup.py``'s ``name=`` (a ``setup.cfg`` whose ``[metadata]`` has only a license
    file leaves the name to ``setup.py``)."""
    root = Path(rootdir)
    for read in (_pyproject_name, _setup_cfg_name, _setup_py_name):
        name = read(root)
        if name:
            return name
    return None


def _pyproject_name(root: Path) -> Optional[str]:
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if tomllib is None:  # Python 3.9/3.10: the table's name line, as it is written
        table = re.search(r"(?ms)^\[project\]\s*$(.*?)(?=^\[|\Z)", text)
        found = table and re.search(r"""(?m)^name\s*=\s*["']([A-Za-z0-9._-]+)["']""", table[1])
        return found[1] if found else None
    try:
        name = tomllib.loads(text).get("project", {}).get("name")
    except ValueError:
        return None
    return name if isinstance(name, str) else None


def _setup_cfg_name(root: Path) -> Optional[str]:
    setup_cfg = root / "setup.cfg"
    if not setup_cfg.is_file():
        return None
    parser = configparser.ConfigParser()
    try:
        parser.read(setup_cfg, encoding="utf-8")
        return parser.get("metadata", "name", fallback=None)
    except (configparser.Error, UnicodeDecodeError):
        return None


def _setup_py_name(root: Path) -> Optional[str]:
    try:
        text = (root / "setup.py").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    found = re.search(r"""\bname\s*=\s*["']([A-Za-z0-9._-]+)["']""", text)
    return found[1] if found else None


def _editable(dist: metadata.Distribution) -> bool:
    try:
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return False
    return bool(direct.get("dir_info", {}).get("editable"))


def installed_packages(rootdir: str) -> frozenset[str]:
    """Top-level import names of the project's non-editable install (empty when it is
    installed editable, not installed, or its name cannot be read)."""
    name = project_name(rootdir)
    if name is None:
        return frozenset()
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return frozenset()
    if _editable(dist):
        return frozenset()
    top = (dist.read_text("top_level.txt") or "").split()
    if not top:
        for file in dist.files or ():
            parts = file.parts
            if parts and not parts[0].endswith((".dist-info", ".egg-info", ".pth")):
                first = parts[0]
                if first.endswith(".py"):
                    top.append(first[:-3])
                elif len(parts) > 1 and first != "__pycache__" and ".." not in first:
                    top.append(first)
    return frozenset(t for t in top if t.isidentifier())


def package_paths(names: frozenset[str]) -> tuple[str, ...]:
    """Where the packages (directories, with a separator at the end) and modules (files)
    of ``names`` are, without importing them."""
    out: list[str] = []
    for name in sorted(names):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        if spec.submodule_search_locations:
            out += [
                os.path.join(os.path.normpath(os.path.abspath(p)), "")
                for p in spec.submodule_search_locations
            ]
        elif spec.origin:
            out.append(os.path.normpath(os.path.abspath(spec.origin)))
    return tuple(out)


__all__ = ["installed_packages", "package_paths", "project_name"]
