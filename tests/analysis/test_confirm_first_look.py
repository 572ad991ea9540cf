"""A budget that ends while confirmation re-runs its orders keeps the OD tests every
order was already seen three times for (each saying so); the others stay suspects."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Optional

from orderdep.analysis.confirm import FIRST_LOOK, OrderRunner, RunLog
from orderdep.analysis.confirm_chunks import confirm_in_chunks
from orderdep.core.odmodel import ODSpec
from orderdep.core.outcomes import OrderResult
from orderdep.core.promise import shortfalls
from orderdep.core.report import ODFinding, Report, RunStats
from orderdep.core.suite import Suite
from orderdep.engine.probe import ProbeSpec
from orderdep.shells.explain import partner_lines
from orderdep.synth.model import ModelExecutor


class Stop(Exception):
    """The budget, ending."""


class EndsAtRun(ModelExecutor):
    """Raises :class:`Stop` before any order of two or more tests would run for the
    ``nth`` time: the budget ends once confirmation re-runs its short orders past that."""

    def __init__(self, suite: Suite, specs: Sequence[ODSpec], nth: int) -> None:
        super().__init__(suite, specs)
        self.nth = nth
        self.seen: Counter[tuple[str, ...]] = Counter()

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        key = tuple(order)
        if 1 < len(order) < len(self.suite) and self.seen[key] + 1 >= self.nth:
            raise Stop()
        self.seen[key] += 1
        return super().run(order, probe=probe)


def _confirm(nth: int) -> tuple[list[ODFinding], list[str], Optional[BaseException]]:
    ids = ["v1", "v2", "a", "b", "p"]
    specs = [ODSpec("v1", "victim", polluters=["p"]), ODSpec("v2", "victim", polluters=["p"])]
    model = EndsAtRun(Suite.from_ids(ids), specs, nth)
    runner = OrderRunner(model, RunLog(None), 1)
    search = [model.run(ids), model.run(list(reversed(ids)))]
    verdicts, pending, stop = confirm_in_chunks(runner, search, confirm_runs=5, chunk=2, stop=Stop)
    return verdicts.od, pending, stop


def test_a_budget_ending_after_the_first_look_keeps_what_it_saw() -> None:
    found, pending, stop = _confirm(nth=FIRST_LOOK + 1)  # ends in the second round
    assert isinstance(stop, Stop)
    assert pending == []
    assert sorted(f.test for f in found) == ["v1", "v2"]
    for f in found:
        assert f.failing_order == ["p", f.test] and f.passing_order == [f.test]
        assert f.observed_fewer == (FIRST_LOOK, 6)


def test_a_budget_ending_before_the_first_look_ends_keeps_nothing() -> None:
    found, pending, stop = _confirm(nth=FIRST_LOOK)
    assert isinstance(stop, Stop)
    assert found == [] and sorted(pending) == ["v1", "v2"]


def test_without_a_stop_every_order_is_seen_as_often_as_asked() -> None:
    found, pending, stop = _confirm(nth=100)
    assert stop is None and pending == []
    assert sorted(f.test for f in found) == ["v1", "v2"]
    assert all(f.observed_fewer is None for f in found)


def test_the_report_and_the_summary_say_how_often_it_was_seen() -> None:
    found, _, _ = _confirm(nth=FIRST_LOOK + 1)
    stats = RunStats(
        extras={"unfinished": {"confirmation": "not finished (budget)", "suspects": []}}
    )
    report = Report(project=".", tests=["v1", "v2", "p"], od_tests=found, stats=stats)
    said = shortfalls(report)
    assert said == [
        "2 OD test(s) confirmed by 3 runs of each order that shows it, not 6: the budget "
        "ended first"
    ]
    again = Report.from_json(report.to_json())
    assert again.od_tests[0].observed_fewer == (FIRST_LOOK, 6)
    assert any("ran 3 times, not 6" in line for line in partner_lines(found[0]))
