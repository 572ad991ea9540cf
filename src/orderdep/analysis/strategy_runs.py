"""Running the search's strategies one after the other, once the original order (and
the default plan's timing orders) ran: each strategy's orders as
:mod:`orderdep.core.orders` makes them, until they end or the search stops.

When the default plan runs each test alone (``isolation``) before ``random-reverse``, the
original order reversed, random-reverse's first order, runs before it: the one order that
exposes every victim of a single polluter and every brittle of a single state-setter that
pass in the original order. Isolation costs a whole order's tests and more, and a suite
whose tests alone cost more than the timing orders showed (a session's set-up paid again
for each) used to spend the budget there before the reverse order ran.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional

from orderdep.analysis.default_strategy import IsolationPlan, run_isolation
from orderdep.analysis.search import Search
from orderdep.core import orders as gen

#: Orders of a random strategy without a budget or an order limit.
DEFAULT_ROUNDS = 20
#: Said when the default search runs the original order reversed before each test alone.
REVERSED_FIRST = (
    "orderdep: search: the original order reversed first (there a victim runs after the "
    "polluters that followed it, and a brittle before the state-setters that preceded it), "
    "then each test alone"
)


def _random_stream(groups: Sequence[Sequence[str]], rng: random.Random) -> Iterator[list[str]]:
    while True:
        yield gen.random_order(groups, rng)


def rounds_of(rounds: Optional[int], search: Search) -> Optional[int]:
    """Orders for a random strategy: as asked; else until stopped when a budget or an
    order limit will stop it; else :data:`DEFAULT_ROUNDS`."""
    if rounds is not None:
        return rounds
    if search.budget is not None or search.max_orders is not None:
        return None
    return DEFAULT_ROUNDS


@dataclass
class StrategyRuns:
    """What :func:`run_strategies` leaves: whether the strategy that ran last promised
    orders until a limit stops it, and where each fixed-set strategy stopped (the index
    of its next order)."""

    open_ended: bool = False
    next_order: dict[str, int] = field(default_factory=dict)


def run_strategies(
    search: Search,
    strategies: Sequence[str],
    ids: Sequence[str],
    groups: Sequence[Sequence[str]],
    rng: random.Random,
    *,
    rounds: Optional[int],
    alone: Optional[IsolationPlan],
    tail: Sequence[str],
    start_at: Optional[Mapping[str, int]],
    say: Callable[[str], None],
) -> StrategyRuns:
    """Run ``strategies`` in order on ``ids`` (kept together as ``groups``) until the
    search stops. ``alone``: the default plan's isolation; ``tail``: slow tests the orders
    leave out, which end the first reversed order when it fits; ``start_at``: see
    :func:`~orderdep.analysis.detect.detect`."""
    out = StrategyRuns()
    reversed_first = False  # random-reverse's first order (the original reversed) ran
    for strategy in strategies:
        if search.stopped:
            break
        out.open_ended = False
        if strategy == "isolation" and alone is not None and alone.runs:
            if strategies[-1] == "random-reverse" and rounds_of(rounds, search) != 0:
                say(REVERSED_FIRST)
                search.random_reverse(groups, rng, 1, original=ids, tail=tail)
                reversed_first = True
            if not search.stopped:
                run_isolation(search, ids, alone, strategies[-1], say)
        elif strategy == "random-reverse":
            total = rounds_of(rounds, search)
            out.open_ended = total is None
            if reversed_first:  # its first order ran before isolation
                total = None if total is None else max(0, total - 1)
            search.random_reverse(
                groups, rng, total, original=None if reversed_first else ids,
                tail=() if reversed_first else tail,
            )  # fmt: skip
        elif strategy == "random":
            total = rounds_of(rounds, search)
            out.open_ended = total is None
            stream = _random_stream(groups, rng)
            search.run_stream(
                strategy, stream if total is None else itertools.islice(stream, total), total
            )
        elif strategy == "pairs":
            search.run_stream(strategy, gen.pairs(ids), gen.pairs_count(ids))
        elif strategy == "nio":
            search.run_stream(strategy, [[t, t] for t in ids], len(ids), nio=True)
        else:
            planned = gen.generate(strategy, groups, rng)
            first = (start_at or {}).get(strategy, 0) % max(1, len(planned))
            rotated = planned[first:] + planned[:first]
            run = search.run_stream(strategy, rotated, len(planned))
            out.next_order[strategy] = (first + run) % max(1, len(planned))
    return out


__all__ = ["DEFAULT_ROUNDS", "REVERSED_FIRST", "StrategyRuns", "rounds_of", "run_strategies"]
