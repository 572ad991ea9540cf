"""Shortening a suspect's order without its few slow tests first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Optional

from orderdep.analysis.confirm import OrderRunner, RunLog, confirm
from orderdep.analysis.shortening import narrowed, quick_prefix
from orderdep.core.odmodel import ODSpec
from orderdep.core.outcomes import OrderResult
from orderdep.core.suite import Suite
from orderdep.engine.probe import ProbeSpec
from orderdep.synth.model import ModelExecutor

SLOW = {f"test.py::test_slow{i}": 10.0 for i in range(3)}


def suite_ids() -> list[str]:
    """One module (no module hint can help): 40 fast tests, 3 slow ones among them, a
    fast polluter and its victim last."""
    fast = [f"test.py::test_{i:02d}" for i in range(40)]
    ids = [*fast[:5], *list(SLOW)[:1], *fast[5:20], "test.py::test_pollute", *fast[20:]]
    return [*ids[:30], *list(SLOW)[1:], *ids[30:], "test.py::test_victim"]


def seconds(test: str) -> float:
    return SLOW.get(test, 0.01)


class TimedModel(ModelExecutor):
    """The model suite, adding up the seconds each order it runs would take."""

    def __init__(self, ids: Sequence[str], polluter: str = "test.py::test_pollute") -> None:
        spec = ODSpec("test.py::test_victim", "victim", polluters=[polluter])
        super().__init__(Suite.from_ids(list(ids)), [spec])
        self.seconds = 0.0

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        self.seconds += sum(seconds(t) for t in order)
        return super().run(order, probe=probe)


def timed(result: OrderResult, durations: Mapping[str, float]) -> OrderResult:
    """``result`` with each test's duration as ``durations`` says."""
    return replace(
        result, results=[replace(r, duration=durations.get(r.test, 0.0)) for r in result.results]
    )


def test_the_prefix_without_its_few_slow_tests() -> None:
    ids = suite_ids()[:-1]
    quick = quick_prefix(ids, {t: seconds(t) for t in ids})
    assert quick == [t for t in ids if t not in SLOW]
    assert quick_prefix(ids, {t: 0.5 for t in ids}) is None  # no few tests dominate
    assert quick_prefix(ids, {}) is None


def test_the_quick_prefix_and_the_slow_tests_come_cheapest_first() -> None:
    ids = suite_ids()
    victim, prefix = ids[-1], ids[:-1]
    durations = {t: seconds(t) for t in ids}
    quick, slow = [t for t in prefix if t not in SLOW], [[t] for t in prefix if t in SLOW]
    assert narrowed(victim, ids, [ids], [[victim]]) == []
    assert narrowed(victim, ids, [ids], [[victim]], durations) == [quick, *slow]
    odd = [t for t in prefix if t.endswith(("1", "3", "5", "7", "9"))]  # one slow test
    assert narrowed(victim, ids, [ids, [*odd, victim]], [[victim]]) == [odd]
    hints = narrowed(victim, ids, [ids, [*odd, victim]], [[victim]], durations)
    assert hints == [quick, *slow, odd]
    # slow tests of a fast suite (0.3 s in all): the quick prefix only, shortest first
    fast = {t: d / 100 for t, d in durations.items()}
    assert narrowed(victim, ids, [ids, [*odd, victim]], [[victim]], fast) == [odd, quick]


def test_many_slow_tests_are_tried_together_too() -> None:
    ids = [f"t.py::test_{i:02d}" for i in range(60)]
    durations = {t: (5.0 + i if i % 10 == 0 else 0.01) for i, t in enumerate(ids)}
    victim = ids[-1]
    quick = quick_prefix(ids[:-1], durations)
    assert quick is not None
    slow = [t for t in ids[:-1] if t not in quick]
    assert slow == ["t.py::test_20", "t.py::test_30", "t.py::test_40", "t.py::test_50"]
    hints = narrowed(victim, ids, [ids], [[victim]], durations)
    assert hints == [
        quick,
        ["t.py::test_30"],
        ["t.py::test_40"],
        ["t.py::test_50"],
        slow,
    ]


def confirmed_seconds(
    durations: Mapping[str, float], polluter: str = "test.py::test_pollute"
) -> tuple[float, list[list[str]]]:
    """The seconds confirming the victim takes, from the original order timed with
    ``durations``, and the failing orders of what it found."""
    ids = suite_ids()
    model = TimedModel(ids, polluter)
    search = [timed(model.run(ids), durations)]
    model.seconds = 0.0
    verdicts = confirm(OrderRunner(model, RunLog()), search, confirm_runs=1)
    return model.seconds, [f.failing_order for f in verdicts.od]


def test_confirmation_shortens_around_the_slow_tests() -> None:
    with_times, found = confirmed_seconds({t: seconds(t) for t in suite_ids()})
    without_times, found_without = confirmed_seconds({})
    assert found == found_without == [["test.py::test_pollute", "test.py::test_victim"]]
    assert with_times * 2 < without_times


def test_a_slow_polluter_is_found_among_the_slow_tests() -> None:
    slow = "test.py::test_slow1"
    with_times, found = confirmed_seconds({t: seconds(t) for t in suite_ids()}, slow)
    without_times, found_without = confirmed_seconds({}, slow)
    assert found == found_without == [[slow, "test.py::test_victim"]]
    assert with_times * 2 < without_times
