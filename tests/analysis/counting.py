"""A model suite whose victim fails after any ``needed`` earlier tests together (a counter;
a shared random generator's state behaves alike): no small group explains it."""

from __future__ import annotations

from collections.abc import Sequence

from orderdep.core.outcomes import Outcome
from orderdep.core.suite import Suite
from orderdep.synth.model import ModelExecutor


class CountingModel(ModelExecutor):
    """``ids`` as a suite; ``victim`` fails after any ``needed`` other tests, all else passes."""

    def __init__(self, ids: Sequence[str], victim: str, needed: int) -> None:
        super().__init__(Suite.from_ids(list(ids)))
        self.victim, self.needed = victim, needed

    def _outcome(self, test: str, prefix: Sequence[str]) -> Outcome:
        fails = test == self.victim and len(prefix) >= self.needed
        return Outcome.FAILED if fails else Outcome.PASSED
