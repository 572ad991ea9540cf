"""``detect --classify --budget B`` on large suites: does it end in time, and what did it find?

Generated projects (:func:`bench_estimate.write_project`: test durations log-uniform in
1-200 ms, modules of 10 with unittest classes, victims of registry polluters with one
cleaner, a brittle of a state-setter; the planted OD tests are the ground truth). For each
size and budget, ``orderdep detect P --classify --budget B --jobs J --seed 1`` runs
through ``main(argv)`` in a fresh copy; the table gives the wall time against the budget
(target: at most B + 10%), the OD tests found and classified, what was left unfinished,
and the recall of planted OD tests.

Real suites downloaded at run time are not part of this script yet.

``--modes plain,guided`` runs each case both ways, one after the other in one run:
``guided`` adds ``--guided`` (one probed run; confirmation from the writers of what a
suspect read, see ``orderdep.analysis.guided``).

Usage: python benchmarks/bench_scale.py [--cases 500:120,2000:120] [--jobs 2]
           [--modes plain[,guided]] [--section Scale]
Writes the section "Scale" (or ``--section``) of docs/benchmarks.md.
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


def run_case(root: Path, n: int, budget: int, jobs: int, mode: str = "plain") -> list[object]:
    project = root / f"p{n}-{budget}-{mode}"
    write_project(project, n, seed=n)
    truth = planted(project)
    argv = ["detect", str(project), "--classify", "--budget", str(budget), "--jobs", str(jobs),
            "--seed", "1", "--guided" if mode == "guided" else "--no-guided"]  # fmt: skip
    err = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        orderdep_main(argv)
    wall = time.perf_counter() - start
    report = json.loads((project / ".orderdep" / "report.json").read_text())
    found = {f["test"] for f in report["od_tests"]}
    classified = [f for f in report["od_tests"] if f.get("kind")]
    partnered = [f for f in classified if f["test"] in truth and (f.get("polluters")
                 or f.get("state_setters") or f.get("polluter_groups")
                 or f.get("state_setter_groups"))]  # fmt: skip
    complete = [f for f in classified if "unfinished" not in f]
    unconfirmed = report["stats"].get("unfinished", {}).get("suspects", [])
    recall = len(found & truth) / len(truth) if truth else 1.0
    return [
        n, budget, mode, f"{wall:.0f}", f"{wall / budget:.2f}", len(truth), len(found & truth),
        len(found - truth), len(classified), len(partnered), len(complete), len(unconfirmed),
        f"{recall:.2f}", f"{len(partnered) / len(truth) if truth else 1.0:.2f}",
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="500:120,2000:120", help="SIZE:BUDGET,...")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--modes", default="plain", help="plain, guided or both: plain,guided")
    parser.add_argument("--section", default="Scale", help="section of docs/benchmarks.md")
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        for case in args.cases.split(","):
            n, budget = (int(x) for x in case.split(":"))
            for mode in args.modes.split(","):
                print(f"{n} tests, budget {budget} s, {mode} ...", flush=True)
                rows.append(run_case(Path(tmp), n, budget, args.jobs, mode))
                print(f"  {rows[-1]}", flush=True)
    body = "\n".join(
        [
            "`orderdep detect P --classify --budget B --jobs J --seed 1` on generated projects "
            "(test durations log-uniform in 1-200 ms; planted victims of registry polluters "
            "with a cleaner, and a brittle). Wall time includes engine start-up. "
            "*Classified* counts OD tests whose kind is known; *with a partner* planted OD "
            "tests classified with a polluter or state-setter (what a repair needs); "
            "*complete* those with nothing unfinished; *unconfirmed* suspects the budget left "
            "unconfirmed. *guided*: with `--guided`.",
            "",
            table(
                [
                    "tests",
                    "budget (s)",
                    "mode",
                    "wall (s)",
                    "wall / budget",
                    "planted OD",
                    "found",
                    "found, not planted",
                    "classified",
                    "with a partner",
                    "complete",
                    "unconfirmed",
                    "recall",
                    "found and classified",
                ],
                rows,
            ),
        ]
    )
    if not args.no_doc:
        write_section(args.section, body)
    print(body)


if __name__ == "__main__":
    main()
