from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Optional

import networkx as nx
import pytest

from orderdep.analysis.pradet.refine import RefineProgress, pradet, refine
from orderdep.core.odmodel import ODSpec
from orderdep.core.outcomes import OrderResult
from orderdep.core.suite import Suite
from orderdep.engine.executor import ResultCallback
from orderdep.engine.probe import ProbeSpec
from orderdep.errors import UsageError
from orderdep.synth.model import ModelExecutor


def graph(*edges: tuple[str, str]) -> nx.DiGraph:
    g = nx.DiGraph()
    for dependent, dependee in edges:
        g.add_edge(dependent, dependee, roots=[f"m.{dependee}"])
    return g


def brittle(test: str, *setters: str) -> ODSpec:
    return ODSpec(test=test, kind="brittle", state_setters=list(setters))


def victim(test: str, *polluters: str) -> ODSpec:
    return ODSpec(test=test, kind="victim", polluters=list(polluters))


def executor(ids: Sequence[str], *specs: ODSpec) -> ModelExecutor:
    return ModelExecutor(Suite.from_ids(ids), specs)


def pairs(result: Any) -> set[tuple[str, str]]:
    return {(m.dependent, m.dependee) for m in result.manifest}


def test_true_dependency_confirmed_spurious_ones_removed() -> None:
    order = ["s", "b", "x", "y"]
    ex = executor(order, brittle("b", "s"))
    result = refine(ex, graph(("b", "s"), ("x", "s"), ("y", "b")), order)
    assert pairs(result) == {("b", "s")}
    dep = result.manifest[0]
    assert dep.kind == "brittle" and dep.roots == ["m.s"]
    assert dep.failing_order == ["b"] and dep.passing_order == ["s", "b"]
    assert sorted(result.removed) == [("x", "s"), ("y", "b")]
    assert result.untestable == []
    # source-first: y's edge, then x's, then b's; each schedule cut after the dependent
    assert result.orders == [order, ["s", "x", "y"], ["x"], ["b"]]
    assert result.executions == 4 + 3 + 1 + 1 == ex.executions
    assert result.orders_run == ex.orders_run == 4
    assert result.data_dependencies == 3
    assert result.to_specs() == [brittle("b", "s")]


def test_given_reference_run_is_not_rerun() -> None:
    order = ["s", "b"]
    ex = executor(order, brittle("b", "s"))
    reference = ex.run(order)
    result = refine(ex, graph(("b", "s")), order, reference=reference)
    assert pairs(result) == {("b", "s")}
    assert result.executions == 1 and ex.executions == 2 + 1


def test_victim_failing_in_the_reference_order() -> None:
    order = ["p", "v", "z"]
    ex = executor(order, victim("v", "p"))
    result = refine(ex, graph(("v", "p"), ("z", "p")), order)
    assert pairs(result) == {("v", "p")}
    dep = result.manifest[0]
    assert dep.kind == "victim"
    assert dep.failing_order == ["p", "v"] and dep.passing_order == ["v"]
    assert result.to_specs() == [victim("v", "p")]


def test_figure4_case_a_cycle_deferred_then_tested() -> None:
    order = ["t1", "t2", "t3"]
    ex = executor(order, brittle("t3", "t2"))
    result = refine(ex, graph(("t2", "t1"), ("t3", "t1"), ("t3", "t2")), order)
    assert pairs(result) == {("t3", "t2")}
    assert result.removed == [("t2", "t1"), ("t3", "t1")]
    assert result.untestable == []
    # t3 -> t1 is tested last, with the manifest t3 -> t2 kept: t2 runs before t3
    assert result.orders[-1] == ["t2", "t3"]


def test_figure4_case_b_untestable_edge_is_reported() -> None:
    order = ["t1", "t2", "t3"]
    ex = executor(order, brittle("t2", "t1"), brittle("t3", "t2"))
    result = refine(ex, graph(("t2", "t1"), ("t3", "t1"), ("t3", "t2")), order)
    assert pairs(result) == {("t3", "t2"), ("t2", "t1")}
    assert result.untestable == [("t3", "t1")]
    assert result.removed == []
    assert result.executions == 3 + 2 + 1


def test_figure5_source_first_does_not_misjudge_a_masked_precondition() -> None:
    # t3 reads "initialized" (last written by t1, also written by t2) and "foo" (t2 only):
    # it really needs t2. Testing t3 -> t1 first would run [t3] alone and blame t1.
    order = ["t1", "t2", "t3"]
    ex = executor(order, brittle("t3", "t2"))
    result = refine(ex, graph(("t3", "t1"), ("t3", "t2")), order)
    assert ex.history[1] == ["t1", "t3"]  # t3 -> t2 first: the later dependee
    assert pairs(result) == {("t3", "t2")}
    assert result.removed == [("t3", "t1")]
    assert ex.history[2] == ["t2", "t3"]  # t3 -> t1 tested with t2 still before t3


def test_components_are_batched_when_jobs_allow() -> None:
    order = ["a1", "a2", "b1", "b2", "b3"]
    specs = [brittle("a2", "a1"), brittle("b3", "b1")]

    class Counting(ModelExecutor):
        batches: ClassVar[list[int]] = []

        def run_many(
            self,
            orders: Sequence[Sequence[str]],
            *,
            probe: Optional[ProbeSpec] = None,
            on_result: Optional[ResultCallback] = None,
        ) -> list[OrderResult]:
            self.batches.append(len(orders))
            return super().run_many(orders, probe=probe, on_result=on_result)

    edges = graph(("a2", "a1"), ("b2", "b1"), ("b3", "b1"), ("b3", "b2"))
    results = []
    for jobs in (1, 3):
        ex = Counting(Suite.from_ids(order), specs)
        Counting.batches = []
        results.append(refine(ex, edges, order, jobs=jobs))
        if jobs == 1:
            assert Counting.batches == []
        else:
            assert Counting.batches[0] == 2  # one schedule per component in one call
    one, many = results
    assert pairs(one) == pairs(many) == {("a2", "a1"), ("b3", "b1")}
    assert one.executions == many.executions
    assert sorted(one.removed) == sorted(many.removed)


def test_progress_is_reported() -> None:
    order = ["s", "b", "x"]
    seen: list[RefineProgress] = []
    refine(
        executor(order, brittle("b", "s")),
        graph(("b", "s"), ("x", "s")),
        order,
        on_progress=seen.append,
    )
    assert seen[-1].tested == seen[-1].total == 2
    assert seen[-1].manifest == 1
    assert [p.tested for p in seen] == sorted(p.tested for p in seen)


def test_bad_inputs_are_usage_errors() -> None:
    ex = executor(["a", "b"])
    with pytest.raises(UsageError, match="twice"):
        refine(ex, graph(("b", "a")), ["a", "b", "a"])
    with pytest.raises(UsageError, match="not in the reference order"):
        refine(ex, graph(("c", "a")), ["a", "b"])
    with pytest.raises(UsageError, match="jobs"):
        refine(ex, graph(("b", "a")), ["a", "b"], jobs=0)


class ProbedModel(ModelExecutor):
    """A model whose probed runs report fixed reads and writes per test."""

    def __init__(
        self, ids: Sequence[str], specs: Sequence[ODSpec], access: dict[str, tuple[Any, Any]]
    ) -> None:
        super().__init__(Suite.from_ids(ids), specs)
        self.access = access

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        result = super().run(order, probe=probe)
        if probe is not None:
            assert probe.module == "orderdep.analysis.state.probe"
            result.probe = {
                "tests": [
                    {
                        "index": i,
                        "test": t,
                        "reads": sorted(self.access.get(t, ((), ()))[0]),
                        "writes": sorted(self.access.get(t, ((), ()))[1]),
                    }
                    for i, t in enumerate(order)
                ]
            }
        return result


def test_pradet_collects_and_refines_and_the_reverse_pass_finds_victims() -> None:
    order = ["v", "s", "b", "p", "q"]
    access = {
        "v": (["m.X"], []),  # victim of p, but runs before it
        "s": ([], ["m.S"]),
        "b": (["m.S"], []),  # brittle, needs s
        "p": ([], ["m.X"]),
        "q": (["m.X", "m.S"], []),  # reads both, depends on nothing
    }
    specs = [victim("v", "p"), brittle("b", "s")]
    forward = pradet(ProbedModel(order, specs, access), order)
    assert {(m.dependent, m.dependee, m.kind) for m in forward.manifest} == {("b", "s", "brittle")}
    ex = ProbedModel(order, specs, access)
    both = pradet(ex, order, also_reverse=True)
    found = {(m.dependent, m.dependee, m.kind, m.source) for m in both.manifest}
    assert found == {("b", "s", "brittle", "reference"), ("v", "p", "victim", "reversed")}
    assert both.executions == ex.executions
    assert both.orders_run == ex.orders_run
    assert both.orders[0] == order
    victim_dep = next(m for m in both.manifest if m.kind == "victim")
    assert victim_dep.failing_order == ["q", "p", "b", "s", "v"]  # reversed order, cut
    assert victim_dep.passing_order == ["v"]
    assert victim_dep.roots == ["m.X"]


def test_refine_also_reverse_collects_the_reversed_order_itself() -> None:
    order = ["v", "p", "s", "b"]
    access = {"v": (["m.X"], []), "p": ([], ["m.X"]), "s": ([], ["m.S"]), "b": (["m.S"], [])}
    ex = ProbedModel(order, [victim("v", "p"), brittle("b", "s")], access)
    result = refine(ex, graph(("b", "s")), order, also_reverse=True)
    found = {(m.dependent, m.dependee, m.kind, m.source) for m in result.manifest}
    assert found == {("b", "s", "brittle", "reference"), ("v", "p", "victim", "reversed")}
    assert result.orders[0] == order  # the reference run
    assert result.orders[2] == order[::-1]  # after b's schedule: the probed reversed run
    assert result.executions == ex.executions
    assert result.data_dependencies == 2


def test_kept_edges_constrain_schedules_without_being_tested() -> None:
    order = ["s", "b", "c"]
    ex = executor(order, brittle("b", "s"), brittle("c", "b"))
    result = refine(ex, graph(("b", "s"), ("c", "b")), order, keep={("b", "s")})
    assert pairs(result) == {("c", "b")} and result.removed == []
    # c's schedule moves b after c but keeps s before b, as for a manifest edge
    assert result.orders == [order, ["s", "c"]]
