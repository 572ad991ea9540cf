"""The repair debugger's probe, loaded by the engine inside the child that runs an order.

ODRepair's Debugger (003 §3.1, Figure 2) acts right before the OD test runs (position
``options["at"]``), in one of three modes:

``capture``
    Describe every shared-state root: a bounded structural description of its value
    (PolDet's XML serialisation, as JSON) and, when the value can be written as a Python
    literal, that literal (the restore patches need it). ``ensure_modules`` are imported
    first, so roots another order loaded lazily exist here too (the paper's
    ``state_capture_eager``).
``restore``
    At position 0 snapshot the roots named in ``roots``; at ``at`` put each back to its
    snapshot, in place when the object itself was mutated, so references held elsewhere
    see the restored content (003 §3.1.1 reuses live objects for the same reason). A root
    whose module was not loaded at position 0 is restored from a fresh execution of the
    module.
``exec``
    Execute ``code`` (a generated cleaner, or a cleaner's statements) in a copy of the
    namespace of module ``namespace`` (or a fresh one).

Roots (Python's "static fields", 003 §3.1): globals of the project's modules
``pkg.mod.NAME``, class attributes ``pkg.mod.Cls.attr``, ``functools`` caches
``cache:pkg.mod.func``, ``env:NAME``, ``cwd``, ``sys.path`` and files ``file:rel/path``
(``file:$TMP/...`` under the temp dir). The probe never raises into the run.
"""

from __future__ import annotations

import ast
import copy
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

EXCLUDED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".orderdep", ".mypy_cache",
        ".ruff_cache", ".tox", ".nox", ".venv", "venv", "node_modules", "site-packages",
        "dist-packages", ".hypothesis",
    }
)  # fmt: skip
TEMP_PREFIXES = ("pytest-of-", "orderdep-", "pytest-", "tmp-orderdep")
VOLATILE_ENV_PREFIXES = ("PYTEST_", "ORDERDEP_", "COV_CORE_")
MAX_FILES = 5000
MAX_SNAPSHOT_BYTES = 1 << 20
MAX_LITERAL = 4000
MAX_NODES = 300
MAX_DEPTH = 6
MAX_REPR = 160


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


ABSENT: Any = _Absent()


# -- bounded descriptions of values (the parent diffs these) -------------------------------
def describe(value: Any) -> Any:
    """A JSON description of ``value``: ``[tag, type name, payload]`` nodes, bounded."""
    budget = [MAX_NODES]
    return _describe(value, 0, budget, set())


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    if len(text) > MAX_REPR:
        text = f"{text[: MAX_REPR - 30]}...<{len(text)} chars, crc {zlib.crc32(text.encode())}>"
    return text


def _describe(value: Any, depth: int, budget: list[int], seen: set[int]) -> Any:
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
    if text == "set()":
        return text
    return text if back == value and type(back) is type(value) else None


def _plain(value: Any, depth: int) -> bool:
    if depth > 8 or type(value) not in _LITERAL_TYPES:
        return False
    if isinstance(value, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set)):
        return all(_plain(v, depth + 1) for v in value)
    return True


# -- roots -----------------------------------------------------------------------------------
def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def project_modules(rootdir: str) -> list[tuple[str, types.ModuleType, str]]:
    """(name, module, file relative to rootdir) of loaded modules that live in the project.

    Test modules and conftests come last, so an object also bound in a test module
    (``from app.registry import _ENTRIES``) is named after the module that defines it.
    """
    root = os.path.realpath(rootdir)
    out = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not isinstance(module, types.ModuleType) or not file or name.startswith("orderdep"):
            continue
        path = os.path.realpath(file)
        if not _inside(path, root):
            continue
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        if any(part in EXCLUDED_DIRS for part in rel.split("/")[:-1]):
            continue
        out.append((name, module, rel))

    def testish(item: tuple[str, types.ModuleType, str]) -> tuple[bool, str]:
        base = item[2].rsplit("/", 1)[-1]
        return (base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py",
                item[0])  # fmt: skip

    return sorted(out, key=testish)


def module_of_test(test_id: str, rootdir: str) -> Optional[str]:
    """The name under which the module holding ``test_id`` was imported."""
    target = os.path.realpath(os.path.join(rootdir, test_id.split("::", 1)[0]))
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and os.path.realpath(file) == target:
            return name
    return None


def loaded_module(name: str) -> Optional[types.ModuleType]:
    module = sys.modules.get(name)
    return module if isinstance(module, types.ModuleType) else None


def _is_cache(value: Any) -> bool:
    return callable(getattr(value, "cache_info", None)) and callable(
        getattr(value, "cache_clear", None)
    )


class Snapshot:
    """A root's value at one moment: the object itself and, if possible, a deep copy."""

    def __init__(self, present: bool, obj: Any = None, copied: Any = ABSENT) -> None:
        self.present, self.obj, self.copied = present, obj, copied


class Root:
    """One named piece of process-global state."""

    kind = "other"

    def __init__(self, name: str) -> None:
        self.name = name

    def get(self) -> Any:
        raise NotImplementedError

    def info(self) -> dict[str, Any]:
        return {"kind": self.kind}

    def capture(self) -> dict[str, Any]:
        value = self.get()
        out = self.info()
        out["present"] = value is not ABSENT
        if value is not ABSENT:
            out["type"] = type(value).__qualname__
            out["desc"] = self.describe(value)
            out["literal"] = self.literal(value)
        return out

    def describe(self, value: Any) -> Any:
        return describe(value)

    def literal(self, value: Any) -> Optional[str]:
        return literal(value)

    def snapshot(self) -> Snapshot:
        value = self.get()
        if value is ABSENT:
            return Snapshot(False)
        try:
            copied = copy.deepcopy(value)
        except Exception:
            copied = ABSENT
        return Snapshot(True, value, copied)

    def fresh_snapshot(self) -> Snapshot:
        raise LookupError(f"{self.name} was not there at the start of the order")

    def restore(self, snap: Snapshot) -> None:
        raise NotImplementedError


class AttrRoot(Root):
    """A module global (``pkg.mod.NAME``) or class attribute (``pkg.mod.Cls.attr``)."""

    def __init__(self, name: str, module: str, attrs: tuple[str, ...], file: str = "") -> None:
        super().__init__(name)
        self.module, self.attrs, self.file = module, attrs, file
        self.kind = "global" if len(attrs) == 1 else "classattr"

    def info(self) -> dict[str, Any]:
        return {"kind": self.kind, "module": self.module, "attrs": list(self.attrs),
                "module_file": self.file}  # fmt: skip

    def _owner(self, module: Optional[types.ModuleType] = None) -> Any:
        owner: Any = module or loaded_module(self.module)
        if owner is None:
            return ABSENT
        for attr in self.attrs[:-1]:
            owner = vars(owner).get(attr, ABSENT)
            if owner is ABSENT:
                return ABSENT
        return owner

    def get(self) -> Any:
        owner = self._owner()
        if owner is ABSENT:
            return ABSENT
        return vars(owner).get(self.attrs[-1], ABSENT)

    def fresh_snapshot(self) -> Snapshot:
        # The module was imported after position 0: execute a private copy of it to learn
        # the value its import creates (PolDet's eager loading, 003 §3.1).
        spec = importlib.util.find_spec(self.module)
        if spec is None or spec.loader is None:
            raise LookupError(f"cannot find module {self.module!r} to load it afresh")
        fresh = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(fresh)
        owner = self._owner(fresh)
        value = ABSENT if owner is ABSENT else vars(owner).get(self.attrs[-1], ABSENT)
        return Snapshot(False) if value is ABSENT else Snapshot(True, None, value)

    def restore(self, snap: Snapshot) -> None:
        owner = self._owner()
        if owner is ABSENT:
            raise LookupError(f"module {self.module!r} is not loaded")
        attr = self.attrs[-1]
        current = vars(owner).get(attr, ABSENT)
        if not snap.present:
            if current is not ABSENT:
                delattr(owner, attr)
            return
        if current is snap.obj and snap.copied is not ABSENT and _refill(current, snap.copied):
            return
        if current is snap.obj and snap.copied is ABSENT:
            raise ValueError(f"{self.name} changed in place and cannot be copied")
        setattr(owner, attr, snap.obj if snap.copied is ABSENT else snap.copied)


def _refill(target: Any, source: Any) -> bool:
    """Make mutable ``target`` equal to ``source`` in place; False if it cannot."""
    if isinstance(target, dict) and isinstance(source, dict):
        target.clear()
        target.update(source)
    elif isinstance(target, (list, deque)) and isinstance(source, (list, deque)):
        target.clear()
        target.extend(source)
    elif isinstance(target, set) and isinstance(source, set):
        target.clear()
        target.update(source)
    elif isinstance(target, bytearray) and isinstance(source, bytearray):
        target[:] = source
    elif isinstance(getattr(target, "__dict__", None), dict) and type(target) is type(source):
        target.__dict__.clear()
        target.__dict__.update(source.__dict__)
    else:
        return False
    return True


class CacheRoot(AttrRoot):
    """A ``functools.lru_cache``/``cache`` wrapper; its state is what it has cached."""

    def __init__(self, name: str, module: str, attrs: tuple[str, ...], file: str = "") -> None:
        super().__init__(name, module, attrs, file)
        self.kind = "cache"

    def get(self) -> Any:
        func = super().get()
        if func is ABSENT or not _is_cache(func):
            return ABSENT
        return func.cache_info().currsize

    def describe(self, value: Any) -> Any:
        return ["cache", "int", str(value)]

    def literal(self, value: Any) -> Optional[str]:
        return None

    def snapshot(self) -> Snapshot:
        value = self.get()
        return Snapshot(value is not ABSENT, value, value)

    def fresh_snapshot(self) -> Snapshot:
        return Snapshot(True, 0, 0)

    def restore(self, snap: Snapshot) -> None:
        func = AttrRoot.get(self)
        if func is ABSENT:
            raise LookupError(f"{self.name} does not exist")
        if self.get() != snap.copied:
            func.cache_clear()


class EnvRoot(Root):
    kind = "env"

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.var = name[len("env:") :]

    def info(self) -> dict[str, Any]:
        return {"kind": self.kind, "var": self.var}

    def get(self) -> Any:
        return os.environ.get(self.var, ABSENT)

    def fresh_snapshot(self) -> Snapshot:
        return Snapshot(False)

    def restore(self, snap: Snapshot) -> None:
        if snap.present:
            os.environ[self.var] = snap.obj
        else:
            os.environ.pop(self.var, None)


class CwdRoot(Root):
    kind = "cwd"

    def __init__(self, rootdir: str) -> None:
        super().__init__("cwd")
        self.rootdir = rootdir

    def get(self) -> Any:
        try:
            return os.path.relpath(os.getcwd(), self.rootdir).replace(os.sep, "/")
        except (OSError, ValueError):
            return ABSENT

    def restore(self, snap: Snapshot) -> None:
        os.chdir(os.path.join(self.rootdir, snap.obj))


class SysPathRoot(Root):
    kind = "syspath"

    def __init__(self, rootdir: str) -> None:
        super().__init__("sys.path")
        self.rootdir = os.path.realpath(rootdir)

    def get(self) -> Any:
        out = []
        for entry in sys.path:
            real = os.path.realpath(entry) if entry else entry
            if entry and _inside(real, self.rootdir):
                entry = os.path.relpath(real, self.rootdir).replace(os.sep, "/")
            out.append(entry)
        return out

    def snapshot(self) -> Snapshot:
        return Snapshot(True, list(sys.path), list(sys.path))

    def restore(self, snap: Snapshot) -> None:
        sys.path[:] = snap.copied


class FileRoot(Root):
    """A file (or directory, name ending in ``/``) under the rootdir or the temp dir."""

    kind = "file"

    def __init__(self, name: str, path: str) -> None:
        super().__init__(name)
        self.path = path

    def info(self) -> dict[str, Any]:
        return {"kind": self.kind, "path": self.name[len("file:") :].rstrip("/")}

    def get(self) -> Any:
        if self.name.endswith("/"):
            return ["dir"] if os.path.isdir(self.path) else ABSENT
        try:
            with open(self.path, "rb") as fh:
                return fh.read(MAX_SNAPSHOT_BYTES + 1)
        except OSError:
            return ABSENT

    def describe(self, value: Any) -> Any:
        if isinstance(value, bytes):
            return ["file", "bytes", f"{len(value)} bytes, crc {zlib.crc32(value)}"]
        return ["dir", "dir", ""]

    def literal(self, value: Any) -> Optional[str]:
        if isinstance(value, bytes) and len(value) <= MAX_LITERAL:
            try:
                return repr(value.decode("utf-8"))
            except UnicodeDecodeError:
                return None
        return None

    def fresh_snapshot(self) -> Snapshot:
        return Snapshot(False)

    def restore(self, snap: Snapshot) -> None:
        import shutil

        if not snap.present:
            if os.path.isdir(self.path) and not os.path.islink(self.path):
                shutil.rmtree(self.path)
            elif os.path.lexists(self.path):
                os.unlink(self.path)
        elif isinstance(snap.obj, bytes):
            if len(snap.obj) > MAX_SNAPSHOT_BYTES:
                raise ValueError(f"{self.name} is too large to restore")
            with open(self.path, "wb") as fh:
                fh.write(snap.obj)
        else:
            os.makedirs(self.path, exist_ok=True)


def _file_roots(base: str, prefix: str, out: dict[str, Root], temp: bool) -> None:
    count = 0
    stack = [(base, "")]
    while stack and count < MAX_FILES:
        directory, rel = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name in EXCLUDED_DIRS or entry.name.endswith((".pyc", ".pyo")):
                continue
            if temp and not rel and entry.name.startswith(TEMP_PREFIXES):
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                    continue
                name = f"{prefix}{rel}{entry.name}/"
                stack.append((entry.path, f"{rel}{entry.name}/"))
            else:
                name = f"{prefix}{rel}{entry.name}"
            out[name] = FileRoot(name, entry.path)
            count += 1


def _temp_dir(rootdir: str) -> Optional[str]:
    tmp = os.path.realpath(tempfile.gettempdir())
    if _inside(os.path.realpath(rootdir), tmp) or _inside(tmp, os.path.realpath(rootdir)):
        return None  # one would scan the other
    return tmp


def enumerate_roots(rootdir: str) -> dict[str, Root]:
    """Every root visible now, by name (aliases of one mutable object: first name only)."""
    out: dict[str, Root] = {}
    owners: dict[int, str] = {}

    def add(root: Root, value: Any) -> None:
        if not isinstance(value, (int, float, str, bytes, bool, tuple, type(None))):
            if id(value) in owners:
                return  # the same object under another name: restoring one restores both
            owners[id(value)] = root.name
        out[root.name] = root

    for modname, module, rel in project_modules(rootdir):
        for attr, value in list(vars(module).items()):
            if attr.startswith("__") or isinstance(value, types.ModuleType):
                continue
            name = f"{modname}.{attr}"
            if _is_cache(value):
                out[f"cache:{name}"] = CacheRoot(f"cache:{name}", modname, (attr,), rel)
            elif isinstance(value, type):
                if value.__module__ == modname:
                    _class_roots(value, modname, (attr,), rel, out, add)
            else:
                add(AttrRoot(name, modname, (attr,), rel), value)
    for var in sorted(os.environ):
        if not var.startswith(VOLATILE_ENV_PREFIXES):
            out[f"env:{var}"] = EnvRoot(f"env:{var}")
    out["cwd"] = CwdRoot(rootdir)
    out["sys.path"] = SysPathRoot(rootdir)
    _file_roots(rootdir, "file:", out, temp=False)
    tmp = _temp_dir(rootdir)
    if tmp is not None:
        _file_roots(tmp, "file:$TMP/", out, temp=True)
    return out


def _class_roots(
    cls: type, modname: str, path: tuple[str, ...], rel: str, out: dict[str, Root], add: Any
) -> None:
    for attr, value in list(vars(cls).items()):
        if attr.startswith("__") or isinstance(
            value, (types.FunctionType, staticmethod, classmethod, property, types.ModuleType)
        ):
            continue
        name = f"{modname}.{'.'.join(path)}.{attr}"
        if _is_cache(value):
            out[f"cache:{name}"] = CacheRoot(f"cache:{name}", modname, (*path, attr), rel)
        elif isinstance(value, type):
            if value.__module__ == modname and len(path) < 3:
                _class_roots(value, modname, (*path, attr), rel, out, add)
        elif not type(value).__name__.endswith("Descriptor"):
            add(AttrRoot(name, modname, (*path, attr), rel), value)


def root_from_name(name: str, rootdir: str) -> Optional[Root]:
    """The root called ``name`` (it may not exist yet, e.g. an env var set later)."""
    if name.startswith("env:"):
        return EnvRoot(name)
    if name == "cwd":
        return CwdRoot(rootdir)
    if name == "sys.path":
        return SysPathRoot(rootdir)
    if name.startswith("file:$TMP/"):
        tmp = _temp_dir(rootdir) or tempfile.gettempdir()
        return FileRoot(name, os.path.join(tmp, *name[len("file:$TMP/") :].rstrip("/").split("/")))
    if name.startswith("file:"):
        return FileRoot(name, os.path.join(rootdir, *name[len("file:") :].rstrip("/").split("/")))
    dotted = name[len("cache:") :] if name.startswith("cache:") else name
    parts = dotted.split(".")
    kind = CacheRoot if name.startswith("cache:") else AttrRoot
    cuts = range(len(parts) - 1, 0, -1)
    for cut in cuts:  # loaded modules first: the longest loaded prefix is the module
        if ".".join(parts[:cut]) in sys.modules:
            return kind(name, ".".join(parts[:cut]), tuple(parts[cut:]))
    for cut in cuts:
        try:
            spec = importlib.util.find_spec(".".join(parts[:cut]))
        except (ImportError, AttributeError, ValueError):
            spec = None
        if spec is not None:
            return kind(name, ".".join(parts[:cut]), tuple(parts[cut:]))
    return None


# -- the probe --------------------------------------------------------------------------------
class DebugProbe:
    """Captures, restores or executes at one position of one order."""

    def __init__(self, options: dict[str, Any], rootdir: str) -> None:
        self.mode = str(options.get("mode", "capture"))
        self.at = int(options.get("at", 0))
        self.rootdir = rootdir
        self.options = options
        self.data: dict[str, Any] = {"mode": self.mode, "at": self.at}
        self._snapshots: dict[str, Snapshot] = {}
        self._failed: dict[str, str] = {}

    def before_test(self, index: int, test_id: str) -> None:
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
            self._exec()

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
        captured: dict[str, Any] = {}
        for name, root in enumerate_roots(self.rootdir).items():
            try:
                captured[name] = root.capture()
            except Exception as exc:
                captured[name] = {"kind": root.kind, "present": True, "error": repr(exc)[:300]}
        self.data["roots"] = captured

    def _snapshot(self) -> None:
        for name in self.options.get("roots") or []:
            root = root_from_name(str(name), self.rootdir)
            if root is None:
                continue
            try:
                if isinstance(root, AttrRoot) and loaded_module(root.module) is None:
                    continue  # loaded later: restored from a fresh copy of the module
                self._snapshots[str(name)] = root.snapshot()
            except Exception as exc:
                self._failed[str(name)] = f"snapshot: {type(exc).__name__}: {exc}"

    def _restore(self) -> None:
        restored: list[str] = []
        failed = dict(self._failed)
        for name in [str(n) for n in self.options.get("roots") or []]:
            if name in failed:
                continue
            root = root_from_name(name, self.rootdir)
            if root is None:
                failed[name] = "no such root in this process"
                continue
            try:
                snap = self._snapshots.get(name) or root.fresh_snapshot()
                root.restore(snap)
                restored.append(name)
            except Exception as exc:
                failed[name] = f"{type(exc).__name__}: {exc}"
        self.data["restored"] = restored
        self.data["failed"] = failed

    def _exec(self) -> None:
        namespace: dict[str, Any] = {"__name__": "orderdep_repair_exec"}
        module_name = self.options.get("namespace")
        module = loaded_module(str(module_name)) if module_name else None
        if module is not None:
            namespace = dict(vars(module))
        try:
            exec(compile(str(self.options.get("code", "")), "<candidate>", "exec"), namespace)
            self.data["exec_error"] = ""
        except BaseException:
            self.data["exec_error"] = traceback.format_exc(limit=3)[-1500:]


def make_probe(options: dict[str, Any], rootdir: str) -> DebugProbe:
    """Entry point the engine calls in the child (see :mod:`orderdep.engine.probe`)."""
    return DebugProbe(options, rootdir)
