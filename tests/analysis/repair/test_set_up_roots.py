"""State a class set-up makes: ``setup_class`` binds a registry on the class, a test of
the class sets an attribute on it, and a later test of the class reads it. Before the
victim that runs alone the class attribute is absent; what the victim depends on is
the registry's attribute once the set-up ran, and the patches put that attribute back
alone (the class holds a method of the registry too: a copy in its place is another
registry, and the other attribute that differs, a cache, does not matter)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.analysis.repair.conftest import debug_first_polluter, verified_fix
from tests.engine.conftest import write_files

from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

FILES = {
    "pytest.ini": "[pytest]\n",
    "units/__init__.py": "",
    "units/registry.py": """
        class Registry:
            def __init__(self):
                self.force_array = False
                self.parsed = {}

            def quantity(self, value, unit):
                self.parsed.setdefault(unit, len(self.parsed))
                return [value] if self.force_array else value
        """,
    "tests/test_math.py": """
        from units.registry import Registry


        class TestMath:
            @classmethod
            def setup_class(cls):
                cls.registry = Registry()
                cls.Q_ = cls.registry.quantity

            @classmethod
            def teardown_class(cls):
                cls.registry = None
                cls.Q_ = None

            def test_force_array(self):
                self.registry.force_array = True
                assert self.Q_(2, "m") == [2]

            def test_scalar(self):
                assert self.Q_(2, "s") == 2
        """,
}
T = "tests/test_math.py::TestMath::"
VICTIM = ODFinding(T + "test_scalar", "victim", polluters=[T + "test_force_array"])
ROOT = "test_math.TestMath.registry"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_files(tmp_path_factory.mktemp("set_up") / "proj", FILES)


def test_the_debugger_compares_the_registry_after_the_set_up(engine: Engine) -> None:
    result = debug_first_polluter(engine, VICTIM)
    assert result.culprits[0].name == ROOT + ".force_array"
    (root,) = [r for r in result.differing if r.name == ROOT]
    assert root.passing.present and root.failing.present
    assert any("force_array" in line for line in root.changes), root.changes
    assert any("parsed" in line for line in root.changes), root.changes
    assert any("made by a set-up" in note for note in result.notes)


def test_the_polluter_puts_the_attribute_back(engine: Engine) -> None:
    (ins,) = verified_fix(engine, VICTIM, "polluter").insertions
    assert ins.test == VICTIM.polluters[0]
    (statement,) = [s for s in ins.statements if "monkeypatch" in s]
    assert "monkeypatch.setattr(" in statement and "'force_array'" in statement, statement


def test_the_victim_resets_the_attribute(engine: Engine) -> None:
    (ins,) = verified_fix(engine, VICTIM, "restore").insertions
    assert ins.test == VICTIM.test
    assert any("'force_array', False" in s for s in ins.statements), ins.statements
