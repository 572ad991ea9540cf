"""What runs inside a Dask worker: the shipped project and the engines that run it.

The client registers one :class:`ProjectPlugin` per code version (named by the archive's
content hash); every worker, including those that join later, extracts it once into its
local directory. Tasks then run orders there in a pool of
:class:`~orderdep.engine.runner.Engine` objects (one per task running at once, each with
its own fork server and working copy), kept for the next task of the same version.
Importing this module needs the ``distributed`` package.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any, Optional

from distributed import get_worker
from distributed.diagnostics.plugin import WorkerPlugin

from orderdep.core.outcomes import OrderResult
from orderdep.core.suite import Suite
from orderdep.engine.config import EngineConfig
from orderdep.engine.probe import ProbeSpec
from orderdep.engine.runner import Engine
from orderdep.engine.shipping import unpack_project
from orderdep.errors import EngineError

PLUGIN_PREFIX = "orderdep-project-"

# Idle engines per (code version, configuration), most recently used last; engines of
# older ones are closed (each holds a fork server), e.g. patched copies ``fix`` verified.
MAX_POOLS = 3
_POOLS: dict[str, list[Engine]] = {}
_POOLS_LOCK = threading.Lock()


def project_dir(key: str, local_directory: Optional[str] = None) -> Path:
    """Where this worker keeps code version ``key`` of the project."""
    base = local_directory if local_directory is not None else get_worker().local_directory
    return Path(base) / "orderdep-projects" / key


class ProjectPlugin(WorkerPlugin):
    """Puts one code version of the project on every worker, once."""

    idempotent = True  # registering a version the scheduler already has sends nothing

    def __init__(self, key: str, data: bytes, directory: str) -> None:
        self.key = key
        self.data = data
        self.directory = directory  # the project directory's own name, kept on the worker
        self.name = PLUGIN_PREFIX + key

    def setup(self, worker: Any) -> None:
        where = project_dir(f"{self.key}/{self.directory}", worker.local_directory)
        unpack_project(self.data, where)

    def teardown(self, worker: Any) -> None:
        close_engines()


def _config(key: str, fields: dict[str, Any]) -> EngineConfig:
    tree = project_dir(key)
    if not tree.is_dir():
        raise EngineError(
            f"code version {key} of the project is not on Dask worker "
            f"{get_worker().address}; rerun the command to ship it again"
        )
    if fields.get("python") is None:
        fields = {**fields, "python": sys.executable}
    return EngineConfig(**{**fields, "project": tree})


def _pool_key(key: str, fields: dict[str, Any]) -> str:
    return key + repr(sorted(fields.items()))


def _take(key: str, fields: dict[str, Any]) -> tuple[str, Engine]:
    pool = _pool_key(key, fields)
    stale: list[Engine] = []
    with _POOLS_LOCK:
        free = _POOLS.pop(pool, [])
        _POOLS[pool] = free  # now the most recently used
        while len(_POOLS) > MAX_POOLS:
            stale += _POOLS.pop(next(iter(_POOLS)))
        engine = free.pop() if free else None
    for old in stale:
        old.close()
    return pool, engine if engine is not None else Engine(_config(key, fields))


def _give_back(pool: str, engine: Engine) -> None:
    with _POOLS_LOCK:
        free = _POOLS.get(pool)
        if free is not None:
            free.append(engine)
            return
    engine.close()  # its pool was retired while it ran


def close_engines() -> None:
    """Stop every engine this worker keeps (their fork servers and working copies)."""
    with _POOLS_LOCK:
        engines = [e for pool in _POOLS.values() for e in pool]
        _POOLS.clear()
    for engine in engines:
        engine.close()


def collect_on_worker(key: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The suite as this worker collects it (JSON), its rootdir relative to the project
    when inside it (the client puts back its own path)."""
    pool, engine = _take(key, fields)
    try:
        suite = engine.suite.to_json()
    except BaseException:
        engine.close()
        raise
    _give_back(pool, engine)
    try:
        suite["rootdir"] = Path(suite["rootdir"]).relative_to(project_dir(key)).as_posix()
        suite["rootdir_in_project"] = True
    except ValueError:
        pass
    return suite


def run_batch_on_worker(
    key: str,
    fields: dict[str, Any],
    orders: list[list[str]],
    probe: Optional[ProbeSpec],
    reference: Optional[list[str]] = None,
) -> list[OrderResult]:
    """Run several (short) orders one after the other on this worker: one task instead of
    one per order (:mod:`orderdep.core.batching`)."""
    pool, engine = _take(key, fields)
    try:
        if reference is not None and engine.suite.ids != list(reference):
            engine.adopt(Suite.from_ids(reference, rootdir=engine.suite.rootdir))
        results = [engine.run(order, probe=probe) for order in orders]
    except BaseException:
        engine.close()  # a broken engine is not reused
        raise
    _give_back(pool, engine)
    return results
