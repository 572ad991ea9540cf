"""Chunks of confirmation learn from the chunks before them: the partners of OD tests
already confirmed are tried first for the next suspects."""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Optional

import pytest

from orderdep.analysis import confirm_chunks
from orderdep.analysis.budget import Budget, BudgetedExecutor
from orderdep.analysis.confirm import OrderRunner, RunLog, partners_before
from orderdep.analysis.confirm_chunks import confirm_in_chunks, partners_in
from orderdep.core.odmodel import ODSpec
from orderdep.core.outcomes import OrderResult
from orderdep.core.report import ODFinding
from orderdep.core.suite import Suite
from orderdep.engine.probe import ProbeSpec
from orderdep.synth.model import ModelExecutor


def _one_polluter_many_victims(victims: int) -> tuple[ModelExecutor, list[str]]:
    """``p`` first, then 300 unrelated tests, then ``victims`` victims of ``p``."""
    fillers = [f"t{i:03d}" for i in range(300)]
    vs = [f"v{i}" for i in range(victims)]
    specs = [ODSpec(v, "victim", polluters=["p"]) for v in vs]
    return ModelExecutor(Suite.from_ids(["p", *fillers, *vs]), specs), vs


def _orders_to_confirm(victims: int) -> tuple[int, list[ODFinding]]:
    model, vs = _one_polluter_many_victims(victims)
    runner = OrderRunner(model, RunLog(None), 1)
    verdicts, pending, stop = confirm_in_chunks(
        runner, [model.run(list(model.suite.ids))], confirm_runs=1, chunk=1
    )
    assert stop is None and pending == []
    assert sorted(f.test for f in verdicts.od) == vs
    return runner.orders_run, verdicts.od


def test_the_victims_of_a_polluter_confirmed_once_cost_a_few_orders_each() -> None:
    one, _ = _orders_to_confirm(1)
    eight, found = _orders_to_confirm(8)
    # the first victim's polluter is found by group testing over 300 tests (a dozen
    # orders); each later victim tries it first: alone, [p, v], and one re-run of each
    assert one >= 10
    assert eight - one <= 7 * 4
    assert all(f.failing_order == ["p", f.test] for f in found)


def test_partners_are_the_other_tests_of_the_confirmed_orders_and_classification() -> None:
    f = ODFinding("v", failing_order=["a", "v"], passing_order=["v"], polluters=["b"])
    g = ODFinding("w", failing_order=["w"], passing_order=["c", "w"], state_setters=["d"])
    g.polluter_groups = [["e", "f"]]
    assert partners_in([f, g]) == {"a", "b", "c", "d", "e", "f"}


def test_partners_before_keep_the_recorded_order_and_skip_later_tests() -> None:
    recorded = ["x", "b", "y", "a", "v", "c"]
    assert partners_before("v", recorded, {"a", "b", "c", "v"}) == ["b", "a"]
    assert partners_before("v", recorded, set()) == []


def _hidden_sibling() -> tuple[ModelExecutor, list[str]]:
    """``p``, then a class whose first test is ``p``'s victim and whose fourth is one too,
    but runs after ``c1``, which cleans up after ``p``: only ``[p, c3]`` shows it."""
    c = [f"tests/test_c.py::TestC::test_{i}" for i in range(6)]
    specs = [
        ODSpec(c[0], "victim", polluters=["tests/test_p.py::test_p"]),
        ODSpec(c[3], "victim", polluters=["tests/test_p.py::test_p"],
               cleaners={"tests/test_p.py::test_p": [c[1]]}),
    ]  # fmt: skip
    return ModelExecutor(Suite.from_ids(["tests/test_p.py::test_p", *c]), specs), c


def test_a_confirmed_victims_polluter_is_tried_before_its_siblings() -> None:
    model, c = _hidden_sibling()
    search = [model.run(list(model.suite.ids))]
    got = []
    for siblings in (0, 24):
        runner = OrderRunner(model, RunLog(None), 1)
        verdicts, pending, stop = confirm_in_chunks(
            runner, search, confirm_runs=1, chunk=1, siblings=siblings
        )
        assert stop is None and pending == []
        got.append(sorted(f.test for f in verdicts.od))
    assert got == [[c[0]], [c[0], c[3]]]
    runner = OrderRunner(model, RunLog(None), 1)
    verdicts, _, _ = confirm_in_chunks(runner, search, confirm_runs=1, chunk=1)
    found = {f.test: f.failing_order for f in verdicts.od}
    assert found[c[3]] == ["tests/test_p.py::test_p", c[3]]


def test_a_sibling_a_search_order_ran_right_after_the_polluter_gets_no_order() -> None:
    model, c = _hidden_sibling()
    p = "tests/test_p.py::test_p"
    # the search also ran [p, c4, c5, c2]: c4 ran right after p, the other siblings did not
    search = [model.run(list(model.suite.ids)), model.run([p, c[4], c[5], c[2]])]
    runner = OrderRunner(model, RunLog(None), 1)
    confirm_in_chunks(runner, search, confirm_runs=1, chunk=1)
    two = [list(o) for o in runner.log.orders() if len(o) == 2 and o[0] == p and o[1] != c[0]]
    assert two == [[p, c[1]], [p, c[2]], [p, c[3]], [p, c[5]]]


def test_the_siblings_orders_stop_at_their_share_of_the_budget_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model, c = _hidden_sibling()
    p = "tests/test_p.py::test_p"
    now = [0.0]

    def tick() -> float:  # the sweep's clock: 10 s more each time it looks
        now[0] += 10.0
        return now[0]

    monkeypatch.setattr(confirm_chunks, "time", types.SimpleNamespace(monotonic=tick))
    # 100 s left: 25 s for the siblings, two orders a slice, looked at before each slice
    runner = OrderRunner(BudgetedExecutor(model, Budget(100.0, clock=lambda: 0.0)), RunLog(None))
    confirm_in_chunks(runner, [model.run(list(model.suite.ids))], confirm_runs=1, chunk=1)
    two = [list(o) for o in runner.log.orders() if len(o) == 2 and o[0] == p and o[1] != c[0]]
    assert two == [[p, c[1]], [p, c[2]], [p, c[3]], [p, c[4]]]


def test_the_first_chunk_is_one_suspect_when_more_follow() -> None:
    model, vs = _one_polluter_many_victims(6)
    runner = OrderRunner(model, RunLog(None), 2)
    verdicts, _, stop = confirm_in_chunks(
        runner, [model.run(list(model.suite.ids))], confirm_runs=1, chunk=4
    )
    assert stop is None and sorted(f.test for f in verdicts.od) == vs
    # group testing over the 300 tests before a victim, for the first victim only: the
    # others try its polluter first
    searched = {o[-1] for o in runner.log.orders() if len(o) > 2}
    assert searched == {vs[0]}


class _ClockedModel(ModelExecutor):
    """:func:`_one_polluter_many_victims`'s suite, each order taking 0.1 s a test on a
    fake clock."""

    def __init__(self, victims: int, clock: list[float]) -> None:
        model, self.victims = _one_polluter_many_victims(victims)
        super().__init__(model.suite, list(model.specs.values()))
        self.clock = clock

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        self.clock[0] += 0.1 * len(order)
        return super().run(order, probe=probe)


def _confirmed_within(seconds: float, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """How many of 12 victims are confirmed, and classified by ``on_chunk`` (which takes
    10 s an OD test), within ``seconds``."""
    clock = [0.0]
    monkeypatch.setattr(confirm_chunks, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    model = _ClockedModel(12, clock)
    search = [model.run(list(model.suite.ids))]
    classified: list[str] = []

    def classify(findings: list[ODFinding], _seen: object) -> None:
        clock[0] += 10.0 * len(findings)
        classified.extend(f.test for f in findings)

    budget = Budget(seconds, clock=lambda: clock[0])
    runner = OrderRunner(BudgetedExecutor(model, budget), RunLog(None))
    verdicts, _, _ = confirm_in_chunks(
        runner, search, confirm_runs=1, chunk=2, siblings=0, on_chunk=classify
    )
    return len(verdicts.od), len(classified)


def test_classifying_waits_while_it_would_leave_the_suspects_unconfirmed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # plenty of time: each chunk is classified as soon as it is confirmed
    assert _confirmed_within(1000.0, monkeypatch) == (12, 12)
    # 100 s: classifying every chunk would confirm a handful; waiting confirms them all
    confirmed, classified = _confirmed_within(100.0, monkeypatch)
    assert confirmed == 12
    assert 1 <= classified < 12
