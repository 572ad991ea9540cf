"""A module global bound to another object since the order began: what a reload leaves.

``importlib.reload(pkg.settings)`` runs the module's code again in its own namespace:
``settings = Settings()`` binds a new object, equal to the old one, while every module
that ran ``from pkg.settings import settings`` before keeps the old one. A test that then
patches ``pkg.settings.settings`` patches an object the code under test no longer
reads. Compared by value, nothing differs; what differs is which object the name holds.

So the debug probe notes, first thing in the order, which object each global of the
project's modules holds (:func:`idents`, by ``id``: no reference kept, nothing kept
alive), and a captured root holding another object by then is marked ``rebound``
(:func:`mark_rebound`): the debugger counts that as a difference, and restoring the
root (:func:`orderdep.analysis.state.restore`) binds the first object again.

The interpreter's own objects that code finds by name are watched the same way
(:data:`PROCESS_OBJECTS`, :func:`process_captures`): ``os.environ = saved`` after
``saved = os.environ.copy()`` binds a plain dict, equal to the environment, that no child
process sees (``putenv`` is ``os._Environ``'s), so a later test's
``monkeypatch.setenv`` no longer reaches the commands it runs.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Mapping
from typing import Any

#: Values whose identity says nothing: equal ones are interchangeable.
_PLAIN = (type(None), bool, int, float, complex, str, bytes, tuple, frozenset)
#: The capture's key for a root bound to another object since position 0.
REBOUND_KEY = "rebound"
#: The capture's key for the module defining a rebound value's class.
CLASS_MODULE_KEY = "class_module"


def idents(modules: Mapping[str, Any]) -> dict[str, int]:
    """``{"module.name": id(value)}`` for the globals of ``modules`` that are objects
    (not plain values, not modules: a module's own entry is a root of its own)."""
    out: dict[str, int] = {}
    for module_name, module in modules.items():
        try:
            namespace = vars(module)
        except TypeError:
            continue
        for attr, value in list(namespace.items()):
            if attr.startswith("__") or isinstance(value, (*_PLAIN, types.ModuleType)):
                continue
            out[f"{module_name}.{attr}"] = id(value)
    return out


#: The interpreter's objects watched for rebinding: root name -> (module, attribute).
PROCESS_OBJECTS: dict[str, tuple[str, str]] = {"os.environ": ("os", "environ")}


def _process_object(name: str) -> Any:
    module, attr = PROCESS_OBJECTS[name]
    return getattr(sys.modules.get(module), attr, None)


def process_idents() -> dict[str, int]:
    """``{name: id(value)}`` for :data:`PROCESS_OBJECTS` (at an order's start)."""
    out: dict[str, int] = {}
    for name in PROCESS_OBJECTS:
        value = _process_object(name)
        if value is not None:
            out[name] = id(value)
    return out


def process_captures(at_start: Mapping[str, int]) -> dict[str, dict[str, Any]]:
    """A capture of each of :data:`PROCESS_OBJECTS`, a module global of the standard
    library: its type, and ``rebound`` when it holds another object than at the order's
    start (``at_start``, from :func:`process_idents`). Its content is left out: the
    environment's variables are roots of their own."""
    out: dict[str, dict[str, Any]] = {}
    for name, (module, attr) in PROCESS_OBJECTS.items():
        value = _process_object(name)
        if value is None:
            continue
        kind = type(value).__name__
        capture: dict[str, Any] = {
            "kind": "global", "library": True, "module": module, "attrs": [attr],
            "module_file": None, "shadowed": [], "present": True, "type": kind,
            "desc": ["atom", kind, kind], "literal": None, "ident": id(value),
        }  # fmt: skip
        if is_rebound(capture, name, at_start):
            mark_rebound(capture, value)
        out[name] = capture
    return out


def is_rebound(capture: dict[str, Any], name: str, at_start: Mapping[str, int]) -> bool:
    """Whether ``capture`` (of root ``name``) holds another object than at start."""
    ident, before = capture.get("ident"), at_start.get(name)
    return isinstance(ident, int) and before is not None and ident != before


def mark_rebound(capture: dict[str, Any], value: Any) -> None:
    """Mark ``capture`` of a rebound root holding ``value``, with the module that defines
    the value's class (see :func:`defines`)."""
    capture[REBOUND_KEY] = True
    capture[CLASS_MODULE_KEY] = getattr(type(value), "__module__", None)


def defines(capture: Any) -> bool:
    """Whether a rebound root's module defines its value's class: of the names a reloaded
    module's object has (``pkg.settings.settings``, and ``pkg.app.settings`` in a module
    that imported it), the one its own module made, which every other name was read from."""
    return isinstance(capture, dict) and capture.get(CLASS_MODULE_KEY) == capture.get("module")


def rebound_differs(failing: Any, passing: Any) -> bool:
    """Whether one capture is marked rebound and the other is not."""
    marks = [isinstance(c, dict) and bool(c.get(REBOUND_KEY)) for c in (failing, passing)]
    return marks[0] != marks[1]


__all__ = [
    "CLASS_MODULE_KEY",
    "PROCESS_OBJECTS",
    "REBOUND_KEY",
    "defines",
    "idents",
    "mark_rebound",
    "process_captures",
    "process_idents",
    "rebound_differs",
]
