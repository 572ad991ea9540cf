"""State a class's ``setup_class`` makes, which a test then changes: the debugger puts it
back as it was right after the set-up (it did not exist when the order started), and the
victim is repaired."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import repaired_victim

from orderdep.analysis.repair.locate.debugger import debug
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

CLS = "tests/test_log.py::TestLog::"
LOG = """
    class TestLog:
        @classmethod
        def setup_class(cls):
            cls.lines = []

        def test_write(self):
            self.lines.append("started")
            assert self.lines == ["started"]

        def test_starts_empty(self):
            assert self.lines == []
"""
VICTIM, POLLUTER = CLS + "test_starts_empty", CLS + "test_write"


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def _project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "tests/test_log.py").write_text(textwrap.dedent(LOG).lstrip(), encoding="utf-8")
    return root


def test_a_root_the_class_set_up_made_is_put_back_as_the_set_up_left_it(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    with Engine(EngineConfig(root)) as engine:
        result = debug(
            engine, VICTIM, kind="victim", failing_order=[POLLUTER, VICTIM],
            passing_order=[VICTIM],
        )  # fmt: skip
    assert result.polluted == ["test_log.TestLog.lines"], result


def test_the_victim_of_a_class_set_up_list_is_repaired(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    repaired_victim(root, VICTIM, POLLUTER, tmp_path / "work")
