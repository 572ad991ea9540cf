"""``orderdep detect`` on a real project whose brittle any other test sets up: the default
search runs each test alone first, and the brittle is found that way."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import write_files

from orderdep.core.report import load_report

if TYPE_CHECKING:
    from conftest import CliRunner

QUEUE = """
    _drained = False


    def drain():
        global _drained
        _drained = True


    def ready():
        return _drained
"""
# every test but the brittle drains the shared queue, as promise's tests do
SETTERS = "".join(f"def test_drains_{i}():\n    queue.drain()\n\n\n" for i in range(6))
BRITTLE = "tests/test_b.py::test_ready_after_a_drain"


def test_a_brittle_any_other_test_sets_up_is_found_alone(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_files(
        tmp_path / "queue",
        {
            "drainq.py": QUEUE,
            "tests/test_a.py": "import drainq as queue\n\n\n" + SETTERS,
            "tests/test_b.py": (
                "import drainq as queue\n\n\n"
                + SETTERS.replace("test_drains_", "test_also_drains_")
                + "def test_ready_after_a_drain():\n    assert queue.ready()\n"
            ),
        },
    )
    code, out, err = cli("detect", root, "--seed", "1", "--max-orders", "200")
    assert code == 1, out + err
    assert "orderdep: running each test alone first (isolation: 13 orders" in err
    assert "coverage of isolation: 13 of 13 orders, each test alone" in out
    report = load_report(root / ".orderdep" / "report.json")
    assert report.od_ids == [BRITTLE]
    assert report.od_tests[0].failing_order == [BRITTLE]  # alone
    assert report.stats.strategies[:3] == ["original", "timing", "isolation"]
    # the reproduce command printed for it runs, and fails the brittle alone
    line = next(x for x in out.splitlines() if x.strip().startswith("reproduce: "))
    argv = shlex.split(line.split("reproduce: ", 1)[1])
    assert argv[0] == "orderdep" and argv[-1] == BRITTLE
    monkeypatch.chdir(root)
    code, shown, _ = cli(*argv[1:])
    assert code == 1 and "failed" in shown
    # and so does a plain pytest of it alone
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         BRITTLE],
        cwd=root, capture_output=True, text=True,
    )  # fmt: skip
    assert plain.returncode == 1, plain.stdout
