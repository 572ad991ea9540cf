"""Run orders on a Dask cluster (optional extra ``orderdep[dask]``).

:class:`DaskEngine` is an :class:`~orderdep.engine.runner.Engine` whose orders run on the
workers of a Dask scheduler instead of local processes; the results store, resuming and
counting stay here, on the machine that runs the command.

Workers need not share the project's path: the working copy is archived (see
:mod:`orderdep.engine.shipping`), sent to the scheduler as a worker plugin named by its
content hash, and extracted once per code version on every worker, present and future
(:mod:`orderdep.engine.dask_worker`). Workers need orderdep, pytest and the project's own
dependencies installed. A worker lost mid-order loses nothing: Dask runs the order again
on another worker, and only the one result the client receives is recorded and counted.
"""

from __future__ import annotations

import dataclasses
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional
from urllib.parse import urlsplit

from orderdep.core.batching import batches
from orderdep.core.outcomes import OrderResult
from orderdep.core.suite import Suite
from orderdep.engine.config import EngineConfig
from orderdep.engine.executor import ResultCallback
from orderdep.engine.probe import ProbeSpec
from orderdep.engine.runner import Engine, Notice
from orderdep.engine.shipping import pack_project
from orderdep.engine.store import Store
from orderdep.errors import EngineError, UsageError

# Seconds to reach the scheduler, and for a scheduler without workers to get one.
CONNECT_SECONDS = 10.0
WORKER_WAIT_SECONDS = 60.0


def _start_hint(address: str) -> str:
    return (
        f"start one with `dask scheduler` and workers with `dask worker {address}`, "
        "or give the address of a running cluster"
    )


def _probe(address: str) -> None:
    """Fail fast, in one line, when nothing listens at a TCP/TLS scheduler address."""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme not in ("tcp", "tls"):
        return
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if not host or port is None:
        raise UsageError(
            f"--dask {address!r} is not a scheduler address; give one like tcp://HOST:8786"
        )
    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise UsageError(
            f"cannot reach the Dask scheduler at {address!r} ({reason}); {_start_hint(address)}"
        ) from None


def connect(address: str) -> Any:
    """A ``distributed.Client`` for the scheduler at ``address``, or a one-line error."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError(
            "--dask needs the 'distributed' package: pip install 'orderdep[dask]'"
        ) from None
    _probe(address)
    try:
        return Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"cannot reach the Dask scheduler at {address!r} ({exc}); {_start_hint(address)}"
        ) from None


def _known_plugin(name: str, dask_scheduler: Any = None) -> bool:
    return name in dask_scheduler.worker_plugins


def ship(client: Any, project: Path, notice: Notice) -> str:
    """Put the project on every worker of ``client``'s cluster (once per code version);
    returns where it is on a worker, ``<version>/<the project directory's name>``."""
    from orderdep.engine.dask_worker import PLUGIN_PREFIX, ProjectPlugin

    packed = pack_project(project)
    name = PLUGIN_PREFIX + packed.key
    if not client.run_on_scheduler(_known_plugin, name):
        notice(
            f"orderdep: sending the project to the Dask cluster ({packed.files} files, "
            f"{len(packed.data) / 1024:.0f} KiB, version {packed.key})"
        )
        plugin = ProjectPlugin(packed.key, packed.data, project.resolve().name)
        client.register_plugin(plugin, name=name)
    return f"{packed.key}/{project.resolve().name}"


class DaskEngine(Engine):
    """An :class:`Engine` that runs orders on a Dask cluster.

    ``scheduler`` is an address or a ``distributed.Client``. The suite is collected on a
    worker, from the shipped copy, so nothing runs tests on this machine.
    """

    def __init__(
        self,
        config: EngineConfig,
        scheduler: Any,
        *,
        store: Optional[Store] = None,
        job: Optional[str] = None,
        seed: Optional[int] = None,
        notice: Optional[Notice] = None,
    ) -> None:
        super().__init__(config, store=store, job=job, seed=seed, notice=notice)
        self._own_client = isinstance(scheduler, str)
        self.client = connect(scheduler) if isinstance(scheduler, str) else scheduler
        self.address = str(self.client.scheduler.address)
        try:
            self._wait_for_workers()
            self.key = ship(self.client, config.project, self.notice)
        except BaseException:
            self.close()
            raise

    @property
    def threads(self) -> int:
        """Orders the cluster runs at once now (its workers' threads; at least 1)."""
        return max(1, sum(int(n) for n in self.client.nthreads().values()))

    def _wait_for_workers(self) -> None:
        if self.client.nthreads():
            return
        self.notice(f"orderdep: waiting for a worker to join the Dask scheduler {self.address}")
        try:
            self.client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
        except TimeoutError:
            raise UsageError(
                f"the Dask scheduler at {self.address!r} has no workers after "
                f"{WORKER_WAIT_SECONDS:g}s; start some with `dask worker {self.address}`"
            ) from None

    def _fields(self) -> dict[str, Any]:
        """The engine configuration as a worker needs it: paths inside the project made
        relative to it, this machine's interpreter replaced by the worker's own."""
        c = self.config
        return {
            "runner": self.runner,
            "timeout": c.timeout,
            # None: the worker's own interpreter (this one's path may not exist there).
            "python": c.python if c.python != sys.executable else None,
            "rootdir": self._portable(c.rootdir),
            "pythonpath": [self._portable(p) for p in c.pythonpath],
            "pytest_args": list(c.pytest_args),
            "copy": True,
            "home": c.home,
            "extra_env": dict(c.extra_env),
        }

    def _portable(self, path: Optional[str]) -> Optional[str]:
        if path is None or not Path(path).is_absolute():
            return path
        try:
            return str(Path(path).resolve().relative_to(self.config.project)) or "."
        except ValueError:
            return path  # outside the project: must exist on the workers too

    def on_copy(self, config: EngineConfig) -> DaskEngine:
        """An engine on the same cluster for another copy of the project (a patched one,
        say), shipped as its own code version; it records nothing."""
        return DaskEngine(config, self.client, notice=self.notice)

    # -- the Executor interface ----------------------------------------------------------
    @property
    def suite(self) -> Suite:
        if self._suite is None:
            from orderdep.engine.dask_worker import collect_on_worker

            future = self.client.submit(collect_on_worker, self.key, self._fields(), pure=False)
            data = future.result()
            if data.pop("rootdir_in_project", False):
                data["rootdir"] = str(self.config.project / data["rootdir"])
            self._suite = Suite.from_json(data)
        return self._suite

    def use_subprocess(self) -> None:
        self.runner = "subprocess"

    def adopt(self, suite: Suite) -> None:
        """Orders name tests by ``suite``'s ids (see :meth:`Engine.adopt`)."""
        self._suite = suite

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        return self.run_many([order], probe=probe)[0]

    def run_many(
        self,
        orders: Sequence[Sequence[str]],
        *,
        probe: Optional[ProbeSpec] = None,
        on_result: Optional[ResultCallback] = None,
    ) -> list[OrderResult]:
        """Run every order on the cluster; results in input order, each recorded once.
        Short orders go in batches, one task each (:func:`~orderdep.core.batching.batches`)."""
        from distributed import KilledWorker, as_completed

        from orderdep.engine.dask_worker import run_batch_on_worker

        for order in orders:
            self.check(order)
        results: list[Optional[OrderResult]] = [None] * len(orders)
        todo: list[int] = []
        for i, order in enumerate(orders):
            reused = self._reuse(order, probe)
            if reused is None:
                todo.append(i)
                continue
            results[i] = reused
            if on_result is not None:
                on_result(i, reused)
        index: dict[str, list[int]] = {}
        futures = []
        fields = self._fields()
        for batch in batches([len(orders[i]) for i in todo], self.threads):
            members = [todo[b] for b in batch]
            future = self.client.submit(
                run_batch_on_worker,
                self.key,
                fields,
                [list(orders[i]) for i in members],
                probe,
                # the suite's ids, which each worker aligns its own collection to (volatile
                # parametrize ids), sent with every task: data scattered once lives only
                # on the workers holding it, and a killed worker took it along
                list(self.suite.ids),
                pure=False,
            )
            index[future.key] = members
            futures.append(future)
        try:
            for future in as_completed(futures, loop=self.client.loop):
                members = index[future.key]
                try:
                    got = future.result()
                except KilledWorker:
                    first = orders[members[0]]
                    raise EngineError(
                        f"a task of {len(members)} order(s) killed every Dask worker that ran "
                        f"it (the first: {len(first)} test(s), {', '.join(first[:3])}...); run "
                        "its orders with `orderdep run` to see why"
                    ) from None
                for i, result in zip(members, got):
                    result = dataclasses.replace(result, runner=f"dask/{result.runner}")
                    self._record(result, probe)
                    results[i] = result
                    if on_result is not None:
                        on_result(i, result)
        except BaseException:
            self.client.cancel(futures)
            raise
        return [r for r in results if r is not None]

    def close(self, kill: bool = False) -> None:
        super().close(kill)
        if self._own_client and getattr(self, "client", None) is not None:
            self.client.close()
            self.client = None
