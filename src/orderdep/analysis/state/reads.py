"""Which roots a test may have read, recorded while it runs (setup, call and teardown).

PRADET (paper 001 §III-A) detects reads of shared state with per-object taint marks; in
Python we over-approximate instead (a missed read loses a dependency, an extra one only
costs a refinement run):

* **Code names.** A call hook, on only inside the test window (or the narrower pytest
  windows of :mod:`.windows`), records every code object that starts running: a trace
  function, a profile function or cProfile's C profiler (:data:`HOOKS`). Afterwards, for
  code from project files, each name it uses (``co_names``, plus dotted parts of identifier-like string constants,
  which covers ``getattr(mod, "X")`` and ``mock.patch("pkg.mod.X")``) is matched against the
  last component of every python root: ``ENTRIES`` matches ``pkg.mod.ENTRIES`` and
  ``pkg.mod.Meter.ENTRIES``.
* **Aliases.** Argument values of project code (first call in the window, with the
  Python hooks) and the test's fixture values (from the pytest windows) are kept; any
  that is (part of) a root's value reads that root (a session fixture returning
  ``pkg.mod.REGISTRY`` makes every test using it read it).
* **Fixtures.** The ``fixture:`` roots of the fixtures a test uses
  (:mod:`.fixtures`, noted by its pytest plugin at setup).
* **Environment.** ``os._Environ.__getitem__`` (which ``get``, ``in`` and ``os.getenv`` go
  through) is wrapped in the window; iterating, copying or printing the environment reads
  ``env:*`` (every variable).
* **Files.** An audit hook (:mod:`.audit`) sees ``open``, ``os.listdir``/``scandir``,
  ``glob``, removals, renames...;
  ``os.stat``/``lstat``/``access`` are wrapped in the window. Reads name ``file:`` roots
  (``file:dir/*`` for a listing, ``file:path*`` for a stat); writes tell the
  :class:`~orderdep.analysis.state.files.FileWatcher` to keep the file's pre-image.
* **Process.** Relative paths, ``os.getcwd`` and imports read ``cwd``; imports, and
  code naming the import machinery (``import_module``, ``find_spec``...) even when
  nothing new is imported, read ``sys.path`` and ``sys.modules``; running a subprocess reads ``env:*``, ``cwd`` and
  ``file:*``. Every test reads ``warnings`` (any warning consults the filters); names of
  the ``logging``/``random`` APIs read ``logging:*``/``random``.

A root name ending in ``*`` is a wildcard: it reads every root with that prefix.
"""

from __future__ import annotations

import os
import random
import sys
import threading
from collections.abc import Iterable
from types import CodeType, FrameType
from typing import Any, Callable, Optional

from orderdep.analysis.state import audit
from orderdep.analysis.state.fingerprint import ATOM_TYPES, identity
from orderdep.analysis.state.os_wrappers import OsWrappers, real_getcwd
from orderdep.analysis.state.roots import StateTracker
from orderdep.errors import UsageError

TraceFn = Callable[[FrameType, str, Any], Any]


LOGGING_NAMES = frozenset(
    {
        "logging",
        "getLogger",
        "basicConfig",
        "setLevel",
        "addHandler",
        "removeHandler",
        "disable",
        "isEnabledFor",
        "getEffectiveLevel",
        "handlers",
        "caplog",
        "capsys",
        "capfd",
        "log",
        "debug",
        "info",
        "warning",
        "exception",
        "critical",
        "logger",
        "LOGGER",
    }
)
RANDOM_NAMES = frozenset(n for n in dir(random) if not n.startswith("_"))
# How calls are seen: a trace function (every 3.11 frame then runs the per-line machinery), a
# profile function (also called for C calls), or cProfile's C profiler (no Python call per
# event; arguments of test and fixture functions then come from the pytest hooks only).
HOOKS = ("trace", "profile", "lsprof")
MODULES_NAMES = frozenset({"modules", "import_module", "__import__", "reload", "find_spec"})
# Names through which code uses the decimal context.
DECIMAL_NAMES = frozenset({"decimal", "Decimal", "getcontext", "localcontext", "setcontext"})
# Names of the import machinery: they search sys.path (and its importer caches) too.
IMPORT_NAMES = MODULES_NAMES - {"modules"}


class ReadTracer:
    """Records reads in a window opened by :meth:`start` and closed by :meth:`stop`."""

    def __init__(self, tracker: StateTracker, *, broad: bool = False, hook: str = "trace") -> None:
        self.tracker = tracker
        self.broad = broad
        self.hook = "trace"
        self._lsprof: Any = None
        self.use_hook(hook)
        self._seen: dict[int, CodeType] = {}
        self._args: list[Any] = []
        self._project_code: dict[str, bool] = {}
        self._names_cache: dict[int, tuple[CodeType, frozenset[str]]] = {}
        self.env: set[str] = set()
        self.files: set[str] = set()
        self.flags: set[str] = set()
        self.noted: set[str] = set()  # roots read by declaration (fixtures a test uses)
        self.busy = False
        self._wrappers = OsWrappers(self)
        self._prev_trace: Any = None
        self._prev_thread_trace: Any = None
        self._tracer: Any = None
        self._depth = 0
        self._using = self.hook
        self._modules_at_start = 0
        self.active = False
        self.narrow = False

    # -- the window ------------------------------------------------------------------------
    def start(self) -> None:
        """Open the test window: patches and audit on; the call tracer too unless narrowed.

        With :attr:`narrow` set (a pytest plugin from :func:`narrow_to_pytest` is
        registered), the tracer runs only inside fixture functions, the call phase and
        teardown: pytest's own reporting between them is half of all calls of a test.
        """
        self._seen.clear()
        self._args = []
        self.env, self.files, self.flags = set(), set(), set()
        self.noted = set()
        audit.install()
        self._wrappers.on()
        self._modules_at_start = len(sys.modules)
        self._depth = 0
        audit.ACTIVE[0] = self
        self.active = True
        if not self.narrow:
            self.trace_on()

    def stop(self) -> set[str]:
        """Close the window and return the root names read in it."""
        if not self.active:
            return set()
        if self._depth:
            self._depth = 1
            self.trace_off()
        audit.ACTIVE[0] = None
        self.active = False
        self._wrappers.off()
        if self._lsprof is not None:
            for entry in self._lsprof.getstats():
                code = entry.code
                if isinstance(code, CodeType):
                    self._seen[identity(code)] = code
            self._lsprof.clear()
        if len(sys.modules) != self._modules_at_start:  # importlib does not audit "import"
            self.flags.add("import")
        roots = self.resolve()
        self._seen.clear()
        self._args = []
        return roots

    def trace_on(self) -> None:
        self._depth += 1
        if self._depth > 1:
            return
        self._using = self.hook
        if self._using == "lsprof" and sys.getprofile() is not None:
            self._using = "trace"  # someone is profiling: do not take their hook away
        if self._using == "lsprof":
            self._lsprof.enable(subcalls=False, builtins=False)
        elif self._using == "profile":
            self._prev_trace = sys.getprofile()
            self._prev_thread_trace = _thread_hook("profile")
            self._tracer = self._make_profiler(self._prev_trace)
            threading.setprofile(self._tracer)
            sys.setprofile(self._tracer)
        else:
            self._prev_trace = sys.gettrace()
            self._prev_thread_trace = _thread_hook("trace")
            self._tracer = self._make_tracer(self._prev_trace)
            threading.settrace(self._tracer)
            sys.settrace(self._tracer)

    def trace_off(self) -> None:
        self._depth -= 1
        if self._depth > 0:
            return
        self._depth = 0
        if self._using == "lsprof":
            self._lsprof.disable()
        elif self._using == "profile":
            if sys.getprofile() is self._tracer:  # a test that set its own keeps it
                sys.setprofile(self._prev_trace)
            threading.setprofile(self._prev_thread_trace)
        else:
            if sys.gettrace() is self._tracer:
                sys.settrace(self._prev_trace)
            threading.settrace(self._prev_thread_trace)

    def _make_profiler(self, prev: Optional[TraceFn]) -> TraceFn:
        """A profile function: called on calls and returns of Python and C functions alike,
        but it leaves the interpreter's per-line machinery off, which a trace function
        turns on for every instruction of every frame (3.11)."""
        seen = self._seen
        first = self._first_call

        def profiler(frame: FrameType, event: str, arg: Any, _id: Any = identity) -> Any:
            if event == "call":
                code = frame.f_code
                if _id(code) not in seen:
                    seen[_id(code)] = code
                    first(frame, code)
            if prev is not None:
                prev(frame, event, arg)

        return profiler

    def _make_tracer(self, prev: Optional[TraceFn]) -> TraceFn:
        seen = self._seen
        first = self._first_call
        if prev is None:

            def tracer(frame: FrameType, event: str, arg: Any, _id: Any = identity) -> Any:
                code = frame.f_code
                if _id(code) not in seen:
                    seen[_id(code)] = code
                    first(frame, code)

            return tracer

        def chained(frame: FrameType, event: str, arg: Any) -> Any:
            code = frame.f_code
            if identity(code) not in seen:
                seen[identity(code)] = code
                first(frame, code)
            return prev(frame, event, arg)  # e.g. coverage measuring the same run

        return chained

    def _first_call(self, frame: FrameType, code: CodeType) -> None:
        if not self.is_project_code(code.co_filename):
            return
        n = code.co_argcount + code.co_kwonlyargcount
        if not n:
            return
        try:
            local = frame.f_locals
        except Exception:
            return
        for name in code.co_varnames[:n]:
            value = local.get(name)
            if value is not None and type(value) not in ATOM_TYPES:
                self._args.append(value)

    def use_hook(self, hook: str) -> None:
        """Switch how calls are seen (one of :data:`HOOKS`); between windows only."""
        if hook not in HOOKS:
            raise UsageError(f"unknown call hook {hook!r}; use one of {', '.join(HOOKS)}")
        self.hook = hook
        if hook == "lsprof" and self._lsprof is None:
            import _lsprof  # cProfile's C core

            self._lsprof = _lsprof.Profiler()

    def note_values(self, values: Iterable[Any]) -> None:
        """Values a test or fixture received or produced (fixture values): aliases of roots
        among them are reads (see :meth:`resolve`)."""
        self._args.extend(v for v in values if v is not None and type(v) not in ATOM_TYPES)

    def note_reads(self, roots: Iterable[str]) -> None:
        """Roots the test reads by declaration (the ``fixture:`` roots of the fixtures it
        uses, from :mod:`.fixtures`)."""
        self.noted.update(roots)

    def is_project_code(self, filename: str) -> bool:
        hit = self._project_code.get(filename)
        if hit is None:
            hit = self._project_code[filename] = self.tracker.project.is_project_path(filename)
        return hit

    # -- file reads and writes (audit events and wrappers) ------------------------------------
    def _abspath(self, path: Any) -> Optional[str]:
        if path is None:
            path = "."
        if isinstance(path, int):
            return None
        try:
            text = os.fsdecode(os.fspath(path))
        except TypeError:
            return None
        if not os.path.isabs(text):
            self.flags.add("cwd")
            text = os.path.join(real_getcwd(), text)
        return os.path.normpath(text)

    def path_read(self, path: Any, *, wildcard: bool = False, listing: bool = False) -> None:
        watcher = self.tracker.files
        if watcher is None:
            return
        full = self._abspath(path)
        if full is None:
            return
        name = watcher.name_of(full)
        if name is None:
            return
        if listing:
            self.files.add(name + "*" if name.endswith(("/", ":")) else name + "/*")
        else:
            self.files.add(name + "*" if wildcard else name)

    def path_write(self, path: Any, *, tree: bool = False) -> None:
        watcher = self.tracker.files
        if watcher is None:
            return
        full = self._abspath(path)
        if full is not None:
            watcher.will_write(full, tree=tree)

    # -- resolution -----------------------------------------------------------------------------
    def code_names(self, code: CodeType) -> frozenset[str]:
        cached = self._names_cache.get(identity(code))
        if cached is not None and cached[0] is code:
            return cached[1]
        names = set(code.co_names)
        for const in code.co_consts:
            if isinstance(const, str) and 0 < len(const) <= 200:
                names.update(p for p in const.split(".") if p.isidentifier())
        out = frozenset(names)
        self._names_cache[identity(code)] = (code, out)
        return out

    def resolve(self) -> set[str]:
        """Root names read in the window just closed."""
        roots: set[str] = {"warnings"}
        names: set[str] = set()
        random_file = getattr(random, "__file__", None)
        for code in list(self._seen.values()):
            filename = code.co_filename
            if self.is_project_code(filename):
                names |= self.code_names(code)
            elif filename == random_file:
                roots.add("random")
        by_attr = self.tracker.by_attr
        for name in names:
            hit = by_attr.get(name)
            if hit:
                roots |= hit
        owners = self.tracker.owners
        for value in self._args:
            hit_owners = owners.get(identity(value))
            if hit_owners:
                roots.update(hit_owners)
        if names & LOGGING_NAMES:
            roots.add("logging:*")
        if names & RANDOM_NAMES:
            roots.add("random")
        flags = self.flags
        if "import" in flags or names & MODULES_NAMES:
            roots.add("sys.modules")
        if "import" in flags or {"sys", "path"} <= names or names & IMPORT_NAMES:
            roots.add("sys.path")
        if {"sys", "argv"} <= names or "argparse" in names or "parse_args" in names:
            roots.add("sys.argv")
        if names & DECIMAL_NAMES:  # every Decimal operation reads the thread's context
            roots.add("decimal")
        if "import" in flags or "cwd" in flags or "chdir" in names:
            roots.add("cwd")
        if "subprocess" in flags:
            roots.update(("env:*", "cwd", "file:*"))
        exclude = self.tracker.config.env_exclude
        roots.update("env:" + n for n in self.env if n not in exclude)
        roots.update(self.files)
        roots.update(self.noted)
        if self.broad:
            roots.update(("logging:*", "random", "sys.modules", "sys.path", "sys.argv", "cwd"))
        return roots


def _thread_hook(kind: str) -> Any:
    get = getattr(threading, "get" + kind, None)  # 3.10+
    return get() if get is not None else getattr(threading, f"_{kind}_hook", None)


def expand(reads: Iterable[str], known: Iterable[str]) -> set[str]:
    """Concrete root names matched by ``reads`` (wildcards expanded over ``known``)."""
    exact = {r for r in reads if not r.endswith("*")}
    prefixes = tuple(r[:-1] for r in reads if r.endswith("*"))
    if prefixes:
        exact.update(k for k in known if k.startswith(prefixes))
    return exact
