"""``orderdep detect``'s progress on stderr: a rich bar on a terminal, a line per phase
(and a heartbeat) otherwise."""

from __future__ import annotations

import math
import time
from typing import Optional

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from orderdep.analysis.budget import Budget
from orderdep.analysis.classify import ClassifyProgress
from orderdep.analysis.search import DetectProgress
from orderdep.shells.summary import Printer

# Without a live display, a line at least this often (seconds) while a phase runs.
HEARTBEAT = 5.0


def time_left(
    done: int, planned: Optional[int], elapsed: float, done_before: int = 0
) -> Optional[float]:
    """Seconds the phase still needs at the pace of the orders run so far: ``elapsed``
    seconds for the ``done - done_before`` orders run since the phase started here
    (orders a resumed run took from the store cost nothing and do not count). None
    without a plan or before an order finished."""
    ran = done - done_before
    if planned is None or ran <= 0 or elapsed < 0:
        return None
    return max(0, planned - done) * elapsed / ran


def about(seconds: float) -> str:
    """``about 40 s left`` (whole seconds, rounded up), ``about 7 min left`` from two minutes."""
    whole = math.ceil(seconds)
    return f"about {whole} s left" if whole < 120 else f"about {math.ceil(whole / 60)} min left"


class DetectDisplay:
    """Progress on stderr: a rich bar on a terminal, a line per phase otherwise."""

    def __init__(self, console: Console, budget: Optional[Budget] = None) -> None:
        self.console = console
        self.budget = budget
        self.live = console.is_terminal
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[count]}"),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=not self.live,
        )
        self._task: Optional[TaskID] = None
        self._label = ""
        self._step: tuple[int, str] = (0, "")
        self._said = 0.0
        self._phase: tuple[float, int] = (0.0, 0)  # when the phase started, orders done then

    def __enter__(self) -> DetectDisplay:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def notice(self, message: str) -> None:
        Printer(self.console).line(message)

    def left(self) -> str:
        """``; N s of the budget left`` (nothing without a budget)."""
        if self.budget is None or self.budget.seconds is None:
            return ""
        return f"; {self.budget.left():.0f} s of the budget left"

    def classify_update(self, p: ClassifyProgress) -> None:
        """Classification: the test, its step, orders run and (estimated) left."""
        label = f"classify [{p.index}/{p.total}] {p.step}"
        left = f", ~{p.orders_left} left" if p.orders_left is not None else ""
        count = f"{p.orders_run} orders{left}"
        now = time.monotonic()
        if p.step in ("done", "stopped"):
            self.notice(f"orderdep: classify [{p.index}/{p.total}] {p.message}")
            return
        changed = (p.index, p.step) != self._step
        if not self.live and (changed or now - self._said >= HEARTBEAT):
            self._step, self._said = (p.index, p.step), now
            self.notice(f"orderdep: {label}: {p.message} ({count}{self.left()})")
        if label != self._label:
            self._label = label
            if self._task is not None:
                self.progress.remove_task(self._task)
            self._task = self.progress.add_task(label, total=None, count=count, status=p.message)
        assert self._task is not None
        self.progress.update(self._task, count=count, status=p.message)

    def update(self, p: DetectProgress) -> None:
        label = f"search: {p.strategy}" if p.phase == "search" else "confirming"
        if p.phase == "done":
            return
        count = f"{p.done}/{p.planned} orders" if p.planned is not None else f"{p.done} orders"
        status = f"{p.suspects} suspect(s)"
        now = time.monotonic()
        if label != self._label:
            self._label, self._said, self._phase = label, now, (now, p.done)
            if self._task is not None:
                self.progress.remove_task(self._task)
            self._task = self.progress.add_task(label, total=p.planned, count=count, status=status)
            if not self.live:
                what = (
                    f"{p.planned} order(s)"
                    if p.planned is not None
                    else "orders until a limit stops it"
                )
                self.notice(
                    f"orderdep: {label} ({what})"
                    if p.phase == "search"
                    else f"orderdep: confirming {p.suspects} suspect(s)"
                )
        elif not self.live and now - self._said >= HEARTBEAT:
            self._said = now
            started, done_before = self._phase
            left = time_left(p.done, p.planned, now - started, done_before)
            estimate = f"; {about(left)}" if left is not None else ""
            self.notice(f"orderdep: {label}: {count}, {status}{estimate}{self.left()}")
        assert self._task is not None
        self.progress.update(
            self._task, completed=p.done, total=p.planned, count=count, status=status
        )
