"""What ``orderdep fix`` keeps of its budget for the check of the patch set, when a
suite is too slow for the budget to run it for each patch, and what stands for the
suite when even one run of it does not fit (the part detection searched).

Each patch is verified in its own orders and, normally, in the whole suite's original
order too. When one run of the suite takes more than :data:`SUITE_IN_SET_SHARE` of the
budget, that run for each candidate patch leaves time for one or two of them, and the
other OD tests get none. Then each patch is verified in its own orders only, and the
whole suite runs once, with the patches together, in the check of the patch set, for
which the budget keeps a whole run of the suite; a patch that check cannot run on is not
applied.
"""

from __future__ import annotations

from typing import Optional

import click

from orderdep.analysis.repair.fix import Repairer
from orderdep.core.report import Report
from orderdep.core.volatile import same_tests

#: Seconds to copy, patch and start an engine on the copy, per set check.
SET_CHECK_START = 3.0
#: At most this share of the budget is kept for the set check (unless the suite runs
#: only there: then a whole run of it is kept).
SET_CHECK_SHARE = 0.25
#: A suite whose one run takes more than this share of the budget runs only in the
#: check of the patch set.
SUITE_IN_SET_SHARE = 0.2
#: The set check's run of the suite, against an unpatched run (a patched copy starts cold).
SUITE_IN_SET_MARGIN = 1.3


def searched_part(report: Optional[Report]) -> Optional[int]:
    """How many leading tests of the original order ``report``'s search covered, when
    that was not the whole suite (see :mod:`~orderdep.analysis.fork_part`)."""
    part = report.stats.extras.get("part_searched") if report is not None else None
    if not isinstance(part, dict):
        return None
    tests, of = part.get("tests"), part.get("of")
    if isinstance(tests, int) and isinstance(of, int) and 0 < tests < of:
        return tests
    return None


def scope_to(repairer: Repairer, report: Optional[Report], leading: Optional[int]) -> None:
    """Check each patch in the first ``leading`` tests of the original order (what the
    report's search covered) instead of the whole suite, when the suite collected now
    starts with the same tests (some perhaps under other ids, :func:`same_tests`); says
    so."""
    ids = list(repairer.engine.suite.ids)
    # the same tests, some perhaps under ids that change per process (a temporary path)
    if report is None or leading is None or not same_tests(report.tests[:leading], ids[:leading]):
        return
    repairer.verifier.scope = ids[:leading]
    click.echo(
        f"orderdep: detect searched the first {leading} of the original order's {len(ids)} "
        "tests (the whole order does not fit its budget): each patch is checked in that "
        "part's original order, not the whole suite's (a larger --budget for detect "
        "searches, and checks, the rest)",
        err=True,
    )


def suite_in_set(suite_seconds: Optional[float], budget: Optional[float]) -> bool:
    """Whether a suite whose original order takes ``suite_seconds`` runs only in the
    check of the patch set, within ``budget`` (see the module doc)."""
    if suite_seconds is None or budget is None:
        return False
    return suite_seconds > SUITE_IN_SET_SHARE * budget


def suite_in_set_note(suite_seconds: float, budget: float) -> str:
    return (
        f"orderdep: one run of the suite takes {suite_seconds:.0f} s, more than "
        f"{SUITE_IN_SET_SHARE:.0%} of the {budget:g}-s budget: each patch is verified in its "
        "own orders, and the whole suite runs once, with the patches together (a larger "
        "--budget verifies each patch on the whole suite too)"
    )


def set_check_reserve(
    repairer: Repairer, set_orders: int, fixed: int, budget: Optional[float]
) -> float:
    """Seconds the check of the patch set will take (the original order and
    ``set_orders`` random orders of the whole suite, at the pace of an unpatched run, and
    the start of an engine on the patched copy): a repair does not start in what the
    budget keeps for it, up to :data:`SET_CHECK_SHARE` of the ``budget``, or one run of
    the suite when it runs only there. Nothing is kept before a patch exists (a first
    patch whose set check the budget cuts is kept, verified alone in its orders and the
    original order), or before the suite's pace is known."""
    whole = repairer.verifier.suite_seconds()
    if whole is None or budget is None or fixed < 1:
        return 0.0
    share = SET_CHECK_SHARE * budget
    if repairer.verifier.suite_in_set:
        share = max(share, SET_CHECK_START + SUITE_IN_SET_MARGIN * whole)
    return min(SET_CHECK_START + whole * (1 + set_orders), share)


__all__ = [
    "SET_CHECK_SHARE",
    "SET_CHECK_START",
    "SUITE_IN_SET_SHARE",
    "scope_to",
    "searched_part",
    "set_check_reserve",
    "suite_in_set",
    "suite_in_set_note",
]
