"""Steps of ``orderdep fix`` around the repairs: classifying what a repair needs first,
writing each verified patch as soon as it is verified (``--apply``), sharing one block
among the tests of a class, and keeping the largest set of verified patches that holds
together."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional

import click

from orderdep.analysis.collection_check import file_of
from orderdep.analysis.repair.again import repair_again
from orderdep.analysis.repair.batch import Ahead
from orderdep.analysis.repair.collection_fix import STRATEGY as MODULE
from orderdep.analysis.repair.collection_fix import collection_brittle, repair_collection
from orderdep.analysis.repair.fix import STRATEGIES, Repairer
from orderdep.analysis.repair.fix_result import Fix, FixResult
from orderdep.analysis.repair.verify.patchset import (
    function_id,
    holding_set,
    merged_changes,
    set_orders,
)
from orderdep.analysis.repair.verify.sharing import (
    for_victim,
    hoist_blocks,
    moved_setups,
    shared_fixes,
)
from orderdep.analysis.repair.write.patches import (
    Changes,
    apply_insertions,
    dos_newlines,
    unified_diff,
)
from orderdep.core.report import COLLECTED_KEY, ODFinding, Report, save_report
from orderdep.errors import OutOfTime
from orderdep.shells.commands.debug_cmds import progress_line, report_file
from orderdep.shells.fixes_file import fix_entry


def classify_on_demand(
    engine: Any,
    data: Report,
    selected: list[tuple[str, Optional[ODFinding]]],
    project: Path,
    report: Optional[Path],
    params: dict[str, Any],
) -> tuple[Report, list[tuple[str, Optional[ODFinding]]]]:
    """Classify the selected OD tests that lack a kind, as far as a repair needs (the kind
    and one partner), and save the report; a test found non-deterministic is dropped."""
    from orderdep.analysis.classify import classify

    todo = [t for t, f in selected if f is not None and f.kind is None]
    if not todo:
        return data, selected
    progress_line(
        f"classifying {len(todo)} OD test(s) first, as far as a repair needs: the kind "
        "and one partner (`orderdep classify` completes them)"
    )
    data = classify(engine, data, todo, None, phases=("kind", "partner"), jobs=params["jobs"])
    save_report(report_file(project, report), data)
    kept = []
    for test, found in selected:
        if test in data.nd_tests:
            click.echo(f"skipping {test}: non-deterministic, not order-dependent")
            continue
        kept.append((test, data.finding(test) or found))
    return data, kept


def check_set(
    repairer: Repairer,
    project: Path,
    fixed: Sequence[FixResult],
    by_function: dict[str, FixResult],
    seed: int,
    orders: int,
    unrepaired: Optional[Sequence[str]],
    elsewhere: Optional[dict[str, str]] = None,
) -> tuple[list[str], Changes, dict[str, str]]:
    """The patches (by function) that hold together, their changes, and why each other
    was left out; prints what held and, for each patch left out, why. ``elsewhere`` is
    filled with the functions of kept patches whose test failed in a random order as it
    does unpatched (function -> where), and each is printed."""
    elsewhere = {} if elsewhere is None else elsewhere
    patches = {f: r.fix.insertions for f, r in by_function.items() if r.fix is not None}
    if not patches:
        return [], {}, {}
    if len(patches) < 2 and orders == 0 and not repairer.verifier.suite_in_set:
        changes = merged_changes(project, [i for p in patches.values() for i in p])
        return list(patches), changes, {}
    targets = {
        f: [r.target for r in fixed if r.target is not None and function_id(r.test) == f]
        for f in patches
    }
    progress_line(f"verifying the {len(patches)} patch(es) together")
    try:
        found = holding_set(
            repairer.verifier, project, patches, targets, seed=seed, random_orders=orders,
            unrepaired=unrepaired,
        )  # fmt: skip
    except OutOfTime:  # each verified alone; together, unchecked: said, kept out
        elsewhere.clear()  # nothing kept: no kept patch's test failed anywhere
        if repairer.verifier.suite_in_set:  # no patch has run in the whole suite
            click.echo(
                f"patch set: the budget ended before the whole suite ran with the "
                f"{len(patches)} patch(es); none is applied (each is in its own file, verified "
                "in its own orders only); rerun with a larger --budget"
            )
            return [], {}, {f: "not checked on the whole suite (the budget ended)" for f in patches}
        if len(patches) == 1:  # its own verification ran the orders the set check starts with
            click.echo(
                "patch set: one patch, verified alone in its orders and the original order; "
                "the budget ended before random orders checked it (a larger --budget runs them)"
            )
            changes = merged_changes(project, [i for p in patches.values() for i in p])
            return list(patches), changes, {}
        click.echo(
            f"patch set: the budget ended before the {len(patches)} patches were checked "
            "together; none is applied (each is in its own file); rerun with a larger --budget"
        )
        return [], {}, {f: "not checked with the others (the budget ended)" for f in patches}
    tests = sum(1 for r in fixed if r.fix is not None and function_id(r.test) in found.kept)
    where = f"the original order, every failing order, {orders} random orders, seed {seed}"
    if found.cut:
        where += f"; {found.cut}"
    elsewhere.clear()
    for test, seen in found.elsewhere.items():
        elsewhere[function_id(test)] = seen
        click.echo(
            f"  still order-dependent: {seen}, as it does without the patches: a relation the "
            "report does not name (its patch holds for the orders it was verified in)"
        )
    if not found.left_out:
        click.echo(
            f"patch set: {len(found.kept)} patch(es) for {tests} OD test(s) hold together in "
            f"{found.orders_run} orders ({where})"
        )
        return found.kept, found.changes, {}
    click.echo(
        f"patch set: the {len(patches)} patches do not hold together; {len(found.kept)} of "
        f"them (for {tests} OD test(s)) do, in {where} ({found.orders_run} orders in all)"
    )
    for function, why in found.left_out.items():
        click.echo(f"  left out: the patch for {function}: with it, {why}")
    return found.kept, found.changes, found.left_out


def _random_order(why: str, suite: list[str], test: str) -> Optional[list[str]]:
    """The tests before ``test`` in the random order of the set check that ``why`` names
    (``... failed in random order K (seed S)``); None when it names none."""
    found = re.search(r"failed in random order (\d+) \(seed (-?\d+)\)", why)
    if found is None:
        return None
    number, seed = int(found.group(1)), int(found.group(2))
    _, order = set_orders(suite, [], seed, number)[-1]  # random order K is the last
    return order[: order.index(test)] if test in order else None


def retry_left_out(
    repairer: Repairer,
    left_out: dict[str, str],
    by_function: dict[str, FixResult],
    findings: dict[str, ODFinding],
    entries: dict[str, dict[str, Any]],
    patch_for: Callable[[str], Path],
) -> list[str]:
    """Each test whose patch was left out of the set because it failed in a random order
    is repaired again for that order too (:mod:`~orderdep.analysis.repair.again`).
    Returns the functions whose patch was replaced."""
    replaced = []
    for function, why in left_out.items():
        result = by_function.get(function)
        finding = findings.get(function)
        if result is None or result.fix is None or finding is None:
            continue
        seen = _random_order(why, repairer.verifier.original_order(), finding.test)
        if seen is None:
            continue
        try:
            again = repair_again(repairer, finding, result, seen, progress_line)
        except OutOfTime:  # the budget ended
            break
        if again.fix is None:
            click.echo(
                f"  {finding.test} not repaired again: {' | '.join(again.notes) or 'no candidate'}"
            )
            continue
        click.echo(
            f"fix for {finding.test} ({result.kind}) replaced: {again.fix.strategy}, "
            f"{again.fix.size} changed line(s): {again.fix.description} (its patch left it "
            f"failing in a random order)"
        )
        result.fix, result.target = again.fix, again.target
        replaced.append(function)
        patch = patch_for(function)
        patch.write_text(again.fix.diff, encoding="utf-8")
        entries[result.test] = fix_entry(result, patch, patch.parent.parent)
    return replaced


def share_setups(
    repairer: Repairer,
    project: Path,
    fixed: Sequence[FixResult],
    entries: dict[str, dict[str, Any]],
    patch_for: Callable[[str], Path],
) -> None:
    """One block in a TestCase's ``setUp`` (or a module's autouse fixture) instead of a copy
    in each of its tests (:func:`~orderdep.analysis.repair.verify.sharing.hoist_blocks`);
    prints each move and
    rewrites the patch files and entries of the tests it changed."""
    if sum(r.fix is not None for r in fixed) < 2:
        return
    progress_line("looking for the same block in several tests of one class or module")
    try:
        hoisted = hoist_blocks(repairer.verifier, project, fixed)
    except OutOfTime:  # the budget ended: each keeps its own block
        return
    for moved in hoisted:
        into = (
            "its setUp"
            if moved.place == "setUp"
            else f"a fixture they request ({moved.place})"
            if moved.requested
            else f"an autouse fixture ({moved.place})"
        )
        click.echo(
            f"shared: the block inserted into {len(moved.tests)} tests of {moved.where} goes "
            f"once into {into} instead ({len(moved.tests)} copies become one); verified "
            "for each of them"
        )
        for result in fixed:
            if result.fix is None or result.test not in moved.results:
                continue
            patch = patch_for(function_id(result.test))
            patch.write_text(result.fix.diff, encoding="utf-8")
            entries[result.test] = fix_entry(result, patch, patch.parent.parent)


Originals = dict[str, Optional[str]]  # file -> its text before fix wrote it (None: absent)


def apply_now(project: Path, fix: Fix, originals: Originals) -> list[str]:
    """Write a verified ``fix`` into the project's files at once (``--apply``): a run
    stopped later keeps it, and rerunning skips its test (it passes now). The files'
    texts from before the first write are kept in ``originals``. Returns the files."""
    changes = apply_insertions(project, fix.insertions)
    for rel, (_, new) in changes.items():
        path = project / rel
        originals.setdefault(rel, path.read_text(encoding="utf-8") if path.exists() else None)
        path.write_text(new, encoding="utf-8")
    # a patch shared with an earlier test is in the files already
    return sorted(changes or fix.changes)


def changes_from_originals(project: Path, fix: Fix, originals: Originals) -> Changes:
    """``fix``'s changes to the files as they were before ``fix`` wrote any patch."""
    base = {rel: text or "" for rel, text in originals.items()}
    return apply_insertions(project, fix.insertions, base=base)


def diff_from_originals(project: Path, fix: Fix, originals: Originals) -> str:
    """``fix``'s diff against the files as they were before ``fix`` wrote any patch."""
    return unified_diff(changes_from_originals(project, fix, originals))


def restore_originals(project: Path, originals: Originals) -> None:
    """Put the files written by :func:`apply_now` back as they were (the set of patches
    that holds together is then written on them)."""
    for rel, text in originals.items():
        path = project / rel
        if text is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(dos_newlines(path, text), encoding="utf-8")
    originals.clear()


def table_row(result: FixResult) -> tuple[str, str, str, str]:
    """The closing table's row of one OD test: its kind, the fix found (strategy and
    what it changes) or that none was, and the lines the patch changes."""
    fix = result.fix
    if not result.reproduced:
        return (result.test, result.kind, "none needed: passes in its failing order", "-")
    if fix is None:
        return (result.test, result.kind, "no verified fix (reasons above)", "-")
    return (result.test, result.kind, f"{fix.strategy} (verified)", str(fix.size))


def repair_one(
    repairer: Repairer,
    finding: ODFinding,
    earlier: Optional[FixResult],
    done: Sequence[tuple[ODFinding, Fix]],
    originals: Originals,
    ahead: Optional[Ahead] = None,
) -> tuple[FixResult, Optional[Fix]]:
    """``finding``'s repair: one verified ahead (``ahead``, :mod:`.fix_ahead`), else the
    fix of an ``earlier`` instance of its test function, else a shared one
    (:func:`reuse_shared`), else the set-up of an earlier brittle of its state-setter
    moved to this test, else its own (merged with the earlier instance's); and the fix as
    ``--apply`` wrote it already, when it was shared."""
    if collection_brittle(finding):  # verified as `pytest FILE`, not in orders
        return repair_collection(repairer.verifier, finding, done, repairer.progress), None
    result: Optional[FixResult] = None
    # a brittle's set-up verified ahead goes into the test, which keeps one patch per test
    # function; a victim's goes where the state is made
    shared = ahead is not None and finding.test in ahead.written
    if ahead and finding.test in ahead.ready and (shared or earlier is None or earlier.fix is None):
        result, written = ahead.ready.pop(finding.test), ahead.written.pop(finding.test, None)
        if written is not None and result.fix is not None:  # an earlier victim's, written
            changes = changes_from_originals(repairer.project, result.fix, originals)
            result.fix = dataclasses.replace(result.fix, changes=changes)
        return result, written
    if earlier is not None and earlier.fix is not None:
        result = repairer.reuse(finding, earlier.fix)
    if result is None:  # one patch per polluted state
        result, written = reuse_shared(repairer, finding, done, repairer.project, originals)
        if result is not None:
            return result, written
    for moved in moved_setups(finding, done, repairer.project) if result is None else []:
        result = repairer.reuse(finding, moved)  # an earlier brittle's set-up, here too
        if result is not None:
            return result, None
    if result is None:
        result = repairer.repair(finding)
        if earlier is not None and earlier.fix is not None and result.fix is not None:
            result.fix = repairer.merge(earlier.fix, result.fix)
    return result, None


def reuse_shared(
    repairer: Repairer,
    finding: ODFinding,
    done: Sequence[tuple[ODFinding, Fix]],
    project: Path,
    originals: Originals,
) -> tuple[Optional[FixResult], Optional[Fix]]:
    """The first root-cause fix of an earlier victim sharing a polluter with ``finding``
    that verifies for it too (see :func:`~orderdep.analysis.repair.verify.sharing.shared_fixes`),
    its comments naming this victim; and that fix as it was, which ``--apply`` wrote
    already. (None, None) when none does."""
    for shared in shared_fixes(finding, done):
        result = repairer.reuse(finding, shared)
        if result is not None and result.fix is not None:
            renamed = for_victim(result.fix, shared.test, finding.test)
            changes = changes_from_originals(project, renamed, originals)
            result.fix = dataclasses.replace(renamed, changes=changes)
            return result, shared
    return None, None


def skip_reason(
    found: Optional[ODFinding], from_report: bool, strategies: Sequence[str] = STRATEGIES
) -> Optional[tuple[str, str]]:
    """Why ``fix`` leaves ``found`` alone, when it does: (its row, the line said). A
    brittle that fails only as ``pytest FILE`` is repaired by the ``module`` strategy
    (:mod:`~orderdep.analysis.repair.collection_fix`) when ``strategies`` has it."""
    if found is None:
        return None
    if from_report and found.kind is None:
        return "skipped: not classified", "its kind could not be told (see `orderdep classify`)"
    if COLLECTED_KEY not in found.extras:
        return None
    if collection_brittle(found) and MODULE in strategies:
        return None
    partners = found.polluters or found.state_setters
    module = file_of(partners[0]) if partners else None
    where = f"the import-time code of {module}" if module else "the import-time code"
    if found.kind == "victim":
        said = "fails only when another module is collected with it"
        todo = f"make {where} that changes the state it needs undo it (a fixture)"
    else:
        said = "fails only when pytest collects part of the suite (`pytest FILE`, `pytest ID`)"
        todo = (
            f"move {where} that sets the state it needs into a conftest.py, or have its "
            "own file import what it needs"
        )
    row = "another file collected" if found.kind == "victim" else "as `pytest FILE`"
    return f"skipped: fails only {row}", (
        f"it {said}, and fix verifies patches in orders that each collect the whole suite; " + todo
    )
