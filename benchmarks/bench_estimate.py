"""Do cost estimates hold? The default strategy's estimate against the time it then takes.

For each size, a project of N tests whose durations are drawn (seeded) from a
log-uniform 1-200 ms distribution, in modules of 10 (half of them unittest classes), with
planted order dependencies: victims of a polluter sharing a module-level registry (one
with a cleaner) and a brittle of a state-setter. ``orderdep detect P --classify --jobs J
--seed 1`` runs through ``main(argv)``; its notice gives the estimate of the search and
of the confirmation and classification per OD test it finds. The table compares the
estimate (search + per-OD-test cost x OD tests found) with the measured wall time of the
whole command (engine start-up included). Target: within 1.5x.

A size written ``40s`` makes the same project with set-up paid once per process: a third
of its tests read a data table that the first of them in a process builds, which takes
:data:`SET_UP` seconds (as a real suite parses a data file on first use). The original
order pays it once; every short order that reads the table pays it again.

Usage: python benchmarks/bench_estimate.py [--sizes 30,50,40s] [--jobs 2]
Writes the section "Estimates" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import random
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section

from orderdep.shells.cli import main as orderdep_main

SET_UP = 0.5
ESTIMATE = re.compile(r"~(\d+) orders, ~(\d+) s estimated(?:; ~(\d+) s per OD test)?")


def duration(rng: random.Random) -> float:
    """Seconds, log-uniform between 1 and 200 ms."""
    return math.exp(rng.uniform(math.log(0.001), math.log(0.2)))


TABLE = f"""
_TABLE = None


def table():
    global _TABLE
    if _TABLE is None:
        time.sleep({SET_UP})
        _TABLE = {{"rows": 1}}
    return _TABLE
"""


def write_project(root: Path, n: int, seed: int, set_up: bool = False) -> int:
    """N tests with planted dependencies; returns how many OD tests are planted. With
    ``set_up``, every third filler test reads the table built on first use."""
    rng = random.Random(seed)
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    state = "import time\n\nREGISTRY = {}\nCONFIG = {}\n" + (TABLE if set_up else "")
    (root / "tests" / "state.py").write_text(state)
    modules = max(2, n // 10)
    bodies: list[list[str]] = [[] for _ in range(modules)]
    planted = [
        ("def test_registry_empty_{k}():\n    assert 'p{k}' not in state.REGISTRY\n",
         "def test_register_{k}():\n    state.REGISTRY['p{k}'] = 1\n"),
    ]  # fmt: skip
    od = 0
    for k in range(max(1, n // 25)):
        victim, polluter = (t.format(k=k) for t in planted[0])
        bodies[rng.randrange(modules)].append(victim)
        bodies[rng.randrange(modules)].append(polluter)
        od += 1
    bodies[0].append("def test_reset_registry():\n    state.REGISTRY.clear()\n")
    bodies[rng.randrange(modules)].append("def test_configure():\n    state.CONFIG['on'] = 1\n")
    bodies[rng.randrange(modules)].append(
        "def test_configured():\n    assert state.CONFIG.get('on')\n"
    )
    od += 1
    count = sum(len(b) for b in bodies)
    i = 0
    while count < n:
        reads = "    assert state.table()\n" if set_up and i % 3 == 0 else ""
        bodies[i % modules].append(
            f"def test_work_{i}():\n{reads}    time.sleep({duration(rng):.4f})\n"
        )
        count += 1
        i += 1
    for m, body in enumerate(bodies):
        head = "import time\nimport unittest\n\nimport state\n\n\n"
        if m % 2:
            methods = "".join(
                "    " + t.replace("():", "(self):").replace("\n    ", "\n        ") + "\n"
                for t in body
            )
            text = head + f"class TestM{m}(unittest.TestCase):\n{methods}"
        else:
            text = head + "\n\n".join(body)
        (root / "tests" / f"test_m{m:02d}.py").write_text(text)
    return od


def run(project: Path, jobs: int) -> tuple[str, float, int]:
    err = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        orderdep_main(["detect", str(project), "--classify", "--jobs", str(jobs), "--seed", "1"])
    wall = time.perf_counter() - start
    report = (project / ".orderdep" / "report.json").read_text()
    found = report.count('"failing_order"')
    return err.getvalue(), wall, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="30,50,40s")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes.split(","):
            set_up = size.endswith("s")
            n = int(size.rstrip("s"))
            project = Path(tmp) / f"p{size}"
            planted = write_project(project, n, seed=n, set_up=set_up)
            print(f"{size}: {n} tests ...", flush=True)
            err, wall, found = run(project, args.jobs)
            m = ESTIMATE.search(err)
            if m is None:
                print(err)
                raise SystemExit("no estimate printed")
            search, per_od = float(m.group(2)), float(m.group(3) or 0)
            predicted = search + per_od * found
            ratio = wall / predicted if predicted else float("inf")
            rows.append([
                n, f"{SET_UP} s" if set_up else "none", planted, found, m.group(1), f"{search:.0f}", f"{per_od:.0f}",
                f"{predicted:.0f}", f"{wall:.0f}", f"{ratio:.2f}",
            ])  # fmt: skip
            print(f"  estimate {predicted:.0f} s, took {wall:.0f} s", flush=True)
    body = "\n".join(
        [
            "`orderdep detect P --classify --jobs J --seed 1` (default strategy) on generated "
            "projects with test durations log-uniform in 1-200 ms. *Set-up per process*: "
            f"a third of the tests read a table the first of them in a process builds in "
            f"{SET_UP} s (paid once by the original order, again by every short order "
            "that reads it). *Estimate* is what the "
            "command printed before the search: the search, plus confirmation and "
            "classification per OD test (times the OD tests it then found). *Took* is the "
            "wall time of the whole command, engine start-up included. Target: ratio within "
            "1/1.5 .. 1.5.",
            "",
            table(
                [
                    "tests",
                    "set-up per process",
                    "OD planted",
                    "OD found",
                    "orders (est.)",
                    "search est. (s)",
                    "per OD test est. (s)",
                    "estimate (s)",
                    "took (s)",
                    "took / estimate",
                ],
                rows,
            ),
        ]
    )
    if not args.no_doc:
        write_section("Estimates", body)
    print(body)


if __name__ == "__main__":
    main()
