"""A read-only project can be analysed: ``--store`` and ``--report`` (and the commands'
other output options) put everything orderdep writes elsewhere, and each command that
takes them really uses them; without them the command says so in one line."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import POLLUTER, VICTIM, one_line

from orderdep.core.report import load_report
from orderdep.engine.store import Store

if TYPE_CHECKING:
    from conftest import CliRunner, Freezer


def printed(out: str, label: str) -> list[str]:
    """The argv (after ``orderdep``) of the command printed after ``label``."""
    lines = [line for line in out.splitlines() if line.strip().startswith(label)]
    assert lines, out
    argv = shlex.split(lines[-1].strip()[len(label) :])
    assert argv[0] == "orderdep"
    return argv[1:]


@pytest.mark.slow
def test_every_store_and_report_option_on_a_read_only_project(
    od_project: Path, tmp_path: Path, cli: CliRunner, freeze: Freezer
) -> None:
    project = freeze(od_project)
    out = tmp_path / "out"
    store, report = out / "results.db", out / "report.json"
    graph, coverage, deps = out / "pradet.json", out / "coverage.json", out / "deps.json"

    def grew(*argv: object, codes: tuple[int, ...] = (0, 1)) -> str:
        """Run a command that runs tests: it must record them in --store."""
        before = Store(store).count() if store.exists() else 0
        code, stdout, err = cli(*argv)
        assert code in codes, err
        assert Store(store).count() > before, argv
        return stdout

    code, _, err = cli("detect", project, "--strategy", "reverse")
    assert code == 2
    line = one_line(err)
    assert f"{project}/.orderdep/results.db" in line and "Read-only file system" in line
    assert line.endswith("pass --store PATH to keep it in a writable place")

    stdout = grew("detect", project, "--strategy", "reverse", "--store", store, "--report", report)
    assert [f.test for f in load_report(report).od_tests] == [VICTIM]
    rerun = printed(stdout, "reproduce:")
    assert rerun[rerun.index("--store") + 1] == str(store)
    stdout = grew(*rerun, codes=(1,))  # the printed command fails the victim again
    assert VICTIM in stdout

    grew("classify", project, "--store", store, "--report", report)
    assert load_report(report).od_tests[0].polluters == [POLLUTER]
    code, stdout, err = cli("flakerate", project, "--report", report)
    assert code == 0 and f"report: {report}" in stdout, err

    code, _, err = cli("deps", project, "--report", report)
    assert code == 2
    line = one_line(err)
    assert "cannot write the dependencies file" in line and "Read-only file system" in line
    assert line.endswith("pass --output PATH to write it in a writable place")
    code, _, err = cli("deps", project, "--report", report, "--output", deps)
    assert code == 0, err
    assert json.loads(deps.read_text())["dependencies"][0]["test"] == VICTIM

    stdout = grew("pradet", "collect", project, "--store", store, "--graph", graph)
    refine = printed(stdout, "refine it:")
    assert refine[refine.index("--graph") + 1] == str(graph)
    code, _, err = cli(*refine)  # verbatim: the report it would write is in the project
    assert code == 2 and "pass --report PATH" in one_line(err)
    # The refused run above already ran (and recorded) refinement's orders: this one
    # takes them all from --store.
    code, _, err = cli(*refine, "--report", report)
    assert code in (0, 1) and ", 0 run now" in err, err
    grew("pradet", "run", project, "--store", store, "--graph", graph, "--report", report)

    grew("coverage", project, "--store", store, "--output", coverage)
    grew("evaluate", project, "--store", store, "--coverage", coverage, "--deps", deps, "-a", "T1")
    grew("run", project, VICTIM, "--store", store, codes=(0,))

    code, stdout, err = cli("debug", project, "--test", VICTIM, "--report", report)
    assert code == 1, err  # the OD test is a finding
    fix = printed(stdout, "repair:")
    assert fix[fix.index("--report") + 1] == str(report)
    code, stdout, err = cli(*fix)
    assert code == 1, err  # a verified patch, not applied
    patch = out / "patches" / "tests_test_od.py__test_victim.patch"
    assert patch.is_file() and f"patch: {patch}" in stdout
    assert f"-i {patch}" in stdout  # the apply command names it where it is
    assert not (project / ".orderdep").exists()
