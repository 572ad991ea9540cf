"""Run orders on a Dask cluster (optional extra ``orderdep[dask]``).

Each Dask worker process keeps its own :class:`~orderdep.engine.runner.Engine` (fork
server and private working copy) for the project, so orders run there exactly as they do
locally. The project directory must be reachable at the same path on every worker (a
shared file system, or the same checkout on each machine).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Optional

from orderdep.core.outcomes import OrderResult, TestResult
from orderdep.core.suite import Suite
from orderdep.engine.config import EngineConfig
from orderdep.engine.executor import ResultCallback
from orderdep.engine.probe import ProbeSpec
from orderdep.engine.store import Store
from orderdep.errors import UsageError

_ENGINES: dict[str, Any] = {}
_ENGINES_LOCK = threading.Lock()


def _config_fields(config: EngineConfig) -> dict[str, Any]:
    return {
        "project": str(config.project),
        "runner": config.runner,
        "timeout": config.timeout,
        "python": config.python,
        "rootdir": config.rootdir,
        "pythonpath": list(config.pythonpath),
        "pytest_args": list(config.pytest_args),
        "copy": config.copy,
        "home": config.home,
    }


def run_on_worker(
    fields: dict[str, Any], order: list[str], probe: Optional[dict[str, Any]]
) -> dict[str, Any]:
    """Run one order in this Dask worker's engine (created on first use, then kept)."""
    from orderdep.engine.runner import Engine

    key = repr(sorted(fields.items()))
    with _ENGINES_LOCK:
        entry = _ENGINES.get(key)
        if entry is None:
            entry = (Engine(EngineConfig(**fields)), threading.Lock())
            _ENGINES[key] = entry
    engine, lock = entry
    spec = ProbeSpec(probe["module"], probe.get("options") or {}) if probe else None
    with lock:  # one order at a time per engine, whatever the worker's thread count
        result = engine.run(order, probe=spec)
    return {**result.to_json(), "order": result.order, "probe": result.probe}


class DaskExecutor:
    """An :class:`~orderdep.engine.Executor` that spreads orders over a Dask cluster."""

    def __init__(
        self,
        config: EngineConfig,
        scheduler: Any,
        *,
        store: Optional[Store] = None,
        job: Optional[str] = None,
    ) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise UsageError(
                "the Dask executor needs the 'distributed' package: pip install 'orderdep[dask]'"
            ) from None
        self.config = config
        self.client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
        self._own_client = not isinstance(scheduler, Client)
        self.store = store
        self.job = job
        self.runner = f"dask/{config.runner}"
        self.orders_run = 0
        self.executions = 0
        self._suite: Optional[Suite] = None

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def suite(self) -> Suite:
        if self._suite is None:
            from orderdep.engine.runner import Engine

            local = EngineConfig(**{**_config_fields(self.config), "runner": "subprocess"})
            with Engine(local) as engine:
                self._suite = engine.suite
        return self._suite

    def check(self, order: Sequence[str]) -> None:
        self.suite.require(order)

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        return self.run_many([order], probe=probe)[0]

    def run_many(
        self,
        orders: Sequence[Sequence[str]],
        *,
        probe: Optional[ProbeSpec] = None,
        on_result: Optional[ResultCallback] = None,
    ) -> list[OrderResult]:
        from distributed import as_completed

        for order in orders:
            self.check(order)
        fields = _config_fields(self.config)
        probe_json = probe.to_json() if probe else None
        futures = [
            self.client.submit(run_on_worker, fields, list(order), probe_json, pure=False)
            for order in orders
        ]
        index = {f.key: i for i, f in enumerate(futures)}
        results: list[Optional[OrderResult]] = [None] * len(orders)
        for future in as_completed(futures):
            data = future.result()
            i = index[future.key]
            res = OrderResult(
                data["order"],
                [TestResult.from_json(r) for r in data["results"]],
                runner=self.runner,
                wall_seconds=float(data["wall_seconds"]),
                probe=dict(data.get("probe") or {}),
            )
            results[i] = res
            self.orders_run += 1
            self.executions += len(res.order)
            if self.store is not None:
                self.store.record(res, job=self.job, probe=probe.module if probe else None)
            if on_result is not None:
                on_result(i, res)
        return [r for r in results if r is not None]

    def close(self) -> None:
        if self._own_client:
            self.client.close()
