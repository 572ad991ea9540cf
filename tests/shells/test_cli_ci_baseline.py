"""``orderdep detect --changed`` with a baseline: on a repository that already has an
order-dependent test, a pull request fails only for the ones it adds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

import pytest
from clitools import git, one_line, write_files

from orderdep.core.depsfile import DEFAULT_DEPS

if TYPE_CHECKING:
    from conftest import CliRunner

OLD_VICTIM, OLD_POLLUTER = "tests/test_cache.py::test_empty", "tests/test_cache.py::test_fill"
NEW_VICTIM, NEW_POLLUTER = "tests/test_flags.py::test_default", "tests/test_flags.py::test_set"

BASE = {
    "pytest.ini": "[pytest]\n",
    "tests/test_cache.py": """
        CACHE = {}

        def test_empty():
            assert not CACHE

        def test_fill():
            CACHE["k"] = 1
    """,
    "tests/test_misc.py": """
        def test_one():
            assert 1
    """,
    # The known pair, committed: `orderdep deps` wrote it from a classified report.
    DEFAULT_DEPS: json.dumps(
        {
            "schema": "orderdep.deps/1",
            "dependencies": [{"test": OLD_VICTIM, "kind": "negative", "dependee": OLD_POLLUTER}],
        }
    ),
}
NEW_PAIR = {
    "tests/test_flags.py": """
        FLAGS = {"on": False}

        def test_default():
            assert not FLAGS["on"]

        def test_set():
            FLAGS["on"] = True
    """
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``main`` with the known pair and its dependencies file."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    root = write_files(tmp_path / "proj", BASE)
    (root / ".gitignore").write_text(".orderdep/\n__pycache__/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    return root


def annotations(out: str) -> dict[str, str]:
    """Test id -> level (error, notice) of the GitHub annotations printed."""
    found = {}
    for line in out.splitlines():
        if line.startswith(("::error ", "::notice ")):
            level, _, rest = line[2:].partition(" ")
            title = rest.split("title=orderdep%3A ", 1)[1].split("::", 1)[0]
            found[title.replace("%3A", ":").replace("%2C", ",")] = level
    return found


def junit_cases(xml: Path) -> dict[str, str]:
    """Test name -> failure, skipped or passed, per JUnit test case."""
    out = {}
    for case in ET.parse(xml).getroot().findall("./testsuite/testcase"):
        kinds = [k for k in ("failure", "skipped") if case.find(k) is not None]
        out[f"{case.get('file')}::{case.get('name')}"] = kinds[0] if kinds else "passed"
    return out


ARGS = ("--changed", "--base", "main", "--strategy", "reverse", "--confirm-runs", "1")


def test_a_new_pair_fails_the_check_and_the_known_one_is_a_notice(
    cli: CliRunner, repo: Path, tmp_path: Path
) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    write_files(repo, NEW_PAIR)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "flags")
    xml = tmp_path / "orderdep.xml"
    code, out, err = cli("detect", repo, *ARGS, "--junitxml", xml)
    assert code == 1, err
    assert (
        "orderdep: baseline: 1 known test(s) from orderdep-deps.json at main, "
        "orderdep-deps.json; only new or worse ones fail"
    ) in err
    assert annotations(out) == {OLD_VICTIM: "notice", NEW_VICTIM: "error"}
    assert junit_cases(xml) == {OLD_VICTIM: "skipped", NEW_VICTIM: "failure"}
    assert "baseline: 1 known (notices), 1 new or worse (fail the check)" in out
    assert f"  {NEW_VICTIM}: new: not in the baseline" in out
    # Without the baseline, both fail as before.
    code, out, err = cli("detect", repo, *ARGS, "--no-baseline")
    assert code == 1, err
    assert annotations(out) == {OLD_VICTIM: "error", NEW_VICTIM: "error"}


def test_a_change_that_touches_only_the_known_pair_passes(
    cli: CliRunner, repo: Path, tmp_path: Path
) -> None:
    # The base branch's report as the baseline (the dependencies file would do too).
    code, _, err = cli("detect", repo, "--strategy", "reverse", "--report", tmp_path / "main.json")
    assert code == 1, err
    git(repo, "checkout", "-q", "-b", "touch-cache")
    cache = repo / "tests" / "test_cache.py"
    cache.write_text(cache.read_text() + "\n\ndef test_size():\n    assert len({}) == 0\n")
    git(repo, "commit", "-q", "-am", "one more cache test")
    xml = tmp_path / "orderdep.xml"
    code, out, err = cli(
        "detect", repo, *ARGS, "--baseline", tmp_path / "main.json", "--junitxml", xml
    )
    assert code == 0, err
    assert annotations(out) == {OLD_VICTIM: "notice"}
    assert junit_cases(xml) == {OLD_VICTIM: "skipped"}
    assert "baseline: 1 known (notices), 0 new or worse (fail the check)" in out


def test_a_baseline_that_is_no_report_nor_dependencies_file(
    cli: CliRunner, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"schema": "something/1"}')
    code, _, err = cli("detect", repo, "--changed", "--baseline", other)
    assert code == 2
    assert one_line(err).startswith(f"orderdep: error: {other} has schema 'something/1'")
    code, _, err = cli("detect", repo, "--baseline", other, "--no-baseline")
    assert code == 2 and "give --baseline FILE or --no-baseline, not both" in one_line(err)
    # A configured baseline is read, and gives way to --no-baseline.
    monkeypatch.setenv("ORDERDEP_BASELINE", str(other))
    code, _, err = cli("detect", repo, "--strategy", "reverse")
    assert code == 2 and "has schema 'something/1'" in one_line(err)
    code, out, err = cli("detect", repo, "--strategy", "reverse", "--no-baseline")
    assert code == 1 and annotations(out) == {OLD_VICTIM: "error"}, err
