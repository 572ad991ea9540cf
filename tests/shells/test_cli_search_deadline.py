"""Once the search has a suspect, an order still running when the search's time ends is
killed there: the rest of the budget is the suspect's confirmation's
(:meth:`orderdep.analysis.search.Search._run_slice`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from tests.engine.conftest import write_files

if TYPE_CHECKING:
    from conftest import CliRunner

SLOW = "\n\n".join(
    f"def test_slow_{i}():\n    if STATE['after']:\n        time.sleep(3)\n" for i in range(6)
)
SUITE = f"""import os
import time

STATE = {{"after": False}}  # the polluter or the victim ran in this process


{SLOW}


def test_polluter():
    STATE["after"] = True
    os.environ["ORDERDEP_DEADLINE_X"] = "1"


def test_victim():
    STATE["after"] = True
    assert "ORDERDEP_DEADLINE_X" not in os.environ
"""
VICTIM = "tests/test_deadline.py::test_victim"


@pytest.mark.slow
def test_a_search_order_that_overruns_the_search_leaves_the_suspect_its_time(
    tmp_path: Path, cli: CliRunner
) -> None:
    """The victim fails in the original order (its polluter comes first) and passes
    alone; orders that put either before the six slow tests take 18 s, more than the
    search's 14 s of a 20-s budget. The search's order is killed when its time ends,
    and the victim is confirmed in what is left."""
    project = write_files(tmp_path / "p", {"tests/test_deadline.py": SUITE})
    report = tmp_path / "r.json"
    code, out, err = cli("detect", project, "--budget", "20", "--seed", "1", "--report", report)
    data = json.loads(report.read_text())
    assert [f["test"] for f in data["od_tests"]] == [VICTIM], out + err
    assert code == 1, out + err
