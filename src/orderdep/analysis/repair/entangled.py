"""Two OD tests whose patches hold only together.

A module-scoped fixture shared by a victim and a brittle (one database both draw codes
from) is the shape: narrowing the fixture fixes the victim but breaks the brittle in the
original order, since the brittle relied on the victim's draw; the brittle's own set-up
(its state-setter's statement) fails after the victim while the fixture is shared. Each
patch is rejected alone. Together they hold: the fixture is fresh for each test and the
brittle sets up what it needs.

:func:`repair_entangled` pairs a test's rejected candidate that broke another OD test
(:attr:`Verification.broken`) with that test's verified fix, or else with its rejected
candidates, smallest first, and verifies each pair for both tests' orders in one patched
copy.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.fix_result import Fix, FixResult, Rejected
from orderdep.analysis.repair.verify.patchset import distinct
from orderdep.analysis.repair.verify.verify import Verification
from orderdep.analysis.repair.write.patches import Insertion, apply_insertions

# pairs verified per broken partner (its rejected candidates, smallest first)
PARTNER_TRIES = 3


def _fix(test: str, first: Rejected, second: Rejected, partner: str, repairer: Repairer) -> Fix:
    insertions = distinct([*first.insertions, *second.insertions])
    return Fix(
        test,
        first.strategy,
        f"{first.description}, with {second.description} in {partner}",
        insertions,
        apply_insertions(repairer.project, insertions),
        Verification(ok=False),
    )


def _options(partner: FixResult) -> list[Rejected]:
    """What may go with a patch that broke ``partner``: its verified fix, else its
    rejected candidates, smallest first."""
    if partner.fix is not None:
        fix = partner.fix
        return [Rejected(fix.strategy, fix.description, fix.insertions, [])]
    return partner.rejected[:PARTNER_TRIES]


def repair_entangled(
    repairer: Repairer, results: Sequence[FixResult], progress: Callable[[str], None]
) -> list[tuple[FixResult, list[Insertion]]]:
    """Fixes for the unrepaired tests of ``results`` that hold together with a patch of
    the OD test their rejected patch broke (see the module doc). Returns each result
    given a fix, with the insertions not in the files yet (a partner's verified fix is)."""
    by_test = {r.test: r for r in results if r.target is not None and r.reproduced}
    out: list[tuple[FixResult, list[Insertion]]] = []
    for result in list(by_test.values()):
        if result.fix is not None:
            continue
        for rejected in result.rejected:
            partners = [by_test.get(t) for t in rejected.broken]
            partner = partners[0] if len(partners) == 1 else None
            if partner is None or partner is result or result.target is None:
                continue  # it broke a test that is no OD test, or more than one
            assert partner.target is not None
            had_fix = partner.fix is not None
            for other in _options(partner):
                fix = _fix(result.test, rejected, other, partner.test, repairer)
                progress(
                    f"verifying patches of {result.test} and {partner.test} together "
                    f"({fix.size} changed line(s))"
                )
                check = repairer.verifier.verify(fix.changes, result.target, also=[partner.target])
                if not check.ok:
                    result.notes.append(
                        f"{rejected.strategy}: with {other.description} in {partner.test}: "
                        f"{check.summary()}"
                    )
                    continue
                result.fix = dataclasses.replace(fix, verification=check)
                if had_fix:
                    out.append((result, list(rejected.insertions)))
                else:
                    own = [t for t in check.improved if t != partner.test]
                    partner.fix = dataclasses.replace(
                        fix,
                        test=partner.test,
                        verification=dataclasses.replace(check, improved=own),
                    )
                    out += [(result, list(fix.insertions)), (partner, [])]
                break
            if result.fix is not None:
                break
    return out


__all__ = ["PARTNER_TRIES", "repair_entangled"]
