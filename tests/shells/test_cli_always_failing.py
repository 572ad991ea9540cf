"""``orderdep detect`` on a suite with broken tests: failing in the original order and
alone, they are listed as always failing after one run alone each, and the victim among
them is still found."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from tests.engine.conftest import write_files

from orderdep.core.report import load_report
from orderdep.shells.cli import main

BROKEN = [f"tests/test_broken.py::test_broken_{i}" for i in range(5)]
VICTIM, POLLUTER = "tests/test_a.py::test_victim", "tests/test_a.py::test_polluter"
PROJECT = {
    "pytest.ini": "[pytest]\n",
    "tests/__init__.py": "",
    "tests/shared.py": "polluted = False\n",
    "tests/test_a.py": """
        from tests import shared

        def test_polluter():
            shared.polluted = True

        def test_victim():
            assert not shared.polluted
        """,
    "tests/test_broken.py": "\n".join(
        f"def test_broken_{i}():\n    raise RuntimeError('broken {i}')\n" for i in range(5)
    ),
}


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def test_always_failing_tests_cost_one_run_each_and_the_victim_is_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_files(tmp_path / "p", PROJECT)
    argv = ["detect", str(project), "--strategy", "reverse", "--seed", "1"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    report = load_report(project / ".orderdep" / "report.json")
    assert report.od_ids == [VICTIM]
    assert report.od_tests[0].passing_order == [VICTIM]
    assert report.always_failing == BROKEN  # in the suite's order
    listed = out.split("5 tests always failing (also alone):\n")[1].splitlines()[:5]
    assert [line.strip() for line in listed] == BROKEN
    # confirmation: each broken test alone once; the rest is the victim's, its failing
    # and its passing order observed 6 times each (the default --confirm-runs 5, plus 1)
    stats = report.stats
    assert stats.orders_run - stats.extras["search_orders"] <= len(BROKEN) + 2 * 6
    reproduce = next(line for line in out.splitlines() if "reproduce: " in line)
    assert main(shlex.split(reproduce.split("reproduce: ")[1])[1:]) == 1
