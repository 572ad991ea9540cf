"""Selecting tests as pytest does: node ids, files, directories and classes as
arguments, -k, -m and --deselect passed to pytest's collection, and the project root
found from any of its subdirectories."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import one_line, write_files

from orderdep.core.report import load_report

if TYPE_CHECKING:
    from conftest import CliRunner

A, B = "tests/test_a.py", "tests/unit/test_b.py"
VICTIM, POLLUTER = f"{A}::test_victim", f"{A}::test_polluter"
KLASS = f"{B}::TestCart"
IN_CLASS = [f"{KLASS}::test_add", f"{KLASS}::test_total"]
SLOW = f"{B}::test_slow_report"
ALL = [VICTIM, POLLUTER, *IN_CLASS, SLOW]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    return write_files(
        tmp_path / "proj",
        {
            "pyproject.toml": """
                [tool.pytest.ini_options]
                testpaths = ["tests"]
                markers = ["slow: takes long"]
            """,
            "tests/shared.py": "polluted = []\n",
            A: """
                import shared

                def test_victim():
                    assert not shared.polluted

                def test_polluter():
                    shared.polluted.append(1)
            """,
            B: """
                import pytest

                class TestCart:
                    def test_add(self):
                        pass

                    def test_total(self):
                        pass

                @pytest.mark.slow
                def test_slow_report():
                    pass
            """,
        },
    )


def ran(out: str) -> list[str]:
    """The test ids of `orderdep run`'s result lines, in order."""
    return [line.split()[-1] for line in out.splitlines() if line[:4].strip().isdigit()]


def test_run_without_ids_runs_the_whole_suite_in_original_order(
    project: Path, cli: CliRunner
) -> None:
    code, out, err = cli("run", project)
    assert code == 0, err
    assert ran(out) == ALL


def test_run_takes_files_directories_and_classes_like_pytest(project: Path, cli: CliRunner) -> None:
    code, out, _ = cli("run", project, "tests/unit", POLLUTER, A)
    assert ran(out) == [*IN_CLASS, SLOW, POLLUTER, VICTIM, POLLUTER]
    assert code == 1  # the victim ran after the polluter
    code, out, _ = cli("run", project, KLASS, POLLUTER, VICTIM)
    assert ran(out) == [*IN_CLASS, POLLUTER, VICTIM] and code == 1
    code, _, err = cli("run", project, "tests/test_nothing.py")
    assert code == 2 and "is not a collected test id, test file or directory" in err


def test_a_test_file_or_node_id_where_the_project_goes_selects_it(
    project: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / "tests")
    code, out, _ = cli("run", "unit/test_b.py")  # relative to here, as pytest takes it
    assert ran(out) == [*IN_CLASS, SLOW] and code == 0
    code, out, _ = cli("run", "test_a.py::test_polluter", "test_a.py::test_victim")
    assert ran(out) == [POLLUTER, VICTIM] and code == 1
    code, out, _ = cli("collect", "unit")
    assert out.split() == [*IN_CLASS, SLOW]


def test_k_m_and_deselect_select_through_pytests_collection(project: Path, cli: CliRunner) -> None:
    assert cli("collect", project, "-k", "cart or victim")[1].split() == [VICTIM, *IN_CLASS]
    assert cli("collect", project, "-m", "slow")[1].split() == [SLOW]
    _, out, _ = cli("collect", project, "--deselect", KLASS, "--deselect", A)
    assert out.split() == [SLOW]
    _, out, _ = cli("run", project, "-m", "not slow")
    assert ran(out) == [VICTIM, POLLUTER, *IN_CLASS]
    _, out, _ = cli("run", project, "-k", "cart and add")
    assert ran(out) == IN_CLASS[:1]


def test_detect_from_a_subdirectory_finds_the_root_and_keeps_the_selection(
    project: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / "tests")
    code, out, err = cli("detect", "--seed", "1", "--strategy", "reverse", "-k", "not slow")
    assert code == 1, err
    report = load_report(project / ".orderdep" / "report.json")
    assert report.tests == [VICTIM, POLLUTER, *IN_CLASS]  # -k applied, from the root
    assert report.od_ids == [VICTIM]
    assert not (project / "tests" / ".orderdep").exists()
    assert (project / ".orderdep" / ".gitignore").read_text() == "*\n"
    # The printed commands name the root as seen from here and keep -k.
    (reproduce,) = [line.split(": ", 1)[1] for line in out.splitlines() if "reproduce:" in line]
    assert shlex.split(reproduce)[:5] == ["orderdep", "run", "..", "-k", "not slow"]
    code, again, _ = cli(*shlex.split(reproduce)[1:])
    assert code == 1 and ran(again) == [POLLUTER, VICTIM]


def test_detect_of_one_directory_below_the_root(project: Path, cli: CliRunner) -> None:
    code, _, err = cli("detect", project / "tests" / "unit", "--seed", "1", "-n", "1")
    assert code == 0, err
    assert load_report(project / ".orderdep" / "report.json").tests == [*IN_CLASS, SLOW]


def test_machines_has_no_short_option_k(project: Path, cli: CliRunner) -> None:
    code, _, err = cli("parallelize", project, "-a", "p1", "-k", "2")
    # click words it "No such option: -k" (8.1) or "No such option '-k'" (8.5)
    assert code == 2 and err.startswith("orderdep: error: No such option") and "-k" in err


def test_paths_after_the_project_select_as_pytest_arguments_do(
    project: Path, cli: CliRunner
) -> None:
    assert cli("collect", project, A)[1].split() == [VICTIM, POLLUTER]
    assert cli("collect", project, KLASS, f"{A}::test_victim")[1].split() == [*IN_CLASS, VICTIM]
    # Relative to the project, or absolute inside it.
    assert cli("collect", project, project / B)[1].split() == [*IN_CLASS, SLOW]
    code, _, err = cli("detect", project, B, "--seed", "1", "--strategy", "reverse")
    assert code == 0, err
    assert load_report(project / ".orderdep" / "report.json").tests == [*IN_CLASS, SLOW]
    code, _, err = cli("detect", project, A, KLASS, "--seed", "1", "--strategy", "reverse")
    assert code == 1, err
    report = load_report(project / ".orderdep" / "report.json")
    assert report.tests == [VICTIM, POLLUTER, *IN_CLASS] and report.od_ids == [VICTIM]


def test_paths_combine_with_a_test_file_where_the_project_goes(
    project: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / "tests")
    code, out, err = cli("collect", "test_a.py::test_polluter", "unit/test_b.py::TestCart")
    assert code == 0, err
    assert out.split() == [POLLUTER, *IN_CLASS]


def test_a_path_that_does_not_exist_is_a_one_line_error(project: Path, cli: CliRunner) -> None:
    code, out, err = cli("detect", project, A, "tests/test_nothing.py::test_x")
    assert code == 2 and out == ""
    line = one_line(err)
    assert "no such test file or directory: 'tests/test_nothing.py::test_x'" in line
    code, _, err = cli("collect", project, project.parent)
    assert code == 2 and f"{str(project.parent)!r} is outside the project" in one_line(err)


def test_help_says_what_the_positional_arguments_may_be(cli: CliRunner) -> None:
    for command in ("detect", "classify", "doctor", "fix", "collect", "pradet run"):
        code, out, _ = cli(*command.split(), "--help")
        assert code == 0
        assert f"orderdep {command} [OPTIONS] [PROJECT] [PATH|NODEID]..." in out
        assert "Positional arguments:" in out and "node ids" in out
