"""Commands on a suite whose test ids change between processes (a parametrize id made
from the clock at import): fresh processes still run those tests, and where an id of
another process cannot be used, the message says why and what to do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import write_files
from tests.engine.volatile_project import (
    FIXED,
    MOD,
    POLLUTER,
    SHUFFLED,
    VICTIM,
    VOLATILE,
    stamp_of,
)

if TYPE_CHECKING:
    from conftest import CliRunner


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    return write_files(tmp_path / "proj", VOLATILE)


def ran(out: str) -> dict[str, str]:
    """Test id -> outcome, from `orderdep run`'s table."""
    rows = [line.split(maxsplit=3) for line in out.splitlines() if line.startswith("   ")]
    return {row[3]: row[1] for row in rows if len(row) == 4}


def test_run_with_the_subprocess_runner_runs_the_volatile_test(
    cli: CliRunner, project: Path
) -> None:
    code, out, err = cli("run", project, "--runner", "subprocess")
    assert code == 0, out + err
    outcomes = ran(out)
    stamp = stamp_of(list(outcomes))
    assert outcomes == {VICTIM: "passed", stamp: "passed", FIXED: "passed", POLLUTER: "passed"}
    assert "change between two collections" in err and stamp in err


def test_detect_finds_the_victim_names_the_volatile_test_and_trusts_the_fork_runner(
    cli: CliRunner, project: Path
) -> None:
    code, out, err = cli("detect", project, "--budget", "60", "--seed", "1")
    assert code == 1, out + err
    report = json.loads((project / ".orderdep" / "report.json").read_text())
    assert [f["test"] for f in report["od_tests"]] == [VICTIM]
    named = [line for line in err.splitlines() if "change between two collections" in line]
    assert len(named) == 1 and f"{MOD}::test_stamp[" in named[0]
    assert "using the subprocess runner" not in err
    fidelity = project / ".orderdep" / "fidelity.json"
    assert fidelity.stat().st_size < 1000
    (verdict,) = json.loads(fidelity.read_text()).values()
    assert verdict["mismatches"] == [] and len(verdict["volatile"]) == 1


def test_doctor_compares_the_volatile_test_under_every_runner(
    cli: CliRunner, project: Path
) -> None:
    code, out, err = cli("doctor", project, "--seed", "1", "--random", "1", "--singles", "1")
    assert code == 0, out + err
    assert "no mismatch" in out
    assert "change between two collections" in err


def test_an_id_of_another_process_gets_the_likely_cause(
    cli: CliRunner, project: Path, tmp_path: Path
) -> None:
    old = f"{MOD}::test_stamp[2001-01-01 00:00:00.000001]"
    code, _, err = cli("run", project, old)
    assert code == 2
    assert "Likely cause: the parametrize ids of tests/test_v.py::test_stamp change" in err
    order = tmp_path / "order.txt"
    order.write_text(f"{old}\n{POLLUTER}\n{VICTIM}\n")
    code, _, err = cli("why", VICTIM, project, "--order-file", order, "--no-check")
    line = err.strip().splitlines()[-1]
    assert (
        code == 2
        and line.startswith("orderdep: error: ")
        and "clock or `random`" in line
        and "pytest.param(value, id=...)" in line
    )


def test_a_test_named_without_its_parameters_runs_each_of_them(
    cli: CliRunner, project: Path
) -> None:
    code, out, err = cli("run", project, f"{MOD}::test_stamp", "--runner", "subprocess")
    assert code == 0, out + err
    assert sorted(ran(out).values()) == ["passed", "passed"] and FIXED in ran(out)


def test_pradet_in_fresh_processes_probes_the_volatile_test_too(
    cli: CliRunner, project: Path
) -> None:
    """PRADET's instrumented runs select tests by id in every fresh process."""
    code, out, err = cli("pradet", project, "--runner", "subprocess")
    assert code == 1, out + err
    assert VICTIM in out and POLLUTER in out
    assert "not collected" not in out + err


def test_fix_checks_its_patch_set_on_a_copy_whose_ids_changed(
    cli: CliRunner, project: Path
) -> None:
    code, out, err = cli("detect", project, "--classify", "--seed", "1")
    assert code == 1, out + err
    code, out, err = cli("fix", project, "--apply")
    assert code == 0, out + err
    assert "patch set: 1 patch(es) for 1 OD test(s) hold together" in out
    assert "not in the collected suite" not in out


def test_fix_verifies_on_a_copy_that_collects_the_same_tests_in_another_order(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy's collection puts a parametrize set in another order (set iteration):
    the same tests, so its patches are verified, in the orders of the first collection."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    shuffled = write_files(tmp_path / "shuffled", SHUFFLED)
    code, out, err = cli("detect", shuffled, "--classify", "--seed", "1")
    assert code == 1, out + err
    code, out, err = cli("fix", shuffled, "--apply")
    assert code == 0, out + err
    assert "collects different tests" not in out
    assert "patch set: 1 patch(es) for 1 OD test(s) hold together" in out
