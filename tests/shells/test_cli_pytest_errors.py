"""pytest's own usage errors (a bad ``-k`` or ``-m`` expression) are one line with
pytest's reason and exit 2, from every command that collects."""

from __future__ import annotations

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
