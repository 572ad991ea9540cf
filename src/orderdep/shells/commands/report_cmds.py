"""``orderdep report``: render the project's report as one self-contained HTML file."""

from __future__ import annotations

import shlex
import webbrowser
from pathlib import Path
from typing import Optional

import click

from orderdep.errors import UsageError
from orderdep.shells.app import cli
from orderdep.shells.options import DEFAULT_REPORT, PROJECT_ARG, default_html, report_option
from orderdep.shells.output import set_result


@cli.command("report")
@PROJECT_ARG
@report_option("Report to render (default PROJECT/.orderdep/report.json).", "report_file")
@click.option(
    "--html",
    "html_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the page (default: the report's path with .html, "
    "PROJECT/.orderdep/report.html).",
)
@click.option("--open", "open_page", is_flag=True, help="Open the page in a web browser.")
def report(
    project: Path, report_file: Optional[Path], html_file: Optional[Path], open_page: bool
) -> int:
    """Write the report as one HTML page: summary, dependency graph, OD tests, patches.

    The page needs no network: its styles, script and data are inside it. It also shows
    what `orderdep pradet`, `orderdep fix` and `orderdep evaluate` left in .orderdep/.
    """
    try:
        from orderdep.shells.html import gather, render_html
    except ImportError as exc:
        raise UsageError(
            f"the HTML report needs Jinja2 ({exc}); install orderdep with its html extra: "
            f"pip install 'orderdep[html]'"
        ) from None

    path = report_file if report_file is not None else project.resolve() / DEFAULT_REPORT
    if not path.exists():
        raise UsageError(
            f"no report at {str(path)!r}: run `orderdep detect {shlex.quote(str(project))}` "
            "first (add --classify to explain the OD tests)"
        )
    inputs = gather(project, report_file)
    target = html_file if html_file is not None else default_html(project, report_file)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_html(inputs), encoding="utf-8")
    od = len(inputs.report.od_tests)
    set_result(html=str(target), od_tests=od)
    click.echo(f"wrote {target} ({od} order-dependent test{'' if od == 1 else 's'})")
    if open_page:
        webbrowser.open(target.resolve().as_uri())
    return 0
