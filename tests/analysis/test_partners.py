"""Group testing finds exactly the partners one-by-one search finds (model executor)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from orderdep.analysis.classify import classify
from orderdep.analysis.classify_steps import Counts, Runner
from orderdep.analysis.partners import (
    find_cleaners,
    find_polluters,
    find_state_setters,
    hidden_polluters,
)
from orderdep.core.odmodel import ODSpec, fails_at, group_key
from orderdep.core.outcomes import Outcome
from orderdep.core.report import ODFinding, Report
from orderdep.core.suite import Suite
from orderdep.synth.model import ModelExecutor

OD = "tests/test_od.py::test_od"


def ids(n: int) -> list[str]:
    return [f"tests/test_m{i % 7}.py::test_{i:03d}" for i in range(n)]


@st.composite
def victims(draw: st.DrawFn) -> tuple[list[str], ODSpec]:
    """A victim with single polluters (each with at most one cleaner, cleaners may be
    shared) and polluter groups, among up to 120 other tests."""
    others = ids(draw(st.integers(2, 120)))
    pick = st.sampled_from(others)
    polluters = sorted(set(draw(st.lists(pick, max_size=5))))
    rest = [t for t in others if t not in polluters]
    cleaners: dict[str, list[str]] = {}
    for p in polluters:
        if rest and draw(st.booleans()):
            cleaners[p] = [draw(st.sampled_from(rest))]
    groups = []
    if len(rest) >= 2 and draw(st.booleans()):
        a, b = draw(st.lists(st.sampled_from(rest), min_size=2, max_size=2, unique=True))
        groups.append([a, b])
        cleaners[group_key([a, b])] = []
    spec = ODSpec(OD, "victim", polluters=polluters, polluter_groups=groups, cleaners=cleaners)
    return others, spec


@st.composite
def brittles(draw: st.DrawFn) -> tuple[list[str], ODSpec]:
    others = ids(draw(st.integers(2, 120)))
    pick = st.sampled_from(others)
    setters = sorted(set(draw(st.lists(pick, max_size=5))))
    rest = [t for t in others if t not in setters]
    groups = []
    if len(rest) >= 3 and draw(st.booleans()):
        groups.append(draw(st.lists(st.sampled_from(rest), min_size=2, max_size=3, unique=True)))
    spec = ODSpec(OD, "brittle", state_setters=setters, state_setter_groups=groups)
    return others, spec


def runner_for(others: list[str], spec: ODSpec) -> tuple[Runner, ModelExecutor]:
    model = ModelExecutor(Suite.from_ids([*others, OD]), [spec])
    return Runner(model, OD, Counts()), model


@settings(max_examples=150, deadline=None)
@given(victims())
def test_polluters_and_cleaners_are_exactly_the_one_by_one_answers(
    case: tuple[list[str], ODSpec],
) -> None:
    others, spec = case
    runner, _ = runner_for(others, spec)
    one_by_one = [t for t in others if fails_at(spec, [t])]
    assert find_polluters(runner, others) == one_by_one
    # the first partner alone, depth first
    assert find_polluters(runner, others, limit=1) == one_by_one[:1]
    excluded = set(one_by_one).union(*spec.polluter_groups)
    pool = [t for t in others if t not in excluded]
    for key, members in spec.polluter_keys():
        triples = [c for c in pool if not fails_at(spec, [*members, c])]
        assert find_cleaners(runner, members, pool) == triples, key
        assert find_cleaners(runner, members, pool, limit=1) == triples[:1], key


@settings(max_examples=150, deadline=None)
@given(brittles())
def test_state_setters_are_exactly_the_one_by_one_answers(
    case: tuple[list[str], ODSpec],
) -> None:
    others, spec = case
    runner, _ = runner_for(others, spec)
    one_by_one = [t for t in others if not fails_at(spec, [t])]
    assert find_state_setters(runner, others) == one_by_one


def test_group_testing_runs_far_fewer_orders_than_one_by_one() -> None:
    others = ids(500)
    spec = ODSpec(OD, "victim", polluters=[others[40], others[333]],
                  cleaners={others[40]: [others[41]]})  # fmt: skip
    runner, model = runner_for(others, spec)
    assert find_polluters(runner, others) == [others[40], others[333]]
    # 2 partners x log2(500) levels x (forward + reverse) x 2 halves, plus confirmations
    assert model.orders_run <= 2 * 9 * 2 * 2 + 4
    assert model.orders_run < len(others) // 5


@st.composite
def dense_victims(draw: st.DrawFn) -> tuple[list[str], ODSpec, list[str]]:
    """Polluters of one state that many tests reset (cleaners on both sides of every
    polluter, as a per-module reset fixture gives), and a random failing order."""
    others = ids(draw(st.integers(4, 80)))
    polluters = sorted(set(draw(st.lists(st.sampled_from(others), min_size=1, max_size=4))))
    rest = [t for t in others if t not in polluters]
    shared = draw(st.lists(st.sampled_from(rest), unique=True, max_size=len(rest))) if rest else []
    spec = ODSpec(OD, "victim", polluters=polluters, cleaners={p: list(shared) for p in polluters})
    last = draw(st.sampled_from(polluters))
    before = draw(st.lists(st.sampled_from(others), unique=True, max_size=10))
    failing = [*[t for t in before if t != last], last, OD]
    return others, spec, failing


@settings(max_examples=100, deadline=None)
@given(dense_victims())
def test_classify_finds_polluters_hidden_by_cleaners_on_both_sides(
    case: tuple[list[str], ODSpec, list[str]],
) -> None:
    others, spec, failing = case
    model = ModelExecutor(Suite.from_ids([*others, OD]), [spec])
    report = Report(project="/p", tests=[*others, OD],
                    od_tests=[ODFinding(OD, failing_order=failing, passing_order=[OD])])  # fmt: skip
    finding = classify(model, report, flake_samples=10, all_cleaners=True).od_tests[0]
    assert finding.polluters == [t for t in others if fails_at(spec, [t])]
    pool = [t for t in others if t not in spec.polluters]
    for p in finding.polluters:
        assert finding.cleaners[p] == [c for c in pool if not fails_at(spec, [p, c])]


@st.composite
def reset_victims(draw: st.DrawFn) -> tuple[list[str], ODSpec]:
    """Polluters of one state (at most three, so that tests are left to reset it) and a few
    tests that reset it (a fixture some tests use), among up to 200 other tests."""
    others = ids(draw(st.integers(4, 200)))
    polluters = sorted(set(draw(st.lists(st.sampled_from(others), min_size=1, max_size=3))))
    rest = [t for t in others if t not in polluters]
    resets = draw(st.lists(st.sampled_from(rest), unique=True, min_size=1, max_size=6))
    spec = ODSpec(OD, "victim", polluters=polluters, cleaners={p: list(resets) for p in polluters})
    return others, spec


@settings(max_examples=150, deadline=None)
@given(reset_victims())
def test_polluters_found_past_a_few_resets_are_exactly_the_one_by_one_answers(
    case: tuple[list[str], ODSpec],
) -> None:
    others, spec = case
    runner, _ = runner_for(others, spec)
    found = find_polluters(runner, others)
    if not found:  # every set hid them: classification minimises the failing order then
        return
    hidden = hidden_polluters(runner, others, found)
    assert hidden == [t for t in others if fails_at(spec, [t])]


def test_a_few_resets_do_not_cost_one_order_per_candidate() -> None:
    """Two tests reset the polluted state: their polluters are searched again without
    them, not by one pair per candidate."""
    others = ids(500)
    polluters, resets = [others[40], others[250], others[333]], [others[100], others[400]]
    spec = ODSpec(OD, "victim", polluters=polluters, cleaners={p: resets for p in polluters})
    runner, model = runner_for(others, spec)
    found = find_polluters(runner, others)
    assert hidden_polluters(runner, others, found) == polluters
    assert model.orders_run < len(others) // 3  # one pair per candidate: over 500


class UndoneSetterModel(ModelExecutor):
    """A brittle passes when ``setter`` is the last of ``setter`` and ``undoers`` run
    before it (each test rewrites one configuration the brittle reads)."""

    def __init__(self, suite: Suite, brittle: str, setter: str, undoers: list[str]) -> None:
        super().__init__(suite)
        self.brittle, self.setter, self.undoers = brittle, setter, set(undoers)

    def _outcome(self, test: str, prefix: Sequence[str]) -> Outcome:
        if test != self.brittle:
            return Outcome.PASSED
        last = [t for t in prefix if t == self.setter or t in self.undoers][-1:]
        return Outcome.PASSED if last == [self.setter] else Outcome.FAILED


def test_classify_names_a_state_setter_that_others_undo_in_every_group() -> None:
    # every other test undoes what the setter set up: no group containing it passes,
    # so group testing misses it; the passing order's prefix names it
    others = ids(12)
    setter = others[5]
    model = UndoneSetterModel(
        Suite.from_ids([*others, OD]), OD, setter, [t for t in others if t != setter]
    )
    report = Report(project="/p", tests=[*others, OD],
                    od_tests=[ODFinding(OD, failing_order=[OD], passing_order=[setter, OD])])  # fmt: skip
    finding = classify(model, report, flake_samples=10).od_tests[0]
    assert finding.kind == "brittle"
    assert finding.state_setters == [setter]
    assert finding.state_setter_groups == []
