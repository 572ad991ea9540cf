"""Order generators on test-id strings: the strategies orderdep can run.

Every generator is pure: it takes the test ids (or their groups, from
``Suite.groups(level)``) and a ``random.Random`` where it needs randomness, so one seed
reproduces every order. A *group-compatible* order keeps each group's tests contiguous
(JUnit never interleaves classes, pytest runs a module's or class's tests together when
shuffling by bucket; 004 §3). Level ``none`` may be passed either as one group holding
every test or as one group per test: both allow every permutation and give the same
distributions and guarantees here.

Strategies (names as used on the command line):

* ``original``, ``reverse`` and ``isolation``, and ``pairs`` (every ordered pair as its own
  order): the DTDetector baselines (001 §VI);
* ``random``: uniform over group-compatible orders;
* ``random-reverse``: random orders, each one in which nothing new failed followed by its
  reverse (004 §4.4);
* ``tuscan``: group-compatible orders covering every consecutive pair (004 §5, Algorithm 1).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Literal

from orderdep.core.tuscan import pair_cover
from orderdep.errors import UsageError

STRATEGIES = ("original", "reverse", "isolation", "pairs", "random", "random-reverse", "tuscan")
# Strategies that produce as many orders as asked for (the others have a fixed set).
RANDOM_STRATEGIES = ("random", "random-reverse")


def original(ids: Sequence[str]) -> list[str]:
    """The tests in their original (collection) order."""
    return list(ids)


def reverse(ids: Sequence[str]) -> list[str]:
    """The original order reversed; group-compatible whenever the original order is."""
    return list(ids)[::-1]


def isolation(ids: Sequence[str]) -> list[list[str]]:
    """Every test alone in its own order (a victim passes, a brittle fails)."""
    return [[test] for test in ids]


def pairs(ids: Sequence[str]) -> Iterator[list[str]]:
    """Every ordered pair ``[a, b]`` of distinct tests: DTDetector's exhaustive pair baseline.

    There are :func:`pairs_count` of them, so they are yielded lazily.
    """
    for a in ids:
        for b in ids:
            if a != b:
                yield [a, b]


def pairs_count(ids: Sequence[str]) -> int:
    """How many orders :func:`pairs` yields: n(n-1) for n distinct tests."""
    n = len(set(ids))
    return n * (n - 1)


def random_order(groups: Sequence[Sequence[str]], rng: random.Random) -> list[str]:
    """A uniformly random group-compatible order of all tests.

    The groups are shuffled and the tests are shuffled within each group; every one of the
    k! * prod(n_i!) group-compatible orders is equally likely (004 §3).
    """
    blocks = [list(group) for group in groups if group]
    rng.shuffle(blocks)
    for block in blocks:
        rng.shuffle(block)
    return [test for block in blocks for test in block]


def tuscan(groups: Sequence[Sequence[str]], rng: random.Random) -> list[list[str]]:
    """Group-compatible orders covering every consecutive pair (Algorithm 1, 004 §5)."""
    return pair_cover(groups, rng)


class RandomReverse:
    """Random orders, each followed by its reverse when it found nothing new (004 §4.4).

    A passing order may have a polluter after its victim, so its reverse puts the polluter
    before the victim: the reverse of a passing order fails more often than a fresh random
    order (for one polluter and γ cleaners, π/(π+γ) instead of π/(π+γ+1)).

    Protocol: call :meth:`next_order`, run the order, then call :meth:`feedback` with whether
    it failed in a way not seen before. After a random order with ``feedback(False)`` the
    next order is its reverse; after a reverse, or a random order that found something new
    (or got no feedback), the next order is a fresh random one. The reverse of the
    group-compatible order is again group-compatible.

    ``after``: an order already run that found nothing new (the original order, whose
    tests pass in it): the chain starts with its reverse, as it would after a random
    order that found nothing. A brittle whose state-setters all run before it in the
    original order (70 of them, say, which a random order rarely all puts after it) and a
    victim whose polluter runs after it fail there at once.
    """

    def __init__(
        self,
        groups: Sequence[Sequence[str]],
        rng: random.Random,
        after: Sequence[str] | None = None,
    ) -> None:
        self._groups = [list(g) for g in groups]
        self._rng = rng
        self._last: list[str] | None = list(after) if after else None
        self._reverse_next = self._last is not None
        self.last_kind: Literal["random", "reverse"] | None = None
        """Whether the latest order from :meth:`next_order` was random or a reverse."""

    def next_order(self) -> list[str]:
        """The next order to run."""
        if self._reverse_next and self._last is not None:
            order = self._last[::-1]
            self.last_kind = "reverse"
        else:
            order = random_order(self._groups, self._rng)
            self.last_kind = "random"
        self._last = order
        self._reverse_next = False
        return list(order)

    def feedback(self, new_failures: bool) -> None:
        """Report whether the latest order failed in a way not seen before."""
        if self._last is None:
            raise UsageError("feedback() was called before next_order(); run an order first")
        self._reverse_next = self.last_kind == "random" and not new_failures


def generate(
    strategy: str, groups: Sequence[Sequence[str]], rng: random.Random, count: int = 1
) -> list[list[str]]:
    """The orders of ``strategy`` for tests grouped as ``groups`` (original order inside).

    ``count`` is the number of orders for ``random`` and ``random-reverse`` (the latter
    without feedback alternates random order, reverse, random order, ...); the other
    strategies have a fixed set of orders and ignore it.
    """
    ids = [test for group in groups for test in group]
    if strategy == "original":
        return [original(ids)]
    if strategy == "reverse":
        return [reverse(ids)]
    if strategy == "isolation":
        return isolation(ids)
    if strategy == "pairs":
        return list(pairs(ids))
    if strategy == "tuscan":
        return tuscan(groups, rng)
    if strategy not in RANDOM_STRATEGIES:
        raise UsageError(
            f"unknown order strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}"
        )
    if count < 0:
        raise UsageError(f"the number of random orders must be >= 0, got {count!r}")
    if strategy == "random":
        return [random_order(groups, rng) for _ in range(count)]
    gen = RandomReverse(groups, rng)
    orders = []
    for _ in range(count):
        orders.append(gen.next_order())
        gen.feedback(False)
    return orders
