"""Record every run's executed order in pytest's cache, for ``orderdep why TEST --last``.

Registered by :mod:`orderdep.shells.plugin` unless ``orderdep_record_last = false`` (ini),
the cache provider is off, or the process is one of orderdep's own. Each pytest process
that runs tests (the main one, or each xdist worker) appends the ids it runs and those
that fail, and writes one cache entry when the session ends
(``orderdep/last/<main|gw0|...>``, see :class:`~orderdep.core.failing_order.RecordedProcess`).
Under xdist, each test case also gets an ``xdist_worker`` property (shown in the JUnit XML),
so ``orderdep why --junitxml`` can take the order of the worker that ran a test.

When a shuffled run (pytest-randomly, pytest-random-order) or a run over xdist workers
has failures, the terminal summary ends with the ``orderdep why`` command for each failing
test (the first :data:`SHOWN_FAILURES`, then how many more).
"""

from __future__ import annotations

import shlex
import time
import uuid
from pathlib import Path
from typing import Optional

import pytest

from orderdep.core.failing_order import WORKER_PROPERTY, RecordedProcess

CACHE_KEY = "orderdep/last"
# Failing tests the closing hint names, one line each.
SHOWN_FAILURES = 5
INI_RECORD = "orderdep_record_last"


def cache_key(process: str) -> str:
    return f"{CACHE_KEY}/{process}"


def why_command(test: str, rootdir: Path, cwd: Path) -> str:
    """The ``orderdep why`` command for ``test``, runnable from ``cwd``."""
    parts = ["orderdep", "why", test]
    if rootdir.resolve() != cwd.resolve():
        parts.append(str(rootdir))
    return shlex.join([*parts, "--last"])


def _shuffled(config: pytest.Config) -> bool:
    """Whether a plugin reordered this run or spread it over xdist workers."""
    if config.pluginmanager.hasplugin("randomly") and config.getoption("randomly_reorganize", True):
        return True
    if config.pluginmanager.hasplugin("random_order"):
        given = [config.getoption(n, "") for n in ("random_order_bucket", "random_order_seed")]
        if config.getoption("random_order_enabled", False) or any(
            isinstance(v, str) and not v.startswith("default:") for v in given
        ):
            return True
    return bool(config.pluginmanager.hasplugin("xdist") and config.getoption("numprocesses", None))


class LastOrder:
    """The recorder of one pytest process (thin: a list append per test)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        workerinput = getattr(config, "workerinput", None)
        self.worker: Optional[str] = workerinput["workerid"] if workerinput else None
        run = workerinput.get("testrunuid") if workerinput else None
        self.run = str(run) if run else uuid.uuid4().hex
        self.order: list[str] = []
        self.failed: list[str] = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> None:
        self.order.append(item.nodeid)
        if self.worker is not None:
            item.user_properties.append((WORKER_PROPERTY, self.worker))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and report.nodeid not in self.failed:
            self.failed.append(report.nodeid)

    def pytest_sessionfinish(self) -> None:
        cache = getattr(self.config, "cache", None)
        if not self.order or cache is None:
            return
        process = self.worker or "main"
        entry = RecordedProcess(process, self.run, time.time(), self.order, self.failed)
        cache.set(cache_key(process), entry.to_json())

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.worker is not None or not self.failed or not _shuffled(self.config):
            return
        for test in self.failed[:SHOWN_FAILURES]:
            command = why_command(test, self.config.rootpath, Path.cwd())
            terminalreporter.write_line(f"orderdep: find why it failed in this order: {command}")
        more = len(self.failed) - SHOWN_FAILURES
        if more > 0:
            terminalreporter.write_line(
                f"orderdep: and {more} more failed in this order; `orderdep why TEST --last` "
                "asks why for any of them"
            )


def register(config: pytest.Config) -> None:
    config.pluginmanager.register(LastOrder(config), "orderdep-last")
