"""``orderdep flakerate``: the chance each classified OD test fails in a random order."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Optional

import click

from orderdep.core.report import load_report, save_report
from orderdep.core.suite import GROUP_LEVELS, GroupLevel, Suite
from orderdep.errors import UsageError
from orderdep.shells.app import cli
from orderdep.shells.options import DEFAULT_REPORT, PROJECT_ARG, SEED, count, report_option
from orderdep.shells.output import set_result


@cli.command()
@PROJECT_ARG
@report_option(
    "Classified report to update (default PROJECT/.orderdep/report.json).", "report_file"
)
@click.option(
    "--samples",
    type=count(1),
    default=20_000,
    show_default=True,
    help="Sampled orders per rate when no closed formula applies.",
)
@click.option("--seed", type=SEED, default=None, help="Sampling seed (default: the report's).")
@click.option(
    "--group",
    type=click.Choice(GROUP_LEVELS),
    default=None,
    help="Groups of 'grouped' orders (default: the level detect used).",
)
def flakerate(
    project: Path,
    report_file: Optional[Path],
    samples: int,
    seed: Optional[int],
    group: Optional[GroupLevel],
) -> int:
    """Fill in the flake rates of the report's classified OD tests.

    all: the chance it fails in a random order; grouped: in a random order keeping
    groups together; reverse: the chance the reverse of a passing grouped order fails.
    """
    from orderdep.analysis.classify import fill_flake_rates

    root = project.resolve()
    path = report_file or root / DEFAULT_REPORT
    report = load_report(path, project=str(root))
    if not report.od_tests:
        click.echo("the report has no order-dependent tests; nothing to rate")
        return 0
    classified = [f for f in report.od_tests if f.classified]
    if not classified:
        raise UsageError(
            f"none of the report's {len(report.od_tests)} OD test(s) is classified yet; "
            f"run `orderdep classify {shlex.quote(str(project))}` "
            "(or `orderdep detect --classify`) first"
        )
    used = report.stats.extras.get("group")
    level: GroupLevel = group or (used if used in GROUP_LEVELS else "class")
    seed = report.stats.seed if seed is None else seed
    suite = Suite.from_ids(report.tests)
    for finding in classified:
        fill_flake_rates(finding, suite, report.tests, seed, samples, level)
    save_report(path, report)
    set_result(report_file=str(path), flake_rates={f.test: f.flake_rate for f in classified})
    width = max(len(f.test) for f in classified)
    click.echo(f"{'test':<{width}}  {'all':>7}  {'grouped':>7}  {'reverse':>7}")
    for f in classified:
        rates = [f.flake_rate.get(k) for k in ("all", "grouped", "reverse")]
        shown = ["      -" if r is None else f"{r * 100:6.1f}%" for r in rates]
        click.echo(f"{f.test:<{width}}  {'  '.join(shown)}")
    skipped = len(report.od_tests) - len(classified)
    if skipped:
        click.echo(f"{skipped} unclassified OD test(s) skipped (run `orderdep classify`)")
    click.echo(f"report: {path}")
    return 0
