"""A suite that starts a thread as it loads: forking before collection against fresh pytest.

The fork server cannot fork once threads are alive (a lock another thread held would
stay held in the child). When the suite's own imports start them, orders used to run in
fresh ``python -m pytest`` processes; now they run in children forked before collection
(``prefork``): each still collects the suite, but Python and pytest start once. This
measures, side by side and interleaved, the wall time of short orders under both, on a
generated project of ``--tests`` tests whose conftest starts a daemon thread and whose
test modules import ``--imports`` standard-library modules each (collection cost), and,
as a yardstick, the fork runner on the same project without the thread.

Usage: python benchmarks/bench_prefork.py [--tests 200] [--orders 40] [--imports 5]
Writes the section "Threads started at import" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchdoc import table, write_section  # noqa: E402

from orderdep.engine.config import EngineConfig  # noqa: E402
from orderdep.engine.runner import Engine  # noqa: E402

THREAD = (
    "import threading, time\n"
    "threading.Thread(target=time.sleep, args=(3600,), daemon=True, name='flusher').start()\n"
)
MODULES = ["json", "decimal", "email.message", "http.client", "xml.dom.minidom", "csv",
           "sqlite3", "argparse", "logging.handlers", "urllib.request"]  # fmt: skip


def make_project(root: Path, tests: int, imports: int, thread: bool) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "conftest.py").write_text(THREAD if thread else "")
    per_module = 20
    for m in range(max(1, tests // per_module)):
        lines = [f"import {MODULES[(m + i) % len(MODULES)]}" for i in range(imports)]
        lines += [f"\ndef test_{m}_{i}():\n    assert {i} >= 0\n" for i in range(per_module)]
        (root / "tests" / f"test_m{m}.py").write_text("\n".join(lines) + "\n")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=int, default=200)
    parser.add_argument("--orders", type=int, default=40)
    parser.add_argument("--imports", type=int, default=5)
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        threaded = make_project(Path(tmp) / "threaded", args.tests, args.imports, True)
        plain = make_project(Path(tmp) / "plain", args.tests, args.imports, False)
        times: dict[str, list[float]] = {"subprocess": [], "prefork": [], "fork": []}
        with (
            Engine(EngineConfig(threaded, runner="subprocess")) as sub,
            Engine(EngineConfig(threaded)) as pre,
            Engine(EngineConfig(plain)) as fork,
        ):
            ids = pre.suite.ids
            assert pre.runner == "prefork", pre.runner
            assert fork.suite.ids and fork.runner == "fork"
            rng = random.Random(1)
            for _ in range(args.orders):
                order = rng.sample(ids, 2)
                for name, engine in (("subprocess", sub), ("prefork", pre), ("fork", fork)):
                    began = time.perf_counter()
                    result = engine.run(order)
                    times[name].append(time.perf_counter() - began)
                    assert all(r.outcome.value == "passed" for r in result.results), name
    med = {k: statistics.median(v) for k, v in times.items()}
    rows = [
        [name, f"{med[name] * 1000:.0f}", f"{med[name] / med['subprocess']:.2f}"]
        for name in ("subprocess", "prefork", "fork")
    ]
    text = table(["runner", "median ms per 2-test order", "ratio to subprocess"], rows)
    print(text)
    if args.no_doc:
        return
    write_section(
        "Threads started at import",
        f"{len(ids)} tests in modules importing {args.imports} standard-library modules "
        f"each; the conftest starts a daemon thread. {args.orders} random 2-test orders, "
        "each run under the three runners in turn (fork: the same project without the "
        "thread, as a yardstick). prefork forks before collection: every order still "
        "collects the suite, so its gain is the interpreter's and pytest's start-up.\n\n" + text,
    )


if __name__ == "__main__":
    main()
