"""Engine benchmark: fork vs subprocess per 2-test order, a full-suite order vs plain pytest,
and orders per second with --jobs 2.

Usage: python benchmarks/bench_engine.py [--tests 500] [--orders 30]
Writes the section "Engine" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section

from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.synth.generate import generate_suite

TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int) -> float:
    """CPU seconds of process ``pid`` and its reaped children (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime + cutime + cstime) / TICK


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def pair_orders(ids: list[str], n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [rng.sample(ids, 2) for _ in range(n)]


def bench_pairs(project: Path, runner: str, orders: list[list[str]]) -> tuple[float, float]:
    """Mean wall and CPU seconds per 2-test order (server start-up excluded)."""
    with Engine(EngineConfig(project, runner=runner)) as engine:
        engine.run(orders[0])  # start the worker
        worker = engine._workers[0]
        server = getattr(worker, "_proc", None)
        cpu0 = time.process_time() + children_cpu() + (proc_cpu(server.pid) if server else 0)
        t0 = time.perf_counter()
        for order in orders:
            engine.run(order)
        wall = time.perf_counter() - t0
        cpu1 = time.process_time() + children_cpu() + (proc_cpu(server.pid) if server else 0)
    return wall / len(orders), (cpu1 - cpu0) / len(orders)


def bench_full(project: Path, ids: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"],
        cwd=project,
        capture_output=True,
        check=False,
    )
    out["plain pytest"] = time.perf_counter() - t0
    for runner in ("fork", "subprocess"):
        t0 = time.perf_counter()
        with Engine(EngineConfig(project, runner=runner)) as engine:
            t1 = time.perf_counter()
            _ = engine.suite
            t2 = time.perf_counter()
            engine.run(ids)
            t3 = time.perf_counter()
        if runner == "fork":
            out["fork: start-up + order"] = t3 - t0
            out["fork: order only"] = t3 - t2
        else:
            out["subprocess: order"] = t3 - t2
        del t1
    return out


def bench_jobs(project: Path, orders: list[list[str]]) -> dict[int, float]:
    rates = {}
    for jobs in (1, 2):
        with Engine(EngineConfig(project, runner="fork", jobs=jobs)) as engine:
            engine.run_many(orders[:jobs])  # start the workers
            t0 = time.perf_counter()
            engine.run_many(orders)
            rates[jobs] = len(orders) / (time.perf_counter() - t0)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=500)
    parser.add_argument("--orders", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "suite"
        truth = generate_suite(project, n_tests=args.tests, seed=1)
        ids = truth.tests
        orders = pair_orders(ids, args.orders, seed=2)
        sub_wall, sub_cpu = bench_pairs(project, "subprocess", orders[:10])
        fork_wall, fork_cpu = bench_pairs(project, "fork", orders)
        full = bench_full(project, ids)
        many = pair_orders(ids, 400, seed=3)
        rates = bench_jobs(project, many)
    body = [
        f"Generated suite: {len(ids)} tests (`orderdep.synth.generate.generate_suite`, seed 1). "
        f"PYTEST_ADDOPTS={os.environ.get('PYTEST_ADDOPTS', '')!r} (hypothesis' pytest plugin, "
        "when installed, adds about 0.5-1 s to every fresh pytest process; the subprocess "
        "runner pays it per order, the fork runner once per worker).",
        "",
        "### 2-test orders (mean per order, server start-up excluded)",
        "",
        table(
            ["runner", "wall ms", "CPU ms", "orders"],
            [
                ["subprocess", f"{sub_wall * 1000:.1f}", f"{sub_cpu * 1000:.1f}", 10],
                ["fork", f"{fork_wall * 1000:.2f}", f"{fork_cpu * 1000:.2f}", len(orders)],
            ],
        ),
        "",
        f"**fork is {sub_wall / fork_wall:.0f}x cheaper in wall time and "
        f"{sub_cpu / max(fork_cpu, 1e-9):.0f}x in CPU per 2-test order** (target: 100x wall).",
        "",
        "### One order of the whole suite vs plain `python -m pytest`",
        "",
        table(
            ["run", "wall s", "ratio to plain pytest"],
            [[k, f"{v:.2f}", f"{v / full['plain pytest']:.2f}x"] for k, v in full.items()],
        ),
        "",
        "Target: within 1.1x of plain pytest.",
        "",
        "### Throughput of 400 2-test orders (fork runner)",
        "",
        table(["jobs", "orders/s"], [[j, f"{r:.1f}"] for j, r in rates.items()]),
        "",
        f"Speed-up with --jobs 2: {rates[2] / rates[1]:.2f}x (2 cores).",
    ]
    write_section("Engine", "\n".join(body))
    print("\n".join(body))


if __name__ == "__main__":
    main()
