"""The run loop inside a pytest process: run an exact order of collected items.

Runs inside the child (``subprocess`` backend) or the forked child (``fork`` backend).
It drives pytest's own ``pytest_runtest_protocol`` hook item by item, with ``nextitem``
taken from the requested order, so fixtures of every scope are set up and torn down as in
a normal run of that sequence and other plugins (capture, logging, timeouts) still work.
"""

from __future__ import annotations

import copy
import importlib
import json
import time
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

import pytest

from orderdep.core.outcomes import Outcome
from orderdep.core.volatile import not_collected_message, translate
from orderdep.engine.gcguard import garbage_kept
from orderdep.engine.protocol import EventWriter

MESSAGE_LIMIT = 500


def _short_message(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        text = str(crash.message)
    elif isinstance(longrepr, tuple) and len(longrepr) == 3:  # skip: (path, lineno, reason)
        text = str(longrepr[2])
    else:
        lines = [line for line in report.longreprtext.splitlines() if line.strip()]
        text = lines[-1] if lines else ""
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.strip()[:MESSAGE_LIMIT]


class Recorder:
    """Folds the setup/call/teardown reports of the running position into one outcome."""

    def __init__(self, writer: EventWriter) -> None:
        self.writer = writer
        self.index = -1
        self.test = ""
        self._outcome: Optional[Outcome] = None
        self._message = ""
        self._start = 0.0

    def start(self, index: int, test: str) -> None:
        self.index, self.test = index, test
        self._outcome, self._message = None, ""
        self._start = time.perf_counter()
        self.writer.emit("start", index=index, test=test, t=time.monotonic())

    def on_report(self, report: pytest.TestReport) -> None:
        if self.index < 0:
            return
        xfail = hasattr(report, "wasxfail")
        outcome: Optional[Outcome] = None
        if report.when == "call":
            if report.failed:
                outcome = Outcome.FAILED
            elif report.skipped:
                outcome = Outcome.XFAILED if xfail else Outcome.SKIPPED
            else:
                outcome = Outcome.XPASSED if xfail else Outcome.PASSED
        elif report.failed:  # setup or teardown
            if self._outcome not in (Outcome.FAILED, Outcome.ERROR):
                outcome = Outcome.ERROR
        elif report.when == "setup" and report.skipped:
            outcome = Outcome.XFAILED if xfail else Outcome.SKIPPED
        if outcome is not None:
            self._outcome = outcome
            if outcome not in (Outcome.PASSED, Outcome.XPASSED) or not self._message:
                self._message = _short_message(report) if report.longrepr else ""

    def finish(self) -> None:
        outcome = self._outcome or Outcome.PASSED
        message = "" if outcome is Outcome.PASSED else self._message
        self.writer.emit(
            "result",
            index=self.index,
            test=self.test,
            outcome=outcome.value,
            duration=time.perf_counter() - self._start,
            message=message,
            t=time.monotonic(),
        )
        self.index = -1


def _clone(item: pytest.Item) -> pytest.Item:
    """A fresh item for a test queued again, so it is set up and torn down anew.

    pytest keeps an item set up while ``nextitem`` is the same item, so running one
    object twice in a row would skip the second setup; a separate node avoids that.
    Clones are made before anything runs: a doctest clears its globals when it ends.
    """
    if isinstance(item, pytest.Function):
        return type(item).from_parent(
            item.parent,
            name=item.name,
            callspec=getattr(item, "callspec", None),
            fixtureinfo=item._fixtureinfo,
            keywords=dict(item.keywords),
            originalname=item.originalname,
        )
    dtest = getattr(item, "dtest", None)
    runner = getattr(item, "runner", None)
    if dtest is not None and runner is not None:
        fresh = copy.copy(dtest)
        fresh.globs = dict(dtest.globs)
        parent = item.parent
        assert parent is not None
        return type(item).from_parent(parent, name=item.name, runner=runner, dtest=fresh)
    return item


class UnloadedProbe:
    """A probe that could not be made: the order runs without it, and its answer is the
    error (``probe["error"]``), which the analysis that asked for it reports."""

    def __init__(self, error: str) -> None:
        self.error = error

    def before_test(self, index: int, test_id: str) -> None:
        pass

    def after_test(self, index: int, test_id: str) -> None:
        pass

    def result(self) -> dict[str, Any]:
        return {"error": self.error}


def load_probe(spec: Optional[dict[str, Any]], rootdir: str) -> Any:
    if not spec:
        return None
    try:
        module = importlib.import_module(spec["module"])
        return module.make_probe(spec.get("options") or {}, rootdir)
    except Exception:  # user code (a conftest, a plugin) decides what is importable
        return UnloadedProbe(traceback.format_exc())


def items_by_id(session: pytest.Session) -> dict[str, pytest.Item]:
    return {item.nodeid: item for item in session.items}


def own_ids(
    order: Sequence[str], by_id: Mapping[str, object], reference: Optional[str], writer: EventWriter
) -> tuple[dict[str, str], list[str]]:
    """The ids of ``order`` this process collected under another id (renamed: the
    order's id -> this process's), and those it cannot find.

    ``reference`` names a JSON file with the ids of the collection the order's ids come
    from (see :mod:`orderdep.core.volatile`); it is read only when an id is not found
    (a forked child touches no other item). Renamed and missing ids are reported in one
    ``ids`` event.
    """
    if all(t in by_id for t in order):
        return {}, []
    ids: list[str] = []
    if reference:
        try:
            ids = [str(t) for t in json.loads(Path(reference).read_text(encoding="utf-8"))]
        except (OSError, ValueError):
            ids = []
    renamed, missing = translate(order, list(by_id), ids)
    writer.emit("ids", renamed=renamed, missing=missing)
    return renamed, missing


class OrderRun:
    """One requested order in this process: its items and what happens around each.

    The loop itself is not here: the hook implementation that replaces pytest's run loop
    drives it (``for i, item, nextitem in run.steps(): run.before(i); hook(...);
    run.after(i)``), so a test's body runs at exactly the stack depth it has under
    pytest's own loop (a test that lowers ``sys.setrecursionlimit`` keeps the same
    headroom).
    """

    def __init__(
        self,
        session: pytest.Session,
        order: Sequence[str],
        recorder: Recorder,
        probe: Any = None,
        by_id: Optional[dict[str, pytest.Item]] = None,
        reference: Optional[str] = None,
    ) -> None:
        self.session = session
        self.order = list(order)
        self.recorder = recorder
        self.probe = probe
        self.probe_error = ""
        self.items: list[pytest.Item] = []
        if by_id is None:
            by_id = items_by_id(session)
        # Ids of another collection (volatile parametrize ids) are renamed to this one's;
        # results keep the order's ids.
        renamed, missing = own_ids(self.order, by_id, reference, recorder.writer)
        if missing:
            # Collection in this process differs from the suite (e.g. --lf in addopts).
            message = not_collected_message(missing[0], list(by_id))
            for i, test in enumerate(self.order):
                recorder.writer.emit(
                    "result",
                    index=i,
                    test=test,
                    outcome=Outcome.NOT_RUN.value,
                    duration=0.0,
                    message=message,
                )
            return
        used: set[int] = set()
        for test in self.order:
            item = by_id[renamed.get(test, test)]
            if id(item) in used:
                item = _clone(item)
            used.add(id(item))
            self.items.append(item)

    def next_item(self, i: int) -> Optional[pytest.Item]:
        return self.items[i + 1] if i + 1 < len(self.items) else None

    def before(self, i: int) -> None:
        self.recorder.start(i, self.order[i])
        if self.probe is not None:
            try:
                with garbage_kept():
                    self.probe.before_test(i, self.order[i])
            except Exception:
                self.probe_error = self.probe_error or traceback.format_exc()

    def after(self, i: int) -> bool:
        """Finish position ``i``; True when the session asks to stop."""
        if self.probe is not None:
            try:
                with garbage_kept():
                    self.probe.after_test(i, self.order[i])
            except Exception:
                self.probe_error = self.probe_error or traceback.format_exc()
        self.recorder.finish()
        return bool(self.session.shouldstop or self.session.shouldfail)

    def finish(self) -> None:
        if self.probe is None or not self.items:
            return
        data: dict[str, Any] = {}
        try:
            data = dict(self.probe.result())
        except Exception:
            self.probe_error = self.probe_error or traceback.format_exc()
        if self.probe_error:
            data["error"] = self.probe_error
        self.recorder.writer.emit("probe", data=data)
