"""The real-projects part of bench_why.py: ``orderdep why`` and detect-test-pollution on
failing orders of already set-up third-party projects, read from cases files.

A cases file (kept outside this repository) is a JSON object ``{"cases": [...]}``; each
case names a project set up by hand: ``project``, ``commit``, ``dir`` (its checkout),
``python`` (its own venv's interpreter, with orderdep installed), ``pytest_args``,
``test``, ``kind`` ("victim" or "brittle"), ``partners`` (the polluters or state-setters
confirmed by hand with plain pytest) and ``failing_order`` (a run in which the test
fails, the test last).

Each case runs in a fresh copy of ``dir``:

* ``orderdep why TEST --order-file F --python PY --no-fix --no-check --no-state --store
  NEW`` (the search only; a new store, so nothing is reused), as a subprocess of the
  orderdep running this script;
* ``detect-test-pollution --failing-test TEST --testids-file F`` installed into the
  case's own venv (``PY -m pip install detect-test-pollution`` when it is missing), so
  it runs with the project's Python, pytest and installed packages.

An answer is right when it is the hand-confirmed partner set, or else when a plain
``PY -m pytest -p no:randomly -p no:cacheprovider ANSWER... TEST`` confirms it (the test
fails after a victim's answer, passes after a brittle's).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from benchdoc import table

TIMEOUT = 900
MINIMAL = (
    "each case's failing order up to the test, either the executed order of a "
    "pytest-randomly run in which the test failed or, where the cases file gives only "
    "that, the minimal failing order (1 test before it)."
)
WHOLE = (
    "each case's failing order is the whole collected suite, as a red full run gives it: "
    "for a victim, its polluters first, then every other test in collection order (or "
    "reversed, when that did not fail), then the test; for a brittle, every other test but "
    "its state-setters, then the test; checked to fail in one plain pytest process (where "
    "no such order failed, the cases file's failing order is used)."
)
HEADERS = ["project", "commit", "test", "kind", "tests before it", "orderdep why",
           "of which start-up", "orders run", "right",
           "detect-test-pollution", "right", "speed-up"]  # fmt: skip


@dataclass
class RealCase:
    project: str
    commit: str
    test: str
    kind: str
    before: int
    orderdep_wall: Optional[float]
    orderdep_ready: float  # until the first order starts: start-up and collection
    orderdep_orders: int
    orderdep_answer: list[str]
    orderdep_right: bool
    dtp_wall: Optional[float]
    dtp_answer: list[str]
    dtp_right: bool


def load_cases(paths: list[Path], per_project: int) -> list[dict[str, Any]]:
    """The cases of ``paths`` in file order, at most ``per_project`` per project."""
    cases: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for path in paths:
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            if seen.get(case["project"], 0) < per_project:
                seen[case["project"]] = seen.get(case["project"], 0) + 1
                cases.append(case)
    return cases


def parse_answer(text: str) -> list[str]:
    """The polluter(s) or state-setter(s) in ``orderdep why``'s text output."""
    answer: list[str] = []
    for line in text.splitlines():
        if line.startswith("victim of: "):
            answer = [line.split(": ", 1)[1].split(" (")[0]]
        elif line.startswith("victim of a polluter group: "):
            answer = line.split(": ", 1)[1].split(" (")[0].split(" -> ")
        elif line.startswith("brittle: "):
            answer = line.split(": ", 2)[2].split(" (")[0].split(" -> ")
    return answer


def ensure_dtp(python: str) -> Optional[Path]:
    """detect-test-pollution in the case's own venv, installed there when missing."""
    exe = Path(python).parent / "detect-test-pollution"
    if not exe.exists():
        cmd = [python, "-m", "pip", "install", "-q", "detect-test-pollution"]
        subprocess.run(cmd, capture_output=True)
    return exe if exe.exists() else None


def timed(cmd: list[str], cwd: Path) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
        out = proc.stdout
    except subprocess.TimeoutExpired:
        out = ""
    return time.perf_counter() - start, out


def timed_why(cmd: list[str], cwd: Path, out_file: Path) -> tuple[float, float, int, str]:
    """Wall time of ``orderdep why``, the time until its first order starts (start-up,
    interpreter check and collection: the progress line "running the failing order"),
    the orders it ran, and its stdout."""
    start = time.perf_counter()
    ready, orders = 0.0, 0
    with out_file.open("w", encoding="utf-8") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        for line in proc.stderr:
            if not ready and "running the failing order" in line:
                ready = time.perf_counter() - start
            if line.strip().startswith(".. ") and " orders run, " in line:
                orders = int(line.split()[1])
        proc.wait()
    return time.perf_counter() - start, ready, orders, out_file.read_text(encoding="utf-8")


def confirmed(case: dict[str, Any], answer: list[str], work: Path) -> bool:
    """Is ``answer`` right: the hand-confirmed partners, or confirmed by plain pytest."""
    if not answer:
        return False
    if sorted(answer) == sorted(case["partners"]):
        return True
    test = case["test"]
    cmd = [case["python"], "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider"]
    cmd += [*case.get("pytest_args", []), "-q", "-rA", *answer, test]
    out = subprocess.run(cmd, cwd=work, capture_output=True, text=True).stdout
    want = "FAILED" if case["kind"] == "victim" else "PASSED"
    return any(line == f"{want} {test}" or line.startswith(f"{want} {test} ")
               for line in out.splitlines())  # fmt: skip


def plain_outcome(case: dict[str, Any], order: list[str], work: Path) -> Optional[str]:
    """ "FAILED" or "PASSED": the last test of ``order`` in one plain pytest process."""
    test = order[-1]
    cmd = [case["python"], "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider"]
    cmd += [*case.get("pytest_args", []), "-q", "-rA", *order]
    try:
        out = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=300).stdout
    except subprocess.TimeoutExpired:
        return None  # a whole-suite order that hangs (a server, a prompt) is not used
    for line in out.splitlines():
        for want in ("FAILED", "PASSED"):
            if line == f"{want} {test}" or line.startswith(f"{want} {test} "):
                return want
    return None


def whole_suite_order(case: dict[str, Any], work: Path) -> Optional[list[str]]:
    """A failing order of the whole collected suite, as a red full run gives it: for a
    victim, its polluters first, then every other test in collection order (or reversed),
    then the test; for a brittle, every other test but its state-setters, then the test.
    Each candidate is checked with one plain pytest process; None when none fails."""
    cmd = [case["python"], "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider"]
    cmd += [*case.get("pytest_args", []), "--collect-only", "-q"]
    out = subprocess.run(cmd, cwd=work, capture_output=True, text=True).stdout
    test, partners = case["test"], case["partners"]
    ids = [line for line in out.splitlines() if "::" in line and " " not in line]
    others = [t for t in ids if t != test and t not in partners]
    if test not in ids or len(others) < 2:
        return None
    for rest in (others, others[::-1]):
        order = [*partners, *rest, test] if case["kind"] == "victim" else [*rest, test]
        if plain_outcome(case, order, work) == "FAILED":
            return order
    return None


def run_case(case: dict[str, Any], tmp: Path, index: int, whole: bool = False) -> RealCase:
    work = tmp / f"case-{index}"
    shutil.copytree(case["dir"], work, symlinks=True, ignore=shutil.ignore_patterns(".orderdep"))
    test, order = case["test"], case["failing_order"]
    if whole:
        order = whole_suite_order(case, work) or order
    ids = tmp / f"order-{index}.txt"
    ids.write_text("\n".join(order[: order.index(test) + 1]) + "\n", encoding="utf-8")
    cmd = [sys.executable, "-c", "from orderdep.shells.cli import run; run()", "why", test]
    cmd += [".", "--order-file", str(ids), "--python", case["python"], "--no-fix"]
    cmd += ["--no-check", "--no-state", "--store", str(tmp / f"store-{index}.db")]
    cmd += [f"--pytest-arg={a}" for a in case.get("pytest_args", [])]
    o_wall, o_ready, o_orders, o_out = timed_why(cmd, work, tmp / f"why-{index}.out")
    o_answer = parse_answer(o_out)
    o_right = confirmed(case, o_answer, work)
    dtp = ensure_dtp(case["python"])
    d_wall: Optional[float] = None
    d_answer: list[str] = []
    if dtp is not None:
        shutil.rmtree(work / ".pytest_cache", ignore_errors=True)
        d_wall, d_out = timed([str(dtp), "--failing-test", test, "--testids-file", str(ids)], work)
        d_answer = [
            line.split(": ", 1)[1]
            for line in d_out.splitlines()
            if "the polluting test is: " in line
        ]
    d_right = confirmed(case, d_answer, work)
    shutil.rmtree(work, ignore_errors=True)
    return RealCase(
        case["project"], case["commit"], test, case["kind"], order.index(test),
        o_wall, o_ready, o_orders, o_answer, o_right, d_wall, d_answer, d_right,
    )  # fmt: skip


def bench_real(
    paths: list[Path], per_project: int, tmp: Path, whole: bool = False
) -> list[RealCase]:
    results = []
    for index, case in enumerate(load_cases(paths, per_project)):
        got = run_case(case, tmp, index, whole)
        d = "-" if got.dtp_wall is None else f"{got.dtp_wall:.1f} s"
        print(f"  {got.project} {short(got.test)}: orderdep {got.orderdep_wall:.1f} s "
              f"({got.orderdep_right}), dtp {d} ({got.dtp_right})", flush=True)  # fmt: skip
        results.append(got)
    return results


def short(test: str) -> str:
    return test.rsplit("/", 1)[-1]


def render_real(
    cases: list[RealCase], load: float, cores: Optional[int], whole: bool = False
) -> str:
    rows = []
    for c in cases:
        ratio = (
            f"{c.dtp_wall / c.orderdep_wall:.1f}x"
            if c.dtp_wall and c.orderdep_wall and c.dtp_right and c.orderdep_right
            else "-"
        )
        rows.append([
            c.project, f"`{c.commit[:10]}`", f"`{short(c.test)}`", c.kind, c.before,
            f"{c.orderdep_wall:.1f} s", f"{c.orderdep_ready:.1f} s", c.orderdep_orders,
            "yes" if c.orderdep_right else "**no**",
            "-" if c.dtp_wall is None else f"{c.dtp_wall:.1f} s",
            "yes" if c.dtp_right else "no", ratio,
        ])  # fmt: skip
    faster = [c for c in cases if c.dtp_wall and c.orderdep_right and c.dtp_right]
    ratios = sorted((c.dtp_wall or 0) / (c.orderdep_wall or 1) for c in faster)
    summary = (
        f"orderdep right on {sum(c.orderdep_right for c in cases)} of {len(cases)} cases, "
        f"detect-test-pollution on {sum(c.dtp_right for c in cases)}; where both are right, "
        f"speed-up from {ratios[0]:.1f}x to {ratios[-1]:.1f}x (median "
        f"{ratios[len(ratios) // 2]:.1f}x)."
        if ratios
        else ""
    )
    return (
        "Failing orders of third-party projects, each set up by hand at the commit given "
        "(its own venv; the OD relation confirmed with plain pytest, one process per "
        "order): " + (WHOLE if whole else MINIMAL) + " "
        "`orderdep why TEST . --order-file F --python VENV/bin/python "
        "--no-fix --no-check --no-state` (a new store; fork runner) against "
        "detect-test-pollution installed into the same venv (`VENV/bin/python -m pip "
        "install detect-test-pollution`), each in a fresh copy of the project. Whole "
        "command wall times, start-up and collection included. An answer is right when it "
        "is the hand-confirmed partner set, or a plain pytest run of [answer..., test] "
        "confirms it. orderdep's start-up is the time until its first order starts (Python "
        "start-up and imports, the check of `--python`, the fork server's collection of "
        "the whole project); the orders run include the test alone 3 times and the "
        "verification of the answer (the minimal failing and passing orders 5 times "
        "each). Speed-up = detect-test-pollution / orderdep where both are right "
        f"(detect-test-pollution has no answer for a brittle). 1-minute load average when "
        f"the cases ended: {load:.1f} on {cores} cores. {summary}\n\n" + table(HEADERS, rows)
    )
