"""Where threads were started (engine.threadwatch), for the fork server's refusal."""

from __future__ import annotations

import sys
import threading

from orderdep.engine import threadwatch


def test_a_thread_is_named_with_the_line_that_started_it() -> None:
    threadwatch.install()
    threadwatch.install()  # once per process, however often asked
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="poller")
    origin = sys._getframe().f_lineno + 1
    thread.start()  # the origin
    try:
        said = threadwatch.describe(thread)
        assert said.startswith("poller (started at ")
        assert said.endswith(f"test_threadwatch.py:{origin})")
    finally:
        stop.set()
        thread.join()


def test_a_thread_started_before_the_watch_is_named_alone() -> None:
    assert threadwatch.describe(threading.main_thread()) == "MainThread"
