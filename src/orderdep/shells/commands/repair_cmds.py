"""``orderdep fix``: verified patches for OD tests, printed, written, and applied on request."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

import click

from orderdep.analysis.repair.batch import Ahead
from orderdep.analysis.repair.entangled import repair_entangled
from orderdep.analysis.repair.fix import STRATEGY_CHOICES, Repairer
from orderdep.analysis.repair.fix_result import Fix, FixResult
from orderdep.analysis.repair.verify.patchset import (
    RANDOM_ORDERS,
    function_id,
)
from orderdep.analysis.repair.write.patches import unified_diff
from orderdep.core.report import ODFinding, Report
from orderdep.engine.deadline import runs_until
from orderdep.errors import OutOfTime, UsageError
from orderdep.shells.app import cli
from orderdep.shells.commands.debug_cmds import (
    REPORT_OPTION,
    load_for,
    progress_line,
    report_file,
)
from orderdep.shells.commands.engine_cmds import offer_recorded, open_engine
from orderdep.shells.commands.fix_ahead import set_up_ahead, victims_ahead
from orderdep.shells.commands.fix_budget import (
    scope_to,
    searched_part,
    set_check_reserve,
    suite_in_set,
    suite_in_set_note,
)
from orderdep.shells.commands.fix_steps import (
    Originals,
    apply_now,
    check_set,
    classify_on_demand,
    diff_from_originals,
    repair_one,
    restore_originals,
    retry_left_out,
    share_setups,
    skip_reason,
    table_row,
)
from orderdep.shells.commands.fix_turns import SUITE_RUNS, Turns, least_turn
from orderdep.shells.fix_output import fix_lines
from orderdep.shells.fixes_file import fix_entry, save_fixes
from orderdep.shells.options import (
    CHECK_OPTION,
    SEED,
    Seconds,
    engine_options,
    html_report_line,
)
from orderdep.shells.output import set_result
from orderdep.shells.patch_files import PATCH_DIR, SET_PATCH, apply_commands, patch_name
from orderdep.shells.table import aligned
from orderdep.shells.unfinished import command_argv, resume_command


def _select(
    report: Optional[Report], tests: Sequence[str], polluters: Sequence[str]
) -> list[tuple[str, Optional[ODFinding]]]:
    """(test, its finding in the report) for each OD test to fix."""
    if not tests:
        return [(f.test, f) for f in report.od_tests] if report is not None else []
    out: list[tuple[str, Optional[ODFinding]]] = []
    for t in tests:
        finding = report.finding(t) if report is not None else None
        if report is not None and finding is None and not polluters:
            known = ", ".join(repr(f.test) for f in report.od_tests) or "none"
            raise UsageError(
                f"{t!r} is not an OD test of the report (OD tests: {known}); "
                "pass --polluter ID to fix it anyway."
            )
        out.append((t, finding))
    return out


@cli.command()
@engine_options
@click.option(
    "--test",
    "tests",
    multiple=True,
    help="Only this OD test; repeatable (default: every OD test of the report).",
)
@click.option(
    "--polluter",
    "polluters",
    multiple=True,
    help="With one --test: its polluter (state-setter, for a brittle); repeat for a group. "
    "Needed without a report unless the test fails in the original order "
    "(default: the report's first one).",
)
@click.option(
    "--strategy",
    type=click.Choice(STRATEGY_CHOICES),
    default="auto",
    show_default=True,
    help="cleaner: a cleaner's (state-setter's) statements, minimised; generated: calls "
    "of reset-methods found in the code; restore: put the polluted state back "
    "(monkeypatch); polluter: make the polluter (or its fixture) undo its change; "
    "fixture: a shared fixture narrowed to function scope, setup_module run before every "
    "test, or an autouse conftest.py fixture restoring the state; module: for a test "
    "failing only as `pytest FILE`, what another module does at import, at its file's "
    "top; auto: all, the root cause first, then the smallest verified patch.",
)
@click.option("--apply", "apply_", is_flag=True, help="Change the files (default: only print).")
@click.option(
    "--no-suite-check",
    is_flag=True,
    help="Verify patches on the OD test's orders only, not on the whole suite too.",
)
@click.option(
    "--set-orders",
    type=click.IntRange(min=0),
    default=RANDOM_ORDERS,
    show_default=True,
    help="Random orders the patches must pass in together (besides the original order "
    "and every failing order); 0 checks the set only when there are several patches.",
)
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of those orders.")
@click.option(
    "--budget",
    type=Seconds(),
    default=None,
    metavar="SECONDS",
    help="Time for the repairs: no repair starts once it is spent, or once what is left "
    "is what checking the patches as a set takes; what was verified by "
    "then is checked as a set and (with --apply) applied, and the tests left are named "
    "with the command that goes on (with --apply, rerunning skips the tests already "
    "fixed in the files). Default: no limit.",
)
@REPORT_OPTION
@CHECK_OPTION
def fix(
    tests: tuple[str, ...],
    polluters: tuple[str, ...],
    strategy: str,
    apply_: bool,
    no_suite_check: bool,
    set_orders: int,
    seed: int,
    budget: Optional[float],
    report: Optional[Path],
    **params: Any,
) -> int:
    """Print verified patches that make OD tests pass in every order.

    For each OD test of the report: prints a unified diff, writes it to
    PROJECT/.orderdep/patches/ and prints the commands that apply it. A patch is shown only
    if it made the test pass in its failing and passing orders without changing the
    outcomes of the suite (the report's nondeterministic tests, and tests whose outcome
    differs between two unpatched runs of the suite, are not compared). Files change only
    with --apply, which writes each patch as soon as it is verified: a run stopped later
    keeps it, and rerunning skips its test. The instances of a parametrized test share
    one patch, and so may the victims of one polluter; one block found for several tests
    of a TestCase goes once into its setUp. All patches are then verified together (the original order, every failing order, --set-orders random
    orders); when they do not hold together, they are added one at a time and the largest
    set that holds is kept (and applied with --apply), each patch left out named with the
    problem it brought. Exit code 0 when no OD test is left in the files (nothing to fix,
    or every one fixed with --apply and the patches hold together), 1 when any is left
    (no verified patch, not applied, or left out of the set).
    """
    from orderdep.analysis.budget import Budget
    from orderdep.analysis.repair.locate.debugger import finding_for

    limit = Budget(budget)
    left: list[str] = []  # tests no repair started for (budget)
    project: Path = params["project"].resolve()
    if polluters and len(tests) != 1:
        raise UsageError("--polluter needs exactly one --test (the OD test it pollutes)")
    data = load_for(project, report, required=report is not None or not tests)
    selected = _select(data, tests, polluters)
    if not selected:
        click.echo("the report has no OD tests: nothing to fix")
        return 0
    missing = 0
    entries: dict[str, dict[str, Any]] = {}
    patches = report_file(project, report).resolve().parent / PATCH_DIR
    by_function: dict[str, FixResult] = {}  # one patch per test function
    fixed: list[FixResult] = []
    done: list[tuple[ODFinding, Fix]] = []  # the verified fixes, for victims sharing a state
    originals: Originals = {}  # with --apply: the files' texts before the first patch
    rows: list[tuple[str, str, str, str]] = []  # the closing table: test, kind, fix, lines
    leading = searched_part(data)
    with open_engine(params, store=False, budget=limit, leading=leading) as engine:
        engine.check([*(t for t, _ in selected), *polluters])
        offer_recorded(engine, params.get("store_path"))  # the unpatched suite, once run
        repairer = Repairer(
            engine.config,
            engine,
            strategy=strategy,
            progress=progress_line,
            full_suite=not no_suite_check,
            nd_tests=data.nd_tests if data is not None else (),
        )
        scope_to(repairer, data, leading)
        sources = repairer.project  # the files the test ids name: pytest's rootdir
        if data is not None and not polluters:
            data, selected = classify_on_demand(engine, data, selected, project, report, params)
        ahead = Ahead()  # set-ups verified ahead for later brittles
        unfixed: dict[str, ODFinding] = {}  # reproduced, no verified fix
        results_of: list[FixResult] = []

        def keep(finding: ODFinding, result: FixResult, written: Optional[Fix]) -> None:
            """Write ``result``'s patch (applied with --apply), record and print it."""
            function = function_id(finding.test)
            patch: Optional[Path] = None
            applied: list[str] = []
            results_of.append(result)
            if result.reproduced and result.fix is not None:
                patch = patches / patch_name(function, strategy)
                patch.parent.mkdir(parents=True, exist_ok=True)
                applied = apply_now(sources, written or result.fix, originals) if apply_ else []
                patch.write_text(diff_from_originals(sources, result.fix, originals), "utf-8")
                by_function[function] = result
                fixed.append(result)
                done.append((finding, result.fix))
            entries[finding.test] = fix_entry(result, patch, patches.parent)
            save_fixes(report_file(project, report).resolve().parent, entries)
            lines = fix_lines(result, project, patch, params, report, applied, polluters, sources)
            click.echo("\n".join(lines))

        def out_of_time(test: str, kind: Optional[str]) -> int:
            """A test the budget left unrepaired: its row; one more left in the files."""
            left.append(test)
            rows.append((test, kind or "?", "not repaired (budget)", "-"))
            return 1

        suite_s = None  # the unpatched suite's time, which a turn's least share counts
        if budget is not None and len(selected) > 1:
            try:  # verification needs that run anyway
                with runs_until(time.monotonic() + (limit.left() or 0.0)):
                    suite_s = repairer.verifier.baseline_seconds()
            except OutOfTime:
                pass
        if suite_in_set(suite_s, budget):
            assert suite_s is not None and budget is not None
            repairer.verifier.suite_in_set = True
            click.echo(suite_in_set_note(suite_s, budget), err=True)

        def victim(item: tuple[str, Optional[ODFinding]]) -> bool:
            return item[1] is not None and item[1].kind == "victim"

        def partner_group(item: tuple[str, Optional[ODFinding]]) -> str:
            """The test function of its first polluter (state-setter): one share for
            the OD tests of one, which a repair at it often repairs all at once."""
            test, found = item
            partners = (found.polluters or found.state_setters) if found is not None else []
            return function_id(partners[0]) if partners else test

        # a fair share each, victims and brittles in turn, then the rest to those a share stopped
        runs = 1 if repairer.verifier.suite_in_set else SUITE_RUNS  # the suite's, per turn
        turns = Turns(selected, least_turn(suite_s, runs), first=victim, group=partner_group)
        for turn in turns:
            index, (test, found) = turn.index, turn.item
            left_s = limit.left()  # what a set check of the patches so far needs is kept
            reserve = set_check_reserve(repairer, set_orders, len(fixed), budget)
            if limit.stopped or (left_s is not None and left_s < reserve):
                missing += out_of_time(test, found.kind if found else None)
                continue
            skip = skip_reason(found, data is not None and not polluters, repairer.strategies)
            if skip is not None:
                click.echo(f"skipping {test}: {skip[1]}")
                rows.append((test, (found.kind if found else None) or "?", skip[0], "-"))
                missing += 1
                continue
            finding = finding_for(engine, test, polluters, found)
            function = function_id(finding.test)
            earlier = by_function.get(function)
            whole = None if left_s is None else left_s - reserve
            mine = turns.share(turn, whole)
            stop_at = None if mine is None else time.monotonic() + mine
            later = [f for _, f in selected[index + 1 :] if f is not None]
            try:  # written: a shared fix, in the files already
                with runs_until(stop_at):
                    result, written = repair_one(repairer, finding, earlier, done, originals, ahead)
                    set_up_ahead(repairer, finding, result, later, ahead)
            except OutOfTime:  # its share, or the budget, ended during this test's repair
                cut = mine is not None and whole is not None and mine < whole
                if cut and not limit.stopped and turns.again(turn):
                    click.echo(
                        f"orderdep: {test}: its share of the budget ({mine:.0f} s) ended; it "
                        "gets another turn once the other tests had theirs"
                    )
                    continue
                missing += out_of_time(test, finding.kind)
                continue
            room = limit.left()  # victims still to come its fix repairs: ahead, at once
            if not limit.stopped and (room is None or room > reserve):
                room = None if room is None else room - reserve
                done_tests = {*entries, *left, finding.test}
                pending = [f for _, f in selected if f is not None and f.test not in done_tests]
                victims_ahead(repairer, finding, result, pending, ahead, mine, room)
            if not result.reproduced:
                pass  # it passes in its failing order: nothing left to fix, keep its patch
            elif result.fix is None:
                missing += 1
                unfixed[finding.test] = finding
                if function not in by_function:  # an earlier run's patch no longer holds
                    (patches / patch_name(function, strategy)).unlink(missing_ok=True)
            rows.append(table_row(result))
            keep(finding, result, written)
        left_s = limit.left()
        reserve = set_check_reserve(repairer, set_orders, len(fixed) + 1, budget)
        if unfixed and not limit.stopped:  # patches that hold only together
            try:
                with runs_until(None if left_s is None else time.monotonic() + left_s - reserve):
                    paired = repair_entangled(repairer, results_of, progress_line)
                for result, fresh in paired:
                    missing -= 1
                    rows[[r[0] for r in rows].index(result.test)] = table_row(result)
                    assert result.fix is not None  # what a partner's fix wrote is there
                    keep(
                        unfixed[result.test],
                        result,
                        dataclasses.replace(result.fix, insertions=fresh),
                    )
            except OutOfTime:  # the budget ended: they stay unrepaired
                pass
        restore_originals(sources, originals)  # the set that holds is written below
        unrepaired = (
            [f.test for f in data.od_tests if f.test not in {r.test for r in fixed}]
            if data is not None
            else None
        )
        click.echo("summary:")
        place = {t: i for i, (t, _) in enumerate(selected)}
        rows.sort(key=lambda row: place.get(row[0], len(place)))  # second turns came last
        click.echo("\n".join(aligned(("test", "kind", "fix", "changed lines"), rows, "  ")))

        def patch_of(function: str) -> Path:
            return patches / patch_name(function, strategy)

        left_s = limit.left()  # the set's checks end with the budget too
        with runs_until(None if left_s is None else time.monotonic() + left_s):
            # sharing a block is worth less than the set check that applies the patches
            reserve = set_check_reserve(repairer, set_orders, len(fixed), budget)
            with runs_until(None if left_s is None else time.monotonic() + left_s - reserve):
                share_setups(repairer, sources, fixed, entries, patch_of)
            elsewhere: dict[str, str] = {}  # kept, but failing in a random order as unpatched
            kept, changes, left_out = check_set(
                repairer, sources, fixed, by_function, seed, set_orders, unrepaired, elsewhere
            )
            findings = {function_id(f.test): f for f, _ in done}
            retry = {**elsewhere, **left_out}
            retried = (
                retry_left_out(repairer, retry, by_function, findings, entries, patch_of)
                if retry and not limit.stopped
                else []
            )
            if retried:
                before = (kept, changes, left_out, dict(elsewhere))
                kept, changes, left_out = check_set(
                    repairer, sources, fixed, by_function, seed, set_orders, unrepaired, elsewhere
                )
                if len(kept) < len(before[0]) and not set(retried) & set(before[0]):
                    # held before the repairs again, which it does not contain: kept
                    kept, changes, left_out, elsewhere = before
                    click.echo(
                        f"patch set: the {len(kept)} patch(es) that held before the repairs "
                        "again are applied (fewer hold with them, or their check ended with "
                        "the budget)"
                    )
        held = len(kept) == len(by_function) and not elsewhere
        set_file = patches / SET_PATCH
        set_file.unlink(missing_ok=True)  # an earlier run's set may no longer hold
        if kept:
            if apply_:
                for rel, (_, new) in changes.items():
                    (sources / rel).write_text(new, encoding="utf-8")
                click.echo(f"applied to {', '.join(sorted(changes))}")
            elif len(kept) > 1:
                set_file.write_text(unified_diff(changes), encoding="utf-8")
                shown = (
                    set_file.relative_to(sources) if set_file.is_relative_to(sources) else set_file
                )
                cmds = apply_commands(sources, shown)
                click.echo(f"all patches in one: {set_file}")
                click.echo(f"apply them all: {cmds[0]}")
                click.echo("\n".join(f"            or: {c}" for c in cmds[1:]))
    if left:
        click.echo(f"orderdep: the budget ran out before {len(left)} OD test(s) were repaired:")
        click.echo("\n".join(f"  {t}" for t in left))
        more = " (the tests fixed in the files are skipped)" if apply_ else ""
        click.echo(f"orderdep: to go on{more}, rerun: {resume_command(command_argv())}")
    save_fixes(report_file(project, report).resolve().parent, entries)
    set_result(fixes=entries, left=missing if apply_ else len(selected))
    if data is not None:
        click.echo(html_report_line(params["project"], report))
    # Exit codes as every command: 1 while an OD test is left in the files.
    return 1 if missing or not held or (fixed and not apply_) else 0
