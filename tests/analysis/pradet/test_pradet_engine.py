"""PRADET end to end: the state probe in real pytest children, then refinement."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.engine.conftest import write_files

from orderdep.analysis.pradet.pipeline import run_pradet
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
    root = write_files(tmp_path / "proj", PROJECT)
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


# A src-layout package whose objects are numbered from a class-level counter; a class-scoped
# fixture numbers its object when the first test of the class that uses it is set up.
COUNTER_PROJECT = {
    "src/tally/__init__.py": """
        class Unique:
            id_count = 0

            def __init__(self):
                Unique.id_count += 1
                self.id = Unique.id_count


        class Image(Unique):
            def __init__(self, name):
                super().__init__()
                self.name = name
        """,
    "tests/test_base.py": """
        import pytest
        from tally import Unique

        class TestUnique:
            @pytest.fixture(scope="class")
            def unique(self):
                return Unique()

            def test_init(self, unique):
                assert unique.id == 1

            def test_numbered(self, unique):
                assert unique.id >= 1
        """,
    "tests/test_image.py": """
        from tally import Image

        def test_image():
            assert Image("a").name == "a"

        def test_thumbnail():
            assert Image("b").id >= 1

        def test_plain():
            assert True
        """,
}


def test_a_class_counter_read_through_a_class_fixture_finds_each_polluter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    root = write_files(tmp_path / "proj", COUNTER_PROJECT)
    config = EngineConfig(project=root, runner="fork", pythonpath=("src",))
    with Engine(config) as engine:
        # reversed, test_numbered sets the fixture up after both polluters and test_init
        # only uses it: its read of the counter is test_numbered's
        result = run_pradet(engine, engine.suite.ids)
    victim = "tests/test_base.py::TestUnique::test_init"
    found = {
        (e.dependency.dependee, e.dependency.kind, e.found_by)
        for e in result.manifest
        if e.dependency.dependent == victim
    }
    assert found == {
        ("tests/test_image.py::test_image", "victim", "alternatives"),
        ("tests/test_image.py::test_thumbnail", "victim", "alternatives"),
    }
    assert all(
        e.dependency.roots == ["tally.Unique.id_count"]
        for e in result.manifest
        if e.dependency.dependent == victim
    )
    # tried before refinement, so refinement did not spend schedules on them
    assert not {(victim, d) for d, _, _ in found} & set(result.refined.removed)
