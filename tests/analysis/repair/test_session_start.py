"""Roots put back before every test to what they held when the session started (corpus
project ``teardown_module_template``: a module's ``teardown_module`` changes a singleton
after its last test's fixtures have ended, so saving and restoring around each test
cannot undo it)."""

from __future__ import annotations

from pathlib import Path

from tests.analysis.repair.corpus_helpers import corpus_fixture

from orderdep.analysis.repair.candidates.session_start import (
    session_start_candidates,
    start_statements,
)
from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.locate.module_names import ModuleNames
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.analysis.repair.write.patches import apply_insertions
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

VICTIM = "tests/test_reporter.py::TestReporter::test_default_header"
POLLUTER = "tests/test_examples.py::test_example_add"

project = corpus_fixture("teardown_module_template")


def atom(value: str) -> list[object]:
    return ["atom", "str", value]


def singleton(failing: list[object], passing: list[object]) -> RootInfo:
    return RootInfo(
        "reportgen.reporter", "global", ValueView(True, failing, None, "Reporter"),
        ValueView(True, passing, None, "Reporter"), module="reportgen", attrs=("reporter",),
    )  # fmt: skip


def test_an_object_changed_in_place_gets_the_attributes_that_differ_back() -> None:
    root = singleton(
        ["obj", "Reporter", [["template", atom("examples")], ["lines", atom("[]")]]],
        ["obj", "Reporter", [["template", atom("default")], ["lines", atom("[]")]]],
    )
    imports, snapshot, restore = start_statements(root, ModuleNames(), "_saved")  # type: ignore[misc]
    assert imports == ["import reportgen", "import copy"]
    assert snapshot == [
        "names = ('template',)",
        "return {name: copy.deepcopy(getattr(reportgen.reporter, name)) for name in names}",
    ]
    assert restore == [
        "for name, value in _saved.items():\n"
        "    monkeypatch.setattr(reportgen.reporter, name, copy.deepcopy(value))"
    ]


def test_a_replaced_value_is_set_back_on_its_owner() -> None:
    root = RootInfo(
        "app.config.LEVEL", "global", ValueView(True, atom("debug"), "'debug'", "str"),
        ValueView(True, atom("info"), "'info'", "str"), module="app.config", attrs=("LEVEL",),
    )  # fmt: skip
    imports, snapshot, restore = start_statements(root, ModuleNames(), "_level_at_start")  # type: ignore[misc]
    assert imports == ["from app import config", "import copy"]
    assert snapshot == ["return copy.deepcopy(config.LEVEL)"]
    assert restore == ["monkeypatch.setattr(config, 'LEVEL', copy.deepcopy(_level_at_start))"]
    env = RootInfo("env:HOME", "env", ValueView(True), ValueView(True), var="HOME")
    assert start_statements(env, ModuleNames(), "_x") is None


def test_the_candidate_writes_a_session_fixture_and_an_autouse_one(project: Path) -> None:
    root = singleton(
        ["obj", "Reporter", [["template", atom("examples")]]],
        ["obj", "Reporter", [["template", atom("default")]]],
    )
    finding = ODFinding(VICTIM, "victim", polluters=[POLLUTER])
    (cand,) = session_start_candidates(project, finding, [root], "reportgen.reporter")
    changes = apply_insertions(project, cand.insertions)
    old, new = changes["tests/conftest.py"]
    assert old == ""
    assert '@pytest.fixture(scope="session")\ndef _reporter_at_start():' in new
    assert "def _restore_reporter(monkeypatch, _reporter_at_start):" in new
    compile(new, "conftest.py", "exec")


def test_a_change_made_by_teardown_module_is_undone_before_the_next_test(
    engine: Engine,
) -> None:
    finding = ODFinding(VICTIM, "victim", polluters=[POLLUTER])
    result = Repairer(engine.config, engine, strategy="fixture").repair(finding)
    assert result.fix is not None, result.notes
    assert "held at the start" in result.fix.description, result.notes
    # the plain save-and-restore around each test was tried first, and could not work
    assert any("autouse fixture in tests/conftest.py restores" in n for n in result.notes)
