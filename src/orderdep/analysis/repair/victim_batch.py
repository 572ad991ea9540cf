"""The root-cause fix verified for one victim, tried for every later victim of its
polluters at once.

Twenty victims of one polluted state (a module-level serializer, an app's config) share
one fix: the polluter's own clean-up, or an autouse fixture restoring the state. Before,
each later victim had the fix verified on its own when its turn came
(:func:`~orderdep.analysis.repair.verify.sharing.shared_fixes`): a patched copy, an engine
started on it and a run of the original order per victim, and the budget ended before the
last ones. Once one victim's root-cause fix verifies, it is verified for every later
victim sharing one of its polluters together: one copy, one engine, the original order
once, and each victim after each of its polluters and alone (:func:`short_target`).
Victims the fix leaves failing are dropped and the rest verified again; those it holds
for have their fix ahead of their turn, the others are repaired on their own as before.

A fix at the victim itself (a reset call at its start, for sixteen victims of one
session fixture a test reconfigured) is copied to the start of each later victim of the
same class (or module) sharing a polluter, and the copies verified together the same
way; the patch set then puts them once into a fixture (:func:`~orderdep.analysis.repair.
verify.sharing.hoist_blocks`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Optional

from orderdep.analysis.repair.batch import MIN_BATCH, Ahead, verify_dropping
from orderdep.analysis.repair.candidates.candidates import target_for
from orderdep.analysis.repair.candidates.fixture_candidates import polluters_of
from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.fix_result import Fix, FixResult
from orderdep.analysis.repair.locate.debugger import orders_for
from orderdep.analysis.repair.verify.patchset import merged_changes
from orderdep.analysis.repair.verify.sharing import for_victim, is_root_cause, shared_fixes
from orderdep.analysis.repair.verify.verify import Target, Verification
from orderdep.analysis.repair.write.patches import apply_insertions, function_path
from orderdep.core.report import ODFinding
from orderdep.errors import UsageError


def batched_note(first: str, others: int) -> str:
    """The note of a victim whose fix was verified in a batch (:func:`fixes_for_victims`)."""
    return f"the patch of {first}, checked for this test and {others} other victim(s) at once"


def _at_the_victim(finding: ODFinding, fix: Fix) -> bool:
    """Whether ``fix`` only inserts statements at the start of the victim itself."""
    return bool(fix.insertions) and all(
        i.test == finding.test and i.edit == "insert" and i.method is None for i in fix.insertions
    )


def sharers(finding: ODFinding, fix: Fix, pending: Sequence[ODFinding]) -> list[ODFinding]:
    """The victims of ``pending`` (other than ``finding``) sharing a polluter with the
    victim ``finding`` that ``fix`` could repair too: all of them for a root-cause fix;
    for statements at the start of the victim, those of the same class (or module),
    each getting a copy (the patch set then puts the copies once into a fixture)."""
    if finding.kind != "victim":
        return []
    others = [o for o in pending if o.test != finding.test and o.kind in (None, "victim")]
    if is_root_cause(fix):
        return [o for o in others if shared_fixes(o, [(finding, fix)])]
    if not _at_the_victim(finding, fix):
        return []
    place, mine = function_path(finding.test)[:2], set(polluters_of(finding))
    return [o for o in others if function_path(o.test)[:2] == place and mine & set(polluters_of(o))]


def moved_to(fix: Fix, finding: ODFinding, other: ODFinding, project: Path) -> Optional[Fix]:
    """``fix`` for ``other``: the same fix for a root-cause one; for statements at the
    start of ``finding``, the same statements at the start of ``other`` (None when they
    do not apply there)."""
    if is_root_cause(fix):
        return fix
    insertions = [dataclasses.replace(i, test=other.test) for i in fix.insertions]
    try:
        changes = apply_insertions(project, insertions)
    except UsageError:
        return None
    return dataclasses.replace(fix, insertions=insertions, changes=changes)


def short_target(victim: ODFinding, full: Target) -> Target:
    """What the batch checks for ``victim``: each of its polluters (and polluter groups)
    then it, and it alone; its recorded orders, which may run most of the suite, only
    when no polluter is known. The check of the patch set runs them all later."""
    t = victim.test
    pairs = [[p, t] for p in victim.polluters] + [[*g, t] for g in victim.polluter_groups]
    return Target(t, pairs or full.failing_orders, [[t]])


def fixes_for_victims(
    repairer: Repairer,
    finding: ODFinding,
    fix: Fix,
    pending: Sequence[ODFinding],
    progress: Callable[[str], None],
    ahead: Optional[Ahead] = None,
) -> dict[str, FixResult]:
    """The victims of ``pending`` sharing a polluter with ``finding`` that ``fix``
    (verified for ``finding``) repairs too, verified in one patched copy (two or three
    when some of them need more; see the module doc). Each result's fix names its own
    victim in its comments; the fix as it is in the files is ``ahead.written``."""
    targets: list[tuple[ODFinding, Fix, Target]] = []
    full_targets: dict[str, Target] = {}
    others = sharers(finding, fix, pending)
    key = ("victims", frozenset(repr(dataclasses.replace(i, comment=None)) for i in fix.insertions))
    if len(others) < MIN_BATCH or (ahead is not None and key in ahead.tried):
        return {}  # a batch that did not hold is not tried again for the same patch
    if ahead is not None:
        ahead.tried.add(key)
    for other in others:
        if ahead is not None and other.test in ahead.ready:
            continue
        try:
            kind, failing, passing = orders_for(other)
        except UsageError:
            continue
        full = target_for(other, kind, failing, passing)
        moved = moved_to(fix, finding, other, repairer.project)
        if moved is not None:
            targets.append((other, moved, short_target(other, full)))
            full_targets[other.test] = full
    if len(targets) < MIN_BATCH:
        return {}
    progress(f"verifying the patch of {finding.test} for {len(targets)} other victim(s) at once")
    targets, check = verify_dropping(
        targets, lambda t: t[0].test, lambda ts: _verify(repairer, fix, ts), progress, "the patch"
    )  # fmt: skip
    if check is None:
        return {}
    out: dict[str, FixResult] = {}
    note = batched_note(finding.test, len(targets) - 1)
    for other, moved, _ in targets:
        if moved is fix:  # one patch in the files for all: its comments name this victim
            moved = for_victim(fix, finding.test, other.test)
        mine = dataclasses.replace(moved, test=other.test, verification=check)
        out[other.test] = FixResult(
            other.test, "victim", fix=mine, target=full_targets[other.test], batched=True,
            notes=[note],
        )  # fmt: skip
        if ahead is not None and is_root_cause(fix):
            ahead.written[other.test] = fix
    return out


def _verify(
    repairer: Repairer, fix: Fix, targets: Sequence[tuple[ODFinding, Fix, Target]]
) -> Verification:
    first, *rest = [t for *_, t in targets]
    changes = fix.changes
    if not is_root_cause(fix):  # a copy at the start of each victim
        changes = merged_changes(repairer.project, [i for _, f, _ in targets for i in f.insertions])
    return repairer.verifier.verify(changes, first, also=rest, keep_going=True)


__all__ = ["batched_note", "fixes_for_victims", "moved_to", "sharers", "short_target"]
