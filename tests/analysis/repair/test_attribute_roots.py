"""Objects changed in place split into their attributes: which attributes, and the
Debugger naming the one that matters when the object cannot be restored whole."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import copy_project

from orderdep.analysis.repair.locate.attribute_roots import attribute_roots, differing_attributes
from orderdep.analysis.repair.locate.debugger import debug
from orderdep.analysis.repair.locate.probe_values import describe
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.analysis.state.values import put_in_place
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine


def obj(**attrs: object) -> list[object]:
    return ["obj", "Registry", [[k, v] for k, v in attrs.items()]]


EMPTY = ["seq", "list", []]
ONE = ["seq", "list", [["atom", "str", "'editor'"]]]


def test_attributes_that_differ_are_named_when_one_object_changed_in_place() -> None:
    failing = obj(apps=ONE, core=EMPTY, count=["atom", "int", "2"], __dunder__=ONE)
    passing = obj(apps=EMPTY, core=EMPTY, count=["atom", "int", "0"], __dunder__=EMPTY)
    assert differing_attributes(failing, passing) == ["apps", "count"]
    # another type, another kind of value, or no object at all: nothing to split
    assert differing_attributes(failing, ["obj", "Other", []]) == []
    assert differing_attributes(ONE, EMPTY) == []
    assert differing_attributes(None, passing) == []


def test_only_globals_and_class_attributes_holding_objects_are_split() -> None:
    def root(name: str, kind: str, f: object, p: object) -> RootInfo:
        return RootInfo(name, kind, ValueView(True, f), ValueView(True, p), module="voice")

    roots = [
        root("voice.Commands", "global", obj(apps=ONE), obj(apps=EMPTY)),
        root("voice.NAMES", "global", ONE, EMPTY),
        root("env:HOME", "env", obj(apps=ONE), obj(apps=EMPTY)),
    ]
    assert attribute_roots(roots) == ["voice.Commands.apps"]


def test_a_logger_is_described_by_name_and_restoring_it_keeps_it_whole() -> None:
    logger = logging.getLogger("orderdep-test-attribute-roots")
    logger.isEnabledFor(logging.INFO)  # fills its level cache: no test's state
    assert describe(logger) == ["ref", "Logger", "orderdep-test-attribute-roots"]
    before = dict(vars(logger))
    assert put_in_place(logger, logger)  # a logger's copy is itself
    assert vars(logger) == before


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = copy_project("singleton_registry_lock", tmp_path_factory.mktemp("attrs") / "proj")
    mp = pytest.MonkeyPatch()
    mp.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    with Engine(EngineConfig(Path(root))) as eng:
        yield eng
    mp.undo()


VICTIM = "tests/test_core.py::test_core_commands"
POLLUTER = "tests/test_apps.py::test_editor_commands"
BRITTLE = "tests/test_top.py::test_pause_is_not_top_level"
SETTER = "tests/test_top.py::test_repeat_is_top_level"


def test_the_attribute_a_victim_reads_is_polluted_not_the_whole_singleton(engine: Engine) -> None:
    # the registry holds a lock: a copy of it is shallow and restores nothing
    result = debug(
        engine, VICTIM, kind="victim", failing_order=[POLLUTER, VICTIM], passing_order=[VICTIM]
    )
    assert result.polluted == ["voice.Commands.apps", "voice.Commands.merged"]
    apps = result.root("voice.Commands.apps")
    assert (apps.kind, apps.module, apps.attrs) == ("classattr", "voice", ("Commands", "apps"))
    assert apps.passing.literal == "[]"
    assert (apps.owner_module, apps.owner_class, apps.owner_file) == (
        "voice.registry", "Registry", "voice/registry.py"
    )  # fmt: skip
    assert "voice.Commands" in [r.name for r in result.differing]


def test_the_attribute_a_brittle_needs_is_named(engine: Engine) -> None:
    result = debug(
        engine, BRITTLE, kind="brittle", failing_order=[BRITTLE], passing_order=[SETTER, BRITTLE]
    )
    assert result.polluted == ["voice.Commands.top_level"]
