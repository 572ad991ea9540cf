"""``detect_within``'s ``then``: a check run once the search's finds are confirmed (each
with its kind and one partner), before the rest of classification; what it returns joins
the report and is not classified further."""

from __future__ import annotations

from typing import Any, Optional

from tests.analysis.replay import Clock, Recorded, ReplayExecutor
from tests.analysis.test_classify import ALL, ND, PLANTED
from tests.analysis.test_classify_evidence import Counted, P, V

from orderdep.analysis.bounded import detect_within
from orderdep.analysis.budget import CHECK_RESERVE, Budget
from orderdep.core.report import ODFinding, Report
from orderdep.core.suite import Suite
from orderdep.synth.model import ModelExecutor

SUITE = Suite.from_ids([t for t in ALL if t != ND])

OTHER = "t.py::test_other"


def test_the_check_sees_the_confirmed_finds_and_its_findings_join_unclassified() -> None:
    seen: list[list[tuple[str, Any, list[str]]]] = []
    theirs = ODFinding(OTHER, "brittle", failing_order=[OTHER], passing_order=[OTHER])

    def check(report: Report) -> list[ODFinding]:
        seen.append([(f.test, f.kind, f.polluters) for f in report.od_tests])
        return [theirs]

    report = detect_within(Counted(), Budget(), then_classify=True, strategies=("reverse",),
                           seed=1, group="none", then=check)  # fmt: skip
    assert seen == [[(V, "victim", [P])]]  # once, with its kind and partner known
    assert [f.test for f in report.od_tests] == [V, OTHER]
    assert report.od_tests[1] is theirs and not theirs.state_setters  # left as it came
    assert report.od_tests[0].flake_rate.get("all") is not None  # classified further


def test_the_check_keeps_its_share_however_much_the_phases_before_it_find() -> None:
    clock = Clock()  # one second an order
    executor = ReplayExecutor(ModelExecutor(SUITE, PLANTED), Recorded(), clock)
    budget = Budget(60.0, clock)
    left: list[Optional[float]] = []

    def check(report: Report) -> list[ODFinding]:
        assert report.od_tests  # confirming and classifying them had work to go on with
        left.append(budget.left())
        return []

    report = detect_within(executor, budget, then_classify=True, strategies=("random-reverse",),
                           rounds=4, seed=1, group="none", then=check)  # fmt: skip
    assert left and (left[0] or 0.0) >= CHECK_RESERVE * 60.0 - 1.0  # one order may overrun
    assert budget.left() == 0.0 and report.stats.extras.get("classify_orders")
