"""``orderdep doctor``: does the fast fork runner behave like a fresh pytest here?"""

from __future__ import annotations

import math
import random
import shlex
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

import click

from orderdep.analysis.fidelity import VerdictCache, check, config_key
from orderdep.core.fidelity import (
    FidelityReport,
    Mismatch,
    SampleCost,
    SampleOrder,
    estimate_seconds,
)
from orderdep.engine.store import recorded_walls
from orderdep.errors import UsageError
from orderdep.shells.app import cli
from orderdep.shells.commands.engine_cmds import fidelity_cache_path, store_path
from orderdep.shells.exitcodes import verdict_code
from orderdep.shells.options import (
    ALLOW_INCOMPLETE_OPTION,
    engine_config,
    engine_flags,
    engine_options,
)
from orderdep.shells.output import notice, set_result
from orderdep.shells.unfinished import command_argv, resume_command

SHOWN = 10
# The budget the go-on command suggests: the estimated time of the whole check, with
# this margin (an estimate, not a bound), at least twice the budget that ran out.
MARGIN = 1.5


def _command(params: dict[str, Any], m: Mismatch, runner: str) -> str:
    """``orderdep run`` of the mismatching order under ``runner``, with the user's options."""
    flags = engine_flags(
        {**params, "runner": runner if runner not in ("fork", "prefork") else None}
    )
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
    help="Seconds to spend, collection included; when they run out before the whole "
    "sample is checked, that is no clean result (exit 3, with the command that checks it all).",
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
    default=2,
    show_default=True,
    help="How many random orders to compare (a thorough check: --random 5 --singles 20).",
)
@click.option(
    "--singles",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="How many tests to compare when each runs alone.",
)
@ALLOW_INCOMPLETE_OPTION
def doctor(
    budget: float,
    seed: Optional[int],
    random_orders: int,
    singles: int,
    allow_incomplete: bool,
    **params: Any,
) -> int:
    """Check that orderdep's runners give the outcomes a fresh `python -m pytest` gives.

    Runs the original order, its reverse, random orders and single tests under the fork
    runner, the subprocess runner and plain pytest (one fresh process per order), and
    lists every test whose outcome differs, with the commands that show it. Says what
    the sample costs before it starts, and how much of it was checked. Exit code 1 when
    any outcome differs, 3 when the budget ran out before the whole sample was checked
    (with the command that checks it all), 0 when all of it agreed.

    With -j 2 or 3 the runners of each order run side by side, each in its own copy of
    the project (for suites whose tests may run in parallel).
    """
    if params.get("dask_scheduler"):
        raise UsageError(
            f"--dask {params['dask_scheduler']!r}: doctor checks the runners of the machine "
            "it runs on; run it without --dask on the machine to check"
        )
    seed = random.SystemRandom().randrange(1 << 32) if seed is None else seed
    config = engine_config(params)
    notice(f"orderdep doctor: seed {seed}, budget {budget:g}s")
    started = time.monotonic()
    plan = _Plan(config.project, params.get("store_path"), budget, started)
    report = check(
        config,
        seed=seed,
        budget=budget,
        random_orders=random_orders,
        singles=singles,
        side_by_side=min(3, int(params.get("jobs") or 1)),
        progress=notice,
        on_plan=plan.announce,
        on_order=plan.priced,
    )
    go_on = None if report.complete else _go_on(budget, seed, plan, time.monotonic() - started)
    if report.complete or not report.faithful:
        # A partial sample that agreed is no verdict: detect checks the fork runner itself.
        cache = VerdictCache(fidelity_cache_path(config.project, params.get("store_path")))
        cache.put(config_key(config), report)
    set_result(
        seed=seed,
        orders=report.orders,
        planned=report.planned,
        positions=report.positions,
        planned_positions=report.planned_positions,
        complete=report.complete,
        runners=report.runners,
        mismatches=[m.to_json() for m in report.mismatches],
        go_on=go_on,
    )
    for line in _verdict_lines(params, report, go_on):
        click.echo(line)
    return verdict_code(not report.faithful, report.complete, allow_incomplete)


def _checked(report: FidelityReport) -> str:
    return (
        f"{report.orders} of {report.planned} orders ({report.positions} of "
        f"{report.planned_positions} positions)"
    )


def _verdict_lines(
    params: dict[str, Any], report: FidelityReport, go_on: Optional[str]
) -> list[str]:
    runners = ", ".join(report.runners)
    stopped = f"checked {report.orders} of {report.planned} orders before the budget ran out"
    if report.faithful and report.complete:
        return [f"no mismatch: {_checked(report)} gave the same outcomes under {runners}"]
    if report.faithful:
        left = report.planned - report.orders
        done = (
            f"no mismatch in what was checked: {_checked(report)} under {runners}"
            if report.orders
            else "nothing was checked: collecting the suite and starting the runners took "
            "the whole budget"
        )
        return [
            f"{stopped}; not a clean result",
            f"  {done}; the {left} order(s) left did not run, so no verdict was cached for detect",
            f"to check the whole sample (the same {report.planned} orders), rerun: {go_on}",
        ]
    tests = len({m.test for m in report.mismatches})
    lines = [
        f"{len(report.mismatches)} mismatch(es) in {tests} test(s): "
        f"{_checked(report)} under {runners}"
    ]
    lines += mismatch_lines(params, report.mismatches)
    lines.append(
        "orderdep trusts fresh processes over the fork runner: detect, classify, pradet, "
        "debug and fix will use the subprocess runner on this code version."
    )
    if go_on is not None:
        lines.append(f"{stopped}; more may differ. To check them all, rerun: {go_on}")
    return lines


class _Plan:
    """What the sample costs: said before it starts, priced again by the original order."""

    def __init__(self, project: Path, store: Optional[Path], budget: float, started: float) -> None:
        self.project, self.store, self.budget, self.started = project, store, budget, started
        self.samples: Sequence[SampleOrder] = ()
        self.startup = 0.0  # seconds to collect and start the runners
        self.estimate: Optional[float] = None  # seconds for the whole sample

    def announce(self, samples: Sequence[SampleOrder], runners: Sequence[str]) -> None:
        self.samples = samples
        self.startup = time.monotonic() - self.started
        cost = SampleCost.of(samples, runners)
        tests = len(samples[0].order) if samples else 0
        line = (
            f"orderdep doctor: {cost.orders} orders of {tests} tests or fewer under "
            f"{cost.runners} runners ({', '.join(runners)}): about {cost.executions:,} test "
            f"executions; {cost.fresh} of the runs start a fresh pytest process"
        )
        path = store_path(self.project, self.store)
        walls = recorded_walls(path, self.project, samples[0].order) if samples else {}
        if walls:
            wall = min(walls.values())
            own = cost.executions * wall / max(1, tests)
            line += (
                f"; the original order took {wall:.1f} s in an earlier run, so the tests "
                f"alone take about {_seconds(own)}, plus the start of each fresh process"
            )
        notice(line)

    def priced(self, report: FidelityReport) -> None:
        if report.orders != 1 or not report.walls:
            return
        self.estimate = estimate_seconds(self.samples, report.walls)
        took = ", ".join(f"{name} {wall:.1f} s" for name, wall in report.walls.items())
        line = (
            f"orderdep doctor: the original order took {took}: the whole sample takes "
            f"about {_seconds(self.estimate)}"
        )
        if self.startup + self.estimate > self.budget:
            line += (
                f", more than the budget of {self.budget:g} s allows: it will stop before "
                f"the end (--budget {self.suggested(self.budget)} checks it all)"
            )
        notice(line)

    def suggested(self, elapsed: float) -> int:
        """A budget for the whole check, from the estimate (or the time spent so far)."""
        whole = self.startup + self.estimate if self.estimate is not None else 3 * elapsed
        return _round_up(max(MARGIN * whole, 2 * self.budget))


def _go_on(budget: float, seed: int, plan: _Plan, elapsed: float) -> str:
    """The doctor command as given, with ``--budget`` raised (and ``--seed``, so the
    same sample is drawn)."""
    args, skip = [], False
    for arg in command_argv():
        if skip:
            skip = False
        elif arg == "--budget":
            skip = True
        elif not arg.startswith("--budget="):
            args.append(arg)
    return resume_command([*args, "--budget", str(plan.suggested(elapsed))], seed)


def _round_up(seconds: float) -> int:
    """Up to a round number of seconds: 10s up to 600, then whole minutes."""
    step = 10 if seconds <= 600 else 60
    return int(math.ceil(seconds / step) * step)


def _seconds(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"
