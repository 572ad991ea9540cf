"""The fork server: a pytest process that collected the suite once and forks a child per order.

The server never runs a test. For each request it forks; the child starts from the
collected-but-not-run state (every test module imported, no fixture set up), restarts
output capture, gets a private ``tmp_path`` base and fresh random seeds, runs the order
with :func:`orderdep.engine.childrun.run_order` and leaves with ``os._exit``. Nothing a
child does reaches the server or the next child: each has its own copy of the
interpreter (files on disk are restored by the controller, see :mod:`~orderdep.engine.sandbox`).

Protocol on two inherited pipes (JSON lines): the server first sends ``{"ready": true}``
(or ``{"fork": false, "reason": ...}`` when forking is unsafe); then for each request
``{"order", "events", "probe"}`` it answers ``{"pid": N}`` at once and
``{"status": S}`` when the child has ended (``S`` is the raw wait status).
"""

from __future__ import annotations

import gc
import json
import os
import random
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

import pytest

from orderdep.engine.childrun import Recorder, load_probe, run_order
from orderdep.engine.protocol import EventWriter


def _send(out: IO[str], message: dict[str, Any]) -> None:
    out.write(json.dumps(message) + "\n")
    out.flush()


def _prepare_child(session: pytest.Session, basetemp: str) -> None:
    """Make the forked child look like a fresh process that has just collected."""
    config = session.config
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    capman = config.pluginmanager.getplugin("capturemanager")
    if capman is not None and getattr(capman, "_global_capturing", None) is not None:
        # The server's capture files are shared with it after fork; start our own. Their
        # temporary files go beside the sandbox, not into its TMPDIR, which the
        # controller may still be emptying after the previous order.
        saved, tempfile.tempdir = tempfile.tempdir, str(Path(basetemp).parent)
        try:
            capman.stop_global_capturing()
            capman.start_global_capturing()
            capman.suspend_global_capture()
        finally:
            tempfile.tempdir = saved
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is not None:
        factory._given_basetemp = Path(basetemp)
        factory._basetemp = None
    random.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        try:
            numpy.random.seed()
        except Exception:
            pass


def _child(session: pytest.Session, basetemp: str, recorder: Recorder, rfd: int) -> None:
    """A pre-forked child: get ready, wait for an order on ``rfd``, run it, leave."""
    code = 0
    try:
        _prepare_child(session, basetemp)
        with os.fdopen(rfd, "r", encoding="utf-8") as requests:
            line = requests.readline()
        if line.strip():  # EOF: the server is shutting down and this child is not needed
            request = json.loads(line)
            recorder.writer = EventWriter(Path(request["events"]))
            probe = load_probe(request.get("probe"), str(session.config.rootpath))
            run_order(session, request["order"], recorder, probe)
            recorder.writer.close()
    except BaseException:  # the child must never return into the server's loop
        code = 3
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _spawn(
    session: pytest.Session, basetemp: str, recorder: Recorder, closing: list[Any]
) -> tuple[int, int]:
    """Fork the next child ahead of its request (returns its pid and request pipe).

    Forking and preparing the child overlaps with the controller's work on the
    previous order (reading results, restoring the sandbox).
    """
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(wfd)
        for fh in closing:
            fh.close()
        _child(session, basetemp, recorder, rfd)
    os.close(rfd)
    return pid, wfd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def serve(session: pytest.Session, control: dict[str, Any], recorder: Recorder) -> None:
    """Answer order requests until the request pipe closes."""
    rfd, wfd = control["fds"]
    basetemp = str(control["basetemp"])
    inbox = os.fdopen(rfd, "r", encoding="utf-8")
    outbox = os.fdopen(wfd, "w", encoding="utf-8")
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    extra_threads = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
    if not hasattr(os, "fork") or extra_threads:
        reason = (
            "os.fork is not available"
            if not hasattr(os, "fork")
            else ("threads are alive after collection: " + ", ".join(extra_threads))
        )
        _send(outbox, {"fork": False, "reason": reason})
        return
    gc.collect()
    gc.freeze()  # keep collected objects out of the children's collections (copy-on-write)
    _send(outbox, {"ready": True})
    pid, child_in = _spawn(session, basetemp, recorder, [inbox, outbox])
    for line in inbox:
        if not line.strip():
            continue
        _write_all(child_in, line.rstrip("\n").encode("utf-8") + b"\n")
        os.close(child_in)
        _send(outbox, {"pid": pid})
        _, status = os.waitpid(pid, 0)
        _send(outbox, {"status": status})
        pid, child_in = _spawn(session, basetemp, recorder, [inbox, outbox])
    os.close(child_in)  # the waiting child reads EOF and leaves
    os.waitpid(pid, 0)
    # The server never ran a test, so there is nothing to tear down or report: skip
    # pytest's session finish (plugins' shutdown can cost a second per server).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
