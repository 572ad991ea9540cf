"""``detect --classify --budget B`` on large suites: does it end in time, and what did it find?

Generated projects (:func:`bench_estimate.write_project`: test durations log-uniform in
1-200 ms, modules of 10 with unittest classes, victims of registry polluters with one
cleaner, a brittle of a state-setter; the planted OD tests are the ground truth). For each
size and budget, ``orderdep detect P --classify --budget B --jobs J --seed 1`` runs
through ``main(argv)`` in a fresh copy; the table gives the wall time against the budget
(target: at most B + 10%), the OD tests found and classified, what was left unfinished,
and the recall of planted OD tests.

Real suites downloaded at run time are not part of this script yet.

Usage: python benchmarks/bench_scale.py [--cases 500:120,2000:120] [--jobs 2]
Writes the section "Scale" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_estimate import write_project
from benchdoc import table, write_section

from orderdep.shells.cli import main as orderdep_main


def planted(project: Path) -> set[str]:
    """The planted OD tests: registry victims and the configured brittle."""
    out = set()
    for path in sorted((project / "tests").glob("test_m*.py")):
        text = path.read_text()
        rel = f"tests/{path.name}"
        cls = next((line.split()[1].split("(")[0] for line in text.splitlines()
                    if line.startswith("class ")), None)  # fmt: skip
        for line in text.splitlines():
            name = line.strip().removeprefix("def ").split("(")[0]
            if name.startswith(("test_registry_empty_", "test_configured")):
                out.add(f"{rel}::{cls}::{name}" if cls else f"{rel}::{name}")
    return out


def run_case(root: Path, n: int, budget: int, jobs: int) -> list[object]:
    project = root / f"p{n}-{budget}"
    write_project(project, n, seed=n)
    truth = planted(project)
    argv = ["detect", str(project), "--classify", "--budget", str(budget), "--jobs", str(jobs),
            "--seed", "1"]  # fmt: skip
    err = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        orderdep_main(argv)
    wall = time.perf_counter() - start
    report = json.loads((project / ".orderdep" / "report.json").read_text())
    found = {f["test"] for f in report["od_tests"]}
    classified = [f for f in report["od_tests"] if f.get("kind")]
    complete = [f for f in classified if "unfinished" not in f]
    unconfirmed = report["stats"].get("unfinished", {}).get("suspects", [])
    recall = len(found & truth) / len(truth) if truth else 1.0
    return [
        n, budget, f"{wall:.0f}", f"{wall / budget:.2f}", len(truth), len(found & truth),
        len(found - truth), len(classified), len(complete), len(unconfirmed), f"{recall:.2f}",
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="500:120,2000:120", help="SIZE:BUDGET,...")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases.split(","):
            n, budget = (int(x) for x in case.split(":"))
            print(f"{n} tests, budget {budget} s ...", flush=True)
            rows.append(run_case(Path(tmp), n, budget, args.jobs))
            print(f"  {rows[-1]}", flush=True)
    body = "\n".join(
        [
            "`orderdep detect P --classify --budget B --jobs J --seed 1` on generated projects "
            "(test durations log-uniform in 1-200 ms; planted victims of registry polluters "
            "with a cleaner, and a brittle). Wall time includes engine start-up. "
            "*Classified* counts OD tests whose kind is known; *complete* those with nothing "
            "unfinished; *unconfirmed* suspects the budget left unconfirmed.",
            "",
            table(
                [
                    "tests",
                    "budget (s)",
                    "wall (s)",
                    "wall / budget",
                    "planted OD",
                    "found",
                    "found, not planted",
                    "classified",
                    "complete",
                    "unconfirmed",
                    "recall",
                ],
                rows,
            ),
        ]
    )
    if not args.no_doc:
        write_section("Scale", body)
    print(body)


if __name__ == "__main__":
    main()
