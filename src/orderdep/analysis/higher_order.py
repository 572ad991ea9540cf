"""Orders for dependencies on several tests, run with the search budget the systematic
strategies left.

Pair coverage (``tuscan``, ``pairs``) guarantees that a victim of one polluter and a
brittle of one state-setter are seen failing and passing. A test that needs *several*
others can stay hidden: a brittle that passes only after a set of state-setters (it
fails alone and in the original order), or a victim of a polluter pair whose cleaner
runs between the two in the original order. When a budget is given and the strategies
finished inside it, detection goes on with:

1. ``after-all``: for the tests that have failed in every order so far, two orders that
   run every other test before them, once in suite order and once reversed (a set of
   state-setters that must run in some order is then satisfied in one direction);
2. ``random``, seeded, while the budget lasts and the orders keep finding something: it
   stops once as many orders found no new failing test as had run before the last one
   that did (at least :data:`PATIENCE`), so a suite with nothing more to find does not
   spend the whole budget.

What they find goes through confirmation like every other suspect; classification then
minimises it to polluter groups and state-setter sets (delta debugging), each reported
with its minimal order.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from orderdep.analysis.search import Search
from orderdep.core import orders as gen

#: Random orders in a row that found nothing, at least, before the leftover search stops.
PATIENCE = 20
AFTER_ALL = "after-all"
LEFTOVER_RANDOM = "random (budget left)"


def never_passed(search: Search, ids: Sequence[str]) -> list[str]:
    """Tests seen failing and never passing in the orders run so far, in suite order."""
    return [t for t in ids if t in search.failed_seen and t not in search.passed_seen]


def after_all_orders(ids: Sequence[str], last: Sequence[str]) -> list[list[str]]:
    """Every test but ``last`` and then ``last``: in suite order, then reversed."""
    tail = set(last)
    others = [t for t in ids if t not in tail]
    return [[*others, *last], [*reversed(others), *reversed(last)]]


def spend_leftover(
    search: Search, ids: Sequence[str], groups: Sequence[Sequence[str]], rng: random.Random
) -> list[str]:
    """Run the orders of the module docstring while ``search``'s budget lasts; return
    the strategies that ran (for the report's list)."""
    ran: list[str] = []
    if search.budget is None or search.stopped:
        return ran
    stuck = never_passed(search, ids)
    if stuck and len(stuck) < len(ids):
        search.run_stream(AFTER_ALL, after_all_orders(ids, stuck), 2)
        ran.append(AFTER_ALL)
    if not search.stopped:
        ran.append(LEFTOVER_RANDOM)
        search.run_stream(LEFTOVER_RANDOM, _until_dry(search, groups, rng), None)
    return ran


def _until_dry(
    search: Search, groups: Sequence[Sequence[str]], rng: random.Random
) -> Iterator[list[str]]:
    """Random orders until as many in a row found no new failing test as ran before the
    last one that did (at least :data:`PATIENCE`); the search stops it at its budget."""
    done = last_new = 0
    seen = len(search.failed_seen)
    while done - last_new < max(PATIENCE, last_new):
        if len(search.failed_seen) > seen:  # read as each order is handed out
            seen, last_new = len(search.failed_seen), done
        done += 1
        yield gen.random_order(groups, rng)
