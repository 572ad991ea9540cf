"""Checking that the fork runner behaves like a fresh ``python -m pytest`` on a project.

:func:`check` runs a sample of orders (see :func:`orderdep.core.fidelity.sample_orders`)
under the fork runner, the subprocess runner and plain pytest, and lists every position
where they disagree. :func:`trust_fork` is the cheap version the analysing commands run
before they rely on the fork runner for a project: the original order, and each test
that failed in it run alone, under fork and plain pytest; verdicts are cached per code
version, so a project is checked once until its code changes.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional

from orderdep.analysis.budget import Budget, BudgetExhausted
from orderdep.core.fidelity import FidelityReport, SampleOrder, sample_orders
from orderdep.core.outcomes import OrderResult
from orderdep.engine.config import EngineConfig
from orderdep.engine.plain import PlainRunner
from orderdep.engine.runner import Engine
from orderdep.engine.store import code_key
from orderdep.engine.tempdirs import make_workdir

RunOrder = Callable[[Sequence[str]], OrderResult]
Progress = Callable[[str], None]
CACHE_NAME = "fidelity.json"
QUICK_SINGLES = 5
# Seconds between two lines saying the check is still running.
HEARTBEAT = 15.0
# Seconds to wait for killed runs to report back.
STOP_WAIT = 30.0


def config_key(config: EngineConfig) -> str:
    """The code version and every setting that changes what a test process sees."""
    data = [
        code_key(config.project),
        config.python,
        config.rootdir,
        list(config.pythonpath),
        list(config.pytest_args),
        config.home,
    ]
    return hashlib.sha1(json.dumps(data).encode()).hexdigest()[:16]


class VerdictCache:
    """Verdicts by :func:`config_key`, in a JSON file beside the results store."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, dict[str, object]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, key: str) -> Optional[FidelityReport]:
        entry = self._read().get(key)
        if not isinstance(entry, dict):
            return None
        try:
            return FidelityReport.from_json(entry)
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, key: str, report: FidelityReport) -> None:
        data = self._read()
        data[key] = report.to_json()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
            tmp.replace(self.path)
        except OSError:
            pass  # a verdict that cannot be cached is checked again next time


def _side_by_side(
    engine: Engine,
    plain: PlainRunner,
    order: Sequence[str],
    notice: Callable[[str], None],
    budget: Optional[Budget] = None,
) -> dict[str, OrderResult]:
    """``order`` under the fork runner and plain pytest: at once when ``--jobs`` is 2 or
    more, one after the other otherwise; a line every :data:`HEARTBEAT` seconds while
    they run. When ``budget`` runs out (or on Ctrl-C with a budget), both runs are killed
    and :class:`~orderdep.analysis.budget.BudgetExhausted` is raised; on Ctrl-C without a
    budget (or any error) both runs are killed, and their threads have ended, before the
    exception goes on."""
    if budget is not None:
        budget.check()
    runs: dict[str, Callable[[], OrderResult]] = {
        "fork": lambda: engine.run(order),
        "plain": lambda: plain.run(order),
    }
    results: dict[str, OrderResult] = {}
    started = last = time.monotonic()
    pool = ThreadPoolExecutor(max_workers=min(2, max(1, engine.config.jobs)))

    def stop_runs() -> None:
        # Kill both runs (also one whose thread is only starting it) and wait for their
        # threads: the caller removes their working copies next.
        pool.shutdown(wait=False, cancel_futures=True)
        engine.block()
        plain.block()
        try:
            # A future cancelled before it started is never "done" for wait().
            wait([f for f in futures.values() if not f.cancelled()], timeout=STOP_WAIT)
        finally:
            engine.unblock()
            plain.unblock()

    futures: dict[str, Future[OrderResult]] = {}
    try:
        for name, run in runs.items():
            futures[name] = pool.submit(run)
        while True:
            left = None if budget is None else budget.left()
            if left == 0:
                assert budget is not None
                budget.stop("budget")
                stop_runs()
                budget.check()
            timeout = HEARTBEAT if left is None else min(HEARTBEAT, left)
            done, pending = wait(futures.values(), timeout=timeout)
            for future in done:
                future.result()  # an engine error is raised here, in the caller's thread
            if not pending:
                break
            if time.monotonic() - last >= HEARTBEAT * 0.99:
                last = time.monotonic()
                running = [name for name, f in futures.items() if f in pending]
                notice(
                    f"orderdep: checking the fork runner: {' and '.join(running)} still "
                    f"running ({last - started:.0f} s)"
                )
        for name, future in futures.items():
            results[name] = future.result()
    except KeyboardInterrupt as exc:
        stop_runs()
        if budget is None:
            raise
        budget.interrupted(exc)  # the command writes its report, then stops
        raise BudgetExhausted("interrupted") from None
    except BaseException:
        stop_runs()
        raise
    pool.shutdown()
    return results


def run_sample(
    samples: Sequence[SampleOrder],
    runners: dict[str, RunOrder],
    *,
    deadline: Optional[float] = None,
    progress: Optional[Progress] = None,
) -> FidelityReport:
    """Run every sample order under every runner (until ``deadline``) and compare."""
    report = FidelityReport(list(runners), planned=len(samples))
    for n, sample in enumerate(samples, 1):
        if deadline is not None and time.monotonic() >= deadline:
            break
        if progress is not None:
            progress(f"[{n}/{len(samples)}] {sample.label}: {len(sample.order)} test(s)")
        results = {name: run(sample.order) for name, run in runners.items()}
        for m in report.add(sample, results):
            if progress is not None:
                shown = ", ".join(f"{k} {v}" for k, v in m.outcomes.items())
                progress(f"  mismatch at position {m.position} ({m.test}): {shown}")
    return report


def check(
    config: EngineConfig,
    *,
    seed: int,
    budget: Optional[float] = None,
    random_orders: int = 5,
    singles: int = 20,
    progress: Optional[Progress] = None,
) -> FidelityReport:
    """Compare the fork and subprocess runners with plain pytest on a sample of orders."""
    deadline = None if budget is None else time.monotonic() + budget
    fork_config = replace(config, runner="fork", jobs=1)
    sub_config = replace(config, runner="subprocess", jobs=1)
    with (
        make_workdir() as tmp,
        Engine(fork_config) as fork,
        Engine(sub_config) as sub,
    ):
        plain = PlainRunner(config, Path(tmp) / "plain")
        # One set of learned time limits: a hang costs its first-run limit once.
        sub.timeouts = plain.policy = fork.timeouts
        try:
            samples = sample_orders(
                fork.suite.ids, seed=seed, random_orders=random_orders, singles=singles
            )
            runners: dict[str, RunOrder] = {
                "fork": lambda o: fork.run(o),
                "subprocess": lambda o: sub.run(o),
                "plain": plain.run,
            }
            if fork.runner != "fork":  # it could not fork: nothing of its own to compare
                del runners["fork"]
            return run_sample(samples, runners, deadline=deadline, progress=progress)
        finally:
            plain.close()


def _unchecked(reason: str, tests: int, budget: Optional[Budget]) -> str:
    """What the user reads when the check stopped before its verdict."""
    if reason == "interrupted":
        return "orderdep: interrupted while checking the fork runner; nothing was checked"
    seconds = f" {budget.seconds:g}" if budget is not None and budget.seconds else ""
    return (
        f"orderdep: the budget ran out while checking the fork runner against a fresh "
        f"pytest (the original order of {tests} tests, then failing tests alone), before "
        f"its verdict: nothing was cached or searched. Rerun with a larger --budget (now"
        f"{seconds} s), or with --no-check to use the fork runner unchecked"
    )


def trust_fork(
    engine: Engine,
    cache: VerdictCache,
    notice: Callable[[str], None],
    budget: Optional[Budget] = None,
) -> Optional[FidelityReport]:
    """The cheap check before an analysis relies on ``engine``'s fork runner.

    Runs the original order, and each test that failed in it alone, under the fork
    runner and plain pytest (side by side when ``--jobs`` allows two processes). When they
    disagree, says so in one line and switches the engine to the subprocess runner. When
    they agree, the fork runner's original order is offered to the engine, so the
    analysis that follows does not run it again. Returns the verdict (None when nothing
    was checked).

    With ``budget`` (the command's ``--budget``), the check is part of it: when the budget
    runs out (or Ctrl-C) before the check ends, its runs are killed, nothing is cached,
    the budget is marked stopped (so the analysis writes its report at once) and None is
    returned.
    """
    if engine.runner != "fork":
        return None
    key = config_key(engine.config)
    report = cache.get(key)
    kept: Optional[OrderResult] = None
    if report is None:
        ids = engine.suite.ids
        notice(
            f"orderdep: checking the fork runner against a fresh pytest on the original "
            f"order ({len(ids)} tests; once per code version)"
        )
        # Not recorded: runs of a runner that may not be trusted are no evidence.
        with make_workdir() as tmp, engine.unrecorded():
            plain = PlainRunner(engine.config, Path(tmp) / "plain")
            plain.policy = engine.timeouts
            try:
                report = FidelityReport(["fork", "plain"], planned=1)
                original = _side_by_side(engine, plain, ids, notice, budget)
                report.add(SampleOrder("original", tuple(ids)), original)
                failing: list[str] = []
                for result in original.values():
                    failing += [r.test for r in result.results if r.outcome.is_failure]
                alone = [SampleOrder("alone", (t,)) for t in dict.fromkeys(failing)]
                if alone:
                    notice(
                        f"orderdep: checking the fork runner: "
                        f"{min(len(alone), QUICK_SINGLES)} failing test(s) alone"
                    )
                for sample in alone[:QUICK_SINGLES]:
                    report.planned += 1
                    report.add(sample, _side_by_side(engine, plain, sample.order, notice, budget))
                kept = original["fork"]
            except BudgetExhausted as stop:
                notice(_unchecked(stop.reason, len(ids), budget))
                return None
            finally:
                plain.close()
        cache.put(key, report)
        if report.faithful and kept is not None:
            engine.offer(kept)
    if not report.faithful:
        m = report.mismatches[0]
        more = f" (and {len(report.mismatches) - 1} more)" if len(report.mismatches) > 1 else ""
        notice(
            f"orderdep: the fork runner and a fresh pytest disagree on {m.test} "
            f"({m.label}: fork {m.outcomes.get('fork')}, pytest {m.outcomes.get('plain')})"
            f"{more}; using the subprocess runner (see `orderdep doctor`)"
        )
        engine.use_subprocess()
    return report
