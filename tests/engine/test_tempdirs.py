"""Working directories left in the temp dir by killed runs are removed, and only those."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import pytest

from orderdep.engine import tempdirs
from orderdep.engine.processes import is_running, start_time

if TYPE_CHECKING:
    from conftest import EngineFactory, ProjectWriter


def dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)


def workdir(root: Path, name: str, owner: Optional[object]) -> Path:
    path = root / name
    (path / "w0").mkdir(parents=True)
    (path / "w0" / "data.txt").write_text("x")
    if owner is not None:
        text = owner if isinstance(owner, str) else json.dumps(owner)
        (path / tempdirs.OWNER_FILE).write_text(text)
    return path


def test_sweep_removes_only_dirs_whose_owner_is_provably_gone(tmp_path: Path) -> None:
    me, dead = os.getpid(), dead_pid()
    mine = start_time(me)
    assert mine is not None  # Linux: /proc tells start times
    dirs = {
        "dead": workdir(tmp_path, "orderdep-dead", {"pid": dead, "start": 123}),
        "dead, no start": workdir(tmp_path, "orderdep-dead2", {"pid": dead, "start": None}),
        "reused pid": workdir(tmp_path, "orderdep-reused", {"pid": me, "start": mine - 1}),
        "alive": workdir(tmp_path, "orderdep-alive", {"pid": me, "start": mine}),
        "alive, no start": workdir(tmp_path, "orderdep-alive2", {"pid": me}),
        "no owner file": workdir(tmp_path, "orderdep-unknown", None),
        "garbage owner": workdir(tmp_path, "orderdep-garbage", "{not json"),
        "owner not a pid": workdir(tmp_path, "orderdep-odd", {"pid": "1"}),
        "other prefix": workdir(tmp_path, "pytest-of-x", {"pid": dead, "start": 1}),
    }
    (tmp_path / "orderdep-file").write_text(json.dumps({"pid": dead}))
    removed = tempdirs.sweep(tmp_path)
    gone = {"dead", "dead, no start", "reused pid"}
    assert sorted(removed) == sorted(dirs[k] for k in gone)
    for label, path in dirs.items():
        assert path.exists() == (label not in gone), label
    assert (tmp_path / "orderdep-file").is_file()


def test_is_running() -> None:
    me = os.getpid()
    assert is_running(me) and is_running(me, start_time(me))
    assert not is_running(me, (start_time(me) or 0) + 1)
    assert not is_running(dead_pid())
    assert not is_running(0) and not is_running(-1)


def test_make_workdir_writes_its_owner_and_sweeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale = workdir(tmp_path, "orderdep-stale", {"pid": dead_pid(), "start": None})
    tmp = tempdirs.make_workdir()
    made = Path(tmp.name)
    assert made.parent == tmp_path and made.name.startswith("orderdep-")
    assert tempdirs.read_owner(made) == (os.getpid(), start_time(os.getpid()))
    assert not stale.exists()
    assert not tempdirs.sweep(tmp_path)  # its own, alive owner keeps it
    tmp.cleanup()


def test_every_working_directory_orderdep_makes_has_an_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Patch verification and fidelity checks use prefixed working directories too.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with tempdirs.make_workdir("orderdep-fix-") as made:
        assert Path(made).name.startswith("orderdep-fix-")
        assert tempdirs.read_owner(Path(made)) is not None
    with pytest.raises(ValueError, match="must start with 'orderdep-'"):
        tempdirs.make_workdir("elsewhere-")
    src = Path(tempdirs.__file__).parents[1]
    makers = [p for p in src.rglob("*.py") if "TemporaryDirectory(prefix=" in p.read_text()]
    assert makers == [Path(tempdirs.__file__)]


KILLED = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from orderdep.engine.config import EngineConfig
    from orderdep.engine.runner import Engine
    engine = Engine(EngineConfig(Path(sys.argv[1]), runner="subprocess"))
    engine.suite
    print(engine._workdir(), flush=True)
    time.sleep(600)
    """
)


def test_an_engine_removes_the_workdir_of_a_run_killed_with_kill_9(
    tmp_path: Path,
    make_project: ProjectWriter,
    make_engine: EngineFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = make_project({"test_a.py": "def test_a():\n    pass\n"})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED, str(project)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    left = Path(proc.stdout.readline().strip())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert left.parent == tmp and (left / "w0").is_dir()  # kill -9 leaves it behind
    owner = tempdirs.read_owner(left)
    assert owner is not None and owner[0] == proc.pid and owner[1] is not None

    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    engine = make_engine(project, runner="subprocess")
    assert engine.suite.ids == ["test_a.py::test_a"]
    assert not left.exists()
    assert [p.name.startswith("orderdep-") for p in tmp.iterdir()] == [True]  # its own
