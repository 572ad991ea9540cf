"""``benchmarks/bench_dask.py``: the scaling model, and a whole run on a tiny suite."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_dask  # noqa: E402


def test_the_serial_fraction_is_read_off_the_two_worker_speedup() -> None:
    assert bench_dask.amdahl_serial(2.0) == 0.0  # perfect scaling
    assert bench_dask.amdahl_serial(1.0) == 1.0  # none
    assert bench_dask.amdahl_serial(0.5) == 1.0  # slower with two: nothing scales
    f = bench_dask.amdahl_serial(1.6)
    assert f == pytest.approx(0.25)
    assert bench_dask.scaled(f, 2) == pytest.approx(1.6)  # the model gives the measure back
    assert bench_dask.scaled(0.0, 8) == 8.0 and bench_dask.scaled(1.0, 8) == 1.0


def test_order_sets_are_seeded_and_hold_every_test_once() -> None:
    ids = [f"t.py::test_{i}" for i in range(10)]
    one, again = bench_dask.order_sets(ids, 3, 5), bench_dask.order_sets(ids, 3, 5)
    assert one == again
    assert all(sorted(o) == sorted(ids) for o in one["whole suite"])
    assert len(one["2 tests"]) == 12 and all(len(set(o)) == 2 for o in one["2 tests"])


@pytest.mark.slow
def test_a_whole_run_on_a_tiny_suite(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed")
    code = bench_dask.main(["--tests", "20", "--orders", "2", "--rounds", "1", "--no-doc"])
    out = capsys.readouterr().out
    assert code == 0
    assert "| 2 tests | dask, 2 worker(s) | 8 |" in out
    assert "W=64" in out
