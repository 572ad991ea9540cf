"""Shared-state roots: everything one test can leave behind for another, by name.

PRADET (paper 001 §III-A) finds data dependencies through the state reachable from static
fields. The Python equivalent of a static field is a *root*:

============================  ======================================================
``pkg.mod.NAME``              a global of a project or test module
``pkg.mod.Cls.attr``          a class attribute of a class defined in such a module
``cache:pkg.mod.func``        a ``functools.lru_cache``/``cache`` of a project function
``env:NAME``                  one environment variable
``cwd``, ``sys.path``         the working directory, the import path
``sys.argv``                  the command line (argparse reads it)
``sys.modules``               the set of imported module names
``logging:<logger>``          level, handlers, filters of a logger (``logging:root``)
``warnings``, ``random``      the warning filters, the ``random`` module's state
``decimal``                   the thread's decimal context (precision, rounding, ...)
``file:<relpath>``            a file under the rootdir (``file:$TMP/..``, ``file:~/..``)
``fixture:<scope>:<id>::f``   the cached value of a wider-scoped fixture (:mod:`.fixtures`)
``lib.mod.func``              a function or class of a library module the project
                              imports (the repair debugger's probe only, :mod:`.library`)
============================  ======================================================

Project modules are those whose ``__file__`` lies under the rootdir and outside
site-packages and virtual environments; pytest's and orderdep's own modules never count.
Values of roots may be anything (stdlib objects included); modules, functions and classes
are fingerprinted by identity (a leaked monkeypatch shows as a write), class attributes
are roots of their own.

API: :func:`snapshot` ``-> {root: fingerprint}``, :func:`diff`, :func:`describe`,
:func:`get` and :func:`restore` (used by repair to put a root back), and
:class:`StateTracker`, the incremental snapshotter the probe uses between tests.
"""

from __future__ import annotations

import operator
import os
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Optional

from orderdep.analysis.state.caches import CacheFingerprints
from orderdep.analysis.state.files import FileWatcher
from orderdep.analysis.state.fingerprint import (
    INTERNAL_MODULE_PREFIXES,
    Fingerprinter,
    identity,
)
from orderdep.analysis.state.fixtures import FixtureRoots
from orderdep.analysis.state.library import LibraryFunctions
from orderdep.analysis.state.namespaces import (
    CACHE,
    CLASS,
    CLASS_DEPTH,
    PLAIN,
    SKIP,
    ProjectModules,
    classify,
)
from orderdep.analysis.state.process_roots import ProcessRoots

PROCESS_ROOTS = ("cwd", "sys.path", "sys.argv", "sys.modules", "warnings", "random", "decimal")
DEFAULT_ENV_EXCLUDE = frozenset({"PYTEST_CURRENT_TEST", "PYTEST_XDIST_WORKER"})


@dataclass
class RootsConfig:
    """What to watch. ``RootsConfig.default(rootdir)`` adds the temp dir and HOME."""

    rootdir: str
    temp_dirs: list[str] = field(default_factory=list)
    home: Optional[str] = None
    files: bool = True
    cwd_files: bool = False  # the working directory's files when a test moved it (files.py)
    # a class's own functions are roots too (namespaces.classify): a replaced method is
    # then known to have existed; detection's probes leave them out (their cost)
    class_functions: bool = False
    # the functions and classes of library modules the project's modules import
    # (``time.sleep``), as roots of their own (library.py); the repair debugger's probe
    # turns them on, detection's probes leave them out (their cost)
    library_functions: bool = False
    env_exclude: frozenset[str] = DEFAULT_ENV_EXCLUDE
    module_exclude: tuple[str, ...] = ("orderdep", *INTERNAL_MODULE_PREFIXES)
    max_nodes: int = 2000
    max_depth: int = 8
    max_files: int = 5000
    hash_limit: int = 64 * 1024

    @classmethod
    def default(cls, rootdir: str, **kwargs: Any) -> RootsConfig:
        kwargs.setdefault("temp_dirs", [tempfile.gettempdir()])
        kwargs.setdefault("home", os.environ.get("HOME") or os.path.expanduser("~"))
        return cls(rootdir=rootdir, **kwargs)


# A namespace entry: [value, root name, kind, fingerprint if immutable else None].
# (size, getter of the entries that count, their value ids, fixed fingerprints, entries to
# revisit). Entries that do not count (methods, dunders) cannot become roots by rebinding.
if TYPE_CHECKING:  # builtin generics are not subscriptable at run time on 3.8
    Entry = list[Any]
    _Namespace = tuple[int, Callable[[Any], Any], tuple[int, ...], dict[str, int], list[Entry]]
MAX_ERRORS = 100  # failures kept in StateTracker.errors
OWNERS_LIMIT = 200_000  # objects remembered for alias reads before a fresh full walk


class StateTracker:
    """Takes snapshots of every root, reusing what cannot have changed.

    * Immutable values keep their fingerprint while bound to the same object.
    * A namespace (module or class dict) whose keys and value identities are unchanged is
      not re-classified; only its mutable values are walked again.
    * With ``touched`` (the roots the read tracer says a test may have read), mutable values
      of other roots keep their fingerprint too: to change a value in place, code needs a
      reference to it, and the tracer counts every named access and every argument that is
      part of a root, plus every root sharing objects with those (:attr:`partners`).

    After :meth:`snapshot`, :attr:`owners` maps ``identity(obj)`` of mutable objects reached to
    the roots that reach them, :attr:`modules` lists the project modules and
    :attr:`by_attr` indexes python roots by their last name component.
    """

    def __init__(self, config: RootsConfig) -> None:
        self.config = config
        self.project = ProjectModules(config.rootdir, config.module_exclude)
        self.files: Optional[FileWatcher] = None
        if config.files:
            self.files = FileWatcher(
                config.rootdir,
                temp_dirs=config.temp_dirs,
                home=config.home,
                hash_limit=config.hash_limit,
                max_files=config.max_files,
                cwd=config.cwd_files,
            )
        self.owners: dict[int, set[str]] = {}
        self.partners: dict[str, set[str]] = {}
        self.modules: list[tuple[str, ModuleType, str]] = []
        self.by_attr: dict[str, set[str]] = {}
        self.module_names: frozenset[str] = frozenset()
        self.truncated: set[str] = set()
        self.walked = 0  # mutable values walked by the last snapshot
        self.errors: list[str] = []  # parts of snapshots that failed (their roots kept)
        self._previous: dict[str, int] = {}
        self.timings = {"python": 0.0, "process": 0.0, "files": 0.0, "fixtures": 0.0}
        self.fixtures: Optional[FixtureRoots] = None  # set when a pytest session is known
        self._entries: dict[str, dict[str, Entry]] = {}
        self._ns: dict[str, _Namespace] = {}
        self._last: dict[str, int] = {}
        self._touched: Optional[set[str]] = None
        self._process = ProcessRoots(config.env_exclude)
        self._walker = Fingerprinter()
        self._caches = CacheFingerprints()
        self._library = LibraryFunctions(config.module_exclude)

    @property
    def library_module_names(self) -> frozenset[str]:
        """The library modules whose functions the last snapshot made roots."""
        return self._library.names

    def snapshot(
        self, touched: Optional[Iterable[str]] = None, *, full_files: bool = True
    ) -> dict[str, int]:
        """``{root: fingerprint}`` now.

        ``touched`` limits which mutable values are walked again; ``full_files=False`` lists
        only directories that changed and re-reads only files written in this process
        (:meth:`FileWatcher.scan`).
        """
        out: dict[str, int] = {}
        files = self.files
        parts: list[tuple[str, Callable[[], Any]]] = [
            ("python", lambda: self._python(out, touched)),
            ("process", lambda: self._process.fingerprint(out)),
        ]
        if files is not None:
            full = full_files or touched is None
            parts.append(("files", lambda: out.update(files.scan(full=full))))
        fixtures = self.fixtures
        if fixtures is not None:  # after the python roots: aliases are known by then
            parts.append(("fixtures", lambda: fixtures.snapshot(out, self._walker, self._touched)))
        timings = self.timings
        failed = False
        for part, run in parts:
            start = time.perf_counter()
            try:
                run()
            except Exception as exc:  # one failing part must not sink the probe's run
                failed = True
                self._error(part, exc)
            timings[part] += time.perf_counter() - start
        if failed:  # what could not be looked at keeps its last fingerprint
            for name, fp in self._previous.items():
                out.setdefault(name, fp)
        self._previous = out
        return out

    def _python(self, out: dict[str, int], touched: Optional[Iterable[str]]) -> None:
        if len(self.owners) > OWNERS_LIMIT:
            self.owners, self.partners, touched = {}, {}, None
        if touched is None:
            self._touched = None
        else:
            closure = set(touched)
            for name in list(closure):
                closure |= self.partners.get(name, set())
            self._touched = closure
        self._walker = Fingerprinter(
            max_nodes=self.config.max_nodes,
            max_depth=self.config.max_depth,
            owners=self.owners,
            partners=self.partners,
        )
        self.truncated = set()
        self.walked = 0
        self.modules = self.project.current()
        for module_name, module, _ in self.modules:
            try:
                self._scan(module_name, module_name, vars(module), None, 0, out)
            except Exception as exc:  # never lose the whole snapshot to one module
                self._keep_previous(module_name, out, exc)
        self.module_names = frozenset(name for name, _, _ in self.modules)
        if self.config.library_functions:
            self._library.fingerprint(self.modules, self.module_names, out)

    def _error(self, where: str, exc: Exception) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(f"{where}: {type(exc).__name__}: {exc}"[:300])

    def _keep_previous(self, prefix: str, out: dict[str, int], exc: Exception) -> None:
        """Roots under ``prefix`` keep their last fingerprints (a scan of them failed)."""
        self._error(prefix, exc)
        self._ns.pop(prefix, None)  # classify it afresh next time
        dotted = prefix + "."
        for name, fp in self._previous.items():
            if name.startswith((dotted, "cache:" + dotted)):
                out.setdefault(name, fp)

    def _scan(
        self,
        prefix: str,
        module: str,
        namespace: Mapping[str, Any],
        owner: Optional[type],
        depth: int,
        out: dict[str, int],
    ) -> None:
        """:func:`python_roots`, fingerprinted, reusing what cannot have changed."""
        state = self._ns.get(prefix)
        if state is None or state[0] != len(namespace) or _ids(state[1], namespace) != state[2]:
            fixed, dynamic = self._rebuild(prefix, module, namespace, owner)
            counted = [k for k, e in self._entries[prefix].items() if e[2] != SKIP]
            getter = _getter(counted)
            state = (len(namespace), getter, _ids(getter, namespace), fixed, dynamic)
            self._ns[prefix] = state
        out.update(state[3])
        touched, last = self._touched, self._last
        for entry in state[4]:
            value, name, kind, fp = entry
            if kind == CACHE:
                root = "cache:" + name
                out[root] = self._caches.fingerprint(root, value, self._walker, touched)
                if owner is not None:
                    continue
            elif kind == CLASS:
                if depth < CLASS_DEPTH:
                    inner = vars(value)
                    known = self._ns.get(name)
                    # a class of methods only (most test classes) that kept its size
                    if known is None or known[1] is not _NOTHING or known[0] != len(inner):
                        self._scan(name, module, inner, value, depth + 1, out)
                if owner is not None:
                    continue
            if fp is None:
                if touched is not None and name not in touched and name in last:
                    fp = last[name]  # not reachable by anything the test touched
                else:
                    fp = self._walk(entry)
            out[name] = fp

    def _walk(self, entry: Entry) -> int:
        walker = self._walker
        value, name = entry[0], entry[1]
        fp = walker.fingerprint(value, name)
        self.walked += 1
        if walker.truncated:
            self.truncated.add(name)
        if walker.mutable:
            self._last[name] = fp
        else:
            entry[3] = fp  # immutable: valid while the entry holds this very value
        return fp

    def _rebuild(
        self, prefix: str, module: str, namespace: Mapping[str, Any], owner: Optional[type]
    ) -> tuple[dict[str, int], list[Entry]]:
        """Classify a changed namespace: fixed fingerprints and entries to revisit."""
        entries = self._entries.get(prefix)
        if entries is None:
            entries = self._entries[prefix] = {}
        for gone in [k for k in entries if k not in namespace]:
            del entries[gone]
        fixed: dict[str, int] = {}
        dynamic: list[Entry] = []
        for key, value in list(namespace.items()):
            entry = entries.get(key)
            if entry is None or entry[0] is not value:
                try:
                    kind = classify(
                        key, value, module, owner, functions=self.config.class_functions
                    )
                except Exception:  # a value that fails when looked at (lazy proxies)
                    kind = PLAIN
                # holding the value keeps its id unique while its fingerprint is reused
                entry = entries[key] = [value, f"{prefix}.{key}", kind, None]
                self._last.pop(entry[1], None)  # a new value: walk it whatever was read
                self._caches.forget("cache:" + entry[1])
                if kind != SKIP:
                    self.by_attr.setdefault(str(key), set()).add(entry[1])
                    if kind == CACHE:
                        self.by_attr[str(key)].add("cache:" + entry[1])
            kind = entry[2]
            if kind == SKIP:
                continue
            if kind == PLAIN and entry[3] is None and entry[1] not in self._last:
                self._walk(entry)  # first sight: learn whether it is immutable
            if kind in (CACHE, CLASS) or entry[3] is None:
                dynamic.append(entry)
            elif owner is None or kind == PLAIN:
                fixed[entry[1]] = entry[3]
        return fixed, dynamic


def _nothing(namespace: Any) -> tuple[()]:
    return ()


_NOTHING = _nothing


def _getter(keys: list[str]) -> Callable[[Any], Any]:
    if not keys:
        return _NOTHING
    if len(keys) == 1:
        key = keys[0]
        return lambda ns: (ns[key],)
    return operator.itemgetter(*keys)


def _ids(getter: Callable[[Any], Any], namespace: Mapping[str, Any]) -> tuple[int, ...]:
    try:
        return tuple(map(identity, getter(namespace)))
    except KeyError:  # an entry that counted is gone
        return ()


# -- the functional API -------------------------------------------------------------------
def snapshot(config: RootsConfig) -> dict[str, int]:
    """Fingerprint of every root now (``{root name: fingerprint}``)."""
    return StateTracker(config).snapshot()


def diff(a: Mapping[str, int], b: Mapping[str, int]) -> list[str]:
    """Roots that differ between two snapshots (changed, added or removed), sorted."""
    if a == b:  # the common case after a test, and one C-level comparison
        return []
    changed = {k for k, _ in b.items() - a.items()}  # set operations on views run in C
    changed.update(a.keys() - b.keys())
    return sorted(changed)
