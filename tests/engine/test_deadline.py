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


SLOW = {
    "tests/test_slow.py": (
        "import time\n\n"
        "def test_first():\n    pass\n\n"
        "def test_sleeps():\n    time.sleep(60)\n\n"
        "def test_after():\n    pass\n"
    )
}
ORDER = [
    "tests/test_slow.py::test_first",
    "tests/test_slow.py::test_sleeps",
    "tests/test_slow.py::test_after",
]


@pytest.mark.parametrize("runner", ["fork", "subprocess"])
def test_an_order_running_when_the_time_comes_is_killed_and_not_kept(
    tmp_path: Path, runner: str
) -> None:
    project = write_files(tmp_path / "p", SLOW)
    with Engine(EngineConfig(project, runner=runner, timeout=300)) as engine:
        engine.run(ORDER[:1])  # started: the clock below times the order alone
        began = time.monotonic()
        with pytest.raises(OutOfTime, match="stopped"), runs_until(began + 2):
            engine.run(ORDER)
        assert time.monotonic() - began < 30  # not the 60 s the test sleeps
        runs = engine.orders_run
        # The engine runs the next order whole once the limit is gone.
        assert engine.run(ORDER[:1]).complete
        assert engine.orders_run == runs + 1
