"""PRADET end to end: collection, refinement, confirmation and report findings.

The first half runs on a simulation whose probe output is given per test (fast, exact
control of reads and writes); the second half on generated pytest projects through the
real engine, checked against their ground truth.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Optional

import pytest
from tests.analysis.counting import CountingModel

from orderdep.analysis.pradet.confirm import Checks, screen, search
from orderdep.analysis.pradet.evidence import Evidence
from orderdep.analysis.pradet.manifest import ManifestDependency
from orderdep.analysis.pradet.pipeline import (
    Collected,
    PradetResult,
    collect,
    findings,
    load_collected,
    merge_report,
    refine_collected,
    run_pradet,
    save_collected,
)
from orderdep.core.depsfile import deps_from_report
from orderdep.core.odmodel import ODSpec
from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.core.prefix_search import GROUP_CAP
from orderdep.core.report import ODFinding, Report
from orderdep.core.suite import Suite
from orderdep.engine.config import EngineConfig
from orderdep.engine.probe import ProbeSpec
from orderdep.engine.runner import Engine
from orderdep.errors import EngineError, ReportError, UsageError
from orderdep.synth.channels import CHANNELS
from orderdep.synth.generate import SuitePlan, generate_suite
from orderdep.synth.model import ModelExecutor
from orderdep.synth.truth import GroundTruth

Access = tuple[set[str], set[str]]  # (reads, writes)


class ProbedModel(ModelExecutor):
    """The model executor, answering the state probe from fixed per-test accesses."""

    def __init__(
        self,
        ids: Sequence[str],
        specs: Sequence[ODSpec],
        access: Mapping[str, Access],
        *,
        flaky_runs: Optional[dict[str, set[int]]] = None,
        nd_tests: Sequence[str] = (),
        seed: int = 0,
    ) -> None:
        super().__init__(Suite.from_ids(ids), specs, nd_tests=nd_tests, seed=seed)
        self.access = access
        self.flaky_runs = flaky_runs or {}  # test -> run numbers in which it fails anyway
        self.probed = 0

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        number = self.orders_run
        result = super().run(order)
        result.results = [
            dataclasses.replace(r, outcome=Outcome.FAILED)
            if number in self.flaky_runs.get(r.test, set())
            else r
            for r in result.results
        ]
        if probe is not None:
            self.probed += 1
            result.probe = {
                "tests": [
                    {
                        "index": i,
                        "test": t,
                        "reads": sorted(self.access.get(t, (set(), set()))[0]),
                        "writes": sorted(self.access.get(t, (set(), set()))[1]),
                    }
                    for i, t in enumerate(order)
                ],
                "roots": {"r": "list of 1: [1]"},
                "stats": {},
            }
        return result


def manifest_pairs(result: PradetResult) -> set[tuple[str, str, str]]:
    return {
        (e.dependency.dependent, e.dependency.dependee, e.dependency.kind) for e in result.manifest
    }


# -- on the simulation -------------------------------------------------------------------
def test_victim_before_its_polluter_is_found_in_the_reversed_order() -> None:
    order = ["v", "x", "p"]
    ex = ProbedModel(
        order,
        [ODSpec("v", "victim", polluters=["p"])],
        {"v": ({"r"}, set()), "x": ({"r"}, set()), "p": (set(), {"r"})},
    )
    without = run_pradet(ex, also_reverse=False)
    assert without.refined.data_dependencies == 0 and without.manifest == []
    result = run_pradet(ex)
    assert manifest_pairs(result) == {("v", "p", "victim")}
    [e] = result.manifest
    assert e.alone and e.confirmed and e.dependency.source == "reversed"
    assert e.dependency.failing_order == ["p", "v"] and e.dependency.passing_order == ["v"]
    assert result.refined.removed == [("x", "p")]
    ex_ = result.executions
    assert ex_["collection"] == 6 and ex_["total"] == ex.executions - without.executions["total"]
    assert ex_["total"] == sum(v for k, v in ex_.items() if k != "total")


def test_brittle_group_members_become_one_state_setter_group() -> None:
    order = ["s1", "s2", "b"]
    ex = ProbedModel(
        order,
        [ODSpec("b", "brittle", state_setter_groups=[["s1", "s2"]])],
        {"s1": (set(), {"r1"}), "s2": (set(), {"r2"}), "b": ({"r1", "r2"}, set())},
    )
    result = run_pradet(ex, also_reverse=False)
    assert manifest_pairs(result) == {("b", "s1", "brittle"), ("b", "s2", "brittle")}
    assert not any(e.alone for e in result.manifest)
    [finding] = findings(result)
    assert finding.kind == "brittle"
    assert finding.state_setters == [] and finding.state_setter_groups == [["s1", "s2"]]
    assert finding.failing_order[-1] == "b" and finding.passing_order == ["s1", "s2", "b"]


def test_a_cleaner_seen_as_state_setter_is_conditional_and_its_polluter_searched() -> None:
    # v fails after p unless c ran between; c reads and rewrites what p wrote.
    order = ["x", "p", "y", "c", "v"]
    ex = ProbedModel(
        order,
        [ODSpec("v", "victim", polluters=["p"], cleaners={"p": ["c"]})],
        {"p": (set(), {"r"}), "c": ({"r"}, {"r"}), "v": ({"r"}, set()), "y": ({"r"}, set())},
    )
    result = run_pradet(ex, also_reverse=False, search=False)
    [conditional] = result.evidence
    assert conditional.conditional and conditional.dependency.dependee == "c"
    assert conditional.dependency.kind == "brittle" and result.manifest == []
    assert findings(result) == []

    result = run_pradet(ProbedModel(order, list(ex.specs.values()), ex.access), also_reverse=False)
    [search] = result.manifest
    assert (search.dependency.dependee, search.dependency.kind) == ("p", "victim")
    assert search.found_by == "search" and search.alone and search.cleaner == "c"
    assert search.dependency.failing_order == ["p", "v"]
    [finding] = findings(result)
    assert finding.polluters == ["p"] and finding.cleaners == {"p": ["c"]}
    assert result.executions["search"] > 0
    summary = merge_report(None, result).extras["pradet"]["manifest"]
    assert [d["conditional"] for d in summary] == [True, False]


def test_a_dependency_that_does_not_reproduce_is_dropped() -> None:
    order = ["w", "f"]
    # f fails in the collection run (run 0) only: refinement sees it pass without w.
    ex = ProbedModel(order, [], {"w": (set(), {"r"}), "f": ({"r"}, set())}, flaky_runs={"f": {0}})
    result = run_pradet(ex, also_reverse=False)
    assert [(m.dependent, m.dependee) for m in result.refined.manifest] == [("f", "w")]
    assert result.evidence == [] and [m.dependee for m in result.unconfirmed] == ["w"]
    unconfirmed = run_pradet(
        ProbedModel(order, [], {"w": (set(), {"r"}), "f": ({"r"}, set())}, flaky_runs={"f": {0}}),
        also_reverse=False,
        confirm_runs=0,
    )
    assert [e.confirmed for e in unconfirmed.evidence] == [False]


def test_a_test_failing_at_random_is_flaky_not_order_dependent() -> None:
    # n reads what six tests write and fails half of the time, whatever ran before
    order = ["w1", "w2", "w3", "n", "w4", "w5", "w6"]
    access: dict[str, Access] = {w: (set(), {"r"}) for w in order if w != "n"}
    access["n"] = ({"r"}, set())

    def pradet_with(seed: int, alone_runs: int) -> PradetResult:
        ex = ProbedModel(order, [], access, nd_tests=["n"], seed=seed)
        return run_pradet(ex, alone_runs=alone_runs, project="/proj")

    barely = [pradet_with(seed, alone_runs=1) for seed in range(40)]
    assert any(r.manifest for r in barely)  # chance "dependencies" when hardly screened
    for seed in range(40):
        result = pradet_with(seed, alone_runs=5)
        assert result.manifest == [], seed
        report = merge_report(None, result)
        assert report.od_tests == [] and report.nd_tests == result.flaky
        assert report.extras["pradet"]["flaky"] == result.flaky
    assert result.flaky == ["n"]


def test_a_later_writer_of_the_same_root_does_not_hide_the_state_setter() -> None:
    # s1 and s2 add different keys to one dict; b needs s1's key only.
    order = ["s1", "s2", "b"]
    ex = ProbedModel(
        order,
        [ODSpec("b", "brittle", state_setters=["s1"])],
        {"s1": (set(), {"d"}), "s2": (set(), {"d"}), "b": ({"d"}, set())},
    )
    result = run_pradet(ex, also_reverse=False)
    assert result.refined.data_dependencies == 2
    assert manifest_pairs(result) == {("b", "s1", "brittle")}
    assert result.refined.removed == [("b", "s2")]
    assert ex.history[1] == ["s1", "b"]  # s2 moved after b, s1 kept before it


def test_alternative_state_setters_are_found_among_removed_dependees() -> None:
    # either s1 or s2 sets up b: moving one leaves the other, so refinement removes both
    order = ["s1", "x", "s2", "b"]
    ex = ProbedModel(
        order,
        [ODSpec("b", "brittle", state_setters=["s1", "s2"])],
        {"s1": (set(), {"d"}), "x": (set(), {"d"}), "s2": (set(), {"e"}), "b": ({"d", "e"}, set())},
    )
    result = run_pradet(ex, also_reverse=False, alternatives=False)
    # s2 and x are tried first (source-first) and removed; s1 is then alone in b's component
    assert manifest_pairs(result) == {("b", "s1", "brittle")}
    assert sorted(result.refined.removed) == [("b", "s2"), ("b", "x")]
    result = run_pradet(ex, also_reverse=False)
    assert manifest_pairs(result) == {("b", "s1", "brittle"), ("b", "s2", "brittle")}
    assert [e.found_by for e in result.manifest] == ["refinement", "alternatives"]
    [finding] = findings(result)
    assert finding.state_setters == ["s1", "s2"] and finding.failing_order == ["b"]
    # b alone ran during confirmation; then one pair per removed dependee, and the pair
    # that showed s2 once more (b alone was run enough times by the ND screening)
    assert result.executions["alternatives"] == 2 * 2 + 2


class FirstWriter(ProbedModel):
    """Writes show only for the first writer of a root in the order (the later ones
    rewrite the same value: no change to see)."""

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        result = super().run(order, probe=probe)
        if probe is not None:
            done: set[str] = set()
            for entry in result.probe["tests"]:
                entry["writes"] = [w for w in entry["writes"] if w not in done]
                done.update(entry["writes"])
        return result


def test_a_random_extra_order_finds_the_state_setter_whose_write_was_a_no_op() -> None:
    # either s1 or s2 creates what b needs; s2 after s1 writes nothing new
    order = ["s1", "x", "s2", "y", "b"]
    access = {"s1": (set(), {"t"}), "s2": (set(), {"t"}), "b": ({"t"}, set()), "x": ({"t"}, set())}
    specs = [ODSpec("b", "brittle", state_setters=["s1", "s2"])]
    two = run_pradet(FirstWriter(order, specs, access))
    assert manifest_pairs(two) == {("b", "s1", "brittle")}
    three = run_pradet(FirstWriter(order, specs, access), extra_orders=1, seed=0)
    assert manifest_pairs(three) == {("b", "s1", "brittle"), ("b", "s2", "brittle")}
    extra = three.collected.collections[2]
    assert extra.source == "random-1" and sorted(extra.order) == sorted(order)
    assert three.collected.seed == 0
    assert Collected.from_json(three.collected.to_json()).seed == 0
    [s2] = [e for e in three.manifest if e.dependency.dependee == "s2"]
    assert s2.dependency.source == "random-1"


def test_collection_round_trips_and_refines_the_same(tmp_path: Path) -> None:
    order = ["s", "b", "v", "p"]
    specs = [ODSpec("b", "brittle", state_setters=["s"]), ODSpec("v", "victim", polluters=["p"])]
    access = {"s": (set(), {"a"}), "b": ({"a"}, set()), "v": ({"c"}, set()), "p": (set(), {"c"})}
    collected = collect(ProbedModel(order, specs, access), project=str(tmp_path))
    path = tmp_path / "pradet.json"
    save_collected(path, collected)
    loaded = load_collected(path, project=str(tmp_path))
    assert loaded.to_json() == collected.to_json()
    again = refine_collected(ProbedModel(order, specs, access), loaded)
    assert manifest_pairs(again) == {("b", "s", "brittle"), ("v", "p", "victim")}
    with pytest.raises(ReportError, match="is for project"):
        load_collected(path, project=str(tmp_path / "other"))
    with pytest.raises(ReportError, match="orderdep pradet collect"):
        load_collected(tmp_path / "missing.json")


def test_a_probed_run_that_crashed_is_an_error_that_names_the_test() -> None:
    class Crashing(ProbedModel):
        def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
            result = super().run(order)  # without the probe: no data
            if probe is not None:
                result.results = [
                    dataclasses.replace(r, outcome=Outcome.CRASHED, message="process died")
                    for r in result.results
                ]
            return result

    with pytest.raises(EngineError, match=r"reference order did not finish at 'a' \(crashed"):
        collect(Crashing(["a", "b"], [], {}))


def test_collect_refuses_an_order_with_repeats() -> None:
    ex = ProbedModel(["a", "b"], [], {})
    with pytest.raises(UsageError, match="'a' more than once"):
        collect(ex, ["a", "b", "a"])


def test_report_merge_fills_unclassified_and_keeps_other_findings() -> None:
    order = ["s", "b", "v", "p", "q"]
    specs = [ODSpec("b", "brittle", state_setters=["s"]), ODSpec("v", "victim", polluters=["p"])]
    access = {"s": (set(), {"a"}), "b": ({"a"}, set()), "v": ({"c"}, set()), "p": (set(), {"c"})}
    result = run_pradet(ProbedModel(order, specs, access), project="/proj")
    old = Report(
        project="/proj",
        tests=order,
        od_tests=[
            ODFinding("b", failing_order=["b"], passing_order=["s", "b"]),
            ODFinding("q", kind="victim", polluters=["s"]),
        ],
    )
    old.stats.orders_run, old.stats.test_executions = 3, 10
    merged = merge_report(old, result)
    b, q, v = (merged.finding(t) for t in ("b", "q", "v"))
    assert b is not None and b.kind == "brittle" and b.state_setters == ["s"]
    assert b.failing_order == ["b"] and b.passing_order == ["s", "b"]
    assert q is not None and q.polluters == ["s"]
    assert v is not None and v.kind == "victim" and v.polluters == ["p"]
    assert v.failing_order == ["p", "v"] and v.passing_order == ["v"]
    assert merged.stats.test_executions == 10 + result.executions["total"]
    assert "pradet" in merged.stats.strategies
    extra = merged.extras["pradet"]
    assert {(d["dependent"], d["dependee"]) for d in extra["data_dependencies"]} >= {
        ("b", "s"),
        ("v", "p"),
    }
    assert set(extra["roots"]) == {"a", "c"}
    assert extra["executions"] == result.executions
    again = Report.from_json(merged.to_json())
    assert again.to_json() == merged.to_json()
    assert {(d.test, d.kind, d.dependee) for d in deps_from_report(again)} == {
        ("b", "positive", "s"),
        ("q", "negative", "s"),
        ("v", "negative", "p"),
    }
    stranger = Report(project="/proj", tests=["s", "b"])
    with pytest.raises(ReportError, match="another suite"):
        merge_report(stranger, result)


# -- on generated projects through the engine ---------------------------------------------
PLAN = SuitePlan(
    channels=CHANNELS,  # every state channel, fixtures and the import machinery included
    channel_cleaners=False,
    many_cleaners=0,
    two_polluters=True,
    polluter_group=False,
    brittles_one_setter=2,
    # not brittle_two_setters: the later of two alternative state-setters often writes
    # nothing (the earlier one did it already), so it leaves no data dependency to find
    brittle_two_setters=False,
    brittle_setter_group=False,
    nd_tests=1,  # a test failing at random (a SystemRandom in app.balancer)
    nio_tests=0,
)
ALONE_RUNS = 10  # as classify: an ND test slips through with probability ~2**-10


def planted(truth: GroundTruth) -> set[tuple[str, str, str]]:
    out: set[tuple[str, str, str]] = set()
    for spec in truth.specs:
        for dependee in spec.polluters + spec.state_setters:
            out.add((spec.test, dependee, spec.kind))
    return out


@pytest.fixture(scope="module", params=[(50, 11), (60, 12)], ids=["50-tests", "60-tests"])
def pradet_run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[GroundTruth, PradetResult]]:
    n_tests, seed = request.param
    root = tmp_path_factory.mktemp("gen") / "proj"
    truth = generate_suite(root, n_tests=n_tests, seed=seed, plan=PLAN)
    with Engine(EngineConfig(root)) as engine:
        yield truth, run_pradet(engine, project=str(root), alone_runs=ALONE_RUNS)


def test_every_planted_dependency_is_a_data_dependency(
    pradet_run: tuple[GroundTruth, PradetResult],
) -> None:
    truth, result = pradet_run
    channels = {truth.channels[s.test] for s in truth.specs}
    assert set(CHANNELS) <= channels and truth.nd_tests
    found = {(d["dependent"], d["dependee"]) for d in result.collected.data_dependencies()}
    missing = {(t, d) for t, d, _ in planted(truth)} - found
    assert not missing, [(t, d, truth.channels[t]) for t, d in missing]


def test_refinement_confirms_exactly_the_planted_dependencies(
    pradet_run: tuple[GroundTruth, PradetResult],
) -> None:
    truth, result = pradet_run
    assert manifest_pairs(result) == planted(truth)
    assert all(e.alone and e.confirmed for e in result.manifest)
    # what did not reproduce, or was found non-deterministic, is the ND test's
    assert {m.dependent for m in result.unconfirmed} | set(result.flaky) <= set(truth.nd_tests)
    data_deps = len(result.collected.data_dependencies())
    assert result.refined.data_dependencies == data_deps > len(result.manifest)
    # each confirmed order really fails / passes the way the ground truth says
    for e in result.manifest:
        m = e.dependency
        assert truth.expected_failures(m.failing_order)[-1] is True
        assert truth.expected_failures(m.passing_order)[-1] is False


def test_findings_match_the_ground_truth_specs(
    pradet_run: tuple[GroundTruth, PradetResult],
) -> None:
    truth, result = pradet_run
    report = merge_report(None, result)
    assert sorted(report.od_ids) == sorted(truth.od_tests)
    for finding in report.od_tests:
        spec = truth.spec(finding.test)
        assert finding.kind == spec.kind
        assert sorted(finding.polluters) == sorted(spec.polluters)
        assert sorted(finding.state_setters) == sorted(spec.state_setters)
    assert Collected.from_json(result.collected.to_json()).to_json() == (result.collected.to_json())


def test_screening_runs_a_dependent_alone_once_more_per_doubling_of_its_candidates() -> None:
    ex = ProbedModel(["p", "v", "q"], [ODSpec("v", "victim", polluters=["p"])], {})
    collected = collect(ex, also_reverse=False)
    result = PradetResult(collected=collected)
    shown = ManifestDependency("v", "p", [], "victim", ["p", "v"], ["v"])
    result.evidence = [Evidence(shown, alone=True, confirmed=True)]
    checks = Checks(ex, 1, 1, result)
    for _ in range(4):
        checks.tried("v")
    assert screen(checks, result, alone_runs=5) == set()
    assert ex.history.count(["v"]) == 5 + 2  # log2(4) more
    assert result.confirm_executions == 7


@pytest.mark.parametrize("needed", [2, 6])
def test_the_search_behind_a_conditional_dependency_stops_at_the_group_cap(needed: int) -> None:
    """A victim that fails after any ``needed`` earlier tests (a counter, a random
    generator's state): a group up to the cap is found, a larger one is left unexplained
    after a bounded number of orders."""
    ids = [f"t{i:02d}" for i in range(40)] + ["v", "c"]

    model = CountingModel(ids, "v", needed)
    dependency = ManifestDependency(
        "v", "c", [], "brittle", failing_order=ids[:41], passing_order=[*ids[:40], "c", "v"]
    )
    collected = Collected(project="/p", tests=ids, collections=[])
    result = PradetResult(collected=collected, evidence=[Evidence(dependency, conditional=True)])
    search(Checks(model, runs=1, jobs=1, result=result), result, {})
    found = [e for e in result.evidence if e.found_by == "search"]
    if needed <= GROUP_CAP:
        group = {e.dependency.dependee for e in found}  # any `needed` of the tests before v
        assert len(group) == needed and group <= set(ids[:40])
    else:
        assert found == [] and result.check_orders < GROUP_CAP * 3 * 6 + 2


def test_refinement_leaves_a_share_of_the_budget_to_the_checks_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Confirmation and the non-determinism screen run whatever the budget (they make the
    findings true): refinement stops starting schedules while CHECKS_RESERVE of the time
    left is still there, and then alternatives and search are skipped."""
    from orderdep.analysis.pradet import pipeline

    order = ["v", "x", "p"]
    ex = ProbedModel(
        order,
        [ODSpec("v", "victim", polluters=["p"])],
        {"v": ({"r"}, set()), "x": ({"r"}, set()), "p": (set(), {"r"})},
    )
    collected = collect(ex, order)
    seen: list[Optional[float]] = []
    now = [1000.0]
    real_refine = pipeline.refine

    def refine(*args: object, deadline: Optional[float] = None, **kwargs: object) -> object:
        seen.append(deadline)
        found = real_refine(*args, deadline=deadline, **kwargs)  # type: ignore[arg-type]
        now[0] = 1095.0  # refinement took until within the reserve
        return found

    monkeypatch.setattr(pipeline, "refine", refine)
    monkeypatch.setattr(pipeline.time, "monotonic", lambda: now[0])
    said: list[str] = []
    refine_collected(ex, collected, deadline=1100.0, notice=said.append)
    assert seen and all(d == pytest.approx(1100.0 - pipeline.CHECKS_RESERVE * 100) for d in seen)
    assert "budget spent: skipping alternatives and search" in said
