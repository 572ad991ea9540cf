"""``detect_within``'s ``then``: a check run once the search's finds are confirmed (each
with its kind and one partner), before the rest of classification; what it returns joins
the report and is not classified further."""

from __future__ import annotations

from typing import Any

from tests.analysis.test_classify_evidence import Counted, P, V

from orderdep.analysis.bounded import detect_within
from orderdep.analysis.budget import Budget
from orderdep.core.report import ODFinding, Report

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
