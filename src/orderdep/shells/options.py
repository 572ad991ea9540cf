"""Options shared by every command that runs tests, and how they become an Engine."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

import click

from orderdep.engine.config import RUNNERS, EngineConfig

F = TypeVar("F", bound=Callable[..., Any])

# Where commands read and write the report, relative to the project (one place).
DEFAULT_REPORT = Path(".orderdep") / "report.json"
# What `orderdep evaluate` last measured (orderdep.evaluation/1), for the HTML report.
EVALUATION_FILE = Path(".orderdep") / "evaluation.json"


def default_html(project: Path, report: Optional[Path] = None) -> Path:
    """Where ``orderdep report`` writes: next to the report, as ``.html``."""
    return (report if report is not None else project / DEFAULT_REPORT).with_suffix(".html")


def html_report_line(project: Path, report: Optional[Path] = None) -> str:
    """The line commands print after writing a report: the command that renders it."""
    parts = ["orderdep", "report", str(project)]
    if report is not None:
        parts += ["--report", str(report)]
    parts += ["--html", str(default_html(project, report))]
    return f"HTML report: {shlex.join(parts)}"


PROJECT_ARG = click.argument(
    "project", type=click.Path(file_okay=False, path_type=Path), default=".", required=False
)


def engine_options(func: F) -> F:
    """Add PROJECT and the engine options (runner, jobs, timeout, python, paths)."""
    options = [
        click.option(
            "--runner",
            type=click.Choice(RUNNERS),
            default="fork",
            show_default=True,
            help="fork: fork each order from a server that collected once (fast); "
            "subprocess: a fresh pytest process per order (the reference).",
        ),
        click.option(
            "--jobs",
            "-j",
            type=click.IntRange(min=1),
            default=1,
            show_default=True,
            help="Orders run in parallel, each worker in its own copy of the project.",
        ),
        click.option(
            "--timeout",
            type=click.FloatRange(min=0, min_open=True),
            default=None,
            help="Seconds per order; the running test is marked 'timeout'.",
        ),
        click.option(
            "--python",
            "python",
            default=None,
            help="Interpreter to run the tests with (must have orderdep installed).",
        ),
        click.option("--rootdir", default=None, help="Passed to pytest as --rootdir."),
        click.option(
            "--pythonpath",
            multiple=True,
            help="Directory to put on sys.path (pytest's pythonpath ini); repeatable.",
        ),
        click.option(
            "--pytest-arg",
            "pytest_args",
            multiple=True,
            help="Extra argument for every pytest run, e.g. --pytest-arg=-m --pytest-arg=unit.",
        ),
        click.option(
            "--dask",
            "dask_scheduler",
            default=None,
            metavar="ADDRESS",
            help="Run orders on this Dask scheduler (pip install 'orderdep[dask]'); the "
            "project must be at the same path on every worker.",
        ),
        PROJECT_ARG,
    ]
    for option in reversed(options):
        func = option(func)
    return func


def engine_config(params: dict[str, Any]) -> EngineConfig:
    """The EngineConfig named by the engine options in ``params``."""
    return EngineConfig(
        project=params["project"],
        runner=params["runner"],
        jobs=params["jobs"],
        timeout=params["timeout"],
        python=params["python"] or sys.executable,
        rootdir=params["rootdir"],
        pythonpath=tuple(params["pythonpath"]),
        pytest_args=tuple(params["pytest_args"]),
    )
