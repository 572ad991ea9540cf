"""The plain reference: one fresh ``python -m pytest <the user's arguments>`` per order.

The subprocess runner starts a fresh interpreter but still drives the tests with
orderdep's run loop. The plain runner changes nothing a test can see: the command line
is the user's, pytest's own run loop runs the tests, and the order is imposed by a tiny
plugin (:mod:`~orderdep.engine.plainplugin`) given through ``PYTEST_ADDOPTS``. It cannot
run a test twice in one order nor load a probe; it is what fidelity checks compare the
fork and subprocess runners with.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from orderdep.core.outcomes import OrderResult
from orderdep.engine.config import EngineConfig
from orderdep.engine.interrupts import Interruptible, run_in_group
from orderdep.engine.plainplugin import PLAIN_ENV
from orderdep.engine.protocol import IdChanges, assemble_results, read_events, write_json
from orderdep.engine.sandbox import Sandbox, empty_dir
from orderdep.engine.testclock import TestClock
from orderdep.engine.timeouts import TimeoutPolicy


class PlainRunner(Interruptible):
    """Runs orders as plain pytest processes in a private sandbox of the project."""

    runner = "plain"

    def __init__(self, config: EngineConfig, workdir: Path) -> None:
        super().__init__()
        self.config = config
        self.sandbox = Sandbox(config.project, workdir, copy=config.copy, home=config.home)
        self.sandbox.create()
        self.policy = TimeoutPolicy(config.timeout)
        self._n = 0
        self.reference: Optional[Path] = None
        # Tests its processes collected under other ids, or not at all (see set_reference).
        self.ids = IdChanges()
        # What run_collecting collects while it runs (None: the user's arguments).
        self._collect: Optional[list[str]] = None

    def set_reference(self, ids: Sequence[str]) -> None:
        """Orders name tests by ``ids`` (the fork runner's collection, say): a test whose
        id changes between processes (volatile parametrize ids) is found by alignment
        (:func:`orderdep.core.volatile.translate`) and reported under its id there."""
        self.reference = self.sandbox.workdir / "reference-ids.json"
        write_json(self.reference, list(ids))

    def _addopts(self, cache_dir: Path) -> str:
        ours = ["-p", "orderdep.engine.plainplugin", "-o", f"cache_dir={cache_dir}"]
        ours += [*self.config.run_args(), "--maxfail=0"]
        if self.config.rootdir:
            ours += ["--rootdir", self.config.rootdir]
        if self.config.pythonpath:
            ours += ["-o", "pythonpath=" + " ".join(self.config.pythonpath)]
        user = os.environ.get("PYTEST_ADDOPTS", "")
        return (user + " " + shlex.join(ours)).strip()

    def command(self) -> list[str]:
        """What a user types: ``python -m pytest`` and their own arguments (for
        :meth:`run_collecting`, the options among them and the paths or ids it names)."""
        args = list(self.config.pytest_args)
        if self._collect is not None:
            args = [a for a in args if not self._names_path(a)] + self._collect
        return [self.config.python, "-m", "pytest", *args]

    def _names_path(self, arg: str) -> bool:
        return not arg.startswith("-") and (self.sandbox.tree / arg.split("::")[0]).exists()

    def run_in_own_file(self, test: str) -> OrderResult:
        """``test`` alone as ``pytest ID`` runs it: only its own file collected, so no other
        test module's import-time code has run (orders collect the whole suite, as shuffled
        runs and xdist workers do)."""
        return self.run_collecting([test], [test])

    def run_collecting(self, order: Sequence[str], paths: Sequence[str]) -> OrderResult:
        """``order`` in a pytest that collects only ``paths`` (files or test ids, in that
        order), as ``pytest PATH ...`` does: no other test module's import-time code runs.
        A test whose file failed to collect has the outcome ``error``; another file's
        collection error does not stop the run (``--continue-on-collection-errors``)."""
        self._collect = ["--continue-on-collection-errors", *paths]
        try:
            return self.run(order)
        finally:
            self._collect = None

    def run(self, order: Sequence[str]) -> OrderResult:
        self._n += 1
        work = self.sandbox.workdir
        control = work / f"plain-{self._n}.json"
        events = work / f"plain-{self._n}.jsonl"
        cache_dir = work / "plain-cache"
        write_json(
            control,
            {
                "order": list(order),
                "events": str(events),
                "addopts": os.environ.get("PYTEST_ADDOPTS"),
                "reference": str(self.reference) if self.reference is not None else None,
            },
        )
        env = self.config.child_env(
            {
                **self.sandbox.env(),
                PLAIN_ENV: str(control),
                "PYTEST_ADDOPTS": self._addopts(cache_dir),
            }
        )
        started = time.perf_counter()
        self._begin()
        try:
            with open(work / "plain.log", "w") as log:
                died = run_in_group(
                    self.command(),
                    cwd=self.sandbox.tree,
                    env=env,
                    log=log,
                    clock=TestClock(events, self.policy),
                    on_start=self._started,
                )
        finally:
            self._ended()
        seen = list(read_events(events))
        self.ids.add(seen)
        results, _ = assemble_results(order, seen, died=died)
        self.policy.learn(results)
        for path in (control, events):
            path.unlink(missing_ok=True)
        self.sandbox.restore()
        empty_dir(cache_dir)
        result = OrderResult(
            list(order), results, runner=self.runner, wall_seconds=time.perf_counter() - started
        )
        result.interrupted = self._take_interrupted()
        return result

    def close(self) -> None:
        self.sandbox.destroy()
