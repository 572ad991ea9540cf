"""Options shared by every command that runs tests, and how they become an Engine."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, TypeVar

import click

from orderdep.engine.config import RUNNERS, EngineConfig
from orderdep.engine.home import HOME_POLICIES

F = TypeVar("F", bound=Callable[..., Any])

# Where commands read and write the report, relative to the project (one place).
DEFAULT_REPORT = Path(".orderdep") / "report.json"

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
        click.option(
            "--home",
            type=click.Choice(HOME_POLICIES),
            default="copy",
            show_default=True,
            help="HOME the tests see. copy: a private HOME with a copy of your dot-files "
            "and ~/.config, put back after every order; empty: a private, empty HOME; "
            "real: your own HOME (what tests write there stays).",
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


CHECK_OPTION = click.option(
    "--check/--no-check",
    "check",
    default=True,
    show_default=True,
    help="Before relying on the fast fork runner, check once per code version that it "
    "gives the outcomes a fresh pytest gives (the original order, and failing tests "
    "alone); when they differ, say so and use the subprocess runner.",
)


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
        home=params["home"],
    )


def engine_flags(params: dict[str, Any]) -> list[str]:
    """The engine options the user gave, to repeat them in printed commands (so ``orderdep
    run`` reruns an order the way the printing command ran it)."""
    out: list[str] = []
    if params.get("runner") and params["runner"] != "fork":
        out += ["--runner", params["runner"]]
    if params.get("timeout") is not None:
        out += ["--timeout", str(params["timeout"])]
    if params.get("home") and params["home"] != "copy":
        out += ["--home", params["home"]]
    if params.get("python"):
        out += ["--python", params["python"]]
    if params.get("rootdir"):
        out += ["--rootdir", params["rootdir"]]
    for path in params.get("pythonpath") or ():
        out += ["--pythonpath", path]
    out += [f"--pytest-arg={arg}" for arg in params.get("pytest_args") or ()]
    return out
