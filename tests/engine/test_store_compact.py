"""The store's compact layout: exact round trips, the size of a long order, and the
conversion of a store written in the JSON layout (schema 1)."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.engine.store import SCHEMA_VERSION, Store, order_key
from orderdep.engine.storecodec import OUTCOME_CODES

# The JSON layout orderdep wrote before the compact one (schema 1).
OLD_SCHEMA = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, job TEXT, order_key TEXT NOT NULL,
    code_key TEXT NOT NULL, order_json TEXT NOT NULL, results_json TEXT NOT NULL,
    runner TEXT NOT NULL, probe TEXT, seed INTEGER, tool_version TEXT NOT NULL,
    started REAL NOT NULL, wall_seconds REAL NOT NULL, complete INTEGER NOT NULL
);
"""


def suite(n: int) -> list[str]:
    return [
        f"tests/test_module_{i // 40:03d}.py::TestCase{i % 7}::test_behaviour_{i}[param-{i % 3}]"
        for i in range(n)
    ]


def long_result(ids: list[str], seed: int) -> OrderResult:
    rng = random.Random(seed)
    order = rng.sample(ids, len(ids))
    results = [
        TestResult(
            t,
            rng.choice([Outcome.PASSED] * 30 + list(OUTCOME_CODES)),
            round(rng.expovariate(200), 6),
            "AssertionError: assert 1 == 2" if rng.random() < 0.01 else "",
        )
        for t in order
    ]
    return OrderResult(order, results, runner="fork", wall_seconds=3.25)


def test_every_field_comes_back_exactly(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db", code="c")
    ids = suite(50)
    result = long_result(ids, 1)
    third = result.results[3]
    result.results[3] = TestResult(third.test, Outcome.FAILED, 2.5, "multi\nline ünïcode")
    store.record(result)
    # Repeated ids, and an interrupted order with fewer results than positions.
    twice = OrderResult([ids[0], ids[0]], [TestResult(ids[0], Outcome.PASSED, 0.1)] * 2)
    cut = OrderResult(
        [ids[1], ids[2], ids[3]],
        [TestResult(ids[2], Outcome.CRASHED, 0.000001, "died")],
        interrupted=False,
    )
    store.record(twice)
    store.record(cut)
    store.close()
    again = Store(tmp_path / "r.db", code="c")
    (got,) = again.runs_of(result.order)
    assert got.order == result.order and got.results == result.results
    assert got.wall_seconds == 3.25 and got.runner == "fork"
    assert again.runs_of(twice.order)[0].results == twice.results
    assert again.runs_of(cut.order)[0].results == cut.results


def test_a_2000_test_order_takes_under_30_kb(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    store = Store(path, code="c")
    ids = suite(2000)
    store.record(long_result(ids, 0))  # the first order also stores the test ids
    rows = sqlite3.connect(path)
    before = rows.execute("SELECT SUM(LENGTH(order_blob) + LENGTH(results_blob)) FROM runs")
    first = before.fetchone()[0]
    for seed in range(1, 6):
        store.record(long_result(ids, seed))
    total = rows.execute("SELECT SUM(LENGTH(order_blob) + LENGTH(results_blob)) FROM runs")
    per_order = (total.fetchone()[0] - first) / 5
    assert per_order < 30_000, per_order
    assert rows.execute("SELECT COUNT(*) FROM tests").fetchone()[0] == 2000  # once each


def test_a_schema_1_store_is_converted_in_place_and_shrinks(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    ids = suite(2000)
    results = [long_result(ids, seed) for seed in range(8)]
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    for i, r in enumerate(results):
        db.execute(
            "INSERT INTO runs (job, order_key, code_key, order_json, results_json, runner,"
            " probe, seed, tool_version, started, wall_seconds, complete)"
            " VALUES (?, ?, 'c', ?, ?, 'fork', NULL, ?, '0.1', 0, ?, 1)",
            (
                "job",
                order_key(r.order),
                json.dumps(r.order),
                json.dumps([x.to_json() for x in r.results]),
                i,
                r.wall_seconds,
            ),
        )
    db.commit()
    db.close()
    old_size = path.stat().st_size

    store = Store(path, code="c")
    for r in results:
        (got,) = store.job_runs("job", r.order)
        assert got.order == r.order and got.results == r.results
    store.record(long_result(ids, 99))  # and it keeps recording
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("SELECT COUNT(*) FROM runs WHERE order_json != ''").fetchone()[0] == 0
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert path.stat().st_size < old_size / 5, (path.stat().st_size, old_size)
    assert Store(path, code="c").count() == 9  # opening it again changes nothing
