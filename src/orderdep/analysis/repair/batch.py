"""The set-up verified for one brittle, tried for every other brittle of its state-setter at
once.

Forty brittles of one module that all need what one state-setter builds (a client
singleton, a connection) get the same set-up. Verifying it for each alone costs a patched
copy, an engine started on it and a run of the whole suite per brittle; the budget ends
long before the fortieth. Once one brittle's set-up verifies, it is moved to every other
brittle of that state-setter in the same file (:func:`~orderdep.analysis.repair.verify.sharing.moved_setups`)
and all of them are verified together: one copy, one engine, the original order once,
and each brittle's own orders. Brittles the set-up leaves failing are dropped and the rest
verified again; those it holds for have their fix, the others are repaired on their own
as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Optional, TypeVar

from orderdep.analysis.repair.candidates.candidates import target_for
from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.fix_result import Fix, FixResult
from orderdep.analysis.repair.locate.debugger import orders_for
from orderdep.analysis.repair.verify.patchset import merged_changes
from orderdep.analysis.repair.verify.sharing import moved_setups, setters_of
from orderdep.analysis.repair.verify.verify import Target, Verification
from orderdep.analysis.repair.write.patches import function_path
from orderdep.core.report import ODFinding
from orderdep.errors import UsageError

T = TypeVar("T")

BATCHED = "its set-up was verified with an earlier brittle's"
MIN_BATCH = 2  # fewer brittles than this: their own verification costs the same
ROUNDS = 2  # verifications dropping the brittles the set-up leaves failing


@dataclass
class Ahead:
    """Set-ups verified ahead (test -> its result), and the groups of brittles (file,
    state-setters) a batch was tried for: a batch that did not hold is not tried again
    for the same group."""

    ready: dict[str, FixResult] = field(default_factory=dict)
    tried: set[tuple[str, frozenset[str]]] = field(default_factory=set)
    # a victim's fix verified ahead (test -> the fix as it is in the files: the earlier
    # victim's, whose comments name that victim)
    written: dict[str, Fix] = field(default_factory=dict)


def setups_for_many(
    repairer: Repairer,
    finding: ODFinding,
    fix: Fix,
    pending: Sequence[ODFinding],
    progress: Callable[[str], None],
    ahead: Optional[Ahead] = None,
) -> dict[str, FixResult]:
    """The brittles of ``pending`` that ``fix`` (verified for the brittle ``finding``),
    moved to each, repairs, verified in one patched copy (two when some of them need
    more; see the module doc)."""
    if finding.kind != "brittle":
        return {}
    group = (function_path(finding.test)[0], frozenset(setters_of(finding)))
    if ahead is not None and group in ahead.tried:
        return {}
    moved: list[tuple[ODFinding, Fix, Target]] = []
    full_targets: dict[str, Target] = {}
    for other in pending:
        if other.test == finding.test or other.kind != "brittle":
            continue
        fixes = moved_setups(other, [(finding, fix)], repairer.project)
        if not fixes:
            continue
        try:
            kind, failing, passing = orders_for(other)
        except UsageError:
            continue
        full = target_for(other, kind, failing, passing)
        # its failing orders and one passing order: the set check later runs the rest
        target = Target(full.test, full.failing_orders, full.passing_orders[:1])
        moved.append((other, fixes[0], target))
        full_targets[other.test] = full
    if len(moved) < MIN_BATCH:
        return {}
    if ahead is not None:
        ahead.tried.add(group)
    progress(
        f"verifying the set-up of {finding.test} for {len(moved)} other brittle(s) of its "
        "state-setter at once"
    )
    moved, check = verify_dropping(
        moved, lambda m: m[0].test, lambda ms: _verify(repairer, ms, keep_going=True),
        progress, "the set-up",
    )  # fmt: skip
    if check is None:
        return {}
    out: dict[str, FixResult] = {}
    for other, f, _ in moved:
        shared = dataclasses.replace(f, test=other.test, verification=check)
        # the full target: the check of the patch set runs its other passing orders
        out[other.test] = FixResult(
            other.test, "brittle", fix=shared, target=full_targets[other.test], batched=True,
            notes=[BATCHED],
        )  # fmt: skip
    return out


def verify_dropping(
    items: list[T],
    test_of: Callable[[T], str],
    verify: Callable[[list[T]], Verification],
    progress: Callable[[str], None],
    what: str,
) -> tuple[list[T], Optional[Verification]]:
    """``items`` verified together; while some of their tests still fail and nothing
    else does, those are dropped and the rest verified again (:data:`ROUNDS` times at
    most). The items kept and the check that held; None when fewer than
    :data:`MIN_BATCH` are left, or when it did not hold (said through ``progress``:
    ``what`` is the shared change, "the set-up" or "the patch")."""
    check = verify(items)
    for _ in range(ROUNDS):
        left = set(check.still_failing)
        if check.ok or not left or other_problems(check):
            break
        # those tests need more than the shared change: the others are verified without them
        items = [i for i in items if test_of(i) not in left]
        if len(items) < MIN_BATCH:
            return items, None
        progress(f"verifying {what} for the {len(items)} test(s) it may repair")
        check = verify(items)
    if not check.ok:
        said = (other_problems(check) or check.problems)[0]
        progress(f"{what} does not hold for them together: {said}")
        return items, None
    return items, check


def other_problems(check: Verification) -> list[str]:
    """The problems of ``check`` about other tests than the brittles it left failing (a
    brittle whose moved set-up fails also fails in the original order: one problem)."""
    return [
        p for p in check.problems if not any(p.startswith(t + " ") for t in check.still_failing)
    ]


def _verify(
    repairer: Repairer, moved: Sequence[tuple[ODFinding, Fix, Target]], keep_going: bool = False
) -> Verification:
    changes = merged_changes(repairer.project, [i for _, f, _ in moved for i in f.insertions])
    targets = [t for *_, t in moved]
    return repairer.verifier.verify(changes, targets[0], also=targets[1:], keep_going=keep_going)


__all__ = [
    "BATCHED", "MIN_BATCH", "ROUNDS", "Ahead", "other_problems", "setups_for_many",
    "verify_dropping",
]  # fmt: skip
