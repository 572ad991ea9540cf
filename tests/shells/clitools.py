"""Constants and small functions shared by the command-line tests (fixtures are in
``conftest.py``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.engine.conftest import write_files as write_files  # one helper, re-exported

MOD = "tests/test_od.py"
VICTIM, POLLUTER, OTHER = f"{MOD}::test_victim", f"{MOD}::test_polluter", f"{MOD}::test_other"


def one_line(err: str) -> str:
    """The one ``orderdep: error: ...`` line that ends ``err`` (notices such as the seed
    may come before it; nothing continues it)."""
    lines = err.strip().splitlines()
    assert lines and lines[-1].startswith("orderdep: error: "), err
    assert sum(line.startswith("orderdep: error") for line in lines) == 1, err
    assert all(line.startswith("orderdep: ") for line in lines), err
    return lines[-1]


def git(root: Path, *args: str) -> None:
    """Run git in ``root`` as a committer named ci (the output is captured)."""
    subprocess.run(
        ["git", "-c", "user.name=ci", "-c", "user.email=ci@example.org", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )
