"""The Dask engine gives the same outcomes as the local engine, records each order once
and resumes from the store like it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")

from tests.engine.conftest import write_files  # noqa: E402

from orderdep.engine.config import EngineConfig  # noqa: E402
from orderdep.engine.dask_executor import DaskEngine  # noqa: E402
from orderdep.engine.runner import Engine  # noqa: E402
from orderdep.engine.store import Store  # noqa: E402

MOD = "tests/test_m.py"
IDS = [f"{MOD}::{n}" for n in ("test_polluter", "test_victim", "test_env_victim", "test_plain")]
ORDERS = [IDS, list(reversed(IDS)), [IDS[0], IDS[2]], [IDS[2]], [IDS[3], IDS[3]]]


def _project(root: Path) -> Path:
    return write_files(
        root,
        {
            "setup.cfg": "[tool:pytest]\ntestpaths = tests\n",
            MOD: """
                import os
                STATE = []

                def test_polluter():
                    STATE.append(1)
                    os.environ["DASK_OD"] = "1"

                def test_victim():
                    assert STATE == []

                def test_env_victim():
                    assert "DASK_OD" not in os.environ

                def test_plain():
                    pass
            """,
        },
    )


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        yield client


@pytest.mark.slow
def test_dask_matches_local_engine(tmp_path: Path, client: Any) -> None:
    config = EngineConfig(_project(tmp_path / "p"))
    with Engine(config) as engine:
        local = [[r.outcome for r in res] for res in engine.run_many(ORDERS)]
    seen: list[int] = []
    with DaskEngine(config, client) as dask:
        assert dask.suite.ids == IDS
        assert dask.suite.rootdir == str(config.project)  # this machine's path, not a worker's
        remote = dask.run_many(ORDERS, on_result=lambda i, r: seen.append(i))
        assert [r.order for r in remote] == ORDERS
        assert {r.runner for r in remote} == {"dask/fork"}
        assert (dask.orders_run, dask.executions) == (5, sum(map(len, ORDERS)))
    assert [[r.outcome for r in res] for res in remote] == local
    assert sorted(seen) == list(range(len(ORDERS)))
    assert local[0][1].is_failure and local[0][2].is_failure
    assert all(o.is_pass for o in local[3])


@pytest.mark.slow
def test_dask_records_each_order_once_and_resumes(tmp_path: Path, client: Any) -> None:
    config = EngineConfig(_project(tmp_path / "p"), runner="subprocess")
    store = Store(tmp_path / "runs.db")
    try:
        with DaskEngine(config, client, store=store, job="j") as dask:
            first = dask.run_many(ORDERS[:3])
        assert store.count() == 3
        with DaskEngine(config, client, store=store, job="j") as dask:
            again = dask.run_many(ORDERS)  # the first three come from the store
            assert (dask.reused, dask.orders_run) == (3, 2)
        assert store.count() == 5
        assert [[r.outcome for r in res] for res in again[:3]] == [
            [r.outcome for r in res] for res in first
        ]
    finally:
        store.close()


@pytest.mark.slow
def test_a_copy_runs_as_its_own_code_version(tmp_path: Path, client: Any) -> None:
    config = EngineConfig(_project(tmp_path / "p"))
    patched = _project(tmp_path / "patched")
    test_file = patched / MOD
    test_file.write_text(test_file.read_text().replace("STATE.append(1)", "pass"))
    order = [IDS[0], IDS[1]]
    with DaskEngine(config, client) as dask:
        before = dask.run(order)
        with dask.on_copy(EngineConfig(patched)) as on_copy:
            after = on_copy.run(order)
            assert on_copy.key != dask.key
        again = dask.run(order)  # the original version still runs as it was
    assert [r.outcome.is_failure for r in before] == [False, True]
    assert [r.outcome.is_failure for r in after] == [False, False]
    assert [r.outcome.is_failure for r in again] == [False, True]


@pytest.mark.slow
def test_dask_workers_run_tests_whose_ids_change_between_processes(
    tmp_path: Path, client: Any
) -> None:
    """Each worker collects the suite itself, with its own clock-made id: orders named by
    the client's suite still run that test on every worker, under the client's id."""
    from tests.engine.volatile_project import VOLATILE, stamp_of

    config = EngineConfig(write_files(tmp_path / "v", VOLATILE))
    with DaskEngine(config, client) as dask:
        ids = dask.suite.ids
        stamp = stamp_of(ids)
        orders = [ids, [stamp, ids[-1], ids[0]], [stamp]] * 2
        results = dask.run_many(orders)
    assert [[r.test for r in res] for res in results] == orders
    assert [[r.outcome.value for r in res] for res in results] == [
        ["passed"] * 4,
        ["passed", "passed", "failed"],
        ["passed"],
    ] * 2


@pytest.mark.slow
def test_many_short_orders_go_in_batches_and_each_is_recorded_once(
    tmp_path: Path, client: Any
) -> None:
    from orderdep.core.batching import batches

    config = EngineConfig(_project(tmp_path / "p"))
    orders = [[IDS[0], IDS[1]], [IDS[1]], [IDS[2], IDS[3]], [IDS[3]]] * 10
    assert len(batches([len(o) for o in orders], 2)) < len(orders)  # batched
    seen: list[int] = []
    with DaskEngine(config, client) as dask:
        got = dask.run_many(orders, on_result=lambda i, r: seen.append(i))
        assert dask.orders_run == len(orders)
    assert [r.order for r in got] == orders and sorted(seen) == list(range(len(orders)))
    assert [r.outcome_of(IDS[1]).is_failure for r in got[:2]] == [True, False]
    assert all(r.outcome_of(IDS[3]).is_pass for r in got[2:4])
