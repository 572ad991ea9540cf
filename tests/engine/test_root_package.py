"""A project whose root directory is itself a package (an ``__init__.py`` beside its
tests) imports under the directory's own name, so every working copy keeps that name."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from orderdep.engine.config import EngineConfig
from orderdep.engine.sandbox import copy_path

if TYPE_CHECKING:
    from conftest import EngineFactory, ProjectWriter

TEST = "tests/test_lib.py"
IDS = [f"{TEST}::test_relative", f"{TEST}::test_absolute"]

ROOT_PACKAGE = {
    "__init__.py": "",
    "lib/__init__.py": "VALUE = 42\n",
    "tests/__init__.py": "",
    TEST: """
        from ..lib import VALUE
        from rootpkg.lib import VALUE as SAME


        def test_relative():
            assert VALUE == 42


        def test_absolute():
            assert SAME == 42
    """,
}


def test_a_copy_is_named_as_the_project(tmp_path: Path) -> None:
    project = tmp_path / "some-where" / "rootpkg"
    assert copy_path(tmp_path / "work", project) == tmp_path / "work" / "rootpkg"


def test_a_project_that_is_a_package_runs_as_under_plain_pytest(
    make_project: ProjectWriter, make_engine: EngineFactory, runner: str
) -> None:
    project = make_project(ROOT_PACKAGE, name="rootpkg")
    engine = make_engine(project, runner=runner)
    assert engine.suite.ids == IDS
    result = engine.run(list(reversed(IDS)))
    assert [r.outcome.value for r in result.results] == ["passed", "passed"]


@pytest.mark.slow
def test_dask_workers_keep_the_project_directory_name(
    make_project: ProjectWriter,
) -> None:
    distributed = pytest.importorskip("distributed")
    from orderdep.engine.dask_executor import DaskEngine

    project = make_project(ROOT_PACKAGE, name="rootpkg")
    cluster_args: dict[str, Any] = {"n_workers": 1, "threads_per_worker": 1,
                                    "processes": True, "dashboard_address": None}  # fmt: skip
    with (
        distributed.LocalCluster(**cluster_args) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
        DaskEngine(EngineConfig(project), client) as dask,
    ):
        assert dask.key.endswith("/rootpkg")
        result = dask.run(IDS)
    assert [r.outcome.value for r in result.results] == ["passed", "passed"]
