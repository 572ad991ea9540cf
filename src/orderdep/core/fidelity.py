"""Comparing runners position by position: which orders to sample, what counts as a mismatch.

orderdep's findings rest on one promise: an order run by the fork runner gives the same
outcome at every position as the same order run in a fresh ``python -m pytest``. A
fidelity check runs a sample of orders under several runners and lists every position
where a runner's outcome differs from the reference runner's. Pure: works on test ids
and :class:`~orderdep.core.outcomes.OrderResult` values.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from orderdep.core.outcomes import OrderResult

REFERENCE = "plain"


@dataclass(frozen=True)
class SampleOrder:
    """One order of the sample and why it is there (``original``, ``alone``, ...)."""

    label: str
    order: tuple[str, ...]


def sample_orders(
    ids: Sequence[str], *, seed: int, random_orders: int = 5, singles: int = 20
) -> list[SampleOrder]:
    """The original order, its reverse, ``random_orders`` seeded shuffles, then up to
    ``singles`` tests alone (spread over the suite), most telling first."""
    ids = list(ids)
    out = [SampleOrder("original", tuple(ids))]
    if len(ids) > 1:
        out.append(SampleOrder("reverse", tuple(reversed(ids))))
    rng = random.Random(seed)
    for k in range(random_orders if len(ids) > 2 else 0):
        shuffled = list(ids)
        rng.shuffle(shuffled)
        out.append(SampleOrder(f"random #{k + 1}", tuple(shuffled)))
    if singles > 0 and len(ids) > 1:
        step = max(1, len(ids) / singles)
        picked = sorted({ids[int(i * step)] for i in range(min(singles, len(ids)))}, key=ids.index)
        out += [SampleOrder("alone", (test,)) for test in picked]
    return out


# A mismatch stores its order in the cache only when it is this short (``doctor`` shows
# the commands of such orders); a longer one is the sample's (the original order).
STORED_ORDER = 8
# Mismatches written to the cache; the rest are counted (``mismatch_count``).
STORED_MISMATCHES = 100


@dataclass(frozen=True)
class Mismatch:
    """A position where a runner's outcome differs from the reference's.

    ``order`` is the whole order in memory; read back from a cache it is empty unless it
    was short (:data:`STORED_ORDER`), and ``test`` names the test either way."""

    label: str
    order: tuple[str, ...]
    position: int
    outcomes: dict[str, str]
    messages: dict[str, str]
    test: str = ""

    def __post_init__(self) -> None:
        if not self.test:
            object.__setattr__(self, "test", self.order[self.position])

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "label": self.label,
            "position": self.position,
            "test": self.test,
            "outcomes": self.outcomes,
            "messages": self.messages,
        }
        if len(self.order) <= STORED_ORDER:
            data["order"] = list(self.order)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Mismatch:
        order = tuple(str(t) for t in data.get("order") or ())
        position = int(data["position"])
        test = str(data.get("test") or "")
        if not test:  # files written before ``test`` was stored had the whole order
            test = order[position]
        if order and (position >= len(order) or order[position] != test):
            order = ()
        return cls(
            str(data["label"]),
            order,
            position,
            dict(data["outcomes"]),
            dict(data["messages"]),
            test,
        )


def compare(
    sample: SampleOrder, results: Mapping[str, OrderResult], reference: str = REFERENCE
) -> list[Mismatch]:
    """Every position of ``sample`` where a runner disagrees with ``reference``."""
    out: list[Mismatch] = []
    for i in range(len(results[reference].results)):
        outcomes = {name: r.results[i].outcome.value for name, r in results.items()}
        if len(set(outcomes.values())) > 1:
            messages = {name: r.results[i].message for name, r in results.items()}
            out.append(Mismatch(sample.label, sample.order, i, outcomes, messages))
    return out


def unstable(found: Sequence[Mismatch], reruns: Sequence[tuple[str, OrderResult]]) -> set[str]:
    """The tests of ``found`` whose outcome changed between runs of their order under one
    runner: ``reruns`` are (runner, result) of the same order run again. Such a test is
    non-deterministic; its mismatch is chance, not a difference between the runners."""
    out: set[str] = set()
    for m in found:
        seen: dict[str, set[str]] = {name: {outcome} for name, outcome in m.outcomes.items()}
        for name, result in reruns:
            if m.position < len(result.results):
                seen.setdefault(name, set()).add(result.results[m.position].outcome.value)
        if any(len(outcomes) > 1 for outcomes in seen.values()):
            out.add(m.test)
    return out


@dataclass(frozen=True)
class SampleCost:
    """What running a sample under some runners costs, counted before it starts."""

    orders: int
    runners: int
    executions: int  # test executions: positions x runners
    fresh: int  # orders that start a fresh pytest process (every runner but fork)

    @classmethod
    def of(cls, samples: Sequence[SampleOrder], runners: Sequence[str]) -> SampleCost:
        positions = sum(len(s.order) for s in samples)
        fresh = sum(1 for r in runners if r not in ("fork", "prefork")) * len(samples)
        return cls(len(samples), len(runners), positions * len(runners), fresh)


def estimate_seconds(samples: Sequence[SampleOrder], walls: Mapping[str, float]) -> float:
    """Seconds to run ``samples`` under the runners of ``walls`` (each runner's wall time
    for the whole original order, the first sample).

    The fastest runner's time is taken as the tests' own (spread evenly over the tests),
    and what another runner took beyond it as the start of one of its orders (a fresh
    interpreter, imports and collection), paid again by every order it runs. An
    estimate, not a bound: tests that share an expensive set-up cost more apart.
    """
    if not samples or not walls:
        return 0.0
    tests = max(1, len(samples[0].order))
    fastest = min(walls.values())
    per_test = fastest / tests
    positions = sum(len(s.order) for s in samples)
    return sum(len(samples) * (wall - fastest) + positions * per_test for wall in walls.values())


@dataclass
class FidelityReport:
    """What a check compared and what it found.

    ``planned`` orders (``planned_positions`` positions) were drawn; ``orders``
    (``positions``) ran under every runner before the check ended or its time ran out.
    ``walls`` holds each runner's time for the original order once it ran, to price the
    rest.
    ``volatile``: tests collected under other ids in a fresh process, compared under
    their first collection's id (see :mod:`orderdep.core.volatile`); ``left_out``: tests
    a fresh process did not collect at all, left out of the orders compared.
    """

    runners: list[str]
    orders: int = 0
    positions: int = 0
    planned: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    planned_positions: int = 0
    walls: dict[str, float] = field(default_factory=dict)
    volatile: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    # Mismatches found, also those a cache did not keep (see STORED_MISMATCHES).
    mismatch_count: int = 0
    # tests whose outcome changed between runs of one order under one runner: a
    # difference of theirs says nothing about the runners (see :func:`unstable`)
    nondeterministic: list[str] = field(default_factory=list)

    @property
    def faithful(self) -> bool:
        return not self.mismatches

    @property
    def complete(self) -> bool:
        return self.orders >= self.planned

    def add(self, sample: SampleOrder, results: Mapping[str, OrderResult]) -> list[Mismatch]:
        found = compare(sample, results)
        if self.orders == 0 and sample.label == "original":
            self.walls = {name: r.wall_seconds for name, r in results.items()}
        self.orders += 1
        self.positions += len(sample.order)
        self.mismatches += found
        self.mismatch_count += len(found)
        return found

    def forgive(self, tests: Iterable[str]) -> None:
        """Drop the mismatches of ``tests``, found non-deterministic."""
        gone = set(tests)
        kept = [m for m in self.mismatches if m.test not in gone]
        self.mismatch_count -= len(self.mismatches) - len(kept)
        self.mismatches = kept
        self.nondeterministic += [t for t in sorted(gone) if t not in self.nondeterministic]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "runners": self.runners,
            "orders": self.orders,
            "positions": self.positions,
            "planned": self.planned,
            "planned_positions": self.planned_positions,
            "mismatches": [m.to_json() for m in self.mismatches[:STORED_MISMATCHES]],
            "mismatch_count": max(self.mismatch_count, len(self.mismatches)),
        }
        if self.volatile:
            data["volatile"] = self.volatile
        if self.left_out:
            data["left_out"] = self.left_out
        if self.nondeterministic:
            data["nondeterministic"] = self.nondeterministic
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FidelityReport:
        mismatches = [Mismatch.from_json(m) for m in data.get("mismatches", [])]
        return cls(
            list(data["runners"]),
            int(data["orders"]),
            int(data["positions"]),
            int(data.get("planned", data["orders"])),
            mismatches,
            planned_positions=int(data.get("planned_positions", data["positions"])),
            volatile=[str(t) for t in data.get("volatile", [])],
            left_out=[str(t) for t in data.get("left_out", [])],
            mismatch_count=int(data.get("mismatch_count", len(mismatches))),
            nondeterministic=[str(t) for t in data.get("nondeterministic", [])],
        )
