"""``orderdep pradet run|refine --budget S``: refinement stops starting schedules when the
budget is spent and says how many data dependencies it left untested."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from clitools import POLLUTER, VICTIM

if TYPE_CHECKING:
    from conftest import CliRunner


def test_a_spent_budget_leaves_data_dependencies_untested(od_project: Path, cli: CliRunner) -> None:
    code, out, err = cli("pradet", "run", od_project, "--no-check", "--budget", "0.001")
    assert code == 0, out + err
    assert "budget spent: skipping alternatives and search" in err
    summary = json.loads((od_project / ".orderdep" / "report.json").read_text())["pradet"]
    assert "not tested (budget)" in out
    assert [VICTIM, POLLUTER] in summary["untested"]


def test_refine_within_its_budget_finds_the_victim(od_project: Path, cli: CliRunner) -> None:
    assert cli("pradet", "collect", od_project, "--no-check")[0] == 0
    code, out, err = cli("pradet", "refine", od_project, "--no-check", "--budget", "600")
    assert code == 1, out + err
    assert "not tested (budget)" not in out
    assert f"victim   {VICTIM}  fails after  {POLLUTER}" in out
