from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Optional

import pytest
from tests.analysis.counting import CountingModel

from orderdep.analysis.budget import SLICE
from orderdep.analysis.classify import ClassifyProgress, classify
from orderdep.core.odmodel import ODSpec, group_key
from orderdep.core.outcomes import OrderResult
from orderdep.core.prefix_search import GROUP_CAP
from orderdep.core.report import ODFinding, Report, RunStats
from orderdep.core.suite import Suite
from orderdep.engine.executor import ResultCallback
from orderdep.engine.probe import ProbeSpec
from orderdep.errors import ReportError, UsageError
from orderdep.synth.model import ModelExecutor


def tid(module: str, name: str) -> str:
    return f"tests/test_{module}.py::test_{name}"


# victims, polluters, cleaners, brittles and state-setters spread over three modules
V1, V2, V3, V4 = (tid("a", f"v{i}") for i in (1, 2, 3, 4))
P1, P2, P3, P4 = (tid("b", f"p{i}") for i in (1, 2, 3, 4))
G1, G2, G3, G4 = (tid("b", f"g{i}") for i in (1, 2, 3, 4))
C1, C2, C3, C4, C5 = (tid("c", f"c{i}") for i in (1, 2, 3, 4, 5))
K = [tid("c", f"k{i}") for i in range(6)]
B1, B2 = tid("a", "b1"), tid("a", "b2")
S1, S2, S3, S4, S5 = (tid("b", f"s{i}") for i in (1, 2, 3, 4, 5))
ND = tid("a", "nd")
X1, X2, X3 = (tid("c", f"x{i}") for i in (1, 2, 3))

ALL = [
    V1, V2, V3, V4, B1, B2, ND,
    P1, P2, P3, P4, G1, G2, G3, G4, S1, S2, S3, S4, S5,
    C1, C2, C3, C4, C5, *K, X1, X2, X3,
]  # fmt: skip

PLANTED = [
    # two polluters with different cleaner sets
    ODSpec(V1, "victim", polluters=[P1, P2], cleaners={P1: [C1, C2], P2: [C2, C3]}),
    # a polluter group of two, with one cleaner
    ODSpec(V2, "victim", polluter_groups=[[G1, G2]], cleaners={group_key([G1, G2]): [C4]}),
    # one polluter with many cleaners
    ODSpec(V3, "victim", polluters=[P3], cleaners={P3: list(K)}),
    # a single polluter (cleaned in the failing order) and a polluter group
    ODSpec(
        V4,
        "victim",
        polluters=[P4],
        polluter_groups=[[G3, G4]],
        cleaners={P4: [C5], group_key([G3, G4]): []},
    ),
    # two alternative state-setters
    ODSpec(B1, "brittle", state_setters=[S1, S2]),
    # an ordered group of three state-setters
    ODSpec(B2, "brittle", state_setter_groups=[[S3, S4, S5]]),
]

# (failing order, passing order) as detection would have recorded them
ORDERS = {
    V1: ([X1, P2, X2, V1, X3], [V1, P1, P2]),
    V2: ([X1, G1, S1, G2, X2, V2], [V2, G1, G2]),
    V3: ([K[0], X1, P3, V3], [P3, K[2], V3]),
    # a prefix whose first half fails through P4 alone: ddmin must not stop at P4
    V4: ([P4, G3, X1, C5, G4, X2, V4], [V4, P4]),
    B1: ([B1, S1], [X1, S2, X2, B1]),
    B2: ([S4, S3, B2, S5], [X1, S3, C1, S4, X2, S5, X3, B2]),
    ND: ([ND, X1], [X1, ND]),
}


def make_report() -> Report:
    findings = [
        ODFinding(test=t, failing_order=list(f), passing_order=list(p))
        for t, (f, p) in ORDERS.items()
    ]
    return Report(project="/p", tests=list(ALL), od_tests=findings, stats=RunStats(seed=3))


def make_executor() -> ModelExecutor:
    return ModelExecutor(Suite.from_ids(ALL), PLANTED, nd_tests=[ND], seed=1)


def normalized(spec: ODSpec) -> dict[str, Any]:
    return {
        "kind": spec.kind,
        "polluters": set(spec.polluters),
        "polluter_groups": {frozenset(g) for g in spec.polluter_groups},
        "cleaners": {frozenset(k.split(" + ")): set(v) for k, v in spec.cleaners.items()},
        "state_setters": set(spec.state_setters),
        "state_setter_groups": [list(g) for g in spec.state_setter_groups],
    }


class RecordingExecutor:
    """Passes runs to a ModelExecutor and records the size of each run_many batch."""

    def __init__(self, inner: ModelExecutor) -> None:
        self.inner = inner
        self.batches: list[int] = []

    @property
    def suite(self) -> Suite:
        return self.inner.suite

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        self.batches.append(1)
        return self.inner.run(order, probe=probe)

    def run_many(
        self,
        orders: Sequence[Sequence[str]],
        *,
        probe: Optional[ProbeSpec] = None,
        on_result: Optional[ResultCallback] = None,
    ) -> list[OrderResult]:
        self.batches.append(len(orders))
        return self.inner.run_many(orders, probe=probe, on_result=on_result)


@pytest.fixture(scope="module")
def classified() -> tuple[Report, RecordingExecutor, list[ClassifyProgress]]:
    executor = RecordingExecutor(make_executor())
    events: list[ClassifyProgress] = []
    report = classify(
        executor, make_report(), on_progress=events.append, flake_samples=300, all_cleaners=True
    )
    return report, executor, events


def test_finds_exactly_the_planted_relations(classified: Any) -> None:
    report, _, _ = classified
    assert sorted(report.od_ids) == sorted(s.test for s in PLANTED)
    for spec in PLANTED:
        finding = report.finding(spec.test)
        assert finding is not None
        assert normalized(finding.to_spec()) == normalized(spec), spec.test
        assert "classify_notes" not in finding.extras, finding.extras


def test_groups_keep_the_order_they_ran_in(classified: Any) -> None:
    report, _, _ = classified
    v2 = report.finding(V2)
    assert v2.polluter_groups == [[G1, G2]]
    assert v2.cleaners == {group_key([G1, G2]): [C4]}
    assert report.finding(B2).state_setter_groups == [[S3, S4, S5]]


def test_nd_test_is_moved_out(classified: Any) -> None:
    report, _, events = classified
    assert report.nd_tests == [ND]
    assert report.finding(ND) is None
    assert any(e.test == ND and "non-deterministic" in e.message for e in events)


def test_input_report_is_not_changed() -> None:
    report = make_report()
    before = report.to_json()
    classify(make_executor(), report, flake_samples=100)
    assert report.to_json() == before


def test_flake_rates_are_filled(classified: Any) -> None:
    report, _, _ = classified
    # closed forms (004 §4.2): victim π/(π+γ+1); brittle 1/(σ+1)
    assert report.finding(V3).flake_rate["all"] == pytest.approx(1 / 8)
    assert report.finding(B1).flake_rate["all"] == pytest.approx(1 / 3)
    for finding in report.od_tests:
        assert set(finding.flake_rate) == {"all", "grouped", "reverse"}
        assert finding.flake_rate["all"] is not None


def test_execution_counts_are_reasonable(classified: Any) -> None:
    report, executor, _ = classified
    model = executor.inner
    assert report.stats.orders_run == model.orders_run
    assert report.stats.test_executions == model.executions
    n = len(ALL)
    bound = 0
    for spec in [*PLANTED, ODSpec(ND, "victim")]:
        keys = len(spec.polluters) + len(spec.polluter_groups)
        failing, passing = ORDERS[spec.test]
        bound += 10 + len(failing) + len(passing)  # alone runs and the precondition
        bound += 2 * (n - 1) + 2 * len(spec.polluters + spec.state_setters)  # pairs, confirmations
        bound += 4 * (n - 1) * keys  # triples (4 for a group of two)
        if spec.polluter_groups or spec.state_setter_groups:
            bound += 40 * len(failing + passing)  # ddmin over a short prefix
    assert model.executions <= bound
    # group testing: fewer orders than the pairs and triples of one-by-one search alone
    one_by_one = sum((n - 1) * (1 + len(s.polluters) + len(s.polluter_groups)) for s in PLANTED)
    assert model.orders_run < one_by_one
    # the sets of one level go to the engine together (in slices between budget checks)
    assert max(executor.batches) == SLICE
    # orders are not repeated except alone runs, confirmations and preconditions
    repeats = sum(c - 1 for c in Counter(map(tuple, model.history)).values())
    assert repeats <= sum(10 + 1 + len(s.polluters + s.state_setters) + 1 for s in PLANTED) + 10


def test_progress_events_end_with_done(classified: Any) -> None:
    _, _, events = classified
    done = [e.test for e in events if e.step == "done"]
    assert sorted(done) == sorted(ORDERS)
    assert {e.total for e in events} == {len(ORDERS)}
    assert {e.step for e in events} >= {
        "kind",
        "polluters",
        "cleaners",
        "polluter-group",
        "state-setters",
        "state-setter-group",
        "flake-rate",
    }


def test_only_unclassified_tests_are_redone_by_default(classified: Any) -> None:
    report, _, _ = classified
    executor = make_executor()
    again = classify(executor, report, flake_samples=100)
    assert executor.executions == 0
    assert again.to_json()["od_tests"] == report.to_json()["od_tests"]
    classify(executor, report, tests=[V3], flake_samples=100)
    assert executor.executions > 0


def test_unknown_test_ids_list_the_od_tests() -> None:
    with pytest.raises(UsageError) as info:
        classify(make_executor(), make_report(), tests=[tid("a", "v11"), V1])
    msg = str(info.value)
    assert "1 test id(s) are not OD tests" in msg
    assert f"{tid('a', 'v11')!r} (did you mean" in msg
    assert all(t in msg for t in ORDERS)


def test_failing_order_that_does_not_reproduce_means_nd() -> None:
    # X1 passes alone and its recorded failing order passes again: flaky in one order
    report = Report(project="/p", tests=list(ALL), od_tests=[ODFinding(X1, failing_order=[P1, X1])])
    out = classify(make_executor(), report, flake_samples=100)
    assert out.od_tests == [] and out.nd_tests == [X1]


def test_victim_without_recorded_order_still_gets_pair_results() -> None:
    report = Report(project="/p", tests=list(ALL), od_tests=[ODFinding(V3)])
    out = classify(make_executor(), report, flake_samples=100, all_cleaners=True)
    assert normalized(out.od_tests[0].to_spec()) == normalized(PLANTED[2])


def test_report_naming_tests_the_suite_lacks_is_out_of_date() -> None:
    report = Report(
        project="/p",
        tests=[*ALL, "gone.py::t"],
        od_tests=[ODFinding(V1, failing_order=["gone.py::t", V1])],
    )
    with pytest.raises(ReportError, match="out of date"):
        classify(make_executor(), report)


def test_bad_alone_runs() -> None:
    with pytest.raises(UsageError, match="alone_runs"):
        classify(make_executor(), make_report(), alone_runs=0)


def test_flake_rates_are_upper_bounds_when_one_cleaner_per_polluter_was_looked_for() -> None:
    one = classify(make_executor(), make_report(), flake_samples=100)
    every = classify(make_executor(), make_report(), flake_samples=100, all_cleaners=True)
    # V3 has 6 cleaners: with one found, the rate over-counts failing orders.
    assert one.finding(V3).flake_rate_is_upper_bound
    assert one.finding(V3).flake_rate["all"] > every.finding(V3).flake_rate["all"] + 0.1
    assert not every.finding(V3).flake_rate_is_upper_bound
    # Brittles have no cleaners; the mark survives the report's JSON.
    assert not one.finding(B1).flake_rate_is_upper_bound
    again = Report.from_json(one.to_json())
    assert again.finding(V3).flake_rate_is_upper_bound
    assert not again.finding(B1).flake_rate_is_upper_bound


def test_a_victim_of_many_tests_together_is_classified_without_a_group() -> None:
    """A victim that fails after any 6 other tests (a counter; a shared random generator's
    state behaves alike) has no small polluter group: its search stops at the cap."""
    ids = [f"tests/test_r.py::test_{i:02d}" for i in range(40)] + ["tests/test_r.py::test_v"]
    victim = ids[-1]

    model = CountingModel(ids, victim, needed=6)
    finding = ODFinding(test=victim, failing_order=list(ids), passing_order=[victim])
    report = Report(project="/p", tests=list(ids), od_tests=[finding], stats=RunStats(seed=3))
    (out,) = classify(model, report, flake_samples=20).od_tests
    assert out.kind == "victim" and not out.polluters and not out.polluter_groups
    assert any(
        f"needs more than {GROUP_CAP} of its 40 tests together" in n for n in out.needs_many_tests
    )
    assert model.orders_run < 200


def test_a_failing_order_confirmation_could_not_shorten_is_not_searched_again() -> None:
    ids = [f"tests/test_r.py::test_{i:02d}" for i in range(40)] + ["tests/test_r.py::test_v"]
    victim = ids[-1]

    def orders_to_classify(finding: ODFinding) -> tuple[int, ODFinding]:
        model = CountingModel(ids, victim, needed=6)
        report = Report(project="/p", tests=list(ids), od_tests=[finding], stats=RunStats(seed=3))
        (out,) = classify(model, report, flake_samples=20).od_tests
        return model.orders_run, out

    marked = ODFinding(test=victim, failing_order=list(ids), passing_order=[victim])
    marked.say_needs_many_tests("failing", "the failing order needs more than 4 ...")
    unmarked = ODFinding(test=victim, failing_order=list(ids), passing_order=[victim])
    skipped, out_marked = orders_to_classify(marked)
    searched, out_unmarked = orders_to_classify(unmarked)
    assert out_marked.needs_many_tests_in("failing") and out_unmarked.needs_many_tests_in("failing")
    assert skipped + GROUP_CAP * 3 <= searched  # at least a few orders per round saved


def test_one_partner_comes_from_the_confirmed_order_before_every_other_test() -> None:
    """A confirmed failing order cut down to ``[p, v]`` names the polluter a repair needs:
    the "partner" phase tries it first instead of group testing over the whole suite."""
    fillers = [tid("f", f"t{i:03d}") for i in range(400)]
    p, v = tid("a", "p"), tid("a", "v")
    ids = [*fillers[:100], p, *fillers[100:], v]
    costs = {}
    for name, failing in (("short", [p, v]), ("whole", ids)):
        executor = RecordingExecutor(
            ModelExecutor(Suite.from_ids(ids), [ODSpec(v, "victim", polluters=[p])])
        )
        report = Report("proj", ids, [ODFinding(v, None, failing_order=failing,
                                                passing_order=[v])])  # fmt: skip
        out = classify(executor, report, phases=("kind", "partner"))
        (finding,) = out.od_tests
        assert (finding.kind, finding.polluters) == ("victim", [p])
        costs[name] = sum(executor.batches)
    assert costs["short"] < costs["whole"], costs


def test_one_partner_of_a_group_victim_comes_from_its_confirmed_order() -> None:
    """A victim that needs two tests together, confirmed in an order of just those: the
    first partner is that group, found without group testing the whole suite."""
    report = Report(
        project="/p",
        tests=list(ALL),
        od_tests=[ODFinding(test=V2, failing_order=[G1, G2, V2], passing_order=[V2])],
        stats=RunStats(seed=3),
    )
    executor = ModelExecutor(Suite.from_ids(ALL), PLANTED)
    (out,) = classify(executor, report, phases=("kind", "partner")).od_tests
    assert out.kind == "victim" and out.polluter_groups == [[G1, G2]] and not out.polluters
    assert len(executor.history) <= 10 + 1 + 2 + 4  # alone runs, precondition, pair, group


def test_one_partner_of_a_group_brittle_comes_from_its_confirmed_order() -> None:
    report = Report(
        project="/p",
        tests=list(ALL),
        od_tests=[ODFinding(test=B2, failing_order=[B2], passing_order=[S3, S4, S5, B2])],
        stats=RunStats(seed=3),
    )
    executor = ModelExecutor(Suite.from_ids(ALL), PLANTED)
    (out,) = classify(executor, report, phases=("kind", "partner")).od_tests
    assert out.kind == "brittle" and out.state_setter_groups == [[S3, S4, S5]]
    assert not out.state_setters
    assert len(executor.history) <= 10 + 1 + 3 + 8  # alone runs, precondition, singles, group
