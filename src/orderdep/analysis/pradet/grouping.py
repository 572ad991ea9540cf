"""Group testing of data dependencies, for components too entangled to batch exactly.

On a real library one root written by nearly every test (a creation counter, a class
registry) ties the whole suite into one component in which every dependent rests on
almost every earlier test, so :meth:`~.schedules.Work.independent` picks one edge per
schedule and a budget tests a few hundred of tens of thousands. Nearly all of them are
not manifest. Group testing inverts many edges in one schedule and keeps the exact test
for the few that may be manifest:

* A *group* is up to :attr:`Grouping.size` edges of the component in priority order,
  one per dependent (a dependent's edges are still tested one at a time, latest dependee
  first), whose inversions together leave a schedule (a part that closes a cycle is
  split in halves, each kept if it fits with what is kept so far).
* A dependent whose outcome is the reference's in that schedule does not depend on its
  inverted edge the way refinement asks (its dependee ran after it), and the edge is
  removed. A dependent whose outcome changed is *flagged*: its edge goes back to the
  exact test, one edge with every other one kept, so a manifest dependency is only ever
  reported from a schedule that inverts it alone among what its dependent rests on.
* The size adapts: it doubles after a group in which no outcome changed and halves after
  one in which some did (Hwang's adaptive splitting), between :data:`MIN_SIZE` and
  :data:`MAX_SIZE`.

What it trades: another inversion in the same schedule can move a cleaner before the
dependent and hide a real dependency (the edge is then removed, as one masked by an
alternative dependency is in the exact way; PRADET's alternatives step tries removed
dependencies of tests that behave differently alone). Components with at most
:data:`GROUP_MIN_EDGES` edges left are tested the exact way only, and ``batch=False``
(the paper's one edge per schedule) never groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from orderdep.analysis.pradet.schedules import Edge, Work

# Components with more edges than this left (and not flagged) are group tested.
GROUP_MIN_EDGES = 64
MIN_SIZE = 8
MAX_SIZE = 1024
# Schedules computed to build one group (halving the edges that close a cycle together).
MAX_TRIES = 64


class Grouping:
    """The group size and the edges flagged for the exact test, across rounds."""

    def __init__(self, size: int = 32) -> None:
        self.size = max(MIN_SIZE, min(MAX_SIZE, size))
        self.flagged: set[Edge] = set()
        self.groups_run = 0
        self.removed = 0  # edges a group removed

    def wanted(self, edges: Sequence[Edge]) -> bool:
        """Whether a component with these edges left is group tested this round."""
        return sum(e not in self.flagged for e in edges) > GROUP_MIN_EDGES

    def exact_first(self, edges: Sequence[Edge]) -> list[Edge]:
        """``edges`` with the flagged ones first (each keeps its priority otherwise)."""
        return [e for e in edges if e in self.flagged] + [e for e in edges if e not in self.flagged]

    def choose(
        self, work: Work, component: set[str], edges: Sequence[Edge]
    ) -> Optional[tuple[list[Edge], list[str]]]:
        """A group of unflagged edges, in priority order, one per dependent, and the
        schedule that inverts them all; None when no edge can be inverted."""
        candidates: list[Edge] = []
        dependents: set[str] = set()
        for edge in edges:
            if edge in self.flagged or edge[0] in dependents or work.inverts_into_cycle(edge):
                continue
            candidates.append(edge)
            dependents.add(edge[0])
        accepted: list[Edge] = []
        schedule: Optional[list[str]] = None
        tries = 0

        def add(batch: list[Edge]) -> None:
            nonlocal schedule, tries
            if not batch or tries >= MAX_TRIES:
                return
            tries += 1
            got = work.schedule(component, [*accepted, *batch])
            if got is not None:
                accepted.extend(batch)
                schedule = got
            elif len(batch) > 1:  # some of them close a cycle together: split
                half = len(batch) // 2
                add(batch[:half])
                add(batch[half:])

        start = 0
        while start < len(candidates) and len(accepted) < self.size and tries < MAX_TRIES:
            batch = candidates[start : start + self.size - len(accepted)]
            start += len(batch)
            add(batch)
        if schedule is None:
            return None
        kept = set(accepted)
        return [e for e in candidates if e in kept], schedule

    def judged(self, changed: Sequence[Edge], removed: int) -> None:
        """After a group ran: flag the edges whose dependent's outcome changed, and
        adapt the size."""
        self.groups_run += 1
        self.removed += removed
        self.flagged.update(changed)
        if changed:
            self.size = max(MIN_SIZE, self.size // 2)
        else:
            self.size = min(MAX_SIZE, self.size * 2)


__all__ = ["GROUP_MIN_EDGES", "MAX_SIZE", "MIN_SIZE", "Grouping"]
