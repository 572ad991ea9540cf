"""Configuration through ``main(argv)``: pyproject.toml and ini sections, ``ORDERDEP_*``
variables and the command line, in that order of precedence; bad keys and values."""

from __future__ import annotations

import shlex
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING

import click
import pytest
from clitools import MOD, OTHER, POLLUTER, VICTIM, one_line

from orderdep.shells.cli import cli as orderdep_group
from orderdep.shells.config import KEYS, env_name

if TYPE_CHECKING:
    from conftest import CliRunner

DOCS = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in KEYS:
        monkeypatch.delenv(env_name(key), raising=False)


def _collected(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(MOD)]


def test_file_then_environment_then_command_line(
    cli: CliRunner, od_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _collected(cli("collect", od_project)[1]) == [VICTIM, OTHER, POLLUTER]
    (od_project / "pyproject.toml").write_text(
        '[tool.orderdep]\npytest-args = ["-k", "victim"]\n', encoding="utf-8"
    )
    assert _collected(cli("collect", od_project)[1]) == [VICTIM]
    monkeypatch.setenv("ORDERDEP_PYTEST_ARGS", "-k 'other or polluter'")
    assert _collected(cli("collect", od_project)[1]) == [OTHER, POLLUTER]
    code, out, _ = cli("collect", od_project, "--pytest-arg=-k", "--pytest-arg=polluter")
    assert code == 0
    assert _collected(out) == [POLLUTER]


def test_detect_settings_paths_relative_to_the_file_and_printed_commands_run(
    cli: CliRunner, od_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (od_project / "pyproject.toml").write_text(
        "[tool.orderdep]\n"
        "seed = 7\n"
        'strategies = ["reverse"]\n'
        'store = "ci/results.db"\n'
        'report = "ci/report.json"\n'
        "confirm-runs = 1\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(od_project.parent)
    code, out, err = cli("detect", "proj")
    assert code == 1
    assert "orderdep: seed 7 (rerun with --seed 7)" in err
    assert "original + reverse:" in out
    assert (od_project / "ci" / "results.db").is_file()
    assert (od_project / "ci" / "report.json").is_file()
    assert not (od_project / ".orderdep" / "report.json").exists()
    # The printed reproduce command fails the victim again, as printed.
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("reproduce: "))
    argv = shlex.split(line.split("reproduce: ", 1)[1])
    assert argv[0] == "orderdep"
    code, rerun, _ = cli(*argv[1:])
    assert code == 1, rerun
    # The command line still wins over the file.
    code, _, err = cli("detect", "proj", "--seed", "9")
    assert "orderdep: seed 9 (rerun with --seed 9)" in err


@pytest.mark.parametrize(
    ("name", "section"),
    [
        ("pytest.ini", "[orderdep]"),
        ("tox.ini", "[orderdep]"),
        ("setup.cfg", "[orderdep]"),
        ("setup.cfg", "[tool:orderdep]"),
    ],
)
def test_ini_sections(cli: CliRunner, od_project: Path, name: str, section: str) -> None:
    path = od_project / name
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    path.write_text(f"{text}\n{section}\npytest-args = -k victim\n", encoding="utf-8")
    assert _collected(cli("collect", od_project)[1]) == [VICTIM]


def test_which_file_is_read(cli: CliRunner, od_project: Path) -> None:
    # pytest's order within one directory: pytest.ini before pyproject.toml.
    (od_project / "pyproject.toml").write_text(
        '[tool.orderdep]\npytest-args = ["-k", "polluter"]\n', encoding="utf-8"
    )
    (od_project / "pytest.ini").write_text("[pytest]\n[orderdep]\npytest-args = -k other\n")
    assert _collected(cli("collect", od_project)[1]) == [OTHER]
    # A file without an orderdep section is passed over.
    (od_project / "pytest.ini").write_text("[pytest]\n")
    assert _collected(cli("collect", od_project)[1]) == [POLLUTER]
    # The nearest directory upwards from PROJECT wins.
    (od_project / "pyproject.toml").unlink()
    (od_project.parent / "tox.ini").write_text("[orderdep]\npytest-args = -k victim\n")
    assert _collected(cli("collect", od_project)[1]) == [VICTIM]


@pytest.mark.parametrize(
    ("files", "env", "expected"),
    [
        (
            {"pyproject.toml": "[tool.orderdep]\nsed = 1\n"},
            {},
            "orderdep: error: pyproject.toml [tool.orderdep]: unknown key 'sed'; "
            "did you mean 'seed'? valid keys: runner, jobs, *",
        ),
        (
            {"pyproject.toml": "[tool.orderdep]\njobs = 0\n"},
            {},
            "orderdep: error: pyproject.toml [tool.orderdep]: jobs = 0: 0 is not in the "
            "range 1<=x<=1024 (option --jobs of `orderdep *`); fix the value",
        ),
        (
            {"pyproject.toml": '[tool.orderdep]\nstrategies = ["tuscan", "bogus"]\n'},
            {},
            "*strategies = ['tuscan', 'bogus']: 'bogus' is not one of 'original', *",
        ),
        (
            {"pyproject.toml": "[tool.orderdep]\nseed = true\n"},
            {},
            "*: seed = True: expected a single value",
        ),
        (
            {"pyproject.toml": "[tool.orderdep\nseed = 1\n"},
            {},
            "orderdep: error: pyproject.toml: not valid TOML (*); fix the file*",
        ),
        (
            {"setup.cfg": "[tool:orderdep]\nrunner = forked\n"},
            {},
            "orderdep: error: setup.cfg [tool:orderdep]: runner = 'forked': 'forked' is "
            "not one of 'fork', 'subprocess'*",
        ),
        (
            {},
            {"ORDERDEP_TIMEOUT": "-3"},
            "orderdep: error: environment: ORDERDEP_TIMEOUT = '-3': '-3' is not a number "
            "of seconds*",
        ),
    ],
)
def test_bad_keys_and_values_are_one_line_naming_file_and_key(
    cli: CliRunner,
    od_project: Path,
    monkeypatch: pytest.MonkeyPatch,
    files: dict[str, str],
    env: dict[str, str],
    expected: str,
) -> None:
    for name, text in files.items():
        (od_project / name).write_text(text, encoding="utf-8")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(od_project)
    for argv in (["detect"], ["collect"], ["pradet", "collect"]):
        code, out, err = cli(*argv)
        assert code == 2
        assert out == ""
        # Only "*" is a wildcard here: brackets in the messages are literal.
        assert fnmatch(one_line(err), expected.replace("[", "[[]")), one_line(err)


def test_every_key_sets_an_option_and_is_documented() -> None:
    params: set[str] = set()
    stack: list[click.Command] = [orderdep_group]
    while stack:
        cmd = stack.pop()
        if isinstance(cmd, click.Group):
            stack.extend(cmd.commands.values())
        params.update(p.name for p in cmd.params if p.name)
    docs = DOCS.read_text(encoding="utf-8")
    for key, spec in KEYS.items():
        assert params & set(spec.params), key
        assert f"`{key}`" in docs and f"`{env_name(key)}`" in docs, key


def test_configured_values_are_not_options_given_in_the_wrong_mode(
    cli: CliRunner, od_project: Path
) -> None:
    # `orderdep deps` (writing) refuses --pytest-arg typed on the command line, but a
    # configured pytest-args (meant for every command) is not an error there.
    code, _, err = cli("deps", od_project, "--pytest-arg=-q")
    assert code == 2 and "--pytest-arg only apply with --check" in one_line(err)
    (od_project / "pyproject.toml").write_text(
        '[tool.orderdep]\npytest-args = ["-q"]\ndeps = "ci/deps.json"\n', encoding="utf-8"
    )
    code, _, err = cli("deps", od_project)
    assert code == 2 and "only apply with --check" not in err
    assert "report" in one_line(err)  # what is missing is the report to write it from
    # With --check the configured file is the one checked.
    code, _, err = cli("deps", od_project, "--check")
    assert code == 2 and "ci/deps.json" in one_line(err)


@pytest.mark.parametrize("argv", [["detect"], ["classify"], ["pradet", "collect"]])
def test_a_bad_value_is_named_with_the_running_commands_option(
    cli: CliRunner, od_project: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    (od_project / "pyproject.toml").write_text("[tool.orderdep]\njobs = 0\n", encoding="utf-8")
    monkeypatch.chdir(od_project)
    code, _, err = cli(*argv)
    assert code == 2
    named = one_line(err).split("(option --jobs of `orderdep ", 1)[1].split("`", 1)[0]
    assert named.split()[0] == argv[0]
