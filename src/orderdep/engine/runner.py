"""The engine: the only way orderdep runs tests.

``Engine(config).run(order)`` runs an exact sequence of test ids from a fresh interpreter
state and returns one result per position; ``run_many`` spreads orders over ``jobs``
workers, each with its own working copy of the project. With a store and a job name,
every finished order is recorded at once and a rerun of the same job reuses them
(resume after an interruption, even ``kill -9``).
"""

from __future__ import annotations

import contextlib
import queue
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Callable, Optional, Union

from orderdep.core.outcomes import OrderResult
from orderdep.core.suite import Suite
from orderdep.engine import deadline
from orderdep.engine.collected import code_notices
from orderdep.engine.config import EngineConfig
from orderdep.engine.executor import ResultCallback
from orderdep.engine.prefork_worker import PreforkWorker
from orderdep.engine.probe import ProbeSpec
from orderdep.engine.sandbox import Sandbox
from orderdep.engine.store import Store
from orderdep.engine.tempdirs import make_workdir
from orderdep.engine.testclock import Progress
from orderdep.engine.timeouts import TimeoutPolicy
from orderdep.engine.volatile_ids import IdNotices
from orderdep.engine.workers import ForkUnavailable, ForkWorker, SubprocessWorker
from orderdep.errors import EngineError, OutOfTime

Worker = Union[ForkWorker, SubprocessWorker]
Notice = Callable[[str], None]
# Seconds to wait for the workers' threads once their orders were killed.
STOP_WAIT = 30.0


class Engine:
    """Runs orders of a project's tests; implements :class:`~orderdep.engine.Executor`."""

    def __init__(
        self,
        config: EngineConfig,
        *,
        store: Optional[Store] = None,
        job: Optional[str] = None,
        seed: Optional[int] = None,
        notice: Optional[Notice] = None,
    ) -> None:
        self.config = config
        self.store = store
        self.job = job
        self.seed = seed
        self.notice = notice or (lambda message: None)
        self.runner = config.runner
        # Per-test time limits, learned from every result (see engine.timeouts).
        self.timeouts = TimeoutPolicy(config.timeout)
        self.orders_run = 0
        self.executions = 0
        self.reused = 0
        self._workers: list[Worker] = []
        self._suite: Optional[Suite] = None
        self._tmp: Optional[tempfile.TemporaryDirectory[str]] = None
        self._requested: Counter[str] = Counter()
        # Orders already run before the analysis asked for them (see offer()).
        self._offered: dict[str, OrderResult] = {}
        # The fork runner's check ended without a verdict: it may search, not confirm
        # (see analysis.fork_trust and confirm_fresh()).
        self.search_unchecked = False
        # Its run of the original order did not end either: the leading tests the search
        # covers (see analysis.fork_part).
        self.search_part: Optional[list[str]] = None
        self._lock = threading.Lock()
        # Tests whose ids change between processes, named once (see core.volatile).
        self.id_notices = IdNotices(self.notice)
        deadline.watch(self)  # its running orders are killed when a budget ends

    # -- lifecycle -------------------------------------------------------------------
    def __enter__(self) -> Engine:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        # Unwinding (Ctrl-C, an error): the workers' processes are killed, not waited for.
        self.close(kill=kind is not None)

    def _workdir(self) -> Path:
        if self.config.workdir is not None:
            self.config.workdir.mkdir(parents=True, exist_ok=True)
            return self.config.workdir
        if self._tmp is None:
            self._tmp = make_workdir()
        return Path(self._tmp.name)

    def _new_worker(self, n: int) -> Worker:
        sandbox = Sandbox(
            self.config.project,
            self._workdir() / f"w{n}",
            copy=self.config.copy,
            home=self.config.home,
        )
        if self.runner == "fork":
            worker: Worker = ForkWorker(self.config, sandbox)
            try:
                suite = worker.start()
            except ForkUnavailable as exc:
                worker, suite = self._after_refused_fork(exc, sandbox)
        elif self.runner == "prefork":
            worker = PreforkWorker(self.config, sandbox)
            suite = worker.start()
        else:
            worker = SubprocessWorker(self.config, sandbox)
            suite = worker.start()
        worker.policy = self.timeouts
        if self._suite is None:
            self._suite = suite
            for line in code_notices(suite):
                self.notice(line)
        # Orders name tests by the first collection's ids; this one may differ.
        worker.set_reference(self._suite.ids, suite)
        self.id_notices.compare(self._suite.ids, suite.ids)
        return worker

    def _after_refused_fork(self, exc: ForkUnavailable, sandbox: Sandbox) -> tuple[Worker, Suite]:
        """The runner when the fork server refused: where threads started as the suite
        loaded were the reason, a server that forks before collection (each order
        collects afresh, Python and pytest start once); else fresh processes."""
        if "threads" in str(exc):
            worker: Worker = PreforkWorker(self.config, sandbox)
            try:
                suite = worker.start()
            except (ForkUnavailable, EngineError) as failed:
                self.notice(f"orderdep: cannot fork before collection either ({failed})")
            else:
                self.runner = "prefork"
                self.notice(
                    f"orderdep: cannot fork after collection ({exc}); forking before it "
                    "instead: every order collects the suite afresh (Python and pytest start "
                    "once). To keep the fastest runner, start such threads on first use (in "
                    "a fixture) rather than at import"
                )
                return worker, suite
        self.notice(
            f"orderdep: cannot fork ({exc}); using the subprocess runner, where every order "
            "pays a fresh pytest start-up and collection"
        )
        self.runner = "subprocess"
        worker = SubprocessWorker(self.config, sandbox)
        return worker, worker.start()

    def _ensure_workers(self, n: int) -> None:
        while len(self._workers) < n:
            self._workers.append(self._new_worker(len(self._workers)))

    @property
    def suite(self) -> Suite:
        if self._suite is None:
            self._ensure_workers(1)
        assert self._suite is not None
        return self._suite

    def adopt(self, suite: Suite) -> None:
        """Run orders named by ``suite``'s ids (another collection of this project, such
        as the fork runner's when this engine runs fresh processes): each test process
        finds the tests it collected under other ids (volatile parametrize ids) by
        alignment, and results keep ``suite``'s ids."""
        self._suite = suite
        for worker in self._workers:
            assert worker.collected is not None
            worker.set_reference(suite.ids, worker.collected)
            self.id_notices.compare(suite.ids, worker.collected.ids)
        self._ensure_workers(1)  # its collection is compared now

    def _stop_workers(self, kill: bool = False) -> None:
        workers, self._workers = self._workers, []
        try:
            for worker in workers:
                worker.close(kill=kill)
        finally:  # their processes are gone (or swept as the command ends): remove the copies
            for worker in workers:
                worker.sandbox.destroy()

    @contextlib.contextmanager
    def unrecorded(self) -> Iterator[None]:
        """Orders run inside are neither taken from nor written to the store."""
        saved, self.store = self.store, None
        try:
            yield
        finally:
            self.store = saved

    def confirm_fresh(self) -> str:
        """Once an unchecked fork runner's search ended (:attr:`search_unchecked`): every
        later order in a fresh pytest; the runner name their results carry."""
        self.search_unchecked = False
        self.use_subprocess()
        return self.runner

    def use_subprocess(self) -> None:
        """Run every later order in fresh subprocesses (the fork runner is not trusted)."""
        if self.runner == "subprocess":
            return
        self._stop_workers()
        self.runner = "subprocess"
        self._ensure_workers(1)

    def interrupt(self) -> None:
        """Kill the orders running now (from another thread); their results are marked
        interrupted, and the workers stay ready for the next order."""
        for worker in list(self._workers):
            worker.interrupt()

    def progress(self) -> Optional[Progress]:
        """How far the order the first worker runs now got (None when it runs none)."""
        workers = list(self._workers)
        return workers[0].progress() if workers else None

    def block(self) -> None:
        """Kill the orders running now and every order started until :meth:`unblock`
        (from another thread: a worker's thread may be about to start one)."""
        for worker in list(self._workers):
            worker.block()

    def unblock(self) -> None:
        for worker in list(self._workers):
            worker.unblock()

    @property
    def running(self) -> bool:
        """Whether test processes of this engine are up (a fork server holds what the
        suite set up at import: an open port, say)."""
        return bool(self._workers)

    def release(self) -> None:
        """Stop the workers and their test processes; the next order starts them again
        (the suite collected stays the reference)."""
        self._stop_workers()

    def close(self, kill: bool = False) -> None:
        """Stop the workers (``kill``: at once, as when unwinding) and remove their
        working copies."""
        self._stop_workers(kill)
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    # -- running ---------------------------------------------------------------------
    def check(self, order: Sequence[str]) -> None:
        """Raise :class:`UnknownTestsError` if ``order`` names tests the suite lacks."""
        self.suite.require(order)

    def offer(self, result: OrderResult) -> None:
        """An order already run (by the fork check before an analysis): the next request
        for the same order without a probe takes it, and records it, instead of running
        it again."""
        from orderdep.engine.store import order_key

        with self._lock:
            self._offered[order_key(result.order)] = result

    def _take_offer(
        self, order: Sequence[str], probe: Optional[ProbeSpec]
    ) -> Optional[OrderResult]:
        if probe is not None or not self._offered:
            return None
        from orderdep.engine.store import order_key

        key = order_key(order)
        with self._lock:
            offered = self._offered.pop(key, None)
            if offered is not None:
                self._requested[key] += 1
        return offered

    def _reuse(self, order: Sequence[str], probe: Optional[ProbeSpec]) -> Optional[OrderResult]:
        if self.store is None or self.job is None or probe is not None:
            return None
        from orderdep.engine.store import order_key

        key = order_key(order)
        with self._lock:
            nth = self._requested[key]
            self._requested[key] += 1
        earlier = self.store.job_runs(self.job, order)
        if nth < len(earlier):
            self.reused += 1
            return earlier[nth]
        return None

    def _record(self, result: OrderResult, probe: Optional[ProbeSpec]) -> None:
        with self._lock:
            self.orders_run += 1
            self.executions += len(result.order)
        if self.store is not None:
            self.store.record(
                result, job=self.job, seed=self.seed, probe=probe.module if probe else None
            )

    def _run_on(
        self, worker: Worker, order: Sequence[str], probe: Optional[ProbeSpec]
    ) -> OrderResult:
        offered = self._take_offer(order, probe)
        if offered is not None:
            self._record(offered, probe)
            return offered
        reused = self._reuse(order, probe)
        if reused is not None:
            self.timeouts.learn(reused.results)
            return reused
        deadline.check()  # a command's budget that ended (runs_until)
        result = worker.run(order, probe)
        if result.interrupted and deadline.passed():  # killed when the budget ended
            raise OutOfTime("the budget ended: the order running then was stopped")
        self.id_notices.add(worker.ids)
        self.timeouts.learn(result.results)
        self._record(result, probe)
        return result

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        self.check(order)
        self._ensure_workers(1)  # released ones start again
        return self._run_on(self._workers[0], order, probe)

    def run_many(
        self,
        orders: Sequence[Sequence[str]],
        *,
        probe: Optional[ProbeSpec] = None,
        on_result: Optional[ResultCallback] = None,
    ) -> list[OrderResult]:
        """Run every order (in parallel over ``jobs`` workers); results in input order."""
        for order in orders:
            self.check(order)
        if not orders:
            return []
        jobs = min(self.config.jobs, len(orders))
        self._ensure_workers(jobs)
        results: list[Optional[OrderResult]] = [None] * len(orders)
        if jobs == 1:
            for i, order in enumerate(orders):
                results[i] = self._run_on(self._workers[0], order, probe)
                if on_result is not None:
                    on_result(i, results[i])  # type: ignore[arg-type]
            return [r for r in results if r is not None]
        todo: queue.Queue[int] = queue.Queue()
        for i in range(len(orders)):
            todo.put(i)
        done: queue.Queue[tuple[int, Optional[OrderResult], Optional[BaseException]]] = (
            queue.Queue()
        )
        stop = threading.Event()

        def work(worker: Worker) -> None:
            while not stop.is_set():
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    done.put((i, self._run_on(worker, orders[i], probe), None))
                except BaseException as exc:  # delivered to the caller's thread
                    done.put((i, None, exc))
                    return

        threads = [
            threading.Thread(target=work, args=(w,), daemon=True) for w in self._workers[:jobs]
        ]
        for t in threads:
            t.start()
        try:
            for _ in range(len(orders)):
                i, res, exc = done.get()
                if exc is not None:
                    raise exc
                results[i] = res
                if on_result is not None and res is not None:
                    on_result(i, res)
        except BaseException:
            stop.set()
            workers = self._workers[:jobs]
            for worker in workers:
                worker.block()
            try:  # their threads must not outlive this call: close() comes next
                for t in threads:
                    t.join(timeout=STOP_WAIT)
            finally:
                for worker in workers:
                    worker.unblock()
            raise
        finally:
            stop.set()
        for t in threads:
            t.join()
        return [r for r in results if r is not None]
