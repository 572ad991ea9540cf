"""``orderdep`` command line: ``main(argv) -> exit code``; only this turns errors into messages.

Exit codes: 0 success (nothing order-dependent found), 1 findings (OD tests, failing
tests), 2 usage, collection or input errors.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Optional

import click

from orderdep.errors import OrderdepError
from orderdep.shells.app import cli

# Each module attaches its commands to ``cli``.
from orderdep.shells.commands import (
    detect_cmds,  # noqa: F401  (detect, flakerate)
    engine_cmds,  # noqa: F401  (collect, run)
    explain_cmds,  # noqa: F401  (classify, deps)
    pradet_cmds,  # noqa: F401  (pradet run|collect|refine|explain)
    regression_cmds,  # noqa: F401  (coverage, prioritize, select, parallelize, evaluate)
    repair_cmds,  # noqa: F401  (debug, fix)
    report_cmds,  # noqa: F401  (report)
)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the CLI with ``argv`` (default: ``sys.argv[1:]``) and return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        result = cli.main(args=args, prog_name="orderdep", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return 2
    except click.exceptions.Abort:
        click.echo("orderdep: interrupted; finished orders are kept in the store.", err=True)
        return 130
    except KeyboardInterrupt:
        click.echo("orderdep: interrupted; finished orders are kept in the store.", err=True)
        return 130
    except OrderdepError as exc:
        click.echo(f"orderdep: error: {exc}", err=True)
        return exc.exit_code
    return int(result or 0)


def run() -> None:
    """Console-script entry point."""
    raise SystemExit(main())
