"""PRADET benchmark: collection overhead, and PRADET against Tuscan detection + classify.

For generated suites (``orderdep.synth.generate.generate_suite``, the plan
``SuitePlan.for_size(n)``, its ND test included) of each ``--sizes``:

* **Collection overhead** (largest size): the original order run plainly and under the
  state probe through the engine (fork runner), alternately, ``--reps`` times each; the
  ratio of the medians, and where the probe's time goes (its own timers: snapshots split
  into python roots, process roots and files; read resolution; the rest is the call
  tracer inside the tests).
* **PRADET** (``orderdep.analysis.pradet.pipeline``, reference and reversed orders,
  confirmation, alternatives and search on): data dependencies, manifest dependencies,
  OD tests, test executions and wall time, with ``--jobs 1`` and ``--jobs 2`` (refinement
  and checks run their independent schedules in parallel), and recall/precision of the
  manifest dependencies against the ground truth (every planted polluter, polluter-group
  member, state-setter and state-setter-group member of every victim and brittle), in
  all and per channel / scenario.
* **Extra orders**: the same with ``--extra-orders`` 1 and 3 (seeded random
  class-compatible orders collected and refined too): recall and cost.
* **Tuscan + classify**: ``detect --strategy tuscan`` then ``classify`` (polluters,
  cleaners, state-setters), run for real with ``--jobs 2`` up to ``--real-max`` tests.
  Above that their executions are counted exactly on the ground-truth simulation
  (``GroundTruth.model_executor``: the same orders, the outcomes real runs give for a
  deterministic suite), and the search part is cross-checked against
  ``orderdep.core.tuscan.pair_cover`` on the suite's class groups; no wall time is given.

Usage: python benchmarks/bench_pradet.py [--sizes 100 500] [--reps 5] [--real-max 100]
       [--extra-orders 1 3]
Writes the section "PRADET" of docs/benchmarks.md. With ``--scale 2000`` it writes only
the section "PRADET at scale" instead (``benchmarks/pradet_scale.py``).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section

from orderdep.analysis.classify import classify
from orderdep.analysis.detect import detect
from orderdep.analysis.pradet.pipeline import (
    DEFAULT_ALONE_RUNS,
    STATE_PROBE,
    PradetResult,
    collect,
    findings,
    refine_collected,
)
from orderdep.core.odmodel import ODSpec
from orderdep.core.report import Report
from orderdep.core.tuscan import pair_cover
from orderdep.engine.config import EngineConfig
from orderdep.engine.probe import ProbeSpec
from orderdep.engine.runner import Engine
from orderdep.synth.generate import SuitePlan, generate_suite
from orderdep.synth.truth import GroundTruth

SUITE_SEED = 7
DETECT_SEED = 1
TARGET_RATIO = 3.0  # collection within 3x a plain run
TARGET_SHARE = 0.05  # PRADET within 5% of Tuscan + classify executions

Pair = tuple[str, str]


def make_suite(root: Path, n: int) -> GroundTruth:
    return generate_suite(root, n_tests=n, seed=SUITE_SEED, plan=SuitePlan.for_size(n))


def label(truth: GroundTruth, spec: ODSpec) -> str:
    """The channel of a planted OD test, with its scenario when it is not the plain one."""
    channel = truth.channels.get(spec.test, "?")
    if spec.polluter_groups:
        return f"{channel} (victim, polluter group)"
    if len(spec.polluters) > 1:
        return f"{channel} (victim, {len(spec.polluters)} polluters)"
    if spec.state_setter_groups:
        return f"{channel} (brittle, setter group)"
    if spec.kind == "brittle":
        return f"{channel} (brittle, {len(spec.state_setters)} setter(s))"
    return channel


def planted_by_label(truth: GroundTruth) -> dict[str, set[Pair]]:
    out: dict[str, set[Pair]] = {}
    for spec in truth.specs:
        groups = spec.polluter_groups + spec.state_setter_groups
        for dependee in [*spec.polluters, *spec.state_setters, *(t for g in groups for t in g)]:
            out.setdefault(label(truth, spec), set()).add((spec.test, dependee))
    return out


def planted_pairs(truth: GroundTruth) -> set[Pair]:
    out: set[Pair] = set()
    for spec in truth.specs:
        groups = spec.polluter_groups + spec.state_setter_groups
        for dependee in [*spec.polluters, *spec.state_setters, *(t for g in groups for t in g)]:
            out.add((spec.test, dependee))
    return out


def report_pairs(report: Report) -> set[Pair]:
    out: set[Pair] = set()
    for f in report.od_tests:
        groups = f.polluter_groups + f.state_setter_groups
        for dependee in [*f.polluters, *f.state_setters, *(t for g in groups for t in g)]:
            out.add((f.test, dependee))
    return out


def percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


# -- collection overhead ------------------------------------------------------------------
@dataclass
class Overhead:
    plain: list[float] = field(default_factory=list)
    probed: list[float] = field(default_factory=list)
    stats: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return statistics.median(self.probed) / statistics.median(self.plain)

    def parts(self) -> dict[str, float]:
        """Median seconds per part of the probe's time."""

        def med(key: str, sub: str = "") -> float:
            values = [(s[key][sub] if sub else s[key]) for s in self.stats]
            return float(statistics.median(values))

        out = {
            "snapshots: python roots": med("snapshot_parts", "python"),
            "snapshots: process roots": med("snapshot_parts", "process"),
            "snapshots: files": med("snapshot_parts", "files"),
            "read resolution": med("read_seconds"),
        }
        extra = statistics.median(self.probed) - statistics.median(self.plain)
        out["call tracer and the rest"] = max(0.0, extra - sum(out.values()))
        return out


def measure_overhead(root: Path, reps: int) -> Overhead:
    spec = ProbeSpec(STATE_PROBE, {})
    out = Overhead()
    with Engine(EngineConfig(root)) as engine:
        order = engine.suite.ids
        engine.run(order)
        engine.run(order, probe=spec)  # warm-up: pyc files, page cache
        for _ in range(reps):
            out.plain.append(engine.run(order).wall_seconds)
            run = engine.run(order, probe=spec)
            out.probed.append(run.wall_seconds)
            out.stats.append(run.probe["stats"])
    return out


# -- PRADET ---------------------------------------------------------------------------------
@dataclass
class PradetRun:
    result: PradetResult
    collect_seconds: float
    refine_seconds: float

    @property
    def wall(self) -> float:
        return self.collect_seconds + self.refine_seconds


def run_pradet(root: Path, jobs: int, extra_orders: int = 0) -> PradetRun:
    with Engine(EngineConfig(root, jobs=jobs)) as engine:
        _ = engine.suite  # start the workers' servers before timing
        if jobs > 1:
            engine.run_many([[engine.suite.ids[0]]] * jobs)
        t0 = time.perf_counter()
        collected = collect(
            engine, project=str(root), jobs=jobs, extra_orders=extra_orders, seed=DETECT_SEED
        )
        t1 = time.perf_counter()
        result = refine_collected(engine, collected, jobs=jobs)
        t2 = time.perf_counter()
    return PradetRun(result, t1 - t0, t2 - t1)


# -- Tuscan + classify ----------------------------------------------------------------------
@dataclass
class TuscanRun:
    detect_executions: int
    classify_executions: int
    wall: float | None
    report: Report
    how: str

    @property
    def executions(self) -> int:
        return self.detect_executions + self.classify_executions


def tuscan_real(root: Path, jobs: int) -> TuscanRun:
    with Engine(EngineConfig(root, jobs=jobs)) as engine:
        _ = engine.suite
        start = time.perf_counter()
        report = detect(engine, strategies=("tuscan",), seed=DETECT_SEED, jobs=jobs)
        found = engine.executions
        if report.od_tests:
            report = classify(engine, report)
        wall = time.perf_counter() - start
        return TuscanRun(found, engine.executions - found, wall, report, "real runs")


def tuscan_model(truth: GroundTruth) -> TuscanRun:
    model = truth.model_executor(seed=DETECT_SEED)
    report = detect(model, strategies=("tuscan",), seed=DETECT_SEED)
    found = model.executions
    if report.od_tests:
        report = classify(model, report)
    return TuscanRun(found, model.executions - found, None, report, "ground-truth simulation")


def pair_cover_executions(truth: GroundTruth) -> int:
    groups = [list(g) for g in truth.suite().groups("class").values()]
    orders = pair_cover(groups, random.Random(DETECT_SEED))
    return sum(len(o) for o in orders)


# -- the run --------------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--reps", type=int, default=5, help="overhead repetitions")
    parser.add_argument("--real-max", type=int, default=100, help="largest real Tuscan run")
    parser.add_argument(
        "--extra-orders", type=int, nargs="*", default=[1, 3], help="extra random orders"
    )
    parser.add_argument("--no-write", action="store_true", help="print, do not write docs")
    parser.add_argument(
        "--scale",
        type=int,
        nargs="+",
        default=None,
        help="only the section 'PRADET at scale', on suites of these sizes (see pradet_scale.py)",
    )
    args = parser.parse_args(argv)

    base = Path(tempfile.mkdtemp(prefix="bench-pradet-"))
    if args.scale:
        from pradet_scale import run_scale

        print(run_scale(base, args.scale, make_suite, write=not args.no_write))
        return 0
    suites = {}
    for n in args.sizes:
        suites[n] = (base / f"s{n}", make_suite(base / f"s{n}", n))
        print(f"suite of {n} tests: {len(suites[n][1].specs)} OD tests planted", flush=True)

    largest = max(args.sizes)
    print(f"overhead on {largest} tests, {args.reps} repetitions", flush=True)
    over = measure_overhead(suites[largest][0], args.reps)
    print(f"  ratio {over.ratio:.2f}", flush=True)

    rows, cost_rows, speed_rows, extra_rows = [], [], [], []
    by_channel: dict[str, dict[int, str]] = {}
    for n in args.sizes:
        root, truth = suites[n]
        planted = planted_pairs(truth)
        one = run_pradet(root, jobs=1)
        print(f"PRADET {n} jobs=1: {one.wall:.1f}s {one.result.executions}", flush=True)
        two = run_pradet(root, jobs=2)
        print(f"PRADET {n} jobs=2: {two.wall:.1f}s", flush=True)
        res = one.result
        found = {(e.dependency.dependent, e.dependency.dependee) for e in res.manifest}
        same = found == {
            (e.dependency.dependent, e.dependency.dependee) for e in two.result.manifest
        }
        deps = {(d["dependent"], d["dependee"]) for d in res.collected.data_dependencies()}
        od = {f.test for f in findings(res)}
        nd = set(truth.nd_tests)
        tus = tuscan_real(root, jobs=2) if n <= args.real_max else tuscan_model(truth)
        print(f"Tuscan+classify {n}: {tus.executions} executions ({tus.how})", flush=True)
        cover = pair_cover_executions(truth)
        tus_pairs = report_pairs(tus.report)
        ex = res.executions
        rows.append(
            [
                n,
                len(truth.specs),
                len(planted),
                len(deps),
                f"{len(planted & deps)}/{len(planted)}",
                len(found),
                f"{len(found & planted)}/{len(planted)} ({percent(len(found & planted), len(planted))})",
                percent(len(found & planted), len(found)),
                f"{len(od & set(truth.od_tests))}/{len(truth.od_tests)}",
                f"{len(od & nd)} / {len(set(res.flaky) & nd)}",
                f"{len(tus_pairs & planted)}/{len(planted)}, OD {len(set(tus.report.od_ids) & set(truth.od_tests))}/{len(truth.od_tests)}",
            ]
        )
        for name, pairs in planted_by_label(truth).items():
            by_channel.setdefault(name, {})[n] = f"{len(pairs & found)}/{len(pairs)}"
        for k in [0, *args.extra_orders]:
            run = two if k == 0 else run_pradet(root, jobs=2, extra_orders=k)
            got = {(e.dependency.dependent, e.dependency.dependee) for e in run.result.manifest}
            total = run.result.executions["total"]
            print(f"PRADET {n} extra orders {k}: {len(got & planted)} {total}", flush=True)
            extra_rows.append(
                [
                    n,
                    k,
                    f"{len(got & planted)}/{len(planted)}",
                    percent(len(got & planted), len(got)),
                    total,
                    run.result.executions["refinement"],
                    f"{run.wall:.1f}",
                    percent(total, tus.executions),
                ]
            )
        tus_wall = f"{tus.wall:.1f}" if tus.wall is not None else "not run"
        cost_rows.append(
            [
                n,
                ex["total"],
                " / ".join(
                    str(ex[k])
                    for k in ("collection", "refinement", "confirmation", "alternatives", "search")
                ),
                res.orders_run,
                f"{one.wall:.1f}",
                f"{tus.executions} ({tus.detect_executions} + {tus.classify_executions})",
                f"{cover} + {n}",
                tus.how,
                tus_wall,
                percent(ex["total"], tus.executions),
            ]
        )
        speed_rows.append(
            [
                n,
                f"{one.collect_seconds:.1f} / {two.collect_seconds:.1f}",
                f"{one.refine_seconds:.1f} / {two.refine_seconds:.1f}",
                f"{one.wall / two.wall:.2f}x",
                f"{one.refine_seconds / two.refine_seconds:.2f}x",
                "yes" if same else "NO",
            ]
        )

    parts = over.parts()
    body = "\n\n".join(
        [
            f"Generated suites (`SuitePlan.for_size(n)`, seed {SUITE_SEED}): victims, brittles, "
            "polluter and state-setter groups, cleaners, through every state channel, and a "
            "test failing at random (ND). PRADET collects the original and the reversed "
            "order, refines, confirms each manifest dependency once, tries removed dependees "
            "of tests that behave differently alone, runs every dependent alone "
            f"{DEFAULT_ALONE_RUNS} times, one more per doubling of the candidate dependencies "
            "checked for it (a test whose outcome changes is ND, its dependencies dropped), "
            "and searches the polluters behind conditional "
            "dependencies (`orderdep.analysis.pradet.pipeline`).",
            *(
                [f"Environment: `PYTEST_ADDOPTS={os.environ['PYTEST_ADDOPTS']}`."]
                if os.environ.get("PYTEST_ADDOPTS")
                else []
            ),
            f"### Collection overhead ({largest} tests, fork runner, {args.reps} alternating "
            "repetitions)",
            table(
                ["plain run (median)", "probed run (median)", "ratio", "target"],
                [
                    [
                        f"{statistics.median(over.plain):.2f}s",
                        f"{statistics.median(over.probed):.2f}s",
                        f"{over.ratio:.2f}x",
                        f"<= {TARGET_RATIO:.0f}x: {'met' if over.ratio <= TARGET_RATIO else 'MISSED'}",
                    ]
                ],
            ),
            "Where the probe's time goes (medians, seconds per run):",
            table(["part", "seconds"], [[k, f"{v:.3f}"] for k, v in parts.items()]),
            "### What PRADET finds",
            "Planted pairs: (OD test, polluter / state-setter / group member) of the ground "
            "truth. Precision: the share of PRADET's manifest dependencies that are planted.",
            table(
                [
                    "tests",
                    "OD tests",
                    "planted pairs",
                    "data deps (pairs)",
                    "planted among data deps",
                    "manifest deps",
                    "recall",
                    "precision",
                    "OD tests found",
                    "ND test: reported OD / found flaky",
                    "Tuscan + classify found",
                ],
                rows,
            ),
            "### Recall per channel (planted pairs found, `--jobs 1`)",
            table(
                ["channel (scenario)", *(f"{n} tests" for n in args.sizes)],
                [
                    [name, *(found_at.get(n, "-") for n in args.sizes)]
                    for name, found_at in sorted(by_channel.items())
                ],
            ),
            f"### Extra random orders (`--extra-orders`, `--jobs 2`, seed {DETECT_SEED})",
            "Seeded random class-compatible orders collected and refined after the original "
            "and reversed ones; pairs a refinement already tested with the dependent's "
            "outcome the same are not tested again.",
            table(
                [
                    "tests",
                    "extra orders",
                    "recall",
                    "precision",
                    "executions",
                    "of which refinement",
                    "wall (s)",
                    "PRADET / Tuscan",
                ],
                extra_rows,
            ),
            "### Cost: PRADET vs Tuscan + classify",
            f"Executions are test executions. PRADET's split: collection / refinement / "
            f"confirmation / alternatives / search. Target: PRADET within "
            f"{TARGET_SHARE:.0%} of Tuscan + classify.",
            table(
                [
                    "tests",
                    "PRADET executions",
                    "split",
                    "orders",
                    "PRADET wall (s, jobs 1)",
                    "Tuscan + classify executions (detect + classify)",
                    "pair_cover executions + original order",
                    "counted by",
                    "Tuscan + classify wall (s, jobs 2)",
                    "PRADET / Tuscan",
                ],
                cost_rows,
            ),
            "### Parallel refinement (`--jobs 2` vs 1)",
            table(
                [
                    "tests",
                    "collection s (1 / 2)",
                    "refinement and checks s (1 / 2)",
                    "speed-up, all",
                    "speed-up, refinement",
                    "same findings",
                ],
                speed_rows,
            ),
        ]
    )
    if args.no_write:
        print(body)
    else:
        write_section("PRADET", body)
        print(body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
