"""The state probe: per test, the roots it wrote and the roots it may have read.

Loaded by the engine in the child that runs an order (``ProbeSpec(MODULE, options)``;
see :mod:`orderdep.engine.probe`). Writes are the roots whose fingerprint changed between
``before_test`` and ``after_test`` (paper 001 §III-A, collection over one reference run);
reads come from :class:`~orderdep.analysis.state.reads.ReadTracer`. ``result()`` is::

    {"tests": [{"index": 0, "test": "t.py::a", "writes": [...], "reads": [...]}, ...],
     "roots": {root: "what it holds at the end", ...},   # for every written root
     "stats": {"roots": n, "snapshot_seconds": s, "truncated": [...], ...}}

Options: ``files`` (watch files, default true), ``temp``/``home`` (also the temp dir and
HOME, default true), ``broad_reads`` (every test reads logging, random, cwd, imports),
``max_nodes``/``max_depth`` (fingerprint budget per root), ``max_files``, ``describe``,
``narrow`` (default true: trace calls only inside fixture functions, the call phase and
teardown, through a pytest plugin registered with the session found on the stack; the whole
window between ``before_test`` and ``after_test`` when no session is found), ``lazy``
(default true: after a test, re-walk only the mutable values of roots it may have read and
of roots sharing objects with those, and list only directories whose mtime changed and files
written in this process, unless the test started a subprocess; false fingerprints every root
after every test), ``hook`` (how calls are seen: ``trace``, ``profile``, ``lsprof`` or
``auto``, the default: cProfile's C profiler when narrowed, else a trace function),
``fixtures`` (default true: cached values of the project's session-, package-, module- and
class-scoped fixtures are ``fixture:`` roots, :mod:`.fixtures`, when a session is found).

The snapshot after one test is the one before the next: one snapshot per test.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from typing import Any, Optional

from orderdep.analysis.state import fixtures
from orderdep.analysis.state.fixtures import FixtureRoots
from orderdep.analysis.state.fixtures import register as register_fixtures
from orderdep.analysis.state.reads import ReadTracer
from orderdep.analysis.state.roots import RootsConfig, StateTracker, diff
from orderdep.analysis.state.values import describe
from orderdep.analysis.state.windows import find_session, narrow_to_pytest

MODULE = "orderdep.analysis.state.probe"
MAX_ERRORS = 20  # parts of snapshots that failed, reported in the stats


def config_from_options(options: dict[str, Any], rootdir: str) -> RootsConfig:
    """The :class:`RootsConfig` the probe options ask for."""
    temp = [tempfile.gettempdir()] if options.get("temp", True) else []
    home = os.environ.get("HOME") if options.get("home", True) else None
    return RootsConfig(
        rootdir=rootdir,
        temp_dirs=temp,
        home=home,
        files=bool(options.get("files", True)),
        max_nodes=int(options.get("max_nodes", 2000)),
        max_depth=int(options.get("max_depth", 8)),
        max_files=int(options.get("max_files", 5000)),
    )


class StateProbe:
    """Implements :class:`orderdep.engine.probe.Probe`."""

    def __init__(
        self,
        config: RootsConfig,
        *,
        broad_reads: bool = False,
        describe: bool = True,
        narrow: bool = True,
        lazy: bool = True,
        hook: str = "auto",
        fixtures: bool = True,
    ) -> None:
        self.config = config
        self.fixtures = fixtures
        self.narrow = narrow
        self.lazy = lazy
        self.tracker = StateTracker(config)
        self.hook = hook
        self.reads = ReadTracer(
            self.tracker, broad=broad_reads, hook="trace" if hook == "auto" else hook
        )
        self.describe = describe
        self.records: list[dict[str, Any]] = []
        self._last: Optional[dict[str, int]] = None
        self._written: set[str] = set()
        self._snapshot_seconds = 0.0
        self._read_seconds = 0.0
        self._modules_at_start: frozenset[str] = frozenset()
        self._snapshots = 0
        self._truncated: set[str] = set()
        self._errors: list[str] = []

    def _snapshot(self, touched: Optional[set[str]] = None) -> dict[str, int]:
        start = time.perf_counter()
        if self.lazy and touched is not None:
            # a subprocess may have changed any file in place: list everything then
            full_files = "subprocess" in self.reads.flags
            snap = self.tracker.snapshot(touched, full_files=full_files)
        else:
            snap = self.tracker.snapshot()
        self._snapshot_seconds += time.perf_counter() - start
        self._snapshots += 1
        self._truncated |= self.tracker.truncated
        return snap

    def before_test(self, index: int, test_id: str) -> None:
        if self._last is None:
            try:
                self._attach(find_session())
            except Exception as exc:  # no fixture roots or narrowing, but a run
                self._errors.append(f"pytest session: {type(exc).__name__}: {exc}"[:300])
            self._last = self._snapshot()
            self._modules_at_start = frozenset(sys.modules)
        self.reads.start()

    def _attach(self, session: Any) -> None:
        """Hook into the pytest session running the order (when one is found): fixture
        roots, and the narrow call windows."""
        if session is None:
            return
        manager = session.config.pluginmanager
        if self.fixtures:
            roots = FixtureRoots.of_session(session, self.tracker.project.is_project_path)
            if roots is not None and register_fixtures(roots, manager, self.reads.note_reads):
                self.tracker.fixtures = roots
                fixtures.CURRENT[0] = roots
        if self.narrow:
            narrowed = narrow_to_pytest(self.reads, manager)
            if narrowed and self.hook == "auto":  # fixture values come from the hooks now
                self.reads.use_hook("lsprof")

    def after_test(self, index: int, test_id: str) -> None:
        try:
            self._after_test(index, test_id)
        except Exception as exc:  # one test's accesses lost, not the whole run's
            self._errors.append(f"{test_id}: {type(exc).__name__}: {exc}"[:300])
            self.records.append({"index": index, "test": test_id, "writes": [], "reads": []})

    def _after_test(self, index: int, test_id: str) -> None:
        start = time.perf_counter()
        reads = self.reads.stop()
        self._read_seconds += time.perf_counter() - start
        before = self._last or {}
        if self.tracker.files is not None:
            pre = self.tracker.files.take_pre_images()
            missing = {n: fp for n, fp in pre.items() if n not in before and fp is not None}
            if missing:  # files outside the scan, seen just before their write
                before = {**before, **missing}
        now = self._snapshot(reads)
        writes = diff(before, now)
        self._last = now
        self._written.update(writes)
        self.records.append(
            {"index": index, "test": test_id, "writes": writes, "reads": sorted(reads)}
        )

    def result(self) -> dict[str, Any]:
        if self.reads.active:  # the last test never finished
            self.reads.stop()
        roots: dict[str, str] = {}
        if self.describe:
            for name in sorted(self._written):
                roots[name] = describe(name, self.config)
            if "sys.modules" in roots:
                added = sorted(set(sys.modules) - self._modules_at_start)
                more = f" (+{len(added) - 20} more)" if len(added) > 20 else ""
                roots["sys.modules"] += f"; imported by the order: {', '.join(added[:20])}{more}"
        truncated = sorted(self._truncated)
        if self.tracker.files is not None:
            truncated += [f"dir:{p}" for p in self.tracker.files.truncated]
        return {
            "tests": self.records,
            "roots": roots,
            "stats": {
                "roots": len(self._last or {}),
                "snapshots": self._snapshots,
                "snapshot_seconds": round(self._snapshot_seconds, 6),
                "snapshot_parts": {k: round(v, 6) for k, v in self.tracker.timings.items()},
                "read_seconds": round(self._read_seconds, 6),
                "truncated": truncated,
                "narrow": self.reads.narrow,
                "hook": self.reads.hook,
                "fixture_roots": len(self.tracker.fixtures.defs) if self.tracker.fixtures else 0,
                "errors": (self._errors + self.tracker.errors)[:MAX_ERRORS],
            },
        }


def make_probe(options: dict[str, Any], rootdir: str) -> StateProbe:
    """Entry point the engine calls in the child process."""
    return StateProbe(
        config_from_options(options, rootdir),
        broad_reads=bool(options.get("broad_reads", False)),
        describe=bool(options.get("describe", True)),
        narrow=bool(options.get("narrow", True)),
        lazy=bool(options.get("lazy", True)),
        hook=str(options.get("hook", "auto")),
        fixtures=bool(options.get("fixtures", True)),
    )
