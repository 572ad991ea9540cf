"""``fix`` on a report whose OD tests were found but not classified: it classifies them
as far as a repair needs (the kind and one partner), saves that, and repairs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from clitools import POLLUTER, VICTIM

from orderdep.analysis.budget import UNFINISHED_KEY
from orderdep.core.report import ODFinding, load_report

if TYPE_CHECKING:
    from conftest import CliRunner


def test_fix_classifies_what_it_needs_then_repairs(od_project: Path, cli: CliRunner) -> None:
    code, out, err = cli("detect", od_project, "--seed", "1")
    assert code == 1, out + err
    report = load_report(od_project / ".orderdep" / "report.json")
    assert report.finding(VICTIM) is not None and report.finding(VICTIM).kind is None
    code, out, err = cli("fix", od_project, "--apply")
    assert code == 0, out + err
    assert "classifying 1 OD test(s) first, as far as a repair needs" in err
    assert "skipping" not in out
    found = load_report(od_project / ".orderdep" / "report.json").finding(VICTIM)
    assert found is not None and found.kind == "victim" and found.polluters == [POLLUTER]
    # what a repair did not need is left for `orderdep classify`, and said so
    assert found.extras[UNFINISHED_KEY]["cleaners"] == "not searched (kind and partner only)"
    held = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         POLLUTER, VICTIM],
        cwd=od_project, capture_output=True, text=True,
    )  # fmt: skip
    assert held.returncode == 0, held.stdout


@pytest.mark.slow
def test_a_spent_budget_repairs_what_it_reached_and_the_printed_command_goes_on(
    od_project: Path, cli: CliRunner
) -> None:
    assert cli("detect", od_project, "--seed", "1", "--classify")[0] == 1
    # a budget spent before the first repair: nothing repaired, the test named
    code, out, err = cli("fix", od_project, "--apply", "--budget", "0.001")
    assert code == 1, out + err
    assert "not repaired (budget)" in out
    assert f"orderdep: the budget ran out before 1 OD test(s) were repaired:\n  {VICTIM}" in out
    go_on = "orderdep: to go on (the tests fixed in the files are skipped), rerun: orderdep "
    line = next(x for x in out.splitlines() if x.startswith(go_on))
    argv = line[len(go_on) :].split()
    assert argv[-2:] == ["--budget", "0.001"]
    code, out, err = cli(*argv[:-1], "600")  # the printed command, with time for it
    assert code == 0, out + err
    code, out, err = cli(*argv[:-1], "600")  # again: fixed in the files, nothing left
    assert code == 0 and "none needed: passes in its failing order" in out, out + err


def test_a_repair_the_budget_ends_in_stops_there_and_says_so(
    od_project: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The budget is kept inside a repair too: once it ends, no more orders start and the
    test is left "not repaired (budget)", with the command that goes on."""
    import time

    from orderdep.analysis.repair.fix import Repairer

    assert cli("detect", od_project, "--seed", "1", "--classify")[0] == 1
    repair = Repairer.repair

    def slow_to_start(self: Repairer, finding: ODFinding) -> Any:
        time.sleep(4)  # past a 3 s budget: the debug's first order is refused
        return repair(self, finding)

    monkeypatch.setattr(Repairer, "repair", slow_to_start)
    code, out, err = cli("fix", od_project, "--apply", "--budget", "3")
    assert code == 1, out + err
    assert "not repaired (budget)" in out and "no verified fix" not in out
    assert f"orderdep: the budget ran out before 1 OD test(s) were repaired:\n  {VICTIM}" in out


@pytest.mark.slow
def test_a_stopped_apply_keeps_each_verified_patch_and_a_rerun_goes_on(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.analysis.repair.corpus_helpers import copy_project, plain_outcomes

    from orderdep.analysis.repair.fix import Repairer

    root = copy_project("block_victims", tmp_path / "p")
    assert cli("detect", root, "--seed", "1", "--classify")[0] == 1
    original = (root / "tests/test_client.py").read_text(encoding="utf-8")
    repair = Repairer.repair
    calls: list[str] = []

    def stopped_at_the_second(self: Repairer, finding: ODFinding) -> Any:
        calls.append(finding.test)
        if len(calls) == 2:
            raise KeyboardInterrupt  # Ctrl-C, or the run killed, during the second repair
        return repair(self, finding)

    monkeypatch.setattr(Repairer, "repair", stopped_at_the_second)
    code, out, err = cli("fix", root, "--apply")
    assert code == 130, out + err
    first = calls[0]
    assert f"fix for {first} (victim)" in out
    assert "(verified alone; checked in a set below)" in out
    patched = (root / "tests/test_client.py").read_text(encoding="utf-8")
    assert patched != original  # the first patch is in the file
    fixes = json.loads((root / ".orderdep/fixes.json").read_text(encoding="utf-8"))["fixes"]
    # the first test's patch, and those verified ahead for later victims it also fixes
    assert fixes[first]["fixed"] and all(entry["fixed"] for entry in fixes.values())
    monkeypatch.setattr(Repairer, "repair", repair)
    code, out, err = cli("fix", root, "--apply")  # the rerun goes on from there
    assert code == 0, out + err
    assert "none needed: passes in its failing order" in out  # the first test's row
    victims = fixes_of(root)
    assert len(victims) == 5  # three in a TestCase, two pytest functions
    polluters = {"test_client.py": "tests/test_client.py::TestErrors::test_validation_list_body",
                 "test_functions.py": "tests/test_functions.py::test_validation_list_body"}  # fmt: skip
    orders = [[polluters[v.split("::")[0].rsplit("/", 1)[-1]], v] for v in victims]
    for outcome in plain_outcomes(root, orders, tmp_path / "work"):
        assert set(outcome.values()) == {"passed"}, outcome


def fixes_of(root: Path) -> list[str]:
    report = load_report(root / ".orderdep" / "report.json")
    return [f.test for f in report.od_tests]


@pytest.mark.slow
def test_a_victim_whose_polluter_patch_fails_in_a_random_order_gets_one_for_every_polluter(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None
) -> None:
    from tests.analysis.repair.corpus_helpers import copy_project, plain_outcomes

    from orderdep.core.report import Report, save_report

    root = copy_project("many_polluters_conftest", tmp_path / "p")
    t = "tests/test_tuning.py::"
    victim = "tests/test_schema.py::test_default_description"
    tests = [victim, "tests/test_schema.py::test_columns"]
    tests += [t + n for n in ("test_override_name", "test_override_schema",
                              "test_override_both", "test_override_again")]  # fmt: skip
    # the report knows one of its four polluters, as a search cut by its budget may
    finding = ODFinding(victim, "victim", polluters=[t + "test_override_name"])
    save_report(root / ".orderdep" / "report.json", Report(str(root), tests, [finding]))
    code, out, err = cli("fix", root, "--apply")
    assert code == 0, out + err
    assert f"fix for {victim} (victim): polluter" in out  # the known polluter's clean-up
    assert "failed in random order" in out and f"fix for {victim} (victim) replaced" in out
    assert "patch set: 1 patch(es) for 1 OD test(s) hold together" in out
    from tests.analysis.repair.corpus_helpers import CORPUS

    tuning = CORPUS / "many_polluters_conftest/tests/test_tuning.py"
    assert (root / "tests/test_tuning.py").read_text() == tuning.read_text()  # not kept
    orders = [[t + n, victim] for n in ("test_override_schema", "test_override_again")]
    for outcome in plain_outcomes(root, orders, tmp_path / "work"):
        assert set(outcome.values()) == {"passed"}, outcome
