"""Repair around a module-level singleton whose class lives elsewhere and that holds a
lock (corpus project ``singleton_registry_lock``): a brittle replays its state-setter after
the singleton's own reset-method; a victim gets the attribute it reads put back."""

from __future__ import annotations

from pathlib import Path

from tests.analysis.repair.corpus_helpers import corpus_fixture

from orderdep.analysis.repair.candidates.cleaners import _minimised
from orderdep.analysis.repair.candidates.generated import reset_statements
from orderdep.analysis.repair.candidates.ranking import to_verify
from orderdep.analysis.repair.candidates.resets import find_owner_methods
from orderdep.analysis.repair.candidates.sources import read_function
from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

VICTIM = "tests/test_core.py::test_core_commands"
POLLUTER = "tests/test_apps.py::test_editor_commands"
BRITTLE = "tests/test_top.py::test_pause_is_not_top_level"
SETTER = "tests/test_top.py::test_repeat_is_top_level"


project = corpus_fixture("singleton_registry_lock")


def test_a_brittle_replays_its_setter_after_the_singletons_reset(engine: Engine) -> None:
    finding = ODFinding(BRITTLE, "brittle", state_setters=[SETTER])
    result = Repairer(engine.config, engine, strategy="cleaner").repair(finding)
    assert result.fix is not None, result.notes
    assert result.fix.insertions[0].statements == (
        "Commands.clear()",
        'Commands.add(["repeat"], top_level=True)',
    )
    assert result.fix.description.endswith("after voice.registry.clear (rebinds self.top_level)")


def test_without_a_named_setter_the_passing_order_gives_the_statements(engine: Engine) -> None:
    finding = ODFinding(BRITTLE, "brittle", passing_order=[SETTER, BRITTLE])
    result = Repairer(engine.config, engine, strategy="cleaner").repair(finding)
    assert result.fix is not None, result.notes
    assert "Commands.clear()" in result.fix.insertions[0].statements
    assert any("the tests before it in its passing order" in n for n in result.notes)


def test_a_victim_gets_the_attribute_it_reads_put_back(engine: Engine) -> None:
    finding = ODFinding(VICTIM, "victim", polluters=[POLLUTER])
    result = Repairer(engine.config, engine, strategy="restore").repair(finding)
    assert result.fix is not None, result.notes
    assert result.fix.insertions[0].statements[-1] in (
        "Commands.apps[:] = []", "Commands.merged.clear()"
    )  # fmt: skip


def test_reset_statements_call_the_holders_method_through_the_global(project: Path) -> None:
    victim = read_function(project, BRITTLE)
    view = ValueView(True, ["seq", "list", []], "[]", "list")
    root = RootInfo(
        "voice.Commands.top_level", "classattr", view, view, module="voice",
        attrs=("Commands", "top_level"), module_file="voice/__init__.py",
        owner_module="voice.registry", owner_class="Registry", owner_file="voice/registry.py",
    )  # fmt: skip
    assert reset_statements(project, victim, [root]) == [
        (["Commands.clear()"], "voice.registry.clear (rebinds self.top_level)")
    ]


SOURCE = """
class Master:
    def __init__(self):
        self.core = []

    def add(self, commands):
        self.core.extend(commands)

    def clear(self):
        self.core = []
        self.count = 0

    def drop(self, name):
        self.core.remove(name)

    @staticmethod
    def helper():
        pass
"""


def test_owner_methods_are_those_resetting_that_attribute() -> None:
    found = find_owner_methods(SOURCE, "Master", "app.master", "core")
    assert [(m.path, m.why) for m in found] == [
        (("clear",), "rebinds self.core"), (("drop",), "calls self.core.remove()")
    ]  # fmt: skip
    assert find_owner_methods(SOURCE, "Master", "app.master", "count")[0].path == ("clear",)
    assert find_owner_methods(SOURCE, "Other", "app.master", "core") == []


def test_statements_after_a_failing_one_are_dropped_before_minimising() -> None:
    stmts = [(0, "setup()"), (0, "needed()"), (1, "raises()"), (1, "after()")]

    def works(sub: list[tuple[int, str]]) -> bool:
        return (1, "raises()") not in sub and (0, "needed()") in sub

    kept, how = _minimised(stmts, works, "state-setter group a + b")
    assert kept == [(0, "needed()")]
    assert how.startswith("1 of the 4 statements")
    kept, how = _minimised(stmts, lambda sub: False, "state-setter s")
    assert kept == stmts and how == "the statements of state-setter s"


def test_strategies_past_the_verification_limit_still_get_their_turn() -> None:
    ranked = ["polluter"] * 6 + ["fixture"] * 3 + ["restore"] * 4
    chosen = to_verify(list(enumerate(ranked)), lambda item: item[1], 8)
    assert [s for _, s in chosen] == ["polluter"] * 6 + ["fixture"] * 2 + ["restore"] * 3
    assert to_verify(list(enumerate(ranked)), lambda item: item[1], 20) == list(enumerate(ranked))
