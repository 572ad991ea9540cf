"""The time after which engines start no more orders (a command's budget inside work
that cannot check it between its runs)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tests.engine.conftest import write_files

from orderdep.engine.config import EngineConfig
from orderdep.engine.deadline import runs_until
from orderdep.engine.runner import Engine
from orderdep.errors import OutOfTime


def test_orders_after_the_time_are_refused_and_the_limit_ends_with_its_block(
    tmp_path: Path,
) -> None:
    project = write_files(tmp_path / "p", {"tests/test_one.py": "def test_one():\n    pass\n"})
    test = "tests/test_one.py::test_one"
    with Engine(EngineConfig(project, runner="subprocess")) as engine:
        with runs_until(time.monotonic() + 600):
            assert engine.run([test]).outcome_of(test).value == "passed"
            with runs_until(time.monotonic() - 1), pytest.raises(OutOfTime):
                engine.run([test])
            with pytest.raises(OutOfTime), runs_until(time.monotonic() - 1):
                engine.run_many([[test], [test]])
            with runs_until(None):  # no limit of its own: the outer one holds
                assert engine.run([test]).outcome_of(test).value == "passed"
        assert engine.run([test]).outcome_of(test).value == "passed"
