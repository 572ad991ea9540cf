"""``orderdep debug``: name the shared state (roots) that makes an OD test fail; and what
``fix`` shares with it (the report it reads, progress lines, how a root is printed)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Optional

import click

from orderdep.analysis.repair.locate.root_info import DebugResult, RootInfo
from orderdep.core.report import Report, load_report
from orderdep.shells.app import cli
from orderdep.shells.commands.engine_cmds import open_engine
from orderdep.shells.options import (
    CHECK_OPTION,
    DEFAULT_REPORT,
    engine_flags,
    engine_options,
    report_option,
)
from orderdep.shells.output import notice

MAX_SHOWN_ROOTS = 20

REPORT_OPTION = report_option("Classified report (default PROJECT/.orderdep/report.json).")


def progress_line(message: str) -> None:
    notice(f"  .. {message}")


def report_file(project: Path, report: Optional[Path]) -> Path:
    return report if report is not None else project / DEFAULT_REPORT


def load_for(project: Path, report: Optional[Path], required: bool) -> Optional[Report]:
    path = report_file(project, report)
    if report is None and not path.exists() and not required:
        return None
    return load_report(path, project=str(project))


def root_lines(root: RootInfo) -> list[str]:
    """``name: change`` lines for one root (sub-path changes attach to the name)."""
    out = []
    for change in root.changes or ("differs",):
        sep = "" if change.startswith(("[", ".")) else ": "
        out.append(f"{root.name}{sep}{change}")
    if root.aliases:
        out[-1] += f" (also named {', '.join(root.aliases)})"
    return out


def debug_lines(result: DebugResult, project: Path, params: dict[str, Any]) -> list[str]:
    test = result.test
    lines = [f"debugging {test} ({result.kind})"]
    f_word, p_word = "fails", "passes"
    lines.append(f"failing order ({f_word}): {' -> '.join(result.failing_order)}")
    lines.append(f"passing order ({p_word}): {' -> '.join(result.passing_order)}")
    lines.append(
        f"captured {result.captured} roots right before the test; "
        f"{len(result.differing)} differ between the two orders:"
    )
    culprits = set(result.polluted or result.together)
    label = "polluted" if result.kind == "victim" else "needed"
    shown = sorted(result.differing, key=lambda r: r.name not in culprits)[:MAX_SHOWN_ROOTS]
    for root in shown:
        mark = f"{label:<9}" if root.name in culprits else " " * 9
        for i, line in enumerate(root_lines(root)):
            lines.append(f"  {mark if i == 0 else ' ' * 9} {line}")
    if len(result.differing) > len(shown):
        lines.append(f"  ... and {len(result.differing) - len(shown)} more")
    if result.polluted:
        effect = (
            "makes it pass in the failing order"
            if result.kind == "victim"
            else "back to its value before the state-setter makes it fail in the passing order"
        )
        what = "putting its passing value back" if result.kind == "victim" else "putting it"
        lines.append(f"{label}: {', '.join(result.polluted)} ({what} {effect})")
    elif result.together:
        lines.append(f"{label} together: {', '.join(result.together)} (no one of them alone)")
    else:
        lines.append(f"no {label} root found")
    lines += [f"note: {n}" for n in result.notes]
    for name, why in sorted(result.unrestorable.items()):
        lines.append(f"note: could not restore {name}: {why}")
    run = ["orderdep", "run", str(project), *engine_flags(params)]
    if any(t.startswith("-") for t in result.failing_order):
        run.append("--")
    lines.append(f"reproduce: {shlex.join([*run, *result.failing_order])}")
    return lines


@cli.command()
@engine_options
@click.option("--test", "test", required=True, help="The OD test to debug.")
@click.option(
    "--polluter",
    "polluters",
    multiple=True,
    help="Its polluter (a state-setter, for a brittle); repeat for a group, in order. "
    "Default: from the report, else what runs before it in the original order.",
)
@REPORT_OPTION
@CHECK_OPTION
def debug(test: str, polluters: tuple[str, ...], report: Optional[Path], **params: Any) -> int:
    """Name the shared state (roots) that makes an OD test fail.

    Captures every root right before the test in its failing and passing orders, diffs
    them, and restores the differing roots one at a time. Exit code 1 (the test is
    order-dependent: a finding), whether or not a polluted root was named.
    """
    from orderdep.analysis.repair.locate.debugger import debug as run_debug
    from orderdep.analysis.repair.locate.debugger import finding_for, orders_for

    project: Path = params["project"].resolve()
    data = load_for(project, report, required=report is not None)
    with open_engine(params, store=False) as engine:
        engine.check([test, *polluters])
        finding = finding_for(
            engine, test, polluters, data.finding(test) if data is not None else None
        )
        kind, failing, passing = orders_for(finding)
        result = run_debug(
            engine,
            test,
            kind=kind,
            failing_order=failing,
            passing_order=passing,
            progress=progress_line,
        )
    lines = debug_lines(result, params["project"], params)
    if result.found:
        again = ["orderdep", "fix", str(params["project"]), "--test", test]
        again += [a for p in polluters for a in ("--polluter", p)]
        if report is not None:
            again += ["--report", str(report)]
        lines.append(f"repair: {shlex.join([*again, *engine_flags(params)])}")
    click.echo("\n".join(lines))
    return 1  # an order-dependent test, as detect says for its findings
