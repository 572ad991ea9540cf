"""How many test files each run of the collection check collects.

Each file alone (``pytest FILE``) is the check's exact question, and it costs one fresh
pytest per file: on a suite of 180 files whose pytest takes 2 s to start, six minutes
before a single test of theirs runs. When each file alone does not fit the check's
share of the budget, the check collects several files in one run instead, as a shard of
a CI job does: a test that needs another file's import-time code still fails there
unless that file shares its run. The runs are planned from what the first ones cost
(:class:`Pace`): as many as fit, so each collects as few files as the time allows
(:func:`group_size`), and the files of one run are taken apart from each other in the
check's order (:func:`spread`), so that neighbours, which more often need each other,
seldom share a run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from orderdep.core.outcomes import OrderResult

#: Of the seconds left, what the plan may count on (runs vary; the last must fit too).
PLAN_SHARE = 0.9


@dataclass(frozen=True)
class Pace:
    """What a run of the check costs: a fresh pytest's start-up and collection beyond its
    tests (the least seen), and a test's own time (the mean seen)."""

    overhead: float
    per_test: float

    def cost(self, runs: int, tests: int) -> float:
        return runs * self.overhead + tests * self.per_test


def pace_of(results: Sequence[OrderResult]) -> Optional[Pace]:
    """The pace of ``results`` (runs of the check); None before any."""
    if not results:
        return None
    own = [sum(r.duration for r in result.results) for result in results]
    overhead = min(max(0.0, result.wall_seconds - s) for result, s in zip(results, own))
    tests = sum(len(result.results) for result in results)
    return Pace(overhead, sum(own) / tests if tests else 0.0)


def group_size(
    files_left: int, tests_left: int, seconds_left: Optional[float], pace: Optional[Pace]
) -> int:
    """How many of the ``files_left`` files (``tests_left`` tests in all) the next run
    collects: one while each file alone fits :data:`PLAN_SHARE` of ``seconds_left``
    (always one before the pace is known, or without a budget); else as many runs as the
    time left pays start-ups for once the tests' own time is counted, at least two."""
    if files_left <= 1 or pace is None or seconds_left is None:
        return 1
    time = PLAN_SHARE * seconds_left
    if pace.cost(files_left, tests_left) <= time:
        return 1
    spare = time - tests_left * pace.per_test
    runs = int(spare // pace.overhead) if pace.overhead > 0 else files_left
    return math.ceil(files_left / max(2, min(runs, files_left)))


def spread(files: Sequence[str], size: int) -> list[str]:
    """``size`` of ``files`` for one run, taken apart from each other: every k-th one
    from the first, k being ``len(files) // size``."""
    if size >= len(files):
        return list(files)
    step = max(1, len(files) // size)
    return list(files[::step][:size])


__all__ = ["PLAN_SHARE", "Pace", "group_size", "pace_of", "spread"]
