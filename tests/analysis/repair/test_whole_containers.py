"""Victims of different keys of one dict, each with its own polluter: the autouse fixture
made for the first puts the whole dict back, so it holds for the others too, and they are
offered it before any debugging of their own."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import plain_outcomes, repaired
from tests.analysis.repair.test_setter_fixtures import _write

from orderdep.analysis.repair.fix_result import Fix
from orderdep.analysis.repair.verify.sharing import shared_fixes
from orderdep.analysis.repair.verify.verify import Verification
from orderdep.analysis.repair.write.patches import Insertion
from orderdep.core.report import ODFinding

TESTS = """
    state = {"/async": "not started", "/sync": "not started"}


    def handle(path):
        state[path] = "finished"


    def test_async_state():
        assert state["/async"] == "not started"


    def test_sync_state():
        assert state["/sync"] == "not started"


    def test_async_request():
        handle("/async")
        assert state["/async"] == "finished"


    def test_sync_request():
        handle("/sync")
        assert state["/sync"] == "finished"
"""
M = "tests/test_routes.py::"
VICTIM_A, POLLUTER_A = M + "test_async_state", M + "test_async_request"
VICTIM_B, POLLUTER_B = M + "test_sync_state", M + "test_sync_request"


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def test_the_fixture_puts_back_the_whole_dict_not_one_key(tmp_path: Path) -> None:
    root = _write(tmp_path / "p", {"tests/__init__.py": "", "tests/test_routes.py": TESTS})
    finding = ODFinding(VICTIM_A, "victim", polluters=[POLLUTER_A])
    orders = [[POLLUTER_A, VICTIM_A], [VICTIM_A, POLLUTER_A]]
    new = repaired(root, finding, orders, tmp_path / "plain", strategy="fixture")
    assert list(new) == ["tests/conftest.py"]
    assert "autouse=True" in new["tests/conftest.py"]
    assert "setitem" not in new["tests/conftest.py"]  # not only the key '/async'
    # the other key's victim, after its own polluter, passes with the same fixture
    (outcomes,) = plain_outcomes(root, [[POLLUTER_B, VICTIM_B]], tmp_path / "plain-b")
    assert outcomes == {POLLUTER_B: "passed", VICTIM_B: "passed"}


def test_an_autouse_fixture_of_a_victim_is_offered_to_the_victims_of_its_file() -> None:
    first = ODFinding(VICTIM_A, "victim", polluters=[POLLUTER_A])
    ins = _autouse("tests/conftest.py::_restore_state")
    fix = Fix(VICTIM_A, "fixture", "d", [ins], {}, Verification(True))
    assert shared_fixes(ODFinding(VICTIM_B, "victim", polluters=[POLLUTER_B]), [(first, fix)]) == [
        fix
    ]
    other_file = ODFinding("tests/test_other.py::test_x", "victim", polluters=[POLLUTER_B])
    assert shared_fixes(other_file, [(first, fix)]) == []
    # a change to the first victim itself is never offered to another
    own = Fix(VICTIM_A, "restore", "d", [_autouse(VICTIM_A, "insert")], {}, Verification(True))
    assert shared_fixes(ODFinding(VICTIM_B, "victim", polluters=[POLLUTER_B]), [(first, own)]) == []


def _autouse(where: str, edit: str = "autouse") -> Insertion:
    return Insertion(where, ("x = 1",), edit=edit)
