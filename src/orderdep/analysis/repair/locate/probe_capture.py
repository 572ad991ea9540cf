"""What the debug probe records of each root, and how a fresh module's value is found.

Loaded inside the test process with :mod:`.debug_probe`: imports nothing heavy.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import tempfile
import types
import zlib
from collections import deque
from typing import Any, Optional

from orderdep.analysis.repair.locate.probe_roots import (
    FIXTURE_PREFIX,
    FixtureValues,
)
from orderdep.analysis.repair.locate.probe_values import (
    MAX_LITERAL,
    describe,
    literal,
)
from orderdep.analysis.state import fixtures as fixture_state
from orderdep.analysis.state.fingerprint import fingerprint
from orderdep.analysis.state.process_roots import DECIMAL_FIELDS, logger_settings
from orderdep.analysis.state.roots import RootsConfig, StateTracker
from orderdep.analysis.state.settings import PREFIX as SETTING_PREFIX
from orderdep.analysis.state.values import RootValue, get, restore
from orderdep.analysis.state.values import describe as describe_root

# -- roots: what each capture reports ----------------------------------------------------------
PROCESS_ROOTS = frozenset(
    {"cwd", "sys.path", "sys.argv", "decimal", "warnings", "random", "sys.modules"}
)


def roots_config(rootdir: str) -> RootsConfig:
    home = os.environ.get("HOME")
    return RootsConfig(
        rootdir=rootdir,
        temp_dirs=[tempfile.gettempdir()],
        home=home,
        cwd_files=True,
        class_functions=True,
        library_functions=True,
    )


def is_python_root(name: str) -> bool:
    """A module global, class attribute or cache (named after its module)."""
    return name not in PROCESS_ROOTS and not name.startswith(
        ("env:", "file:", "logging:", FIXTURE_PREFIX, "sys.modules[", SETTING_PREFIX)
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
    if name == "sys.argv":
        return {"kind": "sysargv"}
    if name == "decimal":
        return {"kind": "decimal"}
    if name.startswith(SETTING_PREFIX):
        return {"kind": "setting"}
    if name.startswith("logging:"):
        return {"kind": "logging"}
    if name.startswith(FIXTURE_PREFIX):
        return fixture_meta(name)
    split = split_python_root(name, tracker.module_names | tracker.library_module_names)
    if split is None:
        return {"kind": "other"}
    module, attrs = split
    files = {n: f for n, _, f in tracker.modules}
    kind = "cache" if name.startswith("cache:") else "global" if len(attrs) == 1 else "classattr"
    return {
        "kind": kind,
        "library": module not in tracker.module_names,
        "module": module,
        "attrs": attrs,
        "module_file": _relative(files.get(module, ""), rootdir) if files.get(module) else None,
        "shadowed": shadowed_modules(module),
    }


def shadowed_modules(module: str) -> list[str]:
    """``module`` and the packages on its way that their package's attribute does not
    name (``from .problem import *`` binds the function ``problem`` over the submodule)."""
    parts = module.split(".")
    out = []
    for i in range(2, len(parts) + 1):
        parent, mod = (
            sys.modules.get(".".join(parts[: i - 1])),
            sys.modules.get(".".join(parts[:i])),
        )
        if (
            parent is not None
            and mod is not None
            and getattr(parent, parts[i - 1], None) is not mod
        ):
            out.append(".".join(parts[:i]))
    return out


def capture_root(name: str, meta: dict[str, Any], config: RootsConfig) -> dict[str, Any]:
    """Presence, description, literal and type of one root's value now."""
    out = dict(meta)
    kind = meta["kind"]
    if kind == "logging":
        captured = get(name, config)
        settings = logger_settings(captured.value, captured.content["handlers"])
        text = ", ".join(f"{f}={v!r}" for f, v in settings.items())
        out.update(present=True, type="logging", desc=["atom", "logging", text])
        out["literal"] = repr(settings)
        return out
    if kind in ("warnings", "other"):
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
    elif kind == "setting":
        text = repr(value)
        out.update(type="setting", desc=["atom", "setting", text], literal=text)
    elif kind == "decimal":
        settings = {f: getattr(captured.content, f) for f in DECIMAL_FIELDS}
        text = ", ".join(f"{f}={v!r}" for f, v in settings.items())
        out.update(type="decimal", desc=["atom", "decimal", text], literal=repr(settings))
    elif kind == "sysargv":
        out.update(type="list", desc=describe([str(a) for a in value]), literal=None)
    else:
        out.update(type=type(value).__qualname__, desc=describe(value), literal=literal(value))
        if not isinstance(value, (type(None), bool, int, float, complex, str, bytes, tuple)):
            out["ident"] = id(value)  # roots naming one object are aliases of each other
        where = importable(value)
        if where is not None:
            out["importable"] = where
            module = where.partition(":")[0]
            out["shadowed"] = sorted({*out.get("shadowed", ()), *shadowed_modules(module)})
    return out


def importable(value: Any) -> Optional[str]:
    """``module:qualname`` of a function or class reached again by importing its module
    and following its qualified name (a restore can name it: ``json.dumps``)."""
    if not isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        return None
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        return None
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return f"{module}:{qualname}" if found is value and module != "__main__" else None


def capture_attribute(name: str, meta: dict[str, Any], config: RootsConfig) -> dict[str, Any]:
    """:func:`capture_root` of an attribute of an object root, with its fingerprint."""
    try:
        out = capture_root(name, meta, config)
        if out.get("present"):
            out["fp"] = fingerprint(get(name, config).value)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # user code may raise any
        out = {**meta, "present": True, "error": repr(exc)[:300]}
    split = split_python_root(name, frozenset(sys.modules))
    if split is not None:  # where the holder's class lives: its methods may reset it
        try:
            owner: Any = sys.modules[split[0]]
            for attr in split[1][:-1]:
                owner = vars(owner)[attr]
            cls = type(owner)
            file = getattr(sys.modules.get(cls.__module__), "__file__", None)
            if isinstance(file, str):
                out.update(
                    owner_module=cls.__module__,
                    owner_class=cls.__qualname__,
                    owner_file=_relative(file, config.rootdir),
                )
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # user code may raise any
            pass
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
