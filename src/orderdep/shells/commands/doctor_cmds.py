"""``orderdep doctor``: does the fast fork runner behave like a fresh pytest here?"""

from __future__ import annotations

import random
import shlex
from typing import Any, Optional

import click

from orderdep.analysis.fidelity import VerdictCache, check, config_key
from orderdep.core.fidelity import Mismatch
from orderdep.errors import UsageError
from orderdep.shells.app import cli
from orderdep.shells.commands.engine_cmds import fidelity_cache_path
from orderdep.shells.options import engine_config, engine_flags, engine_options
from orderdep.shells.output import notice

SHOWN = 10


def _command(params: dict[str, Any], m: Mismatch, runner: str) -> str:
    """``orderdep run`` of the mismatching order under ``runner``, with the user's options."""
    flags = engine_flags({**params, "runner": runner if runner != "fork" else None})
    return shlex.join(["orderdep", "run", str(params["project"]), *flags, *m.order])


def mismatch_lines(params: dict[str, Any], mismatches: list[Mismatch]) -> list[str]:
    lines = []
    for m in mismatches[:SHOWN]:
        shown = ", ".join(f"{name} {outcome}" for name, outcome in m.outcomes.items())
        lines.append(f"  {m.test}  [{m.label}, position {m.position}]: {shown}")
        for name, message in m.messages.items():
            if message:
                lines.append(f"      {name}: {message.splitlines()[0][:160]}")
        if len(m.order) <= 8:
            lines.append(f"      compare: {_command(params, m, 'fork')}")
            lines.append(f"          and: {_command(params, m, 'subprocess')}")
    if len(mismatches) > SHOWN:
        lines.append(f"  ... and {len(mismatches) - SHOWN} more")
    return lines


@cli.command()
@engine_options
@click.option(
    "--budget",
    type=click.FloatRange(min=0, min_open=True),
    default=300.0,
    show_default=True,
    help="Seconds to spend; the sample is cut short when they run out.",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed of the random orders (default: a random one, printed).",
)
@click.option(
    "--random",
    "random_orders",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="How many random orders to compare.",
)
@click.option(
    "--singles",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="How many tests to compare when each runs alone.",
)
def doctor(
    budget: float, seed: Optional[int], random_orders: int, singles: int, **params: Any
) -> int:
    """Check that orderdep's runners give the outcomes a fresh `python -m pytest` gives.

    Runs the original order, its reverse, random orders and single tests under the fork
    runner, the subprocess runner and plain pytest (one fresh process per order), and
    lists every test whose outcome differs, with the commands that show it. Exit code 1
    when any differs.
    """
    if params.get("dask_scheduler"):
        raise UsageError(
            f"--dask {params['dask_scheduler']!r}: doctor checks the runners of the machine "
            "it runs on; run it without --dask on the machine to check"
        )
    seed = random.SystemRandom().randrange(1 << 32) if seed is None else seed
    config = engine_config(params)
    notice(f"orderdep doctor: seed {seed}, budget {budget:g}s")
    report = check(
        config,
        seed=seed,
        budget=budget,
        random_orders=random_orders,
        singles=singles,
        progress=notice,
    )
    VerdictCache(fidelity_cache_path(config.project, None)).put(config_key(config), report)
    runners = ", ".join(report.runners)
    done = f"{report.orders} of {report.planned} orders ({report.positions} positions)"
    if report.faithful:
        click.echo(f"no mismatch: {done} gave the same outcomes under {runners}")
        if not report.complete:
            click.echo(f"the budget ran out; rerun with a larger --budget (now {budget:g}s)")
        return 0
    tests = len({m.test for m in report.mismatches})
    click.echo(f"{len(report.mismatches)} mismatch(es) in {tests} test(s): {done} under {runners}")
    for line in mismatch_lines(params, report.mismatches):
        click.echo(line)
    click.echo(
        "orderdep trusts fresh processes over the fork runner: detect, classify, pradet, "
        "debug and fix will use the subprocess runner on this code version."
    )
    return 1
