"""``orderdep pradet run|refine --budget S``: refinement stops starting schedules when the
budget is spent and says how many data dependencies it left untested; a collection the
budget cannot hold is killed at its end, and says what budget would do."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import POLLUTER, VICTIM, write_files

if TYPE_CHECKING:
    from conftest import CliRunner


def untimed(out: str) -> str:
    return re.sub(r"\d+\.\d+s", "T s", out)


def test_a_spent_budget_leaves_data_dependencies_untested(od_project: Path, cli: CliRunner) -> None:
    assert cli("pradet", "collect", od_project, "--no-check")[0] == 0
    code, out, err = cli("pradet", "run", od_project, "--no-check", "--budget", "0.001")
    assert code == 3, out + err  # nothing found in what was tested: not a clean result
    assert "budget spent: skipping alternatives and search" in err
    summary = json.loads((od_project / ".orderdep" / "report.json").read_text())["pradet"]
    assert "not tested (budget)" in out
    assert [VICTIM, POLLUTER] in summary["untested"]
    assert "orderdep: the refinement did not run whole: 1 data dependencies not tested" in out
    go_on = "orderdep: to go on where it stopped, rerun: orderdep "
    command = next(line for line in out.splitlines() if line.startswith(go_on))
    argv = shlex.split(command[len(go_on) :])
    assert argv == ["pradet", "run", str(od_project), "--no-check", "--budget", "0.001"]
    code, out, err = cli(*argv[:-1], "600")  # the printed command, with time to finish
    assert code == 1 and "orderdep: resumed: refining the collection" in err, out + err
    code, out, err = cli(*argv, "--allow-incomplete")
    assert code in (0, 1), out + err


def test_allow_incomplete_makes_a_partial_refinement_exit_0(
    od_project: Path, cli: CliRunner
) -> None:
    assert cli("pradet", "collect", od_project, "--no-check")[0] == 0
    argv = ("pradet", "run", od_project, "--no-check", "--budget", "0.001", "--allow-incomplete")
    code, out, err = cli(*argv)
    assert code == 0 and "did not run whole" in out, out + err


def test_refine_within_its_budget_finds_the_victim(od_project: Path, cli: CliRunner) -> None:
    assert cli("pradet", "collect", od_project, "--no-check")[0] == 0
    code, out, err = cli("pradet", "refine", od_project, "--no-check", "--budget", "600")
    assert code == 1, out + err
    assert "not tested (budget)" not in out
    assert f"victim   {VICTIM}  fails after  {POLLUTER}" in out


def test_a_rerun_resumes_from_the_saved_collection_and_the_store(
    od_project: Path, cli: CliRunner
) -> None:
    assert cli("pradet", "collect", od_project, "--no-check")[0] == 0
    code, out, err = cli("pradet", "run", od_project, "--no-check", "--budget", "0.001")
    assert code == 3 and "not tested (budget)" in out, out + err
    code, out, err = cli("pradet", "run", od_project, "--no-check", "--budget", "600")
    assert code == 1, out + err
    assert "orderdep: resumed: refining the collection" in err
    assert "not tested (budget)" not in out
    assert f"victim   {VICTIM}  fails after  {POLLUTER}" in out
    code, again, err = cli("pradet", "run", od_project, "--no-check", "--budget", "600")
    assert code == 1 and ", 0 run now" in err, err  # every order from the store
    assert untimed(again) == untimed(out)


def test_changed_code_or_other_orders_collect_again(od_project: Path, cli: CliRunner) -> None:
    assert cli("pradet", "run", od_project, "--no-check")[0] == 1
    code, _, err = cli("pradet", "run", od_project, "--no-check", "--no-also-reverse")
    assert code in (0, 1) and "resumed" not in err  # other orders: another job
    test_file = next((od_project / "tests").glob("test_*.py"))
    test_file.write_text(test_file.read_text() + "\n\ndef test_added():\n    pass\n")
    code, _, err = cli("pradet", "run", od_project, "--no-check")
    assert code == 1 and "resumed" not in err  # other code: not this code's collection


def test_refine_again_takes_its_orders_from_the_store(od_project: Path, cli: CliRunner) -> None:
    assert cli("pradet", "collect", od_project, "--no-check")[0] == 0
    code, out, err = cli("pradet", "refine", od_project, "--no-check")
    assert code == 1 and "resumed" not in err
    code, again, err = cli("pradet", "refine", od_project, "--no-check")
    assert code == 1 and ", 0 run now" in err, err
    assert untimed(again) == untimed(out)


@pytest.mark.slow
def test_a_collection_longer_than_the_budget_is_killed_at_its_end(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None
) -> None:
    project = write_files(
        tmp_path / "slow",
        {
            "pytest.ini": "[pytest]\n",
            "tests/test_slow.py": """
                import time


                def test_quick():
                    pass


                def test_slow():
                    time.sleep(600)
                """,
        },
    )
    code, out, err = cli("pradet", "run", project, "--no-check", "--budget", "4")
    assert code == 3, out + err  # nothing was tested: not a clean result
    assert "the budget ran out while collecting data dependencies: the probed run of the " in out
    assert "had finished 1 of its 2 tests" in out, out
    lead = "give it a budget the probed runs fit in: orderdep "
    command = next(line for line in out.splitlines() if lead in line)
    argv = shlex.split(command.split(lead, 1)[1])
    assert argv[:-1] == ["pradet", "run", str(project), "--no-check", "--budget"]
    assert float(argv[-1]) > 4
    code, again, _ = cli(*argv)  # the printed command runs (the slow test still outlasts it)
    assert code == 3 and "ran out while collecting" in again
    assert not (project / ".orderdep" / "pradet.json").exists()
    code, out, _ = cli(
        "pradet", "run", project, "--no-check", "--budget", "2", "--allow-incomplete"
    )
    assert code == 0 and "ran out while collecting" in out


def test_the_fork_check_spends_the_commands_budget_too(od_project: Path, cli: CliRunner) -> None:
    """The budget counts from the command's start: the check of the fork runner gets its
    share of it, not time on top of it."""
    code, out, err = cli("pradet", "run", od_project, "--budget", "0.001")
    assert code == 3, out + err
    assert "did not finish within its share of the budget" in err, err
