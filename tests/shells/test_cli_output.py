"""--quiet and --json on every command; no colour codes when the output is not a terminal."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import click
import pytest
from clitools import POLLUTER, VICTIM

from orderdep.shells.cli import cli as group

if TYPE_CHECKING:
    from conftest import CliRunner

ANSI = "\x1b["


def leaves(command: click.Command = group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(command, click.Group):
        return [p for n, c in sorted(command.commands.items()) for p in leaves(c, (*path, n))]
    return [path]


@pytest.mark.parametrize("path", leaves(), ids=" ".join)
def test_every_command_has_quiet_and_json(path: tuple[str, ...], cli: CliRunner) -> None:
    code, out, _ = cli(*path, "--help")
    assert code == 0
    assert "-q, --quiet" in out and "--json" in out


def test_detect_json_is_one_document_and_its_commands_run(od_project: Path, cli: CliRunner) -> None:
    code, out, err = cli("detect", od_project, "--seed", "2", "--classify", "--json")
    assert code == 1
    assert err == ""  # no progress, no seed line: only the document
    doc = json.loads(out)
    assert doc["command"] == "orderdep detect" and doc["exit_code"] == 1
    assert [f["test"] for f in doc["report"]["od_tests"]] == [VICTIM]
    assert doc["report"]["od_tests"][0]["polluters"] == [POLLUTER]
    commands = doc["commands"][VICTIM]
    assert shlex.split(commands["fails"])[-2:] == [POLLUTER, VICTIM]
    code, ran, _ = cli(*shlex.split(commands["fails"])[1:], "--json")
    assert code == 1
    assert [r["outcome"] for r in json.loads(ran)["results"]] == ["passed", "failed"]
    assert [shlex.split(c)[1] for c in doc["next"]] == ["deps", "fix", "report"]
    code, out, _ = cli(*shlex.split(doc["next"][0])[1:], "--json")
    assert code == 0
    deps = json.loads(out)
    assert deps["deps"]["dependencies"][0]["dependee"] == POLLUTER
    code, out, _ = cli(*shlex.split(doc["next"][2])[1:], "--json")
    assert code == 0 and Path(json.loads(out)["html"]).is_file()


def test_quiet_keeps_the_results_and_drops_progress(od_project: Path, cli: CliRunner) -> None:
    code, out, err = cli("detect", od_project, "--seed", "2", "-q")
    assert code == 1 and err == ""
    assert f"  {VICTIM}" in out.splitlines()
    code, out, err = cli("run", od_project, "-q", POLLUTER, VICTIM)
    assert code == 1 and err == "" and "1 failed, 1 passed" in out


def test_a_command_without_its_own_document_gives_its_lines(
    od_project: Path, cli: CliRunner
) -> None:
    cli("detect", od_project, "--seed", "2", "--classify", "-q")
    code, out, _ = cli("flakerate", od_project, "--json")
    assert code == 0
    assert set(json.loads(out)["flake_rates"]) == {VICTIM}
    assert cli("deps", od_project)[0] == 0
    code, out, _ = cli("deps", od_project, "--check", "--json")
    assert code == 0
    assert json.loads(out) == {
        "command": "orderdep deps",
        "exit_code": 0,
        "lines": [f"{od_project / 'orderdep-deps.json'}: all 1 entries name collected tests"],
    }


def test_errors_under_json_stay_one_line_on_stderr(tmp_path: Path, cli: CliRunner) -> None:
    code, out, err = cli("detect", tmp_path / "missing", "--json")
    assert code == 2 and out == ""
    assert err.startswith("orderdep: error: ") and len(err.splitlines()) == 1


def test_no_colour_codes_when_not_a_terminal(od_project: Path, cli: CliRunner) -> None:
    code, out, err = cli("detect", od_project, "--seed", "2", "--classify")
    assert code == 1
    assert ANSI not in out + err
    code, out, err = cli("--help")
    assert ANSI not in out + err
