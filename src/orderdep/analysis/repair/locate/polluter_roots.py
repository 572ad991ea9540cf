"""A victim whose polluters change different state: the roots of each, restored together.

The Debugger looks at one failing order, the first polluter's. A victim's other polluters
may leave other state behind (one test adds to a singleton's list, another changes its
separator), and a patch built from the first order's roots then still fails after them.
So the restore those roots suggest is screened in each other failing order (one run each,
at most :data:`MAX_ORDERS`). An order where it does not make the victim pass is debugged
too (at most :data:`MAX_DEBUGS`), and the roots of every order are merged into one set
that the candidates restore together; an object changed in place by several polluters
becomes one root whose differing attributes are those of all of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Callable, Optional

from orderdep.analysis.repair.locate.debugger import DebugError
from orderdep.analysis.repair.locate.root_changes import change_lines
from orderdep.analysis.repair.locate.root_info import DebugResult, RootInfo, object_attributes
from orderdep.analysis.repair.locate.screening import Screen
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.analysis.repair.verify.verify import Target

MAX_ORDERS = 12
MAX_DEBUGS = 3

DebugOrder = Callable[[list[str]], DebugResult]
Restores = Callable[[RootInfo], list[tuple[list[str], list[str]]]]


def every_polluters_roots(
    primary: DebugResult,
    target: Target,
    screen: Screen,
    debug_order: DebugOrder,
    restores_of: Restores,
    namespace: Optional[str],
    notes: list[str],
) -> DebugResult:
    """``primary``, or its roots merged with those of the failing orders they do not explain.

    ``screen`` runs statements before the victim in the orders of a target,
    ``debug_order`` debugs the victim in one failing order, and ``restores_of`` gives the
    ways to restore a root (statements, fixtures they need), smallest first.
    """
    if primary.kind != "victim" or not primary.found:
        return primary
    others = [o for o in target.failing_orders if o != primary.failing_order][:MAX_ORDERS]
    extras: list[DebugResult] = []
    current = primary
    for order in others:
        code = _restore_code(current.culprits, restores_of)
        if code is None:
            break  # a root with no restore: nothing to screen with
        stmts, fixtures = code
        one = Target(target.test, [order], target.passing_orders)
        if screen(one, stmts, namespace, fixtures):
            continue
        if len(extras) == MAX_DEBUGS:
            notes.append(
                f"debugger: more than {MAX_DEBUGS} failing orders need roots of their own; "
                f"the one after {order[0]} was not debugged"
            )
            break
        try:
            found = debug_order(order)
        except DebugError as exc:
            notes.append(f"debugger (after {order[0]}): {exc}")
            continue
        if not found.found:
            notes.append(
                f"debugger (after {order[0]}): restoring the roots that differ there does not "
                "explain the failure"
            )
            continue
        extras.append(found)
        current = merged(primary, extras)
    return current


def _restore_code(
    roots: Sequence[RootInfo], restores_of: Restores
) -> Optional[tuple[str, list[str]]]:
    """The first restore of every root, as one piece of code and the fixtures it needs."""
    stmts: list[str] = []
    fixtures: list[str] = []
    for root in roots:
        ways = restores_of(root)
        if not ways:
            return None
        stmts += [s for s in ways[0][0] if s not in stmts]
        fixtures += [f for f in ways[0][1] if f not in fixtures]
    return "\n".join(stmts), fixtures


def merged(primary: DebugResult, extras: Sequence[DebugResult]) -> DebugResult:
    """One result whose culprits, restored together, explain every debugged order."""
    roots: dict[str, RootInfo] = {}
    for res in (primary, *extras):
        for root in _needed(res):
            roots[root.name] = union(roots[root.name], root) if root.name in roots else root
    known = {r.name for r in primary.differing}
    differing = [roots.get(r.name, r) for r in primary.differing]
    differing += [r for name, r in roots.items() if name not in known]
    after = ", ".join(res.failing_order[0] for res in extras)
    return dataclasses.replace(
        primary,
        differing=differing,
        polluted=[],
        together=list(roots),
        unrestorable={k: v for res in (primary, *extras) for k, v in res.unrestorable.items()},
        runs=primary.runs + sum(res.runs for res in extras),
        notes=[
            *primary.notes,
            f"the polluters differ in what they change: the roots found after {after} are "
            "restored together with those found after the first",
        ],
    )


def _needed(res: DebugResult) -> list[RootInfo]:
    """The roots to restore for one order: its first polluted root, else its minimal set."""
    return [res.root(res.polluted[0])] if res.polluted else res.culprits


def union(first: RootInfo, second: RootInfo) -> RootInfo:
    """``first`` with the attributes ``second`` changed too, when both are one object
    changed in place (a different kind of change keeps ``first``)."""
    f = first.failing.desc
    described = object_attributes(first.passing.desc, f, second.failing.desc)
    if described is None:
        return first
    before, one, two = described
    values: dict[Any, Any] = {}
    for key in [*before, *(k for k in [*one, *two] if k not in before)]:
        if one.get(key, _MISSING) != before.get(key, _MISSING):
            chosen = one.get(key, _MISSING)
        else:
            chosen = two.get(key, _MISSING)
        if chosen is not _MISSING:
            values[key] = chosen
    desc = [f[0], f[1], [[k, v] for k, v in values.items()]]
    failing = ValueView(True, desc, None, first.failing.type, first.failing.importable)
    return dataclasses.replace(
        first, failing=failing, changes=tuple(change_lines(first.kind, failing, first.passing))
    )


_MISSING = object()
