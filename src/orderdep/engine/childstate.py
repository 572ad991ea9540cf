"""Making a forked child look like a fresh ``python -m pytest`` that has just collected.

The fork server collected the suite once; each child starts from a copy of its memory.
What a test can observe of that copy, and what is done about it here:

- *Output capture.* The server's capture files are shared with it after fork. A fresh
  process keeps one capture file per stream for the whole session, and objects made at
  import time keep references to ``sys.stdout``/``sys.stderr`` as they were during
  collection (a ``logging.StreamHandler`` from ``basicConfig()``, a console object, a
  saved ``self.stream = sys.stderr``). So the child keeps the very same stream objects
  and only points their file descriptors at private, empty files: every saved reference
  keeps working and its output is captured like any other output.
- *Signal handlers*: the server ignores SIGINT while it serves; the child gets back the
  handlers the process had after collection.
- *Exit handlers*: those inherited from collection are dropped (a fresh process would run
  them after its last test, which cannot change an outcome, and running them in every
  child could close what later children still share); those the order's tests register
  run when the child leaves, as they would at a fresh process's end.
- *Garbage collection*: objects that exist after collection are frozen in the server
  (``gc.freeze()``) while it forks; a child thaws them at once (a constant-time list
  splice, no page is touched), so ``gc.collect()`` however it was imported,
  ``gc.get_objects()`` and ``gc.get_referrers()`` see and free exactly what they would
  in a fresh process.
- *Modules*: what the server imported after collection to serve (orderdep's fork
  server, ``ctypes`` for pre-faulting, ...) is taken out of ``sys.modules``, so a test
  that checks that a module is not imported yet sees what a fresh process has.
- *Watchdogs*: a ``faulthandler.dump_traceback_later`` armed during collection is
  cancelled in the server (it would kill the server, which lives for the whole run);
  children run without it.
- *Random state*: ``random`` and numpy's global generator start from their state after
  collection when the suite seeded them then, else are reseeded from the OS
  (:mod:`orderdep.engine.seeds`).
- *``tmp_path``*: pytest's base directory is made afresh in the sandbox's TMPDIR when
  a test of the child first asks for one, as in a new process.

What remains different is listed in docs/design.md ("Fidelity").
"""

from __future__ import annotations

import atexit
import gc
import os
import signal
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from orderdep.engine import seeds

_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM")


@dataclass
class ServerState:
    """What the server process looked like right after collection, before serving."""

    handlers: dict[int, Any] = field(default_factory=dict)
    server_modules: list[str] = field(default_factory=list)
    # global generators the suite seeded while collected, and their states after it
    rng_states: dict[str, Any] = field(default_factory=dict)

    def forget_modules_since(self, collected: set[str]) -> None:
        """Remember the modules imported since collection (to hide them in children)."""
        self.server_modules = sorted(set(sys.modules) - collected)

    @classmethod
    def capture(cls) -> ServerState:
        handlers: dict[int, Any] = {}
        for name in _SIGNALS:
            signum = getattr(signal, name, None)
            if signum is None:
                continue
            handler = signal.getsignal(signum)
            if handler is not None:
                handlers[int(signum)] = handler
        return cls(handlers)

    def enter_child(self, session: pytest.Session, scratch: str) -> None:
        """Run first in a forked child (see the module docstring)."""
        for signum, handler in self.handlers.items():
            try:
                signal.signal(signum, handler)
            except (OSError, ValueError, TypeError):
                pass
        private_capture_files(session.config, Path(scratch))
        factory = getattr(session.config, "_tmp_path_factory", None)
        if factory is not None:  # made afresh when a test first asks, as in a new process
            factory._basetemp = None
        atexit._clear()
        gc.unfreeze()
        for name in self.server_modules:
            sys.modules.pop(name, None)
        seeds.enter_child(self.rng_states)


def private_capture_files(config: pytest.Config, directory: Path) -> None:
    """Point the global capture's files at private, empty files; keep every object.

    With ``--capture=fd`` (the default) ``sys.stdout``/``sys.stderr`` are text files over
    temporary files shared with the server; dup-ing a new private file onto the same
    descriptor keeps those objects (and every reference taken at import) valid. With
    ``--capture=sys`` the buffers live in memory, private after fork already.
    """
    capman = config.pluginmanager.getplugin("capturemanager")
    capturing = getattr(capman, "_global_capturing", None)
    if capturing is None:
        return
    for capture in (getattr(capturing, "out", None), getattr(capturing, "err", None)):
        tmpfile = getattr(capture, "tmpfile", None)
        if tmpfile is None or not hasattr(capture, "targetfd_save"):
            continue
        try:
            fd = tmpfile.fileno()
        except (OSError, ValueError):
            continue
        # Beside the sandbox, not in its TMPDIR (the controller may be emptying it).
        with tempfile.TemporaryFile(dir=directory, buffering=0) as fresh:
            os.dup2(fresh.fileno(), fd)
        tmpfile.seek(0)
        tmpfile.truncate()
