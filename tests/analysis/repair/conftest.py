"""``corpus/`` holds small projects with order-dependent tests in real-world shapes; they
are data for tests/analysis/repair/test_corpus_repair.py and never collected here."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Optional

import pytest

from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.fix_result import Fix
from orderdep.analysis.repair.locate.debugger import debug
from orderdep.analysis.repair.locate.root_info import DebugResult
from orderdep.core.report import ODFinding
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

collect_ignore_glob = ["corpus/*"]


@pytest.fixture(scope="module")
def engine(project: Path) -> Iterator[Engine]:
    """An engine on the module's ``project`` (each test module defines that fixture),
    without hypothesis's plugin in the pytest processes it starts."""
    mp = pytest.MonkeyPatch()
    mp.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    with Engine(EngineConfig(project)) as eng:
        yield eng
    mp.undo()


def debug_first_polluter(engine: Engine, finding: ODFinding) -> DebugResult:
    """The debugger on a victim after its first polluter (passing: the victim alone)."""
    victim, polluter = finding.test, finding.polluters[0]
    return debug(engine, victim, kind="victim", failing_order=[polluter, victim],
                 passing_order=[victim])  # fmt: skip


def verified_fix(engine: Engine, finding: ODFinding, strategy: Optional[str] = None) -> Fix:
    """The fix a :class:`Repairer` with ``strategy`` (None: every strategy) verifies for
    ``finding`` on ``engine``'s project, which there must be."""
    repairer = Repairer(engine.config, engine, **({"strategy": strategy} if strategy else {}))
    result = repairer.repair(finding)
    assert result.fix is not None, result.notes
    return result.fix


EngineFor = Callable[[str], Engine]


@pytest.fixture
def engine_for(tmp_path: Path) -> Iterator[EngineFor]:
    """Makes an engine on a fresh copy of a corpus project (by name), without
    hypothesis's plugin in the pytest processes it starts; closed after the test."""
    from tests.analysis.repair.corpus_helpers import copy_project

    engines: list[Engine] = []
    mp = pytest.MonkeyPatch()
    mp.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")

    def make(name: str) -> Engine:
        engine = Engine(EngineConfig(copy_project(name, tmp_path / name)))
        engines.append(engine.__enter__())
        return engine

    yield make
    for engine in engines:
        engine.__exit__(None, None, None)
    mp.undo()
