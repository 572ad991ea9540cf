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
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any

#: Values whose identity says nothing: equal ones are interchangeable.
_PLAIN = (type(None), bool, int, float, complex, str, bytes, tuple, frozenset)
#: The capture's key for a root bound to another object since position 0.
REBOUND_KEY = "rebound"


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


def mark_rebound(capture: dict[str, Any], name: str, at_start: Mapping[str, int]) -> None:
    """Mark ``capture`` (of root ``name``) when it holds another object than at start."""
    ident, before = capture.get("ident"), at_start.get(name)
    if isinstance(ident, int) and before is not None and ident != before:
        capture[REBOUND_KEY] = True


def rebound_differs(failing: Any, passing: Any) -> bool:
    """Whether one capture is marked rebound and the other is not."""
    marks = [isinstance(c, dict) and bool(c.get(REBOUND_KEY)) for c in (failing, passing)]
    return marks[0] != marks[1]


__all__ = ["REBOUND_KEY", "idents", "mark_rebound", "rebound_differs"]
