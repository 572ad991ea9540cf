"""``orderdep coverage|prioritize|select|parallelize``: regression testing (002).

``coverage`` measures per-test coverage and durations once; the three technique commands
print dependent-test-aware orders computed from it (no tests run). ``evaluate`` (in
:mod:`~orderdep.shells.commands.evaluate_cmds`) compares the algorithms by running them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

import click

from orderdep.analysis.regression.coverage import (
    DEFAULT_PATH,
    CoverageData,
    collect_coverage,
    load_coverage,
    save_coverage,
)
from orderdep.core import parallelization, prioritization, selection
from orderdep.core.depsfile import Dependency, load_deps
from orderdep.core.enhance import enhance_order, enhance_parallel, enhance_selection
from orderdep.core.order_check import enhance_stats
from orderdep.errors import UsageError
from orderdep.shells.app import cli
from orderdep.shells.commands.engine_cmds import open_engine
from orderdep.shells.commands.explain_cmds import DEFAULT_DEPS
from orderdep.shells.options import (
    PROJECT_ARG,
    STORE_OPTION,
    count,
    engine_options,
)
from orderdep.shells.output import notice, set_result

F = TypeVar("F", bound=Callable[..., Any])


def progress_notice(message: str) -> None:
    notice(message)


# --- shared inputs ------------------------------------------------------------------------------


def coverage_path(project: Path, given: Optional[Path]) -> Path:
    return given if given is not None else project / DEFAULT_PATH


def load_dependencies(
    project: Path, given: Optional[Path], known: list[str], *, required: bool = False
) -> tuple[list[Dependency], Optional[Path]]:
    """``--deps`` or PROJECT/orderdep-deps.json if present; ids must be known tests."""
    path = given
    if path is None and (project / DEFAULT_DEPS).is_file():
        path = project / DEFAULT_DEPS
    if path is None:
        if required:
            raise UsageError(
                f"no dependencies file: give --deps FILE or write {DEFAULT_DEPS!r} in the "
                "project with `orderdep deps`"
            )
        progress_notice(
            f"orderdep: no dependencies file ({DEFAULT_DEPS} or --deps); the order is not "
            "dependent-test-aware"
        )
        return [], None
    return load_deps(path, known_ids=known), path


def git_changed_lines(project: Path, base: str) -> dict[str, set[int]]:
    """Changed lines of ``base``'s version, per project-relative file: ``git diff -U0 BASE``."""
    cmd = [
        "git", "-C", str(project), "diff", "-U0", "--no-color", "--no-ext-diff", "--relative",
        "--src-prefix=a/", "--dst-prefix=b/", base, "--",
    ]  # fmt: skip
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(
            "git is not installed; give the change as a diff with --diff FILE"
        ) from None
    if proc.returncode != 0:
        raise UsageError(
            f"`git diff -U0 {base}` failed in {str(project)!r}: {proc.stderr.strip()}; give a "
            "revision that exists there (e.g. HEAD~1) or a diff file with --diff FILE"
        )
    return selection.changed_lines(proc.stdout)


def read_diff(path: Path) -> dict[str, set[int]]:
    if str(path) == "-":
        return selection.changed_lines(sys.stdin.read())
    try:
        return selection.changed_lines(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read --diff {str(path)!r}: {exc.strerror}") from None


def _report_enhancement(
    label: str, unenhanced: list[str], enhanced: list[str], deps: list[Dependency]
) -> None:
    if deps:
        progress_notice(f"orderdep: {label}: {enhance_stats(unenhanced, enhanced, deps).summary()}")


def _tests(n: int) -> str:
    return f"{n} test" if n == 1 else f"{n} tests"


def label_of(algorithm: str) -> str:
    return "groups" if algorithm.lower() == "groups" else algorithm.upper()


def _technique_options(labels: list[str]) -> Callable[[F], F]:
    def wrap(func: F) -> F:
        options = [
            PROJECT_ARG,
            click.option(
                "--algorithm",
                "-a",
                type=click.Choice(labels, case_sensitive=False),
                required=True,
                help="Which algorithm (see the command's description above; docs/design.md "
                "names their sources).",
            ),
            click.option(
                "--deps",
                type=click.Path(dir_okay=False, path_type=Path),
                default=None,
                help=f"Dependencies file (default PROJECT/{DEFAULT_DEPS} if present).",
            ),
            click.option(
                "--no-enhance",
                is_flag=True,
                help="Print the traditional (dependent-test-unaware) order instead.",
            ),
            click.option(
                "--coverage",
                "coverage_file",
                type=click.Path(dir_okay=False, path_type=Path),
                default=None,
                help=f"Per-test coverage (default PROJECT/{DEFAULT_PATH.as_posix()}).",
            ),
        ]
        for option in reversed(options):
            func = option(func)
        return func

    return wrap


def _inputs(
    project: Path, coverage_file: Optional[Path], deps_file: Optional[Path], no_enhance: bool
) -> tuple[CoverageData, list[Dependency]]:
    data = load_coverage(coverage_path(project, coverage_file))
    if no_enhance:
        return data, []
    deps, _ = load_dependencies(project, deps_file, data.tests)
    return data, deps


# --- coverage -----------------------------------------------------------------------------------


@cli.command("coverage")
@engine_options
@STORE_OPTION
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"Where to write (default PROJECT/{DEFAULT_PATH.as_posix()}).",
)
@click.option(
    "--source",
    multiple=True,
    help="Directory or file to measure, relative to PROJECT (repeatable; default: all).",
)
def coverage_cmd(output: Optional[Path], source: tuple[str, ...], **params: Any) -> int:
    """Measure per-test coverage (statements and functions) and durations.

    Runs the suite once, in original order, with coverage.py switching context at each
    test's setup; fixture setup and teardown count for the test. The prioritize, select,
    parallelize and evaluate commands read the result.
    """
    project: Path = params["project"].resolve()
    with open_engine(params) as engine:
        data = collect_coverage(engine, project, source=source)
    path = coverage_path(project, output)
    save_coverage(path, data)
    statements = {e for cov in data.statement_coverage().values() for e in cov}
    functions = {e for cov in data.function_coverage().values() for e in cov}
    files = {f for f, _ in statements}
    total = sum(data.durations.values())
    click.echo(
        f"{len(data.tests)} tests cover {len(statements)} statements and {len(functions)} "
        f"functions in {len(files)} files; {total:.2f}s of tests"
    )
    failed = [t for t, o in data.outcomes.items() if o not in ("passed", "skipped", "xfailed")]
    if failed:
        click.echo(
            f"note: {len(failed)} test(s) did not pass in the original order: "
            + ", ".join(failed[:5])
            + (" ..." if len(failed) > 5 else "")
        )
    click.echo(f"wrote {path}")
    return 0


# --- the three techniques -------------------------------------------------------------------------


@cli.command()
@_technique_options(sorted(prioritization.ALGORITHMS))
def prioritize(
    project: Path,
    algorithm: str,
    deps: Optional[Path],
    no_enhance: bool,
    coverage_file: Optional[Path],
) -> int:
    """Print the tests in prioritised order (T1-T4), one id per line.

    T1/T3 order by total statement/function coverage, T2/T4 by additional coverage; the
    order is then made to satisfy the dependencies unless --no-enhance.
    """
    data, dependencies = _inputs(project, coverage_file, deps, no_enhance)
    label = algorithm.upper()
    order = prioritization.run_algorithm(
        label, data.tests, data.statement_coverage(), data.function_coverage()
    )
    enhanced = enhance_order(order, dependencies, all_tests=data.tests)
    _report_enhancement(label, order, enhanced, dependencies)
    set_result(algorithm=label, enhanced=not no_enhance, order=enhanced)
    for test in enhanced:
        click.echo(test)
    return 0


@cli.command()
@_technique_options(sorted(selection.ALGORITHMS))
@click.option(
    "--base",
    default="HEAD",
    show_default=True,
    help="Revision the coverage was measured on; the change is `git diff -U0 BASE` "
    "against the working tree.",
)
@click.option(
    "--diff",
    "diff_file",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    default=None,
    help="Read the change from this unified diff (`-` for stdin) instead of git "
    "(default: git diff against --base).",
)
def select(
    project: Path,
    algorithm: str,
    deps: Optional[Path],
    no_enhance: bool,
    coverage_file: Optional[Path],
    base: str,
    diff_file: Optional[Path],
) -> int:
    """Print the tests affected by the change (S1-S6), one id per line.

    A test is selected when it covered a changed statement (S1-S3) or function (S4-S6)
    of the base version; S1/S4 keep the original order, the others reorder by total or
    additional coverage. Missing state-setters are added unless --no-enhance.
    """
    data, dependencies = _inputs(project, coverage_file, deps, no_enhance)
    changed = read_diff(diff_file) if diff_file is not None else git_changed_lines(project, base)
    label = algorithm.upper()
    order = selection.run_algorithm(
        label, data.tests, data.statement_coverage(), changed, functions=data.function_ranges
    )
    enhanced = enhance_selection(order, dependencies, data.tests)
    where = f"--diff {diff_file}" if diff_file is not None else f"since {base}"
    n_lines = sum(len(v) for v in changed.values())
    progress_notice(
        f"orderdep: {n_lines} changed line(s) in {len(changed)} file(s) {where}; "
        f"{label} selected {len(order)} of {len(data.tests)} tests"
    )
    _report_enhancement(label, order, enhanced, dependencies)
    set_result(algorithm=label, enhanced=not no_enhance, order=enhanced)
    for test in enhanced:
        click.echo(test)
    return 0


@cli.command()
@_technique_options(["P1", "P2", "groups"])
@click.option(
    "--machines",
    type=count(1),
    default=2,
    show_default=True,
    help="Number of machines to split the tests over.",
)
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write machine-1.txt .. machine-N.txt here (for `orderdep run --order-file`; "
    "default: only print them).",
)
def parallelize(
    project: Path,
    algorithm: str,
    deps: Optional[Path],
    no_enhance: bool,
    coverage_file: Optional[Path],
    machines: int,
    output_dir: Optional[Path],
) -> int:
    """Split the tests over --machines machines (P1, P2, groups); print each machine's order.

    P1 deals tests round-robin by position, P2 longest first onto the machine that
    finishes earliest; enhancing adds to each machine the dependees its tests need.
    `groups` keeps each dependency group whole on one machine (no test runs twice).
    """
    label = label_of(algorithm)
    if label == "groups" and no_enhance:
        raise UsageError(
            "--algorithm groups is dependency-aware by construction; for the unaware "
            "split use --algorithm P2 --no-enhance"
        )
    data, dependencies = _inputs(project, coverage_file, deps, no_enhance)
    durations = {t: data.durations.get(t, 0.0) for t in data.tests}
    if label == "groups":
        split = parallelization.parallelize_groups(
            data.tests, dependencies, durations, machines, all_tests=data.tests
        )
    else:
        unaware = parallelization.run_algorithm(label, data.tests, machines, durations)
        split = enhance_parallel(unaware, dependencies, data.tests)
        for i, (u, e) in enumerate(zip(unaware, split), start=1):
            _report_enhancement(f"{label} machine {i}", u, e, dependencies)
    span = parallelization.makespan(split, durations)
    progress_notice(f"orderdep: {label} on {machines} machine(s): estimated makespan {span:.2f}s")
    set_result(algorithm=label, makespan=span, machines=[list(order) for order in split])
    if output_dir is not None:
        output_dir.mkdir(parents=True, exist_ok=True)
        for i, order in enumerate(split, start=1):
            path = output_dir / f"machine-{i}.txt"
            path.write_text("".join(f"{t}\n" for t in order), encoding="utf-8")
            seconds = sum(durations.get(t, 0.0) for t in order)
            click.echo(f"wrote {path} ({_tests(len(order))}, estimated {seconds:.2f}s)")
        return 0
    for i, order in enumerate(split, start=1):
        seconds = sum(durations.get(t, 0.0) for t in order)
        click.echo(f"# machine {i}: {_tests(len(order))}, estimated {seconds:.2f}s")
        for test in order:
            click.echo(test)
    return 0
