"""Conventions every command keeps: one error style and exit code 2 for usage errors
(click's own included), help that says what each option does and its default without
paper references, commands grouped by workflow, the exit-code table in the README."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click
import pytest

from orderdep.shells.app import SECTIONS, cli

if TYPE_CHECKING:
    from conftest import CliRunner

README = Path(__file__).resolve().parents[2] / "README.md"
# The engine's --timeout is being reworded with its meaning; it is left out here.
NOT_CHECKED = {"--timeout"}
PAPER_WORDS = re.compile(r"§|paper|iFixFlakies|DTDetector|ODRepair|Tables? \d|Figure \d")


def commands(group: click.Group = cli, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    every = cli.load_all() if group is cli else group.commands
    for name, command in sorted(every.items()):
        yield (*prefix, name)
        if isinstance(command, click.Group):
            yield from commands(command, (*prefix, name))


def command_of(path: tuple[str, ...]) -> click.Command:
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = cli.load_all()[name] if command is cli else command.commands[name]
    return command


ALL = list(commands())


@pytest.mark.parametrize("path", ALL, ids=" ".join)
def test_a_usage_error_is_one_line_and_exit_2(path: tuple[str, ...], cli: CliRunner) -> None:
    code, out, err = cli(*path, "--no-such-option")
    assert code == 2 and out == ""
    (line,) = err.splitlines()
    # `orderdep pradet` without a subcommand is `orderdep pradet run`.
    said = line.replace("`orderdep pradet run --help`", "`orderdep pradet --help`")
    shown = " ".join(path if path != ("pradet", "run") else ("pradet",))
    assert (
        said == f"orderdep: error: No such option '--no-such-option'; see `orderdep {shown} --help`"
    )


def test_clicks_own_errors_take_the_same_style(cli: CliRunner) -> None:
    code, _, err = cli("detect", "--jobs", "zero")
    assert code == 2
    assert err == (
        "orderdep: error: Invalid value for '--jobs' / '-j' / '-n': 'zero' is not a valid "
        "integer range; see `orderdep detect --help`\n"
    )
    code, _, err = cli("frobnicate")
    assert code == 2 and err.startswith("orderdep: error: No such command 'frobnicate'")
    assert "Error:" not in err


@pytest.mark.parametrize("path", ALL, ids=" ".join)
def test_help_says_what_each_option_does_and_its_default(path: tuple[str, ...]) -> None:
    command = command_of(path)
    assert not PAPER_WORDS.search(command.help or ""), command.help
    for param in command.params:
        if not isinstance(param, click.Option) or set(param.opts) & NOT_CHECKED:
            continue
        text = param.help or ""
        assert text, f"{path} {param.opts} has no help"
        assert not PAPER_WORDS.search(text), text
        if not (param.is_flag or param.required or param.show_default or param.count):
            assert "default" in text.lower(), f"{path} {param.opts}: {text!r}"


def test_main_help_lists_commands_by_workflow(cli: CliRunner) -> None:
    code, out, _ = cli("--help")
    assert code == 0
    titles = [title for title, _ in SECTIONS]
    positions = [out.index(f"{title}:") for title in titles]
    assert positions == sorted(positions)
    listed = set(re.findall(r"^  (\w+) ", out.split(f"{titles[0]}:", 1)[1], re.M))
    assert listed == set(cli_commands()), listed
    assert "More:" not in out  # every command has its place in the workflow


def cli_commands() -> list[str]:
    return sorted(cli.load_all())


def test_readme_has_the_exit_code_table_for_every_command() -> None:
    text = README.read_text(encoding="utf-8")
    table = text.split("| exit code |", 1)[1].split("\n\n", 1)[0]
    for name in cli_commands():
        assert f"`{name}" in table, name
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 / 143 / 129 |"):
        assert code in table


def test_a_command_imports_only_what_it_needs() -> None:
    """Commands are imported on first use: `orderdep run` and `why` never load the
    repair machinery (libcst) nor PRADET's (networkx), which only `fix`/`pradet` (and
    `why --fix`) need."""
    script = (
        "import sys\n"
        "from orderdep.shells.cli import main\n"
        "assert main(['run', '--help']) == 0 and main(['why', '--help']) == 0\n"
        "heavy = ['libcst', 'networkx', 'orderdep.analysis.repair.fix']\n"
        "print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
        "assert main(['fix', '--help']) == 0\n"
        "print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stderr.splitlines()
    assert out[-2] == "[]"
    assert "libcst" in out[-1] and "orderdep.analysis.repair.fix" in out[-1]


def test_a_bug_of_orderdeps_is_exit_70_never_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from orderdep.shells.cli import main
    from orderdep.shells.commands import engine_cmds

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("pkg.egg-info/PKG-INFO")

    monkeypatch.setattr(engine_cmds, "collect_suite", broken)
    (tmp_path / "test_a.py").write_text("def test_a():\n    pass\n")
    code = main(["collect", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 70
    assert "Traceback" in err and "KeyError" in err
    last = err.rstrip().splitlines()[-1]
    assert last.startswith("orderdep: internal error: KeyError: 'pkg.egg-info/PKG-INFO'")
    assert "bug in orderdep" in last
