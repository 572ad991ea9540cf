"""Ordering plugin for the *plain* reference run: pytest's own run loop, in a given order.

Loaded through ``PYTEST_ADDOPTS`` (so ``sys.argv`` is exactly the user's ``python -m
pytest`` command line) when ``ORDERDEP_PLAIN`` names a control file. It only reorders
and deselects the collected items (``pytest_collection_modifyitems``) and records each
outcome; everything else is pytest's own: its run loop, its session start and finish.
On import it puts ``PYTEST_ADDOPTS`` back to what the user had, so tests see the
user's environment.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional

import pytest

from orderdep.core.volatile import not_collected_message
from orderdep.engine.childrun import Recorder, own_ids
from orderdep.engine.protocol import EventWriter

PLAIN_ENV = "ORDERDEP_PLAIN"


def _load() -> Optional[dict[str, Any]]:
    path = os.environ.pop(PLAIN_ENV, None)
    if not path:
        return None
    control: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    addopts = control.get("addopts")
    if addopts is None:
        os.environ.pop("PYTEST_ADDOPTS", None)
    else:
        os.environ["PYTEST_ADDOPTS"] = str(addopts)
    return control


_control = _load()
_recorder: Optional[Recorder] = None
_order: list[str] = []
# Positions by this process's own id (another collection's volatile ids are renamed).
_positions: dict[str, list[int]] = {}
# Files whose collection failed (an import error, say) -> the error's last line.
_collect_errors: dict[str, str] = {}


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if _control is not None and report.failed:
        lines = str(report.longrepr).strip().splitlines() or ["(no message)"]
        _collect_errors[report.nodeid.split("::")[0]] = lines[-1].strip()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    global _recorder
    if _control is None:
        return
    order = _order[:] = [str(t) for t in _control["order"]]
    by_id = {item.nodeid: item for item in items}
    _recorder = Recorder(EventWriter(Path(_control["events"])))
    renamed, missing = own_ids(order, by_id, _control.get("reference"), _recorder.writer)
    own = [renamed.get(t, t) for t in order]
    wanted = [by_id[t] for t in own if t in by_id]
    if missing or len(set(order)) != len(order):
        wanted = []  # every position is reported not-run, with the reason
    chosen = {id(item) for item in wanted}
    config.hook.pytest_deselected(items=[i for i in items if id(i) not in chosen])
    items[:] = wanted
    for index, test in enumerate(own):
        _positions.setdefault(test, []).append(index)
    if not wanted:
        message = not_collected_message(missing[0], by_id) if missing else "repeated test id"
        for index, test in enumerate(order):
            error = _collect_errors.get(test.split("::")[0])
            _recorder.writer.emit(
                "result",
                index=index,
                test=test,
                # What `pytest ID` shows: an error collecting the test's file.
                outcome="not-run" if error is None else "error",
                duration=0.0,
                message=message if error is None else f"error collecting its file: {error}",
            )


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    if _recorder is not None and _positions.get(nodeid):
        index = _positions[nodeid].pop(0)
        _recorder.start(index, _order[index])


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if _recorder is not None:
        _recorder.on_report(report)


def pytest_runtest_logfinish(nodeid: str, location: Any) -> None:
    if _recorder is not None and _recorder.index >= 0:
        _recorder.finish()
