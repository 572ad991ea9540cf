"""The turns ``orderdep fix`` gives the OD tests it repairs within a budget.

One test whose state no candidate explains can spend the whole budget on candidates that
each fail, while the tests after it, often a one-line fix each, never start. So each test
first gets an equal share of what is left (at least :data:`MIN_TURN` seconds, or
:data:`SUITE_RUNS` runs of the whole suite when verification runs it: a repair that
cannot verify one candidate in its share only wastes it; all of it when it is the last
to start). A test its share stopped gets a second turn once every
test has had its first, with all that is left then, in the order they were stopped.
Victims and brittles take their first turns in alternation, a victim first: a victim's
fix puts back what one polluter changed, a brittle's has to build what its state-setters
leave, and neither kind may starve the other (on Tale, three brittles no candidate
explained took the turns its victim never got; on hera, nine victims would take all the
turns before its brittle's).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from typing import Generic, Optional, TypeVar

T = TypeVar("T")

#: The least a first turn gets (seconds), when the budget allows.
MIN_TURN = 20.0
#: ... or this many runs of the whole suite, when verification runs it (the two unpatched
#: runs a first verification needs, and the patched run of one or two candidates).
SUITE_RUNS = 4


@dataclass(frozen=True)
class Turn(Generic[T]):
    """One turn of the ``index``-th item; ``second``: its first turn was stopped."""

    index: int
    item: T
    second: bool = False


class Turns(Generic[T]):
    """The turns of ``items``, in order, then the second turns (see the module doc)."""

    def __init__(
        self,
        items: Sequence[T],
        least: float = MIN_TURN,
        first: Callable[[T], bool] = bool,
        group: Optional[Callable[[T], str]] = None,
    ) -> None:
        """``first``: the items whose first turns alternate with the others', one of
        them first (the order given kept within each; the rest of the longer kind last).
        ``group``: items of one group (the victims of one polluter) count as one when
        shares are made: one repair at the polluter often repairs them all, and the rest
        then only find nothing left to fix."""
        self.group = group or (lambda item: str(id(item)))
        turns = [Turn(i, item) for i, item in enumerate(items)]
        ahead = [t for t in turns if first(t.item)]
        behind = [t for t in turns if not first(t.item)]
        both = zip_longest(ahead, behind)
        self._queue = deque(t for pair in both for t in pair if t is not None)
        self.least = max(MIN_TURN, least)

    def __iter__(self) -> Iterator[Turn[T]]:
        while self._queue:
            yield self._queue.popleft()

    def share(self, turn: Turn[T], seconds: Optional[float]) -> Optional[float]:
        """The seconds ``turn`` may use of the ``seconds`` left (None: no limit)."""
        if seconds is None or turn.second:
            return seconds
        mine = self.group(turn.item)
        firsts = 1 + len({self.group(t.item) for t in self._queue if not t.second} - {mine})
        if firsts == 1:
            return seconds
        return min(seconds, max(self.least, seconds / firsts))

    def again(self, turn: Turn[T]) -> bool:
        """Give a stopped first turn a second one (False: it was a second turn)."""
        if turn.second:
            return False
        self._queue.append(Turn(turn.index, turn.item, second=True))
        return True


def least_turn(suite_seconds: Optional[float], runs: int = SUITE_RUNS) -> float:
    """The least a first turn gets, for a suite whose original order takes
    ``suite_seconds`` (None: unknown): ``runs`` runs of it (:data:`SUITE_RUNS` when
    verification runs it; one when it runs only in the set check, for the debug and the
    verifications of a suite that size: 20 s cut every debug of a 37-s suite's victims)."""
    return max(MIN_TURN, runs * (suite_seconds or 0.0))


__all__ = ["MIN_TURN", "SUITE_RUNS", "Turn", "Turns", "least_turn"]
