"""The repair debugger's probe, loaded by the engine inside the child that runs an order.

ODRepair's Debugger (003 §3.1, Figure 2) acts right before the OD test runs (position
``options["at"]``), in one of three modes:

``capture``
    Fingerprint every root (:mod:`orderdep.analysis.state.roots`, plus the entries of
    ``sys.modules`` and the wide fixtures' values of :mod:`.probe_roots`) and describe its
    value: a bounded structure (PolDet's XML serialisation, as JSON) the parent diffs into
    readable sentences, and, when the value can be written as a Python literal, that
    literal (the restore patches need it). A fixture value equal to what its fixture
    function returned is *fresh* (a fixture not set up yet is too), and a changed one is
    described next to its fresh content. ``ensure_modules`` are imported first, so
    roots another order loaded lazily exist here too (the paper's ``state_capture_eager``).
``restore``
    At position 0 capture the roots named in ``roots`` (:func:`orderdep.analysis.state.get`);
    at ``at`` put each back (:func:`orderdep.analysis.state.restore`: in place, so
    references held elsewhere see the restored content, as 003 §3.1.1 reuses live
    objects). A root whose module was not imported at position 0 gets the value a fresh
    execution of its module creates; a ``sys.modules`` entry absent then is removed; a
    fixture value gets its fresh content back.
``exec``
    Execute ``code`` (a generated cleaner, or a cleaner's statements) in a copy of the
    namespace of module ``namespace`` (or a fresh one). With ``phase: "call"`` it runs
    where a patch's statements would, after the test's fixtures were set up and right
    before its function is called, with the values of ``fixtures`` bound by name.

The probe never raises into the run; problems land in its result.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import sys
import tempfile
import traceback
import types
import zlib
from collections import deque
from typing import Any, Optional

from orderdep.analysis.repair.probe_roots import (
    FIXTURE_PREFIX,
    FixtureValues,
    describe_module,
    library_dirs,
    sysmodule_name,
    sysmodule_root,
    watched_modules,
)
from orderdep.analysis.state import fixtures as fixture_state
from orderdep.analysis.state.fingerprint import INTERNAL_MODULE_PREFIXES as INTERNAL
from orderdep.analysis.state.roots import ProjectModules, RootsConfig, StateTracker
from orderdep.analysis.state.values import RootValue, get, restore
from orderdep.analysis.state.values import describe as describe_root
from orderdep.analysis.state.windows import find_session

# Never compared: the engine reseeds ``random`` in every child; ``sys.modules`` as a whole
# differs with whatever the runner imported (its entries are roots of their own instead).
IGNORED_ROOTS = frozenset({"random", "sys.modules"})
MAX_LITERAL = 4000
MAX_NODES = 300
MAX_DEPTH = 6
MAX_REPR = 160


# -- bounded descriptions of values (the parent diffs these) -------------------------------
def describe(value: Any) -> Any:
    """A JSON description of ``value``: ``[tag, type name, payload]`` nodes, bounded."""
    return _describe(value, 0, [MAX_NODES], frozenset())


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    if len(text) > MAX_REPR:
        text = f"{text[: MAX_REPR - 30]}...<{len(text)} chars, crc {zlib.crc32(text.encode())}>"
    return text


def _describe(value: Any, depth: int, budget: list[int], seen: frozenset[int]) -> Any:
    t = type(value)
    tname = t.__qualname__
    if value is None or t in (bool, int, float, complex, str, bytes):
        return ["atom", tname, _short(value)]
    if isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type)):
        qual = getattr(value, "__qualname__", None) or getattr(value, "__name__", "?")
        return ["ref", tname, f"{getattr(value, '__module__', '') or ''}.{qual}"]
    if id(value) in seen:
        return ["cycle", tname, ""]
    if depth >= MAX_DEPTH or budget[0] <= 0:
        return ["cut", tname, _short(value)]
    budget[0] -= 1
    seen = seen | {id(value)}
    if isinstance(value, dict):
        items = sorted(((_short(k), v) for k, v in list(value.items())), key=lambda kv: kv[0])
        return ["dict", tname, [[k, _describe(v, depth + 1, budget, seen)] for k, v in items]]
    if isinstance(value, (list, tuple, deque)):
        return ["seq", tname, [_describe(v, depth + 1, budget, seen) for v in list(value)]]
    if isinstance(value, (set, frozenset)):
        return ["set", tname, sorted(_short(v) for v in list(value))]
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict) and not t.__module__.startswith(("_pytest", "pytest", "pluggy")):
        attrs = sorted(state.items())
        return ["obj", tname, [[k, _describe(v, depth + 1, budget, seen)] for k, v in attrs]]
    return ["atom", tname, _short(value)]


_LITERAL_TYPES = (type(None), bool, int, float, complex, str, bytes, list, tuple, dict, set)


def literal(value: Any) -> Optional[str]:
    """``repr(value)`` when it is a plain literal that evaluates back to an equal value."""
    if not _plain(value, 0):
        return None
    try:
        text = repr(value)
        if len(text) > MAX_LITERAL:
            return None
        back = ast.literal_eval(text)
    except Exception:
        return None
    return text if back == value and type(back) is type(value) else None


def _plain(value: Any, depth: int) -> bool:
    if depth > 8 or type(value) not in _LITERAL_TYPES:
        return False
    if isinstance(value, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set)):
        return all(_plain(v, depth + 1) for v in value)
    return True


# -- roots: what each capture reports ----------------------------------------------------------
PROCESS_ROOTS = frozenset({"cwd", "sys.path", "warnings", "random", "sys.modules"})


def roots_config(rootdir: str) -> RootsConfig:
    home = os.environ.get("HOME")
    return RootsConfig(rootdir=rootdir, temp_dirs=[tempfile.gettempdir()], home=home)


def is_python_root(name: str) -> bool:
    """A module global, class attribute or cache (named after its module)."""
    return name not in PROCESS_ROOTS and not name.startswith(
        ("env:", "file:", "logging:", FIXTURE_PREFIX, "sys.modules[")
    )


def _relative(path: str, rootdir: str) -> str:
    try:
        rel = os.path.relpath(path, rootdir)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def split_python_root(name: str, modules: frozenset[str]) -> Optional[tuple[str, list[str]]]:
    """(module, attribute path) of ``pkg.mod.Cls.attr``-style names (``cache:`` stripped)."""
    dotted = name[len("cache:") :] if name.startswith("cache:") else name
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        if ".".join(parts[:cut]) in modules:
            return ".".join(parts[:cut]), parts[cut:]
    return None


def fixture_meta(name: str) -> dict[str, Any]:
    """Kind, scope and fixture name of a ``fixture:<scope>:<baseid>::<name>`` root."""
    scope, _, rest = name[len(FIXTURE_PREFIX) :].partition(":")
    return {"kind": "fixture", "scope": scope, "fixture": rest.rpartition("::")[2]}


def root_meta(name: str, tracker: StateTracker, rootdir: str) -> dict[str, Any]:
    """What kind of root ``name`` is and where it lives (for the patches)."""
    if name.startswith("env:"):
        return {"kind": "env", "var": name[4:]}
    if name.startswith("file:"):
        rel = name[len("file:") :].rstrip("/")
        return {"kind": "file", "path": rel}
    if name in ("cwd", "warnings"):
        return {"kind": name}
    if name == "sys.path":
        return {"kind": "syspath"}
    if name.startswith("logging:"):
        return {"kind": "logging"}
    if name.startswith(FIXTURE_PREFIX):
        return fixture_meta(name)
    split = split_python_root(name, tracker.module_names)
    if split is None:
        return {"kind": "other"}
    module, attrs = split
    files = {n: f for n, _, f in tracker.modules}
    kind = "cache" if name.startswith("cache:") else "global" if len(attrs) == 1 else "classattr"
    return {
        "kind": kind,
        "module": module,
        "attrs": attrs,
        "module_file": _relative(files.get(module, ""), rootdir) if files.get(module) else None,
    }


def capture_root(name: str, meta: dict[str, Any], config: RootsConfig) -> dict[str, Any]:
    """Presence, description, literal and type of one root's value now."""
    out = dict(meta)
    kind = meta["kind"]
    if kind in ("logging", "warnings", "other"):
        text = describe_root(name, config)
        out.update(present=True, type=kind, desc=["atom", kind, text], literal=None)
        return out
    captured = get(name, config)
    out["present"] = captured.present
    if not captured.present:
        return out
    value = captured.value
    if kind == "cache":
        size = captured.content.currsize
        out.update(type="cache", desc=["cache", "int", str(size)], literal=None)
    elif kind == "file":
        content = captured.content
        if isinstance(content, bytes):
            desc = ["file", "bytes", f"{len(content)} bytes, crc {zlib.crc32(content)}"]
            out.update(type="file", desc=desc, literal=_text_literal(content))
        else:
            out.update(type="dir", desc=["dir", "dir", ""], literal=None)
    elif kind == "cwd":
        rel = _relative(str(value), config.rootdir)
        out.update(type="str", desc=describe(rel), literal=repr(rel))
    elif kind == "syspath":
        entries = [_relative(str(p), config.rootdir) if p else p for p in value]
        out.update(type="list", desc=describe(entries), literal=None)
    else:
        out.update(type=type(value).__qualname__, desc=describe(value), literal=literal(value))
        if not isinstance(value, (type(None), bool, int, float, complex, str, bytes, tuple)):
            out["ident"] = id(value)  # roots naming one object are aliases of each other
    return out


def _text_literal(content: bytes) -> Optional[str]:
    if len(content) > MAX_LITERAL:
        return None
    try:
        return repr(content.decode("utf-8"))
    except UnicodeDecodeError:
        return None


def loaded_module(name: str) -> Optional[types.ModuleType]:
    module = sys.modules.get(name)
    return module if isinstance(module, types.ModuleType) else None


def module_of_test(test_id: str, rootdir: str) -> Optional[str]:
    """The name under which the module holding ``test_id`` was imported."""
    target = os.path.realpath(os.path.join(rootdir, test_id.split("::", 1)[0]))
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and os.path.realpath(file) == target:
            return name
    return None


def restore_from_fresh_module(name: str) -> None:
    """Give python root ``name`` the value a fresh execution of its module creates.

    For roots of modules imported after position 0 (PolDet's eager loading, 003 §3.1):
    the module runs again in a private module object and the value is copied over, in
    place when the live object is a container of the same type.
    """
    dotted = name[len("cache:") :] if name.startswith("cache:") else name
    split = split_python_root(dotted, frozenset(sys.modules))
    if split is None:
        raise LookupError(f"no imported module holds {name!r}")
    module, attrs = split
    owner: Any = sys.modules[module]
    for attr in attrs[:-1]:
        owner = vars(owner)[attr]
    if name.startswith("cache:"):
        vars(owner)[attrs[-1]].cache_clear()
        return
    spec = importlib.util.find_spec(module)
    if spec is None or spec.loader is None:
        raise LookupError(f"cannot load module {module!r} afresh")
    fresh: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    for attr in attrs[:-1]:
        fresh = vars(fresh)[attr]
    attr = attrs[-1]
    if attr not in vars(fresh):
        if attr in vars(owner):
            delattr(owner, attr)
        return
    live, value = vars(owner).get(attr), vars(fresh)[attr]
    if type(live) is type(value) and isinstance(live, (dict, list, set, deque, bytearray)):
        restore(dotted, RootValue(dotted, True, live, value))  # in place: aliases see it
    else:
        setattr(owner, attr, value)


def capture_fixture(name: str, values: FixtureValues, fp: int, rootdir: str) -> dict[str, Any]:
    """A fixture root's value: ``fresh`` when as its fixture function made it (or when not
    set up), else described next to its fresh content (``fresh_desc``)."""
    out: dict[str, Any] = {**fixture_meta(name), "present": True}
    set_up, value = values.value(name)
    out["fresh"] = not set_up or fp == fixture_state.FRESH
    if not set_up:
        return out
    cls = type(value)
    out.update(type=cls.__qualname__, desc=describe(value), literal=literal(value))
    owner = sys.modules.get(cls.__module__)
    file = getattr(owner, "__file__", None)
    out.update(
        value_module=cls.__module__,
        value_class=cls.__qualname__,
        value_file=_relative(file, rootdir) if isinstance(file, str) else None,
    )
    if not isinstance(value, (type(None), bool, int, float, complex, str, bytes, tuple)):
        out["ident"] = id(value)
    if not out["fresh"] and name in values.fresh:
        fresh = values.fresh[name]
        out.update(fresh_desc=describe(fresh), fresh_literal=literal(fresh))
    return out


# -- the probe --------------------------------------------------------------------------------
class DebugProbe:
    """Captures, restores or executes at one position of one order."""

    def __init__(self, options: dict[str, Any], rootdir: str) -> None:
        self.mode = str(options.get("mode", "capture"))
        self.at = int(options.get("at", 0))
        self.rootdir = rootdir
        self.options = options
        self.config = roots_config(rootdir)
        self.data: dict[str, Any] = {"mode": self.mode, "at": self.at, "salt": hash("orderdep")}
        self._captured: dict[str, RootValue] = {}
        self._modules_at_start: dict[str, Any] = {}
        self._failed: dict[str, str] = {}
        self._library = library_dirs()
        self.fixtures: Optional[FixtureValues] = None
        self._armed: Optional[str] = None  # the test whose call runs the code (phase "call")

    def before_test(self, index: int, test_id: str) -> None:
        if index == 0:
            self._attach(find_session())
        if self.mode == "restore" and index == 0:
            self._snapshot()
        if index != self.at:
            return
        self.data["test"] = test_id
        self.data["test_module"] = module_of_test(test_id, self.rootdir)
        if self.mode == "capture":
            self._capture()
        elif self.mode == "restore":
            self._restore()
        elif self.mode == "exec":
            if self.options.get("phase") == "call" and self._armed is None:
                self._armed = test_id  # the plugin runs it (see _attach)
                if "exec_error" not in self.data:
                    self.data["exec_error"] = "the test's call phase never started"
            else:
                self._exec()

    def _attach(self, session: Any) -> None:
        """Fixture values and the call-phase hook, through the session running the order."""
        if session is None:
            return
        try:
            manager = session.config.pluginmanager
            project = ProjectModules(self.config.rootdir, ("orderdep", *INTERNAL))
            values = FixtureValues.of_session(session, project.is_project_path)
            if values.register(manager):
                self.fixtures = values
            if self.mode == "exec" and self.options.get("phase") == "call":
                manager.register(_call_phase_plugin(self), "orderdep-repair-call-phase")
        except Exception as exc:
            self.data["attach_error"] = f"{type(exc).__name__}: {exc}"[:300]

    def after_test(self, index: int, test_id: str) -> None:
        pass

    def result(self) -> dict[str, Any]:
        return self.data

    def _capture(self) -> None:
        missing = []
        for name in self.options.get("ensure_modules") or []:
            try:
                importlib.import_module(str(name))
            except Exception:
                missing.append(str(name))
        self.data["not_importable"] = missing
        tracker = StateTracker(self.config)
        if self.fixtures is not None:
            tracker.fixtures = self.fixtures.roots
        fingerprints = tracker.snapshot()
        captured: dict[str, Any] = {}
        for name, fp in fingerprints.items():
            if name in IGNORED_ROOTS:
                continue
            try:
                if name.startswith(FIXTURE_PREFIX) and self.fixtures is not None:
                    captured[name] = capture_fixture(name, self.fixtures, fp, self.rootdir)
                else:
                    meta = root_meta(name, tracker, self.rootdir)
                    captured[name] = capture_root(name, meta, self.config)
            except Exception as exc:
                meta = root_meta(name, tracker, self.rootdir)
                captured[name] = {**meta, "present": True, "error": repr(exc)[:300]}
            captured[name]["fp"] = fp
        for module_name, module in watched_modules(self._library).items():
            captured[sysmodule_root(module_name)] = {
                "kind": "sysmodule",
                "present": True,
                "type": "module",
                "desc": describe_module(module, self.rootdir),
                "literal": None,
            }
        self.data["roots"] = captured

    def _snapshot(self) -> None:
        self._modules_at_start = dict(sys.modules)
        for name in [str(n) for n in self.options.get("roots") or []]:
            if name.startswith((FIXTURE_PREFIX, "sys.modules[")):
                continue  # fixtures are not set up yet; sys.modules is kept whole above
            if is_python_root(name) and split_python_root(name, frozenset(sys.modules)) is None:
                continue  # imported later: restored from a fresh copy of its module
            try:
                self._captured[name] = get(name, self.config)
            except Exception as exc:
                self._failed[name] = f"capture: {type(exc).__name__}: {exc}"

    def _restore(self) -> None:
        restored: list[str] = []
        failed = dict(self._failed)
        for name in [str(n) for n in self.options.get("roots") or []]:
            if name in failed:
                continue
            try:
                module_name = sysmodule_name(name)
                if module_name is not None:
                    self._restore_sysmodule(module_name)
                elif name.startswith(FIXTURE_PREFIX):
                    if self.fixtures is None:
                        raise LookupError("no pytest session found: fixture values unknown")
                    self.fixtures.restore_fresh(name)
                elif name in self._captured:
                    restore(name, self._captured[name], self.config)
                else:
                    restore_from_fresh_module(name)
                restored.append(name)
            except Exception as exc:
                failed[name] = f"{type(exc).__name__}: {exc}"
        self.data["restored"] = restored
        self.data["failed"] = failed

    def _restore_sysmodule(self, name: str) -> None:
        if name in self._modules_at_start:
            sys.modules[name] = self._modules_at_start[name]
        else:
            sys.modules.pop(name, None)

    def _exec(self, namespace_extra: Optional[dict[str, Any]] = None) -> None:
        namespace: dict[str, Any] = {"__name__": "orderdep_repair_exec"}
        module_name = self.options.get("namespace")
        module = loaded_module(str(module_name)) if module_name else None
        if module is not None:
            namespace = dict(vars(module))
        namespace.update(namespace_extra or {})
        try:
            exec(compile(str(self.options.get("code", "")), "<candidate>", "exec"), namespace)
            self.data["exec_error"] = ""
        except BaseException:
            self.data["exec_error"] = traceback.format_exc(limit=3)[-1500:]

    def call_phase(self, item: Any) -> None:
        """Run the code right before the armed test's function (its fixtures are set up)."""
        if self._armed is None or getattr(item, "nodeid", None) != self._armed:
            return
        self._armed = ""  # once
        bound: dict[str, Any] = {}
        try:
            funcargs = getattr(item, "funcargs", {}) or {}
            for name in [str(n) for n in self.options.get("fixtures") or []]:
                if name in funcargs:
                    bound[name] = funcargs[name]
                else:  # a fixture the patch would add to the test's parameters
                    bound[name] = item._request.getfixturevalue(name)
        except BaseException:
            self.data["exec_error"] = traceback.format_exc(limit=3)[-1500:]
            return
        self._exec(bound)


def _call_phase_plugin(probe: DebugProbe) -> object:
    """A pytest plugin running the probe's code first thing in a test's call phase."""
    import pytest  # only ever called inside a pytest process

    class CallPhase:
        @pytest.hookimpl(tryfirst=True)
        def pytest_runtest_call(self, item: Any) -> None:
            probe.call_phase(item)

    return CallPhase()


def make_probe(options: dict[str, Any], rootdir: str) -> DebugProbe:
    """Entry point the engine calls in the child (see :mod:`orderdep.engine.probe`)."""
    return DebugProbe(options, rootdir)
