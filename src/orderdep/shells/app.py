"""The ``orderdep`` command group. Command modules attach their commands to ``cli``."""

from __future__ import annotations

import click

from orderdep import __version__
from orderdep.shells.config import ConfiguredGroup


@click.group(
    cls=ConfiguredGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="orderdep")
def cli() -> None:
    """Find, explain, tolerate and repair order-dependent tests in pytest suites.

    Typical session: `orderdep detect --classify`, then `orderdep deps` to write the
    dependencies file, `orderdep fix` to get verified patches.

    Option defaults can be set in `[tool.orderdep]` of pyproject.toml (or `[orderdep]` in
    pytest.ini, tox.ini, setup.cfg) and in ORDERDEP_<KEY> environment variables; see
    docs/configuration.md.
    """
