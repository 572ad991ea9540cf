"""Which interpreter runs the tests when none is named: the candidate search on fake
directories and interpreters, then ``main(argv)`` on a project that only its own venv
imports."""

from __future__ import annotations

import hashlib
import shlex
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import one_line, write_files

from orderdep.errors import UsageError
from orderdep.shells.interpreter import (
    Choice,
    candidates,
    choose,
    has_pytest,
    named_env,
    venv_python,
)

if TYPE_CHECKING:
    from conftest import CliRunner


def fake_venv(directory: Path, script: str = "exit 0") -> Path:
    """A directory that looks like a venv: an executable ``bin/python`` running ``script``."""
    python = directory / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f"#!/bin/sh\n{script}\n")
    python.chmod(0o755)
    return python


def never(python: Path) -> bool:
    raise AssertionError(f"no interpreter should be started, but {python} was")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "proj").mkdir()
    return tmp_path / "proj"


def test_candidates_say_why_each_does_not_fit(project: Path) -> None:
    python = fake_venv(project / ".venv")
    (project / "venv").mkdir()
    found = candidates(project, {}, sys.prefix)
    assert [(c.name, c.python, c.state) for c in found] == [
        ("$VIRTUAL_ENV", None, "unset"),
        (str(project / ".venv"), python, ""),
        (str(project / "venv"), None, "no python"),
        (str(project / "env"), None, "missing"),
    ]
    assert venv_python(project / "venv") is None


def test_the_running_interpreter_of_the_projects_own_venv_is_kept_for_free(
    project: Path,
) -> None:
    fake_venv(project / "venv")
    inside = str(project / ".venv")
    assert choose(project, {}, "/x/python", inside, never) == Choice("/x/python")
    # an activated venv is the user's choice, whatever the project holds
    active = {"VIRTUAL_ENV": "/opt/env"}
    assert choose(project, active, "/opt/env/bin/python", "/opt/env", never).found_in is None


def test_nothing_to_try_keeps_the_running_interpreter_and_names_what_was_tried(
    project: Path,
) -> None:
    choice = choose(project, {}, "/usr/bin/python3", "/usr", never)
    assert choice.python == "/usr/bin/python3" and choice.notice() is None
    assert choice.tried == (
        f"tried $VIRTUAL_ENV (unset), {project / '.venv'} (missing), "
        f"{project / 'venv'} (missing), {project / 'env'} (missing). "
        "Create the project's venv, or pass --python"
    )


def test_the_first_candidate_with_pytest_is_used(project: Path) -> None:
    fake_venv(project / ".venv")
    python = fake_venv(project / "env")
    asked: list[Path] = []

    def finds(candidate: Path) -> bool:
        asked.append(candidate)
        return candidate == python

    choice = choose(project, {}, "/usr/bin/python3", "/usr", finds)
    assert asked == [project / ".venv" / "bin" / "python", python]
    assert choice == Choice(str(python), found_in="env")
    assert choice.notice() == (
        f"orderdep: using the project's interpreter {python} "
        "(found in env; pass --python to choose another)"
    )


def test_virtual_env_comes_first(project: Path, tmp_path: Path) -> None:
    fake_venv(project / ".venv")
    python = fake_venv(tmp_path / "active")
    choice = choose(project, {"VIRTUAL_ENV": str(tmp_path / "active")}, "/p", "/usr", bool)
    assert choice == Choice(str(python), found_in="$VIRTUAL_ENV")


def test_candidates_without_pytest_are_named(project: Path, tmp_path: Path) -> None:
    fake_venv(project / ".venv")
    environ = {"VIRTUAL_ENV": str(tmp_path / "gone")}
    choice = choose(project, environ, "/usr/bin/python3", "/usr", lambda p: False)
    assert choice.python == "/usr/bin/python3" and choice.found_in is None
    assert choice.tried == (
        f"tried $VIRTUAL_ENV={tmp_path / 'gone'} (missing), {project / '.venv'} (no pytest), "
        f"{project / 'venv'} (missing), {project / 'env'} (missing). "
        "Install the project's test requirements into its venv, or pass --python"
    )


def test_a_project_installed_in_the_running_interpreter_keeps_it(project: Path) -> None:
    fake_venv(project / ".venv")
    # pytest is installed here: a project of that name is installed in this interpreter
    (project / "pyproject.toml").write_text('[project]\nname = "pytest"\n')
    assert choose(project, {}, "/p", "/usr", never) == Choice("/p")
    (project / "pyproject.toml").unlink()
    (project / "src" / "click").mkdir(parents=True)
    (project / "src" / "click" / "__init__.py").write_text("")
    assert choose(project, {}, "/p", "/usr", never) == Choice("/p")


def test_has_pytest_starts_the_interpreter(tmp_path: Path) -> None:
    assert has_pytest(Path(sys.executable))
    assert not has_pytest(fake_venv(tmp_path / "v", "exit 1"))
    assert not has_pytest(tmp_path / "nothing")


# -- end to end: a project whose package only its own venv imports ---------------------

PACKAGE = "shopcart_venvonly"


@pytest.fixture
def src_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A src-layout project that is not installed here: only its venv can import it."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    return write_files(
        tmp_path / "proj",
        {
            "pytest.ini": "[pytest]\n",
            f"src/{PACKAGE}/__init__.py": 'STATE = {"polluted": False}\n',
            "tests/test_od.py": f"""
                from {PACKAGE} import STATE

                def test_victim():
                    assert not STATE["polluted"]

                def test_other():
                    pass

                def test_polluter():
                    STATE["polluted"] = True
            """,
        },
    )


def make_venv(project: Path, with_pytest: bool = True, where: str = ".venv") -> Path:
    """A real venv at ``project/where`` that sees the project's ``src/`` (and this
    interpreter's pytest, but not orderdep, which is lent to it), through ``.pth`` files."""
    venv = project / where
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    lines = [str(project / "src")]
    if with_pytest:
        lines.append(str(Path(pytest.__file__).parent.parent))
    (Path(site) / "project.pth").write_text("\n".join(lines) + "\n")
    return python


def test_detect_finds_the_projects_venv_and_the_printed_commands_find_it_again(
    cli: CliRunner, src_project: Path
) -> None:
    python = make_venv(src_project)
    notice = (
        f"orderdep: using the project's interpreter {python} "
        "(found in .venv; pass --python to choose another)"
    )
    code, out, err = cli("detect", src_project, "--seed", "1")
    assert code == 1, err
    assert err.splitlines().count(notice) == 1
    assert "tests/test_od.py::test_victim" in out
    reproduce = [
        line.split("reproduce: ", 1)[1] for line in out.splitlines() if "reproduce: " in line
    ]
    assert reproduce and "--python" not in reproduce[0]
    argv = shlex.split(reproduce[0])
    assert argv[:2] == ["orderdep", "run"]
    code, out, err = cli(*argv[1:])
    assert code == 1, err
    assert notice in err.splitlines()
    code, out, err = cli("run", src_project)
    assert code == 0, err
    assert notice in err.splitlines()


def test_no_interpreter_that_imports_the_project_is_one_line(
    cli: CliRunner, src_project: Path
) -> None:
    code, out, err = cli("collect", src_project)
    assert code == 2 and out == ""
    assert one_line(err) == (
        f"orderdep: error: pytest could not import the tests with {sys.executable}: "
        f"No module named {PACKAGE!r}; "
        f"tried $VIRTUAL_ENV (unset), {src_project / '.venv'} (missing), "
        f"{src_project / 'venv'} (missing), {src_project / 'env'} (missing). "
        "Create the project's venv, or pass --python; "
        "or, if the code is meant to come from src/, pass --pythonpath src"
    )
    make_venv(src_project, with_pytest=False)
    code, out, err = cli("run", src_project)
    assert code == 2 and out == ""
    assert f"{src_project / '.venv'} (no pytest)" in one_line(err)


# -- a tox or nox env named by the user -----------------------------------------------------


def test_a_nox_session_is_found_under_the_name_nox_gives_its_directory(project: Path) -> None:
    python = fake_venv(project / ".nox" / "tests-3-9")
    assert named_env(project, "nox:tests-3.9") == Choice(str(python), found_in="nox env tests-3.9")
    literal = fake_venv(project / ".nox" / "lint")
    assert named_env(project, "nox:lint").python == str(literal)
    with pytest.raises(UsageError, match=r"names no tox env; write tox:ENV, e\.g\. tox:py39"):
        named_env(project, "tox:")


def test_a_named_env_that_does_not_exist_says_what_was_tried_and_how_to_make_it(
    cli: CliRunner, src_project: Path
) -> None:
    code, out, err = cli("collect", src_project, "--python", "tox:py39")
    assert code == 2 and out == ""
    assert one_line(err) == (
        f"orderdep: error: no tox env 'py39': {src_project / '.tox/py39/bin/python'} missing; "
        "run `tox -e py39 --notest` first, or pass another --python"
    )
    code, out, err = cli("run", src_project, "--python", "nox:Tests(3.9)")
    assert code == 2 and out == ""
    nox = src_project / ".nox"
    hashed = hashlib.sha1(b"tests-3-9").hexdigest()[:8]
    assert one_line(err) == (
        f"orderdep: error: no nox env 'Tests(3.9)': {nox / 'Tests(3.9)/bin/python'} and "
        f"{nox / 'tests-3-9/bin/python'} and {nox / hashed / 'bin/python'} missing; "
        "run `nox -s Tests(3.9) --install-only` first, or pass another --python"
    )


def test_detect_runs_in_the_tox_env_the_user_names_and_its_commands_name_it_again(
    cli: CliRunner, src_project: Path
) -> None:
    make_venv(src_project, with_pytest=False)  # the project's .venv is not the one asked for
    python = make_venv(src_project, where=".tox/py39")
    notice = f"orderdep: using the project's interpreter {python} (tox env py39)"
    code, out, err = cli("detect", src_project, "--seed", "1", "--python", "tox:py39")
    assert code == 1, err
    assert err.splitlines().count(notice) == 1
    reproduce = [
        line.split("reproduce: ", 1)[1] for line in out.splitlines() if "reproduce: " in line
    ]
    assert reproduce and "--python tox:py39" in reproduce[0]
    code, out, err = cli(*shlex.split(reproduce[0])[1:])
    assert code == 1, err
    assert notice in err.splitlines()


def test_the_configuration_names_a_nox_session(cli: CliRunner, src_project: Path) -> None:
    python = make_venv(src_project, where=".nox/tests-3-11")
    (src_project / "pytest.ini").write_text("[pytest]\n\n[orderdep]\npython = nox:tests-3.11\n")
    code, out, err = cli("collect", src_project)
    assert code == 0, err
    assert f"orderdep: using the project's interpreter {python} (nox env tests-3.11)" in err
    assert "tests/test_od.py::test_victim" in out.splitlines()
