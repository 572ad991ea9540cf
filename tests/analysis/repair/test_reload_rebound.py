"""A polluter that reloads a settings module (corpus project ``reload_settings_object``):
``importlib.reload`` binds a new, equal object to ``settings`` while the client module
keeps the one it imported, so a later test patches an object the client no longer reads.
The polluter reloads the app's module too, which binds the new object under a shorter
name. The debugger names the global of the module that made the object, and the patch
keeps the first object (no copy): monkeypatch binds it again."""

from __future__ import annotations

from tests.analysis.repair.conftest import debug_first_polluter
from tests.analysis.repair.corpus_helpers import corpus_fixture

from orderdep.analysis.repair.fix import Repairer
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

VICTIM = "tests/test_client.py::test_attempts_follow_the_settings"
POLLUTER = "tests/test_reload.py::test_settings_are_read_from_the_environment"
FINDING = ODFinding(VICTIM, "victim", polluters=[POLLUTER])

project = corpus_fixture("reload_settings_object")


def test_the_debugger_names_the_global_the_reload_rebound(engine: Engine) -> None:
    result = debug_first_polluter(engine, FINDING)
    assert result.polluted == ["appcfg.settings.settings"], result.notes
    root = result.root("appcfg.settings.settings")
    assert root.rebound and root.aliases == ("appcfg.server.settings",)


def test_the_polluter_keeps_the_first_object_for_monkeypatch_to_bind_again(
    engine: Engine,
) -> None:
    result = Repairer(engine.config, engine, strategy="polluter").repair(FINDING)
    assert result.fix is not None, result.notes
    statements = [s for i in result.fix.insertions for s in i.statements]
    assert statements == [
        "monkeypatch.setattr(appcfg.settings, 'settings', appcfg.settings.settings)"
    ]
