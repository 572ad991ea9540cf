from __future__ import annotations

from orderdep.core.baseline import Baseline, judge
from orderdep.core.depsfile import Dependency
from orderdep.core.report import ODFinding, Report

V, P, Q, B, S, X = (f"t.py::test_{c}" for c in "vpqbsx")


def known_from_deps() -> Baseline:
    baseline = Baseline()
    baseline.add_deps(
        [Dependency(V, "negative", P), Dependency(B, "positive", S)], "orderdep-deps.json"
    )
    return baseline


def report(*findings: ODFinding, nio: tuple[str, ...] = ()) -> Report:
    return Report(
        project="/p", tests=[V, P, Q, B, S, X], od_tests=list(findings), nio_tests=list(nio)
    )


def verdicts(findings: Report, baseline: Baseline) -> dict[str, tuple[bool, str]]:
    return {t: (v.new, v.reason) for t, v in judge(findings, baseline).items()}


def test_a_test_the_baseline_does_not_name_is_new_and_a_known_one_is_not() -> None:
    found = report(
        ODFinding(test=V, failing_order=[X, P, V]),
        ODFinding(test=X, failing_order=[Q, X]),
        ODFinding(test=B, kind="brittle", state_setters=[S, Q]),
    )
    got = verdicts(found, known_from_deps())
    assert got == {
        V: (False, "known (baseline: orderdep-deps.json)"),
        X: (True, "new: not in the baseline"),
        B: (False, "known (baseline: orderdep-deps.json)"),
    }


def test_a_known_victim_is_worse_with_a_new_polluter_or_failing_alone() -> None:
    baseline = known_from_deps()
    new_polluter = ODFinding(test=V, kind="victim", polluters=[P, Q])
    assert verdicts(report(new_polluter), baseline)[V] == (True, f"worse: new polluter(s) {Q}")
    group = ODFinding(test=V, kind="victim", polluter_groups=[[P, X]])
    assert verdicts(report(group), baseline)[V][0] is True
    unclassified = ODFinding(test=V, failing_order=[Q, V, P])  # P ran after it
    assert verdicts(report(unclassified), baseline)[V] == (
        True,
        "worse: fails in an order without any of its known polluters",
    )
    brittle = ODFinding(test=V, kind="brittle", state_setters=[X])
    assert verdicts(report(brittle), baseline)[V][0] is True


def test_a_report_knows_unclassified_tests_whatever_their_partners_and_nio_tests() -> None:
    baseline = Baseline()
    earlier = report(ODFinding(test=V, failing_order=[P, V]), nio=(X,))
    baseline.add_report(earlier, "main.json")
    baseline.add_deps([Dependency(V, "negative", P)], "orderdep-deps.json")
    found = report(ODFinding(test=V, kind="victim", polluters=[Q]), nio=(X, B))
    assert verdicts(found, baseline) == {
        V: (False, "known (baseline: main.json, orderdep-deps.json)"),
        X: (False, "known (baseline: main.json)"),
        B: (True, "new: not in the baseline"),
    }
    assert baseline and not Baseline()
