"""A polluter that puts a copy of the environment back with ``os.environ = saved``
(corpus project ``environ_rebound``): a plain dict, equal to the environment, that no
child process sees, so a later test's ``monkeypatch.setenv`` does not reach the shell it
runs. Every variable is the same in both orders; what differs is the object
``os.environ`` names, which the debugger watches (``rebound.PROCESS_OBJECTS``)."""

from __future__ import annotations

from tests.analysis.repair.conftest import debug_first_polluter
from tests.analysis.repair.corpus_helpers import corpus_fixture

from orderdep.analysis.repair.fix import Repairer
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

VICTIM = "tests/test_build.py::test_release_mode_reaches_the_shell"
POLLUTER = "tests/test_tools.py::test_tool_paths_are_added_and_taken_back"
FINDING = ODFinding(VICTIM, "victim", polluters=[POLLUTER])

project = corpus_fixture("environ_rebound")


def test_the_debugger_names_the_environment_object_the_polluter_rebound(engine: Engine) -> None:
    result = debug_first_polluter(engine, FINDING)
    assert result.polluted == ["os.environ"], result.notes
    assert result.root("os.environ").rebound


def test_the_polluter_binds_the_environment_object_again(engine: Engine) -> None:
    result = Repairer(engine.config, engine, strategy="polluter").repair(FINDING)
    assert result.fix is not None, result.notes
    statements = [s for i in result.fix.insertions for s in i.statements]
    assert statements == ["monkeypatch.setattr(os, 'environ', os.environ)"]
