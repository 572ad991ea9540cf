"""``benchmarks/sdist_detect.py``: a row of the table, with detect run or skipped."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import sdist_detect  # noqa: E402
from realdoc import HEADERS  # noqa: E402
from sdist_detect import Scored, row_of  # noqa: E402

PROJECT = {"name": "demo", "spec": "demo==1.0", "python": "3.11", "known": [{}, {}]}


def _row(skip: bool) -> list[object]:
    opts = argparse.Namespace(run_label="today", budget=300.0, skip_detect=skip)
    scored = Scored(tests=220, suite=2.5, wall=290.0, exit_code=1, found=3, classified=3,
                    confirmed=2, known_found=2, with_polluter=1,
                    pradet=[1, "250", "2 of 2"])  # fmt: skip
    return row_of(PROJECT, scored, opts, "abc1234")


def test_a_row_has_every_column_and_says_what_was_not_run() -> None:
    ran, skipped = _row(False), _row(True)
    assert len(ran) == len(skipped) == len(HEADERS)
    at = HEADERS.index
    assert (ran[at("wall (s)")], ran[at("known found")]) == ("290", "2 of 2")
    assert (skipped[at("wall (s)")], skipped[at("known found")]) == ("-", "-")
    assert skipped[at("known confirmed")] == "2 of 2"
    assert skipped[at("pradet: known with a polluter")] == "2 of 2"


def test_a_logged_run_keeps_its_output_and_its_peak_memory(tmp_path: Path) -> None:
    code = "x = bytearray(64 * 1024 * 1024); print('done')"
    exit_code, wall = sdist_detect.run_logged([sys.executable, "-c", code], tmp_path,
                                              tmp_path, "probe", 60)  # fmt: skip
    assert exit_code == 0 and wall > 0
    assert (tmp_path / "probe.out").read_text().startswith("done")
    peak = sdist_detect.peak_mb(tmp_path, "probe")
    if sdist_detect.GNU_TIME.exists():
        assert peak is not None and peak >= 64
    else:
        assert peak is None
