from __future__ import annotations

import ctypes
import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from orderdep.engine import treewatch
from orderdep.engine.treewatch import TreeWatch

SKIP = frozenset({"__pycache__"})


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Path, TreeWatch]]:
    root = tmp_path / "tree"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "pkg" / "__pycache__").mkdir()
    watch = TreeWatch.start(root, SKIP)
    if watch is None:
        pytest.skip("inotify is not available here")
    yield root, watch
    watch.close()


def test_nothing_happened(watched: tuple[Path, TreeWatch]) -> None:
    root, watch = watched
    (root / "pkg" / "mod.py").read_text()  # reading is not a change
    assert watch.changed() is False


@pytest.mark.parametrize(
    "change",
    ["create", "modify", "delete", "rename", "chmod", "mkdir deep", "rmdir", "symlink"],
)
def test_every_kind_of_change_is_seen_once(watched: tuple[Path, TreeWatch], change: str) -> None:
    root, watch = watched
    mod, sub = root / "pkg" / "mod.py", root / "pkg" / "sub"
    if change == "create":
        (sub / "new.txt").write_text("new")
    elif change == "modify":
        with open(mod, "a") as fh:
            fh.write("y = 2\n")
    elif change == "delete":
        mod.unlink()
    elif change == "rename":
        mod.rename(sub / "moved.py")
    elif change == "chmod":
        os.chmod(mod, 0o600)
    elif change == "mkdir deep":
        (sub / "a" / "b").mkdir(parents=True)
    elif change == "rmdir":
        sub.rmdir()
    elif change == "symlink":
        (root / "link").symlink_to(mod)
    assert watch.changed() is True
    assert watch.changed() is False  # drained


def test_bytecode_caches_do_not_count(watched: tuple[Path, TreeWatch]) -> None:
    root, watch = watched
    (root / "pkg" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")
    (root / "pkg" / "sub" / "__pycache__").mkdir()
    assert watch.changed() is False


def test_no_inotify_means_no_watch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(treewatch, "_lib", lambda: None)
    assert TreeWatch.start(tmp_path, SKIP) is None


def test_a_refused_watch_means_no_watch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Refusing:
        def inotify_init1(self, flags: int) -> int:
            return os.open(os.devnull, os.O_RDONLY)

        def inotify_add_watch(self, fd: int, path: bytes, mask: int) -> int:
            ctypes.set_errno(errno.ENOSPC)  # the per-user watch limit is reached
            return -1

    monkeypatch.setattr(treewatch, "_lib", lambda: Refusing())
    assert TreeWatch.start(tmp_path, SKIP) is None
