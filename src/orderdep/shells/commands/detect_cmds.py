"""``orderdep detect``: find OD tests (and classify them with ``--classify``)."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from pathlib import Path
from typing import Any, Optional

import click
from rich.console import Console

from orderdep.analysis.budget import Budget
from orderdep.analysis.detect import DEFAULT_CONFIRM_RUNS, DEFAULT_ROUNDS, STRATEGIES
from orderdep.analysis.guided import GUIDED_MIN_TESTS
from orderdep.core.promise import complete
from orderdep.core.report import save_report
from orderdep.core.suite import GROUP_LEVELS, GroupLevel
from orderdep.shells.app import cli
from orderdep.shells.ci import (
    changed_setup,
    check_ci_options,
    ci_options,
    fork_point,
    write_ci_outputs,
)
from orderdep.shells.ci_baseline import (
    baseline_lines,
    baseline_options,
    load_baseline,
    verdicts_of,
)
from orderdep.shells.commands.engine_cmds import open_engine, run_command
from orderdep.shells.detect_display import DetectDisplay
from orderdep.shells.exitcodes import verdict_code
from orderdep.shells.explain import evidence_orders
from orderdep.shells.options import (
    ALLOW_INCOMPLETE_OPTION,
    CHECK_OPTION,
    DEFAULT_REPORT,
    SEED,
    STORE_OPTION,
    Seconds,
    count,
    engine_flags,
    engine_options,
    html_report_line,
    report_option,
    setup_key,
)
from orderdep.shells.output import set_result, stderr_console
from orderdep.shells.summary import Printer, next_commands, render_summary
from orderdep.shells.unfinished import command_argv, unfinished_lines

ORDERS_DIR = Path(".orderdep") / "orders"
# Longer failing orders are written to a file and rerun with --order-file.
MAX_INLINE_TESTS = 8
MAX_INLINE_CHARS = 300


def job_name(params: dict[str, Any], strategies: tuple[str, ...], seed: int, group: str) -> str:
    """The store's job for this detection: the same command (project, strategies, seed,
    group, pytest setup) resumes it; other options (rounds, budget) only extend it."""
    key = json.dumps(
        {"strategies": list(strategies), "seed": seed, "group": group, **setup_key(params)},
        sort_keys=True,
    )
    digest = hashlib.sha1(key.encode()).hexdigest()[:10]
    return f"detect/{'+'.join(strategies) or 'default'}/seed={seed}/group={group}/{digest}"


def _order_file_name(test: str, order: list[str]) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", test.rsplit("/", 1)[-1])[:60].strip("_.")
    digest = hashlib.sha1("\n".join(order).encode()).hexdigest()[:8]
    return f"{slug}-{digest}.txt"


def reproduce_command(
    params: dict[str, Any],
    test: str,
    order: list[str],
    note: str = "",
    report: Optional[Path] = None,
) -> str:
    """The command that reruns ``order``; a long order goes to a file under
    ``PROJECT/.orderdep/orders/`` (``orders/`` next to ``report`` when one is given)
    and the command names the file."""
    project = Path(params["project"])
    flags = engine_flags(params)
    command = run_command(project, order, flags=flags)
    if len(order) > MAX_INLINE_TESTS or len(run_command(project, order)) > MAX_INLINE_CHARS:
        name = _order_file_name(test, order)
        shown = project / ORDERS_DIR if report is None else report.parent / ORDERS_DIR.name
        target = shown.resolve() / name
        target.parent.mkdir(parents=True, exist_ok=True)
        header = f"# {note}\n" if note else ""
        target.write_text(header + "".join(f"{t}\n" for t in order), encoding="utf-8")
        command = run_command(project, order, shown / name, flags)
    return command


@cli.command()
@engine_options
@STORE_OPTION
@click.option(
    "--strategy",
    "strategies",
    multiple=True,
    type=click.Choice(STRATEGIES),
    help="Orders to run after the original order (repeatable, run in the given order). "
    "Default: tuscan (all consecutive pairs) when its estimated cost fits --budget and "
    "--max-orders (1 hour when no budget), else random-reverse.",
)
@click.option(
    "--rounds",
    type=count(0),
    default=None,
    help=f"Orders of random and random-reverse (default {DEFAULT_ROUNDS}, or until "
    "--budget/--max-orders stops them when one is given).",
)
@click.option(
    "--seed",
    type=SEED,
    default=None,
    help="Seed of every random choice (default: a random one; printed, so the run "
    "can be repeated).",
)
@click.option(
    "--group",
    type=click.Choice(GROUP_LEVELS),
    default="class",
    show_default=True,
    help="Keep each module or class together in generated orders ('none': any order).",
)
@click.option(
    "--budget",
    type=Seconds(),
    default=None,
    metavar="SECONDS",
    help="Time for the whole command: the fork runner's check, search, confirmation and "
    "(with --classify) "
    "classification and flake rates, most valuable first. When it runs out (or on Ctrl-C) "
    "the report says what is unfinished; rerunning the same command resumes. Search time "
    "the strategies leave goes to orders for dependencies on several tests. Default: no "
    "limit, except that tuscan is chosen only if it fits an hour.",
)
@click.option(
    "--max-orders",
    type=count(1),
    default=None,
    help="Stop the search after this many orders (default: no limit).",
)
@report_option("Where to write the report (default PROJECT/.orderdep/report.json).", "report_file")
@click.option(
    "--classify",
    "do_classify",
    is_flag=True,
    help="Then classify each OD test (victim/brittle, polluters, ...) and its flake rates.",
)
@click.option(
    "--all-cleaners",
    is_flag=True,
    help="With --classify: find every cleaner of each polluter (default: at least one).",
)
@click.option(
    "--confirm-runs",
    type=count(0),
    default=DEFAULT_CONFIRM_RUNS,
    show_default=True,
    help="Re-runs of each failing and passing order before a test is called OD, not ND.",
)
@click.option(
    "--guided/--no-guided",
    default=None,
    help="Run the original order once more under the state probe when the search leaves "
    "suspects, and confirm each from the tests that wrote what it read before group "
    "testing over all the tests before it (far fewer orders when thousands ran first). "
    f"Default: on for suites of {GUIDED_MIN_TESTS:,} tests or more.",
)
@click.option(
    "--collection-check/--no-collection-check",
    default=None,
    help="Also run each test file as `pytest FILE` runs it (only that file collected) and "
    "report tests that fail there and pass with the whole suite collected. Default: on "
    "with --classify.",
)
@ci_options
@baseline_options
@ALLOW_INCOMPLETE_OPTION
@CHECK_OPTION
def detect(
    strategies: tuple[str, ...],
    rounds: Optional[int],
    seed: Optional[int],
    group: GroupLevel,
    budget: Optional[float],
    max_orders: Optional[int],
    report_file: Optional[Path],
    do_classify: bool,
    all_cleaners: bool,
    confirm_runs: int,
    guided: Optional[bool],
    collection_check: Optional[bool],
    changed: bool,
    base: str,
    junit_file: Optional[Path],
    baseline_files: tuple[Path, ...],
    no_baseline: bool,
    allow_incomplete: bool,
    **params: Any,
) -> int:
    """Find order-dependent tests: run the original order, then other orders, and confirm.

    \b
    Strategies (after the original order, which always runs first):
      reverse                     the original order reversed
      isolation                   each test alone
      pairs                       every ordered pair of tests alone
      random                      random orders keeping groups together
      random-reverse              random orders, each one that found nothing new
                                  followed by its reverse
      tuscan                      every pair of tests run consecutively
      nio                         each test twice in a row (non-idempotent tests)
    Without --strategy: tuscan if its estimate (orders x overhead + n(n-1) test
    runs x mean test time, measured on the original order, divided by --jobs) fits
    --budget (1 hour without one) and --max-orders; else random-reverse.

    A test that fails in one order and passes in another is re-run in both orders
    (--confirm-runs); if its outcome changes within one order it is reported
    non-deterministic, not order-dependent. Rerunning the same command resumes it.
    Exit code 1 when order-dependent (or non-idempotent) tests are found; 3 when none
    were found but the promised search did not run whole (see --allow-incomplete).
    """
    from orderdep.analysis.bounded import detect_within
    from orderdep.shells.commands.collection_pass import CollectionPass, collecting_command
    from orderdep.shells.commands.own_file import check_own_files

    project: Path = params["project"]
    check_ci_options(changed)
    known = load_baseline(
        project.resolve(), baseline_files, no_baseline, base if changed else None, fork_point
    )
    if seed is None:
        # CI runs continue each other (see ci.Progress), so --changed keeps one seed.
        seed = 0 if changed else secrets.randbelow(2**31)
    err = stderr_console()
    Printer(err).line(f"orderdep: seed {seed} (rerun with --seed {seed})")
    path = report_file or project.resolve() / DEFAULT_REPORT
    job = job_name(params, ("changed", *strategies) if changed else strategies, seed, group)
    limit = Budget(budget)
    check_files = do_classify if collection_check is None else collection_check
    with (
        open_engine(params, job=job, seed=seed, budget=limit, confirms_fresh=True) as engine,
        DetectDisplay(err, limit) as display,
        CollectionPass(params, engine.suite.ids, limit, display.notice) as files,
    ):
        policy = getattr(engine, "timeouts", None)
        if policy is not None:
            display.notice(f"orderdep: {policy.describe()}")
        touched, progress = (
            changed_setup(engine, params, base, display.notice) if changed else ([], None)
        )
        report = detect_within(
            engine,
            limit,
            then_classify=do_classify,
            all_cleaners=all_cleaners,
            jobs=params["jobs"],
            group=group,
            on_classify=display.classify_update,
            strategies=strategies,
            rounds=rounds,
            seed=seed,
            max_orders=max_orders,
            on_progress=display.update,
            confirm_runs=confirm_runs,
            store=getattr(engine, "store", None),
            notice=display.notice,
            changed=touched,
            start_at=progress.start_at(job) if progress else None,
            guided=guided,
            fresh_confirmation=engine.confirm_fresh if engine.search_unchecked else None,
            part=getattr(engine, "search_part", None),
            then=files if check_files and not changed and files.needed else None,
        )
        files.record(report)
        if progress is not None:
            progress.save(job, report.stats.extras.get("next_order") or {})
        reused = getattr(engine, "reused", 0)
        if reused:
            display.notice(
                f"orderdep: resumed: {reused} order(s) reused from an earlier run of this "
                f"command, {getattr(engine, 'orders_run', 0)} run now"
            )
    # The whole command's time: collecting and checking the fork runner are part of what
    # the run cost (an original order taken from the check costs no search time).
    if do_classify:
        check_own_files(params, report, limit)
    report.stats.wall_seconds = max(report.stats.wall_seconds, limit.elapsed())
    save_report(path, report)

    def command(test: str, order: list[str], label: str) -> str:
        plain = collecting_command(params, report, test, order, label)
        if plain is not None:  # only its files collected: what `pytest ID ...` runs
            return plain
        which = "failing" if label == "fails" else "passing"
        note = f"{which} order of {test} (orderdep detect --seed {seed})"
        return reproduce_command(params, test, order, note, report_file)

    out = Console()
    steps = next_commands(report, project, report_file, params)
    set_result(
        report_file=str(path),
        report=report.to_json(),
        commands={
            f.test: {label: command(f.test, order, label) for label, order in evidence_orders(f)}
            for f in report.od_tests
        },
        next=[step for step, _ in steps],
    )
    render_summary(report, out, command, str(path), steps, html_report_line(project, report_file))
    reproduce = {
        f.test: next(
            (command(f.test, o, label) for label, o in evidence_orders(f) if label == "fails"),
            command(f.test, f.failing_order, "fails"),
        )
        for f in report.od_tests
    }
    reproduce.update({t: command(t, [t, t], "fails") for t in report.nio_tests})
    verdicts = verdicts_of(report, known)
    for line in baseline_lines(verdicts):
        Printer(out).line(line)
    if verdicts is not None:
        set_result(baseline={t: {"new": v.new, "reason": v.reason} for t, v in verdicts.items()})
    write_ci_outputs(
        report, reproduce, junit_file, Path(report.project or project), allow_incomplete, verdicts
    )
    for line in unfinished_lines(report, command_argv(), seed, search=True):
        Printer(out).line(line)
    if limit.interrupt is not None:  # the report is saved: now stop as Ctrl-C does
        raise limit.interrupt
    found = bool(report.od_tests or report.nio_tests)
    if verdicts is not None:  # a baseline: only what the change added or made worse fails
        found = any(v.new for v in verdicts.values())
    return verdict_code(found, complete(report), allow_incomplete)
