"""``detect --classify --budget B`` on real projects of 200+ tests: does it end in time,
and does it find the OD tests known in them?

The projects come from cases files (kept outside this repository; the format of
why_real.py): third-party projects set up by hand at a listed commit, each with its own
venv (orderdep installed there), and OD tests whose relation was confirmed by hand with
plain pytest. For every project with at least ``--min-tests`` collected tests and each
budget, ``orderdep detect . --classify --budget B --python VENV/bin/python --seed 1
--jobs J`` runs as a subprocess in a fresh copy of the project (no store, no report).
Wall time against the budget (target: at most B + 10%), OD tests found and classified,
and the recall of the hand-confirmed OD tests (the known ones; the project may have more).

Usage: python benchmarks/scale_real.py --cases FILE [--cases FILE ...]
       [--budgets 120,600] [--min-tests 200] [--jobs 2] [--no-doc]
Writes the section "Scale on real projects" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section

HEADERS = ["project", "commit", "tests", "budget (s)", "wall (s)", "wall / budget",
           "known OD", "found", "known found", "classified", "recall of known"]  # fmt: skip


def projects(paths: list[Path]) -> list[dict[str, Any]]:
    """One entry per project: its set-up and the OD tests confirmed in it."""
    out: dict[str, dict[str, Any]] = {}
    for path in paths:
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            p = out.setdefault(case["project"], {**case, "known": set()})
            p["known"].add(case["test"])
    return list(out.values())


def collected(project: dict[str, Any]) -> int:
    cmd = [project["python"], "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    cmd += project.get("pytest_args", [])
    out = subprocess.run(cmd, cwd=project["dir"], capture_output=True, text=True).stdout
    return sum("::" in line and " " not in line for line in out.splitlines())


def run(project: dict[str, Any], n: int, budget: int, jobs: int, tmp: Path) -> list[object]:
    work = tmp / f"{project['project'].replace('/', '+')}-{budget}"
    ignore = shutil.ignore_patterns(".orderdep", ".pytest_cache", "__pycache__")
    shutil.copytree(project["dir"], work, symlinks=True, ignore=ignore)
    cmd = [sys.executable, "-c", "from orderdep.shells.cli import run; run()", "detect", "."]
    cmd += ["--classify", "--budget", str(budget), "--python", project["python"]]
    cmd += ["--seed", "1", "--jobs", str(jobs)]
    cmd += [f"--pytest-arg={a}" for a in project.get("pytest_args", [])]
    start = time.perf_counter()
    subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    wall = time.perf_counter() - start
    report_file = work / ".orderdep" / "report.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else {"od_tests": []}
    found = {f["test"] for f in report["od_tests"]}
    classified = sum(1 for f in report["od_tests"] if f.get("kind"))
    known = project["known"]
    shutil.rmtree(work, ignore_errors=True)
    return [
        project["project"], f"`{project['commit'][:10]}`", n, budget, f"{wall:.0f}",
        f"{wall / budget:.2f}", len(known), len(found), len(found & known), classified,
        f"{len(found & known) / len(known):.2f}",
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, action="append", required=True)
    parser.add_argument("--budgets", default="120,600")
    parser.add_argument("--min-tests", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--project", action="append", help="Only this project (repeatable).")
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmpdir:
        for project in projects(args.cases):
            if args.project and project["project"] not in args.project:
                continue
            n = collected(project)
            if n < args.min_tests:
                continue
            for budget in (int(b) for b in args.budgets.split(",")):
                print(f"{project['project']} ({n} tests), budget {budget} s ...", flush=True)
                rows.append(run(project, n, budget, args.jobs, Path(tmpdir)))
                print(f"  {rows[-1]}", flush=True)
    body = (
        "`orderdep detect . --classify --budget B --python VENV/bin/python --seed 1 --jobs "
        "J` on third-party projects of 200+ tests, each set up by hand at the "
        "commit given in a venv of its own, in a fresh copy (no store). *Known OD*: the OD "
        "tests of the project confirmed by hand with plain pytest (one process per order); "
        "the project may have more, so *found* can exceed them. Wall time includes start-up "
        f"and collection. 1-minute load average at the end: {os.getloadavg()[0]:.1f}.\n\n"
        + table(HEADERS, rows)
    )
    if not args.no_doc:
        write_section("Scale on real projects", body)
    print(body)


if __name__ == "__main__":
    main()
