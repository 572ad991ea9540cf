"""Flake rates: how likely an order-dependent test fails in a random order (004 §4.2-4.4).

The flake rate of an OD test is the fraction of orders in which it fails, over all
orders of the suite (``all``, the paper's Ω_A) or over the group-compatible orders
(``grouped``, Ω_C: each module or class contiguous). ``reverse`` is the probability that
the reverse of a passing group-compatible order fails, which is what running the
reverse of each passing order gains (004 §4.4).

Only the tests an :class:`~orderdep.core.odmodel.ODSpec` mentions matter (004 §4.2): the
others never change the outcome, and a uniform (group-compatible) order of the suite
restricted to the relevant tests is a uniform (group-compatible) order of those. So the
formulas count relevant tests per group, and sampling shuffles only relevant tests.

Closed forms (π polluters, γ cleaners, σ state-setters; needs single polluters that
all share one cleaner set, assumption A1, or single state-setters):

* victim, all orders (special case 1): π/(π+γ+1);
* victim, grouped (special case 2): with r = π1+γ1+1 relevant tests in the victim's group
  and k groups holding relevant tests,
  π1/r + (1/r)(1/k) Σ_{i>=2} π_i/(π_i+γ_i);
* brittle (the paper's "simple special case"): it fails iff it runs before every
  state-setter: 1/(σ+1) over all orders, 1/((σ1+1)(m+1)) grouped, with σ1 setters in
  its group and m other groups holding setters;
* reverse of a passing order: π/(π+γ) (special case 1); the grouped victim case sums the
  paper's three positions of the victim in its group (first, middle, last); for a
  brittle, with x its grouped rate, x/(1-x).

Anything else (polluter or state-setter groups, polluters with different cleaners, a
test that is both polluter and cleaner) is estimated by Monte-Carlo sampling with
:func:`~orderdep.core.odmodel.fails` as the oracle.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from orderdep.core.odmodel import ODSpec, fails
from orderdep.errors import UsageError

DEFAULT_SAMPLES = 20_000

Sampler = Callable[[random.Random], list[str]]
Method = Literal["formula", "sampled"]


@dataclass(frozen=True)
class FlakeRate:
    """A flake rate and how it was obtained.

    ``rate`` is None when no order qualifies: for ``reverse``, when the test can never pass
    (formula) or no sampled order passed (sampled). ``samples`` is the number of orders the
    estimate rests on (0 for a formula).
    """

    rate: float | None
    method: Method
    samples: int = 0

    @property
    def stderr(self) -> float:
        """Standard error of a sampled rate (0 for a formula)."""
        if self.method == "formula" or self.rate is None or self.samples == 0:
            return 0.0
        return math.sqrt(self.rate * (1 - self.rate) / self.samples)

    def to_json(self) -> dict[str, Any]:
        return {"rate": self.rate, "method": self.method, "samples": self.samples}


def _check_groups(spec: ODSpec, groups: Sequence[Sequence[str]]) -> dict[str, int]:
    """Map each test to its group index; the OD test must be among them."""
    group_of: dict[str, int] = {}
    for index, group in enumerate(groups):
        for test in group:
            if test in group_of:
                raise UsageError(
                    f"test {test!r} occurs twice in the suite's groups; pass each test once"
                )
            group_of[test] = index
    if spec.test not in group_of:
        raise UsageError(
            f"the OD test {spec.test!r} is not in the suite; compute flake rates only for "
            "tests of the suite"
        )
    return group_of


def restrict(spec: ODSpec, present: Collection[str]) -> ODSpec:
    """``spec`` without the tests that are not in ``present`` (they never run).

    A polluter or state-setter group with a missing member can never complete, so it goes.
    """

    def keep(tests: Sequence[str]) -> list[str]:
        return [t for t in tests if t in present]

    return ODSpec(
        test=spec.test,
        kind=spec.kind,
        polluters=keep(spec.polluters),
        polluter_groups=[list(g) for g in spec.polluter_groups if len(keep(g)) == len(g)],
        cleaners={k: keep(v) for k, v in spec.cleaners.items()},
        state_setters=keep(spec.state_setters),
        state_setter_groups=[list(g) for g in spec.state_setter_groups if len(keep(g)) == len(g)],
    )


def _simple(spec: ODSpec) -> tuple[set[str], set[str]] | None:
    """(polluters or state-setters, cleaners) when a closed form applies, else None."""
    if spec.kind == "brittle":
        if spec.state_setter_groups:
            return None
        return set(spec.state_setters) - {spec.test}, set()
    if spec.polluter_groups:
        return None
    polluters = set(spec.polluters) - {spec.test}
    cleaner_sets = {frozenset(spec.cleaners.get(p, ())) - {spec.test} for p in polluters}
    if len(cleaner_sets) > 1:
        return None  # A1 violated: polluters with different cleaners
    cleaners = set(next(iter(cleaner_sets), frozenset()))
    if cleaners & polluters:
        return None
    return polluters, cleaners


def _group_counts(
    spec: ODSpec, groups: Sequence[Sequence[str]]
) -> tuple[bool, int, int, list[tuple[int, int]]] | None:
    """(is victim, π1, γ1, [(π_i, γ_i) of every other group with relevant tests])."""
    group_of = _check_groups(spec, groups)
    simple = _simple(restrict(spec, group_of))
    if simple is None:
        return None
    bad, clean = simple
    home = group_of[spec.test]
    counts: dict[int, list[int]] = {}
    for tests, slot in ((bad, 0), (clean, 1)):
        for t in tests:
            counts.setdefault(group_of[t], [0, 0])[slot] += 1
    pi1, gamma1 = counts.pop(home, [0, 0])
    return spec.kind == "victim", pi1, gamma1, [(p, c) for p, c in counts.values()]


def formula_grouped(spec: ODSpec, groups: Sequence[Sequence[str]]) -> float | None:
    """Closed-form flake rate over group-compatible orders, or None when none applies.

    Pass one group per test for the rate over all orders (special case 1).
    """
    counts = _group_counts(spec, groups)
    if counts is None:
        return None
    victim, pi1, gamma1, others = counts
    if not victim:
        return 1 / ((pi1 + 1) * (len(others) + 1))
    r = pi1 + gamma1 + 1
    k = len(others) + 1
    return pi1 / r + sum(p / (p + c) for p, c in others) / (r * k)


def formula_all(spec: ODSpec, ids: Sequence[str]) -> float | None:
    """Closed-form flake rate over all orders of ``ids``, or None when none applies."""
    return formula_grouped(spec, [[t] for t in ids])


def formula_reverse(spec: ODSpec, groups: Sequence[Sequence[str]]) -> float | None:
    """Closed-form P(reverse fails | order passes) over group-compatible orders.

    None when no closed form applies, and also when the test can never pass (a brittle
    without state-setters); :func:`rate_reverse` tells these apart.
    """
    counts = _group_counts(spec, groups)
    if counts is None:
        return None
    victim, pi1, gamma1, others = counts
    if not victim:
        if pi1 == 0 and not others:
            return None
        x = 1 / ((pi1 + 1) * (len(others) + 1))  # the brittle is last = first, by symmetry
        return x / (1 - x)
    k = len(others) + 1
    q = sum(p / (p + c) for p, c in others)  # Σ P(group i starts / ends with a polluter)
    c_sum = sum(c / (p + c) for p, c in others)
    r = pi1 + gamma1 + 1
    if r == 1:
        # The victim is alone in its group: the group before it must end with a cleaner
        # (or not exist) and the group after it must start with a polluter.
        if k == 1:
            return 0.0
        cross = sum(c / (p + c) * (p / (p + c)) for p, c in others)
        joint = (q + c_sum * q - cross) / (k * (k - 1))
    else:
        first = pi1 / (r * (r - 1)) * (1 + c_sum) / k  # nothing or a cleaner before its group
        middle = gamma1 * pi1 / (r * (r - 1))  # cleaner right before, polluter right after
        last = gamma1 / (r * (r - 1)) * q / k  # the next group starts with a polluter
        joint = first + middle + last
    f = pi1 / r + q / (r * k)
    return joint / (1 - f)


def _relevant(spec: ODSpec, groups: Sequence[Sequence[str]]) -> list[list[str]]:
    related = spec.related_tests()
    out = [[t for t in g if t in related] for g in groups]
    return [g for g in out if g]


def grouped_sampler(groups: Sequence[Sequence[str]]) -> Sampler:
    """A sampler of uniformly random group-compatible orders (groups and tests shuffled)."""
    frozen = [list(g) for g in groups if g]

    def sample(rng: random.Random) -> list[str]:
        blocks = [list(g) for g in frozen]
        rng.shuffle(blocks)
        for block in blocks:
            rng.shuffle(block)
        return [t for block in blocks for t in block]

    return sample


def _check_samples(samples: int) -> None:
    if samples <= 0:
        raise UsageError(f"the number of samples must be positive, got {samples!r}")


def sample_rate(
    spec: ODSpec, sampler: Sampler, rng: random.Random, samples: int = DEFAULT_SAMPLES
) -> tuple[float, int]:
    """Monte-Carlo flake rate: the fraction of ``samples`` sampled orders where the test fails.

    Returns (rate, number of orders sampled).
    """
    _check_samples(samples)
    failed = sum(fails(spec, sampler(rng)) for _ in range(samples))
    return failed / samples, samples


def sample_reverse_rate(
    spec: ODSpec, sampler: Sampler, rng: random.Random, samples: int = DEFAULT_SAMPLES
) -> tuple[float | None, int]:
    """Monte-Carlo P(reverse fails | order passes) from ``samples`` sampled orders.

    Returns (rate, number of passing orders it rests on); rate is None if none passed.
    """
    _check_samples(samples)
    passed = reversed_failed = 0
    for _ in range(samples):
        order = sampler(rng)
        if not fails(spec, order):
            passed += 1
            reversed_failed += fails(spec, order[::-1])
    return (reversed_failed / passed if passed else None), passed


def rate_grouped(
    spec: ODSpec,
    groups: Sequence[Sequence[str]],
    rng: random.Random,
    samples: int = DEFAULT_SAMPLES,
) -> FlakeRate:
    """Flake rate over uniformly random group-compatible orders (formula, else sampled)."""
    exact = formula_grouped(spec, groups)
    if exact is not None:
        return FlakeRate(exact, "formula")
    rate, used = sample_rate(spec, grouped_sampler(_relevant(spec, groups)), rng, samples)
    return FlakeRate(rate, "sampled", used)


def rate_all(
    spec: ODSpec, ids: Sequence[str], rng: random.Random, samples: int = DEFAULT_SAMPLES
) -> FlakeRate:
    """Flake rate over uniformly random orders of all tests (formula, else sampled)."""
    return rate_grouped(spec, [[t] for t in ids], rng, samples)


def rate_reverse(
    spec: ODSpec,
    groups: Sequence[Sequence[str]],
    rng: random.Random,
    samples: int = DEFAULT_SAMPLES,
) -> FlakeRate:
    """P(the reverse of a passing group-compatible order fails) (formula, else sampled).

    One group per test gives the rate for orders of all tests.
    """
    exact = formula_reverse(spec, groups)
    if exact is not None:
        return FlakeRate(exact, "formula")
    if _group_counts(spec, groups) is not None:
        return FlakeRate(None, "formula")  # closed form says: no order passes
    rate, used = sample_reverse_rate(spec, grouped_sampler(_relevant(spec, groups)), rng, samples)
    return FlakeRate(rate, "sampled", used)


def flake_rates(
    spec: ODSpec,
    groups: Sequence[Sequence[str]],
    rng: random.Random,
    samples: int = DEFAULT_SAMPLES,
) -> dict[str, FlakeRate]:
    """The three rates of one OD test: ``all``, ``grouped`` and ``reverse`` (grouped)."""
    ids = [t for g in groups for t in g]
    return {
        "all": rate_all(spec, ids, rng, samples),
        "grouped": rate_grouped(spec, groups, rng, samples),
        "reverse": rate_reverse(spec, groups, rng, samples),
    }
