"""A test that replaces a library function for good (``pacer.time.sleep = MagicMock()``):
the debugger names ``time.sleep``, and the polluter is made to put it back."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import plain_outcomes

from orderdep.analysis.repair.fix import Repairer
from orderdep.core.report import ODFinding
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

PACER = """
    import time


    def paced(items, gap):
        out = []
        for item in items:
            time.sleep(gap)
            out.append(item)
        return out
"""
TESTS = """
    import time
    from unittest.mock import MagicMock

    import pacer


    def test_fast_without_waiting():
        pacer.time.sleep = MagicMock()
        assert pacer.paced([1, 2], 5) == [1, 2]


    def test_waits_between_items():
        start = time.monotonic()
        assert pacer.paced([1, 2], 0.05) == [1, 2]
        assert time.monotonic() - start >= 0.1
"""
M = "tests/test_pacer.py::"
VICTIM, POLLUTER = M + "test_waits_between_items", M + "test_fast_without_waiting"


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def test_a_library_function_replaced_for_good_is_put_back_by_its_polluter(
    tmp_path: Path,
) -> None:
    root = tmp_path / "p"
    (root / "tests").mkdir(parents=True)
    (root / "pacer.py").write_text(textwrap.dedent(PACER).lstrip(), encoding="utf-8")
    (root / "tests/test_pacer.py").write_text(textwrap.dedent(TESTS).lstrip(), encoding="utf-8")
    with Engine(EngineConfig(root)) as engine:
        result = Repairer(engine.config, engine).repair(
            ODFinding(VICTIM, "victim", polluters=[POLLUTER])
        )
    assert result.fix is not None, result.notes
    assert result.fix.strategy == "polluter", result.fix
    ((_, new),) = result.fix.changes.values()
    assert "monkeypatch.setattr(time, 'sleep', time.sleep)" in new, new
    (root / "tests/test_pacer.py").write_text(new, encoding="utf-8")
    failing, original = plain_outcomes(
        root, [[POLLUTER, VICTIM], [VICTIM, POLLUTER]], tmp_path / "w"
    )
    assert set(failing.values()) == {"passed"}, (failing, new)
    assert set(original.values()) == {"passed"}, (original, new)
