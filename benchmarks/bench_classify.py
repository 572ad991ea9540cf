"""Classification benchmark: pairs vs delta debugging per OD test, the whole
``orderdep detect --classify`` pipeline, and ipflakies on the same suite side by side.

On a generated suite (``generate_suite(n_tests=--tests, seed=1)``):

1. For every planted OD test: a seeded random (group-compatible) order in which the test
   fails (victim) or passes (brittle), cut after it; then, each on its own with the real
   engine (fork runner), the two searches ``orderdep classify`` combines (004 §4.1):
   *pairs* (``[t, test]`` for every other test, run with ``--jobs``) and *ddmin*
   (:func:`orderdep.core.ddmin.ddmin` over the order's prefix, one order at a time). Time,
   orders, test executions and whether the answer matches the ground truth.
2. ``orderdep detect PROJECT --classify --jobs N --seed S`` through ``main(argv)``: wall time,
   orders, executions, and its findings against the ground truth.
3. ipflakies (PyPI; iDFlakies random orders + iFixFlakies minimiser, one pytest process per
   order) on a copy of the suite: ``python -m ipflakies -i ITERATIONS --seed S`` to detect,
   then ``python -m ipflakies -t TEST`` for each OD test it found, with its patch
   generation switched off (``benchmarks/ipflakies_runner.py``) so it does the same work.
   ipflakies pins pytest 6.2.5, so it lives in a venv of its own, created when missing::

       python3 -m venv /tmp/ipf && /tmp/ipf/bin/pip install ipflakies

   It needs a terminal, so every call runs under ``script -qec "<command>" /dev/null``.
   pytest 6 ignores the suite's ``pythonpath`` ini option, so ``PYTHONPATH`` is set to the
   copy. Skipped, with a message, when the venv cannot be made (``--no-ipflakies`` skips
   it on purpose).

Usage: python benchmarks/bench_classify.py [--tests 100] [--jobs 2] [--ipflakies-iterations 100]
Writes the section "Classification" of docs/benchmarks.md.

``--cost`` runs only :mod:`classify_cost` (cost per OD test of one-by-one search vs group
testing, same suites, same answers) and writes the section "Classification cost".
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section

import orderdep.analysis.classify as classify_module
from orderdep.core import orders as gen
from orderdep.core.ddmin import DDStats, ddmin
from orderdep.core.odmodel import ODSpec, fails_at
from orderdep.core.report import Report, load_report
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.shells.cli import main as orderdep_main
from orderdep.synth.generate import generate_suite
from orderdep.synth.truth import GroundTruth

SUITE_SEED = 1
RUNNER = Path(__file__).resolve().parent / "ipflakies_runner.py"


# -- part 1: pairs vs ddmin per OD test ----------------------------------------------------


@dataclass
class Search:
    orders: int
    executions: int
    wall: float
    answer: list[str]
    right: Optional[bool]  # None: not applicable


@dataclass
class PerTest:
    test: str
    kind: str  # what the ground truth says, for the table
    prefix: int
    pairs: Search
    ddmin: Optional[Search]
    note: str = ""


def describe(spec: ODSpec) -> str:
    if spec.kind == "victim":
        parts = []
        if spec.polluters:
            parts.append(f"{len(spec.polluters)} polluter(s)")
        if spec.polluter_groups:
            parts.append(f"group of {len(spec.polluter_groups[0])}")
        return "victim, " + " + ".join(parts)
    parts = []
    if spec.state_setters:
        parts.append(f"{len(spec.state_setters)} state-setter(s)")
    if spec.state_setter_groups:
        parts.append(f"setter group of {len(spec.state_setter_groups[0])}")
    return "brittle, " + " + ".join(parts)


def witness(spec: ODSpec, groups: list[list[str]], rng: random.Random) -> list[str]:
    """The prefix of a random order in which ``spec.test`` fails (victim) / passes (brittle)."""
    for _ in range(100_000):
        order = gen.random_order(groups, rng)
        prefix = order[: order.index(spec.test)]
        if fails_at(spec, prefix) == (spec.kind == "victim"):
            return prefix
    raise SystemExit(f"no random order shows the planted outcome of {spec.test}")


def bench_one(engine: Engine, spec: ODSpec, prefix: list[str], others: list[str]) -> PerTest:
    test = spec.test
    want_fail = spec.kind == "victim"
    singles = set(spec.polluters if want_fail else spec.state_setters)
    groups = spec.polluter_groups if want_fail else spec.state_setter_groups

    def shows(sub: list[str]) -> bool:
        outcome = engine.run([*sub, test]).outcome_of(test)
        return outcome.is_failure if want_fail else outcome.is_pass

    # pairs: every other test right before the OD test, all in one parallel run_many
    e0, start = engine.executions, time.perf_counter()
    results = engine.run_many([[t, test] for t in others])
    wall = time.perf_counter() - start
    found = [
        r.order[0]
        for r in results
        if (r.outcome_of(test).is_failure if want_fail else r.outcome_of(test).is_pass)
    ]
    pairs = Search(
        len(others), engine.executions - e0, wall, found, set(found) == singles if singles else None
    )

    note = ""
    dd: Optional[Search] = None
    if not shows(prefix):
        note = "the witness order did not reproduce"
    else:
        stats = DDStats()
        e0, start = engine.executions, time.perf_counter()
        answer = ddmin(prefix, shows, stats=stats)
        wall = time.perf_counter() - start
        # a polluter group acts once all members ran, in any order; state-setters in order
        same = (lambda g: sorted(g) == sorted(answer)) if want_fail else (lambda g: g == answer)
        right = (len(answer) == 1 and answer[0] in singles) or any(same(g) for g in groups)
        dd = Search(stats.calls, engine.executions - e0, wall, answer, right)
    return PerTest(test, describe(spec), len(prefix), pairs, dd, note)


def bench_searches(project: Path, truth: GroundTruth, args: argparse.Namespace) -> list[PerTest]:
    rng = random.Random(args.seed)
    out = []
    with Engine(EngineConfig(project, runner="fork", jobs=args.jobs)) as engine:
        groups = [list(g) for g in engine.suite.groups("class").values()]
        for spec in truth.specs:
            prefix = witness(spec, groups, rng)
            others = [t for t in truth.tests if t != spec.test]
            row = bench_one(engine, spec, prefix, others)
            dd = row.ddmin
            print(
                f"  {spec.test}: pairs {row.pairs.wall:.2f} s"
                + (f", ddmin {dd.wall:.2f} s ({dd.orders} orders)" if dd else f", {row.note}"),
                flush=True,
            )
            out.append(row)
    return out


# -- findings against the ground truth -----------------------------------------------------


@dataclass
class Findings:
    """What a tool reported, in ground-truth terms."""

    kinds: dict[str, str] = field(default_factory=dict)  # OD test -> victim | brittle
    polluters: dict[str, set[str]] = field(default_factory=dict)
    cleaners: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (victim, polluter)
    setters: dict[str, set[str]] = field(default_factory=dict)
    polluter_groups: dict[str, list[list[str]]] = field(default_factory=dict)
    setter_groups: dict[str, list[list[str]]] = field(default_factory=dict)
    nd: set[str] = field(default_factory=set)
    nio: set[str] = field(default_factory=set)


def orderdep_findings(report: Report) -> Findings:
    f = Findings(nd=set(report.nd_tests), nio=set(report.nio_tests))
    for finding in report.od_tests:
        f.kinds[finding.test] = finding.kind or "?"
        f.polluters[finding.test] = set(finding.polluters)
        f.setters[finding.test] = set(finding.state_setters)
        for p in finding.polluters:
            f.cleaners[(finding.test, p)] = set(finding.cleaners.get(p, []))
        f.polluter_groups[finding.test] = [list(g) for g in finding.polluter_groups]
        f.setter_groups[finding.test] = [list(g) for g in finding.state_setter_groups]
    return f


@dataclass
class Score:
    detected: int
    kinds: int
    polluters: tuple[int, int, int]  # found right, planted, found wrong
    cleaner_sets: tuple[int, int]  # (victim, polluter) with exactly the planted cleaners
    cleaner_triples: tuple[int, int, int]  # found right, planted, found wrong
    setters: tuple[int, int, int]
    groups: tuple[int, int]
    false_od: list[str]
    nd: tuple[int, int]
    nio: tuple[int, int]


def score(found: Findings, truth: GroundTruth) -> Score:
    detected = kinds = 0
    pol = [0, 0, 0]
    cset = [0, 0]
    ctri = [0, 0, 0]
    sset = [0, 0, 0]
    grp = [0, 0]
    for spec in truth.specs:
        t = spec.test
        if t in found.kinds:
            detected += 1
            kinds += found.kinds[t] == spec.kind
        planted_p = set(spec.polluters)
        got_p = found.polluters.get(t, set())
        pol[0] += len(got_p & planted_p)
        pol[1] += len(planted_p)
        pol[2] += len(got_p - planted_p)
        for p in spec.polluters:
            planted_c = set(spec.cleaners.get(p, []))
            got_c = found.cleaners.get((t, p), set()) if p in got_p else set()
            cset[0] += p in got_p and got_c == planted_c
            cset[1] += 1
            ctri[0] += len(got_c & planted_c)
            ctri[1] += len(planted_c)
            ctri[2] += len(got_c - planted_c)
        planted_s = set(spec.state_setters)
        got_s = found.setters.get(t, set())
        sset[0] += len(got_s & planted_s)
        sset[1] += len(planted_s)
        sset[2] += len(got_s - planted_s)
        # polluter groups act in any order of their members; state-setter groups in theirs
        got_pg = [sorted(g) for g in found.polluter_groups.get(t, [])]
        grp[0] += sum(1 for g in spec.polluter_groups if sorted(g) in got_pg)
        got_sg = found.setter_groups.get(t, [])
        grp[0] += sum(1 for g in spec.state_setter_groups if list(g) in got_sg)
        grp[1] += len(spec.polluter_groups) + len(spec.state_setter_groups)
    od = {s.test for s in truth.specs}
    return Score(
        detected=detected,
        kinds=kinds,
        polluters=(pol[0], pol[1], pol[2]),
        cleaner_sets=(cset[0], cset[1]),
        cleaner_triples=(ctri[0], ctri[1], ctri[2]),
        setters=(sset[0], sset[1], sset[2]),
        groups=(grp[0], grp[1]),
        false_od=sorted(set(found.kinds) - od),
        nd=(len(found.nd & set(truth.nd_tests)), len(truth.nd_tests)),
        nio=(len(found.nio & set(truth.nio_tests)), len(truth.nio_tests)),
    )


# -- part 2: orderdep detect --classify ------------------------------------------------------


@dataclass
class ToolRun:
    name: str
    command: str
    wall: float
    findings: Findings
    detail: str = ""  # how the time splits, what was run
    orders: Optional[int] = None
    executions: Optional[int] = None
    cpu: Optional[float] = None  # CPU seconds of the tool and every process it started
    load: str = ""  # the machine's load average during the run


class LoadSampler:
    """The machine's 1-minute load average, sampled every few seconds during a run."""

    def __init__(self, every: float = 5.0) -> None:
        self.every = every
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._stop.wait(self.every):
                return

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> str:
        if not self.samples:
            return "-"
        mean = sum(self.samples) / len(self.samples)
        return f"{mean:.1f} mean, {max(self.samples):.1f} max (its own processes included)"


def cpu_seconds(include_self: bool) -> float:
    """CPU time used so far by reaped child processes (and their children), and by us."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = used.ru_utime + used.ru_stime
    if include_self:
        me = resource.getrusage(resource.RUSAGE_SELF)
        total += me.ru_utime + me.ru_stime
    return total


def run_orderdep(project: Path, args: argparse.Namespace, tmp: Path) -> ToolRun:
    report_path = tmp / "orderdep-report.json"
    argv = [
        "detect", str(project), "--classify", "--jobs", str(args.jobs),
        "--seed", str(args.seed), "--report", str(report_path),
    ]  # fmt: skip
    out, err = io.StringIO(), io.StringIO()
    # Time the classification inside the command (the CLI imports classify when it needs it).
    real_classify = classify_module.classify
    spent = [0.0]

    def timed_classify(*a: Any, **k: Any) -> Report:
        begin = time.perf_counter()
        try:
            return real_classify(*a, **k)
        finally:
            spent[0] += time.perf_counter() - begin

    classify_module.classify = timed_classify
    cpu0 = cpu_seconds(include_self=True)
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = orderdep_main(argv)
    finally:
        classify_module.classify = real_classify
    wall = time.perf_counter() - start
    cpu = cpu_seconds(include_self=True) - cpu0
    if code not in (0, 1):
        print(out.getvalue(), err.getvalue())
        raise SystemExit(f"orderdep {shlex.join(argv)} exited with {code}")
    report = load_report(report_path)
    strategies = ", ".join(report.stats.strategies)
    return ToolRun(
        "orderdep",
        "orderdep " + shlex.join(argv).replace(str(project), "PROJECT").replace(str(tmp), "TMP"),
        wall,
        orderdep_findings(report),
        f"detection {wall - spent[0]:.1f} s (strategies: {strategies}), classification "
        f"{spent[0]:.1f} s; exit code {code}",
        report.stats.orders_run,
        report.stats.test_executions,
        cpu,
    )


# -- part 3: ipflakies --------------------------------------------------------------------


def ensure_ipflakies(venv: Path) -> Optional[str]:
    """The venv's python with ipflakies importable (made if missing), or None (and why)."""
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import ipflakies, pytest; assert pytest.__version__"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return str(python)
    if shutil.which("script") is None:
        print("ipflakies skipped: the `script` command (util-linux) is missing")
        return None
    print(
        f"creating {venv} with ipflakies: python3 -m venv {venv} && {venv}/bin/pip install ipflakies"
    )
    steps = [
        ["python3", "-m", "venv", str(venv)],
        [str(venv / "bin" / "pip"), "install", "-q", "ipflakies"],
    ]
    for step in steps:
        proc = subprocess.run(step, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"ipflakies skipped: `{shlex.join(step)}` failed:\n{proc.stderr[-2000:]}")
            return None
    if subprocess.run(check, capture_output=True).returncode != 0:
        print("ipflakies skipped: installed, but `import ipflakies` fails in the new venv")
        return None
    return str(python)


def ipflakies_call(
    python: str, project: Path, ipf_args: list[str], log: Path
) -> tuple[float, float]:
    """Run one ipflakies command on a terminal from ``project``; its wall and CPU time."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '')}"  # its `python3`
    env["PYTHONPATH"] = str(project)
    env.pop("PYTHONHOME", None)
    env.pop("VIRTUAL_ENV", None)
    command = shlex.join([python, str(RUNNER), "--no-patch", *ipf_args])
    cpu0 = cpu_seconds(include_self=False)
    start = time.perf_counter()
    with log.open("ab") as out:
        proc = subprocess.run(
            ["script", "-qec", command, "/dev/null"],
            cwd=project, env=env, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    wall = time.perf_counter() - start
    cpu = cpu_seconds(include_self=False) - cpu0
    if proc.returncode != 0:
        tail = log.read_text(errors="replace")[-1500:]
        raise RuntimeError(f"ipflakies {shlex.join(ipf_args)} exited {proc.returncode}:\n{tail}")
    return wall, cpu


def run_ipflakies(python: str, source: Path, args: argparse.Namespace, tmp: Path) -> ToolRun:
    project = tmp / "ipflakies-copy"
    shutil.copytree(source, project, ignore=shutil.ignore_patterns(".orderdep", "__pycache__"))
    log = tmp / "ipflakies.log"
    result_dir = project / "ipflakies_result"
    iterations = ["-i", str(args.ipflakies_iterations), "--seed", str(args.seed)]
    print(f"  ipflakies {shlex.join(iterations)} ...", flush=True)
    detect_wall, cpu = ipflakies_call(python, project, iterations, log)
    flakies: dict[str, Any] = json.loads((result_dir / "flakies.json").read_text())
    f = Findings()
    od = []
    for test, info in flakies.items():
        if not isinstance(info, dict):
            continue  # the "time" entry
        if info.get("type") == "NOD":
            f.nd.add(test)
        else:
            od.append(test)
    print(f"  ipflakies detection: {detect_wall:.0f} s, {len(od)} OD test(s)", flush=True)
    if args.ipflakies_max_tests is not None and len(od) > args.ipflakies_max_tests:
        print(f"  classifying only the first {args.ipflakies_max_tests} (--ipflakies-max-tests)")
        for test in od[args.ipflakies_max_tests :]:
            f.kinds[test] = flakies[test].get("type", "?")
        od = od[: args.ipflakies_max_tests]
    classify_wall = 0.0
    for i, test in enumerate(od, 1):
        before = {p.name for p in result_dir.iterdir() if p.is_dir()}
        wall, used = ipflakies_call(python, project, ["-t", test], log)
        classify_wall += wall
        cpu += used
        new = [p for p in result_dir.iterdir() if p.is_dir() and p.name not in before]
        data: dict[str, Any] = {}
        if new and (new[0] / "minimized.json").exists():
            data = json.loads((new[0] / "minimized.json").read_text())
        kind = data.get("type", flakies[test].get("type", "?"))
        f.kinds[test] = kind
        if kind == "victim":
            pol = data.get("polluter", {})
            f.polluters[test] = set(pol)
            for p, entries in pol.items():
                f.cleaners[(test, p)] = {e["cleaner"] for e in entries if e.get("cleaner")}
        else:
            f.setters[test] = set(data.get("state-setter", {}))
        print(f"  ipflakies -t [{i}/{len(od)}] {wall:.0f} s {kind} {test}", flush=True)
    total = detect_wall + classify_wall
    return ToolRun(
        "ipflakies",
        f"python -m ipflakies {shlex.join(iterations)}; then python -m ipflakies -t TEST "
        "per OD test (patcher off)",
        total,
        f,
        f"detection {detect_wall:.0f} s ({args.ipflakies_iterations} random orders + "
        f"verification), classification {classify_wall:.0f} s ({len(od)} tests"
        + (
            "; only these of its OD tests, --ipflakies-max-tests: NOT comparable)"
            if args.ipflakies_max_tests is not None
            else ")"
        ),
        cpu=cpu,
    )


# -- report -------------------------------------------------------------------------------


def frac(x: tuple[int, ...]) -> str:
    s = f"{x[0]}/{x[1]}"
    return s + (f" (+{x[2]} wrong)" if len(x) > 2 and x[2] else "")


def short(test: str) -> str:
    return test.rsplit("::", 1)[-1]


def render(
    n: int,
    truth: GroundTruth,
    rows: list[PerTest],
    tools: list[ToolRun],
    skipped: Optional[str],
    args: argparse.Namespace,
) -> str:
    per_test = []
    for r in rows:
        dd = r.ddmin
        per_test.append([
            short(r.test), r.kind, r.prefix,
            f"{r.pairs.orders} / {r.pairs.executions}", f"{r.pairs.wall:.2f}",
            "-" if r.pairs.right is None else ("yes" if r.pairs.right else "no"),
            f"{dd.orders} / {dd.executions}" if dd else r.note, f"{dd.wall:.2f}" if dd else "-",
            ("yes" if dd.right else f"no: {[short(t) for t in dd.answer]}") if dd else "-",
        ])  # fmt: skip
    tot_p = sum(r.pairs.wall for r in rows)
    tot_d = sum(r.ddmin.wall for r in rows if r.ddmin)
    exe_p = sum(r.pairs.executions for r in rows)
    exe_d = sum(r.ddmin.executions for r in rows if r.ddmin)
    groups_only = [r for r in rows if r.pairs.right is None]
    body = [
        f"Generated suite of {n} tests (`generate_suite(n_tests={n}, seed={SUITE_SEED})`): "
        f"{len(truth.specs)} planted OD tests, {len(truth.nd_tests)} ND and "
        f"{len(truth.nio_tests)} NIO test(s). Fork runner, `--jobs {args.jobs}`, seed {args.seed}.",
        "",
        "### Pairs vs delta debugging, per OD test",
        "",
        "For each planted OD test, a seeded random order in which it fails (victim) or passes "
        "(brittle) is cut after it. *pairs*: `[t, test]` for every other test (one "
        f"`run_many`, {args.jobs} workers): finds every single polluter / state-setter. "
        "*ddmin*: `orderdep.core.ddmin.ddmin` over the order's prefix, one order at a time "
        "(each step depends on the last): finds one 1-minimal cause, a single test or a "
        "group. Right = matches the ground truth (pairs: exactly the planted single "
        "polluters or state-setters, `-` when there are none; ddmin: one planted single "
        "cause or a planted group). `orderdep classify` runs pairs first and ddmin only when "
        "single causes do not explain the recorded order.",
        "",
        table(
            [
                "OD test",
                "planted",
                "prefix",
                "pairs orders / execs",
                "pairs s",
                "right",
                "ddmin orders / execs",
                "ddmin s",
                "right",
            ],
            per_test,
        ),
        "",
        f"Totals: pairs {tot_p:.1f} s, {exe_p:,} test executions; ddmin {tot_d:.1f} s, "
        f"{exe_d:,} test executions. Tests with only a group cause (pairs cannot explain "
        f"them): {len(groups_only)}.",
        "",
        "### orderdep detect --classify vs ipflakies",
        "",
    ]
    if skipped:
        body += [f"ipflakies: {skipped}", ""]
    headers = ["", *[t.name for t in tools]]
    scores = [score(t.findings, truth) for t in tools]
    rows_cmp: list[list[object]] = [
        ["wall s", *[f"{t.wall:.1f}" for t in tools]],
        ["CPU s (all its processes)", *[f"{t.cpu:.1f}" if t.cpu is not None else "-" for t in tools]],
        ["orders / test executions",
         *[f"{t.orders:,} / {t.executions:,}" if t.orders is not None else "one pytest process per order"
           for t in tools]],
        ["planted OD tests detected", *[f"{s.detected}/{len(truth.specs)}" for s in scores]],
        ["kind (victim/brittle) right", *[f"{s.kinds}/{len(truth.specs)}" for s in scores]],
        ["single polluters", *[frac(s.polluters) for s in scores]],
        ["cleaners (victim, polluter, cleaner)", *[frac(s.cleaner_triples) for s in scores]],
        ["polluters with exactly their cleaners", *[frac(s.cleaner_sets) for s in scores]],
        ["single state-setters", *[frac(s.setters) for s in scores]],
        ["polluter / state-setter groups", *[frac(s.groups) for s in scores]],
        ["reported OD but not planted", *[str(len(s.false_od)) for s in scores]],
        ["ND tests identified", *[frac(s.nd) for s in scores]],
        ["NIO tests identified", *[frac(s.nio) for s in scores]],
    ]  # fmt: skip
    body += [table(headers, rows_cmp), ""]
    for t in tools:
        body.append(f"- {t.name}: `{t.command}`; {t.detail}; load average {t.load}.")
    if len(tools) == 2 and tools[1].wall > 0:
        ratio = tools[0].wall / tools[1].wall
        cpu_a, cpu_b = tools[0].cpu, tools[1].cpu
        cpu_ratio = (
            f"; CPU: {100 * cpu_a / cpu_b:.1f}% (1/{cpu_b / cpu_a:.0f})" if cpu_a and cpu_b else ""
        )
        body += [
            "",
            f"**orderdep took {100 * ratio:.1f}% of ipflakies' wall time (1/{1 / ratio:.0f})"
            f"{cpu_ratio}** (target: at most 1/20, finding at least as much). The machine is "
            "shared with other work: the load averages above show how busy it was during each "
            "run (2 cores; orderdep runs 2 workers, ipflakies one pytest process at a time).",
        ]
    for t, s in zip(tools, scores):
        if s.false_od:
            body.append(f"- {t.name} reported as OD but not planted: {s.false_od}")
    return "\n".join(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--ipflakies-iterations", type=int, default=100, help="its -i (default 100, its own)"
    )
    parser.add_argument("--ipflakies-venv", type=Path, default=Path("/tmp/ipf"))
    parser.add_argument(
        "--ipflakies-max-tests", type=int, default=None,
        help="classify only this many of ipflakies' OD tests (quick trials; not comparable)",
    )  # fmt: skip
    parser.add_argument("--no-ipflakies", action="store_true", help="skip the ipflakies run")
    parser.add_argument("--skip-searches", action="store_true", help="skip part 1 (pairs vs ddmin)")
    parser.add_argument("--keep", type=Path, default=None, help="keep work files (logs) here")
    parser.add_argument("--no-doc", action="store_true", help="print only; leave the doc alone")
    parser.add_argument(
        "--cost", action="store_true",
        help="only the cost per OD test, one-by-one vs group testing (classify_cost.py)",
    )  # fmt: skip
    parser.add_argument("--cost-sizes", default="100,500,2000", help="suite sizes for --cost")
    parser.add_argument(
        "--cost-engine-max", type=int, default=100,
        help="with --cost: also time the real engine on suites up to this size",
    )  # fmt: skip
    args = parser.parse_args()
    if args.cost:
        import classify_cost

        with tempfile.TemporaryDirectory() as tmpdir:
            sizes = [int(x) for x in args.cost_sizes.split(",")]
            body = classify_cost.main(
                sizes, Path(tmpdir), args.jobs, args.cost_engine_max, args.seed
            )
        if not args.no_doc:
            write_section("Classification cost", body)
        print(body)
        return
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = args.keep or Path(tmpdir)
        tmp.mkdir(parents=True, exist_ok=True)
        pristine = tmp / "suite-pristine"
        truth = generate_suite(pristine, n_tests=args.tests, seed=SUITE_SEED)
        project = tmp / "suite"
        shutil.copytree(pristine, project)
        rows: list[PerTest] = []
        if not args.skip_searches:
            print("pairs vs ddmin per OD test", flush=True)
            rows = bench_searches(project, truth, args)
        print("orderdep detect --classify", flush=True)
        with LoadSampler() as load:
            tools = [run_orderdep(project, args, tmp)]
        tools[0].load = load.summary()
        print(f"  {tools[0].wall:.1f} s", flush=True)
        skipped: Optional[str] = None
        if args.no_ipflakies:
            skipped = "skipped (--no-ipflakies)"
        else:
            python = ensure_ipflakies(args.ipflakies_venv)
            if python is None:
                skipped = "skipped: it could not be installed (see the benchmark's output)"
            else:
                print("ipflakies", flush=True)
                try:
                    with LoadSampler() as load:
                        tools.append(run_ipflakies(python, pristine, args, tmp))
                    tools[-1].load = load.summary()
                except RuntimeError as exc:
                    skipped = f"failed: {str(exc).splitlines()[0]}"
                    print(exc)
    body = render(args.tests, truth, rows, tools, skipped, args)
    if not args.no_doc:
        write_section("Classification", body)
    print(body)


if __name__ == "__main__":
    main()
