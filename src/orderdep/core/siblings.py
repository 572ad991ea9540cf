"""Orders that put a victim's polluter right before the victim's siblings.

One polluter often has several victims, and they sit together: tests of one class (or,
outside classes, one module) read the same state. A search order shows only the victims
that happened to run after the polluter with nothing in between that set the state
again; a test that fails only when it is the first to read the state after the polluter
is seen once per order at best. Once a victim ``v`` is confirmed with the failing order
``[p, v]``, the orders ``[p, s]`` for the other tests ``s`` of ``v``'s class try each
sibling in the one place it would fail, nearest to ``v`` in the suite's order first.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from orderdep.core.suite import TestInfo

#: Siblings tried per polluter and class (nearest to the victim first).
SIBLINGS = 24


def _group(test: str) -> str:
    return TestInfo.from_node_id(test).group("class")


def nearest_siblings(victim: str, order: Sequence[str], limit: int = SIBLINGS) -> list[str]:
    """The other tests of ``victim``'s class (its module outside a class) in ``order``,
    nearest to it first (the earlier of two at the same distance first), at most
    ``limit``."""
    group = _group(victim)
    members = [t for t in order if _group(t) == group]
    if victim not in members:
        return []
    at = members.index(victim)
    ranked = sorted((i for i in range(len(members)) if i != at), key=lambda i: (abs(i - at), i))
    return [members[i] for i in ranked[: max(0, limit)]]


def sibling_orders(
    pairs: Iterable[tuple[str, str]],
    order: Sequence[str],
    skip: Collection[str],
    swept: set[tuple[str, str]],
    limit: int = SIBLINGS,
) -> list[list[str]]:
    """``[polluter, sibling]`` for each ``(polluter, victim)`` pair's nearest siblings
    in ``order``, leaving out tests in ``skip`` and the polluter itself; each polluter
    and class once (``swept`` records the ones done, and is updated)."""
    out: list[list[str]] = []
    planned: set[tuple[str, str]] = set()
    for polluter, victim in pairs:
        key = (polluter, _group(victim))
        if key in swept:
            continue
        swept.add(key)
        for sibling in nearest_siblings(victim, order, limit):
            if sibling == polluter or sibling in skip or (polluter, sibling) in planned:
                continue
            planned.add((polluter, sibling))
            out.append([polluter, sibling])
    return out


__all__ = ["SIBLINGS", "nearest_siblings", "sibling_orders"]
