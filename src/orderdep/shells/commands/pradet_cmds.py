"""``orderdep pradet``: data-flow-guided detection (paper 001), whole or step by step.

``orderdep pradet [PROJECT]`` is ``orderdep pradet run [PROJECT]``: a group whose first
argument, when it is not one of its subcommands (run, collect, refine, explain), is
handed to ``run``.
"""

from __future__ import annotations

import difflib
import secrets
import shlex
import time
from pathlib import Path
from typing import Any, Optional

import click

from orderdep.analysis.budget import Budget
from orderdep.analysis.pradet.collection import CollectionStopped
from orderdep.analysis.pradet.datadeps import explain as explain_access
from orderdep.analysis.pradet.pipeline import (
    DEFAULT_ALONE_RUNS,
    load_collected,
    refine_collected,
    run_pradet,
    save_collected,
)
from orderdep.analysis.pradet.pipeline import collect as run_collect
from orderdep.errors import UsageError
from orderdep.shells.app import cli
from orderdep.shells.arguments import HelpGroup, argument
from orderdep.shells.commands.engine_cmds import open_engine, read_order_file
from orderdep.shells.options import (
    ALLOW_INCOMPLETE_OPTION,
    CHECK_OPTION,
    DEFAULT_REPORT,
    SEED,
    STORE_OPTION,
    Seconds,
    count,
    engine_options,
    order_file_option,
    report_option,
)
from orderdep.shells.output import notice
from orderdep.shells.pradet_progress import PradetProgress
from orderdep.shells.pradet_resume import pradet_job, refine_job, resumable, say_reused
from orderdep.shells.pradet_summary import collection_lines, finish, stopped_collecting

DEFAULT_GRAPH = Path(".orderdep") / "pradet.json"


class _RunByDefault(HelpGroup):
    """A group that runs ``run`` when its first argument is not a subcommand."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ctx.help_option_names):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@cli.group(cls=_RunByDefault)
def pradet() -> None:
    """Data-flow-guided detection (PRADET): collect data dependencies, refine them.

    \b
    orderdep pradet [PROJECT]           collect and refine (same as `pradet run`)
    orderdep pradet collect [PROJECT]   only collect: save .orderdep/pradet.json
    orderdep pradet refine [PROJECT]    refine a saved collection
    orderdep pradet explain [PROJECT] TEST
                                        what TEST read and which earlier tests wrote it

    One instrumented run of the reference order records which shared state (module
    globals, class attributes, caches, environment, files...) every test writes and
    reads; a test that reads what an earlier one wrote data-depends on it. Only those
    dependencies are then tested, each by one schedule that violates it alone. Manifest
    dependencies go into the report as OD tests; `orderdep deps` turns them into the
    dependencies file.
    """


REPORT_OPTION = report_option(
    "Report to write or merge into (default PROJECT/.orderdep/report.json)."
)
GRAPH_OPTION = click.option(
    "--graph",
    "graph_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Collection file (default PROJECT/.orderdep/pradet.json).",
)
ORDER_OPTION = order_file_option(
    "Reference order: one test id per line (or a JSON list); default the original order."
)
REVERSE_OPTION = click.option(
    "--also-reverse/--no-also-reverse",
    default=True,
    show_default=True,
    help="Also collect the reversed order: finds victims that run before their polluters.",
)
EXTRA_OPTION = click.option(
    "--extra-orders",
    type=count(0),
    default=0,
    show_default=True,
    help="Also collect this many random class-compatible orders (finds dependencies that "
    "a cleaner or an earlier no-op write hides in both the order and its reverse).",
)
SEED_OPTION = click.option(
    "--seed",
    type=SEED,
    default=None,
    help="Seed of the random extra orders (default: a random one, printed).",
)
CONFIRM_OPTION = click.option(
    "--confirm-runs",
    type=count(0),
    default=1,
    show_default=True,
    help="Re-runs of each manifest dependency's orders before it is reported (0: none).",
)
ALONE_OPTION = click.option(
    "--alone-runs",
    type=count(1),
    default=DEFAULT_ALONE_RUNS,
    show_default=True,
    help="Runs of each dependent test alone (one more per doubling of the candidate "
    "dependencies checked for it); one whose outcome changes is ND, not OD.",
)


BUDGET_OPTION = click.option(
    "--budget",
    type=Seconds(),
    default=None,
    help="Seconds for the whole command: refinement starts no schedule after them (the "
    "data dependencies left are reported as not tested) and alternatives and search are "
    "skipped; what it found is still confirmed (default: no limit).",
)


def _paths(
    params: dict[str, Any], report: Optional[Path], graph: Optional[Path]
) -> tuple[Path, Path]:
    root = Path(params["project"]).resolve()
    return report or root / DEFAULT_REPORT, graph or root / DEFAULT_GRAPH


def _seed(seed: Optional[int], extra_orders: int) -> int:
    """The seed of the extra orders: given, or drawn and printed so it can be given."""
    if seed is None:
        seed = secrets.randbelow(2**31) if extra_orders else 0
        if extra_orders:
            notice(f"orderdep: seed {seed} (rerun with --seed {seed})")
    return seed


def _order(order_file: Optional[Path]) -> Optional[list[str]]:
    if order_file is None:
        return None
    order = read_order_file(order_file)
    if not order:
        raise UsageError(f"--order-file {str(order_file)!r} names no tests; give one id per line")
    return order


# -- the commands --------------------------------------------------------------------------
@pradet.command("run")
@engine_options
@CHECK_OPTION
@STORE_OPTION
@REPORT_OPTION
@GRAPH_OPTION
@ORDER_OPTION
@REVERSE_OPTION
@EXTRA_OPTION
@SEED_OPTION
@CONFIRM_OPTION
@ALONE_OPTION
@BUDGET_OPTION
@ALLOW_INCOMPLETE_OPTION
def run_cmd(
    budget: Optional[float],
    report: Optional[Path],
    graph_file: Optional[Path],
    order_file: Optional[Path],
    also_reverse: bool,
    extra_orders: int,
    seed: Optional[int],
    confirm_runs: int,
    alone_runs: int,
    **params: Any,
) -> int:
    """Collect data dependencies and refine them into manifest ones (the default).

    Writes the manifest dependencies into the report as OD tests (victims with their
    polluters, brittles with their state-setters, each with a failing and a passing
    order) and the collection to .orderdep/pradet.json. Exit code 1 when it finds any;
    3 when it finds none but the budget left data dependencies untested (see
    --allow-incomplete).
    """
    report_path, graph_path = _paths(params, report, graph_file)
    project = Path(params["project"]).resolve()
    seed = _seed(seed, extra_orders)
    reference = _order(order_file)
    job = pradet_job(params, reference, also_reverse, extra_orders, seed)
    limit = Budget(budget)  # from the command's start: the fork check's time is in it
    with open_engine(params, job=job, budget=limit) as engine, PradetProgress() as progress:
        code = getattr(getattr(engine, "store", None), "code", "")
        saved = resumable(graph_path, project, job, code)
        if saved is not None:
            progress.notice(
                f"resumed: refining the collection {str(graph_path)!r} of an "
                "earlier run of this command (same code, same orders)"
            )
            deadline = _deadline(limit)
            result = refine_collected(
                engine,
                saved,
                jobs=params["jobs"],
                confirm_runs=confirm_runs,
                alone_runs=alone_runs,
                on_progress=progress.update,
                notice=progress.notice,
                deadline=deadline,
            )
        else:
            try:
                result = run_pradet(
                    engine,
                    reference,
                    also_reverse=also_reverse,
                    extra_orders=extra_orders,
                    seed=seed,
                    jobs=params["jobs"],
                    confirm_runs=confirm_runs,
                    alone_runs=alone_runs,
                    project=str(project),
                    on_progress=progress.update,
                    notice=progress.notice,
                    budget_seconds=limit.left(),
                )
            except CollectionStopped as stop:
                return stopped_collecting(stop, params, budget)
            result.collected.job, result.collected.code = job, code
        say_reused(engine, progress.notice)
    save_collected(graph_path, result.collected)
    for line in collection_lines(result.collected):
        click.echo(line)
    return finish(result, params, report, report_path)


@pradet.command("collect")
@engine_options
@CHECK_OPTION
@STORE_OPTION
@GRAPH_OPTION
@ORDER_OPTION
@REVERSE_OPTION
@EXTRA_OPTION
@SEED_OPTION
def collect_cmd(
    graph_file: Optional[Path],
    order_file: Optional[Path],
    also_reverse: bool,
    extra_orders: int,
    seed: Optional[int],
    **params: Any,
) -> int:
    """Only collect: run the reference order (and its reverse) under the state probe and
    save what every test wrote and read (default .orderdep/pradet.json)."""
    _, graph_path = _paths(params, None, graph_file)
    project = Path(params["project"]).resolve()
    seed = _seed(seed, extra_orders)
    with open_engine(params, job=None) as engine:
        collected = run_collect(
            engine,
            _order(order_file),
            also_reverse=also_reverse,
            extra_orders=extra_orders,
            seed=seed,
            project=str(project),
            jobs=params["jobs"],
        )
    save_collected(graph_path, collected)
    for line in collection_lines(collected):
        click.echo(line)
    click.echo(f"collection: {graph_path}")
    parts = ["orderdep", "pradet", "refine", str(params["project"])]
    if graph_file is not None:
        parts += ["--graph", str(graph_file)]
    if params["store_path"] is not None:
        parts += ["--store", str(params["store_path"])]
    click.echo(f"refine it: {shlex.join(parts)}")
    return 0


@pradet.command("refine")
@engine_options
@CHECK_OPTION
@STORE_OPTION
@REPORT_OPTION
@GRAPH_OPTION
@CONFIRM_OPTION
@ALONE_OPTION
@BUDGET_OPTION
@ALLOW_INCOMPLETE_OPTION
def refine_cmd(
    budget: Optional[float],
    report: Optional[Path],
    graph_file: Optional[Path],
    confirm_runs: int,
    alone_runs: int,
    **params: Any,
) -> int:
    """Refine a saved collection into manifest dependencies and write them to the report."""
    report_path, graph_path = _paths(params, report, graph_file)
    project = Path(params["project"]).resolve()
    collected = load_collected(graph_path, project=str(project))
    limit = Budget(budget)
    engine = open_engine(params, job=refine_job(graph_path), budget=limit)
    with engine, PradetProgress() as progress:
        deadline = _deadline(limit)
        result = refine_collected(
            engine,
            collected,
            jobs=params["jobs"],
            confirm_runs=confirm_runs,
            alone_runs=alone_runs,
            on_progress=progress.update,
            notice=progress.notice,
            deadline=deadline,
        )
        say_reused(engine, progress.notice)
    for line in collection_lines(collected):
        click.echo(line)
    return finish(result, params, report, report_path)


def _deadline(limit: Budget) -> Optional[float]:
    """The :func:`time.monotonic` time at which ``limit`` ends (None: no budget)."""
    left = limit.left()
    return None if left is None else time.monotonic() + left


@pradet.command("explain")
@argument(
    "args",
    nargs=-1,
    required=True,
    metavar="[PROJECT] TEST",
    help="The project directory (default: the current one) and the node id of the test.",
)
@GRAPH_OPTION
def explain_cmd(args: tuple[str, ...], graph_file: Optional[Path]) -> int:
    """The roots TEST read in each collected run and the earlier tests that wrote them."""
    if len(args) > 2:
        raise UsageError(f"expected [PROJECT] TEST, got {len(args)} arguments: {list(args)!r}")
    project_arg = args[0] if len(args) == 2 else "."
    test = args[-1]
    project = Path(project_arg).resolve()
    _, graph_path = _paths({"project": project}, None, graph_file)
    collected = load_collected(graph_path, project=str(project))
    if test not in collected.tests:
        close = difflib.get_close_matches(test, collected.tests, n=3, cutoff=0.5)
        hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
        raise UsageError(
            f"{test!r} is not a test of the collection{hint}; "
            "run `orderdep collect` to list the test ids"
        )
    for c in collected.collections:
        if test not in c.order:
            click.echo(f"{c.source} order: {test} did not run")
            continue
        e = explain_access(c.accesses, test)
        click.echo(f"{c.source} order, position {e.index + 1} of {len(c.order)}: {test}")
        if e.reads:
            click.echo("  read, written earlier by (last writer last):")
            for root, writers in sorted(e.reads.items()):
                click.echo(f"    {root}  <-  {', '.join(writers)}")
        else:
            click.echo("  read nothing an earlier test wrote")
        if e.unwritten_reads:
            click.echo(f"  read, written by no earlier test: {len(e.unwritten_reads)} root(s)")
        if e.writes:
            click.echo(f"  wrote: {', '.join(e.writes)}")
        # every earlier writer, as in the graph refinement tests (all_writers)
        dependees = sorted(
            {w for ws in e.reads.values() for w in ws if w != test}, key=c.order.index
        )
        if dependees:
            click.echo(f"  data-depends on: {', '.join(dependees)}")
    return 0
