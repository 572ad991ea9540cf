"""Searching a suite with no OD test: does ``detect --budget B`` spend its budget, and
run at least as many whole orders as a user shuffling with pytest-randomly for as long?

Usage: python benchmarks/bench_vs_randomly.py --work DIR [--budget 120] [--project NAME]
           [--manifest benchmarks/manifests/no_od_sdists.json] [--installer uv]
           [--orderdep-rev REV] [--no-doc]
Writes the manifest's section of docs/benchmarks.md.

Per project (a PyPI sdist that ships its tests, set up in a venv of its own as the
manifest says, orderdep and pytest-randomly installed into it):

1. one plain ``python -m pytest -p no:randomly`` run counts the tests and times the suite;
2. ``orderdep detect . --budget B --seed 1`` on a fresh copy (a new store): its wall time
   ``W``, exit code, OD tests reported, and the whole-suite orders its search ran (the
   test executions of the search over the number of tests);
3. pytest-randomly for the same ``W`` seconds: ``python -m pytest -p randomly
   --randomly-seed=K`` again and again, K = 1, 2, ..., each a fresh process as a user
   runs it; the runs that ended within ``W`` count.

The two sides run one after the other on the same machine; the ratio is what counts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchdoc import table, write_section  # noqa: E402
from realsetup import (  # noqa: E402
    Installer,
    fresh_copy,
    orderdep_tree,
    plain,
    scratch_dir,
    set_up,
    sh,
    venv_env,
)

MANIFEST = HERE / "manifests" / "no_od_sdists.json"
COLUMNS = ["project", "tests", "one run (s)", "budget (s)", "orderdep wall (s)", "exit",
           "OD tests reported", "orderdep whole orders", "pytest-randomly runs in that time",
           "orderdep / randomly"]  # fmt: skip


def collected(run_out: str) -> int:
    """The number of tests a ``-q`` run's last line counts (passed, failed, skipped...)."""
    last = run_out.strip().splitlines()[-1] if run_out.strip() else ""
    words = last.replace(",", " ").split()
    kinds = ("passed", "failed", "skipped", "xfailed", "xpassed", "error", "errors")
    return sum(int(n) for n, w in zip(words, words[1:]) if n.isdigit() and w in kinds)


def whole_orders(report: dict[str, Any]) -> float:
    """Whole-suite orders the search ran: its test executions over the suite's size."""
    tests = len(report.get("tests") or []) or 1
    stats = report.get("stats") or {}
    return float(stats.get("search_executions") or stats.get("test_executions") or 0) / tests


def shuffled_runs(python: Path, source: Path, seconds: float, args: list[str]) -> int:
    """pytest-randomly runs (a new seed each) that end within ``seconds``."""
    began = time.monotonic()
    done, seed = 0, 0
    while True:
        left = seconds - (time.monotonic() - began)
        if left <= 0:
            return done
        seed += 1
        cmd = [str(python), "-m", "pytest", "-p", "randomly", "-p", "no:cacheprovider", "-q",
               "--color=no",
               f"--randomly-seed={seed}", *args]  # fmt: skip
        try:
            sh(cmd, cwd=source, timeout=left, env=venv_env(python))
        except Exception:  # killed at the end of the time: not a finished run
            return done
        if time.monotonic() - began <= seconds:
            done += 1


def measure(project: dict[str, Any], opts: argparse.Namespace, orderdep: Path) -> list[object]:
    work = Path(opts.work) / project["name"]
    work.mkdir(parents=True, exist_ok=True)
    source, python = set_up(project, work, {}, orderdep, Installer(opts.installer))
    args = list(project.get("pytest_args") or [])
    began = time.monotonic()
    first = plain(python, source, [], [*args, "--color=no"], env=venv_env(python), timeout=1800)
    one_run = time.monotonic() - began
    tests = collected(first.stdout)
    copy = fresh_copy(source, work / "detect-copy")
    report_path = work / "detect-report.json"
    report_path.unlink(missing_ok=True)
    cmd = [str(python.parent / "orderdep"), "detect", ".", "--budget", str(opts.budget),
           "--seed", "1", "--report", str(report_path), "--store", str(work / "detect.db"),
           *[f"--pytest-arg={a}" for a in args]]  # fmt: skip
    (work / "detect.db").unlink(missing_ok=True)
    began = time.monotonic()
    done = sh(cmd, cwd=copy, timeout=opts.budget * 3 + 600, env=venv_env(python))
    wall = time.monotonic() - began
    (work / "detect.out").write_text(done.stdout + "\n--- stderr ---\n" + done.stderr)
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    found = len(report.get("od_tests") or [])
    tests = len(report.get("tests") or []) or tests  # orderdep's collection, when it ran
    whole = whole_orders(report)
    runs = shuffled_runs(python, fresh_copy(source, work / "randomly-copy"), wall, args)
    ratio = f"{whole / runs:.1f}" if runs else "–"
    return [project["spec"], tests, f"{one_run:.1f}", f"{opts.budget:g}", f"{wall:.0f}",
            done.returncode, found, f"{whole:.1f}", runs, ratio]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--manifest", default=str(MANIFEST))
    p.add_argument("--project", action="append", default=[])
    p.add_argument("--work", required=True)
    p.add_argument("--budget", type=float, default=120.0)
    p.add_argument("--installer", choices=("pip", "uv"), default="uv")
    p.add_argument("--orderdep-rev", default=None)
    p.add_argument("--no-doc", action="store_true")
    opts = p.parse_args(argv)
    manifest = json.loads(Path(opts.manifest).read_text())
    projects = [e for e in manifest["projects"] if not opts.project or e["name"] in opts.project]
    orderdep, rev = orderdep_tree(opts.orderdep_rev, scratch_dir())
    rows = []
    for project in projects:
        row = measure(project, opts, orderdep)
        print(" | ".join(str(c) for c in row), flush=True)
        rows.append(row)
    body = "\n\n".join(
        [
            f"orderdep {rev}. {manifest['notes']} `orderdep detect . --budget B --seed 1` on "
            "a fresh copy with a new store, then pytest-randomly (`python -m pytest -p "
            "randomly --randomly-seed=K`, K = 1, 2, ..., a fresh process each) for as long "
            "as orderdep took; *whole orders*: the search's test executions over the "
            "number of tests; *runs*: pytest-randomly runs that ended in that time.",
            table(COLUMNS, rows),
        ]
    )
    print(body)
    if not opts.no_doc:
        argv_shown = ["benchmarks/bench_vs_randomly.py", "--work", "DIR",
                      "--budget", f"{opts.budget:g}", "--installer", opts.installer]  # fmt: skip
        write_section(manifest["section"], body, argv_shown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
