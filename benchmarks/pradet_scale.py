"""PRADET at scale (``python benchmarks/bench_pradet.py --scale 2000``).

On a generated suite of each size (``SuitePlan.for_size(n)``, seed 7), side by side in
one run: the suite run as a user runs it, ``python -m pytest`` (median of 3), and its
original order through the engine (fork runner, median of 3), then all of
PRADET (collect the original and reversed orders, refine, confirm, alternatives, search,
non-determinism screen) three ways: one data dependency per schedule (the paper's way),
many per schedule where they cannot interfere (``orderdep.analysis.pradet.schedules``)
with ``--jobs 1``, and the same with ``--jobs 2``. Phases are timed from PRADET's own
progress notices: collection, refinement, and the checks after it ("confirmations").

Target: PRADET within 3x the plain run (``python -m pytest``) plus its confirmations,
i.e. collection + refinement within 3x the plain run. Writes the section "PRADET at
scale".
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchdoc import table, write_section

from orderdep.analysis.pradet.pipeline import collect, findings, refine_collected
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.synth.truth import GroundTruth

TARGET = 3.0
Pair = tuple[str, str]


@dataclass
class Measured:
    label: str
    collect: float
    refine: float
    checks: float
    data_deps: int
    schedules: int
    refine_executions: int
    executions: int
    manifest: int
    found: set[Pair]

    @property
    def total(self) -> float:
        return self.collect + self.refine + self.checks


def _pairs(truth: GroundTruth) -> set[Pair]:
    out: set[Pair] = set()
    for spec in truth.specs:
        groups = spec.polluter_groups + spec.state_setter_groups
        for dependee in [*spec.polluters, *spec.state_setters, *(t for g in groups for t in g)]:
            out.add((spec.test, dependee))
    return out


def pytest_seconds(root: Path) -> float:
    """Wall time of ``python -m pytest`` on the suite (median of 3, after a warm-up)."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
    times = []
    for _ in range(4):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=root, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


def plain_seconds(root: Path) -> float:
    with Engine(EngineConfig(root)) as engine:
        order = engine.suite.ids
        engine.run(order)  # warm-up: pyc files, page cache
        return statistics.median(engine.run(order).wall_seconds for _ in range(3))


def measure(root: Path, label: str, *, batch: bool, jobs: int) -> Measured:
    stamps: list[tuple[float, str]] = []
    with Engine(EngineConfig(root, jobs=jobs)) as engine:
        _ = engine.suite  # start the workers' servers before timing
        if jobs > 1:
            engine.run_many([[engine.suite.ids[0]]] * jobs)
        t0 = time.perf_counter()
        collected = collect(engine, project=str(root), jobs=jobs)
        t1 = time.perf_counter()
        result = refine_collected(
            engine,
            collected,
            jobs=jobs,
            batch=batch,
            notice=lambda m: stamps.append((time.perf_counter(), m)),
        )
        t2 = time.perf_counter()
    refined_until = next((t for t, m in stamps if not m.startswith("refining")), t2)
    found: set[Pair] = set()
    for f in findings(result):
        groups = f.polluter_groups + f.state_setter_groups
        for dependee in [*f.polluters, *f.state_setters, *(t for g in groups for t in g)]:
            found.add((f.test, dependee))
    return Measured(
        label=label,
        collect=t1 - t0,
        refine=refined_until - t1,
        checks=t2 - refined_until,
        data_deps=result.refined.data_dependencies,
        schedules=result.refined.orders_run,
        refine_executions=result.refined.executions,
        executions=result.executions["total"],
        manifest=len(result.manifest),
        found=found,
    )


def run_scale(base: Path, sizes: list[int], make_suite: object, write: bool) -> str:
    rows = []
    notes = []
    for n in sizes:
        root = base / f"scale{n}"
        truth: GroundTruth = make_suite(root, n)  # type: ignore[operator]
        planted = _pairs(truth)
        print(f"PRADET at scale: {n} tests, {len(truth.specs)} OD tests planted", flush=True)
        plain = pytest_seconds(root)
        engine_run = plain_seconds(root)
        print(f"  python -m pytest {plain:.2f}s, engine run {engine_run:.2f}s", flush=True)
        runs = [
            measure(root, "one per schedule, jobs 1", batch=False, jobs=1),
            measure(root, "many per schedule, jobs 1", batch=True, jobs=1),
            measure(root, "many per schedule, jobs 2", batch=True, jobs=2),
        ]
        for m in runs:
            ratio = (m.collect + m.refine) / plain
            per_run = (m.collect + m.refine) / engine_run
            bound = TARGET * plain + m.checks
            print(f"  {m.label}: {m.total:.1f}s, ratio {ratio:.2f}", flush=True)
            rows.append(
                [
                    n,
                    m.label,
                    f"{plain:.2f}",
                    f"{engine_run:.2f}",
                    f"{m.collect:.1f}",
                    f"{m.refine:.1f}",
                    f"{m.checks:.1f}",
                    f"{m.total:.1f}",
                    f"{ratio:.1f}x",
                    f"{per_run:.1f}x",
                    f"{bound:.1f}",
                    "met" if m.total <= bound else "not met",
                    m.data_deps,
                    m.schedules,
                    m.refine_executions,
                    m.executions,
                    f"{len(m.found & planted)}/{len(planted)}",
                    "yes" if m.found == runs[0].found else "no",
                ]
            )
        notes.append(
            f"{n} tests: refinement {runs[0].refine:.1f}s -> {runs[1].refine:.1f}s "
            f"({runs[0].schedules} -> {runs[1].schedules} orders) at jobs 1"
        )
    env = os.environ.get("PYTEST_ADDOPTS")
    body = "\n\n".join(
        [
            __doc__.split("\n\n", 1)[1].split("\n\nTarget")[0].replace("\n", " "),
            f"Target: PRADET within {TARGET:g}x the plain run (`python -m pytest`) plus "
            f"its confirmations, i.e. collection + refinement within {TARGET:g}x it.",
            *([f"Environment: `PYTEST_ADDOPTS={env}`."] if env else []),
            table(
                [
                    "tests",
                    "refinement",
                    "python -m pytest (s)",
                    "engine run (s)",
                    "collection (s)",
                    "refinement (s)",
                    "confirmations (s)",
                    "PRADET (s)",
                    "(collection + refinement) / pytest",
                    "(collection + refinement) / engine run",
                    "bound: 3x pytest + confirmations (s)",
                    "target",
                    "data deps",
                    "refinement orders",
                    "refinement executions",
                    "executions",
                    "planted pairs found",
                    "same findings as one per schedule",
                ],
                rows,
            ),
            "\n".join(f"- {line}" for line in notes),
        ]
    )
    if write:
        write_section("PRADET at scale", body)
    return body
