"""``orderdep classify`` and ``orderdep deps``: explain OD tests and write the dependencies file."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import click

from orderdep.core.depsfile import deps_from_report, dump_deps, save_deps
from orderdep.core.report import load_report, save_report
from orderdep.shells.app import cli
from orderdep.shells.commands.engine_cmds import open_engine
from orderdep.shells.explain import explain_lines
from orderdep.shells.options import (
    DEFAULT_REPORT,
    PROJECT_ARG,
    engine_options,
    html_report_line,
)

DEFAULT_DEPS = "orderdep-deps.json"


def report_path(project: Path, report: Optional[Path]) -> Path:
    return report if report is not None else project / DEFAULT_REPORT


@cli.command()
@engine_options
@click.option(
    "--report",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Report to classify and update (default PROJECT/.orderdep/report.json).",
)
@click.option("--test", "tests", multiple=True, help="Only this OD test (repeatable).")
@click.option(
    "--alone-runs",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Runs of each OD test alone to tell victim, brittle and ND apart.",
)
@click.option("--redo", is_flag=True, help="Classify again tests that are classified already.")
def classify(
    report: Optional[Path], tests: tuple[str, ...], alone_runs: int, redo: bool, **params: Any
) -> int:
    """Explain each OD test: victim or brittle, polluters, cleaners, state-setters.

    Fills the report from `orderdep detect` and prints, per OD test, a short explanation
    and the commands that reproduce it.
    """
    from orderdep.analysis.classify import ClassifyProgress
    from orderdep.analysis.classify import classify as run_classify

    project: Path = params["project"].resolve()
    path = report_path(project, report)
    data = load_report(path, project=str(project))

    def progress(p: ClassifyProgress) -> None:
        if p.step == "done":
            click.echo(f"[{p.index}/{p.total}] {p.message}", err=True)

    with open_engine(params, job=None) as engine:
        result = run_classify(
            engine, data, tests or None, progress, alone_runs=alone_runs, redo=redo
        )
    save_report(path, result)
    for finding in result.od_tests:
        if tests and finding.test not in tests:
            continue
        click.echo("\n".join(explain_lines(finding, params["project"])))
    if result.nd_tests:
        click.echo(f"non-deterministic (not order-dependent): {', '.join(result.nd_tests)}")
    click.echo(f"report: {path}")
    click.echo(html_report_line(params["project"], report))
    return 1 if result.od_tests else 0


@cli.command()
@PROJECT_ARG
@click.option(
    "--report",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Classified report (default PROJECT/.orderdep/report.json).",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"Where to write (default PROJECT/{DEFAULT_DEPS}); '-' prints it.",
)
def deps(project: Path, report: Optional[Path], output: Optional[Path]) -> int:
    """Write the dependencies file (orderdep.deps/1) from a classified report.

    Positive: a brittle must run after its state-setter; negative: a victim must not run
    after its polluter. Commit it; the pytest plugin (--orderdep-deps) and
    `orderdep prioritize|select|parallelize` respect it.
    """
    project = project.resolve()
    data = load_report(report_path(project, report), project=str(project))
    dependencies = deps_from_report(data)
    if output is not None and str(output) == "-":
        click.echo(dump_deps(dependencies), nl=False)
        return 0
    target = output or project / DEFAULT_DEPS
    save_deps(target, dependencies)
    click.echo(f"wrote {len(dependencies)} dependencies to {target}")
    return 0
