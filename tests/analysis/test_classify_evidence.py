"""Classification counts what confirmation saw of a finding's orders
(:attr:`orderdep.analysis.classify_steps.Known.seen`): the runs alone among its runs
alone, and an order seen with the finding's outcome every time needs no confirming run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from orderdep.analysis.bounded import detect_within
from orderdep.analysis.budget import Budget
from orderdep.analysis.classify_steps import Counts, Item, Runner, kind_step
from orderdep.core.odmodel import ODSpec
from orderdep.core.outcomes import OrderResult
from orderdep.core.report import ODFinding
from orderdep.core.suite import Suite
from orderdep.synth.model import ModelExecutor

V, X, P = "t.py::test_victim", "t.py::test_other", "t.py::test_polluter"


class Counted(ModelExecutor):
    """The model suite ``[V, X, P]`` (P pollutes V), counting each order it runs."""

    def __init__(self) -> None:
        super().__init__(Suite.from_ids([V, X, P]), [ODSpec(V, "victim", polluters=[P])])
        self.ran: Counter[tuple[str, ...]] = Counter()

    def run_many(self, orders: Sequence[Sequence[str]], **kw: Any) -> list[OrderResult]:
        self.ran.update(tuple(o) for o in orders)
        return super().run_many(orders, **kw)


def _say(*_args: Any) -> None:
    return None


def kind_of(seen: dict[tuple[str, ...], list[bool]]) -> tuple[Item, Counted]:
    executor = Counted()
    finding = ODFinding(V, failing_order=[P, V], passing_order=[V])
    runner = Runner(executor, V, Counts(), seen=seen)
    item = Item(finding, 1, runner, [X, P])
    kind_step(item, 10, _say)
    return item, executor


def test_runs_alone_seen_while_confirming_count_among_the_ten() -> None:
    item, executor = kind_of({(V,): [False] * 6, (P, V): [True] * 6})
    assert item.finding.kind == "victim" and not item.nd
    assert executor.ran == Counter({(V,): 4})  # and no re-run of the failing order


def test_without_evidence_the_kind_takes_its_ten_runs_and_the_precondition() -> None:
    item, executor = kind_of({})
    assert item.finding.kind == "victim"
    assert executor.ran == Counter({(V,): 10, (P, V): 1})


def test_an_outcome_alone_that_changed_while_confirming_is_nd() -> None:
    item, _ = kind_of({(V,): [False, True, False]})
    assert item.nd and item.finding.kind is None


def test_detect_then_classify_runs_the_victim_alone_ten_times_in_all() -> None:
    executor = Counted()
    report = detect_within(executor, Budget(), then_classify=True, strategies=("reverse",),
                           seed=1, group="none")  # fmt: skip
    [finding] = report.od_tests
    assert finding.test == V and finding.kind == "victim" and finding.polluters == [P]
    assert executor.ran[(V,)] == 10, executor.ran  # confirmation's 6 and 4 more
    assert executor.ran[(P, V)] == 6  # confirmation's runs; no confirming run of its own
