"""Fault-injection benchmark: recall of planted OD tests with faults equals recall without.

For each seed, a generated suite (``orderdep.synth.generate_suite``) with planted OD tests
is written twice: as generated, and with fault tests added at the end of its first test
modules (so they run before most planted tests in the original order and land anywhere
in shuffled orders):

* ``crash``: the test process is killed by a signal (``SIGKILL``);
* ``exit``: the test process ends itself (``os._exit(0)``) mid-test;
* ``hang``: the test sleeps for an hour;
* ``spawn``: the test starts a ``sleep 600`` process and leaves it running (its pid is
  written to a file, checked after the run).

``orderdep detect PROJECT --seed S --confirm-runs 2`` (the default strategy, no
``--timeout``) runs on both copies, one after the other, through the command line as a
user would. Reported per seed: OD tests found among the planted ones (recall) with and
without faults, the wall time of each and the time lost to faults (the difference), the
orders run, recovery orders, pairs of the strategy covered or explained, and the
processes the ``spawn`` test started that were still alive after the run (must be 0).

Usage: python benchmarks/bench_faults.py [--tests 60] [--seeds 1 2]
Writes the section "Faults" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section

from orderdep.synth.generate import generate_suite

FAULTS = textwrap.dedent(
    """


    def test_zz_fault_{n}():
        {body}
    """
)
BODIES = {
    "crash": "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
    "exit": "import os; os._exit(0)",
    "hang": "import time; time.sleep(3600)",
    "spawn": (
        "import os, subprocess; proc = subprocess.Popen(['sleep', '600']); "
        "open(os.environ['OD_SPAWNED'], 'a').write(f'{proc.pid}\\n')"
    ),
}


@dataclass
class Outcome:
    found: set[str]
    seconds: float
    orders: int
    recovery: int
    pairs: str
    report: dict[str, Any]


def add_faults(project: Path) -> list[str]:
    """Append one fault test to each of the first test modules; returns the kinds placed."""
    modules = sorted((project / "tests").rglob("test_*.py"))
    placed = []
    for n, (kind, body) in enumerate(BODIES.items()):
        module = modules[n % len(modules)]
        with open(module, "a", encoding="utf-8") as fh:
            fh.write(FAULTS.format(n=f"{n}_{kind}", body=body))
        placed.append(kind)
    return placed


def detect(project: Path, seed: int, env: dict[str, str]) -> Outcome:
    cli = [sys.executable, "-c", "from orderdep.shells.cli import run; run()"]
    cmd = [*cli, "detect", str(project), "--seed", str(seed)]
    cmd += ["--confirm-runs", "2"]
    started = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"detect failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    report = json.loads((project / ".orderdep" / "report.json").read_text())
    accounts = report["stats"].get("coverage") or []
    recovery = sum(a["recovery_orders"] for a in accounts)
    pairs = "; ".join(
        f"{a['strategy']} {a['pairs_covered']}+{len(a['not_coverable'])}/{a['pairs_planned']}"
        for a in accounts
        if a["strategy"] != "original"
    )
    return Outcome(
        {f["test"] for f in report["od_tests"]},
        seconds,
        report["stats"]["orders_run"],
        recovery,
        pairs,
        report,
    )


def alive(pids: list[int]) -> int:
    out = 0
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().rpartition(")")[2].split()[0] != "Z":
            out += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tests", type=int, default=60)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    rows = []
    totals = {"planted": 0, "clean": 0, "faulty": 0}
    for seed in args.seeds:
        with tempfile.TemporaryDirectory(prefix="bench-faults-") as tmp:
            base = Path(tmp)
            truth = generate_suite(base / "clean", n_tests=args.tests, seed=seed)
            shutil.copytree(base / "clean", base / "faulty")
            add_faults(base / "faulty")
            spawned = base / "spawned.txt"
            spawned.write_text("")
            env = {**os.environ, "OD_SPAWNED": str(spawned)}
            env["PYTEST_ADDOPTS"] = "-p no:hypothesispytest -p no:randomly"
            # Only tests whose failure a pair of tests can show are promised (no groups).
            planted = {
                s.test for s in truth.specs if not s.polluter_groups and not s.state_setter_groups
            }
            clean = detect(base / "clean", seed, env)
            faulty = detect(base / "faulty", seed, env)
            pids = [int(x) for x in spawned.read_text().split()]
            left = alive(pids)
            rc, rf = len(planted & clean.found), len(planted & faulty.found)
            totals["planted"] += len(planted)
            totals["clean"] += rc
            totals["faulty"] += rf
            always = faulty.report["always_failing"]
            rows.append(
                [
                    seed,
                    len(truth.tests),
                    len(planted),
                    rc,
                    rf,
                    f"{clean.seconds:.0f}",
                    f"{faulty.seconds:.0f}",
                    f"{faulty.seconds - clean.seconds:+.0f}",
                    f"{clean.orders} / {faulty.orders}",
                    faulty.recovery,
                    faulty.pairs,
                    len(always),
                    f"{left} of {len(pids)}",
                ]
            )
            print(rows[-1], flush=True)
    headers = [
        "seed", "tests", "planted OD (single partner)", "found clean", "found with faults",
        "s clean", "s with faults", "time lost (s)", "orders clean / faults",
        "recovery orders", "pairs covered+not coverable/planned", "always failing (faults)",
        "spawned processes left",
    ]  # fmt: skip
    body = (
        __doc__.split("\n\n", 1)[1].split("Usage:")[0].strip()
        + "\n\n"
        + table(headers, rows)
        + f"\n\nRecall: {totals['clean']}/{totals['planted']} without faults, "
        f"{totals['faulty']}/{totals['planted']} with faults."
    )
    write_section("Faults", body)


if __name__ == "__main__":
    main()
