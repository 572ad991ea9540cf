"""The ``orderdep`` command group. Command modules attach their commands to ``cli``; a
module is imported when one of its commands is used (or listed), so ``orderdep why``
does not pay for importing what ``orderdep fix`` needs."""

from __future__ import annotations

import importlib
from typing import Optional

import click

from orderdep import __version__
from orderdep.shells.arguments import HelpCommand
from orderdep.shells.config import ConfiguredGroup
from orderdep.shells.output import add_output_options

#: ``orderdep --help`` lists the commands under these headings, in this order (the
#: workflow: find, explain, tolerate, repair); a command not named here goes under "more".
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Find order-dependent tests", ("detect", "pradet", "run", "collect", "doctor")),
    ("Explain them", ("classify", "why", "debug", "flakerate", "report")),
    ("Tolerate them", ("deps", "prioritize", "select", "parallelize", "coverage", "evaluate")),
    ("Repair them", ("fix",)),
)


#: The module under ``orderdep.shells.commands`` that defines each command.
COMMAND_MODULES: dict[str, str] = {
    "detect": "detect_cmds",
    "flakerate": "flakerate_cmds",
    "pradet": "pradet_cmds",
    "run": "engine_cmds",
    "collect": "engine_cmds",
    "doctor": "doctor_cmds",
    "classify": "explain_cmds",
    "deps": "explain_cmds",
    "why": "why_cmds",
    "debug": "debug_cmds",
    "report": "report_cmds",
    "prioritize": "regression_cmds",
    "select": "regression_cmds",
    "parallelize": "regression_cmds",
    "coverage": "regression_cmds",
    "evaluate": "evaluate_cmds",
    "fix": "repair_cmds",
}


class WorkflowGroup(ConfiguredGroup):
    """A group whose commands are imported on first use (:data:`COMMAND_MODULES`) and
    whose help lists them by workflow step (:data:`SECTIONS`)."""

    command_class = HelpCommand

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMAND_MODULES})

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        module = COMMAND_MODULES.get(cmd_name)
        if cmd_name not in self.commands and module is not None:
            importlib.import_module(f"orderdep.shells.commands.{module}")
        command = self.commands.get(cmd_name)
        if command is not None:
            add_output_options(command)  # --quiet and --json, declared once (idempotent)
        return command

    def load_all(self) -> dict[str, click.Command]:
        """Every command, imported and ready (for listings, configuration and tests)."""
        ctx = click.Context(self)
        return {
            name: cmd
            for name in self.list_commands(ctx)
            if (cmd := self.get_command(ctx, name)) is not None
        }

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        commands = {
            name: cmd
            for name in self.list_commands(ctx)
            if (cmd := self.get_command(ctx, name)) is not None and not cmd.hidden
        }
        width = formatter.width - 6 - max((len(n) for n in commands), default=0)
        placed: set[str] = set()
        for title, names in SECTIONS:
            rows = [(n, commands[n].get_short_help_str(width)) for n in names if n in commands]
            placed.update(names)
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
        rest = [(n, c.get_short_help_str(width)) for n, c in commands.items() if n not in placed]
        if rest:
            with formatter.section("More"):
                formatter.write_dl(rest)


@click.group(
    cls=WorkflowGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="orderdep")
def cli() -> None:
    """Find, explain, tolerate and repair order-dependent tests in pytest suites.

    Typical session: `orderdep detect --classify` finds and explains them, `orderdep deps`
    writes the dependencies file pytest keeps them apart with, `orderdep fix` prints
    verified patches. Exit codes (every command): 0 nothing found or all good, 1 findings
    or failures left, 2 usage or input error, 3 the promised search did not run whole,
    70 a bug in orderdep, 130/143/129 interrupted (Ctrl-C, SIGTERM, SIGHUP).

    Option defaults can be set in `[tool.orderdep]` of pyproject.toml (or `[orderdep]` in
    pytest.ini, tox.ini, setup.cfg) and in ORDERDEP_<KEY> environment variables; see
    docs/configuration.md.
    """
