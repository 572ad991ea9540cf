"""The file protocol between the controller and its pytest processes, and the recorder
that folds pytest's setup/call/teardown reports into one event per position."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from orderdep.core.outcomes import Outcome, TestResult
from orderdep.engine.childrun import MESSAGE_LIMIT, Recorder
from orderdep.engine.protocol import EventWriter, assemble_results, read_events, write_json


def test_write_json_replaces_atomically(tmp_path: Path) -> None:
    path = tmp_path / "control.json"
    write_json(path, {"mode": "collect"})
    write_json(path, {"mode": "run", "order": ["a", "b"]})
    assert json.loads(path.read_text()) == {"mode": "run", "order": ["a", "b"]}
    assert [p.name for p in tmp_path.iterdir()] == ["control.json"]


def test_events_are_readable_while_the_writer_is_still_open(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    writer = EventWriter(path)
    writer.emit("start", index=0, test="t.py::a")
    # A child killed right now must leave this event behind: it is already flushed.
    assert list(read_events(path)) == [{"event": "start", "index": 0, "test": "t.py::a"}]
    writer.emit("result", index=0, test="t.py::a", outcome="passed")
    writer.close()
    assert [e["event"] for e in read_events(path)] == ["start", "result"]
    EventWriter(path).emit("probe", data={})  # appends, never truncates
    assert len(list(read_events(path))) == 3


def test_read_events_skips_a_torn_last_line_and_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    assert list(read_events(path)) == []
    path.write_text('{"event": "start", "index": 0, "test": "a"}\n\n{"event": "res')
    assert list(read_events(path)) == [{"event": "start", "index": 0, "test": "a"}]


def _start(i: int, test: str) -> dict[str, Any]:
    return {"event": "start", "index": i, "test": test}


def _result(i: int, test: str, outcome: str, message: str = "") -> dict[str, Any]:
    return {
        "event": "result",
        "index": i,
        "test": test,
        "outcome": outcome,
        "duration": 0.5,
        "message": message,
    }


def test_assemble_one_result_per_position_duplicates_included() -> None:
    order = ["a", "b", "a"]
    events = [
        _start(0, "a"),
        _result(0, "a", "passed"),
        _start(1, "b"),
        _result(1, "b", "passed"),
        _start(2, "a"),
        _result(2, "a", "failed", "assert 1 == 2"),
        {"event": "suite", "tests": []},  # other events are ignored
    ]
    results, probe = assemble_results(order, events, died=None)
    assert results == [
        TestResult("a", Outcome.PASSED, 0.5, ""),
        TestResult("b", Outcome.PASSED, 0.5, ""),
        TestResult("a", Outcome.FAILED, 0.5, "assert 1 == 2"),
    ]
    assert probe == {}


@pytest.mark.parametrize(
    ("died", "outcome", "says"),
    [
        (Outcome.TIMEOUT, Outcome.TIMEOUT, "time limit"),
        (Outcome.CRASHED, Outcome.CRASHED, "died"),
        (None, Outcome.CRASHED, "died"),
    ],
)
def test_assemble_marks_the_running_test_and_the_rest_not_run(
    died: Outcome | None, outcome: Outcome, says: str
) -> None:
    order = ["a", "b", "c", "d"]
    events = [_start(0, "a"), _result(0, "a", "passed"), _start(1, "b")]
    results, _ = assemble_results(order, events, died=died)
    assert [r.outcome for r in results] == [
        Outcome.PASSED,
        outcome,
        Outcome.NOT_RUN,
        Outcome.NOT_RUN,
    ]
    assert says in results[1].message
    assert [r.test for r in results] == order
    assert results[2].message == results[3].message == ""


def test_assemble_without_events_is_all_not_run() -> None:
    results, _ = assemble_results(["a", "b"], [], died=None)
    assert [r.outcome for r in results] == [Outcome.NOT_RUN, Outcome.NOT_RUN]


def test_assemble_blames_the_first_position_when_the_process_died_before_it() -> None:
    results, _ = assemble_results(["a", "b"], [], died=Outcome.CRASHED)
    assert [r.outcome for r in results] == [Outcome.CRASHED, Outcome.NOT_RUN]
    assert results[0].message


def test_assemble_returns_the_probe_data() -> None:
    events = [_start(0, "a"), _result(0, "a", "passed"), {"event": "probe", "data": {"w": [1]}}]
    results, probe = assemble_results(["a"], events, died=None)
    assert probe == {"w": [1]}
    assert results[0].outcome is Outcome.PASSED


# -- the recorder, fed with report-like objects ------------------------------------


class Crash:
    def __init__(self, message: str) -> None:
        self.reprcrash = SimpleNamespace(message=message)


def report(when: str, outcome: str, longrepr: Any = None, **extra: Any) -> Any:
    return SimpleNamespace(
        when=when,
        failed=outcome == "failed",
        skipped=outcome == "skipped",
        passed=outcome == "passed",
        longrepr=longrepr,
        longreprtext=str(longrepr or ""),
        **extra,
    )


def record(tmp_path: Path, *reports: Any) -> dict[str, Any]:
    path = tmp_path / "events.jsonl"
    path.unlink(missing_ok=True)
    writer = EventWriter(path)
    recorder = Recorder(writer)
    recorder.on_report(report("setup", "failed", Crash("ignored: nothing started")))
    recorder.start(3, "t.py::x")
    for r in reports:
        recorder.on_report(r)
    recorder.finish()
    writer.close()
    events = list(read_events(path))
    assert [e["event"] for e in events] == ["start", "result"]
    assert events[1]["index"] == 3 and events[1]["test"] == "t.py::x"
    return events[1]


def test_recorder_folds_the_phases(tmp_path: Path) -> None:
    ok = report("setup", "passed")
    done = report("teardown", "passed")
    cases = [
        ((ok, report("call", "passed"), done), "passed", ""),
        ((ok, report("call", "failed", Crash("assert 0")), done), "failed", "assert 0"),
        ((report("setup", "failed", Crash("E: setup")), done), "error", "E: setup"),
        (
            (ok, report("call", "passed"), report("teardown", "failed", Crash("E: td"))),
            "error",
            "E: td",
        ),
        (
            (
                ok,
                report("call", "failed", Crash("first")),
                report("teardown", "failed", Crash("E")),
            ),
            "failed",
            "first",
        ),
        ((report("setup", "skipped", ("f.py", 1, "Skipped: no")), done), "skipped", "Skipped: no"),
        (
            (ok, report("call", "skipped", Crash("assert 0"), wasxfail=""), done),
            "xfailed",
            "assert 0",
        ),
        ((ok, report("call", "passed", wasxfail="why"), done), "xpassed", ""),
    ]
    for reports, outcome, message in cases:
        event = record(tmp_path, *reports)
        assert (event["outcome"], event["message"]) == (outcome, message), reports


def test_recorder_cuts_long_messages(tmp_path: Path) -> None:
    event = record(tmp_path, report("call", "failed", Crash("x" * 10_000)))
    assert event["message"] == "x" * MESSAGE_LIMIT
