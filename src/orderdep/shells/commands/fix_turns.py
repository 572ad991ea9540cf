"""The turns ``orderdep fix`` gives the OD tests it repairs within a budget.

One test whose state no candidate explains can spend the whole budget on candidates that
each fail, while the tests after it, often a one-line fix each, never start. So each test
first gets an equal share of what is left (at least :data:`MIN_TURN` seconds; all of it
when it is the last to start). A test its share stopped gets a second turn once every
test has had its first, with all that is left then, in the order they were stopped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, Optional, TypeVar

T = TypeVar("T")

#: The least a first turn gets (seconds), when the budget allows.
MIN_TURN = 20.0


@dataclass(frozen=True)
class Turn(Generic[T]):
    """One turn of the ``index``-th item; ``second``: its first turn was stopped."""

    index: int
    item: T
    second: bool = False


class Turns(Generic[T]):
    """The turns of ``items``, in order, then the second turns (see the module doc)."""

    def __init__(self, items: Sequence[T]) -> None:
        self._queue: deque[Turn[T]] = deque(Turn(i, item) for i, item in enumerate(items))

    def __iter__(self) -> Iterator[Turn[T]]:
        while self._queue:
            yield self._queue.popleft()

    def share(self, turn: Turn[T], seconds: Optional[float]) -> Optional[float]:
        """The seconds ``turn`` may use of the ``seconds`` left (None: no limit)."""
        if seconds is None or turn.second:
            return seconds
        firsts = 1 + sum(1 for t in self._queue if not t.second)
        if firsts == 1:
            return seconds
        return min(seconds, max(MIN_TURN, seconds / firsts))

    def again(self, turn: Turn[T]) -> bool:
        """Give a stopped first turn a second one (False: it was a second turn)."""
        if turn.second:
            return False
        self._queue.append(Turn(turn.index, turn.item, second=True))
        return True


__all__ = ["MIN_TURN", "Turn", "Turns"]
