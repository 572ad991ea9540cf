from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from rich.console import Console

from orderdep.analysis.search import DetectProgress
from orderdep.shells import detect_display
from orderdep.shells.detect_display import DetectDisplay, about, time_left


def test_time_left_is_the_pace_so_far_times_the_orders_still_planned() -> None:
    assert time_left(done=4, planned=10, elapsed=8.0) == 12.0
    assert time_left(done=10, planned=10, elapsed=8.0) == 0.0
    # Orders a resumed run took from the store before the phase started here do not count.
    assert time_left(done=6, planned=10, elapsed=4.0, done_before=4) == 8.0


def test_no_estimate_without_a_plan_or_before_an_order_finished() -> None:
    assert time_left(done=4, planned=None, elapsed=8.0) is None
    assert time_left(done=0, planned=10, elapsed=3.0) is None
    assert time_left(done=4, planned=10, elapsed=3.0, done_before=4) is None


def test_about_rounds_up_and_switches_to_minutes_from_two_minutes() -> None:
    assert about(0) == "about 0 s left"
    assert about(11.2) == "about 12 s left"
    assert about(119.0) == "about 119 s left"
    assert about(121) == "about 3 min left"


def test_the_heartbeat_line_says_about_how_long_the_phase_has_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = SimpleNamespace(now=100.0)
    monkeypatch.setattr(detect_display, "time", SimpleNamespace(monotonic=lambda: clock.now))
    out = io.StringIO()
    with DetectDisplay(Console(file=out, force_terminal=False, width=200)) as display:
        display.update(DetectProgress("search", "tuscan", 0, 20, 0, 0))
        clock.now += detect_display.HEARTBEAT + 1  # 6 s for 5 orders, 15 to go
        display.update(DetectProgress("search", "tuscan", 5, 20, 1, 0))
        display.update(DetectProgress("search", "random", 3, None, 1, 0))
        clock.now += detect_display.HEARTBEAT + 1
        display.update(DetectProgress("search", "random", 9, None, 1, 0))
    lines = out.getvalue().splitlines()
    assert lines == [
        "orderdep: search: tuscan (20 order(s))",
        "orderdep: search: tuscan: 5/20 orders, 1 suspect(s); about 18 s left",
        "orderdep: search: random (orders until a limit stops it)",
        "orderdep: search: random: 9 orders, 1 suspect(s)",
    ]
