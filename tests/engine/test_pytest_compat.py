"""The test processes on a pytest older than orderdep's own (a project pinning pytest 6,
orderdep installed apart from it and pointed at the project's interpreter)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from orderdep.engine.pytest_compat import current_exception, item_path, root_path
from orderdep.shells.cli import main


class _LocalPath:
    """Stands in for ``py.path.local``: a path object that is no ``pathlib.Path``."""

    def __init__(self, path: str) -> None:
        self._path = path

    def __str__(self) -> str:
        return self._path


def test_paths_come_from_py_path_objects_before_pytest_7(tmp_path: Path) -> None:
    old_item = SimpleNamespace(fspath=_LocalPath(str(tmp_path / "test_a.py")))
    old_config = SimpleNamespace(rootdir=_LocalPath(str(tmp_path)))
    assert item_path(old_item) == tmp_path / "test_a.py"
    assert root_path(old_config) == tmp_path
    new_item = SimpleNamespace(path=tmp_path / "b.py", fspath=_LocalPath("elsewhere"))
    assert item_path(new_item) == tmp_path / "b.py"


def test_the_exception_being_handled_without_pytest_exporting_exception_info(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(pytest, "ExceptionInfo")
    try:
        raise KeyError("gone")
    except KeyError:
        info = current_exception()
    assert info.type is KeyError and "gone" in str(info.value)


@pytest.mark.slow
def test_detect_runs_a_project_that_pins_pytest_6(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A venv with pytest 6.2.5 (from PyPI), orderdep not installed there: ``detect
    --python`` finds the victim, and the command it prints reruns the failing order."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "pytest==6.2.5"]
    subprocess.run(pip, check=True, env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    project = tmp_path / "p"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_a.py").write_text(
        "STATE = []\n\n\ndef test_victim():\n    assert STATE == []\n\n\n"
        "def test_pollute():\n    STATE.append(1)\n"
    )
    assert main(["detect", str(project), "--python", str(python), "--seed", "1"]) == 1
    out = capsys.readouterr().out
    assert "tests/test_a.py::test_victim" in out
    (command,) = [ln.split("reproduce: ", 1)[1] for ln in out.splitlines() if "reproduce: " in ln]
    assert f"--python {python}" in command
    assert main(shlex.split(command)[1:]) == 1  # the victim fails after its polluter
