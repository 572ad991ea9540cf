"""A ``unittest.TestCase`` whose ``setUpClass`` builds one object its tests share: the
victim gets ``setUpClass`` run again from its class's ``setUp``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import plain_outcomes

from orderdep.analysis.repair.candidates.fixture_candidates import setup_class_candidates
from orderdep.analysis.repair.fix import Repairer
from orderdep.core.report import ODFinding
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

CLS = "tests/test_trip.py::TestTrip::"
TRIP = """
    import unittest


    class Trip:
        def __init__(self):
            self.legs = []


    class TestTrip(unittest.TestCase):
        @classmethod
        def setUpClass(cls):
            cls.trip = Trip()

        def test_round_trip(self):
            self.trip.legs += ["BRU-BCN", "BCN-BRU"]
            self.assertEqual(len(self.trip.legs), 2)

        def test_one_way(self):
            self.trip.legs.append("BRU-BCN")
            self.assertEqual(len(self.trip.legs), 1)
"""


def _project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "tests/test_trip.py").write_text(textwrap.dedent(TRIP).lstrip(), encoding="utf-8")
    return root


def test_only_for_a_victim_and_polluter_of_one_testcase_with_setupclass(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    finding = ODFinding(CLS + "test_one_way", "victim", polluters=[CLS + "test_round_trip"])
    (cand,) = setup_class_candidates(root, finding)
    (ins,) = cand.insertions
    assert (ins.method, ins.statements) == ("setUp", ("self.setUpClass()",))
    elsewhere = ODFinding(CLS + "test_one_way", "victim", polluters=["tests/test_x.py::test_a"])
    assert setup_class_candidates(root, elsewhere) == []


def test_the_victim_is_repaired_by_setupclass_before_each_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path / "p")
    victim, polluter = CLS + "test_one_way", CLS + "test_round_trip"
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    with Engine(EngineConfig(root)) as engine:
        result = Repairer(engine.config, engine, strategy="fixture").repair(
            ODFinding(victim, "victim", polluters=[polluter])
        )
    assert result.fix is not None, result.notes
    ((_, new),) = result.fix.changes.values()
    assert "    def setUp(self):\n" in new and "        self.setUpClass()\n" in new, new
    (root / "tests/test_trip.py").write_text(new, encoding="utf-8")
    (outcome,) = plain_outcomes(root, [[polluter, victim]], tmp_path / "work")
    assert set(outcome.values()) == {"passed"}, outcome
