"""Engine benchmark: fork vs subprocess per 2-test order, a full-suite order vs plain pytest,
and orders per second with --jobs 2.

Usage: python benchmarks/bench_engine.py [--tests 500] [--orders 200] [--no-minimal]
Writes the section "Engine" of docs/benchmarks.md.

A fresh pytest process costs what its installed plugins cost to load, so the ratio of the
two runners depends on the environment. The 2-test orders are measured, side by side, in
each of these environments:

- this interpreter with every plugin it has installed (``pip install -e '.[test]'``
  brings hypothesis, xdist, randomly, random-order, testmon);
- the same with hypothesis' pytest plugin switched off (its start-up is the largest);
- a minimal venv with only orderdep and pytest (made at ``/tmp/orderdep-bench-minimal``
  when missing; ``--no-minimal`` skips it).

Each environment also runs the same orders through a brute-force fork runner
(``benchmarks/bruteforce_fork.py``: fork, run the items, exit; no isolation at all) as a
yardstick for the fork backend.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchdoc import table, write_section  # noqa: E402

from orderdep.engine.config import EngineConfig  # noqa: E402
from orderdep.engine.runner import Engine  # noqa: E402
from orderdep.synth.generate import generate_suite  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
MINIMAL_VENV = Path("/tmp/orderdep-bench-minimal")


@dataclass
class Env:
    label: str
    python: str
    addopts: str


@dataclass
class PairCosts:
    env: Env
    sub_wall: float
    sub_cpu: float
    fork_wall: float
    fork_cpu: float
    brute_wall: Optional[float]


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


def use_addopts(addopts: str) -> None:
    os.environ["PYTEST_ADDOPTS"] = addopts


def bench_pairs(
    project: Path, env: Env, runner: str, orders: list[list[str]]
) -> tuple[float, float]:
    """Mean wall and CPU seconds per 2-test order (server start-up excluded)."""
    use_addopts(env.addopts)
    with Engine(EngineConfig(project, runner=runner, python=env.python)) as engine:
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


def bench_bruteforce(project: Path, env: Env, orders: list[list[str]], tmp: Path) -> float:
    """Mean wall seconds per order of the brute-force fork runner (collection excluded)."""
    orders_file, out_file = tmp / "bf-orders.json", tmp / "bf-out.json"
    orders_file.write_text(json.dumps(orders))
    out_file.unlink(missing_ok=True)
    child_env = {
        **os.environ,
        "PYTEST_ADDOPTS": env.addopts,
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
        "BRUTEFORCE_ORDERS": str(orders_file),
        "BRUTEFORCE_OUT": str(out_file),
    }
    cmd = [env.python, "-m", "pytest", "-q", "-p", "bruteforce_fork"]
    cmd += ["-p", "no:randomly", "-p", "no:random_order", "-p", "no:cacheprovider"]
    subprocess.run(cmd, cwd=project, env=child_env, stdout=subprocess.DEVNULL, check=False)
    wall: float = json.loads(out_file.read_text())["wall"]
    return wall


def add_assets(project: Path, dirs: int = 100, files: int = 50) -> int:
    """Give the project ``dirs * files`` small data files (like fixtures, templates)."""
    for d in range(dirs):
        folder = project / "assets" / f"set{d}"
        folder.mkdir(parents=True)
        for f in range(files):
            (folder / f"item{f}.json").write_text("{}")
    return dirs * files


def bench_big_tree(project: Path, orders: list[list[str]]) -> dict[str, float]:
    """Wall per 2-test order in a project with many files: inotify vs a walk per order."""
    from orderdep.engine import treewatch

    out: dict[str, float] = {}
    real_start = treewatch.TreeWatch.start
    for label, start in (("inotify", real_start), ("walk", None)):
        if start is None:
            treewatch.TreeWatch.start = classmethod(lambda cls, *a: None)  # type: ignore[assignment]
        try:
            with Engine(EngineConfig(project, runner="fork")) as engine:
                engine.run(orders[0])
                t0 = time.perf_counter()
                for order in orders:
                    engine.run(order)
                out[label] = (time.perf_counter() - t0) / len(orders)
        finally:
            treewatch.TreeWatch.start = real_start  # type: ignore[method-assign]
    return out


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
            _ = engine.suite
            t2 = time.perf_counter()
            engine.run(ids)
            t3 = time.perf_counter()
        if runner == "fork":
            out["fork: start-up + order"] = t3 - t0
            out["fork: order only"] = t3 - t2
        else:
            out["subprocess: order"] = t3 - t2
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


def minimal_python(repo: Path) -> Optional[str]:
    """A venv with only orderdep (this checkout) and pytest; made when missing."""
    python = MINIMAL_VENV / "bin" / "python"
    check = [str(python), "-c", "import orderdep, pytest"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return str(python)
    print(f"creating {MINIMAL_VENV} (orderdep and pytest only)", flush=True)
    for step in (
        [sys.executable, "-m", "venv", "--clear", str(MINIMAL_VENV)],
        [str(python), "-m", "pip", "install", "-q", "-e", str(repo)],
    ):
        proc = subprocess.run(step, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"minimal venv skipped: {' '.join(step)} failed:\n{proc.stderr[-2000:]}")
            return None
    return str(python)


def environments(minimal: bool) -> list[Env]:
    import importlib.util

    own = os.environ.get("PYTEST_ADDOPTS", "")
    envs = [Env("this venv, every installed plugin", sys.executable, own)]
    if importlib.util.find_spec("hypothesis") is not None:
        off = f"{own} -p no:hypothesispytest".strip()
        envs.append(Env("this venv, hypothesis' plugin off", sys.executable, off))
    if minimal:
        python = minimal_python(HERE.parent)
        if python is not None:
            envs.append(Env("minimal venv: orderdep + pytest only", python, own))
    return envs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=500)
    parser.add_argument("--orders", type=int, default=200)
    parser.add_argument("--sub-orders", type=int, default=10)
    parser.add_argument("--no-minimal", action="store_true", help="skip the minimal venv")
    args = parser.parse_args()
    own_addopts = os.environ.get("PYTEST_ADDOPTS", "")
    envs = environments(not args.no_minimal)
    costs: list[PairCosts] = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        project = tmp / "suite"
        truth = generate_suite(project, n_tests=args.tests, seed=1)
        ids = truth.tests
        orders = pair_orders(ids, args.orders, seed=2)
        for env in envs:
            print(f"2-test orders: {env.label}", flush=True)
            sub_wall, sub_cpu = bench_pairs(project, env, "subprocess", orders[: args.sub_orders])
            fork_wall, fork_cpu = bench_pairs(project, env, "fork", orders)
            brute = bench_bruteforce(project, env, orders, tmp)
            costs.append(PairCosts(env, sub_wall, sub_cpu, fork_wall, fork_cpu, brute))
            print(f"  subprocess {sub_wall * 1000:.0f} ms, fork {fork_wall * 1000:.2f} ms")
        use_addopts(own_addopts)
        print("whole-suite order and --jobs", flush=True)
        full = bench_full(project, ids)
        many = pair_orders(ids, 400, seed=3)
        rates = bench_jobs(project, many)
        print("a project with many files", flush=True)
        assets = add_assets(project)
        big = bench_big_tree(project, orders[:100])
    rows = []
    for c in costs:
        brute = "-" if c.brute_wall is None else f"{c.brute_wall * 1000:.2f}"
        brute_ratio = "-" if c.brute_wall is None else f"{c.sub_wall / c.brute_wall:.0f}x"
        rows.append(
            [
                c.env.label,
                f"{c.sub_wall * 1000:.0f} / {c.sub_cpu * 1000:.0f}",
                f"{c.fork_wall * 1000:.2f} / {c.fork_cpu * 1000:.2f}",
                brute,
                f"**{c.sub_wall / c.fork_wall:.0f}x** / {c.sub_cpu / max(c.fork_cpu, 1e-9):.0f}x",
                brute_ratio,
            ]
        )
    body = [
        f"Generated suite: {len(ids)} tests (`orderdep.synth.generate.generate_suite`, seed 1; "
        "a session-scoped autouse fixture makes and removes a data directory in the project, "
        "as many real suites do). PYTEST_ADDOPTS outside the benchmark: "
        f"{own_addopts!r}.",
        "",
        "### 2-test orders (mean per order, server start-up excluded)",
        "",
        f"The same {args.orders} random 2-test orders ({args.sub_orders} of them for the "
        "subprocess runner) in each environment. Brute force: `benchmarks/bruteforce_fork.py` "
        "(fork, run the two items, exit: no working copy, no capture restart, no "
        "pre-forking).",
        "",
        table(
            [
                "environment",
                "subprocess wall / CPU ms",
                "fork wall / CPU ms",
                "brute-force fork wall ms",
                "fork vs subprocess (wall / CPU)",
                "brute force vs subprocess (wall)",
            ],
            rows,
        ),
        "",
        "Target: fork at least 100x cheaper in wall time per order.",
        "",
        "### One order of the whole suite vs plain `python -m pytest` (first environment)",
        "",
        table(
            ["run", "wall s", "ratio to plain pytest"],
            [[k, f"{v:.2f}", f"{v / full['plain pytest']:.2f}x"] for k, v in full.items()],
        ),
        "",
        "Target: within 1.1x of plain pytest.",
        "",
        "### Throughput of 400 2-test orders (fork runner, first environment)",
        "",
        table(["jobs", "orders/s"], [[j, f"{r:.1f}"] for j, r in rates.items()]),
        "",
        f"Speed-up with --jobs 2: {rates[2] / rates[1]:.2f}x (2 cores; one worker already "
        "keeps a second core busy forking and preparing the next child).",
        "",
        f"### The same suite with {assets:,} more files in the project (first environment)",
        "",
        "After each order the working copy must be as it was. Whether anything changed is "
        "known from inotify (`orderdep.engine.treewatch`); without it (other systems, or "
        "the watch limit reached) the tree is walked after every order.",
        "",
        table(
            ["change detection", "fork wall ms per 2-test order"],
            [[k, f"{v * 1000:.2f}"] for k, v in big.items()],
        ),
    ]
    write_section("Engine", "\n".join(body))
    print("\n".join(body))


if __name__ == "__main__":
    main()
