"""Dask benchmark: the overhead per order, and the orders a budget buys with more workers.

Usage: python benchmarks/bench_dask.py [--tests 200] [--orders 16] [--rounds 3]
                                       [--budgets 300,600] [--no-doc]
Writes the section "Dask: overhead per order and scaling" of docs/benchmarks.md.

On one generated suite (``orderdep.synth``), the same orders run, in alternating rounds,
on the local fork-server engine (``--jobs 1`` and ``--jobs 2``) and on a ``DaskEngine``
over a ``LocalCluster`` of 1 and of 2 single-threaded worker processes (the path of
``--dask ADDRESS``: the project shipped to the workers, each order a task). Two shapes:
whole-suite random orders (what a search runs) and 2-test orders (what confirmation and
classification run). The median round of each is kept.

*Overhead per order* is (Dask - local) / orders at the same parallelism. The cluster's
start and the shipping of the project are measured apart, once.

*Scaling* is simulated, since this machine has 2 cores: the part of a Dask run that does
not parallelize, ``f``, is read off the measured speed-up from 1 to 2 workers (Amdahl:
``1/S2 = f + (1 - f)/2``), and ``W`` workers then run ``1 / (f + (1 - f)/W)`` times the
orders of one worker. On 2 cores the client and scheduler share the CPUs with the two
workers, so ``f`` is an upper bound and the simulated figures a lower bound.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchdoc import table, write_section  # noqa: E402

from orderdep.engine.config import EngineConfig  # noqa: E402
from orderdep.engine.runner import Engine  # noqa: E402
from orderdep.synth.generate import generate_suite  # noqa: E402

SECTION = "Dask: overhead per order and scaling"
WORKERS = (1, 2, 4, 8, 16, 32, 64)

Orders = list[list[str]]


def order_sets(ids: Sequence[str], count: int, seed: int) -> dict[str, Orders]:
    rng = random.Random(seed)
    whole = [rng.sample(list(ids), len(ids)) for _ in range(count)]
    pairs = [rng.sample(list(ids), 2) for _ in range(count * 4)]
    return {"whole suite": whole, "2 tests": pairs}


def timed(run: Callable[[Orders], Any], orders: Orders) -> float:
    start = time.perf_counter()
    results = run(orders)
    took = time.perf_counter() - start
    assert len(results) == len(orders), "every order must come back"
    return took


def amdahl_serial(speedup: float) -> float:
    """The serial fraction ``f`` that a speed-up ``speedup`` on 2 workers implies."""
    return min(1.0, max(0.0, 2.0 / speedup - 1.0)) if speedup > 0 else 1.0


def scaled(f: float, workers: int) -> float:
    return 1.0 / (f + (1.0 - f) / workers)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tests", type=int, default=200)
    p.add_argument("--orders", type=int, default=16)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--budgets", default="300,600")
    p.add_argument("--no-doc", action="store_true")
    opts = p.parse_args(argv)
    from distributed import Client, LocalCluster

    from orderdep.engine.dask_executor import DaskEngine

    budgets = [float(b) for b in opts.budgets.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-dask-") as tmp:
        root = Path(tmp) / "suite"
        generate_suite(root, n_tests=opts.tests, seed=opts.seed)
        engines: dict[str, Any] = {}
        setup: dict[str, float] = {}
        clusters = []
        for jobs in (1, 2):
            engines[f"local --jobs {jobs}"] = Engine(EngineConfig(root, jobs=jobs)).__enter__()
        for n in (1, 2):
            start = time.perf_counter()
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True)
            client = Client(cluster, set_as_default=False)
            engine = DaskEngine(EngineConfig(root, jobs=n), client)
            assert engine.suite.ids  # collected on a worker from the shipped copy
            setup[f"dask, {n} worker(s)"] = time.perf_counter() - start
            engines[f"dask, {n} worker(s)"] = engine
            clusters.append((cluster, client))
        ids = engines["local --jobs 1"].suite.ids
        shapes = order_sets(ids, opts.orders, opts.seed)
        for engine in engines.values():  # warm up: every worker started, nothing timed
            engine.run_many(shapes["2 tests"][:4])
        walls: dict[tuple[str, str], list[float]] = {}
        for _ in range(opts.rounds):
            for shape, orders in shapes.items():
                for name, engine in engines.items():
                    walls.setdefault((shape, name), []).append(timed(engine.run_many, orders))
        for engine in engines.values():
            engine.close()
        for cluster, client in clusters:
            client.close()
            cluster.close()
    median = {k: statistics.median(v) for k, v in walls.items()}
    rows = []
    for shape, orders in shapes.items():
        n = len(orders)
        for name in engines:
            rows.append([shape, name, n, f"{median[(shape, name)]:.2f}",
                         f"{median[(shape, name)] / n * 1000:.0f}"])  # fmt: skip
    over = []
    fractions = {}
    for shape, orders in shapes.items():
        n = len(orders)
        one = median[(shape, "dask, 1 worker(s)")]
        two = median[(shape, "dask, 2 worker(s)")]
        for jobs in (1, 2):
            local = median[(shape, f"local --jobs {jobs}")]
            dask = median[(shape, f"dask, {jobs} worker(s)")]
            over.append([shape, jobs, f"{(dask - local) / n * 1000:.0f}", f"{dask / local:.2f}"])
        fractions[shape] = (amdahl_serial(one / two), one / n)
    sim = []
    for shape, (f, per_order) in fractions.items():
        for budget in budgets:
            sim.append([shape, f"{budget:g}", f"{f:.2f}",
                        *(f"{budget / per_order * scaled(f, w):.0f}" for w in WORKERS)])  # fmt: skip
    body = "\n\n".join(
        [
            f"One generated suite of {opts.tests} tests (seed {opts.seed}); {opts.rounds} "
            "alternating rounds, median kept.",
            table(["orders", "engine", "count", "wall (s)", "ms per order"], rows),
            "Overhead of Dask per order (same parallelism):",
            table(["orders", "workers / jobs", "overhead (ms per order)", "Dask / local"], over),
            "Start-up, once per command: "
            + ", ".join(f"{k}: {v:.1f} s" for k, v in setup.items())
            + " (cluster start, project shipped, suite collected on a worker).",
            "Orders a budget buys with W workers (simulated from the 1- and 2-worker runs "
            "above; f is the serial fraction they imply):",
            table(["orders", "budget (s)", "f", *(f"W={w}" for w in WORKERS)], sim),
        ]
    )
    print(body)
    if not opts.no_doc:
        write_section(SECTION, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
