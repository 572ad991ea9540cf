"""pytest-cov in a project's addopts: the engine's pytest processes run without its
tracing (every order would pay for it), unless the user asks orderdep for ``--cov``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from orderdep.core.outcomes import Outcome
from orderdep.engine.config import EngineConfig
from orderdep.engine.plain import PlainRunner

if TYPE_CHECKING:
    from conftest import EngineFactory, ProjectWriter

pytest.importorskip("pytest_cov")

TRACED = "tests/test_traced.py::test_no_tracer"

PROJECT = {
    "pytest.ini": """
        [pytest]
        addopts = --cov=pkg --cov-report=
        """,
    "pkg/__init__.py": "def double(x):\n    return 2 * x\n",
    "tests/test_traced.py": """
        import sys

        from pkg import double

        def test_no_tracer():
            assert double(2) == 4
            assert sys.gettrace() is None, "coverage traces this test"
        """,
}


def test_the_engine_runs_without_coverage_tracing(
    make_project: ProjectWriter, make_engine: EngineFactory, runner: str
) -> None:
    project = make_project(PROJECT)
    engine = make_engine(project, runner=runner)
    result = engine.run([TRACED])
    assert [r.outcome for r in result.results] == [Outcome.PASSED], result.results
    assert not (project / ".coverage").exists()


def test_a_fresh_pytest_of_the_check_runs_without_it_too(
    make_project: ProjectWriter, tmp_path: Path
) -> None:
    project = make_project(PROJECT)
    plain = PlainRunner(EngineConfig(project), tmp_path / "plain")
    try:
        result = plain.run([TRACED])
    finally:
        plain.close()
    assert [r.outcome for r in result.results] == [Outcome.PASSED], result.results


def test_a_cov_option_given_to_orderdep_keeps_the_tracing(
    make_project: ProjectWriter, make_engine: EngineFactory
) -> None:
    project = make_project(PROJECT)
    engine = make_engine(project, pytest_args=("--cov=pkg",))
    result = engine.run([TRACED])
    assert [r.outcome for r in result.results] == [Outcome.FAILED]
    assert "coverage traces this test" in (result.results[0].message or "")


def test_no_cov_comes_after_the_users_arguments(tmp_path: Path) -> None:
    cmd = EngineConfig(tmp_path, pytest_args=("-x",)).pytest_command(tmp_path / "cache")
    assert cmd.index("--no-cov") > cmd.index("-x")
    kept = EngineConfig(tmp_path, pytest_args=("--cov", "-x"))
    assert "--no-cov" not in kept.pytest_command(tmp_path / "cache")
    # --cov-report alone does not ask for coverage
    report = EngineConfig(tmp_path, pytest_args=("--cov-report=term",))
    assert "--no-cov" in report.pytest_command(tmp_path / "cache")
    assert sys.executable == report.python


@pytest.mark.parametrize(
    ("args", "env", "added"),
    [
        (("-p", "no:pytest_cov"), {}, False),  # --no-cov would be an unknown option
        (("-pno:pytest_cov",), {}, False),
        ((), {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}, False),
        (("-p", "pytest_cov"), {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}, True),
        ((), {"PYTEST_ADDOPTS": "-p no:hypothesispytest -p no:pytest_cov"}, False),
        ((), {"PYTEST_ADDOPTS": "-p no:hypothesispytest"}, True),
    ],
)
def test_no_cov_only_where_the_plugin_loads(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    env: dict[str, str],
    added: bool,
) -> None:
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    config = EngineConfig(tmp_path, pytest_args=args, extra_env=env)
    assert ("--no-cov" in config.pytest_command(tmp_path / "cache")) is added
