"""What ``orderdep pradet`` prints: the collection, the refinement and the manifest
dependencies with the commands that reproduce them; and the report it merges them into."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

import click

from orderdep.analysis.pradet.collection import CollectionStopped
from orderdep.analysis.pradet.datadeps import CROWDED
from orderdep.analysis.pradet.pipeline import Collected, PradetResult, merge_report
from orderdep.core.report import Report, load_report, save_report
from orderdep.shells.commands.detect_cmds import reproduce_command
from orderdep.shells.exitcodes import verdict_code
from orderdep.shells.options import html_report_line
from orderdep.shells.unfinished import command_argv, resume_command

SHOWN_ROOTS = 5
SHOWN_DEPS = 20


def load_existing(path: Path, project: Path) -> Optional[Report]:
    return load_report(path, project=str(project)) if path.exists() else None


def collection_lines(collected: Collected) -> list[str]:
    runs = len(collected.collections)
    wall = sum(c.wall_seconds for c in collected.collections)
    names = [c.source for c in collected.collections]
    sources = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    if collected.seed is not None:
        sources += f"; seed {collected.seed}"
    lines = [
        f"PRADET: {len(collected.tests)} tests; reference order: {collected.reference}",
        f"collection: {runs} probed run(s) ({sources}), "
        f"{collected.executions} test executions, {wall:.1f}s",
    ]
    top = collected.most_written(SHOWN_ROOTS)
    if top:
        lines.append("roots with most writers:")
        for root, writers, value in top:
            about = f"  = {value}" if value else ""
            lines.append(f"  {writers:>4} writer(s)  {root}{about}")
    deps = collected.data_dependencies()
    pairs = {(d["dependent"], d["dependee"]) for d in deps}
    per = ", ".join(
        f"{c.source} {sum(1 for d in deps if d['source'] == c.source)}"
        for c in collected.collections
    )
    lines.append(f"data dependencies: {len(pairs)} test pairs ({per})")
    crowded: dict[str, int] = {}
    for c in collected.collections:
        for root, n in c.graph().graph.get("crowded", {}).items():
            crowded[root] = max(n, crowded.get(root, 0))
    if crowded:
        shown = ", ".join(f"{r} ({n} writers)" for r, n in list(crowded.items())[:SHOWN_ROOTS])
        more = f" and {len(crowded) - SHOWN_ROOTS} more" if len(crowded) > SHOWN_ROOTS else ""
        lines.append(f"written by more than {CROWDED} tests, so each reader is linked to the "
                     f"last writer only: {shown}{more}")  # fmt: skip
    return lines


def result_lines(result: PradetResult, params: dict[str, Any], report: Optional[Path]) -> list[str]:
    refined = result.refined
    lines = [
        f"refinement: {refined.orders_run} schedule(s), {refined.executions} test executions; "
        f"{len(refined.removed)} removed, {len(refined.untestable)} untestable"
        + (f", {len(refined.untested)} not tested (budget)" if refined.untested else ""),
    ]
    manifest = result.manifest
    conditional = len(result.evidence) - len(manifest)
    extra = []
    if conditional:
        extra.append(f"{conditional} conditional")
    if result.unconfirmed:
        extra.append(f"{len(result.unconfirmed)} not reproduced")
    note = f" ({', '.join(extra)})" if extra else ""
    lines.append(f"manifest dependencies confirmed: {len(manifest)}{note}")
    if result.flaky:
        lines.append(f"non-deterministic, dependencies dropped: {', '.join(result.flaky)}")
    for e in manifest[:SHOWN_DEPS]:
        m = e.dependency
        verb = "fails after" if m.kind == "victim" else "needs"
        via = f"  via {', '.join(m.roots)}" if m.roots else ""
        lines.append(f"  {m.kind:<7}  {m.dependent}  {verb}  {m.dependee}{via}")
        note_text = f"failing order of {m.dependent} (orderdep pradet)"
        order = list(m.failing_order)
        command = reproduce_command(params, m.dependent, order, note_text, report)
        lines.append(f"           reproduce: {command}")
    if len(manifest) > SHOWN_DEPS:
        lines.append(f"  ... and {len(manifest) - SHOWN_DEPS} more (see the report)")
    ex = result.executions
    parts = ", ".join(f"{k} {v}" for k, v in ex.items() if k != "total")
    lines.append(f"executions: {ex['total']} in total ({parts}) in {result.wall_seconds:.1f}s")
    return lines


def deps_command(params: dict[str, Any], report: Optional[Path]) -> str:
    parts = ["orderdep", "deps", str(params["project"])]
    if report is not None:
        parts += ["--report", str(report)]
    return shlex.join(parts)


def finish(result: PradetResult, params: dict[str, Any], report: Optional[Path], path: Path) -> int:
    merged = merge_report(load_existing(path, Path(params["project"]).resolve()), result)
    save_report(path, merged)
    for line in result_lines(result, params, report):
        click.echo(line)
    click.echo(f"report: {path}")
    click.echo(html_report_line(Path(params["project"]), report))
    if result.manifest:
        click.echo(f"write the dependencies file: {deps_command(params, report)}")
    untested = len(result.refined.untested)
    if untested:
        found = (
            "what was tested" if result.manifest else "no manifest dependency in what was tested"
        )
        click.echo(
            f"orderdep: the refinement did not run whole: {untested} data dependencies not "
            f"tested (budget); {found} is not a clean result"
        )
        click.echo("orderdep: the collection is reused; a larger --budget gets further")
        click.echo(f"orderdep: to go on where it stopped, rerun: {resume_command(command_argv())}")
    allow = bool(params.get("allow_incomplete"))
    return verdict_code(bool(result.manifest), not untested, allow)


def stopped_collecting(
    stop: CollectionStopped, params: dict[str, Any], budget: Optional[float]
) -> int:
    """What ``pradet`` says when its budget ran out before the collection ended; exit 3
    (0 with ``--allow-incomplete``): no dependency was tested, so nothing is clean."""
    click.echo(f"orderdep: {stop}")
    argv = command_argv()
    if budget is not None:
        factor = 2 * stop.total / stop.ran if stop.ran else 4
        larger = f"{budget * factor:.0f}"
        argv = larger_budget(argv, larger)
    click.echo(
        "orderdep: a finished collection is saved and reused by later runs; give it a "
        f"budget the probed runs fit in: {resume_command(argv)}"
    )
    return verdict_code(False, False, bool(params.get("allow_incomplete")))


def larger_budget(argv: Sequence[str], seconds: str) -> list[str]:
    """``argv`` with its ``--budget`` (``--budget S`` or ``--budget=S``) set to ``seconds``."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "--budget":
            skip = True
            continue
        if not arg.startswith("--budget="):
            out.append(arg)
    return [*out, "--budget", seconds]
