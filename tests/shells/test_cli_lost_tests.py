"""Tests that crash or hang never hide findings. A hanging test with no ``--timeout`` is
killed within the default limit, the run goes on, and a victim the hang kept from
running is still found; a crash inside Tuscan orders leaves every pair covered or
listed as not coverable, with the reason."""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import write_files

from orderdep.engine import timeouts

if TYPE_CHECKING:
    from conftest import CliRunner

MOD = "tests/test_app.py"
POLLUTER, HANGS, VICTIM = (f"{MOD}::test_{n}" for n in ("polluter", "hangs", "victim"))


@pytest.mark.slow
def test_a_hang_without_timeout_is_cut_and_the_victim_behind_it_still_found(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    project = write_files(
        tmp_path / "proj",
        {
            "pytest.ini": "[pytest]\n",
            MOD: """
                import time

                SEEN = []

                def test_polluter():
                    SEEN.append("polluter")

                def test_hangs():
                    time.sleep(3600)

                def test_victim():
                    assert not SEEN
            """,
        },
    )
    started = time.monotonic()
    code, out, err = cli("detect", project, "--strategy", "reverse", "--seed", "1",
                         "--confirm-runs", "1")  # fmt: skip
    elapsed = time.monotonic() - started
    assert code == 1, out + err
    assert "timeout per test: 10x its duration" in err
    # The hang costs its first-run limit once (the original order), seconds after that.
    assert elapsed < timeouts.UNSEEN + 120, (elapsed, err)
    assert VICTIM in out.split("order-dependent test")[1].split("always failing")[0]
    assert f"always failing (also alone):\n  {HANGS} (ran past its time limit)" in out
    assert "original order: " + HANGS + " cut it short" in out
    # The printed reproduce command shows the victim failing after its polluter alone.
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("reproduce:"))
    argv = shlex.split(line.split("reproduce:", 1)[1])[1:]
    assert argv[argv.index("run") + 2 :] == [POLLUTER, VICTIM]
    code, rerun, _ = cli(*argv)
    assert code == 1 and "failed" in rerun


def test_a_crash_inside_tuscan_orders_leaves_every_pair_covered_or_explained(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    mod = "test_app.py"
    project = write_files(
        tmp_path / "proj",
        {
            "pytest.ini": "[pytest]\n",
            mod: """
                import os

                SEEN = []

                def test_first():
                    pass

                def test_crash():
                    os._exit(1)

                def test_polluter():
                    SEEN.append("polluter")

                def test_victim():
                    assert not SEEN

                def test_last():
                    pass
            """,
        },
    )
    code, out, err = cli("detect", project, "--strategy", "tuscan", "--seed", "1",
                         "--confirm-runs", "1")  # fmt: skip
    assert code == 1, out + err
    report = json.loads((project / ".orderdep" / "report.json").read_text())
    assert [f["test"] for f in report["od_tests"]] == [f"{mod}::test_victim"]
    assert report["always_failing"] == [f"{mod}::test_crash"]
    tuscan = next(a for a in report["stats"]["coverage"] if a["strategy"] == "tuscan")
    bad = tuscan["not_coverable"]
    assert tuscan["pairs_covered"] + len(bad) == tuscan["pairs_planned"] == 20
    assert {b["pair"][0] for b in bad} == {f"{mod}::test_crash"}
    assert {b["reason"] for b in bad} == {f"{mod}::test_crash crashed the test process"}
    assert tuscan["recovery_orders"] > 0
    assert "coverage of tuscan: 6 of 6 planned orders, 16 of 20 consecutive pairs" in out
