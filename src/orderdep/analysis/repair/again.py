"""Repairing a test again when its verified patch fails in a random order of the set check.

Such a test has a relation the report does not name, and the random order shows it:

* a **victim** fails after polluters the report does not list: that order becomes one
  more polluter group, and the test gets a patch that protects it from every polluter
  (an autouse fixture, else a restore at its start);
* a **brittle** whose set-up verified is also a victim once its state is set up (a
  shared queue its state-setter connects and other tests fill): the order is debugged
  as a victim's, its state-setter first, and the block that puts back what the other
  tests left goes beside the set-up, verified for both relations.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional

from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.fix_result import Fix, FixResult
from orderdep.analysis.repair.verify.verify import Target
from orderdep.core.report import ODFinding

# strategies that protect a victim from every polluter, the report's or not
EVERY_POLLUTER = ("fixture", "restore")
# a brittle's second patch goes beside its set-up first
BESIDE_SETUP = ("restore", "fixture")


@dataclass
class Again:
    """The outcome of one repair again: the new fix (None: none verified), the orders it
    was verified in, and why each strategy found none."""

    fix: Optional[Fix] = None
    target: Optional[Target] = None
    strategy: str = ""
    notes: list[str] = field(default_factory=list)


def _clone(repairer: Repairer, strategy: str) -> Repairer:
    other = Repairer(repairer.config, repairer.engine, strategy=strategy,
                     progress=repairer.progress, max_verify=repairer.max_verify)  # fmt: skip
    other.verifier = repairer.verifier  # the unpatched outcomes, run once
    return other


def _setters(finding: ODFinding) -> list[str]:
    if finding.state_setters:
        return finding.state_setters[:1]
    return list(finding.state_setter_groups[0]) if finding.state_setter_groups else []


def joined(first: Target, second: Target) -> Target:
    """One target holding the orders of both (each once)."""

    def once(orders: Sequence[list[str]]) -> list[list[str]]:
        return [list(o) for o in dict.fromkeys(tuple(o) for o in orders)]

    return Target(
        first.test,
        once([*first.failing_orders, *second.failing_orders]),
        once([*first.passing_orders, *second.passing_orders]),
    )


def repair_again(
    repairer: Repairer,
    finding: ODFinding,
    result: FixResult,
    seen: list[str],
    progress: Callable[[str], None],
) -> Again:
    """A new fix for ``result``'s test, whose fix let it fail after ``seen`` (the tests
    before it in a random order); see the module doc."""
    out = Again()
    if result.fix is None:
        return out
    if result.kind == "victim":
        # the order it failed in is one more polluter group: debugging it too shows the
        # state the unknown polluters change
        wider = dataclasses.replace(finding, polluter_groups=[*finding.polluter_groups, seen])
        for strategy in EVERY_POLLUTER:
            progress(
                f"repairing {finding.test} again ({strategy}): it failed after {len(seen)} test(s)"
            )
            again = _clone(repairer, strategy).repair(wider)
            if again.fix is not None:
                return Again(again.fix, again.target, strategy)
            out.notes.append(f"{strategy}: {'; '.join(again.notes) or 'no candidate'}")
        return out
    setters = _setters(finding)
    if result.kind != "brittle" or not setters or result.target is None:
        return out
    prefix = [*setters, *(t for t in seen if t not in setters)]
    failing, passing = [*prefix, finding.test], [*setters, finding.test]
    as_victim = dataclasses.replace(
        finding, kind="victim", polluters=[], polluter_groups=[prefix], cleaners={},
        failing_order=failing, passing_order=passing, state_setters=[], state_setter_groups=[],
    )  # fmt: skip
    for strategy in BESIDE_SETUP:
        progress(
            f"repairing {finding.test} again ({strategy}): once set up, it failed after "
            f"{len(seen)} test(s)"
        )
        again = _clone(repairer, strategy).repair(as_victim, orders=("victim", failing, passing))
        if again.fix is None or again.target is None:
            out.notes.append(f"{strategy}: {'; '.join(again.notes) or 'no candidate'}")
            continue
        both = repairer.merge(result.fix, again.fix)
        target = joined(result.target, again.target)
        progress(
            f"verifying the set-up and the {strategy} patch together ({both.size} changed line(s))"
        )
        check = repairer.verifier.verify(both.changes, target)
        if not check.ok:
            out.notes.append(f"{strategy}: with the set-up, {check.summary()}")
            continue
        description = f"{result.fix.description}; {again.fix.description}"
        fix = dataclasses.replace(both, description=description, verification=check)
        return Again(fix, target, strategy)
    return out


__all__ = ["BESIDE_SETUP", "EVERY_POLLUTER", "Again", "joined", "repair_again"]
