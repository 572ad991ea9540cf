"""The summary of ``orderdep detect --classify`` on a generated suite, line for line: each
OD test's partners by name, cleaners, flake rates, the shortest orders that show it, what
the orders counted, and the next commands, each of which is then run back."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from orderdep.core.report import ODFinding, Report, load_report
from orderdep.shells.cli import main
from orderdep.shells.explain import named, partner_lines, sentence
from orderdep.shells.summary import collection_lines, table_rows
from orderdep.synth.generate import SuitePlan, generate_suite

PLAN = SuitePlan(
    channels=("module_dict",),
    many_cleaners=4,
    two_polluters=False,
    polluter_group=False,
    brittles_one_setter=1,
    brittle_two_setters=False,
    brittle_setter_group=False,
    nd_tests=0,
    nio_tests=0,
)
ACC, ADM = "tests/test_accounts.py", "tests/test_admin.py"
EXPORTER_VICTIM = f"{ACC}::TestAccountsValidation::test_no_badge_exporter_by_default"
EXPORTER_POLLUTER = f"{ADM}::test_register_badge_exporter"
EXPORTER_CLEANER = f"{ACC}::TestAccountsLimits::test_unregister_badge_exporter"
BRITTLE = f"{ADM}::TestAdminValidation::test_insert_release_row"
SETTER = f"{ADM}::TestAdminValidation::test_create_release_table"
TICKET_VICTIM = f"{ADM}::test_ticket_created_without_subscribers"
TICKET_POLLUTER = f"{ADM}::TestAdminListing::test_ticket_created_notifies_audit_log"
TICKET_CLEANER = f"{ACC}::TestAccountsLimits::test_ticket_resubscribe_after_reset"

EXPECTED = f"""\
3 order-dependent tests:
  {EXPORTER_VICTIM}  [victim]
    fails after any of 1 polluter; 1 cleaner resets it
    polluters (1): {EXPORTER_POLLUTER}
    cleaners (1): {EXPORTER_CLEANER}
    flake rate: 33.3% of random orders, 33.3% of orders keeping groups together
    reproduce: orderdep run . {EXPORTER_POLLUTER} {EXPORTER_VICTIM}
    passes: orderdep run . {EXPORTER_POLLUTER} {EXPORTER_CLEANER} {EXPORTER_VICTIM}
  {TICKET_VICTIM}  [victim]
    fails after any of 1 polluter; 4 cleaners reset it
    polluters (1): {TICKET_POLLUTER}
    cleaners (4): {TICKET_CLEANER} and 3 more
    flake rate: 16.7% of random orders, 8.3% of orders keeping groups together
    reproduce: orderdep run . {TICKET_POLLUTER} {TICKET_VICTIM}
    passes: orderdep run . {TICKET_POLLUTER} {TICKET_CLEANER} {TICKET_VICTIM}
  {BRITTLE}  [brittle]
    fails unless one of 1 state-setter runs first
    state-setters (1): {SETTER}
    flake rate: 50.0% of random orders, 50.0% of orders keeping groups together
    reproduce: orderdep run . {BRITTLE}
    passes: orderdep run . {SETTER} {BRITTLE}
summary:
  test{" " * (len(EXPORTER_VICTIM) - 4)}  kind     partners        cleaners  flake rate
  {EXPORTER_VICTIM}  victim   1 polluter      1         33.3%
  {TICKET_VICTIM.ljust(len(EXPORTER_VICTIM))}  victim   1 polluter      4         16.7%
  {BRITTLE.ljust(len(EXPORTER_VICTIM))}  brittle  1 state-setter  -         50.0%
original + tuscan: 267 orders run (126 searching, 36 confirming, 105 classifying), \
1128 test executions in T s; seed 5
  coverage of tuscan: 125 of 125 planned orders, 380 of 380 consecutive pairs (100.0%)
  collection check: 2 of 2 test files run alone as `pytest FILE`
report: REPORT
HTML report: orderdep report . --html .orderdep/report.html
next:
  orderdep deps .
      write the dependencies file that keeps these tests apart under pytest
  orderdep fix .
      print verified patches that remove the dependencies
  orderdep report . --html .orderdep/report.html
      write everything above as one HTML page
"""


@pytest.fixture
def generated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "shop"
    generate_suite(root, n_tests=20, seed=7, plan=PLAN)
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], command: str) -> tuple[int, str, str]:
    argv = shlex.split(command)
    assert argv[0] == "orderdep"
    capsys.readouterr()
    code = main(argv[1:])
    out, err = capsys.readouterr()
    return code, out, err


def last_outcome(out: str, test: str) -> str:
    return [line.split() for line in out.splitlines() if line.endswith(test)][-1][1]


def test_summary_names_partners_counts_orders_and_every_printed_command_runs(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "orderdep detect . --seed 5 --strategy tuscan --classify --all-cleaners"
    )
    assert code == 1, err
    report = generated / ".orderdep" / "report.json"
    shown = re.sub(r" in \d+\.\d s; seed", " in T s; seed", out)
    assert shown == EXPECTED.replace("REPORT", str(report))
    stats = load_report(report).stats
    assert stats.orders_run == 267 and stats.extras["classify_orders"] == 105
    assert "tuscan (125 order(s))" in err  # 1 original + 125 = the 126 searching

    # Every reproduce/passes command does what its label says.
    commands = re.findall(r"^    (reproduce|passes): (.*)$", out, re.M)
    assert len(commands) == 6
    for label, command in commands:
        test = shlex.split(command)[-1]
        code, ran, _ = run(capsys, command)
        assert last_outcome(ran, test) == ("failed" if label == "reproduce" else "passed")
        assert code == (1 if label == "reproduce" else 0)

    # The next commands run as printed, in order.
    steps = [line.strip() for line in out.split("next:\n")[1].splitlines()[::2]]
    assert [shlex.split(s)[1] for s in steps] == ["deps", "fix", "report"]
    code, deps_out, _ = run(capsys, steps[0])
    assert code == 0 and "wrote 3 dependencies" in deps_out
    code, fix_out, _ = run(capsys, steps[1])
    assert code == 1 and fix_out.count("patch: ") == 3  # verified, not applied: still OD
    code, _, _ = run(capsys, steps[2])
    assert code == 0 and (generated / ".orderdep" / "report.html").is_file()


def test_unclassified_detection_suggests_classify_first(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "orderdep detect . --seed 5 --strategy tuscan")
    assert code == 1
    steps = [line.strip() for line in out.split("next:\n")[1].splitlines()[::2]]
    assert [shlex.split(s)[1] for s in steps] == ["classify", "deps", "fix", "report"]
    code, classified, _ = run(capsys, steps[0])
    assert code == 1 and f"polluters (1): {TICKET_POLLUTER}" in classified
    assert run(capsys, steps[1])[0] == 0


def test_partner_lines_name_the_first_few_then_say_how_many_more() -> None:
    polluters = [f"t.py::test_p{i}" for i in range(5)]
    group = ["t.py::test_g1", "t.py::test_g2"]
    victim = ODFinding(
        test="t.py::test_v",
        kind="victim",
        polluters=polluters,
        polluter_groups=[group],
        cleaners={polluters[0]: ["t.py::test_c1", "t.py::test_c2"], "x": ["t.py::test_c3"]},
        flake_rate={"all": 0.25, "grouped": None, "reverse": None},
        extras={"pradet": {"dependencies": [{"roots": ["app.cache"]}]}},
    )
    assert partner_lines(victim) == [
        "polluters (5): t.py::test_p0, t.py::test_p1, t.py::test_p2 and 2 more",
        "polluter groups (1): (t.py::test_g1 then t.py::test_g2)",
        "cleaners (3): t.py::test_c1 and 2 more",
        "flake rate: 25.0% of random orders",
        "polluted root: app.cache",
    ]
    brittle = ODFinding(test="t.py::test_b", kind="brittle", state_setter_groups=[group])
    assert partner_lines(brittle) == ["state-setter groups (1): (t.py::test_g1 then t.py::test_g2)"]
    assert named(["a"]) == "a" and named(["a", "b"], 1) == "a and 1 more"


def test_summary_table_rows_for_every_kind_of_finding() -> None:
    victim = ODFinding(
        test="t.py::test_v",
        kind="victim",
        polluters=["t.py::test_p"],
        polluter_groups=[["t.py::test_g1", "t.py::test_g2"]],
        cleaners={"t.py::test_p": ["t.py::test_c"]},
        flake_rate={"all": 0.25, "grouped": None, "reverse": None},
        extras={"flake_rate_is_upper_bound": True},
    )
    budgeted = ODFinding(
        test="t.py::test_w",
        kind="victim",
        polluters=["t.py::test_p"],
        extras={"unfinished": {"cleaners": "not searched (budget)"}},
    )
    brittle = ODFinding(
        test="t.py::test_b",
        kind="brittle",
        state_setters=["t.py::test_s"],
        flake_rate={"all": 0.5, "grouped": None, "reverse": None},
    )
    unknown = ODFinding(test="t.py::test_u")
    report = Report(
        project="/p",
        tests=["t.py::test_u", "t.py::test_b", "t.py::test_w", "t.py::test_v"],
        od_tests=[victim, budgeted, brittle, unknown],
        nd_tests=["t.py::test_nd"],
        nio_tests=["t.py::test_nio"],
        always_failing=["t.py::test_red"],
    )
    assert table_rows(report) == [
        ("t.py::test_u", "not classified", "-", "-", "-"),
        ("t.py::test_b", "brittle", "1 state-setter", "-", "50.0%"),
        ("t.py::test_w", "victim", "1 polluter", "not searched", "-"),
        ("t.py::test_v", "victim", "1 polluter, 1 polluter group", "1", "at most 25.0%"),
        ("t.py::test_nio", "non-idempotent", "-", "-", "-"),
        ("t.py::test_nd", "non-deterministic", "-", "-", "-"),
        ("t.py::test_red", "always failing", "-", "-", "-"),
    ]


def test_a_victim_of_many_tests_together_says_so_instead_of_an_unknown_polluter() -> None:
    many = "the failing order needs more than 4 of its 120 tests together (...): no group reported"
    victim = ODFinding(test="t.py::test_v", kind="victim", failing_order=["t.py::test_v"])
    assert sentence(victim) == "fails after an unknown polluter; 0 cleaners reset it"
    victim.say_needs_many_tests("failing", many)
    victim.say_needs_many_tests("failing", many)  # said once
    assert sentence(victim) == "fails after many tests together; 0 cleaners reset it"
    assert partner_lines(victim) == [
        "polluters: none found",
        "cleaners (0): none found",
        f"note: {many}",
    ]
    again = ODFinding.from_json(victim.to_json())  # kept in the report's JSON
    assert again.needs_many_tests == [many] and sentence(again) == sentence(victim)


def test_the_collection_check_line_says_whether_files_ran_alone() -> None:
    assert collection_lines({"files": 4, "run": 4, "most": 1}) == [
        "  collection check: 4 of 4 test files run alone as `pytest FILE`"
    ]
    assert collection_lines({"files": 40, "run": 30, "runs": 6, "most": 5}) == [
        "  collection check: 30 of 40 test files run in 6 fresh pytests of up to 5 files "
        "(the rest did not fit its share of the budget)"
    ]
    assert collection_lines({"files": 0}) == []
