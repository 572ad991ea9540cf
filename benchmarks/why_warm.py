"""``orderdep why`` with what a report already knows (warm) against a cold search and
against detect-test-pollution, on the real projects the corpus runner set up.

For each project of a ``corpus.py`` work directory with a known victim that its detect
report found (the first such row), in the project's own venv (this checkout's orderdep
installed into it first):

* the failing order: a seeded shuffle of the suite with a known polluter before the
  victim, cut after it (what a red shuffled run leaves);
* *one run*: plain pytest on the minimal failing order (polluter, victim), timed: the
  floor a warm answer cannot beat;
* *warm*: ``orderdep why V --order-file F --no-fix --no-state --no-check --report R``;
* *cold*: the same with ``--no-known`` and a new store (the search);
* *detect-test-pollution*: ``detect-test-pollution --failing-test V --testids-file F``.

All four run side by side per project, in a fresh copy of its tree; a warm answer is
right when it names a polluter plain pytest confirmed (the manifest's).

Usage: python benchmarks/why_warm.py --work DIR [--manifest FILE] [--project NAME ...]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section
from realsetup import REPO, fresh_copy, install_orderdep, plain, sh, venv_env

from corpus import MANIFEST

SECTION = "why from what is known (real projects)"
HEADERS = ["project", "victim", "order length", "one run (s)", "warm (s)", "warm - one run (s)",
           "cold (s)", "detect-test-pollution (s)", "warm / cold", "warm / dtp",
           "warm right", "cold right", "dtp right"]  # fmt: skip


def case_of(entry: dict[str, Any], work: Path) -> Optional[dict[str, Any]]:
    report_path = work / "detect-report.json"
    if not report_path.exists():
        return None
    report = json.loads(report_path.read_text())
    findings = {f["test"]: f for f in report.get("od_tests", [])}
    for row in entry.get("known", []):
        finding = findings.get(row["test"])
        if row.get("kind") == "victim" and row.get("reproduces") and finding:
            return {"test": row["test"], "polluters": row["polluters"], "report": report_path,
                    "order": shuffled(report["tests"], row["test"], row["polluters"])}  # fmt: skip
    return None


def shuffled(tests: list[str], victim: str, polluters: list[str]) -> list[str]:
    """A shuffled run of the suite, cut after ``victim``, with a polluter before it (the
    first seed from 1 that gives one): the order a red shuffled CI run leaves."""
    for seed in range(1, 1000):
        order = list(tests)
        random.Random(seed).shuffle(order)
        order = order[: order.index(victim) + 1]
        if any(p in order for p in polluters):
            return order
    return [polluters[0], victim]


def timed(cmd: list[str], cwd: Path, python: Path) -> tuple[float, str]:
    began = time.monotonic()
    run = sh(cmd, cwd=cwd, timeout=1800, env=venv_env(python))
    return time.monotonic() - began, run.stdout + run.stderr


def measure(entry: dict[str, Any], work: Path) -> Optional[list[object]]:
    case = case_of(entry, work)
    if case is None:
        return None
    python = work / "venv" / "bin" / "python"
    source = next(p for p in work.iterdir() if p.is_dir() and p.name.startswith(entry["name"]))
    install_orderdep(python, source, REPO)
    if sh([str(python), "-m", "pip", "install", "-q", "detect-test-pollution"]).returncode:
        return None
    tree = fresh_copy(source, work / "why-copy")
    order_file = work / "why-order.txt"
    order_file.write_text("\n".join(case["order"]) + "\n")
    test, args = case["test"], list(entry.get("pytest_args") or [])
    began = time.monotonic()
    plain(python, tree, [case["polluters"][0], test], args, env=venv_env(python))
    one = time.monotonic() - began
    orderdep = str(python.parent / "orderdep")
    base = [orderdep, "why", test, ".", "--order-file", str(order_file), "--no-fix",
            "--no-state", "--no-check", *[f"--pytest-arg={a}" for a in args]]  # fmt: skip
    warm, warm_out = timed([*base, "--report", str(case["report"])], tree, python)
    store = work / "why-cold.db"
    store.unlink(missing_ok=True)
    cold, cold_out = timed([*base, "--no-known", "--store", str(store)], tree, python)
    dtp_cmd = [str(python.parent / "detect-test-pollution"), "--failing-test", test,
               "--testids-file", str(order_file)]  # fmt: skip
    dtp, dtp_out = timed(dtp_cmd, tree, python)

    def right(out: str) -> str:
        return "yes" if any(p in out for p in case["polluters"]) else "no"

    dtp_right = "yes" if any(f"culprit: {p}" in dtp_out or p in dtp_out.splitlines()[-1]
                             for p in case["polluters"]) else "no"  # fmt: skip
    return [entry["name"], test.rsplit("::", 1)[-1], len(case["order"]), f"{one:.1f}",
            f"{warm:.1f}", f"{warm - one:.1f}", f"{cold:.1f}", f"{dtp:.1f}",
            f"{warm / cold:.2f}", f"{warm / dtp:.2f}",
            right(warm_out) + (" (known)" if "known from" in warm_out else " (searched)"),
            right(cold_out), dtp_right]  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--manifest", type=Path, default=MANIFEST)
    p.add_argument("--project", action="append", default=[])
    p.add_argument("--no-doc", action="store_true")
    opts = p.parse_args()
    manifest = json.loads(opts.manifest.read_text())
    rows = []
    for entry in manifest["projects"]:
        if opts.project and entry["name"] not in opts.project:
            continue
        work = opts.work / entry["name"]
        row = measure(entry, work) if work.is_dir() else None
        if row is not None:
            print(table(HEADERS, [row]).splitlines()[-1], flush=True)
            rows.append(row)
    head = sh(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]).stdout.strip()
    body = (
        f"orderdep {head}. Projects and venvs of a `benchmarks/corpus.py` work directory; for "
        "each, its first known victim that detect's report found, and a seeded shuffle of the "
        "suite with a known polluter before the victim, cut after it. *one run*: plain pytest on the polluter then the victim (the "
        "floor for a warm answer). *warm*: `orderdep why V --order-file F --no-fix --no-state "
        "--no-check --report R` (answers from the report, one run); *cold*: the same with "
        "`--no-known` and a new store (the search); *detect-test-pollution*: "
        "`--failing-test V --testids-file F`. Side by side, one project after another."
        " *right*: the answer names a polluter plain pytest confirmed. Where cold and detect-test-pollution say no, the victim passed in the shuffled order (a cleaner ran after the polluter: layeredconfig's `test_firststep`, the shared data frame refilled in feature_engine), so there was no failure to explain; the warm answer checks only its own minimal order, and skips a known polluter whose known cleaner ran after it.\n\n"
        + table(HEADERS, rows)
    )
    if not opts.no_doc and rows:
        shown = [a if a != str(opts.work) else "DIR" for a in sys.argv]
        write_section(SECTION, body, argv=shown)


if __name__ == "__main__":
    main()
