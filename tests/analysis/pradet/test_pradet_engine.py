"""PRADET end to end: the state probe in real pytest children, then refinement."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from orderdep.analysis.pradet.refine import pradet
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/state.py": """
        CACHE = {}
        REGISTRY = []
        """,
    "tests/test_od.py": """
        import os
        from pkg import state

        def test_setter():
            state.CACHE["ready"] = True

        def test_brittle():
            assert state.CACHE.get("ready")

        def test_victim():
            assert not state.REGISTRY

        def test_polluter():
            state.REGISTRY.append(1)

        def test_benign_reader():
            assert len(state.CACHE) >= 0

        def test_env_setter():
            os.environ["OD_MODE"] = "on"

        def test_env_brittle():
            assert os.environ.get("OD_MODE") == "on"

        def test_file_setter():
            with open("flag.txt", "w") as fh:
                fh.write("x")

        def test_file_brittle():
            assert os.path.exists("flag.txt")
        """,
}


def test_pradet_finds_planted_dependencies_in_a_real_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    root = tmp_path / "proj"
    for rel, text in PROJECT.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    with Engine(EngineConfig(project=root, runner="fork", jobs=2)) as engine:
        order = engine.suite.ids
        result = pradet(engine, order, also_reverse=True, jobs=2)
        runs = engine.orders_run
    found = {
        (m.dependent.rsplit("::", 1)[-1], m.dependee.rsplit("::", 1)[-1], m.kind, m.source)
        for m in result.manifest
    }
    assert found == {
        ("test_brittle", "test_setter", "brittle", "reference"),
        ("test_env_brittle", "test_env_setter", "brittle", "reference"),
        ("test_file_brittle", "test_file_setter", "brittle", "reference"),
        ("test_victim", "test_polluter", "victim", "reversed"),
    }
    roots = {m.dependent.rsplit("::", 1)[-1]: m.roots for m in result.manifest}
    assert roots["test_brittle"] == ["pkg.state.CACHE"]
    assert roots["test_env_brittle"] == ["env:OD_MODE"]
    assert roots["test_file_brittle"] == ["file:flag.txt"]
    assert ("tests/test_od.py::test_benign_reader", "tests/test_od.py::test_setter") in (
        result.removed
    )
    assert result.orders_run == runs
    # every manifest dependency reproduces: its failing order fails, its passing order passes
    with Engine(EngineConfig(project=root, runner="fork")) as engine:
        for dep in result.manifest:
            assert engine.run(dep.failing_order).outcome_of(dep.dependent).is_failure
            assert not engine.run(dep.passing_order).outcome_of(dep.dependent).is_failure
