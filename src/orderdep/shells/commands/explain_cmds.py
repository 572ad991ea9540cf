"""``orderdep classify`` and ``orderdep deps``: explain OD tests and write the dependencies file."""

from __future__ import annotations

import difflib
import hashlib
import json
from pathlib import Path
from typing import Any, Optional

import click

from orderdep.core.depsfile import DEFAULT_DEPS, deps_from_report, dump_deps, load_deps, save_deps
from orderdep.core.report import load_report, save_report
from orderdep.engine.store import project_relative
from orderdep.errors import UsageError, shown_path
from orderdep.shells.app import cli
from orderdep.shells.commands.engine_cmds import collect_suite, open_engine
from orderdep.shells.config import given_by_user
from orderdep.shells.explain import explain_lines
from orderdep.shells.options import (
    CHECK_OPTION,
    DEFAULT_REPORT,
    PROJECT_ARG,
    STORE_OPTION,
    Seconds,
    collect_options,
    count,
    engine_flags,
    engine_options,
    html_report_line,
    report_option,
)
from orderdep.shells.output import notice, set_result, stderr_console
from orderdep.shells.unfinished import command_argv, unfinished_lines

__all__ = ["DEFAULT_DEPS"]  # the regression commands' default too


def report_path(project: Path, report: Optional[Path]) -> Path:
    return report if report is not None else project / DEFAULT_REPORT


@cli.command()
@engine_options
@STORE_OPTION
@report_option("Report to classify and update (default PROJECT/.orderdep/report.json).")
@click.option(
    "--test",
    "tests",
    multiple=True,
    help="Only this OD test; repeatable (default: every OD test of the report).",
)
@click.option(
    "--alone-runs",
    type=count(1),
    default=10,
    show_default=True,
    help="Runs of each OD test alone to tell victim, brittle and ND apart.",
)
@click.option("--redo", is_flag=True, help="Classify again tests that are classified already.")
@click.option(
    "--budget",
    type=Seconds(),
    default=None,
    metavar="SECONDS",
    help="Time for the whole command: kinds first, then one partner of each test, all "
    "partners, cleaners, flake rates. When it runs out (or on Ctrl-C) the report says what "
    "is unfinished; rerunning the same command resumes. Default: no limit.",
)
@click.option(
    "--all-cleaners", is_flag=True, help="Find every cleaner of each polluter (default: one)."
)
@CHECK_OPTION
def classify(
    report: Optional[Path],
    tests: tuple[str, ...],
    alone_runs: int,
    redo: bool,
    budget: Optional[float],
    all_cleaners: bool,
    **params: Any,
) -> int:
    """Explain each OD test: victim or brittle, polluters, cleaners, state-setters.

    Fills the report from `orderdep detect` and prints, per OD test, a short explanation
    and the commands that reproduce it.
    """
    from orderdep.analysis.budget import Budget
    from orderdep.analysis.classify import classify as run_classify
    from orderdep.shells.commands.own_file import check_own_files
    from orderdep.shells.detect_display import DetectDisplay

    project: Path = params["project"].resolve()
    path = report_path(project, report)
    data = load_report(path, project=str(project))

    limit = Budget(budget)
    with open_engine(params, job=classify_job(params, alone_runs), budget=limit) as engine:
        with DetectDisplay(stderr_console(), limit) as display:
            result = run_classify(
                engine,
                data,
                tests or None,
                display.classify_update,
                alone_runs=alone_runs,
                redo=redo,
                budget=limit,
                all_cleaners=all_cleaners,
                jobs=params["jobs"],
            )
        if engine.reused:
            notice(
                f"orderdep: resumed: {engine.reused} order(s) reused from an earlier run of "
                f"this command, {engine.orders_run} run now"
            )
    check_own_files(params, result, limit)
    save_report(path, result)
    set_result(report_file=str(path), report=result.to_json())
    for finding in result.od_tests:
        if tests and finding.test not in tests:
            continue
        lines = explain_lines(finding, params["project"], engine_flags(params))
        click.echo("\n".join(lines))
    if result.nd_tests:
        click.echo(f"non-deterministic (not order-dependent): {', '.join(result.nd_tests)}")
    click.echo(f"report: {path}")
    click.echo(html_report_line(params["project"], report))
    for line in unfinished_lines(result, command_argv()):
        click.echo(line)
    if limit.interrupt is not None:  # the report is saved: now stop as Ctrl-C does
        raise limit.interrupt
    return 1 if result.od_tests else 0


def classify_job(params: dict[str, Any], alone_runs: int) -> str:
    """The store's job of ``orderdep classify``: the same command on the same code
    replays the orders already run (resume after the budget or Ctrl-C stopped it)."""
    project = Path(params["project"])
    where = [project_relative(p, project) for p in [params["rootdir"], *params["pythonpath"]]]
    key = json.dumps(
        {  # not where the project is: a copy of it with its store resumes too
            "pytest": [where[0], where[1:], list(params["pytest_args"])],
            "home": params.get("home", "copy"),
            "alone_runs": alone_runs,
        },
        sort_keys=True,
    )
    return f"classify/{hashlib.sha1(key.encode()).hexdigest()[:10]}"


@cli.command()
@PROJECT_ARG
@report_option("Classified report (default PROJECT/.orderdep/report.json).")
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"Where to write (default PROJECT/{DEFAULT_DEPS}); '-' prints it.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing: list the entries of the dependencies file that name tests the "
    "project no longer collects; exit code 1 when there are any (for CI).",
)
@click.option(
    "--deps",
    "deps_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"With --check: the file to check (default PROJECT/{DEFAULT_DEPS}).",
)
@collect_options
def deps(
    project: Path,
    report: Optional[Path],
    output: Optional[Path],
    check: bool,
    deps_file: Optional[Path],
    **params: Any,
) -> int:
    """Write the dependencies file (orderdep.deps/1) from a classified report.

    Positive: a brittle must run after its state-setter; negative: a victim must not run
    after its polluter. Commit it; the pytest plugin (--orderdep-deps) and
    `orderdep prioritize|select|parallelize` respect it.

    With --check: collect the project and list the stale entries instead (tests renamed
    or deleted since the file was written).
    """
    given = {"--report": report, "--output": output} if check else {"--deps": deps_file}
    if not check:
        given.update(
            {
                "--rootdir": params["rootdir"],
                "--pythonpath": params["pythonpath"],
                "--python": params["python"],
                "--pytest-arg": params["pytest_args"],
            }
        )
    # Only what the user typed (or set in ORDERDEP_* for that option) is misplaced; the
    # configuration file may set these for every command.
    names = {"--pytest-arg": "pytest_args", "--deps": "deps_file"}
    ctx = click.get_current_context()
    misplaced = [
        name
        for name, value in given.items()
        if value and given_by_user(ctx, names.get(name, name.lstrip("-")))
    ]
    if misplaced:
        needs = "cannot be used with --check" if check else "only apply with --check"
        raise UsageError(f"{', '.join(misplaced)} {needs}; see `orderdep deps --help`")
    if check:
        return check_deps(project, deps_file or project / DEFAULT_DEPS, params)
    project = project.resolve()
    data = load_report(report_path(project, report), project=str(project))
    dependencies = deps_from_report(data)
    if output is not None and str(output) == "-":
        click.echo(dump_deps(dependencies), nl=False)
        return 0
    target = output or project / DEFAULT_DEPS
    save_deps(target, dependencies)
    set_result(written=str(target), deps=json.loads(dump_deps(dependencies)))
    click.echo(f"wrote {len(dependencies)} dependencies to {target}")
    return 0


def check_deps(project: Path, path: Path, params: dict[str, Any]) -> int:
    """``deps --check``: print the entries naming tests that are not collected; 1 if any."""
    entries = load_deps(path)
    suite = collect_suite(project, params)
    collected = set(suite.ids)
    shown = shown_path(path)
    stale = [
        (d, [t for t in (d.test, d.dependee, *(d.group or ())) if t not in collected])
        for d in entries
    ]
    stale = [(d, missing) for d, missing in stale if missing]
    if not stale:
        click.echo(f"{shown}: all {len(entries)} entries name collected tests")
        return 0
    click.echo(
        f"{shown}: {len(stale)} of {len(entries)} entries name tests that are not collected:"
    )
    for d, missing in stale:
        group = f" (group {', '.join(d.group)})" if d.group else ""
        close = difflib.get_close_matches(missing[0], suite.ids, n=1, cutoff=0.8)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        click.echo(f"  {d.test}  {d.kind}  {d.dependee}{group}")
        click.echo(f"      not collected: {', '.join(missing)}{hint}")
    click.echo("fix or remove these entries (the tests were renamed or deleted)")
    return 1
