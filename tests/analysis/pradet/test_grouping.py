"""Group testing of data dependencies in components too entangled to batch exactly."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_schedules import graph, pairs, work

from orderdep.analysis.pradet import grouping as grouping_module
from orderdep.analysis.pradet.grouping import GROUP_MIN_EDGES, MAX_SIZE, MIN_SIZE, Grouping
from orderdep.analysis.pradet.refine import refine
from orderdep.core.odmodel import ODSpec
from orderdep.core.suite import Suite
from orderdep.synth.model import ModelExecutor


def test_a_group_takes_one_edge_per_dependent_in_priority_order_up_to_its_size() -> None:
    order = [f"t{i:02d}" for i in range(40)]
    edges = [(order[i], order[j]) for i in range(1, 40) for j in range(max(0, i - 3), i)]
    priority = sorted(edges, key=lambda e: (-order.index(e[0]), -order.index(e[1])))
    got = Grouping(size=MIN_SIZE).choose(work(order, *edges), set(order), priority)
    assert got is not None
    chosen, schedule = got
    assert len(chosen) == MIN_SIZE
    assert len({d for d, _ in chosen}) == len(chosen)  # one per dependent
    assert chosen == [e for e in priority if e in chosen]  # priority kept
    for dependent, dependee in chosen:  # every chosen edge is inverted in the schedule
        assert dependee not in schedule or schedule.index(dependee) > schedule.index(dependent)


def test_edges_that_close_a_cycle_together_are_split_and_the_fitting_ones_kept() -> None:
    order = [f"t{i}" for i in range(12)]
    edges = [(order[i], order[j]) for i in range(1, 12) for j in range(i)]  # all pairs
    w = work(order, *edges)
    priority = sorted(edges, key=lambda e: (-order.index(e[0]), -order.index(e[1])))
    got = Grouping(size=MIN_SIZE).choose(w, set(order), priority)
    assert got is not None
    chosen, schedule = got
    # t11 -> t10 and t10 -> t9 inverted together would need t9 both before t11 (kept
    # t11 -> t9) and after t10, which runs after t11: only every other one fits
    assert chosen == [(f"t{i}", f"t{i - 1}") for i in (11, 9, 7, 5, 3, 1)]
    assert w.schedule(set(order), chosen) == schedule


def test_flagged_edges_are_left_to_the_exact_test() -> None:
    order = ["a", "b", "c"]
    w = work(order, ("b", "a"), ("c", "b"))
    g = Grouping()
    g.flagged.add(("c", "b"))
    got = g.choose(w, set(order), [("c", "b"), ("b", "a")])
    assert got is not None and got[0] == [("b", "a")]
    assert g.exact_first([("b", "a"), ("c", "b")]) == [("c", "b"), ("b", "a")]


def test_the_size_doubles_after_a_clean_group_and_halves_after_a_change() -> None:
    g = Grouping(size=32)
    g.judged([], 32)
    assert g.size == 64 and g.removed == 32
    g.judged([("a", "b")], 10)
    assert g.size == 32 and ("a", "b") in g.flagged and g.groups_run == 2
    for _ in range(20):
        g.judged([("x", "y")], 0)
    assert g.size == MIN_SIZE
    for _ in range(20):
        g.judged([], 1)
    assert g.size == MAX_SIZE


def counter_suite(n: int) -> tuple[list[str], nx.DiGraph]:
    """Every test reads and writes one counter: each depends on the one before it (one
    component, no two edges independent), plus a planted brittle and victim."""
    order = [f"t{i:03d}" for i in range(n)]
    edges = {(order[i], order[i - 1]) for i in range(1, n)}
    edges.add((order[n - 5], order[3]))  # brittle t(n-5) needs the state t3 sets
    edges.add((order[n - 2], order[n // 2]))  # victim t(n-2) of t(n/2)
    return order, graph(*sorted(edges))


def test_an_entangled_component_costs_far_fewer_orders_and_finds_the_same_pairs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    order, edges = counter_suite(200)
    assert edges.number_of_edges() > GROUP_MIN_EDGES
    specs = [
        ODSpec(order[195], "brittle", state_setters=[order[3]]),
        ODSpec(order[198], "victim", polluters=[order[100]]),
    ]
    grouped_ex = ModelExecutor(Suite.from_ids(order), specs)
    grouped = refine(grouped_ex, edges, order)
    monkeypatch.setattr(grouping_module, "GROUP_MIN_EDGES", 10**9)
    exact_ex = ModelExecutor(Suite.from_ids(order), specs)
    exact = refine(exact_ex, edges, order)
    want = {(order[195], order[3], "brittle"), (order[198], order[100], "victim")}
    assert pairs(grouped) == pairs(exact) == want
    assert grouped.orders_run * 5 < exact.orders_run
    assert not grouped.untested and not exact.untested


@st.composite
def entangled(draw: st.DrawFn) -> tuple[list[str], list[ODSpec], nx.DiGraph]:
    """A chain of counter edges through 70-110 tests (so groups are used), spurious
    edges, and planted single-partner victims and brittles."""
    n = draw(st.integers(70, 110))
    order = [f"t{i:03d}" for i in range(n)]
    edges = {(order[i], order[i - 1]) for i in range(1, n)}
    specs: list[ODSpec] = []
    for i in draw(st.sets(st.integers(2, n - 1), max_size=5)):
        partner = order[draw(st.integers(0, i - 2))]
        kind = draw(st.sampled_from(["victim", "brittle"]))
        specs.append(
            ODSpec(order[i], "victim", polluters=[partner])
            if kind == "victim"
            else ODSpec(order[i], "brittle", state_setters=[partner])
        )
        edges.add((order[i], partner))
    for _ in range(draw(st.integers(0, n))):
        i = draw(st.integers(2, n - 1))
        edges.add((order[i], order[draw(st.integers(0, i - 2))]))
    return order, specs, graph(*sorted(edges))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(entangled())
def test_grouped_refinement_reports_only_true_pairs_and_every_planted_one(
    case: tuple[list[str], list[ODSpec], nx.DiGraph],
) -> None:
    order, specs, edges = case
    result = refine(ModelExecutor(Suite.from_ids(order), specs), edges, order)
    truth = {(s.test, p, s.kind) for s in specs for p in (*s.polluters, *s.state_setters)}
    for s in specs:
        pair = (s.test, [*s.polluters, *s.state_setters][0])
        assert (*pair, s.kind) in pairs(result) or pair in result.untestable
    assert pairs(result) <= truth
