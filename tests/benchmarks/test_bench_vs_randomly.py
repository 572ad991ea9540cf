"""``benchmarks/bench_vs_randomly.py``: what it reads from a pytest run and a report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_vs_randomly  # noqa: E402


def test_the_test_count_is_read_off_the_last_line_of_a_quiet_run() -> None:
    out = "....\n4 failed, 1329 passed, 4 skipped, 1 xfailed, 2 warnings in 9.55s\n"
    assert bench_vs_randomly.collected(out) == 1338
    assert bench_vs_randomly.collected("1 error in 0.9s") == 1
    assert bench_vs_randomly.collected("") == 0


def test_whole_orders_are_the_search_executions_over_the_suite() -> None:
    report = {"tests": [f"t{i}" for i in range(200)], "stats": {"search_executions": 3100}}
    assert bench_vs_randomly.whole_orders(report) == 15.5
    assert bench_vs_randomly.whole_orders({}) == 0.0


def test_the_manifest_holds_public_facts_only() -> None:
    manifest = json.loads(bench_vs_randomly.MANIFEST.read_text())
    for project in manifest["projects"]:
        assert "==" in project["spec"] and "pytest-randomly" in project["requirements"]
        assert not any("/" in str(v) for v in project.values() if isinstance(v, str))
