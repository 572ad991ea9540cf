"""Flake rates (004 §4.2-4.4): closed forms against exact enumeration and sampling."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Sequence
from fractions import Fraction

import pytest

from orderdep.core.flakerate import (
    FlakeRate,
    flake_rates,
    formula_all,
    formula_grouped,
    formula_reverse,
    grouped_sampler,
    rate_all,
    rate_grouped,
    rate_reverse,
    restrict,
    sample_rate,
    sample_reverse_rate,
)
from orderdep.core.odmodel import ODSpec, fails, group_key
from orderdep.errors import UsageError


def compatible_orders(groups: Sequence[Sequence[str]]) -> Iterator[list[str]]:
    """Every group-compatible order (k! * prod n_i! of them)."""
    for blocks in itertools.permutations([g for g in groups if g]):
        for inner in itertools.product(*(itertools.permutations(b) for b in blocks)):
            yield [t for block in inner for t in block]


def exact(spec: ODSpec, groups: Sequence[Sequence[str]]) -> tuple[Fraction, Fraction | None]:
    """(flake rate, P(reverse fails | pass)) by enumerating every group-compatible order."""
    total = failed = passed = reversed_failed = 0
    for order in compatible_orders(groups):
        total += 1
        if fails(spec, order):
            failed += 1
        else:
            passed += 1
            reversed_failed += fails(spec, order[::-1])
    return Fraction(failed, total), (Fraction(reversed_failed, passed) if passed else None)


def singletons(groups: Sequence[Sequence[str]]) -> list[list[str]]:
    return [[t] for g in groups for t in g]


def random_case(rng: random.Random, a1: bool = True) -> tuple[ODSpec, list[list[str]]]:
    """A tiny suite (<= 7 tests in 1-4 groups) with one victim or brittle on it."""
    n = rng.randint(2, 7)
    tests = [f"t{i}" for i in range(n)]
    cuts = sorted(rng.sample(range(1, n), rng.randint(0, min(3, n - 1))))
    groups = [tests[a:b] for a, b in zip([0, *cuts], [*cuts, n])]
    test, *rest = rng.sample(tests, n)
    roles = [rng.choice("pcx") for _ in rest]  # polluter / setter, cleaner, irrelevant
    bad = [t for t, r in zip(rest, roles) if r == "p"]
    clean = [t for t, r in zip(rest, roles) if r == "c"]
    if rng.random() < 0.3:
        return ODSpec(test, "brittle", state_setters=bad), groups
    cleaners = {p: list(clean) for p in bad}
    if not a1 and bad:
        cleaners[bad[0]] = clean[:1]
    return ODSpec(test, "victim", polluters=bad, cleaners=cleaners), groups


@pytest.mark.parametrize("seed", range(150))
def test_closed_forms_equal_exact_enumeration(seed: int) -> None:
    spec, groups = random_case(random.Random(seed))
    for gs in (groups, singletons(groups)):
        rate, reverse = exact(spec, gs)
        assert formula_grouped(spec, gs) == pytest.approx(float(rate), abs=1e-12)
        got = formula_reverse(spec, gs)
        if reverse is None:
            assert got is None and spec.kind == "brittle"
        else:
            assert got == pytest.approx(float(reverse), abs=1e-12)
    assert formula_all(spec, [t for g in groups for t in g]) == formula_grouped(
        spec, singletons(groups)
    )


def test_special_case_1_values() -> None:
    # π = 2 polluters, γ = 3 cleaners, all in one group plus irrelevant tests.
    ids = ["v", "p1", "p2", "c1", "c2", "c3", "x1", "x2"]
    cleaners = ["c1", "c2", "c3"]
    spec = ODSpec("v", "victim", polluters=["p1", "p2"], cleaners={"p1": cleaners, "p2": cleaners})
    assert formula_all(spec, ids) == pytest.approx(2 / 6)
    assert formula_grouped(spec, [ids]) == pytest.approx(2 / 6)
    assert formula_reverse(spec, [ids]) == pytest.approx(2 / 5)
    assert formula_reverse(spec, [[t] for t in ids]) == pytest.approx(2 / 5)


def test_special_case_2_value() -> None:
    # victim group: v, p, c (π1 = γ1 = 1); group 2: one polluter; group 3: polluter + cleaner.
    groups = [["v", "p", "c"], ["p2", "x"], ["p3", "c3"]]
    cl = ["c", "c3"]
    spec = ODSpec(
        "v", "victim", polluters=["p", "p2", "p3"], cleaners=dict.fromkeys(["p", "p2", "p3"], cl)
    )
    expected = 1 / 3 + (1 / 3) * (1 / 3) * (1 + 1 / 2)
    assert formula_grouped(spec, groups) == pytest.approx(expected)
    assert formula_all(spec, [t for g in groups for t in g]) == pytest.approx(3 / 6)


def test_brittle_closed_forms() -> None:
    groups = [["b", "s1", "x"], ["s2"], ["s3", "y"], ["z"]]
    spec = ODSpec("b", "brittle", state_setters=["s1", "s2", "s3"])
    assert formula_all(spec, [t for g in groups for t in g]) == pytest.approx(1 / 4)
    assert formula_grouped(spec, groups) == pytest.approx(1 / (2 * 3))
    assert formula_reverse(spec, groups) == pytest.approx((1 / 6) / (5 / 6))
    lonely = ODSpec("b", "brittle")
    assert formula_grouped(lonely, groups) == 1.0
    assert formula_reverse(lonely, groups) is None
    assert rate_reverse(lonely, groups, random.Random(0)) == FlakeRate(None, "formula")


def test_no_polluter_in_suite_means_rate_zero() -> None:
    spec = ODSpec("v", "victim", polluters=["gone"])
    assert formula_grouped(spec, [["v", "a"], ["b"]]) == 0.0
    assert formula_reverse(spec, [["v", "a"], ["b"]]) == 0.0


def complex_specs() -> list[tuple[ODSpec, list[list[str]]]]:
    """Specs with no closed form: different cleaners, polluter groups, setter groups."""
    groups = [["v", "p1", "c1"], ["p2", "c2", "x"], ["a", "b"]]
    return [
        (ODSpec("v", "victim", ["p1", "p2"], cleaners={"p1": ["c1"], "p2": ["c2", "c1"]}), groups),
        (
            ODSpec(
                "v",
                "victim",
                ["p1"],
                polluter_groups=[["a", "b"]],
                cleaners={group_key(["a", "b"]): ["c2"]},
            ),
            groups,
        ),
        (ODSpec("v", "brittle", ["x"], state_setter_groups=[["p2", "a"]]), groups),
        (ODSpec("v", "victim", ["p1", "c1"], cleaners={"p1": ["c1"], "c1": ["c1"]}), groups),
    ]


@pytest.mark.parametrize("case", range(4))
def test_sampling_matches_enumeration_when_no_closed_form(case: int) -> None:
    spec, groups = complex_specs()[case]
    assert formula_grouped(spec, groups) is None and formula_reverse(spec, groups) is None
    rng = random.Random(case)
    for gs in (groups, singletons(groups)):
        rate, reverse = exact(spec, gs)
        got = rate_grouped(spec, gs, rng, samples=8_000)
        assert got.method == "sampled" and got.samples == 8_000
        assert got.rate is not None
        assert abs(got.rate - float(rate)) < 4 * math.sqrt(rate * (1 - rate) / 8_000) + 1e-9
        back = rate_reverse(spec, gs, rng, samples=8_000)
        assert back.method == "sampled" and reverse is not None and back.rate is not None
        se = math.sqrt(reverse * (1 - reverse) / back.samples)
        assert abs(back.rate - float(reverse)) < 4 * se + 1e-9


@pytest.mark.parametrize("seed", range(6))
def test_closed_forms_match_monte_carlo_on_larger_suites(seed: int) -> None:
    rng = random.Random(seed)
    tests = [f"m{g}.py::t{i}" for g in range(6) for i in range(rng.randint(1, 8))]
    groups = [[t for t in tests if t.startswith(f"m{g}.")] for g in range(6)]
    victim, *rest = rng.sample(tests, len(tests))
    bad, clean = rest[: rng.randint(1, 6)], rest[7 : 7 + rng.randint(0, 8)]
    spec = ODSpec(victim, "victim", bad, cleaners={p: clean for p in bad})
    samples = 4_000
    for gs in (groups, singletons(groups)):
        f = formula_grouped(spec, gs)
        assert f is not None
        got, used = sample_rate(spec, grouped_sampler(gs), rng, samples)
        assert used == samples
        assert abs(got - f) < 4 * math.sqrt(f * (1 - f) / samples) + 1e-9
        r = formula_reverse(spec, gs)
        assert r is not None
        back, passed = sample_reverse_rate(spec, grouped_sampler(gs), rng, samples)
        assert back is not None and passed > 200
        assert abs(back - r) < 4 * math.sqrt(r * (1 - r) / passed) + 1e-9


def test_reverse_beats_random_for_special_case_1() -> None:
    for pi, gamma in itertools.product(range(1, 5), range(0, 5)):
        ids = ["v"] + [f"p{i}" for i in range(pi)] + [f"c{i}" for i in range(gamma)]
        cl = ids[1 + pi :]
        spec = ODSpec("v", "victim", ids[1 : 1 + pi], cleaners={p: cl for p in ids[1 : 1 + pi]})
        r, f = formula_reverse(spec, [ids]), formula_grouped(spec, [ids])
        assert r is not None and f is not None
        assert r == pytest.approx(pi / (pi + gamma)) and r > f


def test_flake_rates_reports_methods() -> None:
    groups = [["v", "p", "c"], ["p2", "x"]]
    spec = ODSpec("v", "victim", ["p", "p2"], cleaners={"p": ["c"], "p2": ["c"]})
    rates = flake_rates(spec, groups, random.Random(0))
    assert set(rates) == {"all", "grouped", "reverse"}
    assert all(r.method == "formula" and r.samples == 0 and r.stderr == 0 for r in rates.values())
    rate, reverse = exact(spec, groups)
    assert rates["grouped"].rate == pytest.approx(float(rate))
    assert rates["reverse"].rate == pytest.approx(float(reverse or 0))
    assert rates["all"].rate == pytest.approx(float(exact(spec, singletons(groups))[0]))
    assert rates["all"].to_json() == {"rate": rates["all"].rate, "method": "formula", "samples": 0}

    hard, hard_groups = complex_specs()[0]
    sampled = flake_rates(hard, hard_groups, random.Random(1), samples=500)
    assert all(r.method == "sampled" for r in sampled.values())
    assert sampled["all"].samples == 500 and 0 < sampled["all"].stderr < 0.05
    again = flake_rates(hard, hard_groups, random.Random(1), samples=500)
    assert sampled == again


def test_rate_all_uses_ids() -> None:
    spec = ODSpec("v", "victim", ["p"])
    assert rate_all(spec, ["v", "p", "x"], random.Random(0)) == FlakeRate(0.5, "formula")


def test_restrict_drops_absent_tests_and_incomplete_groups() -> None:
    spec = ODSpec(
        "v",
        "victim",
        ["p", "gone"],
        polluter_groups=[["a", "b"], ["a", "missing"]],
        cleaners={"p": ["c", "gone"]},
        state_setters=["s", "gone"],
    )
    small = restrict(spec, {"v", "p", "a", "b", "c", "s"})
    assert small.polluters == ["p"] and small.polluter_groups == [["a", "b"]]
    assert small.cleaners == {"p": ["c"]} and small.state_setters == ["s"]


def test_errors() -> None:
    spec = ODSpec("v", "victim", ["p"])
    with pytest.raises(UsageError, match="'v'"):
        rate_grouped(spec, [["p", "x"]], random.Random(0))
    with pytest.raises(UsageError, match="'p'"):
        formula_grouped(spec, [["v", "p"], ["p"]])
    with pytest.raises(UsageError, match="0"):
        sample_rate(spec, grouped_sampler([["v", "p"]]), random.Random(0), samples=0)
