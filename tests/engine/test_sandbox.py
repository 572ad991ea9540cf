"""Sandboxes: a private copy of the project, a private HOME and TMPDIR, each put back
exactly as it was at the baseline after each order."""

from __future__ import annotations

import os
import random
import stat
from pathlib import Path

import pytest

from orderdep.engine import treewatch
from orderdep.engine.sandbox import Sandbox, copy_project, empty_dir, scan


@pytest.fixture(autouse=True, params=["inotify", "walk"])
def change_detection(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every sandbox test runs twice: knowing of changes from inotify, and by walking the
    tree after every order (where inotify is missing)."""
    if request.param == "walk":
        monkeypatch.setattr(treewatch.TreeWatch, "start", classmethod(lambda cls, *a: None))
    elif treewatch.TreeWatch.start(Path("."), ()) is None:
        pytest.skip("inotify is not available here")
    return str(request.param)


@pytest.fixture(autouse=True)
def user_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's HOME as the sandbox sees it: empty unless a test fills it."""
    home = tmp_path_factory.mktemp("user-home")
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


def tree_state(root: Path) -> dict[str, object]:
    """Every entry under ``root``: file content, symlink target or directory marker, plus mode."""
    out: dict[str, object] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                out[rel] = ("dir", stat.S_IMODE(path.stat().st_mode))
            else:
                out[rel] = ("file", path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    files = {
        "app.py": "X = 1\n",
        "data/config.json": "{}\n",
        "data/nested/deep.txt": "deep\n",
        "tests/test_app.py": "def test_x():\n    pass\n",
        ".env": "KEY=1\n",
        ".git/HEAD": "ref: refs/heads/main\n",
        "node_modules/x/index.js": "\n",
        "__pycache__/app.cpython-311.pyc": "",
        ".pytest_cache/v/cache/lastfailed": "{}",
        ".orderdep/results.db": "",
        "myenv/pyvenv.cfg": "home = /usr\n",
        "myenv/lib/site.py": "\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "link_to_app").symlink_to("app.py")
    (root / "script.sh").write_text("#!/bin/sh\n")
    (root / "script.sh").chmod(0o755)
    return root


def test_copy_leaves_out_vcs_caches_and_virtualenvs(project: Path, tmp_path: Path) -> None:
    dest = tmp_path / "copy"
    copy_project(project, dest)
    top = sorted(p.name for p in dest.iterdir())
    assert top == [".env", "app.py", "data", "link_to_app", "script.sh", "tests"]
    assert (dest / "link_to_app").is_symlink()
    assert os.readlink(dest / "link_to_app") == "app.py"
    assert (dest / "data/nested/deep.txt").read_text() == "deep\n"
    assert os.access(dest / "script.sh", os.X_OK)


def test_scan_ignores_bytecode_and_pytest_caches(tmp_path: Path) -> None:
    (tmp_path / "a/__pycache__").mkdir(parents=True)
    (tmp_path / "a/__pycache__/m.pyc").write_text("")
    (tmp_path / ".pytest_cache").mkdir()
    (tmp_path / "a/m.py").write_text("x")
    assert sorted(scan(tmp_path)) == ["a", os.path.join("a", "m.py")]


def test_empty_dir_keeps_the_directory(tmp_path: Path) -> None:
    target = tmp_path / "t"
    (target / "sub").mkdir(parents=True)
    (target / "f").write_text("x")
    (target / "link").symlink_to(tmp_path)  # removed, not followed
    empty_dir(target)
    assert target.is_dir() and list(target.iterdir()) == []
    assert tmp_path.is_dir()
    empty_dir(tmp_path / "new")
    assert (tmp_path / "new").is_dir()


def make_sandbox(
    project: Path, tmp_path: Path, *, copy: bool = True, home: str = "copy"
) -> Sandbox:
    sandbox = Sandbox(project, tmp_path / "work", copy=copy, home=home)
    sandbox.create()
    return sandbox


def test_create_gives_a_private_tree_home_and_tmp(project: Path, tmp_path: Path) -> None:
    sandbox = make_sandbox(project, tmp_path)
    assert sandbox.tree != project and (sandbox.tree / "app.py").read_text() == "X = 1\n"
    env = sandbox.env()
    assert env["HOME"] == str(sandbox.home)
    assert env["TMPDIR"] == env["TEMP"] == env["TMP"] == str(sandbox.tmp)
    assert sandbox.home.is_dir() and sandbox.tmp.is_dir()
    assert sandbox.restore() == []  # nothing changed yet


def test_restore_undoes_every_kind_of_change(project: Path, tmp_path: Path) -> None:
    sandbox = make_sandbox(project, tmp_path)
    tree = sandbox.tree
    pristine = tree_state(tree)
    before_project = tree_state(project)

    (tree / "new.lock").write_text("x")  # created file
    (tree / "newdir/inner").mkdir(parents=True)  # created directories
    (tree / "newdir/inner/f.db").write_text("x")
    (tree / "app.py").write_text("X = 2\n")  # same size, new content
    (tree / "data/config.json").write_text('{"changed": true}\n')  # changed size
    (tree / "tests/test_app.py").unlink()  # deleted file
    for p in sorted((tree / "data/nested").iterdir()):
        p.unlink()
    (tree / "data/nested").rmdir()  # deleted directory with its files
    (tree / ".env").unlink()
    (tree / ".env").mkdir()  # file replaced by a directory
    (tree / "script.sh").chmod(0o600)  # mode change
    (tree / "link_to_app").unlink()  # deleted symlink
    (sandbox.home / ".config").mkdir()
    (sandbox.tmp / "x.tmp").write_text("x")

    changed = sandbox.restore()
    assert tree_state(tree) == pristine
    assert list(sandbox.home.iterdir()) == [] and list(sandbox.tmp.iterdir()) == []
    assert {"new.lock", "newdir", "app.py", "tests/test_app.py", "data/nested"} <= set(changed)
    assert {".config", "x.tmp"} <= set(changed)
    assert os.readlink(tree / "link_to_app") == "app.py"
    assert sandbox.restore() == []
    assert tree_state(project) == before_project


def test_restore_puts_a_deleted_directory_back_where_a_file_now_is(
    project: Path, tmp_path: Path
) -> None:
    sandbox = make_sandbox(project, tmp_path)
    pristine = tree_state(sandbox.tree)
    (sandbox.tree / "data/nested/deep.txt").unlink()
    (sandbox.tree / "data/nested").rmdir()
    (sandbox.tree / "data/nested").write_text("now a file")
    sandbox.restore()
    assert tree_state(sandbox.tree) == pristine


def test_restore_puts_back_a_retargeted_symlink(project: Path, tmp_path: Path) -> None:
    sandbox = make_sandbox(project, tmp_path)
    pristine = tree_state(sandbox.tree)
    link = sandbox.tree / "link_to_app"
    link.unlink()
    link.symlink_to("tests/test_app.py")
    sandbox.restore()
    assert tree_state(sandbox.tree) == pristine


def test_restore_puts_back_a_symlink_retargeted_to_a_directory(
    project: Path, tmp_path: Path
) -> None:
    sandbox = make_sandbox(project, tmp_path)
    pristine = tree_state(sandbox.tree)
    link = sandbox.tree / "link_to_app"
    link.unlink()
    link.symlink_to("data")
    sandbox.restore()
    assert tree_state(sandbox.tree) == pristine


def test_restore_returns_to_the_latest_baseline(project: Path, tmp_path: Path) -> None:
    sandbox = make_sandbox(project, tmp_path)
    (sandbox.tree / "kept.txt").write_text("made before the baseline")
    sandbox.mark_baseline()
    (sandbox.tree / "later.txt").write_text("x")
    assert sandbox.restore() == ["later.txt"]
    assert (sandbox.tree / "kept.txt").exists()


def test_restore_brings_back_files_of_the_baseline_that_the_project_lacks(
    project: Path, tmp_path: Path
) -> None:
    sandbox = make_sandbox(project, tmp_path)
    generated = sandbox.tree / "generated.txt"  # e.g. written by a conftest at collection
    generated.write_text("generated")
    (sandbox.tree / "app.py").write_text("X = 'generated'\n")
    sandbox.mark_baseline()
    generated.unlink()
    (sandbox.tree / "app.py").write_text("X = 'changed by a test'\n")
    sandbox.restore()
    assert (sandbox.tree / "app.py").read_text() == "X = 'generated'\n"
    assert generated.read_text() == "generated"


def test_without_copy_the_project_is_the_tree(project: Path, tmp_path: Path) -> None:
    sandbox = make_sandbox(project, tmp_path, copy=False)
    assert sandbox.tree == project.resolve()
    (project / "left.txt").write_text("x")
    (sandbox.tmp / "x").write_text("x")
    assert sandbox.restore() == ["x"]  # TMPDIR is still private and put back
    assert (project / "left.txt").exists()  # no copy: nothing to put back
    assert list(sandbox.tmp.iterdir()) == []


def test_destroy_removes_only_the_working_directory(project: Path, tmp_path: Path) -> None:
    sandbox = make_sandbox(project, tmp_path)
    sandbox.destroy()
    assert not sandbox.workdir.exists()
    assert (project / "app.py").exists()
    sandbox.destroy()  # twice is fine


def test_a_directory_put_back_is_watched_again(project: Path, tmp_path: Path) -> None:
    box = Sandbox(project, tmp_path / "w")
    box.create()
    before = tree_state(box.tree)
    import shutil

    shutil.rmtree(box.tree / "data")
    assert "data/config.json" in box.restore()
    # A change inside the directory that was just put back is seen after the next order.
    (box.tree / "data" / "nested" / "deep.txt").write_text("changed\n")
    assert box.restore() == ["data/nested/deep.txt"]
    assert tree_state(box.tree) == before


def test_an_order_that_changes_nothing_needs_no_walk(
    project: Path, tmp_path: Path, change_detection: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    box = Sandbox(project, tmp_path / "w")
    box.create()
    (box.tree / "__pycache__").mkdir()  # bytecode caches are never compared
    walks: list[Path] = []
    import orderdep.engine.area as area_module

    real_scan = area_module.scan
    monkeypatch.setattr(area_module, "scan", lambda root: walks.append(root) or real_scan(root))
    assert box.restore() == []
    assert walks == ([] if change_detection == "inotify" else [box.tree, box.home, box.tmp])
    (box.tree / "app.py").write_text("X = 2\n")
    assert box.restore() == ["app.py"]
    assert (box.tree / "app.py").read_text() == "X = 1\n"


def _random_change(root: Path, rng: random.Random, step: int) -> None:
    entries = sorted(p for p in root.rglob("*") if "__pycache__" not in p.parts)
    files = [p for p in entries if p.is_file() and not p.is_symlink()]
    dirs = [root, *(p for p in entries if p.is_dir() and not p.is_symlink())]
    kind = rng.choice(["create", "modify", "delete", "rename", "mkdir", "rmtree", "chmod"])
    if kind == "create":
        (rng.choice(dirs) / f"new{step}.txt").write_text(str(step))
    elif kind == "modify" and files:
        rng.choice(files).write_text(f"changed {step}\n")
    elif kind == "delete" and files:
        rng.choice(files).unlink()
    elif kind == "rename" and files:
        rng.choice(files).rename(rng.choice(dirs) / f"moved{step}")
    elif kind == "mkdir":
        inner = rng.choice(dirs) / f"d{step}" / "inner"
        inner.mkdir(parents=True)
        (inner / "f.txt").write_text("x")
    elif kind == "rmtree" and len(dirs) > 1:
        import shutil

        shutil.rmtree(rng.choice(dirs[1:]))
    elif kind == "chmod" and files:
        rng.choice(files).chmod(0o600)


def test_many_orders_of_random_changes_are_all_undone(project: Path, tmp_path: Path) -> None:
    box = Sandbox(project, tmp_path / "w")
    box.create()
    before = tree_state(box.tree)
    rng = random.Random(7)
    for order in range(60):
        for step in range(rng.randint(0, 3)):
            _random_change(box.tree, rng, order * 10 + step)
        box.restore()
        assert tree_state(box.tree) == before, f"after order {order}"


def test_files_written_while_collecting_stay_for_every_order(project: Path, tmp_path: Path) -> None:
    """A cache directory made at import under TMPDIR (or a file under HOME) exists for
    every test of a fresh pytest run: the baseline keeps it, orders only undo their own."""
    sandbox = make_sandbox(project, tmp_path)
    cache = sandbox.tmp / "tmpab12cd"
    cache.mkdir()
    (cache / "index.json").write_text("{}")
    (sandbox.home / ".tool.json").write_text('{"a": 1}')
    sandbox.mark_baseline()  # what the engine does once the suite is collected
    (cache / "index.json").write_text('{"written": "by an order"}')
    (cache / "extra.bin").write_text("x")
    (sandbox.home / ".tool.json").unlink()
    sandbox.restore()
    assert sorted(p.name for p in cache.iterdir()) == ["index.json"]
    assert (cache / "index.json").read_text() == "{}"
    assert (sandbox.home / ".tool.json").read_text() == '{"a": 1}'


def test_home_copy_seeds_the_users_configuration_only(
    project: Path, tmp_path: Path, user_home: Path
) -> None:
    (user_home / ".gitconfig").write_text("[user]\n\tname = T\n")
    (user_home / ".config/tool").mkdir(parents=True)
    (user_home / ".config/tool/settings.toml").write_text("x = 1\n")
    (user_home / ".cache/big").mkdir(parents=True)
    (user_home / ".cache/big/blob").write_text("c")
    (user_home / "Documents").mkdir()
    (user_home / "notes.txt").write_text("n")
    (user_home / ".huge").write_bytes(b"0" * ((1 << 20) + 1))
    sandbox = make_sandbox(project, tmp_path)
    state = tree_state(sandbox.home)
    assert sorted(state) == [".config", ".config/tool", ".config/tool/settings.toml", ".gitconfig"]
    assert sandbox.env()["HOME"] == str(sandbox.home)
    (sandbox.home / ".gitconfig").write_text("changed")
    (sandbox.home / ".config/tool/settings.toml").unlink()
    sandbox.restore()
    assert tree_state(sandbox.home) == state
    assert (user_home / ".gitconfig").read_text().startswith("[user]")


def test_home_policies_empty_and_real(
    project: Path, tmp_path: Path, user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (user_home / ".gitconfig").write_text("[user]\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(user_home / ".cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", "/etc/elsewhere")
    empty = make_sandbox(project, tmp_path / "e", home="empty")
    assert list(empty.home.iterdir()) == []
    env = empty.env()
    assert env["XDG_CACHE_HOME"] == str(empty.home / ".cache")  # inside HOME: follows it
    assert "XDG_CONFIG_HOME" not in env  # elsewhere: left alone
    real = make_sandbox(project, tmp_path / "r", home="real")
    assert "HOME" not in real.env() and "XDG_CACHE_HOME" not in real.env()
    (user_home / "written.txt").write_text("x")
    real.restore()
    assert (user_home / "written.txt").exists()  # the real HOME is never put back


def test_restore_after_a_directory_of_the_baseline_is_rewritten_in_place(
    project: Path, tmp_path: Path
) -> None:
    # as `pip install -e .` run by a test rewrites PKG-INFO in an egg-info directory
    # (a temporary file beside it, the directory's own times changed)
    box = Sandbox(project, tmp_path / "w")
    box.create()
    before = tree_state(box.tree)
    for n in range(3):
        data = box.tree / "data"
        (data / f"tmp{n}").write_text("half-written")
        (data / "config.json").write_text(f'{{"rewritten": {n}}}')
        os.utime(data, (n, n))
        changed = box.restore()
        assert "data/config.json" in changed and f"data/tmp{n}" in changed
        assert tree_state(box.tree) == before


def test_a_socket_and_a_pipe_collection_left_are_not_copied(project: Path, tmp_path: Path) -> None:
    """A ``multiprocessing`` listener made at import lives under TMPDIR as a socket: the
    baseline cannot copy it (opening one fails; a pipe would block) and keeps the rest."""
    import socket

    sandbox = make_sandbox(project, tmp_path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    where = sandbox.tmp / "pymp-x"
    where.mkdir()
    listener.bind(str(where / "listener"))
    os.mkfifo(where / "fifo")
    (where / "state.txt").write_text("kept")
    try:
        sandbox.mark_baseline()
        (where / "state.txt").write_text("changed by an order")
        (where / "fifo").unlink()
        sandbox.restore()
        assert (where / "state.txt").read_text() == "kept"
        assert stat.S_ISSOCK(os.lstat(where / "listener").st_mode)
    finally:
        listener.close()
