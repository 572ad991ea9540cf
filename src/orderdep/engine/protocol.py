"""The file protocol between the controller and the pytest processes it starts.

The controller writes a *control* JSON file and names it in ``ORDERDEP_CONTROL``; the
child plugin reads it. Results flow back as JSON lines appended (and flushed) one event at
a time, so a child that dies mid-order still leaves every finished result behind:

- ``{"event": "start", "index": i, "test": id}`` before a test's setup;
- ``{"event": "result", "index": i, "test": id, "outcome": ..., "duration": ..., "message": ...}``;
- ``{"event": "probe", "data": {...}}`` once at the end when a probe ran;
- ``{"event": "ids", "renamed": {id: own id}, "missing": [id, ...]}`` before any test, when
  the process collected some of the order's ids under other ids (volatile parametrize
  ids, see :mod:`orderdep.core.volatile`);
- ``{"event": "suite", ...}`` / ``{"event": "collect_error", ...}`` in collect mode.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from orderdep.core.outcomes import Outcome, TestResult

CONTROL_ENV = "ORDERDEP_CONTROL"


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (rename), so a reader never sees half a file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, path)


class EventWriter:
    """Appends events as JSON lines, flushing each one to the OS immediately."""

    def __init__(self, path: Path) -> None:
        self._fh: IO[str] = open(path, "a", encoding="utf-8")  # noqa: SIM115

    def emit(self, event: str, **data: Any) -> None:
        self._fh.write(json.dumps({"event": event, **data}) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


def read_events(path: Path) -> Iterator[dict[str, Any]]:
    """Every complete event in ``path`` (a torn last line from a killed child is skipped)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    for line in text.splitlines():
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            continue


def assemble_results(
    order: Sequence[str], events: Sequence[dict[str, Any]], *, died: Outcome | None
) -> tuple[list[TestResult], dict[str, Any]]:
    """Turn the events of one order into one result per position.

    A position that started but has no result gets ``died`` (``timeout`` when the
    controller killed the child, ``crashed`` when it died by itself); positions after it
    are ``not-run``. Returns the results and the probe data (``{}`` without a probe).
    """
    results: dict[int, TestResult] = {}
    started: set[int] = set()
    probe: dict[str, Any] = {}
    for ev in events:
        kind = ev.get("event")
        if kind == "start":
            started.add(int(ev["index"]))
        elif kind == "result":
            results[int(ev["index"])] = TestResult.from_json(ev)
        elif kind == "probe":
            probe = dict(ev.get("data") or {})
    if died is not None and not started and not results and order:
        started.add(0)  # the process ended before its first test: blame the order's start
    out: list[TestResult] = []
    for i, test in enumerate(order):
        if i in results:
            out.append(results[i])
        elif i in started:
            outcome = died or Outcome.CRASHED
            message = {
                Outcome.TIMEOUT: "the test ran past its time limit; its process group was killed",
                Outcome.CRASHED: "the test process died while this test ran",
            }.get(outcome, "")
            out.append(TestResult(test, outcome, 0.0, message))
        else:
            out.append(TestResult(test, Outcome.NOT_RUN, 0.0, ""))
    return out, probe


class IdChanges:
    """What the ``ids`` events of a worker's orders said: the order's ids a test process
    collected under other ids (the last id seen for each), and those it could not find."""

    def __init__(self) -> None:
        self.renamed: dict[str, str] = {}
        self.missing: dict[str, None] = {}

    def add(self, events: Sequence[dict[str, Any]]) -> None:
        for ev in events:
            if ev.get("event") == "ids":
                self.renamed.update({str(k): str(v) for k, v in (ev.get("renamed") or {}).items()})
                self.missing.update(dict.fromkeys(str(t) for t in ev.get("missing") or []))
