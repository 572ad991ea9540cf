"""``orderdep classify`` and ``orderdep deps`` through ``main(argv)`` on a real project."""

from __future__ import annotations

import json
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from orderdep.core.report import ODFinding, Report, load_report, save_report
from orderdep.shells.cli import main

MOD = "tests/test_shop.py"
POLLUTER, VICTIM, CLEANER = f"{MOD}::test_add_item", f"{MOD}::test_empty_cart", f"{MOD}::test_reset"
SETTER, BRITTLE, OTHER = f"{MOD}::test_login", f"{MOD}::test_profile", f"{MOD}::test_math"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / MOD).write_text(
        textwrap.dedent(
            """
            CART = []
            SESSION = {}

            def test_empty_cart():
                assert CART == []

            def test_login():
                SESSION["user"] = "ann"

            def test_profile():
                assert SESSION.get("user") == "ann"

            def test_add_item():
                CART.append("apple")

            def test_reset():
                CART.clear()

            def test_math():
                assert 1 + 1 == 2
            """
        )
    )
    ids = [VICTIM, SETTER, BRITTLE, POLLUTER, CLEANER, OTHER]
    report = Report(
        project=str(root.resolve()),
        tests=ids,
        od_tests=[
            ODFinding(test=VICTIM, failing_order=[POLLUTER, VICTIM], passing_order=[VICTIM]),
            ODFinding(test=BRITTLE, failing_order=[BRITTLE], passing_order=[SETTER, BRITTLE]),
        ],
    )
    save_report(root / ".orderdep" / "report.json", report)
    return root


def _commands(output: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {"fails": [], "passes": []}
    for line in output.splitlines():
        label, _, command = line.strip().partition(": ")
        if label in found and command.startswith("orderdep run"):
            found[label].append(command)
    return found


def test_classify_explains_and_prints_commands_that_work(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["classify", str(project), "--alone-runs", "2"]) == 1
    out = capsys.readouterr().out
    assert f"{VICTIM} [victim]" in out
    assert "fails after any of 1 polluter; 1 cleaner resets it" in out
    assert f"{BRITTLE} [brittle]" in out
    assert "fails unless one of 1 state-setter runs first" in out

    report = load_report(project / ".orderdep" / "report.json")
    victim = report.finding(VICTIM)
    brittle = report.finding(BRITTLE)
    assert victim is not None and brittle is not None
    assert victim.kind == "victim" and victim.polluters == [POLLUTER]
    assert victim.cleaners == {POLLUTER: [CLEANER]}
    assert brittle.kind == "brittle" and brittle.state_setters == [SETTER]

    commands = _commands(out)
    assert len(commands["fails"]) == 2 and len(commands["passes"]) == 2
    for label, expected in (("fails", 1), ("passes", 0)):
        for command in commands[label]:
            argv = shlex.split(command)[1:]
            assert main(argv) == expected, command
    capsys.readouterr()


def test_deps_writes_the_dependencies_file(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["classify", str(project), "--alone-runs", "1"]) == 1
    assert main(["deps", str(project)]) == 0
    data = json.loads((project / "orderdep-deps.json").read_text())
    assert data["schema"] == "orderdep.deps/1"
    assert {"test": VICTIM, "kind": "negative", "dependee": POLLUTER} in data["dependencies"]
    assert {"test": BRITTLE, "kind": "positive", "dependee": SETTER} in data["dependencies"]
    assert len(data["dependencies"]) == 2
    capsys.readouterr()
    assert main(["deps", str(project), "--output", "-"]) == 0
    assert json.loads(capsys.readouterr().out) == data


def test_classify_rejects_a_test_that_is_not_od(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["classify", str(project), "--test", OTHER]) == 2
    err = capsys.readouterr().err
    assert OTHER in err and VICTIM in err


def test_classify_without_report_says_which_command_creates_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    assert main(["classify", str(tmp_path)]) == 2
    assert "orderdep detect" in capsys.readouterr().err


@pytest.mark.slow
def test_the_commands_classify_prints_repeat_its_engine_options(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run with the project's interpreter (``--python``, orderdep installed apart from
    it) and a pytest option, each printed command reruns its order the same way."""
    flags = ["--python", sys.executable, "--pytest-arg=-p", "--pytest-arg=no:cacheprovider"]
    assert main(["classify", str(project), "--alone-runs", "1", *flags]) == 1
    commands = _commands(capsys.readouterr().out)
    assert commands["fails"] and commands["passes"]
    for label, expected in (("fails", 1), ("passes", 0)):
        for command in commands[label]:
            argv = shlex.split(command)[1:]
            assert argv[2:6] == flags, command
            assert main(argv) == expected, command
    capsys.readouterr()
