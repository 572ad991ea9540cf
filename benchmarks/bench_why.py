"""``orderdep why`` side by side with detect-test-pollution on the same failing orders, and
the cost of recording each run's order for ``--last``.

1. For generated suites of ``--sizes`` tests (``generate_suite(n, seed=1)``): for each kind
   of planted OD test (a victim with one polluter, a victim of a polluter group, a brittle
   with one state-setter, a brittle with a state-setter group; the first of each in the
   ground truth), a seeded random order (class groups kept, as pytest-randomly does) in
   which it fails. Then, on that order:

   * ``orderdep why TEST PROJECT --order-file FILE --no-fix --no-check --store NEW``
     through ``main(argv)`` (fork runner; a new store, so nothing is reused);
   * ``detect-test-pollution --failing-test TEST --testids-file FILE`` (PyPI, in a venv
     of its own made at run time: ``python3 -m venv VENV && VENV/bin/pip install
     detect-test-pollution 'pytest<9'``), with the order up to the test as its file.

   Wall time of each, and whether its answer is right against the ground truth: the
   polluter (any of the planted ones), the whole polluter group, the state-setter, the
   whole ordered setter group.
2. Recording for ``--last``: ``python -m pytest -p no:randomly -q`` on the 2,000-test
   suite with ``orderdep_record_last`` on and off, alternating, ``--rounds`` times each;
   the medians of wall time and of the pytest process's CPU time.

3. Real projects (why_real.py): the cases of ``--cases`` files (already set-up
   third-party projects and their hand-confirmed failing orders, kept outside this
   repository), ``orderdep why --python`` the case's venv against detect-test-pollution
   installed into that venv.

Usage: python benchmarks/bench_why.py [--sizes 500 2000] [--rounds 9] [--venv /tmp/dtp]
       [--cases FILE ...] [--per-project 6] [--whole-suite]
Writes the section "why" (generated suites; skipped with ``--sizes`` and no size) and
"why on real projects" (skipped when no cases file exists) of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section
from why_real import bench_real, parse_answer, render_real

from orderdep.core import orders as gen
from orderdep.core.odmodel import ODSpec, fails_at
from orderdep.core.suite import Suite
from orderdep.shells.cli import main as orderdep_main
from orderdep.synth.generate import generate_suite
from orderdep.synth.truth import GroundTruth

SUITE_SEED = 1
# Cases files live beside the repository, never in it: ../rw/cases-*.json by default.
DEFAULT_CASES = sorted((Path(__file__).resolve().parents[2] / "rw").glob("cases-*.json"))
KINDS = (
    "victim, 1 polluter",
    "victim, polluter group",
    "brittle, 1 setter",
    "brittle, setter group",
)


@dataclass
class Case:
    size: int
    kind: str
    test: str
    before: int  # tests before it in the failing order
    orderdep_wall: float
    state_wall: float
    orderdep_answer: str
    orderdep_right: bool
    dtp_wall: Optional[float]
    dtp_answer: str
    dtp_right: bool


def kind_of(spec: ODSpec) -> Optional[str]:
    if spec.kind == "victim" and spec.polluters and not spec.polluter_groups:
        return KINDS[0]
    if spec.kind == "victim" and spec.polluter_groups and not spec.polluters:
        return KINDS[1]
    if spec.kind == "brittle" and spec.state_setters and not spec.state_setter_groups:
        return KINDS[2]
    if spec.kind == "brittle" and spec.state_setter_groups and not spec.state_setters:
        return KINDS[3]
    return None


def pick(truth: GroundTruth) -> list[tuple[str, ODSpec]]:
    chosen: dict[str, ODSpec] = {}
    for spec in truth.specs:
        kind = kind_of(spec)
        if kind is not None and kind not in chosen:
            chosen[kind] = spec
    return [(k, chosen[k]) for k in KINDS if k in chosen]


def failing_order(spec: ODSpec, groups: list[list[str]], rng: random.Random) -> list[str]:
    for _ in range(100_000):
        order = gen.random_order(groups, rng)
        if fails_at(spec, order[: order.index(spec.test)]):
            return order
    raise SystemExit(f"no random order fails {spec.test}")


def right(spec: ODSpec, answer: list[str]) -> bool:
    if spec.kind == "victim":
        return (len(answer) == 1 and answer[0] in spec.polluters) or any(
            sorted(g) == sorted(answer) for g in spec.polluter_groups
        )
    return (len(answer) == 1 and answer[0] in spec.state_setters) or any(
        list(g) == answer for g in spec.state_setter_groups
    )


def run_orderdep(
    project: Path, test: str, order_file: Path, store: Path, *flags: str
) -> tuple[float, list[str]]:
    out, err = io.StringIO(), io.StringIO()
    argv = ["why", test, str(project), "--order-file", str(order_file), "--no-fix", "--no-check"]
    argv += ["--store", str(store), *flags]
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = orderdep_main(argv)
    wall = time.perf_counter() - start
    answer = parse_answer(out.getvalue())
    if code not in (0, 1):
        print(err.getvalue()[-2000:])
    return wall, answer


def ensure_dtp(venv: Path) -> Optional[Path]:
    exe = venv / "bin" / "detect-test-pollution"
    if exe.exists():
        return exe
    steps = [["python3", "-m", "venv", str(venv)],
             [str(venv / "bin" / "pip"), "install", "-q", "detect-test-pollution", "pytest<9"]]  # fmt: skip
    for step in steps:
        print(f"  {shlex.join(step)}", flush=True)
        if subprocess.run(step, capture_output=True).returncode != 0:
            return None
    return exe if exe.exists() else None


def run_dtp(
    exe: Path, project: Path, test: str, order: list[str], tmp: Path
) -> tuple[float, list[str]]:
    ids = tmp / "dtp-testids.txt"
    ids.write_text("\n".join(order[: order.index(test) + 1]) + "\n", encoding="utf-8")
    cmd = [str(exe), "--failing-test", test, "--testids-file", str(ids)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=project, capture_output=True, text=True)
    wall = time.perf_counter() - start
    found = [
        line.split(": ", 1)[1]
        for line in proc.stdout.splitlines()
        if "the polluting test is: " in line
    ]
    return wall, found


def bench_cases(size: int, tmp: Path, dtp: Optional[Path]) -> tuple[list[Case], Path]:
    project = tmp / f"suite-{size}"
    truth = generate_suite(project, n_tests=size, seed=SUITE_SEED)
    groups = [list(g) for g in Suite.from_ids(truth.tests).groups("class").values()]
    rng = random.Random(size)
    cases = []
    for kind, spec in pick(truth):
        order = failing_order(spec, groups, rng)
        path = tmp / f"order-{size}-{len(cases)}.txt"
        path.write_text("\n".join(order) + "\n", encoding="utf-8")
        store = tmp / f"store-{size}-{len(cases)}"
        o_wall, o_answer = run_orderdep(
            project, spec.test, path, store.with_suffix(".1"), "--no-state"
        )
        s_wall, _ = run_orderdep(project, spec.test, path, store.with_suffix(".2"))
        d_wall, d_answer = (
            (None, []) if dtp is None else run_dtp(dtp, project, spec.test, order, tmp)
        )
        case = Case(
            size, kind, spec.test, order.index(spec.test), o_wall, s_wall,
            " -> ".join(o_answer) or "-",
            right(spec, o_answer), d_wall, " -> ".join(d_answer) or "-", right(spec, d_answer),
        )  # fmt: skip
        print(f"  {size} {kind}: orderdep {o_wall:.1f} s ({case.orderdep_right}), "
              f"dtp {d_wall if d_wall is None else round(d_wall, 1)} s ({case.dtp_right})", flush=True)  # fmt: skip
        cases.append(case)
    return cases, project


def bench_recording(project: Path, rounds: int) -> dict[str, float]:
    """Median wall and CPU seconds of a whole pytest run with recording on and off."""
    times: dict[str, list[float]] = {k: [] for k in ("on", "off", "on_cpu", "off_cpu")}
    base = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-q", "-p", "no:hypothesispytest"]
    for _ in range(rounds):
        for flag, key in (("true", "on"), ("false", "off")):
            cpu0 = _children_cpu()
            start = time.perf_counter()
            subprocess.run(
                [*base, "-o", f"orderdep_record_last={flag}"], cwd=project, capture_output=True
            )
            times[key].append(time.perf_counter() - start)
            times[f"{key}_cpu"].append(_children_cpu() - cpu0)
    out = {k: statistics.median(v) for k, v in times.items()}
    out["rounds"] = rounds
    return out


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def short(test: str) -> str:
    return test.rsplit("/", 1)[-1]


def render(cases: list[Case], rec: Optional[dict[str, float]], dtp_note: str, load: float) -> str:
    rows = []
    for c in cases:
        ratio = f"{c.dtp_wall / c.orderdep_wall:.1f}x" if c.dtp_wall and c.dtp_right else "-"
        rows.append([
            c.size, c.kind, f"`{short(c.test)}`", c.before,
            f"{c.orderdep_wall:.1f} s", f"{c.state_wall:.1f} s",
            "yes" if c.orderdep_right else "**no**",
            "-" if c.dtp_wall is None else f"{c.dtp_wall:.1f} s", "yes" if c.dtp_right else "no", ratio,
        ])  # fmt: skip
    body = (
        "From one failing order (a seeded random order of a generated suite, class groups "
        "kept) to the answer: `orderdep why TEST --order-file FILE --no-fix --no-check "
        "--no-state` (the search only, as detect-test-pollution does; fork runner, a new "
        "store each time; the next column adds the Debugger's root diff, without "
        "`--no-state`) and detect-test-pollution (one pytest process per bisection step) on "
        "the same order; speed-up = detect-test-pollution / orderdep search, where both are "
        "right (detect-test-pollution stops at once on a brittle: it checks that the test "
        "passes alone, and bisects halves, so a polluter group split across them is lost). "
        "Whole command "
        f"wall times, start-up and collection included; 1-minute load average when the cases "
        f"ended: {load:.1f} on {os.cpu_count()} cores. {dtp_note}\n\n"
        + table(
            [
                "tests",
                "case",
                "test",
                "tests before it",
                "orderdep why",
                "right",
                "detect-test-pollution",
                "right",
                "speed-up",
            ],
            rows,
        )
    )
    if rec is not None:
        wall = 100 * (rec["on"] - rec["off"]) / rec["off"]
        cpu = 100 * (rec["on_cpu"] - rec["off_cpu"]) / rec["off_cpu"]
        body += (
            "\n\nRecording the executed order for `--last` (the plugin's default): "
            "`python -m pytest -p no:randomly -q` on the 2,000-test suite with "
            "`-o orderdep_record_last=true` and `=false`, alternating, median of "
            f"{int(rec['rounds'])} runs each: wall {rec['on']:.2f} s vs {rec['off']:.2f} s "
            f"({wall:+.1f}%), CPU time of the pytest process {rec['on_cpu']:.2f} s vs "
            f"{rec['off_cpu']:.2f} s ({cpu:+.1f}%). On this shared machine run-to-run noise "
            "is a few percent; the CPU time is the steadier figure."
        )
    return body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[500, 2000])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--venv", type=Path, default=Path("/tmp/dtp"))
    parser.add_argument("--no-doc", action="store_true")
    parser.add_argument("--cases", type=Path, nargs="*", default=DEFAULT_CASES)
    parser.add_argument("--per-project", type=int, default=6)
    parser.add_argument(
        "--whole-suite",
        action="store_true",
        help="real projects: start from a failing order of the whole suite, not the case's",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmpdir:
        cases_files = [p for p in args.cases if p.exists()]
        real = (
            bench_real(cases_files, args.per_project, Path(tmpdir), args.whole_suite)
            if cases_files
            else []
        )
    if real:
        body = render_real(real, os.getloadavg()[0], os.cpu_count(), args.whole_suite)
        if not args.no_doc:
            title = "why on real projects" + (", whole-suite orders" if args.whole_suite else "")
            write_section(title, body)
        print(body)
    if not args.sizes:
        return
    dtp = ensure_dtp(args.venv)
    note = "" if dtp else "detect-test-pollution could not be installed: its columns are empty."
    cases: list[Case] = []
    rec: Optional[dict[str, float]] = None
    load = 0.0
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for size in args.sizes:
            got, project = bench_cases(size, tmp, dtp)
            cases += got
            load = os.getloadavg()[0]
            if size == 2000 and args.rounds:
                rec = bench_recording(project, args.rounds)
                shutil.rmtree(project / ".pytest_cache", ignore_errors=True)
    body = render(cases, rec, note, load)
    if not args.no_doc:
        write_section("why", body)
    print(body)


if __name__ == "__main__":
    main()
