"""The Dask executor gives the same outcomes as the local engine."""

from __future__ import annotations

from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from orderdep.engine.config import EngineConfig  # noqa: E402
from orderdep.engine.dask_executor import DaskExecutor  # noqa: E402
from orderdep.engine.runner import Engine  # noqa: E402


def _project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_m.py").write_text(
        "import os\nSTATE = []\n"
        "def test_polluter():\n    STATE.append(1)\n    os.environ['DASK_OD'] = '1'\n"
        "def test_victim():\n    assert STATE == []\n"
        "def test_env_victim():\n    assert 'DASK_OD' not in os.environ\n"
        "def test_plain():\n    pass\n"
    )
    return root


@pytest.mark.slow
def test_dask_matches_local_engine(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    ids = [
        f"tests/test_m.py::{n}"
        for n in ("test_polluter", "test_victim", "test_env_victim", "test_plain")
    ]
    orders = [ids, list(reversed(ids)), [ids[0], ids[2]], [ids[2]], [ids[3], ids[3]]]
    config = EngineConfig(project)
    with Engine(config) as engine:
        local = [[r.outcome for r in res] for res in engine.run_many(orders)]
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        seen: list[int] = []
        with DaskExecutor(config, client) as executor:
            assert executor.suite.ids == ids
            remote = executor.run_many(orders, on_result=lambda i, r: seen.append(i))
    assert [[r.outcome for r in res] for res in remote] == local
    assert sorted(seen) == list(range(len(orders)))
    assert local[0][1].is_failure and local[0][2].is_failure
    assert all(o.is_pass for o in local[3])
