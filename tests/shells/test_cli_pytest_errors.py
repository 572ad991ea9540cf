"""pytest's own usage errors (a bad ``-k`` or ``-m`` expression) are one line with
pytest's reason and exit 2, from every command that collects."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import one_line

if TYPE_CHECKING:
    from conftest import CliRunner


@pytest.mark.parametrize(
    ("command", "option", "expression"),
    [
        ("collect", "-k", "bad ((("),
        ("detect", "-k", "(("),
        ("run", "-m", "slow and"),
    ],
)
def test_a_bad_expression_is_pytests_reason_in_one_line(
    cli: CliRunner, od_project: Path, command: str, option: str, expression: str
) -> None:
    code, out, err = cli(command, od_project, option, expression)
    assert code == 2, out + err
    line = one_line(err)
    assert line.startswith(f"orderdep: error: pytest: Wrong expression passed to '{option}': ")
    assert expression in line and line.endswith("; see `python -m pytest --help`")


def test_a_syntax_error_is_one_line_naming_the_file_the_line_and_the_command(
    cli: CliRunner, od_project: Path
) -> None:
    (od_project / "tests" / "test_broken.py").write_text("def test_x(:\n    pass\n")
    code, out, err = cli("collect", od_project)
    assert code == 2, out + err
    line = one_line(err)
    assert line.startswith(
        "orderdep: error: cannot collect tests/test_broken.py: SyntaxError: invalid syntax "
        "at line 1; see the rest with `"
    )
    command = line.split("`")[1]
    assert command == "python -m pytest --collect-only -q tests/test_broken.py"
    assert line.endswith(f"` in {str(od_project)!r}")
    shown = subprocess.run(
        [sys.executable, *command.split()[1:]], cwd=od_project, capture_output=True, text=True
    )  # the printed command, run where it says
    assert "SyntaxError" in shown.stdout and "test_broken.py" in shown.stdout


def test_a_selection_that_deselects_every_test_says_so(cli: CliRunner, od_project: Path) -> None:
    code, out, err = cli("collect", od_project, "-m", "slow")
    assert code == 2, out + err
    assert one_line(err) == (
        f"orderdep: error: pytest collected 3 test(s) in {str(od_project)!r} and the "
        "selection (-m slow) deselected every one: nothing to run; check the expression"
    )
