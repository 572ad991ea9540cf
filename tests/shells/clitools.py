"""Constants and small functions shared by the command-line tests (fixtures are in
``conftest.py``)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.engine.conftest import write_files as write_files  # one helper, re-exported

from orderdep.core.report import ODFinding, Report, save_report

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


COUNTED = "tests/test_s.py::"
_COUNTER_HEAD = """
import pathlib

RUNS = pathlib.Path({runs!r})
"""
_COUNTER_TAIL = """

def test_count():
    with RUNS.open("a") as out:
        out.write("run\\n")
"""


def counted_project(root: Path, runs: Path, body: str, findings: list[ODFinding]) -> Path:
    """A project whose ``tests/test_s.py`` holds the tests of ``body`` (top-level code,
    not indented) and, last, ``test_count``, which adds a line to ``runs`` each time it
    runs: how often a command ran the whole suite, counted. Its report holds
    ``findings``."""
    source = _COUNTER_HEAD.format(runs=str(runs)) + body + _COUNTER_TAIL
    write_files(root, {"pytest.ini": "[pytest]\n", "tests/test_s.py": source})
    names = re.findall(r"^def (test_\w+)", source, re.MULTILINE)
    tests = [COUNTED + name for name in names]
    save_report(root / ".orderdep" / "report.json", Report(str(root), tests, findings))
    return root
