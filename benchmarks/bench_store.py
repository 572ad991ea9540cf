"""Results-store size: bytes per recorded order of a long suite, JSON layout (schema 1)
vs the compact one, and the conversion of a JSON store.

Usage: python benchmarks/bench_store.py [--tests 2000] [--orders 40]
Writes the section "Results store size" of docs/benchmarks.md.

Orders are random permutations of a suite of realistic node ids (module, class, test
name, parameters), with mostly passing outcomes, real-looking durations and an
occasional failure message: what ``orderdep detect`` records for a long suite.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchdoc import table, write_section  # noqa: E402

from orderdep.core.outcomes import OrderResult, Outcome, TestResult  # noqa: E402
from orderdep.engine.store import Store, order_key  # noqa: E402

OLD_SCHEMA = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, job TEXT, order_key TEXT NOT NULL,
    code_key TEXT NOT NULL, order_json TEXT NOT NULL, results_json TEXT NOT NULL,
    runner TEXT NOT NULL, probe TEXT, seed INTEGER, tool_version TEXT NOT NULL,
    started REAL NOT NULL, wall_seconds REAL NOT NULL, complete INTEGER NOT NULL
);
"""


def suite(n: int) -> list[str]:
    rng = random.Random(0)
    words = ["cart", "order", "price", "user", "login", "export", "cache", "report"]
    return [
        f"tests/{rng.choice(words)}/test_{rng.choice(words)}_{i // 25}.py::"
        f"Test{rng.choice(words).title()}::test_{rng.choice(words)}_{i}[case-{i % 4}]"
        for i in range(n)
    ]


def orders(ids: list[str], count: int) -> list[OrderResult]:
    rng = random.Random(1)
    out = []
    for _ in range(count):
        order = rng.sample(ids, len(ids))
        results = [
            TestResult(
                t,
                Outcome.FAILED if rng.random() < 0.005 else Outcome.PASSED,
                round(rng.expovariate(150), 6),
                "",
            )
            for t in order
        ]
        results = [
            TestResult(r.test, r.outcome, r.duration, "AssertionError: assert 3 == 2")
            if r.outcome is Outcome.FAILED
            else r
            for r in results
        ]
        out.append(OrderResult(order, results, runner="fork", wall_seconds=4.0))
    return out


def size(path: Path) -> int:
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path.stat().st_size


def write_json_store(path: Path, results: list[OrderResult]) -> None:
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    for r in results:
        db.execute(
            "INSERT INTO runs (job, order_key, code_key, order_json, results_json, runner,"
            " probe, seed, tool_version, started, wall_seconds, complete)"
            " VALUES ('job', ?, 'c', ?, ?, 'fork', NULL, 0, '0', 0, ?, 1)",
            (
                order_key(r.order),
                json.dumps(r.order),
                json.dumps([x.to_json() for x in r.results]),
                r.wall_seconds,
            ),
        )
    db.commit()
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--orders", type=int, default=40)
    args = parser.parse_args()
    ids = suite(args.tests)
    results = orders(ids, args.orders)
    with tempfile.TemporaryDirectory() as tmp:
        old, new, converted = Path(tmp, "old.db"), Path(tmp, "new.db"), Path(tmp, "conv.db")
        write_json_store(old, results)
        write_json_store(converted, results)
        store = Store(new, code="c")
        started = time.perf_counter()
        for r in results:
            store.record(r)
        record_s = (time.perf_counter() - started) / len(results)
        started = time.perf_counter()
        for r in results:
            store.runs_of(r.order)
        read_s = (time.perf_counter() - started) / len(results)
        store.close()
        started = time.perf_counter()
        Store(converted, code="c").close()
        migrate_s = time.perf_counter() - started
        sizes = {p: size(p) for p in (old, new, converted)}
    per = {p: s / args.orders for p, s in sizes.items()}
    rows = [
        ["JSON per order (schema 1)", f"{sizes[old] / 1e6:.2f} MB", f"{per[old] / 1e3:.1f} KB"],
        ["compact (schema 2)", f"{sizes[new] / 1e6:.2f} MB", f"{per[new] / 1e3:.1f} KB"],
        [
            "schema 1 store converted on open",
            f"{sizes[converted] / 1e6:.2f} MB",
            f"{per[converted] / 1e3:.1f} KB",
        ],
    ]
    body = (
        f"{args.orders} random orders of a {args.tests}-test suite (node ids of about "
        f"{sum(map(len, ids)) // len(ids)} characters), recorded into an empty store; file "
        "size after a WAL checkpoint (the compact store's figure includes the test ids, "
        "stored once).\n\n"
        + table(["layout", "file", "per order"], rows)
        + f"\n\nCompact: {per[old] / per[new]:.0f}x smaller; recording takes "
        f"{record_s * 1e3:.1f} ms and reading back {read_s * 1e3:.1f} ms per order; "
        f"converting the {args.orders}-order JSON store took {migrate_s:.2f} s.\n"
    )
    print(body)
    write_section("Results store size", body)


if __name__ == "__main__":
    main()
