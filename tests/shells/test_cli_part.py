"""A suite whose original order does not fit the budget: ``detect`` searches the leading
part its fork run reached, and ``fix`` checks each patch in that part's original order
(see :mod:`orderdep.analysis.fork_part`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import pytest

from orderdep.analysis import fork_trust
from orderdep.core.fidelity import FidelityReport
from orderdep.engine.runner import Engine

if TYPE_CHECKING:
    from conftest import CliRunner

PART = [f"tests/test_od.py::{name}" for name in ("test_victim", "test_other", "test_polluter")]


@pytest.fixture
def long_project(od_project: Path) -> Path:
    """``od_project`` and a later module whose test notes each run of it (in the file
    ``later-ran``): the part the search covers is the first module."""
    ran = od_project / "later-ran"
    (od_project / "tests" / "test_z.py").write_text(
        f"def test_later():\n    open({str(ran)!r}, 'a').write('ran\\n')\n"
    )
    return od_project


def detected(project: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """``detect`` after a check whose fork run reached only :data:`PART`: exit code and
    output."""

    def reached(engine: Engine, *args: Any, **kwargs: Any) -> Optional[FidelityReport]:
        engine.search_unchecked = True
        engine.search_part = PART
        return None

    with monkeypatch.context() as patched:
        patched.setattr(fork_trust, "trust_fork", reached)
        code, out, err = cli("detect", project, "--seed", "1", "--report", project / "r.json")
    return code, out + err


def test_the_search_covers_the_part_the_fork_run_reached(
    long_project: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = detected(long_project, cli, monkeypatch)
    assert code == 1, out  # OD tests found
    data = json.loads((long_project / "r.json").read_text())
    assert [f["test"] for f in data["od_tests"]] == ["tests/test_od.py::test_victim"]
    assert data["stats"]["part_searched"] == {"tests": 3, "of": 4}
    assert not (long_project / "later-ran").exists()
    assert "the search covered the first 3 of the original order's 4 tests" in out


def test_fix_checks_each_patch_in_the_part_detect_searched(
    long_project: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    detected(long_project, cli, monkeypatch)
    code, out, err = cli("fix", long_project, "--report", long_project / "r.json", "--apply")
    assert code == 0, out + err
    assert not (long_project / "later-ran").exists()  # neither the check nor a patch ran it
    assert "detect searched the first 3 of the original order's 4 tests" in err
    assert "on the first 3 of the original order's 4 tests (those detect searched)" in err
    polluted = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider",
         PART[2], PART[0]],
        cwd=long_project, capture_output=True, text=True,
    )  # fmt: skip
    assert polluted.returncode == 0, polluted.stdout  # the victim passes after its polluter
