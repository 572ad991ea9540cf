"""Where threads were started (engine.threadwatch), for the fork server's refusal."""

from __future__ import annotations

import socket
import sys
import threading
import time

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


def _listener(daemon: bool) -> tuple[threading.Thread, socket.socket]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    thread = threading.Thread(target=lambda: server.accept(), daemon=daemon)
    thread.start()
    deadline = time.monotonic() + 10
    while not _in_accept(thread) and time.monotonic() < deadline:
        time.sleep(0.01)
    return thread, server


def _in_accept(thread: threading.Thread) -> bool:
    frame = sys._current_frames().get(thread.ident or -1)
    return frame is not None and frame.f_code.co_name == "accept"


def _release(thread: threading.Thread, server: socket.socket) -> None:
    socket.create_connection(server.getsockname()).close()  # accept() returns
    thread.join()
    server.close()


def test_a_daemon_waiting_in_accept_does_not_block_a_fork() -> None:
    thread, server = _listener(daemon=True)
    try:
        assert threadwatch.listening(thread)
        assert threadwatch.blocking_fork(threading.main_thread()) == []
    finally:
        _release(thread, server)


def test_other_threads_block_a_fork() -> None:
    thread, server = _listener(daemon=False)  # the interpreter would wait for it
    stop = threading.Event()
    waiter = threading.Thread(target=stop.wait, name="waiter", daemon=True)
    waiter.start()
    try:
        assert not threadwatch.listening(thread)
        assert not threadwatch.listening(waiter)
        blocking = threadwatch.blocking_fork(threading.main_thread())
        assert len(blocking) == 2 and any(b.startswith("waiter") for b in blocking)
    finally:
        stop.set()
        waiter.join()
        _release(thread, server)
