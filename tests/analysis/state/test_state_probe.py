from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from state_helpers import Project

from orderdep.analysis.state.probe import MODULE, StateProbe, make_probe
from orderdep.engine.config import EngineConfig
from orderdep.engine.probe import ProbeSpec
from orderdep.engine.runner import Engine


def test_probe_reports_writes_and_reads_per_test(project: Project) -> None:
    state = project.module("state")
    n = project.name
    probe = StateProbe(project.config())
    probe.before_test(0, "t::setter")
    state.add_entry(1)
    probe.after_test(0, "t::setter")
    probe.before_test(1, "t::reader")
    state.count_entries(state._ENTRIES)
    state.read_limit()
    probe.after_test(1, "t::reader")
    out = probe.result()
    json.dumps(out)  # the engine ships it as JSON
    first, second = out["tests"]
    assert first["index"] == 0 and first["test"] == "t::setter"
    assert first["writes"] == [f"{n}.state._ENTRIES"]
    assert second["writes"] == []
    assert {f"{n}.state._ENTRIES", f"{n}.state.LIMIT"} <= set(second["reads"])
    assert out["roots"] == {f"{n}.state._ENTRIES": "list of 1: [1]"}
    assert out["stats"]["snapshots"] == 3
    assert not out["stats"]["narrow"]  # no pytest session on the stack here


def test_make_probe_reads_options(tmp_path: Path) -> None:
    probe = make_probe({"files": False, "broad_reads": True, "max_nodes": 10}, str(tmp_path))
    assert probe.tracker.files is None
    assert probe.reads.broad
    assert probe.config.max_nodes == 10
    assert probe.config.rootdir == str(tmp_path)


PROJECT = {
    "pkg/__init__.py": "",
    "pkg/state.py": """
        import functools
        _ENTRIES = []
        class Meter:
            hits = 0
        @functools.lru_cache(maxsize=None)
        def square(x):
            return x * x
        """,
    "tests/conftest.py": """
        import pytest
        from pkg import state

        @pytest.fixture(scope="session")
        def entries():
            return state._ENTRIES
        """,
    "tests/test_flow.py": """
        import os
        from pkg import state
        from pkg.state import Meter

        def test_setter():
            state._ENTRIES.append(1)

        def test_meter():
            Meter.hits += 1

        def test_env_write():
            os.environ["OD_PROBE_VAR"] = "1"

        def test_file_write():
            os.makedirs(".state", exist_ok=True)
            with open(".state/x.lock", "w") as fh:
                fh.write("x")

        def test_cache():
            assert state.square(3) == 9

        def test_reader(entries):
            assert entries == [1]

        def test_alias(entries):
            assert len(entries) == 1

        def test_readers():
            assert Meter.hits == 1
            assert os.environ.get("OD_PROBE_VAR") == "1"
            assert os.path.exists(".state/x.lock")

        def test_nothing():
            assert 1 + 1 == 2
        """,
}


@pytest.mark.parametrize("narrow", [True, False])
def test_probe_in_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, narrow: bool) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    root = tmp_path / "proj"
    for rel, text in PROJECT.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    with Engine(EngineConfig(project=root, runner="fork")) as engine:
        result = engine.run(engine.suite.ids, probe=ProbeSpec(MODULE, {"narrow": narrow}))
    assert not result.failed_tests(), result.results
    data: dict[str, Any] = result.probe
    assert "error" not in data, data.get("error")
    assert data["stats"]["narrow"] is narrow
    assert data["stats"]["hook"] == ("lsprof" if narrow else "trace")
    by_test = {t["test"].rsplit("::", 1)[-1]: t for t in data["tests"]}
    assert by_test["test_setter"]["writes"] == ["pkg.state._ENTRIES"]
    assert by_test["test_meter"]["writes"] == ["pkg.state.Meter.hits"]
    assert by_test["test_env_write"]["writes"] == ["env:OD_PROBE_VAR"]
    assert by_test["test_file_write"]["writes"] == ["file:.state/", "file:.state/x.lock"]
    assert by_test["test_cache"]["writes"] == ["cache:pkg.state.square"]
    assert by_test["test_nothing"]["writes"] == []
    # the session fixture was set up by test_reader: its body names _ENTRIES
    assert "pkg.state._ENTRIES" in by_test["test_reader"]["reads"]
    # the next user only gets the cached value: it reads the root through an alias
    assert "pkg.state._ENTRIES" in by_test["test_alias"]["reads"]
    readers = set(by_test["test_readers"]["reads"])
    assert {"pkg.state.Meter.hits", "env:OD_PROBE_VAR", "file:.state/x.lock*"} <= readers
    assert "pkg.state._ENTRIES" not in readers
    assert data["roots"]["pkg.state._ENTRIES"] == "list of 1: [1]"


def test_probe_describes_imports_of_the_order(project: Project) -> None:
    n = project.name
    project.write(f"{n}/lazy_mod.py", "X = 1\n")
    probe = StateProbe(project.config(files=False))
    probe.before_test(0, "t::imports")
    project.module("lazy_mod")
    probe.after_test(0, "t::imports")
    out = probe.result()
    assert "sys.modules" in out["tests"][0]["writes"]
    assert "sys.modules" in out["tests"][0]["reads"]
    assert f"{n}.lazy_mod" in out["roots"]["sys.modules"]


def test_a_test_whose_snapshot_fails_loses_only_its_own_accesses(project: Project) -> None:
    state = project.module("state")
    n = project.name
    probe = StateProbe(project.config(files=False))
    real = probe.tracker.snapshot
    probe.before_test(0, "t::broken")

    def broken(*args: Any, **kwargs: Any) -> dict[str, int]:
        raise RuntimeError("snapshot failed")

    probe.tracker.snapshot = broken  # type: ignore[method-assign]
    probe.after_test(0, "t::broken")
    probe.tracker.snapshot = real  # type: ignore[method-assign]
    probe.before_test(1, "t::writer")
    state.add_entry(1)
    probe.after_test(1, "t::writer")
    out = probe.result()
    assert [t["writes"] for t in out["tests"]] == [[], [f"{n}.state._ENTRIES"]]
    assert out["stats"]["errors"] == ["t::broken: RuntimeError: snapshot failed"]
