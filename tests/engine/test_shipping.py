"""The project archive shipped to workers: what it holds and how its key changes."""

from __future__ import annotations

import os
from pathlib import Path

from tests.engine.conftest import write_files

from orderdep.engine.shipping import pack_project, unpack_project


def _project(root: Path) -> Path:
    write_files(
        root,
        {
            "pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests']\n",
            "src/app/__init__.py": "REGISTRY = {}\n",
            "tests/conftest.py": "import pytest\n",
            "tests/test_app.py": "from app import REGISTRY\ndef test_empty():\n    assert not REGISTRY\n",
            "data/fixture.json": '{"users": []}\n',
            ".git/config": "[core]\n",
            ".venv/pyvenv.cfg": "home = /usr\n",
            "env2/pyvenv.cfg": "home = /usr\n",
            "env2/lib/site.py": "x = 1\n",
            "tests/__pycache__/test_app.cpython-311.pyc": "junk",
            ".orderdep/results.db": "junk",
        },
    )
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    os.symlink("src/app", root / "app_link")
    return root


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): (
            "-> " + os.readlink(p) if p.is_symlink() else p.read_text(encoding="utf-8")
        )
        for p in sorted(root.rglob("*"))
        if p.is_symlink() or p.is_file()
    }


def test_round_trip_keeps_the_working_copy_without_vcs_venvs_and_caches(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    packed = pack_project(project)
    out = unpack_project(packed.data, tmp_path / "w" / packed.key)
    got = _tree(out)
    assert set(got) == {
        "pyproject.toml",
        "src/app/__init__.py",
        "tests/conftest.py",
        "tests/test_app.py",
        "data/fixture.json",
        "run.sh",
        "app_link",
    }
    assert got["app_link"] == "-> src/app"
    assert got["tests/test_app.py"] == (project / "tests/test_app.py").read_text()
    assert os.access(out / "run.sh", os.X_OK)
    assert not os.access(out / "data/fixture.json", os.X_OK)
    assert packed.files == 7


def test_key_follows_content_not_timestamps(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    first = pack_project(project)
    os.utime(project / "tests/test_app.py", (1, 1))
    (project / ".git/config").write_text("[core]\nbare = false\n")
    assert pack_project(project).key == first.key
    (project / "tests/test_app.py").write_text("def test_empty():\n    pass\n")
    changed = pack_project(project)
    assert changed.key != first.key
    (project / "tests/test_app.py").unlink()
    assert pack_project(project).key not in (first.key, changed.key)


def test_key_follows_the_executable_bit(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    first = pack_project(project).key
    (project / "run.sh").chmod(0o644)
    assert pack_project(project).key != first


def test_unpack_leaves_an_existing_version_alone(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    packed = pack_project(project)
    dest = tmp_path / "w" / packed.key
    unpack_project(packed.data, dest)
    (dest / "marker").write_text("kept")
    unpack_project(packed.data, dest)
    assert (dest / "marker").read_text() == "kept"
    assert [p.name for p in dest.parent.iterdir()] == [packed.key]  # no staging left
