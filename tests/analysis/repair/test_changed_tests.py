"""What a patch changes decides which failing tests must keep failing the same way."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.verify.changed_tests import changed_code
from orderdep.core.report import ODFinding
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

OLD = """
import json


class TestA:
    def setUp(self):
        self.x = 1

    def test_one(self):
        assert True

    def test_two(self):
        assert True


def test_three():
    assert True
"""


def _changed(new: str, path: str = "tests/test_a.py") -> tuple[set[str], bool]:
    got = changed_code({path: (OLD, new)})
    return got.tests, got.shared


def test_a_test_function_changed_and_an_import_added_touch_that_test_only() -> None:
    new = OLD.replace("import json\n", "import copy\nimport json\n").replace(
        "    def test_one(self):\n        assert True",
        "    def test_one(self, monkeypatch):\n        monkeypatch.setenv('A', '1')",
    )
    tests, shared = _changed(new)
    assert (tests, shared) == ({"tests/test_a.py::TestA::test_one"}, False)
    assert changed_code({"tests/test_a.py": (OLD, new)}).touches(
        "tests/test_a.py::TestA::test_one[1]"
    )
    assert not changed_code({"tests/test_a.py": (OLD, new)}).touches("tests/test_a.py::test_three")


@pytest.mark.parametrize(
    ("new", "path"),
    [
        (OLD.replace("self.x = 1", "self.x = 2"), "tests/test_a.py"),  # a setUp
        (OLD + "\nLIMIT = 3\n", "tests/test_a.py"),  # module code
        (OLD, "tests/conftest.py"),  # a conftest is shared whatever it holds
        ("def broken(:\n", "tests/test_a.py"),  # cannot tell
    ],
)
def test_anything_tests_share_is_shared(new: str, path: str) -> None:
    assert _changed(new, path)[1] is True


ITEMS = """
ITEMS = [1, 2]
"""
TESTS = """
import items


def test_two_items():
    assert len(items.ITEMS) == 2


def test_clear():
    items.ITEMS.clear()
    assert items.ITEMS == []


def test_first_over_zero():
    assert items.ITEMS[0] / 0
"""


def test_a_polluter_patch_holds_when_a_broken_test_now_fails_another_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``test_first_over_zero`` fails in the original order with IndexError (the list is
    empty after ``test_clear``) and, once the polluter undoes its change, with
    ZeroDivisionError: the patch did not touch it, so the patch holds."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    root = tmp_path / "p"
    (root / "tests").mkdir(parents=True)
    (root / "items.py").write_text(textwrap.dedent(ITEMS).lstrip())
    (root / "tests/test_items.py").write_text(textwrap.dedent(TESTS).lstrip())
    m = "tests/test_items.py::"
    with Engine(EngineConfig(root)) as engine:
        result = Repairer(engine.config, engine, strategy="polluter").repair(
            ODFinding(m + "test_two_items", "victim", polluters=[m + "test_clear"])
        )
    assert result.fix is not None, result.notes
    ((_, (_, new)),) = result.fix.changes.items()
    assert "def test_clear(monkeypatch):" in new, new
