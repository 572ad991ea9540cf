"""Dependent-test-aware regression testing (paper 002 §4): OD-test failures and slowdown of
unenhanced vs enhanced orders for T1-T4, S1-S6, P1, P2 (and dependency-aware groups), and
the makespan of enhanced P2 vs groups.

Each seed generates a suite whose original order passes (no ND tests), writes the complete
dependencies of its ground truth, measures per-test coverage once, and runs every
algorithm's unenhanced and enhanced schedules through the engine (fork runner).

Usage: python benchmarks/bench_regression.py [--tests 200] [--seeds 1 2 3] [--changes 10]
Writes the section "Regression testing" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section

from orderdep.analysis.regression.coverage import collect_coverage
from orderdep.analysis.regression.evaluate import (
    ALGORITHMS,
    TECHNIQUES,
    Evaluation,
    evaluate,
    sample_changes,
)
from orderdep.core import parallelization
from orderdep.core.depsfile import Dependency, DepKind, dump_deps, parse_deps
from orderdep.core.enhance import enhance_parallel
from orderdep.core.odmodel import ODSpec
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.synth.generate import SuitePlan, generate_suite

MACHINES = (2, 4, 8)


def deps_from_specs(specs: list[ODSpec]) -> list[Dependency]:
    """The complete dependencies of the ground truth (victims: negative, brittles: positive)."""
    out: list[Dependency] = []
    for s in specs:
        kind: DepKind = "negative" if s.kind == "victim" else "positive"
        singles = s.polluters if s.kind == "victim" else s.state_setters
        groups = s.polluter_groups if s.kind == "victim" else s.state_setter_groups
        out += [Dependency(s.test, kind, d) for d in singles]
        for g in groups:
            out += [Dependency(s.test, kind, m, tuple(g)) for m in g]
    # Round-trip through the file format: what a user's file would hold, validated.
    import json

    return parse_deps(json.loads(dump_deps(out)))


def one_seed(
    root: Path, n_tests: int, seed: int, changes: int
) -> tuple[Evaluation, dict[int, dict[str, float]], dict[str, int]]:
    plan = dataclasses.replace(SuitePlan.for_size(n_tests), nd_tests=0)
    truth = generate_suite(root, n_tests=n_tests, seed=seed, plan=plan)
    deps = deps_from_specs(truth.specs)
    info = {"tests": len(truth.tests), "od": len(truth.specs), "deps": len(deps)}
    with Engine(EngineConfig(root, runner="fork")) as engine:
        coverage = collect_coverage(engine, root)
        sample = sample_changes(coverage, changes, random.Random(seed))
        result = evaluate(engine, coverage, deps, machines=MACHINES, changes=sample)
        tests = result.tests
        durations = {t: coverage.durations.get(t, 0.0) for t in tests}
        spans: dict[int, dict[str, float]] = {}
        for k in MACHINES:
            p2 = parallelization.by_duration(tests, durations, k)
            p2e = enhance_parallel(p2, deps, tests)
            groups = parallelization.parallelize_groups(tests, deps, durations, k, all_tests=tests)
            measured = {}
            for name, split in (("P2", p2), ("P2 enhanced", p2e), ("groups", groups)):
                runs = engine.run_many([m for m in split if m])
                measured[name] = max(sum(r.duration for r in run.results) for run in runs)
            spans[k] = {
                "P2": parallelization.makespan(p2, durations),
                "P2 enhanced": parallelization.makespan(p2e, durations),
                "groups": parallelization.makespan(groups, durations),
                "P2 extra runs": float(sum(len(m) for m in p2e) - len(tests)),
                "P2 measured": measured["P2"],
                "P2 enhanced measured": measured["P2 enhanced"],
                "groups measured": measured["groups"],
            }
    return result, spans, info


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=200)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--changes", type=int, default=10)
    args = parser.parse_args()
    start = time.perf_counter()
    results: list[Evaluation] = []
    spans: list[dict[int, dict[str, float]]] = []
    infos = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:
            r, s, info = one_seed(Path(tmp) / f"suite{seed}", args.tests, seed, args.changes)
            results.append(r)
            spans.append(s)
            infos.append(info)
            print(f"seed {seed}: {info}, {r.orders_run} orders", file=sys.stderr)
    elapsed = time.perf_counter() - start

    rows = []
    totals: dict[str, list[float]] = {}
    for algorithm in ALGORITHMS:
        per = [next(x for x in r.rows if x.algorithm == algorithm) for r in results]
        u = sum(len(x.unenhanced_failures) for x in per)
        e = sum(len(x.enhanced_failures) for x in per)
        schedules = sum(x.schedules for x in per)
        changed = sum(x.changed for x in per)
        added = sum(x.added for x in per)
        executions = sum(x.executions for x in per)
        tu = sum(x.unenhanced_seconds for x in per)
        te = sum(x.enhanced_seconds for x in per)
        eu = sum(x.unenhanced_estimate for x in per)
        ee = sum(x.enhanced_estimate for x in per)
        for key, value in zip(("u", "e", "tu", "te", "eu", "ee"), (u, e, tu, te, eu, ee)):
            totals.setdefault(key, []).append(value)
        rows.append(
            [
                algorithm,
                schedules,
                changed,
                executions,
                added,
                f"{added / executions * 100:.1f}%" if executions else "-",
                u,
                e,
                "-" if u == 0 else f"{(u - e) / u * 100:.0f}%",
                "=" if changed == 0 else pct((te - tu) / tu if tu else None),
                "=" if changed == 0 else pct((ee - eu) / eu if eu else None),
            ]
        )
    technique_rows = []
    for technique, labels in TECHNIQUES.items():
        idx = [ALGORITHMS.index(a) for a in labels]
        u = sum(totals["u"][i] for i in idx)
        e = sum(totals["e"][i] for i in idx)
        tu = sum(totals["tu"][i] for i in idx)
        te = sum(totals["te"][i] for i in idx)
        eu = sum(totals["eu"][i] for i in idx)
        ee = sum(totals["ee"][i] for i in idx)
        technique_rows.append(
            [
                technique,
                int(u),
                int(e),
                "-" if u == 0 else f"{(u - e) / u * 100:.0f}%",
                pct((te - tu) / tu if tu else None),
                pct((ee - eu) / eu if eu else None),
            ]
        )
    u_all, e_all = sum(totals["u"]), sum(totals["e"])
    changed_all = [i for i, row in enumerate(rows) if row[2]]
    selected = [r for r in rows if str(r[0]).startswith("S")]
    mean_selected = sum(int(r[3]) for r in selected) / max(1, sum(int(r[1]) for r in selected))
    slow_measured = (
        sum(totals["te"][i] for i in changed_all) / sum(totals["tu"][i] for i in changed_all) - 1
    )
    slow_estimated = (
        sum(totals["ee"][i] for i in changed_all) / sum(totals["eu"][i] for i in changed_all) - 1
    )
    span_rows = []
    for k in MACHINES:

        def total(key: str, k: int = k) -> float:
            return sum(s[k][key] for s in spans)

        span_rows.append(
            [
                k,
                f"{total('P2'):.3f}",
                f"{total('P2 enhanced'):.3f}",
                f"{total('groups'):.3f}",
                pct(total("groups") / total("P2 enhanced") - 1),
                int(total("P2 extra runs")),
                f"{total('P2 enhanced measured'):.3f}",
                f"{total('groups measured'):.3f}",
            ]
        )
    suites = ", ".join(
        f"seed {s}: {i['tests']} tests, {i['od']} OD tests, {i['deps']} dependency entries"
        for s, i in zip(args.seeds, infos)
    )
    body = "\n".join(
        [
            f"Generated suites (`generate_suite`, no ND tests; original orders pass): {suites}. "
            "Dependencies: the complete ground truth. Coverage and durations: one "
            "`orderdep coverage`-style run per suite. Selection: "
            f"{args.changes} simulated changes per suite (one covered function each, seeded). "
            f"Parallelisation: k = {', '.join(map(str, MACHINES))}. "
            f"{sum(r.orders_run for r in results)} orders run in {elapsed:.0f}s.",
            "",
            "### OD-test failures and slowdown per algorithm (002 Tables 8-9)",
            "",
            "OD fail: unique tests that pass in the original order but fail in the "
            "algorithm's orders, summed over suites. Slowdown: total time of the enhanced "
            "orders that differ from their unenhanced ones, relative to those (parallel: "
            "longest machine); *measured* from the runs, *estimated* from the coverage "
            "run's per-test durations (one measurement shared by both sides, so no run-to-run "
            "noise between them; ms-scale tests make it noisy from one benchmark run to the "
            "next). `groups`' unenhanced column is P2's.",
            "",
            table(
                [
                    "algorithm",
                    "schedules",
                    "changed",
                    "tests run unenh.",
                    "added tests",
                    "added / run",
                    "OD fail unenh.",
                    "OD fail enh.",
                    "reduction",
                    "slowdown measured",
                    "slowdown estimated",
                ],
                rows,
            ),
            "",
            table(
                [
                    "technique",
                    "OD fail unenh.",
                    "OD fail enh.",
                    "reduction",
                    "slowdown measured",
                    "slowdown estimated",
                ],
                technique_rows,
            ),
            "",
            f"**All algorithms: {int(u_all)} -> {int(e_all)} OD-test failures "
            f"({'-' if not u_all else f'{(u_all - e_all) / u_all * 100:.0f}%'} reduction; "
            "target 100% with complete dependencies).** Paper 002 reports 80% with "
            "dependencies computed on an older version.",
            "",
            f"**Slowdown of the enhanced orders over all algorithms: {pct(slow_estimated)} "
            f"estimated from per-test durations, {pct(slow_measured)} measured** (target: "
            "at most +1%; paper 002: +1%). Measured times favour the enhanced orders because "
            "a failing test costs more than a passing one (traceback, report), as the paper "
            "also observes (§4.4); prioritisation only reorders, so its estimate is 0. "
            f"The simulated changes select few tests (mean {mean_selected:.1f} per "
            "selection), so one added state-setter is a large share of a selection: "
            "selection is where the estimate exceeds the 1% target.",
            "",
            "### Makespan: enhanced P2 vs dependency-aware groups (seconds, summed over suites)",
            "",
            table(
                [
                    "k",
                    "P2 est.",
                    "P2 enhanced est.",
                    "groups est.",
                    "groups vs P2 enh.",
                    "extra runs in P2 enh.",
                    "P2 enh. measured",
                    "groups measured",
                ],
                span_rows,
            ),
            "",
            "Enhanced P2 runs each dependee on every machine that needs it (extra runs); "
            "groups never runs a test twice but cannot split a group.",
        ]
    )
    write_section("Regression testing", body)
    print(body)


if __name__ == "__main__":
    main()
