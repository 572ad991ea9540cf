"""Tests whose ids change between processes: every runner still runs them, under the
ids of the engine's first collection (see :mod:`orderdep.core.volatile`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.engine.conftest import write_files
from tests.engine.volatile_project import (
    FIXED,
    GROW,
    POLLUTER,
    VICTIM,
    VOLATILE,
    growing,
    stamp_of,
)

from orderdep.core.outcomes import Outcome
from orderdep.engine.config import EngineConfig
from orderdep.engine.plain import PlainRunner
from orderdep.engine.runner import Engine


def outcomes(result: object) -> list[str]:
    return [r.outcome.value for r in result.results]  # type: ignore[attr-defined]


@pytest.mark.parametrize("runner", ["subprocess", "fork"])
def test_every_worker_runs_a_volatile_test_under_the_first_collections_id(
    tmp_path: Path, runner: str
) -> None:
    """The subprocess runner collects again for every order, and a second fork worker
    has its own collection: both find the volatile test by its position in its
    parametrize set, report it under the engine's id and name it once."""
    project = write_files(tmp_path / "p", VOLATILE)
    notices: list[str] = []
    with Engine(EngineConfig(project, runner=runner, jobs=2), notice=notices.append) as engine:
        ids = engine.suite.ids
        stamp = stamp_of(ids)
        assert ids == [VICTIM, stamp, FIXED, POLLUTER]
        first, failing = engine.run_many([ids, [stamp, POLLUTER, VICTIM]])
    assert first.order == ids and [r.test for r in first.results] == ids
    assert outcomes(first) == ["passed"] * 4
    assert [r.test for r in failing.results] == [stamp, POLLUTER, VICTIM]
    assert outcomes(failing) == ["passed", "passed", "failed"]
    named = [n for n in notices if "change between two collections" in n]
    assert len(named) == 1 and stamp in named[0] and "\n" not in named[0]


def test_plain_pytest_runs_it_by_the_reference_ids(tmp_path: Path) -> None:
    project = write_files(tmp_path / "p", VOLATILE)
    with Engine(EngineConfig(project)) as engine:
        ids = engine.suite.ids
    plain = PlainRunner(EngineConfig(project), tmp_path / "plain")
    try:
        plain.set_reference(ids)
        result = plain.run(list(reversed(ids)))
    finally:
        plain.close()
    assert [r.test for r in result.results] == list(reversed(ids))
    assert outcomes(result) == ["passed", "passed", "passed", "failed"]
    assert list(plain.ids.renamed) == [stamp_of(ids)] and not plain.ids.missing


def test_a_set_that_changes_size_is_not_run_and_the_message_says_why(tmp_path: Path) -> None:
    project = write_files(tmp_path / "p", growing(tmp_path / "collections"))
    notices: list[str] = []
    with Engine(EngineConfig(project, runner="subprocess"), notice=notices.append) as engine:
        grow = [t for t in engine.suite.ids if t.startswith(GROW)]
        result = engine.run([VICTIM, *grow])
        alone = engine.run([VICTIM, stamp_of(engine.suite.ids)])
    assert {r.outcome for r in result.results} == {Outcome.NOT_RUN}
    assert "clock or `random`" in result.results[0].message
    assert outcomes(alone) == ["passed", "passed"]
    assert any(grow[0] in n and "cannot be matched" in n for n in notices)
