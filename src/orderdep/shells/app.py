"""The ``orderdep`` command group. Command modules attach their commands to ``cli``."""

from __future__ import annotations

import click

from orderdep import __version__
from orderdep.shells.config import ConfiguredGroup

#: ``orderdep --help`` lists the commands under these headings, in this order (the
#: workflow: find, explain, tolerate, repair); a command not named here goes under "more".
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Find order-dependent tests", ("detect", "pradet", "run", "collect", "doctor")),
    ("Explain them", ("classify", "why", "debug", "flakerate", "report")),
    ("Tolerate them", ("deps", "prioritize", "select", "parallelize", "coverage", "evaluate")),
    ("Repair them", ("fix",)),
)


class WorkflowGroup(ConfiguredGroup):
    """A group whose help lists its commands by workflow step (:data:`SECTIONS`)."""

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
    or failures left, 2 usage or input error, 130/143/129 interrupted (Ctrl-C, SIGTERM,
    SIGHUP).

    Option defaults can be set in `[tool.orderdep]` of pyproject.toml (or `[orderdep]` in
    pytest.ini, tox.ini, setup.cfg) and in ORDERDEP_<KEY> environment variables; see
    docs/configuration.md.
    """
