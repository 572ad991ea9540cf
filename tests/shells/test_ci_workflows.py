"""The CI recipes of docs/ci.md, run as written: the GitHub Actions workflow's and the
GitLab job's commands in a clone whose pull request adds a polluter."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from clitools import git, write_files
from test_cli_ci import BASE, PR, VICTIM

yaml = pytest.importorskip("yaml")

DOC = Path(__file__).resolve().parents[2] / "docs" / "ci.md"
INSTALL = "pip install -e . orderdep"  # orderdep and the project are installed here already


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def _workflows() -> tuple[dict[str, Any], dict[str, Any]]:
    github, gitlab = (yaml.safe_load(b) for b in _blocks("yaml"))
    return github, gitlab


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A CI checkout of branch ``feature`` (adds a polluter); ``main`` moved on since
    the branch left it (a change that is not the pull request's)."""
    work = write_files(tmp_path / "work", BASE)
    (work / ".gitignore").write_text(".orderdep/\n__pycache__/\norderdep.xml\n")
    git(work, "init", "-q", "-b", "main")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "base")
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "origin.git")
    git(work, "remote", "add", "origin", str(tmp_path / "origin.git"))
    git(work, "push", "-q", "origin", "main")
    git(work, "checkout", "-q", "-b", "feature")
    write_files(work, PR)
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "debug toolbar")
    git(work, "push", "-q", "origin", "feature")
    git(work, "checkout", "-q", "main")
    misc = work / "tests" / "test_c_misc.py"
    misc.write_text(misc.read_text() + "\ndef test_three():\n    assert 3\n")
    git(work, "commit", "-q", "-am", "more misc tests")
    git(work, "push", "-q", "origin", "main")
    git(tmp_path, "clone", "-q", "--branch", "feature", str(tmp_path / "origin.git"), "ci")
    return tmp_path / "ci"


def _run(
    script: str, cwd: Path, env: dict[str, str], installs: int = 1
) -> subprocess.CompletedProcess[str]:
    """Run ``script``'s lines in bash (stop at the first failure), all but its install."""
    lines = [ln for ln in script.splitlines() if ln.strip()]
    assert [ln for ln in lines if ln.startswith("pip install")] == [INSTALL] * installs
    commands = "\n".join(ln for ln in lines if not ln.startswith("pip install"))
    bindir = str(Path(sys.executable).parent)
    full = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    full.update(env)
    full["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    full["PYTEST_ADDOPTS"] = "-p no:hypothesispytest"
    return subprocess.run(
        ["bash", "-e", "-c", commands], cwd=cwd, env=full, capture_output=True, text=True
    )


def _check_finding(clone: Path, result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 1, result.stderr  # a finding fails the CI step
    assert "orderdep: --changed since origin/main: 1 test(s) in changed files" in result.stderr
    cases = ET.parse(clone / "orderdep.xml").getroot().findall("./testsuite/testcase")
    assert [c.get("file") + "::" + c.get("name") for c in cases] == [VICTIM]  # type: ignore[operator]


def test_github_actions_workflow(clone: Path) -> None:
    github, _ = _workflows()
    steps = github["jobs"]["orderdep"]["steps"]
    cache = next(s for s in steps if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == ".orderdep"
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["path"].split() == ["orderdep.xml", ".orderdep/report.json"]
    script = "\n".join(s["run"] for s in steps if "run" in s)
    env = {"GITHUB_BASE_REF": "main", "GITHUB_ACTIONS": "true"}
    first = _run(script, clone, env)
    _check_finding(clone, first)
    assert "::error file=tests/test_a_views.py,line=4," in first.stdout
    for path in ("orderdep.xml", ".orderdep/report.json"):
        assert (clone / path).is_file()
    # The next run, with the cached .orderdep/, takes the orders it already ran from the
    # store.
    second = _run(script, clone, env)
    _check_finding(clone, second)
    assert "orderdep: resumed: " in second.stderr


def test_gitlab_ci_job(clone: Path) -> None:
    _, gitlab = _workflows()
    job = gitlab["orderdep"]
    assert job["cache"]["paths"] == [".orderdep/"]
    assert job["artifacts"]["reports"]["junit"] == "orderdep.xml"
    env = {"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"}
    result = _run("\n".join(job["script"]), clone, env)
    _check_finding(clone, result)
    assert "::error" not in result.stdout  # annotations are GitHub's only


def test_the_command_at_the_top(clone: Path) -> None:
    (command,) = [ln for b in _blocks("sh") for ln in b.splitlines() if ln.startswith("orderdep")]
    _check_finding(clone, _run(command, clone, {}, installs=0))
