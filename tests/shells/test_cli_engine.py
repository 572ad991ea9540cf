"""``orderdep collect`` and ``orderdep run`` through ``main(argv)``: output, JSON schema,
exit codes, and a message (never a traceback) for every user mistake."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from orderdep.engine.store import Store, code_key
from orderdep.shells.cli import main
from orderdep.shells.commands.engine_cmds import run_command

OK, FAIL, SLEEP = (
    "tests/test_m.py::test_ok",
    "tests/test_m.py::test_fail",
    "tests/test_m.py::test_sleep",
)
KLASS = "tests/test_m.py::TestGroup::test_in_class"
PARAM = "tests/test_m.py::test_param[1]"


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    # Unused by these projects; its shutdown costs half a second per pytest process.
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(
        tmp_path / "proj",
        {
            "pytest.ini": """
                [pytest]
                markers =
                    fast: quick tests
            """,
            "tests/test_m.py": """
                import time

                import pytest


                @pytest.mark.fast
                def test_ok():
                    pass


                def test_fail():
                    assert 1 + 1 == 3, "arithmetic is broken"


                def test_sleep():
                    time.sleep(60)


                class TestGroup:
                    @pytest.mark.fast
                    def test_in_class(self):
                        pass


                @pytest.mark.parametrize("n", [1, 2])
                def test_param(n):
                    pass
            """,
        },
    )


ALL = [OK, FAIL, SLEEP, KLASS, PARAM, "tests/test_m.py::test_param[2]"]


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback (most recent call last)" not in out + err  # pytest's own text may quote one
    return code, out, err


# -- collect ---------------------------------------------------------------------------


def test_collect_prints_ids_in_collection_order(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(capsys, "collect", project)
    assert (code, out, err) == (0, "\n".join(ALL) + "\n", "")


def test_collect_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "collect", project, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["rootdir"] == str(project.resolve())
    assert data["tests"][0] == {
        "id": OK,
        "module": "tests/test_m.py",
        "cls": None,
        "file": "tests/test_m.py",
    }
    assert data["tests"][3]["cls"] == "tests/test_m.py::TestGroup"
    assert [t["id"] for t in data["tests"]] == ALL


def test_collect_passes_pytest_args(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "collect", project, "--pytest-arg=-m", "--pytest-arg=fast")
    assert (code, out.split()) == (0, [OK, KLASS])


# -- run -------------------------------------------------------------------------------


def test_run_text_output_and_exit_code(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "run", project, OK, FAIL, OK)
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert len(lines) == 5
    assert re.fullmatch(rf"   0  passed  +\d+\.\d{{3}}s  {re.escape(OK)}", lines[0])
    assert re.fullmatch(rf"   1  failed  +\d+\.\d{{3}}s  {re.escape(FAIL)}", lines[1])
    assert lines[2] == "      AssertionError: arithmetic is broken"
    assert re.fullmatch(rf"   2  passed  +\d+\.\d{{3}}s  {re.escape(OK)}", lines[3])
    assert re.fullmatch(r"1 failed, 2 passed in \d+\.\d\ds \(fork runner\)", lines[4])


def test_run_json_schema(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "run", project, "--json", KLASS, PARAM, KLASS)
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"runner", "wall_seconds", "results"}
    assert data["runner"] == "fork"
    assert isinstance(data["wall_seconds"], float) and data["wall_seconds"] > 0
    assert [set(r) for r in data["results"]] == [{"test", "outcome", "duration", "message"}] * 3
    assert [(r["test"], r["outcome"], r["message"]) for r in data["results"]] == [
        (KLASS, "passed", ""),
        (PARAM, "passed", ""),
        (KLASS, "passed", ""),
    ]
    assert all(isinstance(r["duration"], float) for r in data["results"])


def test_run_records_into_the_project_store(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_main(capsys, "run", project, OK)[0] == 0
    assert run_main(capsys, "run", project, FAIL)[0] == 1
    store = Store(project / ".orderdep" / "results.db", code=code_key(project))
    runs = [*store.runs_of([OK]), *store.runs_of([FAIL])]
    assert [(r.order, r.runner) for r in runs] == [([OK], "fork"), ([FAIL], "fork")]
    assert store.count() == 2


def test_run_subprocess_runner(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "run", project, "--runner", "subprocess", "--json", FAIL, OK)
    assert code == 1
    data = json.loads(out)
    assert data["runner"] == "subprocess"
    assert [r["outcome"] for r in data["results"]] == ["failed", "passed"]
    assert data["results"][0]["message"].startswith("AssertionError: arithmetic is broken")


def test_run_timeout(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "run", project, "--timeout", "1", "--json", OK, SLEEP, OK)
    assert code == 1
    outcomes = [r["outcome"] for r in json.loads(out)["results"]]
    assert outcomes == ["passed", "timeout", "not-run"]


@pytest.mark.parametrize("kind", ["text", "json"])
def test_run_order_file(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    order = [KLASS, OK, KLASS]
    path = tmp_path / "order.txt"
    if kind == "json":
        path.write_text(json.dumps(order))
    else:
        path.write_text(f"# an order\n\n{KLASS}\n  {OK}  \n{KLASS}\n")
    code, out, _ = run_main(capsys, "run", project, "--order-file", path, "--json")
    assert code == 0
    assert [r["test"] for r in json.loads(out)["results"]] == order


def test_printed_run_commands_do_what_they_say(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    order = [PARAM, FAIL]
    path = tmp_path / "order.json"
    path.write_text(json.dumps(order))
    for command in (run_command(project, order), run_command(project, order, path)):
        argv = shlex.split(command)
        assert argv[:2] == ["orderdep", "run"]
        code, out, _ = run_main(capsys, *argv[1:], "--json")
        assert code == 1
        assert [(r["test"], r["outcome"]) for r in json.loads(out)["results"]] == [
            (PARAM, "passed"),
            (FAIL, "failed"),
        ]


def test_pythonpath_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = write(
        tmp_path / "srclayout",
        {
            "src/pkg/__init__.py": "VALUE = 1\n",
            "tests/test_pkg.py": "import pkg\n\ndef test_pkg():\n    assert pkg.VALUE == 1\n",
        },
    )
    code, _, err = run_main(capsys, "collect", project)
    assert code == 2
    assert "No module named 'pkg'" in err and "--pythonpath" in err
    code, out, _ = run_main(
        capsys, "run", project, "--pythonpath", "src", "tests/test_pkg.py::test_pkg"
    )
    assert code == 0 and " passed " in out


# -- user mistakes: exit code 2 and a message -----------------------------------------


def test_unknown_ids_show_the_closest(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "run", project, OK, "tests/test_m.py::test_fial")
    assert code == 2 and out == ""
    assert err.startswith("orderdep: error: 1 test id(s) are not in the collected suite")
    assert f"'tests/test_m.py::test_fial' (did you mean '{FAIL}'" in err
    assert "orderdep collect" in err


def test_collection_error_shows_pytests_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write(
        tmp_path / "broken",
        {
            "test_ok.py": "def test_ok():\n    pass\n",
            "test_broken.py": "import no_such_module_here\n",
            "test_syntax.py": "def test_x(:\n",
        },
    )
    for command in ("collect", "run"):
        argv = [command, str(project)] + (["test_ok.py::test_ok"] if command == "run" else [])
        code, out, err = run_main(capsys, *argv)
        assert code == 2 and out == ""
        assert "pytest could not collect the tests" in err
        assert "test_broken.py" in err
        assert "ModuleNotFoundError: No module named 'no_such_module_here'" in err
        assert "SyntaxError" in err and "test_syntax.py" in err


def test_no_tests_says_where_it_looked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = write(
        tmp_path / "empty",
        {"pytest.ini": "[pytest]\ntestpaths = checks\n", "checks/helper.py": "x = 1\n"},
    )
    code, out, err = run_main(capsys, "collect", project)
    assert code == 2 and out == ""
    assert "collected no tests" in err
    assert str(project.resolve()) in err
    assert "looked in: " in err and "checks" in err


def test_no_tests_names_paths_in_the_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write(tmp_path / "empty", {"helper.py": "x = 1\n"})
    code, _, err = run_main(capsys, "collect", project)
    assert code == 2
    looked = err.split("looked in: ", 1)[1].split(")", 1)[0]
    assert "orderdep-" not in looked and looked in (".", str(project.resolve()))


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["run", "{project}", OK, "--order-file", "{order}"], "not both"),
        (["run", "{project}", "--order-file", "{missing}"], "cannot read --order-file"),
        (["run", "{project}", "--order-file", "{badjson}"], "is not valid JSON"),
        (["run", "{missing}", OK], "does not exist"),
        (["collect", "{missing}"], "does not exist"),
        (["run", "{order}", OK], "is not a collected test id, test file or directory"),
        (["run", "{project}", "--jobs", "0", OK], "--jobs"),
        (["run", "{project}", "--timeout", "0", OK], "--timeout"),
        (["run", "{project}", "--timeout", "soon", OK], "--timeout"),
        (["run", "{project}", "--runner", "thread", OK], "--runner"),
        (["run", "{project}", "--no-such-option", OK], "--no-such-option"),
        (["frobnicate"], "frobnicate"),
        (["run", "{project}", "--python", "{missing}", OK], "cannot run --python"),
    ],
)
def test_user_mistakes(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    says: str,
) -> None:
    order = tmp_path / "order.txt"
    order.write_text(OK + "\n")
    badjson = tmp_path / "bad.json"
    badjson.write_text('["unterminated')
    paths = {
        "project": str(project),
        "order": str(order),
        "missing": str(tmp_path / "missing"),
        "badjson": str(badjson),
    }
    code, out, err = run_main(capsys, *(a.format(**paths) for a in argv))
    assert code == 2
    assert out == ""
    assert says in err


@pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="needs a second interpreter")
def test_python_without_pytest_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """orderdep lends itself to an interpreter that lacks it, but not pytest."""
    if Path("/usr/bin/python3").resolve() == Path(sys.executable).resolve():
        pytest.skip("/usr/bin/python3 is this interpreter")
    probe = subprocess.run(["/usr/bin/python3", "-c", "import pytest"], capture_output=True)
    if probe.returncode == 0:
        pytest.skip("/usr/bin/python3 has pytest")
    code, _, err = run_main(capsys, "run", project, "--python", "/usr/bin/python3", OK)
    assert code == 2
    assert "cannot import pytest; install the project's test requirements there first" in err


@pytest.mark.skipif(sys.prefix == sys.base_prefix, reason="needs a virtual environment")
def test_a_relative_python_path_means_the_working_directory(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the tests run inside the project (or a copy of it): the path must not be read there
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "venv").symlink_to(sys.prefix, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    python = str(Path("envs", "venv", "bin", Path(sys.executable).name))
    code, out, err = run_main(capsys, "run", "proj", "--python", python, OK)
    assert code == 0, err
    assert "1 passed" in out


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "--version")
    assert code == 0 and out.startswith("orderdep, version ")
    code, out, _ = run_main(capsys, "run", "--help")
    assert code == 0 and "--order-file" in out and "--timeout" in out


def test_order_file_that_is_not_text(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "order.bin"
    path.write_bytes(b"\xff\xfe\x00binary")
    code, _, err = run_main(capsys, "run", project, "--order-file", path)
    assert code == 2 and "--order-file" in err


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_timeout_must_be_a_number_of_seconds(
    project: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    code, _, err = run_main(capsys, "run", project, "--timeout", value, OK)
    assert code == 2 and "--timeout" in err


def test_a_run_where_nothing_ran_is_not_a_success(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The test process is killed while it starts up (before the first test).
    monkeypatch.setattr("orderdep.engine.timeouts.STARTUP", 0.05)
    code, out, _ = run_main(capsys, "run", project, "--runner", "subprocess", OK)
    assert code != 0, out


def test_python_older_than_the_test_processes_code_needs_is_a_usage_error(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An interpreter that says it is Python 3.7 (a stand-in script: it answers the check
    as such an interpreter does) is refused up front, with what to do, not a traceback
    from inside the test processes."""
    fake = tmp_path / "python3.7"
    fake.write_text("#!/bin/sh\necho 'python 3.7' >&2\nexit 1\n")
    fake.chmod(0o755)
    code, _, err = run_main(capsys, "run", project, "--python", str(fake), OK)
    assert code == 2
    assert f"--python '{fake}' is Python 3.7;" in err
    assert "needs Python 3.8 or later: run the suite with a newer interpreter" in err
