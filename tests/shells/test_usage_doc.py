"""docs/usage.md, run again: every command of its walk-through, in order, on a git copy of
the bundled example, with the exit code the page states ("# exits N", else 0), and the
lines of output that do not depend on timing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "usage.md"
WALK = "/tmp/walk/bookshop"  # where the page's run took place
# Set-up lines the test does itself (install, PATH, cd).
SET_UP = ("python3 -m venv", "export ", "cd ")
TIMING = re.compile(r"\d+\.\d+s|\d+\.\d+ s|~\d+ s estimated")


def steps() -> list[tuple[str, int, list[str]]]:
    """(command, expected exit code, its output lines) for each `$ ` line of the page."""
    out: list[tuple[str, int, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                command, _, note = line[2:].partition("    # ")
                exits = re.match(r"exits (\d+)", note)
                out.append((command.strip(), int(exits.group(1)) if exits else 0, []))
            elif out:
                out[-1][2].append(line)
    return [s for s in out if not s[0].startswith(SET_UP)]


@pytest.mark.slow
def test_the_usage_walk_through_runs_as_printed(tmp_path: Path) -> None:
    project = tmp_path / "bookshop"
    skip = shutil.ignore_patterns(".orderdep", "__pycache__", "orderdep-deps.json")
    shutil.copytree(ROOT / "examples" / "bookshop", project, ignore=skip)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "bookshop"]):
        subprocess.run([*git, *args], cwd=project, check=True)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env["PYTEST_ADDOPTS"] = "-p no:hypothesispytest -p no:randomly -p no:cacheprovider"
    planned = steps()
    assert [c.split()[:2] for c, _, _ in planned][:2] == [
        ["python", "-m"],
        ["orderdep", "detect"],
    ]
    for command, code, shown in planned:
        command = command.replace(WALK, str(project))
        proc = subprocess.run(
            command, shell=True, cwd=project, env=env, capture_output=True, text=True
        )
        assert proc.returncode == code, (command, proc.stdout, proc.stderr)
        got = (proc.stdout + proc.stderr).replace(str(project), WALK)
        for line in shown:
            if line.strip() in ("", "...") or TIMING.search(line):
                continue
            assert line in got.splitlines(), (command, line, got)
