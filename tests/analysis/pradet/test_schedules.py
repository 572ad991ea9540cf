"""Many data dependencies per schedule: which edges are tested together, the schedules
that invert them, how schedules are packed into orders, and that refinement finds the
same manifest dependencies as one edge per schedule, with fewer orders."""

from __future__ import annotations

import time

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from orderdep.analysis.pradet.refine import RefineProgress, refine
from orderdep.analysis.pradet.schedules import Work, pack
from orderdep.core.odmodel import ODSpec
from orderdep.core.suite import Suite
from orderdep.synth.model import ModelExecutor


def graph(*edges: tuple[str, str]) -> nx.DiGraph:
    g = nx.DiGraph()
    for dependent, dependee in edges:
        g.add_edge(dependent, dependee, roots=[f"m.{dependee}"])
    return g


def work(order: list[str], *edges: tuple[str, str]) -> Work:
    return Work(edges, {t: i for i, t in enumerate(order)})


def pairs(result: object) -> set[tuple[str, str, str]]:
    return {(m.dependent, m.dependee, m.kind) for m in result.manifest}  # type: ignore[attr-defined]


def test_edges_whose_dependents_rest_on_disjoint_tests_are_chosen_together() -> None:
    order = ["a", "b", "c", "d", "e", "f"]
    w = work(order, ("b", "a"), ("d", "c"), ("f", "e"), ("f", "b"))
    # priority: f's edges first (latest dependee first), then d's, then b's
    chosen = w.independent([("f", "e"), ("f", "b"), ("d", "c"), ("b", "a")])
    # f rests on e, b and a: its second edge and b's wait; d's edge touches none of them
    assert chosen == [("f", "e"), ("d", "c")]
    assert w.independent([("f", "e"), ("f", "b"), ("d", "c")], batch=False) == [("f", "e")]


def test_an_edge_that_moves_what_a_chosen_dependent_rests_on_waits() -> None:
    order = ["a", "b", "c"]
    w = work(order, ("c", "b"), ("b", "a"))
    # inverting b -> a moves b, which c reads: not in the same schedule as c -> b
    assert w.independent([("c", "b"), ("b", "a")]) == [("c", "b")]


def test_a_schedule_inverts_every_chosen_edge_and_keeps_the_others() -> None:
    order = ["a", "b", "c", "d", "x"]
    w = work(order, ("b", "a"), ("d", "c"), ("x", "a"))
    # b before a and d before c; ties by reference position; cut after the last
    # dependent (c, after d, and x, after a, do not run in the first)
    assert w.schedule({"a", "b", "c", "d", "x"}, [("b", "a"), ("d", "c")]) == ["b", "a", "d"]
    assert w.schedule({"a", "b", "x"}, [("b", "a")]) == ["b"]
    assert w.schedule({"a", "b", "c", "d", "x"}, [("x", "a"), ("d", "c")]) == ["d", "c", "x"]


def test_inversions_that_close_a_cycle_together_give_no_schedule() -> None:
    order = ["a", "b"]
    w = work(order, ("b", "a"))
    w.succ["a"].add("b")  # a -> b as well: inverting both is impossible
    w.pred["b"].add("a")
    assert w.schedule({"a", "b"}, [("b", "a"), ("a", "b")]) is None


def test_pack_fills_orders_up_to_the_limit_and_gives_every_worker_one() -> None:
    assert pack([], [], 10, 2) == []
    assert pack([3, 3, 3], [0, 1, 2], 10, 1) == [[0, 1, 2]]
    assert pack([6, 6, 2], [0, 1, 2], 10, 1) == [[0, 2], [1]]
    assert pack([3, 3, 3], [0, 1, 2], 10, 2) == [[0, 2], [1]]
    assert pack([12], [0], 10, 4) == [[0]]  # one schedule longer than the limit runs alone
    sizes = [5, 1, 4, 2, 3]
    bins = pack(sizes, [0, 1, 2, 3, 4], 6, 1)
    assert sorted(i for b in bins for i in b) == [0, 1, 2, 3, 4]
    assert all(sum(sizes[i] for i in b) <= 6 for b in bins)


def test_pack_keeps_parts_of_one_collected_component_apart() -> None:
    assert pack([1, 1, 1], [0, 0, 1], 10, 1) == [[0, 2], [1]]


def test_independent_components_share_one_order() -> None:
    order = ["a1", "a2", "b1", "b2", "c1", "c2"]
    specs = [ODSpec("a2", "brittle", state_setters=["a1"])]
    edges = graph(("a2", "a1"), ("b2", "b1"), ("c2", "c1"))
    one = refine(ModelExecutor(Suite.from_ids(order), specs), edges, order, batch=False)
    many = refine(ModelExecutor(Suite.from_ids(order), specs), edges, order)
    assert pairs(one) == pairs(many) == {("a2", "a1", "brittle")}
    assert one.orders_run == 1 + 3
    assert many.orders == [order, ["a2", "b2", "c2"]]
    assert many.manifest[0].failing_order == ["a2"]  # its own component's schedule
    assert sorted(many.removed) == sorted(one.removed)


def test_a_deadline_leaves_the_edges_untested() -> None:
    order = ["s", "b", "x"]
    ex = ModelExecutor(Suite.from_ids(order), [ODSpec("b", "brittle", state_setters=["s"])])
    seen: list[RefineProgress] = []
    result = refine(
        ex,
        graph(("b", "s"), ("x", "s")),
        order,
        deadline=time.monotonic() - 1,
        on_progress=seen.append,
    )
    assert result.manifest == [] and result.removed == []
    assert sorted(result.untested) == [("b", "s"), ("x", "s")]
    assert ex.history == [order]  # the reference run only
    assert result.to_json()["untested"] == [["x", "s"], ["b", "s"]]
    assert seen[-1].tested == 0 and seen[-1].total == 2


@st.composite
def suites(draw: st.DrawFn) -> tuple[list[str], list[ODSpec], nx.DiGraph]:
    """A suite with planted victims and brittles of one partner each, and a
    data-dependency graph that holds every planted pair (as the probe records it, the
    partner runs first) plus spurious edges from readers back to earlier tests."""
    n = draw(st.integers(3, 12))
    order = [f"t{i}" for i in range(n)]
    specs: list[ODSpec] = []
    edges: set[tuple[str, str]] = set()
    for i in draw(st.sets(st.integers(1, n - 1), max_size=4)):
        partner = order[draw(st.integers(0, i - 1))]
        if draw(st.booleans()):
            specs.append(ODSpec(order[i], "victim", polluters=[partner]))
        else:
            specs.append(ODSpec(order[i], "brittle", state_setters=[partner]))
        edges.add((order[i], partner))
    for _ in range(draw(st.integers(0, 2 * n))):
        i = draw(st.integers(1, n - 1))
        edges.add((order[i], order[draw(st.integers(0, i - 1))]))
    return order, specs, graph(*sorted(edges))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(suites())
def test_batched_refinement_finds_every_partner_one_edge_per_schedule_finds(
    case: tuple[list[str], list[ODSpec], nx.DiGraph],
) -> None:
    """Each planted pair is manifest (unless its inversion can never be scheduled) both
    ways, and only OD tests get dependencies. Beyond that the two may differ: which
    edges are left when an edge is tested depends on the order they are tested in, as
    with alternative partners (either of two polluters suffices), where PRADET keeps
    whichever it tests last."""
    order, specs, edges = case
    one_ex = ModelExecutor(Suite.from_ids(order), specs)
    many_ex = ModelExecutor(Suite.from_ids(order), specs)
    one = refine(one_ex, edges, order, batch=False)
    many = refine(many_ex, edges, order)
    od = {s.test for s in specs}
    for result in (one, many):
        for s in specs:
            pair = (s.test, [*s.polluters, *s.state_setters][0])
            assert (*pair, s.kind) in pairs(result) or pair in result.untestable
        assert {m.dependent for m in result.manifest} <= od
    assert many.executions == many_ex.executions
    assert many.orders_run <= one.orders_run
