"""Repair around a framework's application object (corpus project ``app_config_proxy``):
it holds a proxy that raises when read outside a request, and a test changes its
configuration through the fixture that hands it out."""

from __future__ import annotations

from tests.analysis.repair.corpus_helpers import corpus_fixture

from orderdep.analysis.repair.fix import Repairer
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

VICTIM = "tests/test_pages.py::test_index_title"
POLLUTER = "tests/test_pages.py::test_custom_title"

project = corpus_fixture("app_config_proxy")


def test_the_fixture_the_polluter_uses_puts_the_configuration_back(engine: Engine) -> None:
    """The debugger names ``portal.app.config`` (the object is described around its
    proxy, then split into its attributes), and the fixture the polluter requests puts
    the entry back when the test ends."""
    finding = ODFinding(VICTIM, "victim", polluters=[POLLUTER])
    result = Repairer(engine.config, engine, strategy="polluter").repair(finding)
    assert result.fix is not None, result.notes
    (ins,) = result.fix.insertions
    assert ins.test == "tests/test_pages.py::client"
    assert ins.statements == (
        "monkeypatch.setitem(portal.app.config, 'PAGE_TITLE', portal.app.config['PAGE_TITLE'])",
    )
    assert ins.comment == (
        "Put portal.app.config back when each test using this fixture ends "
        "(test_index_title needs it)."
    )
