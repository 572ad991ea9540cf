"""Repair benchmark: share of planted OD tests that get a verified patch, per strategy and
per channel, the whole ``detect --classify`` + ``fix --apply`` pipeline, an independent
check that applied fixes work, and ipflakies' patcher on the same suites side by side.

Two generated suites (``repair_suites.py``: same size and seed, with and without channel
cleaners, each with one ND test). Parts (``--parts``, default all):

``strategies``
    For every planted OD test (victims and brittles), a finding built from the ground
    truth (``repair_suites.finding_for``), repaired by ``Repairer(strategy=S,
    full_suite=True, nd_tests=<the ground truth's ND tests>)`` for S in cleaner,
    generated, restore, polluter, auto, with the real engine (fork runner): verified or
    not, patch size, wall time, the notes.
``apply``
    Every ``auto`` fix written into a copy of the suite (``apply_fix``, what ``orderdep fix
    --apply`` does), then with a fresh engine: each OD test's ground-truth failing orders
    and 5 seeded random class-compatible orders, on the patched copy and on the original
    (failures of the ND test are not counted).
``pipeline``
    ``orderdep detect P --classify`` then ``orderdep fix P --apply`` through ``main(argv)``
    on a copy of the suite with cleaners; then the same check as ``apply`` on the result.
``ipflakies``
    ipflakies (PyPI; iFixFlakies: finds polluters/state-setters and cleaners by running one
    pytest process per pair, then transplants a cleaner's / state-setter's statements and
    minimises them) run as ``python -m ipflakies -t TEST`` for every planted OD test on a
    copy of each suite. Each patched test file it saves is checked with our engine on a
    fresh copy (the test's failing orders, and its passing order). ipflakies pins pytest
    6.2.5, so it lives in a venv of its own, made when missing::

        python3 -m venv /tmp/ipf && /tmp/ipf/bin/pip install ipflakies

    It reads the terminal size when imported, so it runs under ``script -qec CMD /dev/null``;
    pytest 6 ignores the ``pythonpath`` ini option, so ``PYTHONPATH`` is the copy; and its
    patcher deletes ``tests/__pycache__`` (crashing when it is missing), so
    ``PYTHONDONTWRITEBYTECODE`` is removed from its environment.

Every pytest process of orderdep runs with ``PYTEST_ADDOPTS="-p no:hypothesispytest"``:
hypothesis' plugin is installed in the development venv and costs ~1 s per process.

Each part writes ``RESULTS/<part>.json``; the section is rendered from every part found
there, so parts can run separately (``--parts ipflakies``) and ``--render`` re-renders.

Usage: python benchmarks/bench_repair.py [--tests 80] [--seed 1] [--parts strategies,apply,pipeline,ipflakies]
Writes the section "Repair" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

os.environ["PYTEST_ADDOPTS"] = (
    os.environ.get("PYTEST_ADDOPTS", "") + " -p no:hypothesispytest"
).strip()
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section
from repair_suites import (
    SUITES,
    BenchSuite,
    failing_orders,
    finding_for,
    label,
    make_suite,
    passing_order,
    random_orders,
)

from orderdep.analysis.repair.fix import STRATEGY_CHOICES, Repairer
from orderdep.analysis.repair.fix_result import Fix, apply_fix
from orderdep.core.report import load_report
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.engine.sandbox import copy_project
from orderdep.shells.cli import main as orderdep_main

PARTS = ("strategies", "apply", "pipeline", "ipflakies")
# Why a strategy alone leaves some channels unrepaired (printed for strategies that did).
STRATEGY_LIMITS = {
    "cleaner": "it needs a cleaner (a state-setter or a group of them, for a brittle) named "
    "in the report: the *no cleaners* suite names none for most channels, and neither suite "
    "has one for `cwd` or `sys_path`; the module-fixture victim of the *no cleaners* suite "
    "has only tests of other modules as cleaners (they clean by letting pytest tear the "
    "fixture down), and no statement of theirs resets the value",
    "generated": "it calls reset-methods of the project's code (003 §3.2.1): no project "
    "function resets an environment variable, a file, the working directory, `sys.path`, "
    "`sys.modules`, an lru cache, a class attribute set by assignment, a test module's own "
    "global or the connection pool; a brittle's state is rebuilt only when one method call "
    "with a mined literal does it (not the setter group's three migrations in order)",
    "restore": "the `sys.path` entry the polluter adds is its `tmp_path`, a new directory in "
    "every run, so no literal inserted into the victim names it; the polluter strategy "
    "(the polluter works on a copy of `sys.path`) repairs it",
    "polluter": "brittles have no polluter to guard",
}
RANDOM_ORDERS = 5
Json = dict[str, Any]


def say(message: str) -> None:
    print(message, flush=True)


# -- part 1: each strategy on every planted OD test ----------------------------------------
def bench_strategies(suite: BenchSuite, fixes: dict[str, Fix]) -> list[Json]:
    """One row per (strategy, OD test); the ``auto`` fixes land in ``fixes``."""
    rows: list[Json] = []
    config = EngineConfig(suite.root)
    with Engine(config) as engine:
        engine.run(engine.suite.ids[:1])  # start the server outside the timings
        for strategy in STRATEGY_CHOICES:
            repairer = Repairer(
                config, engine, strategy=strategy, full_suite=True, nd_tests=suite.truth.nd_tests
            )
            for spec in suite.truth.specs:
                channel = suite.truth.channels.get(spec.test, "?")
                start = time.perf_counter()
                result = repairer.repair(finding_for(spec))
                wall = time.perf_counter() - start
                fix = result.fix
                if fix is not None and strategy == "auto":
                    fixes[spec.test] = fix
                rows.append(
                    {
                        "suite": suite.name,
                        "strategy": strategy,
                        "test": spec.test,
                        "kind": spec.kind,
                        "channel": channel,
                        "label": label(spec, channel),
                        "fixed": fix is not None,
                        "fix_strategy": fix.strategy if fix else None,
                        "size": fix.size if fix else None,
                        "description": fix.description if fix else None,
                        "seconds": wall,
                        "candidates": result.candidates,
                        "verified": result.verified,
                        "notes": list(result.notes),
                    }
                )
                mark = f"{fix.strategy} {fix.size} line(s)" if fix else "no fix"
                say(
                    f"  [{suite.name}] {strategy:<9} {wall:5.1f} s {mark:<22} {label(spec, channel)}"
                )
    return rows


# -- parts 2 and 3: do applied fixes work? -------------------------------------------------
def check_applied(suite: BenchSuite, patched: Path, repaired: Sequence[str], seed: int) -> Json:
    """Failing orders of every OD test + random orders, on ``patched`` and the original."""
    truth = suite.truth
    od = [s.test for s in truth.specs]
    nd = set(truth.nd_tests)
    checks: list[tuple[str, list[str], Optional[str]]] = []  # (what, order, its OD test)
    for spec in truth.specs:
        checks += [("failing order", o, spec.test) for o in failing_orders(spec)]
    checks += [("random order", o, None) for o in random_orders(truth.tests, RANDOM_ORDERS, seed)]
    out: Json = {"repaired": sorted(repaired), "od_tests": len(od), "orders": []}
    for where, project in (("patched", patched), ("original", suite.root)):
        with Engine(EngineConfig(project)) as engine:
            for i, (what, order, test) in enumerate(checks):
                res = engine.run(order)
                failed = [t for t in res.failed_tests() if t not in nd]
                if where == "patched":
                    out["orders"].append({"what": what, "test": test, "len": len(order)})
                entry = out["orders"][i]
                entry[where] = {
                    "repaired": [t for t in failed if t in repaired],
                    "unrepaired_od": [t for t in failed if t in od and t not in repaired],
                    "other": [t for t in failed if t not in od],
                }
    return out


def apply_all(suite: BenchSuite, fixes: dict[str, Fix], dest: Path) -> list[str]:
    """Write every fix into a copy of the suite at ``dest``; the tests whose fix applied."""
    copy_project(suite.root, dest)
    applied = []
    for test, fix in fixes.items():
        try:
            apply_fix(dest, fix)
            applied.append(test)
        except Exception as exc:  # a fix that no longer applies on top of the others
            say(f"  fix for {test} does not apply after the others: {exc}")
    return applied


def run_cli(argv: list[str]) -> tuple[int, str, float]:
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = orderdep_main(argv)
    return code, out.getvalue(), time.perf_counter() - start


def shown(argv: list[str], project: Path, report: Path) -> str:
    """The command as the doc shows it: the project is P, the report REPORT."""
    names = {str(project): "P", str(report): "REPORT"}
    return "orderdep " + shlex.join(names.get(a, a) for a in argv)


def bench_pipeline(suite: BenchSuite, tmp: Path, seed: int) -> Json:
    project = tmp / "pipeline"
    copy_project(suite.root, project)
    truth = suite.truth
    report_path = tmp / "pipeline-report.json"
    detect = [
        "detect",
        str(project),
        "--classify",
        "--seed",
        str(seed),
        "--report",
        str(report_path),
    ]
    say(f"  orderdep {shlex.join(detect)}")
    d_code, _, d_wall = run_cli(detect)
    report = load_report(report_path)
    planted = {s.test: s for s in truth.specs}
    found = {f.test: f for f in report.od_tests}
    kinds_right = sum(1 for t, f in found.items() if t in planted and f.kind == planted[t].kind)
    fix = ["fix", str(project), "--report", str(report_path), "--apply"]
    say(f"  orderdep {shlex.join(fix)}")
    f_code, f_out, f_wall = run_cli(fix)
    fixed = re.findall(r"^fix for (\S+) \((\w+)\): (\w+),", f_out, re.M)
    unfixed = re.findall(r"^no verified fix for (\S+) ", f_out, re.M)
    (tmp / "pipeline-fix.log").write_text(f_out, encoding="utf-8")
    repaired = [t for t, _, _ in fixed]
    check = check_applied(suite, project, repaired, seed + 1)
    return {
        "suite": suite.name,
        "tests": len(truth.tests),
        "planted": len(planted),
        "detect_cmd": shown(detect, project, report_path),
        "fix_cmd": shown(fix, project, report_path),
        "detect_code": d_code,
        "detect_seconds": d_wall,
        "orders_run": report.stats.orders_run,
        "found": sorted(found),
        "true_od": sorted(t for t in found if t in planted),
        "false_od": sorted(t for t in found if t not in planted),
        "kinds_right": kinds_right,
        "fix_code": f_code,
        "fix_seconds": f_wall,
        "fixed": [{"test": t, "kind": k, "strategy": s} for t, k, s in fixed],
        "unfixed": unfixed,
        "check": check,
    }


# -- part 4: ipflakies ---------------------------------------------------------------------
def ensure_ipflakies(venv: Path) -> tuple[Optional[str], str]:
    """(the venv's python, "") when ipflakies runs there (made if missing), else (None, why)."""
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import ipflakies, pytest; print(pytest.__version__)"]
    if shutil.which("script") is None:
        return None, "the `script` command (util-linux) is missing; ipflakies needs a terminal"
    if not (python.exists() and subprocess.run(check, capture_output=True).returncode == 0):
        say(f"creating {venv}: python3 -m venv {venv} && {venv}/bin/pip install ipflakies")
        for step in (
            ["python3", "-m", "venv", str(venv)],
            [str(venv / "bin" / "pip"), "install", "-q", "ipflakies"],
        ):
            proc = subprocess.run(step, capture_output=True, text=True)
            if proc.returncode != 0:
                return None, f"`{shlex.join(step)}` failed: {proc.stderr.strip()[-500:]}"
    proc = subprocess.run(check, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"`import ipflakies` fails in {venv}: {proc.stderr.strip()[-500:]}"
    return str(python), ""


def ipflakies_env(python: str, project: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '')}"  # its `python3`
    env["PYTHONPATH"] = str(project)
    for name in ("PYTHONHOME", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE", "PYTEST_ADDOPTS"):
        env.pop(name, None)
    return env


def verify_ipflakies_patch(suite: BenchSuite, test: str, patched_file: Path, tmp: Path) -> Json:
    """Our engine on a copy with ipflakies' patched test module: failing and passing orders."""
    spec = suite.truth.spec(test)
    copy = tmp / "ipf-verify"
    shutil.rmtree(copy, ignore_errors=True)
    copy_project(suite.root, copy)
    module = test.split("::", 1)[0]
    (copy / module).write_text(patched_file.read_text(encoding="utf-8"), encoding="utf-8")
    orders = [*failing_orders(spec), passing_order(spec)]
    out: Json = {"orders": len(orders), "passed": 0, "error": None}
    try:
        with Engine(EngineConfig(copy)) as engine:
            for order in orders:
                if not engine.run(order).outcome_of(test).is_failure:
                    out["passed"] += 1
    except Exception as exc:  # the patched module does not collect
        out["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    return out


def bench_ipflakies(
    suite: BenchSuite, python: str, tmp: Path, max_tests: Optional[int]
) -> list[Json]:
    project = tmp / f"ipflakies-{suite.name.replace(' ', '-')}"
    copy_project(suite.root, project)
    results = project / "ipflakies_result"
    log = tmp / f"{project.name}.log"
    env = ipflakies_env(python, project)
    rows: list[Json] = []
    for spec in suite.truth.specs[:max_tests]:
        before = set(results.iterdir()) if results.exists() else set()
        command = shlex.join([python, "-m", "ipflakies", "-t", spec.test])
        start = time.perf_counter()
        with log.open("ab") as out:
            proc = subprocess.run(
                ["nice", "script", "-qec", command, "/dev/null"],
                cwd=project, env=env, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )  # fmt: skip
        wall = time.perf_counter() - start
        new = [p for p in (set(results.iterdir()) if results.exists() else set()) - before]
        data: Json = {}
        for d in new:
            if (d / "minimized.json").exists():
                data = json.loads((d / "minimized.json").read_text(encoding="utf-8"))
        role = "polluter" if data.get("type") == "victim" else "state-setter"
        patches = [
            e.get("patch")
            for entries in (data.get(role) or {}).values()
            for e in entries
            if e.get("patch")
        ]
        channel = suite.truth.channels.get(spec.test, "?")
        row: Json = {
            "suite": suite.name,
            "test": spec.test,
            "kind": spec.kind,
            "label": label(spec, channel),
            "seconds": wall,
            "exit": proc.returncode,
            "ipf_kind": data.get("type"),
            "found": sorted(data.get(role) or {}),
            "patched": bool(data.get("patch")),
            "patches": len(patches),
            "verified": None,
        }
        if proc.returncode != 0 or not data:
            tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
            row["error"] = tail[0][-300:] if tail else f"exit code {proc.returncode}"
        # Check its best patch: one that fixes every polluter, else the first.
        best = [p for p in patches if len(p.get("fixed_polluter(s)") or ()) == len(row["found"])]
        chosen = (best or patches)[:1]
        if chosen:
            path = project / chosen[0]["patched_test_file"]
            if path.exists():
                row["verified"] = verify_ipflakies_patch(suite, spec.test, path, tmp)
        mark = "patched" if row["patched"] else "no patch"
        say(f"  [{suite.name}] ipflakies {wall:5.0f} s {mark:<9} {row['label']}")
        rows.append(row)
    return rows


# -- rendering -----------------------------------------------------------------------------
def pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "0/0"


def short(note: str) -> str:
    """A note on one line, paths shortened, at most 160 characters."""
    text = re.sub(r"tests/test_\w+\.py::(?:\w+::)?", "", note.splitlines()[0] if note else "")
    return (text[:157] + "...") if len(text) > 160 else text


def main_note(notes: Sequence[str]) -> str:
    """The note that says why: the debugger's when it found nothing, else the last one."""
    debugger = [n for n in notes if n.startswith("debugger:")]
    return (debugger or list(notes) or [""])[-1]


def ipf_verified(row: Json) -> bool:
    v = row.get("verified")
    return bool(v and not v.get("error") and v["passed"] == v["orders"])


def render(results: dict[str, Any], args: argparse.Namespace) -> str:
    body: list[str] = []
    meta = results.get("meta", {})
    body += [
        f"Generated suites (`repair_suites.py`): {meta.get('tests')} tests each, seed "
        f"{meta.get('seed')}, `SuitePlan.for_size` (one ND test: `app/balancer.py` picks a "
        "replica through `random.SystemRandom`, failing half the time); *cleaners*: "
        "`channel_cleaners=True`, *no cleaners*: `channel_cleaners=False` (only the "
        "many-cleaner, two-polluter and polluter-group victims keep cleaners). Planted OD "
        f"tests: {', '.join(f'{k}: {v}' for k, v in meta.get('planted', {}).items())}. "
        "Findings come from the ground truth (failing order [polluter, victim] / [brittle], "
        "passing order [victim] / [setter, brittle]), so these figures do not depend on "
        "detection. Every patch is verified by `Repairer` on a patched copy (failing and "
        "passing orders, and the whole suite, not comparing the ground truth's ND test nor "
        "tests whose outcome differs between two unpatched runs). Fork runner, one job, under `nice`; "
        '`PYTEST_ADDOPTS="-p no:hypothesispytest"` (hypothesis\' pytest plugin, installed in '
        "the development venv, costs ~1 s per pytest process).",
        "",
    ]
    runs = results.get("runs", [])
    if runs:
        made = "; ".join(f"`{r['command']}` ({', '.join(r['parts'])})" for r in runs)
        body += [f"Results made by: {made}.", ""]
    note = concurrency_note(runs)
    if note:
        body += [note, ""]
    rows: list[Json] = results.get("strategies", [])
    if rows:
        body += ["### Verified patches per strategy", ""]
        trows = []
        for strategy in STRATEGY_CHOICES:
            line: list[object] = [strategy]
            for name in SUITES:
                sel = [r for r in rows if r["strategy"] == strategy and r["suite"] == name]
                if not sel:
                    line += ["-", "-"]
                    continue
                ok = sum(r["fixed"] for r in sel)
                line += [pct(ok, len(sel)), f"{sum(r['seconds'] for r in sel) / len(sel):.1f}"]
            trows.append(line)
        heads = ["strategy"]
        for name in SUITES:
            heads += [f"repaired ({name})", f"s per OD test ({name})"]
        body += [table(heads, trows), ""]
        auto = [r for r in rows if r["strategy"] == "auto"]
        ok = sum(r["fixed"] for r in auto)
        body += [
            f"**auto: {ok} of {len(auto)} planted OD tests repaired with a verified patch** "
            "(target: all; ODRepair repaired 141 of 327, iFixFlakies needs a cleaner).",
            "",
            "### auto per channel",
            "",
            "Strategy of the chosen (smallest verified) patch and its changed lines; for a "
            "test left unrepaired, the debugger's note of `FixResult.notes` (all notes below).",
            "",
        ]
        labels = list(dict.fromkeys(r["label"] for r in auto))
        crow = []
        for lab in labels:
            line = [lab]
            for name in SUITES:
                sel = [r for r in auto if r["label"] == lab and r["suite"] == name]
                if not sel:
                    line.append("-")
                    continue
                parts = []
                for r in sel:
                    if r["fixed"]:
                        parts.append(f"{r['fix_strategy']} ({r['size']})")
                    else:
                        parts.append("**no fix**: " + short(main_note(r["notes"])))
                line.append("; ".join(parts))
            crow.append(line)
        body += [table(["channel", *SUITES], crow), ""]
        body += ["### Each strategy alone per channel (repaired: cleaners; no cleaners)", ""]
        srow = []
        for lab in labels:
            line = [lab]
            for strategy in STRATEGY_CHOICES[:-1]:
                cells = []
                for name in SUITES:
                    sel = [
                        r
                        for r in rows
                        if r["label"] == lab and r["suite"] == name and r["strategy"] == strategy
                    ]
                    cells.append(f"{sum(r['fixed'] for r in sel)}/{len(sel)}" if sel else "-")
                line.append("; ".join(cells))
            srow.append(line)
        body += [table(["channel", *STRATEGY_CHOICES[:-1]], srow), ""]
        missed = [
            s
            for s in STRATEGY_CHOICES[:-1]
            if any(not r["fixed"] for r in rows if r["strategy"] == s)
        ]
        if missed:
            body += ["Why a strategy alone leaves channels unrepaired:", ""]
            body += [f"- {s}: {STRATEGY_LIMITS[s]}." for s in missed if s in STRATEGY_LIMITS]
            body.append("")
        missing = [r for r in auto if not r["fixed"]]
        if missing:
            body += ["Unrepaired by `auto`, with every note:", ""]
            for r in missing:
                body.append(f"- {r['suite']}: `{r['test']}` ({r['label']}):")
                body += [f"  - {short(n)}" for n in r["notes"]]
            body.append("")
    checks: list[Json] = results.get("apply", [])
    if checks:
        body += [
            "### Applied `auto` fixes, checked independently",
            "",
            f"All `auto` fixes of a suite written into one copy (`apply_fix`, as `orderdep fix "
            f"--apply`); then, with a fresh engine on the copy and on the original, every "
            f"OD test's ground-truth failing orders and {RANDOM_ORDERS} seeded random "
            "class-compatible orders of the whole suite. Failures counted per order (the ND "
            "test's are not).",
            "",
        ]
        body += [check_table(checks), ""]
    pipe: Optional[Json] = results.get("pipeline")
    if pipe:
        body += pipeline_lines(pipe)
    ipf: Optional[Json] = results.get("ipflakies")
    if ipf is not None:
        body += ipflakies_lines(ipf, rows, pipe)
    return "\n".join(body)


def check_table(checks: list[Json]) -> str:
    trows = []
    for c in checks:
        for what in ("failing order", "random order"):
            sel = [o for o in c["orders"] if o["what"] == what]
            line: list[object] = [c.get("name", c.get("suite")), f"{what}s", len(sel)]
            for where in ("original", "patched"):
                line += [
                    sum(len(o[where]["repaired"]) for o in sel),
                    sum(len(o[where]["unrepaired_od"]) for o in sel),
                    sum(len(o[where]["other"]) for o in sel),
                ]
            trows.append(line)
    return table(
        [
            "suite",
            "orders",
            "n",
            "original: repaired OD fail",
            "original: other OD fail",
            "original: non-OD fail",
            "patched: repaired OD fail",
            "patched: other OD fail",
            "patched: non-OD fail",
        ],
        trows,
    )


def pipeline_lines(pipe: Json) -> list[str]:
    fixed = pipe["fixed"]
    true_fixed = [f for f in fixed if f["test"] in pipe["true_od"]]
    strategies: dict[str, int] = {}
    for f in fixed:
        strategies[f["strategy"]] = strategies.get(f["strategy"], 0) + 1
    lines = [
        "### Whole pipeline: detect --classify, then fix --apply",
        "",
        f"On a copy P of the *{pipe['suite']}* suite ({pipe['tests']} tests, "
        f"{pipe['planted']} planted OD tests), through `orderdep.shells.cli.main`:",
        "",
        table(
            ["step", "wall s", "exit", "result"],
            [
                [
                    f"`{pipe['detect_cmd']}`",
                    f"{pipe['detect_seconds']:.0f}",
                    pipe["detect_code"],
                    f"{len(pipe['found'])} OD tests reported ({len(pipe['true_od'])} planted, "
                    f"{len(pipe['false_od'])} not), {pipe['kinds_right']} with the right kind; "
                    f"{pipe['orders_run']} orders",
                ],
                [
                    f"`{pipe['fix_cmd']}`",
                    f"{pipe['fix_seconds']:.0f}",
                    pipe["fix_code"],
                    f"{len(fixed)} fixed ({len(true_fixed)} planted; "
                    + ", ".join(f"{k}: {v}" for k, v in sorted(strategies.items()))
                    + f"), {len(pipe['unfixed'])} without a verified fix",
                ],
            ],
        ),
        "",
        f"**Pipeline: {len(true_fixed)} of {pipe['planted']} planted OD tests detected, "
        "classified and repaired.**",
    ]
    if pipe["unfixed"]:
        lines.append(f"No verified fix: {', '.join('`' + t + '`' for t in pipe['unfixed'])}.")
    missed = [t for t in pipe.get("planted_ids", []) if t not in pipe["found"]]
    if missed:
        lines.append(f"Not detected: {', '.join('`' + t + '`' for t in missed)}.")
    lines += [
        "",
        "The applied project, checked like the `auto` fixes above:",
        "",
        check_table([{**pipe["check"], "name": "pipeline"}]),
        "",
    ]
    return lines


def ipflakies_lines(ipf: Json, rows: list[Json], pipe: Optional[Json]) -> list[str]:
    lines = ["### ipflakies side by side", ""]
    if ipf.get("skipped"):
        return [*lines, f"ipflakies not run: {ipf['skipped']}", ""]
    lines += [
        f"ipflakies {ipf.get('version', '')} (its own venv, pytest {ipf.get('pytest', '?')}): "
        "`python -m ipflakies -t TEST` for every planted OD test, on a copy of each suite "
        "(it finds the kind, the polluters or state-setters and the cleaners itself, one "
        "pytest process per pair, then transplants a cleaner's or state-setter's "
        "statements and minimises them). *patched*: it reports a patch that, by its own "
        "check, fixes at least one polluter (any patch, for a brittle); *verified*: the "
        "patched test file it saves, put into a fresh copy, makes the test pass in every "
        "ground-truth failing order and in its passing order under our engine. orderdep: "
        "`auto` from the table above. Time per OD test: ipflakies' includes its own search "
        "for polluters/state-setters and cleaners; orderdep's starts from the ground-truth "
        "finding (the whole pipeline, detection included, is timed above).",
        "",
    ]
    trows = []
    for name in SUITES:
        sel = [r for r in ipf.get("rows", []) if r["suite"] == name]
        auto = [r for r in rows if r["strategy"] == "auto" and r["suite"] == name]
        if not sel:
            continue
        tested = {r["test"] for r in sel}
        auto = [r for r in auto if r["test"] in tested]
        trows.append(
            [
                name,
                len(sel),
                pct(sum(r["patched"] for r in sel), len(sel)),
                pct(sum(ipf_verified(r) for r in sel), len(sel)),
                f"{sum(r['seconds'] for r in sel) / len(sel):.0f}",
                pct(sum(r["fixed"] for r in auto), len(auto)) if auto else "-",
                f"{sum(r['seconds'] for r in auto) / len(auto):.1f}" if auto else "-",
            ]
        )
    lines += [
        table(
            [
                "suite",
                "OD tests",
                "ipflakies patched",
                "ipflakies verified",
                "ipflakies s per OD test",
                "orderdep auto repaired",
                "orderdep s per OD test",
            ],
            trows,
        ),
        "",
    ]
    prow = []
    for r in ipf.get("rows", []):
        v = r.get("verified")
        check = (
            "-"
            if not v
            else f"error: {v['error']}"
            if v.get("error")
            else f"passes {v['passed']}/{v['orders']} orders"
        )
        found = f"{len(r['found'])} {'polluter' if r['ipf_kind'] == 'victim' else 'setter'}(s)"
        prow.append(
            [
                r["suite"],
                r["label"],
                r["ipf_kind"] or f"- ({r.get('error', 'no result')})",
                found if r["ipf_kind"] else "-",
                "yes" if r["patched"] else "no",
                check,
                f"{r['seconds']:.0f}",
            ]
        )
    lines += [
        table(["suite", "channel", "its kind", "found", "patched", "our check", "s"], prow),
        "",
    ]
    unsound = [r for r in ipf.get("rows", []) if r["patched"] and not ipf_verified(r)]
    if unsound:
        lines += [
            f"{len(unsound)} patch(es) ipflakies reported do not hold under our engine. "
            "ipflakies checks a candidate by running `[polluter, copy::victim]` where the "
            "patched victim lives in a new module file (`test_x_patch_<md5>N.py`), so "
            "whatever the test module itself holds (its globals, its module fixtures) is "
            "fresh there, and its minimiser accepts statements that reset nothing; a patch "
            "that fixes one of two polluters also counts as patched.",
            "",
        ]
    if pipe and ipf.get("rows"):
        sel = [r for r in ipf["rows"] if r["suite"] == pipe["suite"]]
        per_test = (pipe["detect_seconds"] + pipe["fix_seconds"]) / max(pipe["planted"], 1)
        lines += [
            f"On the *{pipe['suite']}* suite, orderdep's whole pipeline (detection, "
            f"classification and repair) took {per_test:.0f} s per planted OD test; "
            f"ipflakies took {sum(r['seconds'] for r in sel) / max(len(sel), 1):.0f} s per OD "
            "test for classification and repair alone, given the OD tests.",
            "",
        ]
    return lines


# -- main ----------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=int, default=80, help="tests per suite (default 80)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated: {PARTS}")
    parser.add_argument(
        "--results", type=Path, default=Path(tempfile.gettempdir()) / "bench_repair"
    )
    parser.add_argument("--render", action="store_true", help="only render RESULTS/*.json")
    parser.add_argument("--ipflakies-venv", type=Path, default=Path("/tmp/ipf"))
    parser.add_argument(
        "--ipflakies-max-tests", type=int, default=None, help="per suite (quick trials)"
    )
    args = parser.parse_args()
    parts = [p for p in args.parts.split(",") if p]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        parser.error(f"unknown part(s) {unknown}; choose from {PARTS}")
    args.results.mkdir(parents=True, exist_ok=True)
    if not args.render:
        start = time.time()
        run_parts(parts, args)
        log_run(args.results, parts, start)
    results: dict[str, Any] = {}
    for name in ("meta", "runs", *PARTS):
        path = args.results / f"{name}.json"
        if path.exists():
            results[name] = json.loads(path.read_text(encoding="utf-8"))
    text = render(results, args)
    write_section("Repair", text)
    print(text)


def log_run(results: Path, parts: list[str], start: float) -> None:
    """Append this process's parts and times to RESULTS/runs.json (kept: the latest per part)."""
    path = results / "runs.json"
    runs: list[Json] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    runs = [r for r in runs if not set(r["parts"]) & set(parts)]
    command = shlex.join(["python", *sys.argv])
    runs.append({"parts": parts, "start": start, "end": time.time(), "command": command})
    path.write_text(json.dumps(runs, indent=1), encoding="utf-8")


def concurrency_note(runs: list[Json]) -> str:
    """A sentence naming the parts that ran at the same time in separate processes."""
    pairs = []
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            overlap = min(a["end"], b["end"]) - max(a["start"], b["start"])
            if overlap > 0:
                pairs.append(
                    f"{', '.join(a['parts'])} and {', '.join(b['parts'])} ({overlap / 60:.0f} min)"
                )
    if not pairs:
        return ""
    return (
        "Parts run in separate processes overlapped in time (their timings shared the 2 "
        f"cores): {'; '.join(pairs)}."
    )


def run_parts(parts: list[str], args: argparse.Namespace) -> None:
    def save(name: str, data: Any) -> None:
        (args.results / f"{name}.json").write_text(json.dumps(data, indent=1), encoding="utf-8")

    with tempfile.TemporaryDirectory(prefix="bench-repair-") as tmp_name:
        tmp = Path(tmp_name)
        suites = {
            n: make_suite(n, tmp / n.replace(" ", "-"), args.tests, args.seed) for n in SUITES
        }
        save(
            "meta",
            {
                "tests": args.tests,
                "seed": args.seed,
                "planted": {n: len(s.truth.specs) for n, s in suites.items()},
            },
        )
        fixes: dict[str, dict[str, Fix]] = {n: {} for n in SUITES}
        if "strategies" in parts or "apply" in parts:
            rows: list[Json] = []
            for name, suite in suites.items():
                say(f"strategies on the suite with {name}")
                rows += bench_strategies(suite, fixes[name])
            if "strategies" in parts:
                save("strategies", rows)
        if "apply" in parts:
            checks = []
            for name, suite in suites.items():
                say(f"applying {len(fixes[name])} auto fixes to a copy of the {name} suite")
                dest = tmp / f"applied-{name.replace(' ', '-')}"
                applied = apply_all(suite, fixes[name], dest)
                checks.append({"suite": name, **check_applied(suite, dest, applied, args.seed + 1)})
            save("apply", checks)
        if "pipeline" in parts:
            say("pipeline on the suite with cleaners")
            pipe = bench_pipeline(suites["cleaners"], tmp, args.seed)
            pipe["planted_ids"] = [s.test for s in suites["cleaners"].truth.specs]
            save("pipeline", pipe)
        if "ipflakies" in parts:
            python, why = ensure_ipflakies(args.ipflakies_venv)
            if python is None:
                say(f"ipflakies skipped: {why}")
                save("ipflakies", {"skipped": why})
            else:
                version = subprocess.run(
                    [python, "-c", "import importlib.metadata as m; "
                     "print(m.version('ipflakies'), m.version('pytest'))"],
                    capture_output=True, text=True,
                ).stdout.split()  # fmt: skip
                ipf_rows: list[Json] = []
                for name, suite in suites.items():
                    say(f"ipflakies on the suite with {name}")
                    ipf_rows += bench_ipflakies(suite, python, tmp, args.ipflakies_max_tests)
                    save(
                        "ipflakies",
                        {"version": version[0], "pytest": version[1], "rows": ipf_rows},
                    )


if __name__ == "__main__":
    main()
