"""Repair of containers changed in place: keys added to or removed from a module-global
dict, a registry's ``defaultdict`` attribute, an object's internal dict behind a property."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.engine.conftest import write_files

from orderdep.analysis.repair.candidates.container_edits import (
    KeyEdit,
    attribute_copy_guards,
    guard_key_statements,
    key_edits,
    restore_key_statements,
)
from orderdep.analysis.repair.candidates.value_literals import desc_literal
from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.core.report import ODFinding
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

FILES = {
    "pytest.ini": "[pytest]\n",
    "app/__init__.py": "",
    "app/solver.py": """
        class Bounds:
            def __init__(self, low, high):
                self.low, self.high = low, high


        def solve(steps, bounds, method, tol=None):
            done = 0
            for _ in range(steps):
                done += 1
                if tol is not None and done >= steps // 2:
                    break
            return done
        """,
    "app/events.py": """
        from collections import defaultdict


        class Registry:
            def __init__(self):
                self._listeners = defaultdict(list)

            def register(self, name, listener):
                self._listeners[name].append(listener)

            def listeners(self, name):
                return list(self._listeners.get(name, ()))


        global_registry = Registry()


        def dispatch(name, registry=None, to_global=True):
            found = registry.listeners(name) if registry else []
            if to_global:
                found += global_registry.listeners(name)
            return [listener() for listener in found]
        """,
    "tests/__init__.py": "",
    "tests/test_solver.py": """
        import pytest

        from app.solver import Bounds, solve

        parameters = dict(steps=10, bounds=(Bounds(0, 1), Bounds(0, 2)), method="basic")


        class TestTolerance:
            @pytest.fixture
            def solver_args(self):
                return parameters

            def test_runs_every_step(self, solver_args):
                assert solve(**solver_args) == 10

            def test_tolerance_stops_early(self, solver_args):
                solver_args["tol"] = 0.5
                assert solve(**solver_args) < 10
        """,
    "tests/test_events.py": """
        from app import events


        def test_register_globally():
            events.global_registry.register("user.created", lambda: "global")
            assert events.dispatch("user.created") == ["global"]


        class TestDispatch:
            def test_local_listener_only(self):
                registry = events.Registry()
                registry.register("user.created", lambda: "local")
                assert events.dispatch("user.created", registry) == ["local"]
        """,
    "tests/test_dataset.py": """
        class Dataset:
            def __init__(self, labels):
                self._labels = dict(labels)
                self.source = object()

            @property
            def labels(self):
                return self._labels


        dataset = Dataset({"s1": "cat", "s2": "dog"})


        def test_labels_setter():
            fewer = dataset.labels
            fewer.pop("s1")
            fewer["s9"] = "cow"
            assert len(fewer) == 2


        def test_label_names():
            assert sorted(dataset.labels) == ["s1", "s2"]
        """,
}
S, E, D = (f"tests/test_{m}.py::" for m in ("solver", "events", "dataset"))
# case -> (victim, polluter, {strategy: the statements of the verified patch})
CASES = {
    "dict": (
        S + "TestTolerance::test_runs_every_step",
        S + "TestTolerance::test_tolerance_stops_early",
        {
            "restore": ("monkeypatch.delitem(parameters, 'tol', raising=False)",),
            "polluter": ("request.addfinalizer(lambda: parameters.pop('tol', None))",),
        },
    ),
    "registry": (
        E + "TestDispatch::test_local_listener_only",
        E + "test_register_globally",
        {
            "restore": (
                "monkeypatch.delitem(events.global_registry._listeners, 'user.created', "
                "raising=False)",
            ),
            "polluter": (
                "request.addfinalizer(lambda: "
                "events.global_registry._listeners.pop('user.created', None))",
            ),
        },
    ),
    "property": (
        D + "test_label_names",
        D + "test_labels_setter",
        {
            "restore": (
                "monkeypatch.setitem(dataset._labels, 's1', 'cat')",
                "monkeypatch.delitem(dataset._labels, 's9', raising=False)",
            ),
            # a deep copy: a snapshot of the same object would be mutated along with it
            "polluter": (
                "import copy",
                "monkeypatch.setitem(globals(), 'dataset', copy.deepcopy(dataset))",
            ),
        },
    ),
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    project = write_files(tmp_path_factory.mktemp("containers") / "proj", FILES)
    mp = pytest.MonkeyPatch()
    mp.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    with Engine(EngineConfig(project)) as eng:
        yield eng
    mp.undo()


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("strategy", ["restore", "polluter"])
def test_container_changed_in_place_is_repaired(engine: Engine, case: str, strategy: str) -> None:
    victim, polluter, expected = CASES[case]
    finding = ODFinding(victim, "victim", polluters=[polluter])
    result = Repairer(engine.config, engine, strategy=strategy).repair(finding)
    assert result.fix is not None, result.notes
    assert result.fix.verification.ok
    ins = result.fix.insertions[0]
    assert ins.test == (victim if strategy == "restore" else polluter)
    assert ins.statements == expected[strategy]


def _root(failing: Any, passing: Any) -> RootInfo:
    return RootInfo(
        "app.events.global_registry", "global",
        ValueView(True, failing), ValueView(True, passing),
        module="app.events", attrs=("global_registry",),
    )  # fmt: skip


FN = ["ref", "function", "tests.test_events.<lambda>"]
PASSING = ["obj", "Registry", [
    ["_listeners", ["dict", "defaultdict", [["'a'", ["seq", "list", []]]]]],
    ["name", ["atom", "str", "'main'"]],
]]  # fmt: skip
FAILING = ["obj", "Registry", [
    ["_listeners", ["dict", "defaultdict", [
        ["'a'", ["seq", "list", [FN]]], ["'b'", ["seq", "list", [FN]]],
    ]]],
    ["name", ["atom", "str", "'other'"]],
]]  # fmt: skip


def test_key_edits_name_each_key_that_differs() -> None:
    assert key_edits(FAILING, PASSING) == [
        KeyEdit("._listeners", "'a'", False, "changed", ["seq", "list", []]),
        KeyEdit("._listeners", "'b'", False, "extra"),
        KeyEdit("", "name", True, "changed", ["atom", "str", "'main'"]),
    ]
    assert key_edits(["atom", "int", "1"], ["atom", "int", "0"]) is None
    assert key_edits(PASSING, PASSING) is None
    # a key cut short by the describer has no literal: not expressible key by key
    cut = ["dict", "dict", [["'x'...<200 chars, crc 1>", ["atom", "int", "1"]]]]
    assert key_edits(cut, ["dict", "dict", []]) is None


def test_key_statements_restore_and_guard_each_key() -> None:
    root = _root(FAILING, PASSING)
    ref = "events.global_registry"
    assert restore_key_statements(root, ref, desc_literal) == [
        f"monkeypatch.setitem({ref}._listeners, 'a', [])",
        f"monkeypatch.delitem({ref}._listeners, 'b', raising=False)",
        f"monkeypatch.setattr({ref}, 'name', 'main')",
    ]
    assert guard_key_statements(root, ref) == (
        [
            "import copy",
            f"monkeypatch.setitem({ref}._listeners, 'a', copy.deepcopy({ref}._listeners['a']))",
            f"request.addfinalizer(lambda: {ref}._listeners.pop('b', None))",
            f"monkeypatch.setattr({ref}, 'name', {ref}.name)",
        ],
        ["monkeypatch", "request"],
    )
    assert attribute_copy_guards(root, ref) == [
        "import copy",
        f"monkeypatch.setattr({ref}, '_listeners', copy.deepcopy({ref}._listeners))",
        f"monkeypatch.setattr({ref}, 'name', {ref}.name)",
    ]
    # a value to put back without a literal: no restore, key by key
    no_literal = ["dict", "dict", [["'a'", FN]]]
    assert (
        restore_key_statements(_root(["dict", "dict", []], no_literal), ref, desc_literal) is None
    )
