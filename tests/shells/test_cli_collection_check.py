"""``detect --classify`` runs each test file as ``pytest FILE`` does: tests that need
another module's import-time code (a ``sys.path`` insert, a registry filled at import)
are reported with the plain pytest commands that show it, and ``fix`` says why it leaves
them to a strategy other than ``module`` (``test_cli_fix_module.py``)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from collection_project import NEEDS_GROUP, REAL, SETTER, STUB, TOOL, collection_project

from orderdep.core.report import COLLECTED_KEY

if TYPE_CHECKING:
    from conftest import CliRunner


def _run_printed(line: str) -> int:
    """Run a printed ``cd DIR && python -m pytest ...`` command; its exit code."""
    command = line.split(": ", 1)[1]
    return subprocess.run(command, shell=True, capture_output=True, env=os.environ).returncode


@pytest.mark.slow
def test_detect_reports_what_fails_as_pytest_file_and_fix_says_why_it_leaves_some(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None
) -> None:
    root = collection_project(tmp_path / "p")
    code, out, err = cli("detect", root, "--classify", "--seed", "1", "--budget", "60")
    assert code == 1, out + err
    assert "ran 5 of 5 test files alone as `pytest FILE` runs them; 2 test(s) failed" in err
    report = json.loads((root / ".orderdep" / "report.json").read_text())
    found = {f["test"]: f for f in report["od_tests"]}
    assert sorted(found) == [NEEDS_GROUP, TOOL, REAL], out
    assert REAL not in report["always_failing"]
    assert found[REAL]["kind"] == "victim" and found[REAL]["polluters"] == [STUB]
    for test in (NEEDS_GROUP, TOOL):
        assert found[test]["kind"] == "brittle"
        assert found[test]["state_setters"] == [SETTER]
        assert COLLECTED_KEY in found[test]
    assert "  collection check: 5 of 5 test files run alone as `pytest FILE`\n" in out
    lines = out.splitlines()
    at = lines.index(f"  {TOOL}  [brittle]")
    assert lines[at + 1].strip().startswith("fails when pytest collects only its own file")
    reproduce, passes = lines[at + 3], lines[at + 4]
    assert reproduce.strip().startswith("reproduce: cd ") and reproduce.endswith(
        f"pytest -p no:randomly {TOOL}"
    )
    assert passes.strip().startswith("passes: cd ") and passes.endswith(f"{SETTER} {TOOL}")
    assert _run_printed(reproduce) != 0  # the printed commands show it
    assert _run_printed(passes) == 0
    at = lines.index(f"  {REAL}  [victim]")
    assert lines[at + 1].strip().startswith("passes when pytest collects only its own file")
    reproduce, passes = lines[at + 3], lines[at + 4]
    assert reproduce.endswith(f"pytest -p no:randomly {STUB} {REAL}"), reproduce
    assert passes.endswith(f"pytest -p no:randomly {REAL}"), passes
    assert _run_printed(reproduce) != 0
    assert _run_printed(passes) == 0

    code, out, err = cli("classify", root, "--budget", "30")  # classified already
    assert f"  fails: cd {root} && python -m pytest -p no:randomly {TOOL}\n" in out, out

    code, out, err = cli("fix", root, "--budget", "60", "--strategy", "restore")
    assert code == 1, out + err  # the brittles' patches are the module strategy's
    assert f"skipping {TOOL}: it fails only when pytest collects part of the suite" in out
    assert "move the import-time code of tests/test_a_setup.py" in out
    assert f"skipping {REAL}: it fails only when another module is collected with it" in out


@pytest.mark.slow
def test_the_check_runs_without_classify_when_asked(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None
) -> None:
    root = collection_project(tmp_path / "p")
    code, out, err = cli("detect", root, "--collection-check", "--seed", "1", "--budget", "60")
    assert code == 1, out + err
    assert "collection check: running each test file as `pytest FILE` runs it" in err
    report = json.loads((root / ".orderdep" / "report.json").read_text())
    assert sorted(f["test"] for f in report["od_tests"]) == [NEEDS_GROUP, TOOL, REAL]


def test_without_the_check_the_whole_suite_orders_find_nothing(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None
) -> None:
    root = collection_project(tmp_path / "p")
    code, out, err = cli(
        "detect", root, "--classify", "--no-collection-check", "--seed", "1", "--budget", "60"
    )
    assert code == 0, out + err
    assert "`pytest FILE`" not in err


def test_test_files_not_run_alone_make_a_result_that_is_not_clean(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orderdep.shells.commands import collection_pass

    monkeypatch.setattr(collection_pass, "FILES_SHARE", 0.0)  # no time to run a file
    root = collection_project(tmp_path / "p")
    code, out, err = cli("detect", root, "--classify", "--seed", "1", "--budget", "60")
    assert code == 3, out + err  # what the whole-suite search saw is no clean result
    assert "the collection check ran 0 of the 5 test files alone as `pytest FILE` does" in out
