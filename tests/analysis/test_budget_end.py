"""An order still running when a command's whole budget ends is killed (real engine)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tests.engine.conftest import write_files
from tests.engine.test_deadline import ORDER, SLOW

from orderdep.analysis.budget import Budget, BudgetedExecutor, BudgetExhausted
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine


def test_the_whole_budget_ending_kills_the_running_order_and_stops_the_budget(
    tmp_path: Path,
) -> None:
    project = write_files(tmp_path / "p", SLOW)
    with Engine(EngineConfig(project, runner="fork", timeout=300)) as engine:
        engine.run(ORDER[:1])
        whole = Budget(3.0)
        phase = BudgetedExecutor(engine, whole.part(0.4), jobs=1)
        seen = []
        began = time.monotonic()
        with pytest.raises(BudgetExhausted, match="budget"):
            phase.run_many([ORDER], on_result=lambda i, r: seen.append(r))
        assert time.monotonic() - began < 30
        assert whole.stopped and whole.stop_reason == "budget"
        assert seen == []  # the killed order is no result


def test_a_phases_own_share_ending_does_not_kill_its_order(tmp_path: Path) -> None:
    project = write_files(
        tmp_path / "p",
        {"tests/test_short.py": "import time\n\ndef test_a():\n    time.sleep(1.5)\n"},
    )
    with Engine(EngineConfig(project, runner="fork", timeout=300)) as engine:
        whole = Budget(600.0)
        phase = BudgetedExecutor(engine, whole.part(0.001), jobs=1)  # 0.6 s of its own
        (result,) = phase.run_many([["tests/test_short.py::test_a"]])
        assert result.complete
