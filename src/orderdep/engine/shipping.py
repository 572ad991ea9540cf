"""The project as one archive, to run it on machines that do not share its path.

:func:`pack_project` archives the working copy orderdep runs (the files a sandbox copies:
no version-control data, virtual environments or caches) and names it by its content, so
a cluster receives each code version once and a changed file makes a new version.
:func:`unpack_project` puts it back on the other side, atomically (a half-written tree is
never taken for a complete one).
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import stat
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from orderdep.engine.sandbox import IGNORED_DIRS


@dataclass(frozen=True)
class PackedProject:
    """A project's files as a gzip tar archive, with the hash of its content as ``key``."""

    key: str
    data: bytes
    files: int


def project_files(root: Path) -> Iterator[Path]:
    """Every file and symlink under ``root`` a working copy holds, in a stable order."""
    for directory, dirs, names in os.walk(root):
        base = Path(directory)
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in IGNORED_DIRS
            and not (base / d / "pyvenv.cfg").is_file()
            and not (base / d).is_symlink()
        )
        links = [d for d in os.listdir(base) if (base / d).is_symlink() and (base / d).is_dir()]
        for name in sorted([*names, *links]):
            yield base / name


def pack_project(root: Path) -> PackedProject:
    """Archive ``root``; the key changes when any path, content, link or executable bit
    does, and only then (timestamps are left out)."""
    root = root.resolve()
    digest = hashlib.sha256()
    buffer = io.BytesIO()
    files = 0
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for path in project_files(root):
            rel = path.relative_to(root).as_posix()
            info = tarfile.TarInfo(rel)
            info.mtime = 0
            if path.is_symlink():
                info.type = tarfile.SYMTYPE
                info.linkname = os.readlink(path)
                digest.update(f"L {rel}\0{info.linkname}\0".encode())
                tar.addfile(info)
            elif path.is_file():
                content = path.read_bytes()
                executable = bool(path.stat().st_mode & stat.S_IXUSR)
                info.size = len(content)
                info.mode = 0o755 if executable else 0o644
                digest.update(f"F {rel}\0{int(executable)}\0{len(content)}\0".encode())
                digest.update(content)
                tar.addfile(info, io.BytesIO(content))
            else:
                continue  # sockets, fifos: nothing a test suite ships
            files += 1
    return PackedProject(digest.hexdigest()[:20], buffer.getvalue(), files)


def unpack_project(data: bytes, dest: Path) -> Path:
    """Extract an archive made by :func:`pack_project` to ``dest`` unless it is there."""
    if dest.is_dir():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            # The archive is our own; the filter only keeps names inside ``staging``.
            if hasattr(tarfile, "tar_filter"):
                tar.extractall(staging, filter="tar")
            else:  # Python before 3.11.4 / 3.10.12
                tar.extractall(staging)
        os.rename(staging, dest)
    except OSError:
        if not dest.is_dir():  # not another process that extracted it first
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest
