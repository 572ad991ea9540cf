"""Repair of a polluted mutable default argument (corpus project
``mutable_default_headers``): ``Client.request(..., headers={})`` keeps the token one test
set in the shared default dict, so later requests without a token still send it."""

from __future__ import annotations

from pathlib import Path

from tests.analysis.repair.corpus_helpers import copy_project, corpus_fixture, repaired_victim

from orderdep.analysis.repair.fix import Repairer
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

TESTS = "tests/test_client.py::"
VICTIM = TESTS + "test_request_without_token_sends_no_authorization"
POLLUTER = TESTS + "test_request_with_token_sends_authorization"

project = corpus_fixture("mutable_default_headers")


def test_the_debugger_names_the_function_whose_default_changed(engine: Engine) -> None:
    finding = ODFinding(VICTIM, "victim", polluters=[POLLUTER])
    result = Repairer(engine.config, engine, strategy="polluter").repair(finding)
    assert result.debug is not None and result.debug.polluted == ["apiclient.Client.request"]
    (root,) = result.debug.culprits
    assert "with defaults ({'Authorization':" in " ".join(root.changes), root.changes
    assert result.fix is not None, result.notes
    (ins,) = result.fix.insertions
    assert ins.test == POLLUTER
    # the function the test imports, its defaults copied: the originals come back after
    assert ins.statements[-1] == (
        "monkeypatch.setattr(Client.request, '__defaults__', "
        "copy.deepcopy(Client.request.__defaults__))"
    )


def test_the_polluter_puts_the_defaults_back_and_holds_under_plain_pytest(
    tmp_path: Path,
) -> None:
    root = copy_project("mutable_default_headers", tmp_path / "p")
    new = repaired_victim(root, VICTIM, POLLUTER, tmp_path / "work")
    assert '"__defaults__", copy.deepcopy(' in new["tests/test_client.py"], new
