"""A suite that starts a thread as it loads: the fork server refuses to fork after
collection, so orders run in children forked before collection (engine.prefork), which
collect afresh and give the outcomes a fresh pytest gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.engine.conftest import write_files

from orderdep.core.outcomes import Outcome
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

THREAD_AT_IMPORT = """
    import threading, time
    threading.Thread(target=time.sleep, args=(600,), daemon=True, name="flusher").start()
"""
TESTS = """
    import time

    STATE = {"polluted": False}

    def test_victim():
        assert not STATE["polluted"]

    def test_polluter():
        STATE["polluted"] = True

    def test_hangs():
        time.sleep(60)
"""
VICTIM, POLLUTER, HANGS = (f"tests/test_od.py::test_{n}" for n in ("victim", "polluter", "hangs"))


@pytest.fixture
def threaded(tmp_path: Path) -> Path:
    return write_files(
        tmp_path / "proj",
        {"pytest.ini": "[pytest]\n", "conftest.py": THREAD_AT_IMPORT, "tests/test_od.py": TESTS},
    )


def outcomes(engine: Engine, order: list[str]) -> list[Outcome]:
    return [r.outcome for r in engine.run(order).results]


def test_orders_fork_before_collection_and_match_fresh_processes(threaded: Path) -> None:
    said: list[str] = []
    with (
        Engine(EngineConfig(threaded, jobs=2), notice=said.append) as prefork,
        Engine(EngineConfig(threaded, runner="subprocess")) as fresh,
    ):
        assert prefork.suite.ids == [VICTIM, POLLUTER, HANGS]
        assert prefork.runner == "prefork"
        assert any("flusher (started at conftest.py:2)" in s and "forking before it" in s
                   for s in said)  # fmt: skip
        for order in ([POLLUTER, VICTIM], [VICTIM], [VICTIM, POLLUTER, VICTIM]):
            assert outcomes(prefork, order) == outcomes(fresh, order)
        assert outcomes(prefork, [POLLUTER, VICTIM]) == [Outcome.PASSED, Outcome.FAILED]
        # two orders at once: a second worker forks before collection too
        results = prefork.run_many([[POLLUTER, VICTIM], [VICTIM]])
        assert [[r.outcome for r in res.results] for res in results] == [
            [Outcome.PASSED, Outcome.FAILED],
            [Outcome.PASSED],
        ]
        assert {res.runner for res in results} == {"prefork"}


def test_a_hanging_test_times_out_and_the_next_order_runs(threaded: Path) -> None:
    with Engine(EngineConfig(threaded, timeout=3.0)) as engine:
        assert engine.suite.ids and engine.runner == "prefork"
        assert outcomes(engine, [VICTIM, HANGS, POLLUTER]) == [
            Outcome.PASSED,
            Outcome.TIMEOUT,
            Outcome.NOT_RUN,
        ]
        assert outcomes(engine, [POLLUTER, VICTIM]) == [Outcome.PASSED, Outcome.FAILED]
