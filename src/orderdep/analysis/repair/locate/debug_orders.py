"""Which orders to debug or fix an OD test in: from the report, given polluters, or inferred."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Optional

from orderdep.core.odmodel import Kind
from orderdep.core.report import ODFinding
from orderdep.engine.executor import Executor
from orderdep.errors import UsageError


def orders_for(
    finding: ODFinding, polluter: Optional[Sequence[str]] = None
) -> tuple[str, list[str], list[str]]:
    """(kind, failing order, passing order) to debug ``finding`` with.

    ``polluter`` (a polluter, or a state-setter for a brittle; several ids form a group)
    overrides the report's; otherwise its first polluter (state-setter), then its first
    group, then the recorded order cut at the test.
    """
    test = finding.test
    kind = finding.kind
    if kind is None:
        raise UsageError(
            f"OD test {test!r} is not classified (victim or brittle); run `orderdep classify` "
            "first, or pass --polluter."
        )
    chosen = list(polluter or [])
    if kind == "victim":
        if not chosen:
            chosen = (
                [finding.polluters[0]]
                if finding.polluters
                else list(finding.polluter_groups[0])
                if finding.polluter_groups
                else _prefix(finding.failing_order, test)
            )
        if not chosen:
            raise UsageError(f"no polluter known for victim {test!r}; pass --polluter ID")
        return kind, [*chosen, test], [test]
    if not chosen:
        chosen = (
            [finding.state_setters[0]]
            if finding.state_setters
            else list(finding.state_setter_groups[0])
            if finding.state_setter_groups
            else _prefix(finding.passing_order, test)
        )
    if not chosen:
        raise UsageError(f"no state-setter known for brittle {test!r}; pass --polluter ID")
    return kind, [test], [*chosen, test]


def _prefix(order: Sequence[str], test: str) -> list[str]:
    return list(order[: order.index(test)]) if test in order else []


def finding_for(
    executor: Executor,
    test: str,
    polluters: Sequence[str] = (),
    finding: Optional[ODFinding] = None,
) -> ODFinding:
    """The finding to debug or fix ``test`` with.

    ``polluters`` (a polluter, a state-setter for a brittle, several for a group) replace
    those of the report's ``finding``; without a classified finding the kind comes from a
    run alone, and without polluters the orders come from :func:`infer_orders`.
    """
    if finding is not None and finding.kind is not None and not polluters:
        return finding
    if not polluters:
        kind, failing, passing = infer_orders(executor, test)
        return ODFinding(test, kind, failing_order=failing, passing_order=passing)
    if finding is not None and finding.kind is not None:
        out = copy.deepcopy(finding)
    else:
        alone = executor.run([test]).outcome_of(test)
        out = ODFinding(test, "victim" if alone.is_pass else "brittle")
    group = list(polluters)
    if out.kind == "victim":
        out.polluters, out.polluter_groups = (group, []) if len(group) == 1 else ([], [group])
        out.failing_order = [*group, test]
    else:
        out.state_setters, out.state_setter_groups = (
            (group, []) if len(group) == 1 else ([], [group])
        )
        out.passing_order = [*group, test]
    return out


def infer_orders(executor: Executor, test: str) -> tuple[Kind, list[str], list[str]]:
    """Kind and orders of ``test`` from the original order and a run alone (no report).

    A test that passes alone and fails in the original order is a victim of what runs
    before it there; one that fails alone and passes there is a brittle.
    """
    ids = executor.suite.ids
    if test not in ids:
        raise UsageError(f"{test!r} is not in the collected suite; see `orderdep collect`")
    prefix = ids[: ids.index(test)]
    alone = executor.run([test]).outcome_of(test)
    in_suite = executor.run([*prefix, test]).outcome_of(test) if prefix else alone
    if alone.is_pass and in_suite.is_failure:
        return "victim", [*prefix, test], [test]
    if alone.is_failure and in_suite.is_pass:
        return "brittle", [test], [*prefix, test]
    raise UsageError(
        f"{test!r} {alone.value} alone and {in_suite.value} after the tests before it; "
        "it does not look order-dependent there. Pass --polluter ID or --report FILE."
    )
