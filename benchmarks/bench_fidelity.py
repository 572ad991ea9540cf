"""Fidelity on real projects: fork runner, subprocess runner and plain pytest, per position.

Downloads the sdists of real projects that ship their tests (nothing third-party is
kept in this repository), unpacks each into a temporary directory, installs it with its
test dependencies and orderdep into a virtual environment of its own, and compares the
outcomes of the original order, its reverse and N seeded random orders under the three
runners (``orderdep.analysis.fidelity.check`` inside that environment). Also times the
fork and subprocess runners side by side on 2-test orders and on whole-suite orders.

    python benchmarks/bench_fidelity.py [--random 20] [--only NAME] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchdoc import table, write_section

ROOT = Path(__file__).resolve().parent.parent
# name==version, test dependencies, extra pytest arguments (where the sdist needs them).
PROJECTS: list[tuple[str, list[str], list[str]]] = [
    ("more-itertools==10.5.0", [], []),
    ("click==8.1.7", ["pytest<9"], ["tests"]),  # its tests use a form pytest 9 removed
    ("jinja2==3.1.4", [], ["tests"]),
    ("six==1.16.0", [], []),
    ("cachetools==5.5.0", [], ["tests"]),
    ("toolz==1.0.0", [], []),
    ("itsdangerous==2.2.0", ["freezegun"], ["tests"]),
]

INSIDE = textwrap.dedent(
    """
    import json, statistics, sys, time
    from pathlib import Path
    from orderdep.analysis.fidelity import check
    from orderdep.engine.config import EngineConfig
    from orderdep.engine.runner import Engine
    import random as _random

    project, n_random, args = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    config = EngineConfig(project, pytest_args=tuple(args))
    report = check(config, seed=20261123, random_orders=n_random, singles=0)
    rng = _random.Random(7)
    timing = {}
    for runner in ("fork", "subprocess"):
        with Engine(EngineConfig(project, runner=runner, pytest_args=tuple(args))) as e:
            ids = e.suite.ids
            pairs = [rng.sample(ids, 2) for _ in range(10)]
            start = time.perf_counter()
            e.run_many(pairs)
            pair = (time.perf_counter() - start) / len(pairs)
            start = time.perf_counter()
            e.run(ids)
            full = time.perf_counter() - start
        timing[runner] = {"pair": pair, "full": full}
    print(json.dumps({"tests": len(ids), "report": report.to_json(), "timing": timing}))
    """
)


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)  # type: ignore[call-overload]


def prepare(spec: str, deps: list[str], work: Path) -> tuple[Path, Path]:
    """Unpacked sdist and the python of its own venv (project, orderdep, pytest, deps)."""
    dl = work / "dl"
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--no-binary",
            ":all:",
            spec,
            "-d",
            str(dl),
        ]
    )
    archive = next(dl.glob("*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(work / "src", filter="data")
    project = next((work / "src").iterdir())
    venv = work / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    py = venv / "bin" / "python"
    run([str(py), "-m", "pip", "install", "-q", "-e", str(ROOT), str(project), *deps])
    return project, py


def measure(spec: str, deps: list[str], args: list[str], n_random: int, work: Path) -> dict:
    project, py = prepare(spec, deps, work)
    script = work / "inside.py"
    script.write_text(INSIDE, encoding="utf-8")
    started = time.perf_counter()
    out = run([str(py), str(script), str(project), str(n_random), *args], cwd=project)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    data["seconds"] = time.perf_counter() - started
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random", type=int, default=20)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--keep", type=Path, default=None, help="Keep work files here.")
    opts = parser.parse_args()
    rows, notes = [], []
    total_tests = total_mismatch = 0
    for spec, deps, args in PROJECTS:
        name = spec.split("==")[0]
        if opts.only and name not in opts.only:
            continue
        work = Path(tempfile.mkdtemp(prefix=f"fid-{name}-", dir=opts.keep))
        print(f"{spec}: ...", file=sys.stderr, flush=True)
        try:
            data = measure(spec, deps, args, opts.random, work)
        except subprocess.CalledProcessError as exc:
            notes.append(f"- {spec}: not measured ({(exc.stderr or '').strip()[-300:]})")
            print(notes[-1], file=sys.stderr)
            continue
        rep, t = data["report"], data["timing"]
        mism = rep["mismatches"]
        total_tests += data["tests"]
        total_mismatch += len(mism)
        rows.append(
            [
                spec,
                data["tests"],
                rep["orders"],
                rep["positions"],
                len(mism),
                f"{t['subprocess']['pair'] / t['fork']['pair']:.0f}x",
                f"{t['subprocess']['full'] / t['fork']['full']:.2f}x",
            ]
        )
        for m in mism[:5]:
            notes.append(
                f"- {spec}: `{m['test']}` ({m['label']}, position {m['position']}): "
                + ", ".join(f"{k} {v}" for k, v in m["outcomes"].items())
            )
        print(rows[-1], f"{data['seconds']:.0f}s", file=sys.stderr, flush=True)
    body = (
        f"Outcomes per position of the original order, its reverse and {opts.random} seeded "
        "random orders under the fork runner, the subprocess runner and plain pytest (one "
        "fresh `python -m pytest` per order); each project from its PyPI sdist, in a venv "
        "of its own. Speed: wall time per order, subprocess over fork, side by side in one "
        "run (10 random 2-test orders; one whole-suite order).\n\n"
        + table(
            [
                "project",
                "tests",
                "orders",
                "positions compared",
                "mismatches",
                "fork speed-up, 2-test order",
                "fork speed-up, whole suite",
            ],
            rows,
        )
        + f"\n\n{total_tests} tests in all, {total_mismatch} mismatching positions.\n"
    )
    if notes:
        body += "\n" + "\n".join(notes) + "\n"
    write_section("Fidelity on real projects", body)


if __name__ == "__main__":
    main()
