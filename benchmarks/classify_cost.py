"""Classification cost per OD test: one-by-one search (before) vs group testing (after).

Used by ``bench_classify.py --cost``. *Before* is ``orderdep classify`` as it was before
group testing (commit :data:`BEFORE`, loaded from git history at run time): a pair
``[t, test]`` for every other test, a triple ``[p, c, victim]`` for every polluter and
every other test. *After* is the current ``classify``: group testing for polluters,
state-setters and cleaners (one cleaner per polluter by default, every one with
``all_cleaners``).

On generated suites (``generate_suite(n_tests=N, seed=1)``), both run on the suite's
model executor (exact counts of orders and test executions, same ground truth; ND and NIO
tests left out so both see the same outcomes) and, for the smallest suite, also on the
real engine (fork runner, ``--jobs``) for wall time. The answers are compared: same kinds,
polluters, state-setters and groups; with ``all_cleaners`` the same cleaners; with one
cleaner per polluter, one of the cleaners one-by-one search finds.
"""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from benchdoc import table

from orderdep.analysis.classify import classify
from orderdep.core import orders as gen
from orderdep.core.odmodel import ODSpec, fails_at
from orderdep.core.report import ODFinding, Report, RunStats
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.synth.generate import generate_suite
from orderdep.synth.model import ModelExecutor
from orderdep.synth.truth import GroundTruth

BEFORE = "78b784a"  # the last commit with one-by-one classification
REPO = Path(__file__).resolve().parent.parent


def load_before() -> ModuleType:
    """``orderdep.analysis.classify`` as of :data:`BEFORE`."""
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{BEFORE}:src/orderdep/analysis/classify.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    spec = importlib.util.spec_from_loader("classify_before", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["classify_before"] = module  # dataclasses look their module up
    exec(compile(source, "classify_before.py", "exec"), module.__dict__)
    return module


def witness(spec: ODSpec, truth: GroundTruth, rng: random.Random, fail: bool) -> list[str]:
    """A random order, cut after ``spec.test``, in which it fails (``fail``) or passes."""
    groups = [list(g) for g in truth.suite().groups("class").values()]
    for _ in range(100_000):
        order = gen.random_order(groups, rng)
        cut = order[: order.index(spec.test) + 1]
        if fails_at(spec, cut[:-1]) == fail:
            return cut
    return []


def detected(truth: GroundTruth, seed: int) -> Report:
    """The report detection would write: each planted OD test with a failing and a
    passing order (the test alone when no random order shows the outcome)."""
    rng = random.Random(seed)
    findings = []
    for spec in truth.specs:
        failing = witness(spec, truth, rng, True) or [spec.test]
        passing = witness(spec, truth, rng, False) or [spec.test]
        findings.append(ODFinding(spec.test, failing_order=failing, passing_order=passing))
    return Report(project="/p", tests=list(truth.tests), od_tests=findings,
                  stats=RunStats(seed=seed))  # fmt: skip


@dataclass
class Cost:
    orders: int
    executions: int
    wall: float
    report: Report


def measure(run: Callable[[Any], Report], executor: Any) -> Cost:
    start = time.perf_counter()
    report = run(executor)
    wall = time.perf_counter() - start
    return Cost(report.stats.orders_run, report.stats.test_executions, wall, report)


def same_answers(before: Report, after: Report, all_cleaners: bool) -> str:
    """ "yes", or what differs."""
    diffs = []
    for b in before.od_tests:
        a = after.finding(b.test)
        if a is None:
            diffs.append(f"{b.test} missing")
            continue
        for name in ("kind", "polluters", "state_setters"):
            if sorted(getattr(a, name) or []) != sorted(getattr(b, name) or []):
                diffs.append(f"{b.test} {name}")
        if sorted(map(sorted, a.polluter_groups)) != sorted(map(sorted, b.polluter_groups)):
            diffs.append(f"{b.test} polluter groups")
        if a.state_setter_groups != b.state_setter_groups:
            diffs.append(f"{b.test} state-setter groups")
        for key, cleaners in b.cleaners.items():
            got = a.cleaners.get(key, [])
            ok = sorted(got) == sorted(cleaners) if all_cleaners else (
                set(got) <= set(cleaners) and bool(got) == bool(cleaners)
            )  # fmt: skip
            if not ok:
                diffs.append(f"{b.test} cleaners of {key}")
    return "yes" if not diffs else "no: " + ", ".join(diffs[:3])


def bench_size(n: int, tmp: Path, jobs: int, real: bool, seed: int) -> list[list[object]]:
    before_module = load_before()
    truth = generate_suite(tmp / f"suite-{n}", n_tests=n, seed=1)
    report = detected(truth, seed)
    od = len(report.od_tests)
    runs: dict[str, Callable[[Any], Report]] = {
        "before (one by one, all cleaners)": lambda ex: before_module.classify(
            ex, report, flake_samples=200
        ),
        "after (group testing, one cleaner each)": lambda ex: classify(
            ex, report, flake_samples=200, jobs=jobs
        ),
        "after (group testing, --all-cleaners)": lambda ex: classify(
            ex, report, flake_samples=200, all_cleaners=True, jobs=jobs
        ),
    }
    rows: list[list[object]] = []
    costs: dict[str, Cost] = {}
    for name, run in runs.items():
        print(f"  {n} tests, model: {name}", flush=True)
        costs[name] = measure(run, ModelExecutor(truth.suite(), truth.specs))
    walls: dict[str, float] = {}
    if real:
        for name, run in runs.items():
            print(f"  {n} tests, engine: {name}", flush=True)
            config = EngineConfig(tmp / f"suite-{n}", runner="fork", jobs=jobs)
            with Engine(config) as engine:
                walls[name] = measure(run, engine).wall
    base = costs["before (one by one, all cleaners)"]
    for name, cost in costs.items():
        all_cleaners = "one cleaner" not in name
        rows.append([
            n, od, name,
            f"{cost.orders / od:.0f}", f"{cost.executions / od:.0f}",
            f"{base.orders / max(1, cost.orders):.1f}x",
            f"{walls[name]:.1f}" if name in walls else "-",
            same_answers(base.report, cost.report, all_cleaners),
        ])  # fmt: skip
    return rows


def render(rows: list[list[object]], jobs: int) -> str:
    headers = [
        "tests", "OD tests", "classification", "orders per OD test",
        "test executions per OD test", "fewer orders than before", f"wall (s, engine, jobs {jobs})",
        "same answers as before",
    ]  # fmt: skip
    return "\n".join([
        "### Cost per OD test: one-by-one search vs group testing",
        "",
        "Planted OD tests of generated suites, each with a random failing and passing order "
        "as detection records them. Orders and executions counted on the suite's model "
        "executor (the same outcomes a real run gives, ND/NIO tests left out); wall time on "
        "the real engine (fork runner) for the smallest suite. *Before* is classification "
        f"as of commit {BEFORE} (one pair per candidate, one triple per candidate and "
        "polluter).",
        "",
        table(headers, rows),
        "",
        "Group testing trades orders for test executions: a set of candidates is one long "
        "order. A victim one of whose polluters has cleaners has them found too, taken out "
        "of the candidates and the rest searched again (another polluter could hide "
        "between two cleaners in every set); only when cleaners are more than an eighth "
        "of the candidates does it fall back to one pair per candidate. The answers stay "
        "exact.",
    ])  # fmt: skip


def main(sizes: list[int], tmp: Path, jobs: int, real_max: int, seed: int) -> str:
    sys.setrecursionlimit(10_000)
    rows: list[list[object]] = []
    for n in sizes:
        rows += bench_size(n, tmp, jobs, real=n <= real_max, seed=seed)
    return render(rows, jobs)
