from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from orderdep.analysis.state.files import FileWatcher
from orderdep.analysis.state.roots import diff


def age(root: Path, seconds: int = 60) -> None:
    """Backdate every mtime under ``root`` so directory listings are trusted as settled."""
    for path in [root, *root.rglob("*")]:
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - seconds * 10**9))


def make(tmp_path: Path) -> tuple[Path, FileWatcher]:
    root = tmp_path / "proj"
    for rel in ("a/one.txt", "a/b/two.txt", "c/three.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)
    age(root)
    return root, FileWatcher(str(root))


def test_names_and_round_trip(tmp_path: Path) -> None:
    root, watcher = make(tmp_path)
    tmp = tmp_path / "t"
    tmp.mkdir()
    watcher = FileWatcher(str(root), temp_dirs=[str(tmp)], home=str(tmp_path / "h"))
    assert watcher.name_of(str(root / "a" / "one.txt")) == "file:a/one.txt"
    assert watcher.name_of(str(tmp / "x")) == "file:$TMP/x"
    assert watcher.name_of(str(tmp / "pytest-of-me" / "x")) is None
    assert watcher.name_of(str(root / "__pycache__" / "m.pyc")) is None
    assert watcher.name_of("/elsewhere/x") is None
    assert watcher.path_of("file:a/b/") == str(root / "a" / "b")
    assert watcher.path_of("file:$TMP/x") == str(tmp / "x")


def test_incremental_scans_match_full_scans(tmp_path: Path) -> None:
    root, watcher = make(tmp_path)
    first = watcher.scan()
    assert sorted(first) == [
        "file:a/",
        "file:a/b/",
        "file:a/b/two.txt",
        "file:a/one.txt",
        "file:c/",
        "file:c/three.txt",
    ]
    assert watcher.scan(full=False) == first
    (root / "a" / "new.txt").write_text("n")  # a creation changes a's mtime
    (root / "d" / "e").mkdir(parents=True)
    (root / "d" / "e" / "deep.txt").write_text("d")
    shutil.rmtree(root / "a" / "b")
    (root / "c" / "three.txt").unlink()
    lazy = watcher.scan(full=False)
    assert lazy == FileWatcher(str(root)).scan()
    assert diff(first, lazy) == [
        "file:a/b/",
        "file:a/b/two.txt",
        "file:a/new.txt",
        "file:c/three.txt",
        "file:d/",
        "file:d/e/",
        "file:d/e/deep.txt",
    ]


def test_in_place_changes_need_a_write_notice_or_a_full_scan(tmp_path: Path) -> None:
    root, watcher = make(tmp_path)
    first = watcher.scan()
    target = root / "c" / "three.txt"
    target.write_text("changed, same dir listing")
    assert diff(first, watcher.scan(full=False)) == []  # nothing told us
    assert diff(first, watcher.scan(full=True)) == ["file:c/three.txt"]
    again = watcher.scan()
    watcher.will_write(str(target))  # what the audit hook does before an open for writing
    target.write_text("changed again")
    assert diff(again, watcher.scan(full=False)) == ["file:c/three.txt"]


def test_the_working_directory_a_test_moved_to_is_watched_relative_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    away = tmp_path / "basetemp" / "work0"
    (away / "sub").mkdir(parents=True)
    (away / "out.tsv").write_text("x")
    (away / "sub" / "deep.txt").write_text("y")
    monkeypatch.chdir(root)
    watcher = FileWatcher(str(root), cwd=True)
    assert not [n for n in watcher.scan() if "$CWD" in n]  # inside the project: its names
    monkeypatch.chdir(away)
    names = set(watcher.scan())
    assert {"file:$CWD/out.tsv", "file:$CWD/sub/", "file:$CWD/sub/deep.txt"} <= names
    assert watcher.path_of("file:$CWD/out.tsv") == str(away / "out.tsv")
    assert not [n for n in FileWatcher(str(root)).scan() if "$CWD" in n]  # off by default
