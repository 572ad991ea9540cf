"""``fix`` on a project whose pytest rootdir is a directory inside it (its ini file is
``tests/pytest.ini``, and ``--pytest-arg=tests`` runs it): the test ids start there
(``test_cart.py::...``), so the patches name files from there and are written into
``tests/``, where plain pytest then passes in the failing order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import write_files

if TYPE_CHECKING:
    from conftest import CliRunner

FILES = {
    "setup.py": "",
    "tests/pytest.ini": "[pytest]\n",
    "tests/test_cart.py": """
        ITEMS = []


        def test_add():
            ITEMS.append("book")
            assert ITEMS


        def test_empty():
            assert ITEMS == []
        """,
}
POLLUTER, VICTIM = "test_cart.py::test_add", "test_cart.py::test_empty"


def test_the_patch_goes_into_the_file_under_the_rootdir(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    project = write_files(tmp_path / "proj", FILES)
    code, out, err = cli("detect", project, "--classify", "--seed", "1", "--pytest-arg=tests")
    assert code == 1 and VICTIM in out, out + err
    code, out, err = cli("fix", project, "--apply", "--pytest-arg=tests")
    assert code == 0, out + err
    assert "cannot read the source" not in out
    assert not (project / "test_cart.py").exists()
    assert "test_cart.py" in out and "applied to" in out
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-q", "tests/test_cart.py::test_add",
         "tests/test_cart.py::test_empty"],
        cwd=project, capture_output=True, text=True,
    )  # fmt: skip
    assert plain.returncode == 0, plain.stdout + plain.stderr
