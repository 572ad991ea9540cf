"""Which ``HOME`` the tests see: a faithful yet isolated default.

Real suites read the user's configuration (``~/.gitconfig`` for ``git commit`` in a test
repository, ``~/.config/<tool>``, XDG directories), so an empty ``HOME`` makes such tests
fail where ``python -m pytest`` passes them. Writing into the real ``HOME`` would let one
order's files reach the next one. Three policies:

- ``copy`` (default): a private ``HOME`` seeded with a copy of the user's configuration:
  the regular dot-files directly in ``HOME`` and the ``~/.config`` tree, files of at most
  :data:`MAX_FILE` bytes, :data:`MAX_TOTAL` bytes in all (caches, data directories and
  tool chains are left out). It is put back after every order like the working copy.
- ``empty``: a private, empty ``HOME``.
- ``real``: the user's own ``HOME``, shared by every order (not isolated: what a test
  writes there stays for later orders and after the run).

XDG variables that point inside the real ``HOME`` are pointed at the same place inside
the private one, so they stay consistent with ``HOME``.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Optional

HOME_POLICIES = ("copy", "empty", "real")
MAX_FILE = 1 << 20
MAX_TOTAL = 20 << 20
XDG_VARS = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")


def real_home() -> Optional[Path]:
    home = os.environ.get("HOME") or os.path.expanduser("~")
    path = Path(home)
    return path if path.is_dir() else None


def _copy_file(source: Path, dest: Path, budget: list[int]) -> None:
    try:
        st = source.stat()  # follows links: dot-file managers link them elsewhere
    except OSError:
        return
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE or st.st_size > budget[0]:
        return
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest)
    except OSError:
        return
    budget[0] -= st.st_size


def seed_home(dest: Path, real: Optional[Path]) -> None:
    """Copy the user's configuration files from ``real`` into ``dest`` (see module doc)."""
    dest.mkdir(parents=True, exist_ok=True)
    if real is None or real.resolve() == dest.resolve():
        return
    budget = [MAX_TOTAL]
    try:
        entries = sorted(os.scandir(real), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") and entry.is_file():
            _copy_file(Path(entry.path), dest / entry.name, budget)
    config = real / ".config"
    if config.is_dir():
        for directory, _, files in os.walk(config):
            for name in sorted(files):
                source = Path(directory) / name
                _copy_file(source, dest / source.relative_to(real), budget)


def home_env(policy: str, private: Path, real: Optional[Path]) -> dict[str, str]:
    """Environment overrides for ``HOME`` (and XDG variables) under ``policy``."""
    if policy == "real":
        return {}
    env = {"HOME": str(private)}
    if real is None:
        return env
    for name in XDG_VARS:
        value = os.environ.get(name)
        if not value:
            continue
        try:
            inside = Path(value).resolve().relative_to(real.resolve())
        except ValueError:
            continue
        env[name] = str(private / inside)
    return env
