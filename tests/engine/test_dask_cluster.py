"""``orderdep detect --dask`` on a real cluster whose workers do not share the project's
path, with one worker killed mid-run: the same findings as a local run, every order
recorded and counted once."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from tests.engine.conftest import write_files
from tests.engine.dask_cluster import Cluster, dask_cluster

from orderdep.engine import dask_executor
from orderdep.shells.cli import main

distributed = pytest.importorskip("distributed")

SHOP = {
    "pyproject.toml": """
        [tool.pytest.ini_options]
        testpaths = ["tests"]
        pythonpath = ["src"]
    """,
    "src/shop/__init__.py": "",
    "src/shop/registry.py": """
        REGISTRY = {}


        def register(name, handler):
            REGISTRY[name] = handler
    """,
    "src/shop/settings.py": """
        import os


        def mode():
            return os.environ.get("SHOP_MODE", "prod")
    """,
    "tests/conftest.py": """
        import pytest


        @pytest.fixture(scope="session")
        def catalog():
            return []
    """,
    "tests/test_registry.py": """
        import time

        from shop.registry import REGISTRY, register


        def test_register_plugin():
            register("csv", str)


        def test_uses_registered_plugin():
            assert REGISTRY["csv"] is str


        def test_unrelated():
            time.sleep(0.1)


        def test_registry_has_no_json():
            time.sleep(0.1)
            assert "json" not in REGISTRY


        def test_register_json():
            register("json", repr)
    """,
    "tests/test_settings.py": """
        import os
        import time
        import unittest

        from shop.settings import mode


        class TestStaging(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                os.environ["SHOP_MODE"] = "staging"

            def test_mode(self):
                self.assertEqual(mode(), "staging")


        class TestDefaults(unittest.TestCase):
            def setUp(self):
                time.sleep(0.1)

            def test_default_mode(self):
                self.assertEqual(mode(), "prod")
    """,
    "tests/test_catalog.py": """
        import time

        import pytest


        def test_catalog_starts_empty(catalog):
            assert catalog == []


        def test_add_item(catalog):
            catalog.append("book")


        @pytest.mark.parametrize("price", [1, 2, 3, 4])
        def test_price(price):
            time.sleep(0.1)
            assert price > 0
    """,
}


def _findings(report: Path) -> list[dict[str, Any]]:
    data = json.loads(report.read_text())
    return sorted(data["od_tests"], key=lambda f: f["test"])


def _stats(report: Path) -> tuple[int, int]:
    stats = json.loads(report.read_text())["stats"]
    return stats["orders_run"], stats["test_executions"]


def _stored(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1) as db:
            return int(db.execute("SELECT count(*) FROM runs").fetchone()[0])
    except sqlite3.Error:
        return 0


class Killer(threading.Thread):
    """Kills a worker that is running an order once ``after`` orders are stored."""

    def __init__(self, cluster: Cluster, store: Path, after: int) -> None:
        super().__init__(daemon=True)
        self.cluster, self.store, self.after = cluster, store, after
        self.killed: list[str] = []  # what the killed worker was running
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with distributed.Client(self.cluster.address, set_as_default=False) as client:
                deadline = time.monotonic() + 300
                while time.monotonic() < deadline:
                    if _stored(self.store) >= self.after:
                        busy = {w: t for w, t in client.processing().items() if t}
                        if busy:
                            worker, tasks = next(iter(busy.items()))
                            pid = client.run(os.getpid, workers=[worker])[worker]
                            self.cluster.kill_worker(pid)
                            self.killed = list(tasks)
                            return
                    time.sleep(0.05)
        except BaseException as exc:
            self.error = exc


@pytest.mark.slow
def test_detect_on_a_cluster_without_shared_paths_survives_a_killed_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    project = write_files(tmp_path / "shop", SHOP)
    local_report, dask_report = tmp_path / "local.json", tmp_path / "dask.json"
    local_store, dask_store = tmp_path / "local.db", tmp_path / "dask.db"
    # two workers, one thread each: the same --jobs (confirmation's chunks of suspects are
    # sized by it, so the orders it runs are too)
    common = ["detect", str(project), "--seed", "7", "--no-check", "--jobs", "2"]

    code = main([*common, "--report", str(local_report), "--store", str(local_store)])
    assert code == 1, capsys.readouterr().err
    local = _findings(local_report)
    # The project's planted dependencies are all found, so the comparison means something.
    assert {f["test"] for f in local} >= {
        "tests/test_registry.py::test_registry_has_no_json",
        "tests/test_catalog.py::test_catalog_starts_empty",
        "tests/test_settings.py::TestDefaults::test_default_mode",
    }

    # Once shipped, the project is moved away: nothing may need its path any more.
    hidden = tmp_path / "elsewhere"
    ship = dask_executor.ship

    def ship_then_hide(client: Any, root: Path, notice: Any) -> str:
        key = ship(client, root, notice)
        root.rename(hidden)
        return key

    monkeypatch.setattr(dask_executor, "ship", ship_then_hide)
    with dask_cluster(tmp_path / "cluster", workers=2) as cluster:
        killer = Killer(cluster, dask_store, after=3)
        killer.start()
        capsys.readouterr()
        code = main(
            [
                *common,
                "--report",
                str(dask_report),
                "--store",
                str(dask_store),
                "--dask",
                cluster.address,
            ]
        )
        _, err = capsys.readouterr()
        assert not project.exists()
        hidden.rename(project)
        killer.join(timeout=10)
        assert killer.error is None, killer.error
        assert killer.killed, f"no worker was killed mid-run:\n{err}"
        assert cluster.workers[0].poll() is not None or cluster.workers[1].poll() is not None
        # Each worker got the project in its own directory, once, by content hash.
        shipped = [sorted(d.glob("local/**/orderdep-projects/*")) for d in cluster.worker_dirs]
        assert all(len(s) == 1 for s in shipped), shipped
        assert shipped[0][0].name == shipped[1][0].name
        # under the project's own name, as every working copy (sandbox.copy_path)
        assert (shipped[0][0] / project.name / "tests" / "test_catalog.py").read_text() == (
            project / "tests" / "test_catalog.py"
        ).read_text()
    assert code == 1, err
    assert "sending the project to the Dask cluster" in err
    assert _findings(dask_report) == local
    # Nothing lost, nothing counted twice: the same orders as the local run, each stored once.
    assert _stats(dask_report) == _stats(local_report)
    assert _stored(dask_store) == _stats(dask_report)[0] == _stored(local_store)
