"""Helpers shared by the command-line tests: small projects, running ``main(argv)``, and
read-only directories."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Callable

import pytest
from clitools import MOD, write_files

from orderdep.shells.cli import main

CliRunner = Callable[..., tuple[int, str, str]]
Freezer = Callable[[Path], Path]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> CliRunner:
    """``cli(*argv) -> (exit code, stdout, stderr)`` through ``main``; never a traceback."""

    def run(*argv: object) -> tuple[int, str, str]:
        capsys.readouterr()  # only this command's output (not an in-process pytest's)
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        assert "Traceback (most recent call last)" not in out + err
        return code, out, err

    return run


@pytest.fixture
def no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest processes without hypothesis's plugin: its shutdown costs about a second per
    process, and the hand-written projects do not use it."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


@pytest.fixture
def shop(tmp_path: Path, no_hypothesis_plugin: None) -> Path:
    """The hand-written project of ``why_project`` (a victim, a polluter group, brittles)."""
    from why_project import make_shop

    return make_shop(tmp_path / "shop")


@pytest.fixture
def od_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A victim that fails after its polluter; the original order passes."""
    # Unused by this project; its shutdown costs half a second per pytest process.
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    return write_files(
        tmp_path / "proj",
        {
            "pytest.ini": "[pytest]\n",
            MOD: """
                STATE = {"polluted": False}

                def test_victim():
                    assert not STATE["polluted"]

                def test_other():
                    pass

                def test_polluter():
                    STATE["polluted"] = True
            """,
        },
    )


@pytest.fixture
def freeze() -> Iterator[Freezer]:
    """``freeze(directory)`` makes ``directory`` read-only (a read-only bind mount when
    running as root, whom permissions do not stop) until the test ends."""
    mounts: list[Path] = []
    modes: list[tuple[Path, int]] = []

    def make(directory: Path) -> Path:
        if os.geteuid() != 0:
            for path in [directory, *directory.rglob("*")]:
                if path.is_dir():
                    modes.append((path, path.stat().st_mode))
                    path.chmod(path.stat().st_mode & ~0o222)
            return directory
        proc = subprocess.run(
            ["mount", "--bind", "-o", "ro", str(directory), str(directory)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            pytest.skip(f"cannot make a read-only directory here: {proc.stderr.strip()}")
        mounts.append(directory)
        return directory

    yield make
    for directory in reversed(mounts):
        subprocess.run(["umount", str(directory)], check=True)
    for path, mode in reversed(modes):
        path.chmod(mode)
