"""Options shared by every command that runs tests, and how they become an Engine."""

from __future__ import annotations

import importlib.util
import math
import shlex
import sys
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

import click

from orderdep.engine.config import RUNNERS, EngineConfig
from orderdep.engine.home import HOME_POLICIES
from orderdep.engine.store import project_relative
from orderdep.shells.arguments import argument
from orderdep.shells.interpreter import default_python, project_python
from orderdep.shells.project import positional_selection, resolve_paths, resolve_project

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
    if importlib.util.find_spec("jinja2") is None:  # the html extra is not installed
        return f"HTML report: pip install 'orderdep[html]', then {shlex.join(parts)}"
    return f"HTML report: {shlex.join(parts)}"


# The largest number of seconds a time option takes (a week; more overflows some waits).
MAX_SECONDS = 7 * 24 * 3600
# Seeds are stored as SQLite integers (signed 64-bit).
MAX_SEED = 2**63 - 1
# Counts of runs, orders, samples and machines (more would not finish or fit in memory).
MAX_COUNT = 1_000_000
MAX_JOBS = 1024


class Seconds(click.ParamType):  # type: ignore[type-arg]
    """A finite number of seconds in ``(0, MAX_SECONDS]``; names the bad value."""

    name = "seconds"

    def convert(
        self, value: Any, param: Optional[click.Parameter], ctx: Optional[click.Context]
    ) -> float:
        if isinstance(value, float) and math.isfinite(value) and 0 < value <= MAX_SECONDS:
            return value
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not 0 < number <= MAX_SECONDS:  # also false for nan
            self.fail(
                f"{str(value)!r} is not a number of seconds; give a number greater than 0 "
                f"and at most {MAX_SECONDS} (a week), e.g. 600",
                param,
                ctx,
            )
        return number


def count(minimum: int, maximum: int = MAX_COUNT) -> click.IntRange:
    """A whole number in ``[minimum, maximum]`` (click names the value and the range)."""
    return click.IntRange(min=minimum, max=maximum)


SEED = click.IntRange(min=0, max=MAX_SEED)

# The project directory; without it, the project holding the current directory (found as
# pytest finds its rootdir). A test file or node id selects it (see shells/project.py).
PROJECT_ARG = argument(
    "project",
    required=False,
    default=None,
    callback=resolve_project,
    metavar="[PROJECT]",
    help="The project directory (default: the project holding the current directory). "
    "A test file, directory or node id there selects its tests in the project that "
    "holds it.",
)
# Further positionals select tests as pytest's own arguments do (see shells/project.py).
PATHS_ARG = argument(
    "paths",
    nargs=-1,
    callback=resolve_paths,
    metavar="[PATH|NODEID]...",
    help="Only these test files, directories or node ids (tests/test_a.py::test_b), as "
    "pytest takes them: relative to PROJECT or to the current directory, or absolute "
    "inside PROJECT (default: the whole suite).",
)

# Selection as pytest does it: passed through to pytest's own collection of the suite.
SELECT_OPTIONS = [
    click.option(
        "-k",
        "keyword",
        default=None,
        metavar="EXPR",
        help="Only tests whose names match EXPR, as pytest -k (default: all tests).",
    ),
    click.option(
        "-m",
        "markexpr",
        default=None,
        metavar="MARKEXPR",
        help="Only tests whose marks match MARKEXPR, as pytest -m (default: all tests).",
    ),
    click.option(
        "--deselect",
        "deselect",
        multiple=True,
        metavar="NODEID",
        help="Leave out this test, file or directory (node id prefix), as pytest "
        "--deselect; repeatable (default: none left out).",
    ),
]


def select_options(func: F) -> F:
    """Add -k, -m and --deselect (see :func:`selection_args`)."""
    for option in reversed(SELECT_OPTIONS):
        func = option(func)
    return func


def selection_args(params: dict[str, Any], positional: bool = True) -> list[str]:
    """The pytest arguments that select what the user selected: the PROJECT argument's
    file or node id (unless not ``positional``), -k, -m, --deselect."""
    out = positional_selection() if positional else []
    if params.get("keyword"):
        out += ["-k", params["keyword"]]
    if params.get("markexpr"):
        out += ["-m", params["markexpr"]]
    for nodeid in params.get("deselect") or ():
        out += ["--deselect", nodeid]
    return out


# How pytest finds the project's root and code, for commands that run and that collect.
ROOTDIR_OPTION = click.option(
    "--rootdir",
    default=None,
    help="Passed to pytest as --rootdir (default: pytest finds it).",
)
PYTHONPATH_OPTION = click.option(
    "--pythonpath",
    multiple=True,
    help="Directory to put on sys.path (pytest's pythonpath ini); repeatable "
    "(default: none added).",
)


def engine_options(func: F) -> F:
    """Add PROJECT, the tests it selects ([PATH|NODEID]...) and the engine options
    (runner, jobs, timeout, python, paths)."""
    return _engine_options(func, PROJECT_ARG, PATHS_ARG)


def order_engine_options(func: F) -> F:
    """Add PROJECT and the engine options, for a command whose further positional
    arguments are an order of tests, not a selection (``orderdep run``)."""
    return _engine_options(func, PROJECT_ARG)


def _engine_options(func: F, *arguments: Callable[[Any], Any]) -> F:
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
            "-n",
            type=count(1, MAX_JOBS),
            default=1,
            show_default=True,
            help="Orders run in parallel, each worker in its own copy of the project "
            "(-n as in pytest-xdist).",
        ),
        click.option(
            "--timeout",
            type=Seconds(),
            default=None,
            help="Seconds each test may run before it is killed with the processes it "
            "started (like pytest-timeout). Default: 10x the test's own duration + 5 s + "
            "the slowest test's duration, 60 s until a test was first timed.",
        ),
        click.option(
            "--python",
            "python",
            default=None,
            help="Interpreter to run the tests with; it needs pytest and the project's "
            "requirements, not orderdep. tox:ENV or nox:SESSION: the python of that tox or "
            "nox env in PROJECT/.tox or PROJECT/.nox. Default: the one running orderdep if "
            "it is the project's, else the first of $VIRTUAL_ENV, PROJECT/.venv, venv, env "
            "with pytest.",
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
        ROOTDIR_OPTION,
        PYTHONPATH_OPTION,
        click.option(
            "--pytest-arg",
            "pytest_args",
            multiple=True,
            help="Extra argument for every pytest run, e.g. --pytest-arg=--tb=short; "
            "repeatable (default: none).",
        ),
        *SELECT_OPTIONS,
        click.option(
            "--dask",
            "dask_scheduler",
            default=None,
            metavar="ADDRESS",
            help="Run orders on the workers of this Dask scheduler (pip install "
            "'orderdep[dask]'); the project is sent to them, once per code version "
            "(default: run here).",
        ),
        *arguments,
    ]
    option: Callable[[Any], Any]
    for option in reversed(options):
        func = option(func)
    return func


ALLOW_INCOMPLETE_OPTION = click.option(
    "--allow-incomplete",
    is_flag=True,
    default=False,
    help="Exit 0, not 3, when nothing was found although the promised search did not run "
    "whole (budget, an order that did not run all its tests): for a job that accepts a "
    "partial search, such as a nightly run with a fixed budget. The summary still says "
    "what did not run.",
)

CHECK_OPTION = click.option(
    "--check/--no-check",
    "check",
    default=True,
    show_default=True,
    help="Before relying on the fast fork runner, check once per code version that it "
    "gives the outcomes a fresh pytest gives (the original order, and failing tests "
    "alone); when they differ, say so and use the subprocess runner.",
)


def collect_options(func: F) -> F:
    """The options that say how pytest collects the project (for commands that only
    collect): rootdir, pythonpath, python, pytest arguments."""
    options = [
        ROOTDIR_OPTION,
        PYTHONPATH_OPTION,
        click.option(
            "--python",
            "python",
            default=None,
            help="Interpreter to collect with; tox:ENV or nox:SESSION for a tox or nox env "
            "of the project (default: as for `orderdep run`: the project's, found in "
            "$VIRTUAL_ENV or PROJECT/.venv, venv, env when the one running orderdep is not).",
        ),
        click.option(
            "--pytest-arg",
            "pytest_args",
            multiple=True,
            help="Extra pytest argument; repeatable (default: none).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def report_option(help: str, name: str = "report") -> Callable[[F], F]:
    """``--report PATH``: the report a command reads or writes (``help`` says which and
    its default); the value arrives as ``name``."""
    return click.option(
        "--report",
        name,
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help=help,
    )


def setup_key(params: dict[str, Any]) -> dict[str, Any]:
    """How pytest is started on the project, for the job names that let a rerun of a
    command resume from the store: not where the project is (a copy of it with its store
    resumes too), only what changes what runs."""
    project = Path(params["project"])
    where = [project_relative(p, project) for p in [params["rootdir"], *params["pythonpath"]]]
    return {
        "pytest": [where[0], where[1:], [*params["pytest_args"], *selection_args(params)]],
        "home": params.get("home", "copy"),
    }


def order_file_option(help: str) -> Callable[[F], F]:
    """``--order-file PATH``: an order of test ids, one per line or a JSON list, read by
    :func:`~orderdep.shells.commands.engine_cmds.read_order_file` (``help`` says which order)."""
    return click.option(
        "--order-file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help=help,
    )


STORE_OPTION = click.option(
    "--store",
    "store_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Results store to record into and resume from (default PROJECT/.orderdep/results.db).",
)


def engine_config(params: dict[str, Any]) -> EngineConfig:
    """The EngineConfig named by the engine options in ``params``; without a python given,
    the project's interpreter (see :mod:`orderdep.shells.interpreter`)."""
    python, note = params["python"], ""
    if python:
        python = project_python(Path(params["project"]), python)
    elif not params.get("dask_scheduler"):  # Dask workers use their own
        choice = default_python(Path(params["project"]))
        python, note = choice.python, choice.tried
    return EngineConfig(
        project=params["project"],
        runner=params["runner"],
        jobs=params["jobs"],
        timeout=params["timeout"],
        python=python or sys.executable,
        interpreter_note=note,
        rootdir=params["rootdir"],
        pythonpath=tuple(params["pythonpath"]),
        pytest_args=(*params["pytest_args"], *selection_args(params)),
        home=params.get("home") or "copy",
    )


def engine_flags(params: dict[str, Any]) -> list[str]:
    """The engine options the user gave, to repeat them in printed commands (so ``orderdep
    run`` reruns an order the way the printing command ran it)."""
    out: list[str] = []
    if params.get("store_path") is not None:
        out += ["--store", str(params["store_path"])]
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
    return out + selection_args(params, positional=False)
