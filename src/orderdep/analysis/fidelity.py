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
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional

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


def trust_fork(
    engine: Engine, cache: VerdictCache, notice: Callable[[str], None]
) -> Optional[FidelityReport]:
    """The cheap check before an analysis relies on ``engine``'s fork runner.

    Runs the original order, and each test that failed in it alone, under the fork
    runner and plain pytest. When they disagree, says so in one line and switches the
    engine to the subprocess runner. Returns the verdict (None when nothing was checked).
    """
    if engine.runner != "fork":
        return None
    key = config_key(engine.config)
    report = cache.get(key)
    if report is None:
        # Not recorded: runs of a runner that may not be trusted are no evidence.
        with make_workdir() as tmp, engine.unrecorded():
            plain = PlainRunner(engine.config, Path(tmp) / "plain")
            plain.policy = engine.timeouts
            try:
                report = FidelityReport(["fork", "plain"], planned=1)
                ids = engine.suite.ids
                original = {"fork": engine.run(ids), "plain": plain.run(ids)}
                report.add(SampleOrder("original", tuple(ids)), original)
                failing: list[str] = []
                for result in original.values():
                    failing += [r.test for r in result.results if r.outcome.is_failure]
                alone = [SampleOrder("alone", (t,)) for t in dict.fromkeys(failing)]
                for sample in alone[:QUICK_SINGLES]:
                    report.planned += 1
                    report.add(
                        sample, {"fork": engine.run(sample.order), "plain": plain.run(sample.order)}
                    )
            finally:
                plain.close()
        cache.put(key, report)
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
