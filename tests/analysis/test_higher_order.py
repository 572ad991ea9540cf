"""Budget left after the strategies goes to orders that reveal dependencies on several
tests; classification then minimises them to a polluter group and a state-setter set."""

from __future__ import annotations

from orderdep.analysis.classify import classify
from orderdep.analysis.detect import detect
from orderdep.analysis.higher_order import AFTER_ALL, LEFTOVER_RANDOM, after_all_orders
from orderdep.core.odmodel import ODSpec, fails, group_key
from orderdep.core.suite import Suite
from orderdep.synth.model import ModelExecutor

B, V = "tests/test_a.py::test_brittle", "tests/test_a.py::test_victim"
S1, S2, S3 = (f"tests/test_b.py::test_setup_{i}" for i in (1, 2, 3))
P1, C, P2 = "tests/test_c.py::test_p1", "tests/test_c.py::test_clean", "tests/test_c.py::test_p2"
OTHERS = [f"tests/test_d.py::test_{i}" for i in range(8)]
# The original order runs the brittle first (it fails) and the cleaner between the two
# polluters (the victim passes); reversed, the setters run in the wrong order and the
# victim first: neither test is ever seen both failing and passing.
IDS = [B, S1, S2, S3, P1, C, P2, V, *OTHERS]
SPECS = [
    ODSpec(B, "brittle", state_setter_groups=[[S1, S2, S3]]),
    ODSpec(V, "victim", polluter_groups=[[P1, P2]], cleaners={group_key([P1, P2]): [C]}),
]


def executor() -> ModelExecutor:
    return ModelExecutor(Suite.from_ids(IDS), SPECS, seed=1)


def test_the_strategies_alone_miss_both() -> None:
    report = detect(executor(), strategies=["reverse"], seed=3, group="none")
    assert report.od_tests == [] and report.always_failing == [B]
    assert report.stats.strategies == ["original", "reverse"]


def test_with_a_budget_left_they_are_found_and_minimised() -> None:
    model = executor()
    report = detect(model, strategies=["reverse"], seed=3, group="none", budget_seconds=600)
    assert report.stats.strategies == ["original", "reverse", AFTER_ALL, LEFTOVER_RANDOM]
    assert {f.test for f in report.od_tests} == {B, V}
    assert not report.stats.extras["stopped_early"]  # the budget was not the limit
    leftover = [a for a in report.stats.extras["coverage"] if a["strategy"] == LEFTOVER_RANDOM]
    # nothing new for a while ends the random orders long before the budget
    assert 20 <= leftover[0]["orders_run"] < 200
    classified = classify(model, report, flake_samples=50)
    brittle, victim = classified.finding(B), classified.finding(V)
    assert brittle is not None and brittle.kind == "brittle"
    assert brittle.state_setters == [] and brittle.state_setter_groups == [[S1, S2, S3]]
    assert victim is not None and victim.kind == "victim"
    assert victim.polluters == [] and [sorted(g) for g in victim.polluter_groups] == [[P1, P2]]
    # each minimal order shows it
    assert not fails(SPECS[0], [S1, S2, S3, B]) and fails(SPECS[0], [S2, S1, S3, B])
    assert fails(SPECS[1], [*victim.polluter_groups[0], V])


def test_after_all_orders_put_the_stuck_tests_last_both_ways() -> None:
    assert after_all_orders(["a", "b", "c", "d"], ["b", "d"]) == [
        ["a", "c", "b", "d"],
        ["c", "a", "d", "b"],
    ]
