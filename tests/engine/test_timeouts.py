"""Per-test time limits: the policy (learned from durations), the clock that watches an
order's events, and an engine that kills a hang within the learned limit with no
``--timeout`` given."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from orderdep.core.outcomes import Outcome, TestResult
from orderdep.engine import timeouts
from orderdep.engine.testclock import TestClock
from orderdep.engine.timeouts import PROBE_SLACK, TimeoutPolicy

if TYPE_CHECKING:
    from conftest import EngineFactory, ProjectWriter


def _r(test: str, seconds: float, outcome: Outcome = Outcome.PASSED) -> TestResult:
    return TestResult(test, outcome, seconds)


def test_an_unseen_test_gets_the_first_run_limit() -> None:
    assert TimeoutPolicy().limit("t") == timeouts.UNSEEN


def test_a_seen_test_gets_ten_times_its_duration_plus_the_floor_and_the_slowest() -> None:
    policy = TimeoutPolicy()
    policy.learn([_r("fast", 0.1), _r("slow", 2.0)])
    assert policy.limit("fast") == pytest.approx(10 * 0.1 + timeouts.FLOOR + 2.0)
    assert policy.limit("slow") == pytest.approx(10 * 2.0 + timeouts.FLOOR + 2.0)
    assert policy.gap_limit() == pytest.approx(timeouts.FLOOR + 2.0)


def test_limits_only_grow_and_killed_tests_teach_no_duration() -> None:
    policy = TimeoutPolicy()
    policy.learn([_r("t", 1.0)])
    policy.learn([_r("t", 0.2)])
    assert policy.known("t") == 1.0
    policy.learn([_r("u", 0.0, Outcome.TIMEOUT), _r("v", 0.0, Outcome.CRASHED)])
    assert policy.known("u") is None and policy.known("v") is None


def test_a_test_that_never_finished_before_its_first_limit_is_taken_for_a_hang() -> None:
    policy = TimeoutPolicy()
    policy.learn([_r("t", 1.0), _r("hang", 0.0, Outcome.TIMEOUT)])
    assert policy.limit("hang") == pytest.approx(timeouts.FLOOR + 1.0)
    assert policy.limit("crash") == timeouts.UNSEEN  # a crash says nothing of time
    policy.learn([_r("t", 0.5, Outcome.TIMEOUT)])  # a slow run of a known test
    assert policy.limit("t") == pytest.approx(10 * 1.0 + timeouts.FLOOR + 1.0)


def test_an_explicit_limit_holds_for_every_test() -> None:
    policy = TimeoutPolicy(3.0)
    policy.learn([_r("t", 1.0)])
    assert policy.limit("t") == policy.limit("other") == policy.gap_limit() == 3.0
    assert "3 s per test" in policy.describe()


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_a_limit_that_is_not_a_number_of_seconds_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="positive number of seconds"):
        TimeoutPolicy(bad)


def _emit(path: Path, **event: object) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(event) + "\n")


def test_the_clock_follows_the_events(
    tmp_path: Path,
) -> None:
    events = tmp_path / "events.jsonl"
    policy = TimeoutPolicy(0.3)
    clock = TestClock(events, policy, startup=0.2)
    assert not clock.overdue()
    time.sleep(0.25)
    assert clock.overdue()  # nothing started within the start-up limit
    _emit(events, event="start", index=0, test="t", t=time.monotonic())
    assert not clock.overdue()  # the start moved the deadline on
    assert 0.0 < clock.wait_for() <= 0.3
    assert TestClock(events, TimeoutPolicy(60.0)).wait_for() == pytest.approx(0.5, abs=0.05)
    time.sleep(0.35)
    assert clock.overdue()  # the test overran its limit
    _emit(events, event="result", index=0, test="t", t=time.monotonic())
    assert not clock.overdue()


def test_the_clock_counts_from_when_the_test_started_not_when_it_looked(
    tmp_path: Path,
) -> None:
    events = tmp_path / "events.jsonl"
    clock = TestClock(events, TimeoutPolicy(0.5), startup=0.0)
    _emit(events, event="start", index=0, test="t", t=time.monotonic() - 1.0)
    assert clock.overdue()


def test_progress_counts_the_tests_seconds_from_the_first_test_s_start(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    clock = TestClock(events, TimeoutPolicy(60.0), startup=60.0)
    clock.started -= 5.0  # start-up and collection took 5 s
    clock.overdue()
    before = clock.progress()
    assert before.finished == 0 and before.testing is None and before.seconds >= 5.0
    assert before.tests_seconds == before.seconds  # unknown: all of it
    _emit(events, event="start", index=0, test="t", t=time.monotonic() - 2.0)
    _emit(events, event="result", index=0, test="t", t=time.monotonic() - 1.0)
    _emit(events, event="start", index=1, test="u", t=time.monotonic() - 1.0)
    clock.overdue()
    now = clock.progress()
    assert now.finished == 1
    assert now.testing is not None and 2.0 <= now.testing < 3.0 <= now.seconds - 2.0
    assert now.tests_seconds == now.testing


def test_a_probe_gives_every_test_more_time(tmp_path: Path) -> None:
    # capturing state around a fast test may take far longer than the test
    events = tmp_path / "events.jsonl"
    started = time.monotonic() - 1.0
    _emit(events, event="start", index=0, test="t", t=started)
    assert TestClock(events, TimeoutPolicy(0.5), startup=0.0).overdue()
    policy = TimeoutPolicy(0.5)
    slack = policy.slack_for(object())
    assert slack == PROBE_SLACK and policy.slack_for(None) == 0.0
    assert not TestClock(events, policy, startup=0.0, extra=slack).overdue()
    # once an order with a probe overran even that, the probe hangs there: no more slack
    policy.probe_ran([TestResult("t", Outcome.PASSED)])
    assert policy.slack_for(object()) == PROBE_SLACK
    policy.probe_ran([TestResult("t", Outcome.TIMEOUT)])
    assert policy.slack_for(object()) == 0.0


def test_a_torn_last_line_is_read_once_complete(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    clock = TestClock(events, TimeoutPolicy(60.0), startup=0.0)
    line = json.dumps({"event": "start", "index": 0, "test": "t", "t": time.monotonic()})
    events.write_text(line[:10], encoding="utf-8")
    assert clock.overdue()
    with open(events, "a", encoding="utf-8") as fh:
        fh.write(line[10:] + "\n")
    assert not clock.overdue()


HANG_FILES = {
    "test_hang.py": """
        import os
        import time


        def test_fast():
            pass


        def test_hangs_once_armed():
            if os.path.exists(os.environ["OD_ARM"]):
                time.sleep(600)
    """,
}


@pytest.mark.parametrize("runner", ["fork", "subprocess"])
def test_without_a_timeout_a_hang_is_killed_within_the_learned_limit(
    make_project: ProjectWriter, make_engine: EngineFactory, tmp_path: Path, runner: str
) -> None:
    arm = tmp_path / "armed"
    engine = make_engine(make_project(HANG_FILES), runner=runner, extra_env={"OD_ARM": str(arm)})
    order = ["test_hang.py::test_fast", "test_hang.py::test_hangs_once_armed"]
    first = engine.run(order)
    assert [r.outcome for r in first] == [Outcome.PASSED, Outcome.PASSED]
    limit = engine.timeouts.limit(order[1])
    assert limit < timeouts.FLOOR + 2  # learned: a fast test gets a few seconds
    arm.write_text("")
    second = engine.run(order)
    assert [r.outcome for r in second] == [Outcome.PASSED, Outcome.TIMEOUT]
    assert second.wall_seconds < limit + 10
    arm.unlink()
    assert [r.outcome for r in engine.run(order)] == [Outcome.PASSED, Outcome.PASSED]
